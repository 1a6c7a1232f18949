"""Order text (the language of docs/PLAYERS.md) -> typed orders (pbem.rules.orders).

The forms a line may take are the ruleset's (its rules family's `order_forms`, resolved by
pbem.orders.language): a line's first word picks its form (a line without an order word and
with an arrow is a move), the form reads the rest with this parser as its reader; a first word that
is a form of another family's rules is answered with the forms this ruleset has.

`parse_message(text, ruleset, default_nation=None)` reads a whole message and never raises on bad
input: every line that is not an order is reported as an `OrderProblem` naming its line (1-based, in
the original text), the quoted line, what is wrong and a hint (the accepted forms, the candidates of an
ambiguous name, a did-you-mean for a typo). Legality against the position is not checked here (that
is pbem.rules.legal); see pbem.orders.check for both.

Every form of ORDERS.md is accepted exactly as written there. Keywords are case-insensitive. Extra,
friendlier forms also accepted (documented for the README):

- `to` instead of `->` in a move (`3 Essex to Suffolk`); `=>`, `-->`, `→`, `⇒`, `➔` arrows too;
- a count written `3x`, `3 x` or `3 ×`, and `army`/`armies` after the count (`2 armies Kent -> Sussex`);
- `cav`, `horse`, `horses` or `knights` for `cavalry`; `cavalry York -> Lindsey` moves one;
- `LEADER <name> A -> B` for a leader move (the same as `<name> A -> B`);
- in PLACE and DISBAND lists: `and` as well as commas, and `2 Essex` / `2x Essex` for `Essex, Essex`;
- `BATTLE` for `BATTLES`; `BATTLES` lists may use `and`;
- the colon after `ATTACK A`, `DEFEND A` and `LOSSES A` may be left out;
- `AFTER K ROUNDS` / `AFTER K ROUND` for `AFTER ROUND K`; in DEFEND the two conditions in either order;
- `RAIDERS_FIRST`-style loss preferences; `SUBMIT <nation>` without `TO`; `ALLOW <nation>` (the Romans
  let a subject nation increase population this turn, rule 11.1);
- `GAME:`, `NATION:`, `TOKEN:` with a colon; `NATION` may name the nation by id, name or alias;
- the order words in Russian (`РАЗМЕСТИТЬ Йорк`, `3 из Кента в Эссекс`, `АТАКА Йорк: БИТЬСЯ`): see
  pbem.orders.russian for the words, pbem.orders.names for the Russian names and their case forms;
- a trailing `.` or `;` on a line; see pbem.orders.hygiene for the mail clean-up (quotes, signatures,
  unicode, HTML leftovers) and pbem.orders.names for how names match.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pbem.rules.rulesets  # noqa: F401  (the rules families register their own order forms)
from pbem.errors import OrderProblem
from pbem.orders import names, russian
from pbem.orders.forms import COUNT, LIST_SPLIT, LineProblems, count, move, round_number, split_tail, syntax
from pbem.orders.hygiene import Line, chatter, clean_lines, quote
from pbem.orders.language import Language, every_word, language
from pbem.rules.orders import (
    PLAYER_LINE_TYPES,
    GameLine,
    Move,
    NationLine,
    NationOrders,
    Order,
    SecondMovement,
    Stay,
    TokenLine,
    form_named,
)

SUGGESTIONS = 300    # did-you-mean searches per message (a pasted novel must not take minutes)
KEYWORDS = tuple(sorted(every_word()))   # the first words of every registered form (any ruleset)
NOT_AN_ORDER = "this line is not an order"
_Bad = LineProblems


@dataclass
class ParsedLine:
    """A line that was read: the order it gave, or its problems."""

    line: int
    text: str                     # the original line (stripped)
    nation: str | None            # the nation whose section it is in (None: no nation known)
    order: Order | None = None
    problems: list[OrderProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.order is not None and not self.problems


@dataclass
class ParsedMessage:
    game: str | None = None
    token: str | None = None
    sections: list[NationOrders] = field(default_factory=list)
    problems: list[OrderProblem] = field(default_factory=list)
    lines: list[ParsedLine] = field(default_factory=list)   # every line read, in order (not blank/ignored)
    chatter: list[tuple[int, str, str]] = field(default_factory=list)   # (line, text, why) ignored as mail talk
    player_lines: list[Order] = field(default_factory=list)   # TIMEZONE, AWAY: the player's settings

    @property
    def ok(self) -> bool:
        return not self.problems

    def section(self, nation: str) -> NationOrders | None:
        for s in self.sections:
            if s.nation == nation:
                return s
        return None

    @property
    def nations(self) -> list[str]:
        return [s.nation for s in self.sections]


# --- names ----------------------------------------------------------------------------------------
class _Names:
    def __init__(self, ruleset) -> None:
        self.rs = ruleset
        self.suggest_budget = SUGGESTIONS   # did-you-mean searches left for this message

    def get(self, text: str, kinds, bad: list | None = None) -> str | None:
        """Resolve; on failure raise (bad is None) or add the problem to `bad` and return None."""
        try:
            return names.resolve(self.rs, text, kinds, suggest=self.suggest_budget > 0)
        except names.NameProblem as e:
            if e.kind == "unknown-name":
                self.suggest_budget -= 1
            p = (e.kind, e.message, e.hint)
            if bad is None:
                raise _Bad(p) from None
            bad.append(p)
            return None

    def place(self, text: str, bad: list | None = None) -> str | None:
        return self.get(text, names.PLACE, bad)

    def area_or_all(self, text: str, bad: list | None = None) -> str | None:
        if text.strip().upper() == "ALL":
            return "all"
        return self.place(text, bad)

    def places(self, text: str, form: str, counts: bool = False) -> tuple[str, ...]:
        items = [x for x in LIST_SPLIT.split(text.strip())]
        if not text.strip():
            raise syntax("no area given", form)
        if any(not x for x in items):
            raise syntax("an empty item in the list (two commas, or a comma at the end)", form)
        bad: list = []
        out: list[str] = []
        for item in items:
            n = 1
            words = item.split()
            if counts and len(words) > 1 and COUNT.match(words[0]):
                n = count(words[0], form)
                words = words[1:]
                if words and words[0].lower() in ("x", "×"):
                    words = words[1:]
                item = " ".join(words)
            pid = self.place(item, bad)
            if pid is not None:
                out.extend([pid] * n)
        if bad:
            raise _Bad(*bad)
        return tuple(out)


# --- the line parser -------------------------------------------------------------------------------
class LineParser:
    """Parses one cleaned line into an Order (line/text not set; cycle always 1), with the forms of
    the ruleset's order language (pbem.orders.language); the reader its forms parse with."""

    def __init__(self, ruleset) -> None:
        self.rs = ruleset
        self.names = _Names(ruleset)
        self.language: Language = language(ruleset)

    # the reader's tools, for a form's parse(reader, rest) (pbem.orders.forms)
    def syntax(self, message: str, form: str | None = None) -> LineProblems:
        """A syntax problem: the hint is the form's syntax, or every form of the ruleset."""
        return syntax(message, form) if form else _Bad(("syntax", message, self.language.hint))

    count = staticmethod(count)
    round = staticmethod(round_number)
    split_tail = staticmethod(split_tail)

    def move(self, s: str, leader_only: bool = False) -> Order:
        """A move's line (`N A -> B ...`, `<leader> A -> B`) -> its Move."""
        return move(self, s, leader_only)

    def parse(self, s: str) -> Order:
        s = russian.to_english(s)
        words = s.split()
        if not words:
            raise self.syntax("empty line")
        kw = words[0].upper().rstrip(":")
        form = self.language.by_word.get(kw)
        if form is not None:
            return form.parse(self, s[len(words[0]):].strip())
        for form in self.language.unworded:
            if form.recognises(s):
                return form.parse(self, s)
        if kw in every_word():    # a form of another family's rules
            raise _Bad(("syntax", f"{kw} is not an order of this game's rules ({self.rs.name})", self.language.hint))
        return self._unknown(s, words)

    def _unknown(self, s: str, words: list[str]) -> Order:
        first = words[0].upper()
        lang = self.language
        near = difflib.get_close_matches(first, list(lang.by_word), n=1, cutoff=0.75)
        if near and len(first) >= 3:
            form = lang.by_word[near[0]]
            raise _Bad(("syntax", f"'{words[0]}' is not an order word",
                        f"Did you mean {form.keyword}? Write it as: {form.syntax}."))
        ru = {w: kw for w, kw in russian.first_words().items() if kw in lang.by_word}
        near = difflib.get_close_matches(names.normalize(words[0]), list(ru), n=1, cutoff=0.75)
        if near and len(first) >= 3 and names.script(first) == "cyrillic":
            kw = ru[near[0]]
            raise _Bad(("syntax", f"'{words[0]}' is not an order word",
                        f"Did you mean {near[0].upper()} ({kw})? Write it as: {lang.by_word[kw].syntax}."))
        if lang.has("MOVE") and (COUNT.match(words[0]) or names.match(self.rs, s, names.PLACE) or names.match(
                self.rs, words[0], ("leader",))):
            raise _Bad(("syntax", "a move needs '->' between the areas", f"Write it as: {form_named('MOVE').syntax}."))
        raise _Bad(("syntax", NOT_AN_ORDER, lang.hint))

    def is_chatter(self, s: str) -> str:
        """Why the line `s` (not an order) is plainly mail talk ('' if not): see hygiene.chatter; a
        line naming an area, sea, nation or leader of the game is never taken for talk."""
        why = chatter(s)
        if not why:
            return ""
        words = re.findall(r"[^\W\d_][\w'-]*", s)
        if any(len(w) >= 3 and names.match(self.rs, w, names.PLACE + ("nation", "leader")) for w in words):
            return ""
        return why


# --- the message parser ----------------------------------------------------------------------------
def _problem(ln: Line, kind: str, message: str, hint: str = "") -> OrderProblem:
    return OrderProblem(kind, ln.number, ln.quoted, message, hint)


def parse_line(text: str, ruleset, *, line: int = 0) -> Order:
    """One order line (e.g. a saved standing order) -> its Order; raises OrderError when it is not one."""
    from pbem.errors import OrderError

    read = [ln for ln in clean_lines(text) if ln.text]
    if len(read) != 1:
        raise OrderError([OrderProblem("syntax", line, quote(str(text)), "expected exactly one order line",
                                       language(ruleset).hint)])
    ln = read[0]
    if ln.ignored == "too-long":
        raise OrderError([OrderProblem("syntax", line, ln.quoted, "the line is too long to be an order")])
    try:
        order = LineParser(ruleset).parse(ln.text)
    except _Bad as e:
        raise OrderError([OrderProblem(k, line, ln.quoted, m, h) for k, m, h in e.problems]) from None
    return _placed(order, line=line, text=ln.original.strip())


_SHARED_LINES: contextvars.ContextVar[tuple[object, dict[Any, Any]] | None] = contextvars.ContextVar(
    "pbem_shared_lines", default=None)


@contextlib.contextmanager
def lines_remembered() -> Iterator[None]:
    """Within this block, parse_message remembers every line it read as an order, across messages
    (replaying a game: six lines in ten come back in later turns). A line's order depends only on
    the ruleset and its text; lines with problems are not shared (their hints depend on the message)."""
    token = _SHARED_LINES.set((None, {}))
    try:
        yield
    finally:
        _SHARED_LINES.reset(token)


def _shared_lines(ruleset) -> dict[Any, Any]:
    """Line text -> Order, and (_MESSAGE, text, nation) -> ParsedMessage (parse_message)."""
    shared = _SHARED_LINES.get()
    if shared is None:
        return {}
    if shared[0] is not ruleset:          # one ruleset a block (a game); another one starts afresh
        shared = (ruleset, {})
        _SHARED_LINES.set(shared)
    return shared[1]


def parse_message(text: str | bytes, ruleset, *, default_nation: str | None = None) -> ParsedMessage:
    """Read an orders message; see the module doc. Never raises on bad input. Within
    lines_remembered() a message read before (the same text for the same nation) is not read again:
    the same ParsedMessage comes back, for a reader that does not change it (replay: a third of a
    game's orders texts come back, such as `VOTE` and `PASS` messages)."""
    if _SHARED_LINES.get() is None:
        return _parse_message(text, ruleset, default_nation)
    messages = _shared_lines(ruleset)
    key = (_MESSAGE, text, default_nation)
    pm = messages.get(key)
    if pm is None:
        pm = _parse_message(text, ruleset, default_nation)
        if len(messages) < 20000:
            messages[key] = pm
    return pm


_MESSAGE = "message"   # a whole message's key among the lines remembered: (_MESSAGE, text, nation)


def _placed(order: Order, **where: Any) -> Order:
    """dataclasses.replace(order, line=..., text=...) without running __init__ again: an order is a
    frozen dataclass of plain fields with no __post_init__, read from a line parsed once and placed
    at each line number it is written on (a game writes the same lines turn after turn)."""
    new = object.__new__(type(order))
    d = new.__dict__
    d.update(order.__dict__)
    d.update(where)
    return new


def _parse_message(text: str | bytes, ruleset, default_nation: str | None) -> ParsedMessage:
    pm = ParsedMessage()
    lp = LineParser(ruleset)
    shared = _shared_lines(ruleset)
    current: str | None = None
    if default_nation is not None:
        current = default_nation if default_nation in ruleset.nations else names.resolve(
            ruleset, default_nation, ("nation",))
    bad_nation_line: int | None = None
    cycles: dict[str, int] = {}
    sections: dict[str, NationOrders] = {}
    memo: dict[str, Order | _Bad] = {}   # the same line twice is read once

    for ln in clean_lines(text):
        if ln.ignored and ln.ignored != "too-long":
            continue
        entry = ParsedLine(ln.number, ln.original.strip(), current)
        pm.lines.append(entry)
        if ln.ignored == "too-long":
            entry.problems.append(_problem(ln, "syntax", f"the line is too long to be an order (over {len(ln.text)} characters)",
                                           lp.language.hint))
            continue
        try:
            hit = memo.get(ln.text)
            if hit is None:
                hit = shared.get(ln.text)
            if hit is None:
                try:
                    hit = lp.parse(ln.text)
                except _Bad as e:
                    hit = e
                if len(memo) < 10000:
                    memo[ln.text] = hit
                if not isinstance(hit, _Bad) and len(shared) < 20000:
                    shared[ln.text] = hit
            if isinstance(hit, _Bad):
                raise hit
            order = hit
        except _Bad as e:
            why = lp.is_chatter(ln.text) if e.problems[0][1] == NOT_AN_ORDER else ""
            if why:     # "Hi, here are my orders!", "Cheers", "Sent from my iPhone": not read, said so
                pm.lines.pop()
                pm.chatter.append((ln.number, entry.text, why))
                continue
            entry.problems.extend(_problem(ln, k, m, h) for k, m, h in e.problems)
            if russian.to_english(ln.text).split()[0].upper().rstrip(":") == "NATION":
                current = None
                bad_nation_line = ln.number
                entry.nation = None
            continue
        order = _placed(order, line=ln.number, text=entry.text)
        entry.order = order
        if isinstance(order, GameLine):
            if pm.game is not None and pm.game != order.game:
                entry.problems.append(_problem(ln, "syntax", f"a second GAME line (the first said {pm.game})",
                                               "Send the orders of each game in a mail of their own."))
            else:
                pm.game = order.game
            continue
        if isinstance(order, TokenLine):
            pm.token = order.token if pm.token is None else pm.token
            continue
        if isinstance(order, PLAYER_LINE_TYPES):
            pm.player_lines.append(order)
            continue
        if isinstance(order, NationLine):
            current = order.nation
            entry.nation = current
            bad_nation_line = None
            continue
        if current is None:
            if bad_nation_line is not None:
                msg = f"not read: the NATION line {bad_nation_line} above it names no nation"
                hint = "Correct that NATION line."
            else:
                msg = "which nation is this order for?"
                hint = "Put a line NATION <your nation> above the orders."
            entry.problems.append(_problem(ln, "syntax", msg, hint))
            entry.order = None
            continue
        if isinstance(order, SecondMovement):
            cycles[current] = 2
        elif isinstance(order, (Move, Stay)) and cycles.get(current, 1) != 1:
            order = dataclasses.replace(order, cycle=cycles[current])
            entry.order = order
        if current not in sections:
            sections[current] = NationOrders(current)
            pm.sections.append(sections[current])
        sections[current].orders.append(order)

    pm.problems = [p for e in pm.lines for p in e.problems]
    return pm
