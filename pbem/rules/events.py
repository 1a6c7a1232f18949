"""The catalog of events: what the engine says happened, one frozen dataclass per kind.

The engine emits typed events (`TurnContext.emit("moved", ...)` builds a `Moved`; an unknown kind or a
wrong or missing field is a TypeError at once). Each kind carries its one-line description beside it
(`describe(names)`, the sentence the turn report prints; None for events the report shows elsewhere,
battles and scores, or not at all).

The log keeps plain mappings: `to_dict()` gives exactly the dict the engine always logged
({"type": kind, "round", "turn", ...fields in declaration order}), and `from_dict()` reads one back.
Fields declared `= None` are optional: left out of the dict when None (e.g. `arrived` has `cavalry` only
when cavalry came; events of a round's start or end carry no `turn`). A field without a default is
always in the dict, even when its value is None (`battle_end.winner`, `moved.leader`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from typing import Any, ClassVar, Protocol

from pbem.errors import GameError


class Names(Protocol):
    """Where display names come from (a Ruleset): an id to the name players read."""

    def display(self, ident: str) -> str: ...


def _ref(names: Names, topic: str, generic: str) -> str:
    """The rule a description cites for `topic`: the ruleset's own reference (Rules.rule_ref), else the
    `generic` rule (names that are no Ruleset, e.g. a test's, have no rules)."""
    rules = getattr(names, "rules", None)
    return rules.rule_ref(topic, generic) if rules is not None else generic


def _role(names: Names, role: str, generic: str) -> str:
    """The display name of the nation playing `role` in the ruleset (ruleset.yaml `roles`), else `generic`."""
    find = getattr(names, "role", None)
    ident = find(role) if find is not None else None
    return names.display(ident) if ident else generic


def _n(names: Names, ident: str | None) -> str:
    return names.display(ident) if ident else "nobody"


def units(count: int, kind: str) -> str:
    """`3 armies`, `1 army`, `2 cavalry`."""
    if kind == "cavalry":
        return f"{count} cavalry"
    return f"{count} {'army' if count == 1 else 'armies'}"


def _raiders(count: int, raiders: bool = True) -> str:
    """`1 raider appears`-ready counts: `1 raider`, `3 raiders`, `1 invader`."""
    word = "raider" if raiders else "invader"
    return f"{count} {word}{'' if count == 1 else 's'}"


def _verb(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _places(names: Names, counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} in {names.display(a)}" for a, k in counts.items())


@dataclass(slots=True, kw_only=True, init=False, repr=False, eq=False)
class Event:
    """Base of every event: the round and the nation whose turn it was (None outside a nation's turn).

    Frozen, compared, hashed and shown as a frozen dataclass would be, by the methods below written
    once for every kind (a dataclass generates and compiles each for each class: ~1 ms of start-up
    per event kind, a fifth of a one-mail `pbem run`'s imports, issue 33)."""

    KIND: ClassVar[str] = ""
    _PLAN: ClassVar[tuple[tuple[str, bool], ...]] = ()   # (field, left out when None), in dict order

    round: int | None = None
    turn: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The plain mapping the log keeps (key order as the engine always wrote it)."""
        d: dict[str, Any] = {"type": self.KIND}
        for name, optional in self._PLAN:
            v = getattr(self, name)
            if v is None and optional:
                continue
            d[name] = v
        return d

    def describe(self, names: Names) -> str | None:
        """One line of English for the turn report (None: shown elsewhere or not at all)."""
        return None

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name, _ in self._PLAN)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{self.__class__.__qualname__}(" + ", ".join(
            f"{name}={getattr(self, name)!r}" for name, _ in self._PLAN) + ")"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> list:      # pickled and copied through the slots, as a frozen dataclass is
        return list(self._values())

    def __setstate__(self, state: list) -> None:
        for (name, _), value in zip(self._PLAN, state):
            object.__setattr__(self, name, value)


KINDS: dict[str, type[Event]] = {}


def _slot_init(cls: type) -> Any:
    """The dataclass's own __init__ (same keyword-only parameters, defaults and errors), but setting
    each slot through its descriptor: a frozen dataclass sets every field with object.__setattr__,
    which made building an event a third slower (the engine builds ~1 500 events a game)."""
    fs = fields(cls)
    params = ", ".join(f.name if f.default is MISSING else f"{f.name}=_default_{f.name}" for f in fs)
    body = "".join(f"\n    _set_{f.name}(self, {f.name})" for f in fs) or "\n    pass"
    ns: dict[str, Any] = {f"_set_{f.name}": getattr(cls, f.name).__set__ for f in fs}
    ns.update({f"_default_{f.name}": f.default for f in fs if f.default is not MISSING})
    exec(f"def __init__(self, *, {params}) -> None:{body}" if params else f"def __init__(self) -> None:{body}", ns)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _first_init(self, *args: Any, **kwargs: Any) -> None:
    """An event kind's __init__ until its first event is made: then `_slot_init`'s, compiled once."""
    cls = next(c for c in type(self).__mro__ if c.__dict__.get("__init__") is _first_init)
    init = cls.__init__ = _slot_init(cls)
    init(self, *args, **kwargs)


def event(kind: str):
    """Register a catalog entry: a frozen, slotted dataclass with its kind and dict plan."""

    def wrap(cls):
        cls = dataclass(slots=True, kw_only=True, init=False, repr=False, eq=False)(cls)
        if any(f.default_factory is not MISSING for f in fields(cls)) or hasattr(cls, "__post_init__"):
            raise TypeError(f"{cls.__name__}: an event has no default factory nor __post_init__")
        cls.__init__ = _first_init    # compiled when the first event of the kind is made (most runs make few kinds)
        cls.KIND = kind
        cls._PLAN = tuple((f.name, f.default is None) for f in fields(cls))
        if kind in KINDS:
            raise ValueError(f"event kind {kind!r} declared twice")
        KINDS[kind] = cls
        return cls

    return wrap


def make(type_: str, /, **data: Any) -> Event:
    """The event of that kind; an unknown kind or field is a bug (KeyError / TypeError at once)."""
    try:
        cls = KINDS[type_]
    except KeyError:
        raise KeyError(f"unknown event kind {type_!r}: add it to pbem/rules/events.py") from None
    return cls(**data)


def from_dict(d: Mapping[str, Any]) -> Event:
    """A logged event read back (the inverse of `Event.to_dict`); a mapping that is no event of the
    catalog (a damaged or hand-edited log) is a GameError naming it."""
    try:
        data = dict(d)
        return make(data.pop("type"), **data)
    except (KeyError, TypeError, ValueError) as e:
        raise GameError(f"a logged event cannot be read: {d!r} ({e})",
                        hint="the log was edited or damaged: `pbem replay` shows where") from None


def from_dicts(events: Iterable[Mapping[str, Any] | Event]) -> list[Event]:
    """Logged events (plain mappings) as typed events; typed ones pass through."""
    return [e if isinstance(e, Event) else from_dict(e) for e in events]


def to_dicts(events: Iterable[Event | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Typed events as the plain mappings the log keeps (mappings pass through as they are)."""
    return [e.to_dict() if isinstance(e, Event) else dict(e) for e in events]


# --- the sequence of play: rounds ---------------------------------------------------------------------
@event("round_started")
class RoundStarted(Event):
    """A game turn begins (the step before the first nation moves)."""


@event("round_ended")
class RoundEnded(Event):
    """A game turn ends (after the scoring of its end)."""


@event("game_over")
class GameOver(Event):
    """Rule 14.1 — the game ends after round 16; the final victory points."""

    vp: dict[str, int]

    def describe(self, names: Names) -> str | None:
        return "The game is over."


@event("subjection_ended")
class SubjectionEnded(Event):
    """Rules 11.1, 11.2 — a nation's subjection ends (the overlord's end turn, or the ruleset's revolt)."""

    nation: str

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: subjection ends"


@event("romans_left")
class RomansLeft(Event):
    """Rule 10.5 — the empire leaves; the successor's armies replace it (area -> armies)."""

    replaced: dict[str, int]
    not_replaced: int

    def describe(self, names: Names) -> str | None:
        return (f"The {_role(names, 'empire', 'empire')} leave Britain; {_role(names, 'successor', 'successor')} "
                "armies replace them in ") + (
            ", ".join(f"{names.display(a)} ({k})" for a, k in self.replaced.items()) or "no area")


@event("king")
class King(Event):
    """Rules 12.1, 12.4, 12.5 — a nation becomes King of England (Canute: rule 12.4)."""

    nation: str
    canute: bool | None = None

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: King of England" + (" (Canute)" if self.canute else "")


@event("bretwalda_vote")
class BretwaldaVote(Event):
    """Rules 12.2, 12.3 — the Bretwalda vote: votes per nation and the winner (None: no majority)."""

    tally: dict[str, int]
    winner: str | None

    def describe(self, names: Names) -> str | None:
        tally = ", ".join(f"{names.display(k)} {v}" for k, v in sorted(self.tally.items(), key=lambda kv: -kv[1]))
        return f"Bretwalda vote: {tally or 'no votes'} -> {_n(names, self.winner) if self.winner else 'no majority'}"


@event("cavalry_became_infantry")
class CavalryBecameInfantry(Event):
    """A ruleset's round-start conversion: the nation's cavalry turn into infantry (Rules.round_start_conversions)."""

    nation: str
    units: int


# --- population and arrivals ----------------------------------------------------------------------------
@event("population")
class Population(Event):
    """Rule 10.1 — the population count: new armies, and the points saved for the next turn."""

    nation: str
    saved_before: float
    count: float
    new_armies: int
    saved: float

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)}: population count {self.count:g} (saved {self.saved_before:g}) gives "
                f"{self.new_armies} new {'army' if self.new_armies == 1 else 'armies'}, {self.saved:g} saved")


@event("placed")
class Placed(Event):
    """Rules 10.1, 10.2 — new units placed (kind None: armies) by the PLACE lines named."""

    nation: str
    areas: list[str]
    lines: list[int]
    kind: str | None = None

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: new armies placed in {', '.join(names.display(a) for a in self.areas)}"


@event("arrived")
class Arrived(Event):
    """Rule 10.6 — invaders or raiders appear at sea (cavalry among them when the timeline says so)."""

    nation: str
    sea: str
    armies: int
    raiders: bool
    cavalry: int | None = None

    def describe(self, names: Names) -> str | None:
        cav = f" and {units(self.cavalry, 'cavalry')}" if self.cavalry else ""
        verb = _verb(self.armies + (self.cavalry or 0), "appears", "appear")
        return (f"{_n(names, self.nation)}: {_raiders(self.armies, self.raiders)}{cav} {verb} in "
                f"the {names.display(self.sea)}")


@event("reinforced")
class Reinforced(Event):
    """Rules 10.3, 10.7 — reinforcements: armies at sea, or cavalry in areas."""

    nation: str
    sea: str | None = None
    armies: int | None = None
    cavalry: int | None = None
    areas: list[str] | None = None

    def describe(self, names: Names) -> str | None:
        where = names.display(self.sea) if self.sea else ", ".join(names.display(a) for a in self.areas or [])
        what = units(self.armies, "armies") if self.armies is not None else units(self.cavalry or 0, "cavalry")
        return f"{_n(names, self.nation)}: {what} reinforce in {where}"


@event("leader_entered")
class LeaderEntered(Event):
    """Rule 9.0 — a leader enters the board (its PLACE line, 0 when placed by default)."""

    nation: str
    leader: str
    area: str
    line: int

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: {names.display(self.leader)} enters in {names.display(self.area)}"


@event("leader_left")
class LeaderLeft(Event):
    """Rule 9.0 — a leader leaves the board at the end of his time."""

    nation: str
    leader: str
    area: str

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: {names.display(self.leader)} leaves the board"


@event("revolt")
class Revolt(Event):
    """Rule 9.0 as a ruleset extends it: an arriving leader enters with extra armies (Rules.leader_arrives)."""

    nation: str
    leader: str
    area: str
    armies: int


@event("legions_withdrawn")
class LegionsWithdrawn(Event):
    """A ruleset's withdrawal of the empire's armies at the end of its turn (area -> armies)."""

    nation: str
    removed: dict[str, int]


@event("burhs_built")
class BurhsBuilt(Event):
    """Burhs built in these areas instead of armies that could not be raised (Rules.armies_not_raised)."""

    nation: str
    areas: list[str]


# --- submission -------------------------------------------------------------------------------------------
@event("allowed")
class Allowed(Event):
    """Rule 11.1 — the empire allows a subject nation to increase population this turn (ALLOW line)."""

    nation: str
    line: int

    def describe(self, names: Names) -> str | None:
        return f"{_role(names, 'empire', 'The overlord')} allow the {_n(names, self.nation)} to increase population this turn (rule 11.1)"


@event("submitted")
class Submitted(Event):
    """Rules 11.1, 11.2 — a nation submits to another (at which moment of play; its SUBMIT line)."""

    nation: str
    to: str
    moment: str
    line: int | None = None

    def describe(self, names: Names) -> str | None:
        when = f" ({self.moment}, rule 11.1)" if self.moment and self.moment != "start of its turn" else ""
        return f"{_n(names, self.nation)} submit to the {names.display(self.to)}{when}"


@event("not_left")
class NotLeft(Event):
    """Rule 11.1 — the overlord's units could not leave an area of its new subject."""

    nation: str
    area: str
    subject: str


@event("left_subject_area")
class LeftSubjectArea(Event):
    """Rule 11.1 — the overlord's units leave an area of the nation that submitted."""

    nation: str
    area: str
    to: str
    count: int
    subject: str

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)}: {self.count} leave {names.display(self.area)} for {names.display(self.to)} "
                f"(the {_n(names, self.subject)} submitted, rule 11.1)")


@event("lost_leaving_subject_area")
class LostLeavingSubjectArea(Event):
    """Rule 11.1 as a ruleset plays it: the overlord's units in an area of its new subject have nowhere to
    withdraw and are lost (Rules.stranded_overlord_lost)."""

    nation: str
    area: str
    count: int
    subject: str

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)}: {self.count} in {names.display(self.area)} have nowhere to withdraw and "
                f"are lost (the {_n(names, self.subject)} submitted, {_ref(names, 'overlord_stranded', 'rule 11.1')})")


@event("danes_withdrew")
class DanesWithdrew(Event):
    """Rule 10.6 — the nation whose turn it is withdraws armies (area -> armies; DISBAND lines), and the
    leaders the ruleset takes with them (Rules.leaders_withdrawn: classic Canute, none where he stays)."""

    removed: dict[str, int]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        rules = getattr(names, "rules", None)
        leaders = rules.leaders_withdrawn(names) if rules is not None else ()
        return (f"{_n(names, self.turn)} withdraw " + ", ".join(f"{k} from {names.display(a)}" for a, k in self.removed.items())
                + "".join(f" and {names.display(ld)}" for ld in leaders))


# --- movement ---------------------------------------------------------------------------------------------
@event("moved")
class Moved(Event):
    """Rules 5.0-7.0 — a group moved along `path` (kind armies | cavalry | leader; cycle 2: second movement)."""

    nation: str
    kind: str
    count: int
    path: list[str]
    leader: str | None
    raiders: int
    cycle: int
    line: int

    def describe(self, names: Names) -> str | None:
        what = _n(names, self.leader) if self.kind == "leader" else units(self.count, self.kind)
        raid = f" ({self.raiders} raiders)" if self.raiders else ""
        cyc = " [second movement]" if self.cycle == 2 else ""
        return f"{_n(names, self.nation)}: {what}{raid} {' -> '.join(names.display(p) for p in self.path)}{cyc}"


@event("fort_built")
class FortBuilt(Event):
    """Rule 10.4 — the empire builds a fort."""

    area: str

    def describe(self, names: Names) -> str | None:
        return f"{_role(names, 'empire', 'The empire')} build a fort in {names.display(self.area)}"


# --- battles ----------------------------------------------------------------------------------------------
@event("battle")
class Battle(Event):
    """Rule 8.0 — a battle begins (shown in the report's battles section)."""

    area: str
    attacker: str
    defender: str
    cycle: int
    lines: list[int]


@event("battle_round")
class BattleRound(Event):
    """Rule 8.0 — one round of dice: per side the labelled dice rolled and the losses (kind -> count)."""

    area: str
    battle_round: int
    cycle: int
    dice: dict[str, Any]
    losses: dict[str, dict[str, int]]


@event("battle_end")
class BattleEnd(Event):
    """Rule 8.0 — a battle ends: rounds fought, outcome, winner (None: nobody holds the area)."""

    area: str
    attacker: str
    defender: str
    rounds: int
    outcome: str
    winner: str | None


@event("eliminated")
class Eliminated(Event):
    """Rule 8.0 — units lost in battle (kind -> count), by whom (rule 14.3 credits the killer)."""

    area: str
    nation: str
    losses: dict[str, int]
    by: str | None


@event("retreat_refused")
class RetreatRefused(Event):
    """Rules 8.3, 5.21 — a retreat that cannot go where it was ordered: the units fight on."""

    area: str
    nation: str
    to: str
    reason: str

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)} cannot retreat from {names.display(self.area)} to {names.display(self.to)}: "
                f"{self.reason}; they fight on")


@event("retreated")
class Retreated(Event):
    """Rules 8.3, 8.4 — units retreat (side attacker | defender; raiders: a raider withdrawal)."""

    area: str
    nation: str
    to: str
    count: int
    side: str
    raiders: bool | None = None

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)} ({self.side}) retreat {self.count} from {names.display(self.area)} "
                f"to {names.display(self.to)}")


@event("leader_killed")
class LeaderKilled(Event):
    """Rules 9.0, 9.2 — a leader alone with enemy armies is eliminated."""

    area: str
    nation: str
    leader: str
    by: str

    def describe(self, names: Names) -> str | None:
        return f"{names.display(self.leader)} ({_n(names, self.nation)}) is killed in {names.display(self.area)}"


@event("leader_escaped")
class LeaderEscaped(Event):
    """Rule 9.2 as a ruleset replaces it: a leader left alone escapes to a neighbouring area (Rules.leader_escape)."""

    area: str
    nation: str
    leader: str
    to: str

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)}: {names.display(self.leader)} escapes from {names.display(self.area)} "
                f"to {names.display(self.to)}")


@event("lost_at_sea")
class LostAtSea(Event):
    """Rule 7.2 as a ruleset plays it: invaders must come ashore (Rules.must_come_ashore); the units and
    leaders left at sea are lost."""

    nation: str
    sea: str
    armies: int
    cavalry: int
    leaders: list[str]

    def describe(self, names: Names) -> str | None:
        what = ", ".join(x for x in (units(self.armies, "armies") if self.armies else "",
                                     units(self.cavalry, "cavalry") if self.cavalry else "",
                                     *(names.display(ld) for ld in self.leaders)) if x)
        verb = "is" if self.armies + self.cavalry + len(self.leaders) == 1 else "are"
        return (f"{_n(names, self.nation)}: {what} left in the {names.display(self.sea)} {verb} lost: invaders must "
                f"come ashore ({_ref(names, 'come_ashore', 'rule 7.2')})")


# --- the end of a nation's turn ---------------------------------------------------------------------------
@event("withdrawing")
class Withdrawing(Event):
    """Rule 8.4 — raiders step back along their route towards the sea (a step of `withdrew`)."""

    nation: str
    area: str
    to: str
    armies: int
    line: int


@event("withdrew")
class Withdrew(Event):
    """Rule 7.13 — raiders withdraw to the sea (their WITHDRAW line, 0 by default)."""

    nation: str
    area: str
    sea: str
    armies: int
    line: int

    def describe(self, names: Names) -> str | None:
        return (f"{_n(names, self.nation)}: {_raiders(self.armies)} {_verb(self.armies, 'withdraws', 'withdraw')} "
                f"from {names.display(self.area)} "
                f"to the {names.display(self.sea)}")


@event("settled")
class Settled(Event):
    """Rule 7.13 — raiders settle in the area they raided (SETTLE line)."""

    nation: str
    area: str
    armies: int
    line: int

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: {_raiders(self.armies)} {_verb(self.armies, 'settles', 'settle')} in {names.display(self.area)}"


@event("overpopulation")
class Overpopulation(Event):
    """Rule 6.0 — overpopulation removes armies (area -> count), where DISBAND lines said."""

    nation: str
    removed: dict[str, int]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: overpopulation removes " + _places(names, self.removed)


@event("to_brittany")
class ToBrittany(Event):
    """Optional rule 16.251 — armies leave for Brittany before the movement, for points."""

    nation: str
    area: str
    armies: int
    points: int
    line: int

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: {self.armies} from {names.display(self.area)} leave for Brittany ({self.points} points)"


@event("brittany_roll")
class BrittanyRoll(Event):
    """Optional rule 16.251 — after the movement of turn 7: a die below the armies sent scores 4."""

    nation: str
    sent: int
    face: int
    points: int

    def describe(self, names: Names) -> str | None:
        won = f"{self.points} points" if self.points else "no points"
        return f"{_n(names, self.nation)}: Brittany die {self.face} against {self.sent} sent: {won}"


@event("overstacked")
class Overstacked(Event):
    """Rule 15.1 as a ruleset plays it: units still over the stacking limits at the end of the movement
    phase (they entered ignoring stacking and did not move on) are removed (area -> count)."""

    nation: str
    removed: dict[str, int]

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: over the stacking limits after the movement, removed " + _places(names, self.removed)


# --- victory points -----------------------------------------------------------------------------------------
@event("scored")
class Scored(Event):
    """Rules 14.2-14.4 — victory points (kind capture | kill | hold | limes; victim for kills)."""

    nation: str
    points: int
    kind: str
    area: str
    victim: str | None = None


@event("score_limited")
class ScoreLimited(Event):
    """Rule 14.2 as a ruleset limits it: holding points over the nation's limit are not scored (Rules.limit_holdings)."""

    nation: str
    points: int


@event("raid_points_lost")
class RaidPointsLost(Event):
    """Rule 7.13 — raiders that stayed ashore lose their raid points."""

    nation: str
    area: str
    kind: str

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: raid points in {names.display(self.area)} lost (raiders stayed ashore, rule 7.13)"


# --- orders ---------------------------------------------------------------------------------------------------
@event("order_unused")
class OrderUnused(Event):
    """A legal order line that had no effect this turn, and why (issue 15: no silently ignored order)."""

    nation: str
    line: int
    text: str
    reason: str

    def describe(self, names: Names) -> str | None:
        return f"{_n(names, self.nation)}: order line {self.line} had no effect: \"{self.text}\" ({self.reason})"


@event("order_dropped")
class OrderDropped(Event):
    """An order line the rules refuse, dropped when the turn is played (ORDERS.md "Replies")."""

    nation: str
    line: int
    text: str
    kind: str
    message: str

    def describe(self, names: Names) -> str | None:
        line = f"line {self.line} " if self.line else ""
        return (f"{_n(names, self.nation)}: order {line}not carried out: \"{self.text or ''}\" "
                f"({self.kind}: {self.message})")


def named_lines(events: Iterable[Event], nation: str | None = None) -> set[int]:
    """The order lines the events say they carried out (or refused, or found without effect); with
    `nation`, only lines of that nation's orders (events about another nation are left out)."""
    out: set[int] = set()
    for ev in events:
        if nation is not None and getattr(ev, "nation", nation) != nation:
            continue
        line = getattr(ev, "line", None)
        if line:
            out.add(int(line))
        for n in getattr(ev, "lines", None) or ():
            out.add(int(n))
    return out
