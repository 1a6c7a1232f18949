"""Legal options, one function per decision. The validator, the prompt mails, the bots and the fuzzer
all ask these (and through them the same movement/battle code that adjudicates)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pbem.errors import OrderProblem
from pbem.records import record
from pbem.rules import movement
from pbem.rules.battle import defender_retreat_problem
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.dice import NeutralDice, RollRequest
from pbem.rules.events import OrderUnused
from pbem.rules.kingship import votes_by_nation
from pbem.rules.orders import Move, NationOrders
from pbem.rules.population import placement_areas
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState
from pbem.rules.turn import TurnResult, can_submit, play_nation_turn


class _NoDice:
    """Legal options never fight: asking for dice would be a bug. A battle a family fights within the
    population phase (e.g. a leader's arrival among enemies) is announced and left unfought, as
    validation leaves it (dice.NeutralDice)."""

    neutral = True

    def faces(self, req: RollRequest):
        return [1] * req.count


def first_movement(rs: Ruleset, state: GameState, nation: str, orders: NationOrders) -> TurnResult:
    """Rules 4.1-7.3 — the nation's turn from `state` to the end of its first movement, as the engine
    plays it, without dice (illegal orders dropped and reported in `problems`): where its pieces stand
    when the first battles are judged. One play serves every question about that moment (the battles
    the orders bring, their odds, the overpopulation they risk): with no problem it is the very
    position a strict play reaches; with one, a strict play is refused (a problem either way)."""
    return play_nation_turn(rs, state, nation, {nation: orders}, _NoDice(), stop="after_movement", strict=False)


@dataclass
class TurnCheck:
    """What validation found: the problems, and for legal orders that will have no effect, why."""

    problems: list[OrderProblem] = field(default_factory=list)
    unused: dict[int, str] = field(default_factory=dict)     # line -> why the order has no effect
    events: list = field(default_factory=list)     # the events of the turn played with neutral dice
    first: TurnResult | None = None    # asked for (`keep_first`): the play at the end of the first movement


def check_turn(rs: Ruleset, state: GameState, orders: NationOrders, *, phase: str = "population",
               keep_first: bool = False) -> TurnCheck:
    """Validation = adjudication: the nation's whole turn is played from `state` by the engine
    (population, movement, battles with neutral dice, raider withdrawal, overpopulation), every phase
    even after a refused line, so every order kind is judged on arrival as it will be when carried
    out. Problems of move lines get a hint with the places the group could reach. `keep_first`: the
    play also keeps where it stood at the end of the first movement (TurnCheck.first: what
    `first_movement` gives, from the population phase, as no die is rolled on the way there; None
    when the family's turn has no such point)."""
    keep = ("after_movement",) if keep_first and phase == "population" else ()
    result = play_nation_turn(rs, state, orders.nation, {orders.nation: orders}, NeutralDice(), start=phase,
                              strict=False, keep=keep)
    out = []
    by_line = {o.line: o for o in orders.orders}
    for p in result.problems:
        o = by_line.get(p.line)
        if isinstance(o, Move) and p.kind in ("not-adjacent", "too-far", "hiland-stop", "strait", "sea-move",
                                             "landing-restriction", "enemy-stop"):
            dests = reachable(rs, state, orders.nation, o.path[0], o.kind, escorted=False)
            if dests:
                names = ", ".join(sorted(rs.display(d) for d in dests))
                hint = f"reachable from {rs.display(o.path[0])}: {names}"
                goal = o.path[-1]
                if goal in dests and dests[goal] != o.path:   # the place is reachable: the path to write
                    head = o.leader and rs.display(o.leader) or (f"{o.count} cavalry" if o.kind == "cavalry" else str(o.count))
                    hint = f"write: {head} {' -> '.join(rs.display(x) for x in dests[goal])} ({hint})"
                p = replace(p, hint=(p.hint + "; " if p.hint else "") + hint)
        out.append(p)
    unused = {ev.line: ev.reason for ev in result.events if isinstance(ev, OrderUnused)}
    return TurnCheck(out, unused, result.events, result.kept.get("after_movement"))


def validate(rs: Ruleset, state: GameState, orders: NationOrders, *, phase: str = "population") -> list[OrderProblem]:
    """Rules 5-10 — every problem of a nation's orders against the position where its turn starts
    (`check_turn`)."""
    return check_turn(rs, state, orders, phase=phase).problems


def _ctx(rs: Ruleset, state: GameState, nation: str) -> TurnContext:
    return TurnContext(rs, state, nation, {}, _NoDice())


def reachable(rs: Ruleset, state: GameState, nation: str, start: str, kind: str = "armies", *,
              escorted: bool = False) -> dict[str, tuple[str, ...]]:
    """Rules 5.1-5.5, 7.11, 9.1 — every place a group starting at `start` may end its move in, with one
    shortest legal path to it. Passing through other nations' armies is not offered (5.3 needs a plan)."""
    limit = movement.allowance(rs, nation, kind, escorted)
    leader = None
    if kind == "leader":
        st = state.get(start, nation)
        leader = st.leaders[0] if st and st.leaders else None
    found: dict[str, tuple[str, ...]] = {}
    ctx = _ctx(rs, state, nation)   # rules 10.5 and 11.1: who may not attack whom
    frontier = [(start,)]
    for _ in range(limit):
        nxt = []
        for path in frontier:
            here = path[-1]
            if len(path) > 1 and rs.is_land(here) and movement.enemy_armies(state, here, nation):
                continue
            steps = set(rs.neighbours(here))
            if rs.is_land(here) and len(path) == 1:
                steps |= rs.areas[here].straits
            for nb in sorted(steps):
                if nb in path:
                    continue
                p = path + (nb,)
                order = Move(1, kind, p, leader=leader)
                probs = movement.check_path(rs, state, nation, order, escorted)
                if probs:
                    # a path that is not legal as a whole may still lead on (e.g. through a sea)
                    if _may_continue(rs, order, probs):
                        nxt.append(p)
                    continue
                if nb not in found and nb != start and not movement.check_attack_rules(ctx, order):
                    found[nb] = p
                nxt.append(p)
        frontier = nxt
    return found


def _may_continue(rs: Ruleset, order: Move, probs: list[OrderProblem]) -> bool:
    """A path refused only because it ends at sea leads on (the problems check_path found for it)."""
    return bool(probs) and all(p.kind == "sea-move" for p in probs) and rs.is_sea(order.path[-1])


@record
class GroupOption:
    """A group that could move: where it stands, what kind, how many, and where it could go."""

    start: str
    kind: str
    count: int
    destinations: dict[str, tuple[str, ...]]
    leader: str | None = None


def movement_options(rs: Ruleset, state: GameState, nation: str) -> list[GroupOption]:
    """Rule 5.11 — all, any or none of a nation's pieces may move: what each of its groups can do."""
    out = []
    for area in sorted(state.areas):
        st = state.get(area, nation)
        if not st:
            continue
        if st.armies:
            out.append(GroupOption(area, "armies", st.armies, reachable(rs, state, nation, area, "armies")))
        if st.cavalry:
            out.append(GroupOption(area, "cavalry", st.cavalry, reachable(rs, state, nation, area, "cavalry")))
        for ld in st.leaders:
            out.append(GroupOption(area, "leader", 1, reachable(rs, state, nation, area, "leader"), leader=ld))
    return out


def placement_options(rs: Ruleset, state: GameState, nation: str) -> list[str]:
    """Rule 10.2 — the areas where new armies may be placed."""
    return sorted(placement_areas(_ctx(rs, state, nation), nation))


def retreat_options(rs: Ruleset, state: GameState, attacker: str, area: str, defender: str,
                    attacker_origins: list[str] | None = None) -> list[str]:
    """Rule 8.2 — where the defender in `area` may retreat to now."""
    ctx = _ctx(rs, state, attacker)
    if attacker_origins:
        ctx.moves = [MoveRecord(attacker, "armies", 1, 0, (o, area), 1) for o in attacker_origins]
    st = state.get(area, defender)
    n = st.units if st else 1
    targets = rs.areas[area].land | rs.areas[area].straits
    return sorted(t for t in targets if not defender_retreat_problem(ctx, area, defender, t, n))


def vote_options(rs: Ruleset, state: GameState) -> dict[str, int]:
    """Rule 12.2 — who votes, with how many votes (one per English area occupied)."""
    return dict(votes_by_nation(rs, state))


def submission_options(rs: Ruleset, state: GameState, nation: str) -> list[str]:
    """Rules 11.1, 11.2 — to whom the nation may submit now."""
    return [to for to in (rs.role("empire"), rs.role("overlord")) if to and can_submit(rs, state, nation, to)]
