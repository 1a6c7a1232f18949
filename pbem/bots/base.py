"""What every bot shares: seeing its turn the way the engine will play it, and writing order TEXT.

A bot never holds a second copy of the rules. It asks the rules core:

* the population phase is played by the engine itself (`play_nation_turn(..., stop="after_population")`)
  to learn how many new armies there are, which leaders enter and what the board looks like when
  movement starts;
* where each group can go comes from `pbem.rules.legal` (`movement_options`, `placement_options`,
  `submission_options`, `vote_options`, `retreat_options`);
* whether a set of moves is legal *together* (stacking 5.2, enemy stops 5.3, who may attack whom) is
  asked of `pbem.rules.movement.plan_cycle`, the function that adjudicates movement;
* placement checks ask `pbem.rules.stacking.can_add`.

The orders are typed (`pbem.rules.orders`) while the bot thinks and are written out as ORDERS.md text
(`pbem.orders.canonical`), which the game reads back with the real parser.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pbem.orders.canonical import canonical, canonical_lines
from pbem.rules import legal, movement
from pbem.rules.book import OrdersBook
from pbem.rules.context import TurnContext
from pbem.rules.decisions import pending
from pbem.rules.dice import RollRequest
from pbem.rules.events import LeaderEntered, Placed, Population
from pbem.rules.orders import Move, NationOrders, Order, Pass, Place, PlaceLeader, Stay, Submit, Vote
from pbem.rules.ruleset import Ruleset
from pbem.rules.stacking import can_add, land_counts, normal_limit, over_limit
from pbem.rules.state import GameState
from pbem.rules.submission import in_overlord_turn_only
from pbem.rules.turn import can_submit, cycles, play_nation_turn


class NoDice:
    """Bots plan before the dice are rolled: a bot asking for dice is a bug. A battle a family fights
    within the population phase is announced and left unfought (dice.NeutralDice): the bot plans on the
    position as it stands."""

    neutral = True

    def faces(self, req: RollRequest):  # pragma: no cover - reached only by a bug
        raise RuntimeError(f"a bot looked at dice while planning ({req.label(0)})")


@dataclass
class TurnView:
    """A nation's turn as the engine will start it: the board when movement begins, and the choices
    made so far (population phase orders)."""

    nation: str
    before: GameState                 # the position where the turn starts (what validate() sees)
    new_armies: int                   # rule 10.1 increase this turn
    base: GameState                   # after arrivals and increase, before the new armies are placed
    entering: list[str]               # leaders entering this turn (9.0)
    orders: list[Order] = field(default_factory=list)   # population/submission orders chosen so far
    board: GameState | None = None    # after the population phase with `orders` (movement starts here)
    cycles: int = 1


def population_view(rs: Ruleset, state: GameState, nation: str) -> TurnView:
    """Let the engine play the population phase with default choices, and undo the default placement."""
    res = play_nation_turn(rs, state, nation, {nation: NationOrders(nation)}, NoDice(), stop="after_population",
                           strict=False)
    base = res.state.copy()
    new = 0
    entering: list[str] = []
    for ev in res.events:
        if getattr(ev, "nation", None) != nation:
            continue
        if isinstance(ev, Population):
            new = ev.new_armies
        elif isinstance(ev, Placed):
            for a in ev.areas:
                base.areas[a][nation].armies -= 1
        elif isinstance(ev, LeaderEntered):
            entering.append(ev.leader)
            st = base.get(ev.area, nation)
            if st and ev.leader in st.leaders:
                st.leaders.remove(ev.leader)
    base.prune()
    return TurnView(nation, state, new, base, entering)


def placement_list(rs: Ruleset, view: TurnView, choose) -> list[str]:
    """Rule 10.2 — a legal PLACE list for the new armies: one per area while another area can take one,
    never over the stacking limits (asked of stacking.can_add). `choose(candidates, placed)` picks."""
    nation = view.nation
    work = view.base.copy()
    eligible = legal.placement_options(rs, work, nation)
    placed: list[str] = []
    while len(placed) < view.new_armies:
        cands = [a for a in eligible if a not in placed and can_add(rs, work, nation, a)]
        if not cands:
            cands = [a for a in eligible if can_add(rs, work, nation, a)]
        if not cands:
            break
        a = choose(cands, placed)
        work.stack(a, nation).armies += 1
        placed.append(a)
    return placed


_PROBE_LINE = 10**6


def leader_places(rs: Ruleset, view: TurnView, leader: str, board: GameState) -> list[str]:
    """Rule 9.0 — where an entering leader may be put. pbem.rules.legal has no function for this
    decision, so the bot asks the engine: each place with the nation's pieces is tried with the
    population phase's own check (`LEADER x IN place` refused or not)."""
    nation = view.nation
    out = []
    for a in sorted(a for a, st in board.areas.items() if nation in st and st[nation].units):
        orders = [o for o in view.orders if not (isinstance(o, PlaceLeader) and o.leader == leader)]
        probe = PlaceLeader(leader, a, line=_PROBE_LINE)
        res = play_nation_turn(rs, view.before, nation, {nation: NationOrders(nation, orders + [probe])},
                               NoDice(), stop="after_population", strict=True)
        if not any(p.line == _PROBE_LINE for p in res.problems):
            out.append(a)
    return out


def play_population(rs: Ruleset, view: TurnView) -> GameState:
    """The board when movement starts, with the population orders chosen (the engine plays them)."""
    res = play_nation_turn(rs, view.before, view.nation, {view.nation: NationOrders(view.nation, list(view.orders))},
                           NoDice(), stop="after_population", strict=False)
    board = res.state
    for o in view.orders:
        if isinstance(o, Submit) and can_submit(rs, board, view.nation, o.to) and not in_overlord_turn_only(rs, o.to):
            board.subjects[view.nation] = o.to     # _submission happens before movement
    view.board = board
    view.cycles = cycles(rs, board, view.nation)
    return board


class MovePlanner:
    """Adds moves one at a time, keeping the set legal as a whole (asks movement.plan_cycle)."""

    def __init__(self, rs: Ruleset, board: GameState, nation: str, cycle: int = 1) -> None:
        self.rs = rs
        self.board = board
        self.nation = nation
        self.cycle = cycle
        self.ctx = TurnContext(rs, board, nation, {}, NoDice())
        self.ctx.cycle = cycle
        self.moves: list[Move] = []
        self.stays: list[Stay] = []
        self.left: dict[tuple[str, str], int] = {}
        for area, st in board.areas.items():
            s = st.get(nation)
            if s:
                self.left[(area, "armies")] = s.armies
                self.left[(area, "cavalry")] = s.cavalry
        self.rejected = 0

    def available(self, area: str, kind: str) -> int:
        return self.left.get((area, kind), 0)

    def ok(self, moves: list[Move], stays: list[Stay] | None = None) -> bool:
        _planned, problems = movement.plan_cycle(self.ctx, self.moves + moves, self.stays + (stays or []))
        return not problems

    def try_add(self, *moves: Move) -> bool:
        """Add these moves if the whole plan stays legal."""
        ms = [m if m.cycle == self.cycle else Move(m.count, m.kind, m.path, leader=m.leader, cycle=self.cycle)
              for m in moves]
        for m in ms:
            if m.kind != "leader" and m.count > self.available(m.path[0], m.kind):
                return False
        if not self.ok(ms):
            self.rejected += 1
            return False
        self.moves += ms
        for m in ms:
            if m.kind != "leader":
                self.left[(m.path[0], m.kind)] -= m.count
        return True

    def try_stay(self, stay: Stay) -> bool:
        if stay.count > self.available(stay.sea, "armies") or not self.ok([], [stay]):
            return False
        self.stays.append(stay)
        self.left[(stay.sea, "armies")] -= stay.count
        return True

    def repair_stacking(self) -> bool:
        """When the board breaks the stacking limits before anything moves (a position the engine made,
        as the rule 10.5 replacement did before it was fixed, or one a moderator set), move single units
        out of the areas over the limits until the whole plan is legal: otherwise no order set, not even
        PASS, would pass validate(). Returns True when the plan is legal afterwards."""
        rs, nation = self.rs, self.nation
        if self.ok([]):
            return True
        counts = land_counts(rs, self.board, nation)
        for m in self.moves:
            if m.kind != "leader":
                counts[m.path[0]] = counts.get(m.path[0], 0) - m.count
                counts[m.path[-1]] = counts.get(m.path[-1], 0) + m.count
        groups = {(g.start, g.kind): g for g in legal.movement_options(rs, self.board, nation) if g.kind != "leader"}
        extra: dict[tuple, int] = {}
        left = dict(self.left)
        for _ in range(40):
            bad = over_limit(rs, nation, {a: n for a, n in counts.items() if n > 0})
            if not bad:
                break
            moved = False
            for area in bad:
                for kind in ("armies", "cavalry"):
                    g = groups.get((area, kind))
                    if not g or left.get((area, kind), 0) <= 0:
                        continue
                    dests = [d for d in sorted(g.destinations) if rs.is_land(d)
                             and not movement.enemy_armies(self.board, d, nation)
                             and counts.get(d, 0) + 1 <= (normal_limit(rs, nation, d) or 99)]
                    if not dests:
                        continue
                    d = min(dests, key=lambda x: (counts.get(x, 0), len(g.destinations[x]), x))
                    key = (kind, g.destinations[d])
                    extra[key] = extra.get(key, 0) + 1
                    left[(area, kind)] -= 1
                    counts[area] -= 1
                    counts[d] = counts.get(d, 0) + 1
                    moved = True
                    break
                if moved:
                    break
            if not moved:
                break
        moves = [Move(n, kind, path, cycle=self.cycle) for (kind, path), n in extra.items()]
        if moves and self.ok(moves):
            self.moves += moves
            for m in moves:
                self.left[(m.path[0], m.kind)] -= m.count
            return True
        return False

    def after(self) -> GameState:
        """The board once these moves are carried out (before any battle): the engine executes them."""
        planned, problems = movement.plan_cycle(self.ctx, self.moves, self.stays)
        if problems:      # the start position itself is illegal (repair_stacking failed): nothing moves
            planned = []
        ctx = TurnContext(self.rs, self.board.copy(), self.nation, {}, NoDice())
        ctx.cycle = self.cycle
        movement.execute_cycle(ctx, planned)
        return ctx.state


def battle_areas(rs: Ruleset, board: GameState, nation: str) -> list[str]:
    """Land areas where the nation's units stand with another nation's fighters."""
    out = []
    for a, st in board.areas.items():
        s = st.get(nation)
        if rs.is_land(a) and s and s.units and any(n != nation and o.fighters for n, o in st.items()):
            out.append(a)
    return sorted(out)


def enemy_strength(board: GameState, area: str, nation: str) -> int:
    return movement.enemy_armies(board, area, nation)


# --- writing the text -------------------------------------------------------------------------------
class _IdNames:
    """A stand-in ruleset for canonical(): prints ids instead of display names (`south_mercia`)."""

    def display(self, ident: str) -> str:
        return ident


def render(rs: Ruleset, nation: str, orders: list[Order], rng: random.Random | None = None) -> str:
    """ORDERS.md text with a `NATION <name>` header. With `rng`, lines vary in the forms players use
    (ids instead of names, lower case, `to` for `->`) so bot games exercise more of the parser."""
    if not orders:
        orders = [Pass()]
    if rng is None:
        lines = canonical_lines(orders, rs)
        return f"NATION {rs.display(nation)}\n" + "\n".join(lines) + "\n"
    ids = _IdNames()
    out = [f"NATION {rng.choice([rs.display(nation), nation])}"]
    second = False
    for o in orders:
        if isinstance(o, Move) and o.cycle == 2 and not second:
            out.append("SECOND MOVEMENT")
            second = True
        line = canonical(o, ids if rng.random() < 0.3 else rs)
        r = rng.random()
        if r < 0.15:
            line = line.lower()
        elif r < 0.25 and isinstance(o, Move):
            line = line.replace(" -> ", " to ")
        out.append(line)
    return "\n".join(out) + "\n"


@dataclass
class Decision:
    """What a bot decided for one step: its typed orders (before the text round trip)."""

    nation: str
    orders: list[Order]


class Bot:
    """Base class. `orders(rs, state, nation)` returns ORDER TEXT for whatever the state asks of the
    nation: its turn, or a Bretwalda vote at the start of a round (rule 12.2)."""

    kind = "bot"
    mixed_forms = False

    def __init__(self, seed: int | str = 0, friends: tuple[str, ...] = ()) -> None:
        self.seed = seed
        self.friends = tuple(friends)      # nations of the same player (votes)

    def rng(self, state: GameState, nation: str, what: str) -> random.Random:
        """A generator that depends only on the seed and the decision (not on the call order)."""
        return random.Random(f"{self.kind}/{self.seed}/{state.game}/{state.round}/{nation}/{what}")

    # the decisions
    def orders(self, rs: Ruleset, state: GameState, nation: str) -> str:
        return render(rs, nation, self.decide(rs, state, nation),
                      self.rng(state, nation, "text") if self.mixed_forms else None)

    def decide(self, rs: Ruleset, state: GameState, nation: str) -> list[Order]:
        if state.finished:
            return []
        for d in pending(rs, state, OrdersBook()):
            if d.nation == nation:
                return [Vote(self.vote(rs, state, nation))] if d.kind == "vote" else self.turn(rs, state, nation)
        return []

    def vote(self, rs: Ruleset, state: GameState, nation: str) -> str:
        raise NotImplementedError

    def turn(self, rs: Ruleset, state: GameState, nation: str) -> list[Order]:
        raise NotImplementedError

    # helpers the bots share
    def population_orders(self, rs: Ruleset, view: TurnView, choose_area, choose_leader) -> None:
        if view.new_armies:
            areas = placement_list(rs, view, choose_area)
            if areas:
                view.orders.append(Place(tuple(areas)))
        if view.entering:
            # leaders enter after the new armies are placed: ask where the pieces will be then
            board = play_population(rs, view)
            for ld in view.entering:
                places = leader_places(rs, view, ld, board)
                if places:
                    view.orders.append(PlaceLeader(ld, choose_leader(ld, places, board)))
