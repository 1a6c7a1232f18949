"""The working context of one nation's turn: ruleset, state, orders, dice, events, and what moved."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    """other nation -> the empty areas it entered in this turn (a defender's retreat): FFG 51 captures"""
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
