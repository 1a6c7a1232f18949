"""The working context of one nation's turn: ruleset, state, orders, dice, events, and what moved;
and the nation turn being played through a family's sequence of play (NationTurn: where it starts and
stops, whether a problem refuses it, the problems found so far)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.errors import OrderProblem
from pbem.rules.dice import Dice
from pbem.rules.events import KINDS, Event, make
from pbem.rules.orders import NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState


@dataclass
class MoveRecord:
    """A group that moved this turn: where from, by which path, how many raiders among it."""

    nation: str
    kind: str            # armies | cavalry | leader
    count: int
    raiders: int
    path: tuple[str, ...]
    cycle: int
    line: int = 0
    leader: str | None = None
    retreated: int = 0   # units of this group that have since retreated from its destination (8.3)
    withdrawal: bool = False   # a raider stepping back along its route after combat (8.4)

    @property
    def dest(self) -> str:
        return self.path[-1]

    @property
    def came_from(self) -> str:
        """Rule 8.3 — the area from which the group entered its destination."""
        return self.path[-2]


@dataclass
class Kill:
    """A unit destroyed in battle: credited to `killer` for victory points (rule 14.3)."""

    killer: str
    victim: str
    kind: str            # armies | cavalry | roman_armies | roman_forts | burhs | leaders
    area: str
    leader: str | None = None
    by_raiders: bool = False


@dataclass
class TurnContext:
    ruleset: Ruleset
    state: GameState
    nation: str
    orders: dict[str, NationOrders]       # every nation's orders (standing orders answer decisions)
    dice: Dice
    events: list[Event] = field(default_factory=list)
    moves: list[MoveRecord] = field(default_factory=list)
    kills: list[Kill] = field(default_factory=list)
    entered: set[str] = field(default_factory=set)     # areas the nation occupied at some time (capture)
    entered_by_others: dict[str, set[str]] = field(default_factory=dict)
    """other nation -> the empty areas it entered in this turn (a defender's retreat): the captures a
    family may score in another nation's turn (Rules.captures_in_other_turn)"""
    cycle: int = 1
    pending_battles: list[str] = field(default_factory=list)
    battle_rounds: dict[tuple[str, int], int] = field(default_factory=dict)
    """(area, cycle) -> battle rounds fought there so far: numbers keep counting across the pairs of a
    battle and a later battle in the same area (8.4 withdrawal), so every die has its own label."""
    standing_cache: dict[tuple[str, type], tuple[Any, Any, list]] = field(default_factory=dict, repr=False, compare=False)
    """(nation, order class) -> (sent orders, saved standing orders, the parsed list): battle.standing_orders."""
    submit_cache: tuple[Any, list] | None = field(default=None, repr=False, compare=False)
    """(the orders, every nation's SUBMIT TO orders in them): submission.waiting_submissions."""

    rs: Ruleset = field(init=False, repr=False, compare=False)
    """The same ruleset under its short name: a plain attribute (not a property), as the rules read
    it on nearly every check."""

    def __post_init__(self) -> None:
        self.rs = self.ruleset

    def own(self) -> NationOrders:
        return self.orders.get(self.nation) or NationOrders(self.nation)

    def emit(self, type_: str, **data: Any) -> Event:
        """Record an event of this turn (pbem.rules.events: an unknown kind or field raises at once)."""
        cls = KINDS.get(type_)
        if cls is None:
            return make(type_, **data)   # raises: the kind is not in the catalog
        ev = cls(round=self.state.round, turn=self.nation, **data)
        self.events.append(ev)
        return ev


ROUND_CLOSE_OWED = "crowns_owed"
"""GameState.extras: the round whose closing step is still to be played (a family whose `round_end`
leaves the round open, e.g. for votes, plays the rest in `Rules.close_round`)"""

STARTS = ("population", "movement", "battles")
"""where a nation turn may start: its first phase (a case or a correction may start later)"""
STOPS = ("after_population", "after_movement", "after_battles", "end_of_turn")
"""where a nation turn may stop: after a phase (previews, cases), or at its end"""


class TurnStopped(Exception):
    """A nation turn ends before its last phase: refused (`refused`: a strict turn found a problem, the
    position is given back unchanged) or played to its stop point (NationTurn.stop)."""

    def __init__(self, refused: bool) -> None:
        super().__init__("refused" if refused else "stopped")
        self.refused = refused


@dataclass
class NationTurn:
    """One nation's turn as the family's sequence of play (Rules.nation_turn) plays it.

    `start`, `stop`: the first phase played and the point after which the turn stops (STARTS, STOPS);
    `strict`: any problem refuses the whole turn (TurnStopped(refused=True)), else illegal orders are
    dropped and reported. `problems` are the order problems found so far; `move_problems` those of the
    movement phases, kept apart until the battles are judged (with refused moves the battles are not
    those the player planned). `seen`: the orders the phases have used (pbem.rules.accounting.Seen)."""

    ctx: TurnContext
    start: str = "population"
    stop: str = "end_of_turn"
    strict: bool = True
    problems: list[OrderProblem] = field(default_factory=list)
    move_problems: list[OrderProblem] = field(default_factory=list)
    seen: Any = None
    # stop points where the turn, playing on, keeps a copy of where it stands: {point: (state,
    # events, problems)}, as a turn stopped there would give them back (the first time it passes)
    keep: tuple[str, ...] = ()
    kept: dict[str, tuple[Any, list, list[OrderProblem]]] = field(default_factory=dict)

    def plays(self, phase: str) -> bool:
        """Does the turn play `phase` (population | movement | battles)? It does from its start on."""
        return STARTS.index(phase) >= STARTS.index(self.start)

    def refuse_on_problems(self) -> None:
        """A strict turn with a problem is refused as a whole (the position stays as it was)."""
        if self.strict and (self.problems or self.move_problems):
            raise TurnStopped(refused=True)

    def stop_after(self, point: str) -> None:
        """The turn stops here when this is its stop point (`after_population` ...); a point it
        `keep`s is copied on the way."""
        if point in self.keep and point not in self.kept:
            self.kept[point] = (self.ctx.state.copy(), list(self.ctx.events), self.problems + self.move_problems)
        if self.stop == point:
            raise TurnStopped(refused=False)
