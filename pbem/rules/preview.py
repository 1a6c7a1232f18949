"""What a nation's turn will bring, for the prompt and the read-back: played by the turn code itself
(turn.play_nation_turn up to a stop point, without dice), never re-computed here.

- `turn_start`: rule 10.1 new armies (count, saved, how many), 10.2 where they may go, 9.0 the leaders
  who arrive, 4.2/7.0 the invaders and raiders who appear at sea, and (5, 7.1, 5.4) where each group
  can move then, with the path to write.
- `warnings`: what the orders will do that the player may not expect, without refusing them: PLACE
  lines when no new army comes (10.1), and overpopulation (6.0) after the planned moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.records import record
from pbem.rules import endturn, legal, population
from pbem.rules.context import TurnContext
from pbem.rules.events import Arrived, LeaderEntered, Overpopulation, Population
from pbem.rules.orders import NationOrders, Place
from pbem.rules.turn import play_nation_turn


@record
class LeaderArrival:
    leader: str
    area: str                   # where it enters without a LEADER order
    choices: tuple[str, ...]    # where a LEADER <name> IN <area> order may put it (9.0)


@record
class Arrival:
    sea: str
    armies: int
    raiders: bool


@dataclass
class TurnStart:
    nation: str
    increases: bool                     # 2.24, 10.5, 11.1: the nation increases population this turn
    count: float = 0.0                  # 10.1 population count (saved points included)
    saved_before: float = 0.0
    new_armies: int = 0
    saved_after: float = 0.0
    armies_in_play: int = 0             # 10.1 the nation's army pieces on the board (at sea included)
    armies_free: int = 0                # 10.1 unused army pieces: new armies come only from these
    places: list[str] = field(default_factory=list)          # 10.2 where PLACE may put them
    leaders: list[LeaderArrival] = field(default_factory=list)
    arrivals: list[Arrival] = field(default_factory=list)
    groups: list[legal.GroupOption] = field(default_factory=list)   # after the arrivals and placements


def turn_start(rs, state, nation: str) -> TurnStart:
    """The start of `nation`'s turn on `state` (no orders given: the defaults place and enter)."""
    result = play_nation_turn(rs, state, nation, {nation: NationOrders(nation)}, legal._NoDice(),
                              stop="after_population", strict=False)
    out = TurnStart(nation, increases=False)
    for ev in result.events:
        if getattr(ev, "nation", None) != nation:
            continue
        if isinstance(ev, Population):
            out.increases = True
            out.count, out.saved_before = ev.count, ev.saved_before
            out.new_armies, out.saved_after = ev.new_armies, ev.saved
        elif isinstance(ev, LeaderEntered):
            out.leaders.append(LeaderArrival(ev.leader, ev.area, leader_choices(rs, state, nation, ev.leader)))
        elif isinstance(ev, Arrived):
            out.arrivals.append(Arrival(ev.sea, ev.armies, bool(ev.raiders)))
    if out.increases:   # counted by the population code itself (after the arrivals, as the increase is)
        ctx = TurnContext(rs, result.state, nation, {}, legal._NoDice())
        out.armies_in_play, _ = population.pieces_in_play(ctx, nation)
        out.armies_free = population.free_armies(ctx, nation)
    if out.new_armies:
        out.places = legal.placement_options(rs, state, nation)
    # groups as they stand before any new army is placed (PLACE may put them anywhere listed), plus
    # the invaders and raiders who appear at sea and the leaders who arrive
    arrived = {a.sea for a in out.arrivals}
    entering = {ld.leader for ld in out.leaders}
    out.groups = legal.movement_options(rs, state, nation) + [
        g for g in legal.movement_options(rs, result.state, nation)
        if (g.start in arrived and g.kind != "leader") or g.leader in entering]
    return out


def leader_choices(rs, state, nation: str, leader: str) -> tuple[str, ...]:
    """Rule 9.0 — where LEADER <leader> IN <area> may put the arriving leader: the engine's own rule
    (rs.rules.leader_entry_choices) on the position the leaders enter, after the increase."""
    before = play_nation_turn(rs, state, nation, {nation: NationOrders(nation)}, legal._NoDice(),
                              stop="before_leaders", strict=False)
    ctx = TurnContext(rs, before.state, nation, {}, legal._NoDice())
    return tuple(sorted(rs.rules.leader_entry_choices(ctx, leader)))


def no_army_reason(rs, start: TurnStart) -> str:
    """Rule 10.1 — why a nation that increases gets no new army: too low a count, no unused army piece
    (the counts of the population code, whose piece limit is the ruleset's: Rules.army_piece_limit), or
    no room to place one (5.21, and the ruleset's own placement limits)."""
    per = rs.const.pop_per_army
    if start.count < per:
        return f"one army per {per:g} points, rule 10.1"
    if not start.armies_free:
        nat = rs.nations[start.nation]
        if start.armies_in_play == nat.max_armies:
            return f"no army pieces left: all {nat.max_armies} are in play, rule 10.1"
        return (f"no army pieces left: {start.armies_in_play} {nat.name} armies are in play and new ones are "
                f"raised only while fewer than {nat.max_armies} are, rule 10.1")
    return "no room to place a new army under the stacking limits, rules 5.21 and 10.2"


@record
class Warning:
    line: int          # the order line it is about (0: the orders as a whole)
    text: str
    message: str


def warnings(rs, state, nation: str, orders: NationOrders, *, first=None) -> list[Warning]:
    """Rules 10.1 and 6.0 — what the orders do that the player may not expect (they are not refused).
    `first`: the orders' `legal.first_movement`, when the caller has played it already."""
    out: list[Warning] = []
    places = orders.of(Place)
    start = turn_start(rs, state, nation) if places else None   # the turn's start is asked only of PLACE lines
    for p in places:
        if not start.new_armies:
            why = ("the " + rs.nations[nation].name + " do not increase population this turn (rules 2.24, 10.5, 11.1)"
                   if not start.increases else
                   f"population count {start.count:g} gives no new army ({no_army_reason(rs, start)})")
            out.append(Warning(p.line, p.text, f"no new armies this turn: {why}; this PLACE line does nothing"))
    result = first if first is not None else legal.first_movement(rs, state, nation, orders)
    ctx = TurnContext(rs, result.state.copy(), nation, {nation: orders}, legal._NoDice())
    endturn.overpopulation(ctx)
    for ev in ctx.events:
        if isinstance(ev, Overpopulation):
            lost = ", ".join(f"{k} in {rs.display(a)}" for a, k in ev.removed.items())
            out.append(Warning(0, "", f"overpopulation (rule 6.0): after these moves the end of the turn would "
                                      f"remove {lost} (more armies than twice the land areas held), unless "
                                      "battles cost armies first; DISBAND A, B ... says where to lose them"))
    return out
