"""Typed orders (the language of docs/PLAYERS.md), as the parser produces them and the engine and bots use them.

Ids only (areas, seas, nations, leaders). `line` and `text` say where an order came from (1-based line
of the message; 0 when made by code) and are not part of an order's identity.

The order language is a list of forms (`OrderForm`: keyword, typed order, parse, canonical print, the
syntax line and an example), as godip's order parser takes a list of order types: every form is
registered once (`register_form`; the generic ones in pbem.orders.forms), and a rules family
(pbem/rules/rulesets) says which of them its rulesets accept (`Rules.order_forms`, an
`OrderLanguage`: the base list, a family adding its own forms or dropping some). The parser
(pbem.orders.parser), the canonical read-back (pbem.orders.canonical), the reply's list of forms,
the prompt and the players' guide all read the same forms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.records import record


@record
class Order:
    line: int = field(default=0, compare=False, kw_only=True)
    text: str = field(default="", compare=False, kw_only=True)


# --- a nation's turn -------------------------------------------------------------------------
@record
class Place(Order):
    """PLACE A[, B ...] — new armies from population increase (rule 10.2)."""

    areas: tuple[str, ...]


@record
class PlaceLeader(Order):
    """LEADER <name> IN A — where an arriving leader is placed (rule 9.0)."""

    leader: str
    area: str


UNIT_KINDS = ("armies", "cavalry", "leader")


@record
class Move(Order):
    """N A -> B [-> C ...] (armies), N cavalry A -> ..., <leader> A -> ... (rules 5.1, 9.1).

    `cycle` is 2 for moves after SECOND MOVEMENT (major invasion, rule 7.3).
    """

    count: int
    kind: str            # armies | cavalry | leader
    path: tuple[str, ...]
    leader: str | None = None
    cycle: int = 1


@record
class Stay(Order):
    """STAY N <sea> — armies at sea stay there (rule 7.11(3)).

    `cycle` is 2 for a STAY after SECOND MOVEMENT (major invasion, rule 7.3): it is judged against the
    position of the second movement (where a family may forbid staying at sea).
    """

    count: int
    sea: str
    cycle: int = 1


@record
class SecondMovement(Order):
    """SECOND MOVEMENT — later moves belong to the second cycle of a major invasion (rule 7.3)."""


@record
class Brittany(Order):
    """BRITTANY N A — N armies in A leave for Brittany before the movement (optional rule 16.251)."""

    count: int
    area: str


@record
class Battles(Order):
    """BATTLES A, B ... — the order in which this nation's battles are fought."""

    areas: tuple[str, ...]


ATTACK_MODES = ("fight", "retreat_after", "retreat_if_outnumbered")


@record
class Attack(Order):
    """ATTACK A: FIGHT | RETREAT AFTER ROUND K | RETREAT IF OUTNUMBERED (rule 8.3)."""

    area: str
    mode: str = "fight"
    after_round: int | None = None


@record
class Withdraw(Order):
    """WITHDRAW A — raiders in A return to their sea (rule 7.13)."""

    area: str


@record
class Settle(Order):
    """SETTLE A — raiders in A stay ashore and lose raider status (rule 7.13)."""

    area: str


@record
class Disband(Order):
    """DISBAND A[, B ...] — which areas lose armies first if overpopulated (rule 6.0)."""

    areas: tuple[str, ...]


@record
class Vote(Order):
    """VOTE <nation> — Bretwalda vote (rule 12.2)."""

    nation: str


@record
class Submit(Order):
    """SUBMIT TO <nation> — submission (rules 11.1, 11.2)."""

    to: str


@record
class Allow(Order):
    """ALLOW <nation> — the Romans let a subject nation increase population this turn (rule 11.1)."""

    nation: str


@record
class Pass(Order):
    """PASS — nothing this turn."""


# --- standing orders ---------------------------------------------------------------------------
@record
class Defend(Order):
    """DEFEND A|ALL: HOLD | RETREAT TO B [IF OUTNUMBERED] [AFTER ROUND K] (rule 8.2), or a split retreat
    (8.2 "some may retreat to one area while others retreat to another"; 8.1 "some ... may retreat
    while others remain"): RETREAT 2 TO B, 1 TO C[, REST TO D] [IF OUTNUMBERED] [AFTER ROUND K].

    `split_counts`/`split_to` are the numbered parts, in order; `to` is where the rest go (all of
    them in the plain form); without REST the others stay and fight on."""

    area: str                  # area id or "all"
    hold: bool = True
    to: str | None = None
    if_outnumbered: bool = False
    after_round: int | None = None
    split_counts: tuple[int, ...] = ()
    split_to: tuple[str, ...] = ()

    def parts(self) -> list[tuple[int | None, str]]:
        """(count, area) in the order given; count None = all that are left."""
        out: list[tuple[int | None, str]] = list(zip(self.split_counts, self.split_to))
        return out + ([(None, self.to)] if self.to else [])


@record
class ClearDefend(Order):
    """CLEAR DEFEND A — drop a standing order."""

    area: str


LOSS_PREFERENCES = ("raiders_first", "settlers_first", "cavalry_last")


@record
class Losses(Order):
    """LOSSES A: RAIDERS FIRST | SETTLERS FIRST | CAVALRY LAST (rule 8.0: the owner chooses)."""

    area: str                  # area id or "all"
    preference: str = "raiders_first"


# --- message header lines (not orders of a turn) --------------------------------------------------
@record
class GameLine(Order):
    game: str


@record
class NationLine(Order):
    nation: str


@record
class TokenLine(Order):
    token: str


@record
class TimezoneLine(Order):
    """A player's setting, not an order: TIMEZONE <IANA name> (pbem.service.away)."""
    zone: str


@record
class AwayLine(Order):
    """A player's setting, not an order: AWAY <first day> TO <last day> (ISO dates; pbem.service.away)."""
    start: str
    end: str


@record
class LanguageLine(Order):
    """A player's setting, not an order: LANGUAGE <code> (en, ru; pbem.i18n, pbem.service.away)."""
    language: str


PLAYER_LINE_TYPES = (TimezoneLine, AwayLine, LanguageLine)


STANDING_TYPES = (Defend, ClearDefend, Losses)


@dataclass
class NationOrders:
    """The orders of one nation from one message, in line order."""

    nation: str
    orders: list[Order] = field(default_factory=list)

    def of(self, cls: type) -> list:
        return [o for o in self.orders if isinstance(o, cls)]

    def turn_orders(self) -> list[Order]:
        return [o for o in self.orders if not isinstance(o, STANDING_TYPES)]

    def standing_orders(self) -> list[Order]:
        return [o for o in self.orders if isinstance(o, STANDING_TYPES)]


ORDER_TYPES = {cls.__name__: cls for cls in (
    Place, PlaceLeader, Move, Stay, SecondMovement, Brittany, Battles, Attack, Withdraw, Settle, Disband, Vote, Submit,
    Allow, Pass, Defend, ClearDefend, Losses, GameLine, NationLine, TokenLine)}


def order_to_dict(order: Order) -> dict:
    """A plain mapping for saves and logs: {"type": "Defend", "area": ..., ...}."""
    from dataclasses import fields

    d: dict = {"type": type(order).__name__}
    for f in fields(order):
        if f.name in ("line", "text"):
            continue
        v = getattr(order, f.name)
        d[f.name] = list(v) if isinstance(v, tuple) else v
    return d


def order_from_dict(d: dict) -> Order:
    cls = ORDER_TYPES[d["type"]]
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k != "type"}
    return cls(**kwargs)


def standing_key(order: Order) -> str:
    """Standing orders are kept per kind and area: a later DEFEND York replaces an earlier one."""
    kind = "losses" if isinstance(order, Losses) else "defend"
    return f"{kind}:{getattr(order, 'area', '')}"


# --- the order language: forms, registered once, listed per rules family -------------------------
FORM_KINDS = ("order", "standing", "header", "player")
"""what a form's line is: an order of a nation's turn, a standing order (section 3 of the guide), a
message header (GAME, NATION, TOKEN), a player's setting (TIMEZONE, LANGUAGE, AWAY)"""


@record
class OrderForm:
    """One form of the order language.

    `parse(reader, rest)` reads the line after its keyword (`rest`) into an `order_type` order, with
    the parser's reader for names, counts and errors (pbem.orders.parser.LineParser: `reader.syntax`,
    `reader.names`, `reader.count`, ...), and raises the reader's errors; `canonical(order, ruleset)`
    prints the order back as the one line that parses to it. `syntax` is the form as the players'
    guide writes it (the hint "Write it as: ..."); `example` a line of it with the ruleset's names put
    in by pbem.orders.language.example ({area} {next} {third} {sea} {nation} {leader}), written
    canonically. A form without a `keyword` line word (`leading_word=False`: a move, read by its
    arrow) is still named by `keyword` in a family's list."""

    keyword: str
    order_type: type
    syntax: str
    example: str
    parse: Callable[[Any, str], Order]
    canonical: Callable[[Any, Any], str]
    kind: str = "order"
    aliases: tuple[str, ...] = ()
    leading_word: bool = True
    recognises: Callable[[str], bool] | None = None
    """for a form without a first word: whether a line (none of whose first words is a form's) is one"""
    meaning: str = ""
    """what the form does, one line (the players' guide list), with the rule it plays"""
    translations: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    """the keyword in other languages, by language code: {"ru": ("разместить", ...)} (pbem.orders.russian)"""


_FORMS: dict[str, OrderForm] = {}
_BY_TYPE: dict[type, OrderForm] = {}
_GENERATION = [0]


def register_form(form: OrderForm) -> OrderForm:
    """Add (or replace) a form of the order language; a family's own forms register with their module."""
    if form.kind not in FORM_KINDS:
        raise ValueError(f"order form {form.keyword}: kind {form.kind!r} is not one of {FORM_KINDS}")
    old = _FORMS.get(form.keyword)
    if old is not None:
        _BY_TYPE.pop(old.order_type, None)
    _FORMS[form.keyword] = form
    _BY_TYPE[form.order_type] = form
    ORDER_TYPES.setdefault(form.order_type.__name__, form.order_type)   # a family's orders are saved too
    _GENERATION[0] += 1
    return form


def unregister_form(keyword: str) -> None:
    """Take a form out again (a test's made-up family)."""
    form = _FORMS.pop(keyword, None)
    if form is not None:
        _BY_TYPE.pop(form.order_type, None)
        _GENERATION[0] += 1


def registered_forms() -> dict[str, OrderForm]:
    """Every registered form by keyword, in the order registered."""
    return dict(_FORMS)


def form_named(keyword: str) -> OrderForm:
    """The registered form `keyword` (KeyError if none)."""
    return _FORMS[keyword]


def form_of(order: Order) -> OrderForm | None:
    """The form an order is written in (by its type), None if no form prints it."""
    return _BY_TYPE.get(type(order))


def forms_generation() -> int:
    """Changes whenever a form is registered or taken out (for caches of the languages)."""
    return _GENERATION[0]


class OrderLanguage(tuple):
    """The keywords of the forms a rules family accepts, in the order the hints and the guide list
    them (a tuple of str). `adding` and `without` give a family's list from its parent's."""

    def __new__(cls, keywords: Iterable[str] = ()) -> OrderLanguage:
        return super().__new__(cls, keywords)

    def adding(self, *keywords: str, after: str | None = None) -> OrderLanguage:
        """This list with `keywords` added after the keyword `after` (at the end when None)."""
        at = len(self) if after is None else self.index(after) + 1
        return OrderLanguage((*self[:at], *keywords, *self[at:]))

    def without(self, *keywords: str) -> OrderLanguage:
        """This list without `keywords`."""
        missing = set(keywords) - set(self)
        if missing:
            raise ValueError(f"not in the order language: {sorted(missing)}")
        return OrderLanguage(k for k in self if k not in keywords)


BASE_LANGUAGE = OrderLanguage((
    "GAME", "NATION", "TOKEN", "TIMEZONE", "LANGUAGE", "AWAY",
    "PLACE", "LEADER", "MOVE", "STAY", "SECOND", "BATTLES", "ATTACK", "WITHDRAW", "SETTLE", "DISBAND",
    "VOTE", "SUBMIT", "PASS", "DEFEND", "CLEAR", "LOSSES"))
"""The forms the generic sequence of play answers (rules 4-12): the message lines, the orders of a
nation's turn, the standing orders. A family adds its special rules' forms (classic: BRITTANY,
optional rule 16.251; ALLOW, rule 11.1)."""
