"""Order text (the language of docs/PLAYERS.md) -> typed orders (pbem.rules.orders).

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
from datetime import date
from typing import Any

from pbem.errors import OrderProblem
from pbem.orders import names, russian
from pbem.orders.hygiene import Line, chatter, clean_lines, quote
from pbem.rules.orders import (
    PLAYER_LINE_TYPES,
    Allow,
    Attack,
    AwayLine,
    Battles,
    Brittany,
    ClearDefend,
    Defend,
    Disband,
    GameLine,
    LanguageLine,
    Losses,
    Move,
    NationLine,
    NationOrders,
    Order,
    Pass,
    Place,
    PlaceLeader,
    SecondMovement,
    Settle,
    Stay,
    Submit,
    TimezoneLine,
    TokenLine,
    Vote,
    Withdraw,
)

MAX_COUNT = 99
SUGGESTIONS = 300    # did-you-mean searches per message (a pasted novel must not take minutes)
MAX_ROUND = 99

# The accepted forms, for hints (ORDERS.md wording).
FORMS: dict[str, str] = {
    "GAME": "GAME <game id>",
    "NATION": "NATION <nation>",
    "TOKEN": "TOKEN <token>",
    "TIMEZONE": "TIMEZONE <zone>, e.g. TIMEZONE Europe/Moscow",
    "LANGUAGE": "LANGUAGE <language>, e.g. LANGUAGE ru (en, ru)",
    "AWAY": "AWAY <first day> TO <last day>, e.g. AWAY 2026-12-20 TO 2026-12-27",
    "PLACE": "PLACE A[, B ...]",
    "LEADER": "LEADER <name> IN A",
    "MOVE": "N A -> B [-> C ...]  or  N cavalry A -> B ...  or  <leader> A -> B ...",
    "STAY": "STAY N <sea>",
    "SECOND": "SECOND MOVEMENT",
    "BATTLES": "BATTLES A, B ...",
    "ATTACK": "ATTACK A: FIGHT  or  ATTACK A: RETREAT AFTER ROUND K  or  ATTACK A: RETREAT IF OUTNUMBERED",
    "WITHDRAW": "WITHDRAW A",
    "SETTLE": "SETTLE A",
    "DISBAND": "DISBAND A[, B ...]",
    "BRITTANY": "BRITTANY N A  (optional rule 16.251)",
    "VOTE": "VOTE <nation>",
    "SUBMIT": "SUBMIT TO <nation>",
    "ALLOW": "ALLOW <nation>",
    "PASS": "PASS",
    "DEFEND": "DEFEND A: HOLD  or  DEFEND A: RETREAT TO B [IF OUTNUMBERED] [AFTER ROUND K]  (A may be ALL)"
              "  or  DEFEND A: RETREAT 2 TO B, REST TO C ...",
    "CLEAR": "CLEAR DEFEND A",
    "LOSSES": "LOSSES A: RAIDERS FIRST  or  SETTLERS FIRST  or  CAVALRY LAST  (A may be ALL)",
}
KEYWORDS = tuple(k for k in FORMS if k != "MOVE")
_ALIASES = {"BATTLE": "BATTLES"}
NOT_AN_ORDER = "this line is not an order"
ORDER_FORMS = ("PLACE", "LEADER", "MOVE", "STAY", "SECOND", "BATTLES", "ATTACK", "WITHDRAW", "SETTLE", "DISBAND",
               "BRITTANY", "VOTE", "SUBMIT", "ALLOW", "PASS", "DEFEND", "CLEAR", "LOSSES")
ALL_FORMS_HINT = "An order line is one of: " + "; ".join(FORMS[k] for k in ORDER_FORMS) + "."

_ARMY_WORDS = {"army", "armies", "armys"}
_FIXED_WORDS = {"fort", "forts", "burh", "burhs"}
_CAV_WORDS = {"cavalry", "cav", "cavalries", "horse", "horses", "knight", "knights"}
_COUNT = re.compile(r"^(\d+)(?:x|×)?$", re.IGNORECASE)
_ARROW_SPLIT = re.compile(r"\s*->\s*|\s+to\s+", re.IGNORECASE)
_LIST_SPLIT = re.compile(r"\s*,\s*|\s+and\s+|\s*;\s*", re.IGNORECASE)
_AFTER = re.compile(r"^after\s+(?:round\s+(\d+)|(\d+)\s+rounds?)$", re.IGNORECASE)
_DEFEND_TAIL = re.compile(r"^(?P<b>.*?)(?P<conds>(?:\s+(?:if\s+outnumbered|after\s+round\s+\d+|after\s+\d+\s+rounds?))*)$",
                          re.IGNORECASE)
_COND = re.compile(r"if\s+outnumbered|after\s+round\s+\d+|after\s+\d+\s+rounds?", re.IGNORECASE)
_TAIL_WORDS = ("HOLD", "RETREAT", "FIGHT", "RAIDERS", "SETTLERS", "CAVALRY", "RAIDERS_FIRST",
               "SETTLERS_FIRST", "CAVALRY_LAST")
_LOSSES = {"raiders first": "raiders_first", "settlers first": "settlers_first", "cavalry last": "cavalry_last"}


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


class _Bad(Exception):
    """Problems of one line (kind, message, hint) without the line number yet."""

    def __init__(self, *problems: tuple[str, str, str]) -> None:
        super().__init__(problems[0][1] if problems else "")
        self.problems = list(problems)


def _syntax(message: str, form: str | None = None) -> _Bad:
    hint = f"Write it as: {FORMS[form]}." if form else ALL_FORMS_HINT
    return _Bad(("syntax", message, hint))


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
        items = [x for x in _LIST_SPLIT.split(text.strip())]
        if not text.strip():
            raise _syntax("no area given", form)
        if any(not x for x in items):
            raise _syntax("an empty item in the list (two commas, or a comma at the end)", form)
        bad: list = []
        out: list[str] = []
        for item in items:
            n = 1
            words = item.split()
            if counts and len(words) > 1 and _COUNT.match(words[0]):
                n = _count(words[0], form)
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


def _count(text: str, form: str) -> int:
    m = _COUNT.match(text)
    if not m or len(m.group(1)) > 3:
        raise _syntax(f"'{text}' is not a number of units", form)
    n = int(m.group(1))
    if n < 1:
        raise _syntax("the number of units must be at least 1", form)
    if n > MAX_COUNT:
        raise _syntax(f"{n} units is more than any nation has", form)
    return n


def _round(text: str, form: str) -> int:
    if len(text) > 3:
        raise _syntax(f"round {text[:10]} is too large", form)
    k = int(text)
    if not 1 <= k <= MAX_ROUND:
        raise _syntax("the round number must be at least 1", form)
    return k


def _split_tail(rest: str, form: str) -> tuple[str, str]:
    """`A: TAIL` (or `A TAIL` where TAIL starts with a known word) -> (A, TAIL)."""
    if ":" in rest:
        head, tail = rest.split(":", 1)
        head, tail = head.strip(), tail.strip()
        if not head:
            raise _syntax("the area is missing before ':'", form)
        if not tail:
            raise _syntax("nothing after ':'", form)
        return head, tail
    words = rest.split()
    for i in range(1, len(words)):
        if words[i].upper() in _TAIL_WORDS:
            return " ".join(words[:i]), " ".join(words[i:])
    raise _syntax("expected 'A: ...'", form)


# --- the line parser -------------------------------------------------------------------------------
class LineParser:
    """Parses one cleaned line into an Order (line/text not set; cycle always 1)."""

    def __init__(self, ruleset) -> None:
        self.rs = ruleset
        self.names = _Names(ruleset)

    def parse(self, s: str) -> Order:
        s = russian.to_english(s)
        words = s.split()
        if not words:
            raise _syntax("empty line")
        kw = words[0].upper().rstrip(":")
        kw = _ALIASES.get(kw, kw)
        rest = s[len(words[0]):].strip()
        handler = getattr(self, f"_kw_{kw.lower()}", None) if kw in KEYWORDS else None
        if kw == "LEADER" and re.search(r"->|\sto\s", rest, re.IGNORECASE) and not re.search(
                r"\sin\s", f" {rest} ", re.IGNORECASE):
            return self._move(rest, leader_only=True)
        if handler is not None:
            return handler(rest)
        if _ARROW_SPLIT.search(s) or s.endswith("->"):
            return self._move(s)
        return self._unknown(s, words)

    def _unknown(self, s: str, words: list[str]) -> Order:
        first = words[0].upper()
        near = difflib.get_close_matches(first, list(KEYWORDS) + list(_ALIASES), n=1, cutoff=0.75)
        if near and len(first) >= 3:
            kw = _ALIASES.get(near[0], near[0])
            raise _Bad(("syntax", f"'{words[0]}' is not an order word",
                        f"Did you mean {kw}? Write it as: {FORMS[kw]}."))
        ru = russian.first_words()
        near = difflib.get_close_matches(names.normalize(words[0]), list(ru), n=1, cutoff=0.75)
        if near and len(first) >= 3 and names.script(first) == "cyrillic":
            kw = ru[near[0]]
            raise _Bad(("syntax", f"'{words[0]}' is not an order word",
                        f"Did you mean {near[0].upper()} ({kw})? Write it as: {FORMS[kw]}."))
        if _COUNT.match(words[0]) or names.match(self.rs, s, names.PLACE) or names.match(
                self.rs, words[0], ("leader",)):
            raise _Bad(("syntax", "a move needs '->' between the areas", f"Write it as: {FORMS['MOVE']}."))
        raise _Bad(("syntax", NOT_AN_ORDER, ALL_FORMS_HINT))

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

    # header lines
    def _kw_game(self, rest: str) -> Order:
        if not rest or len(rest.split()) != 1:
            raise _syntax("expected one game id after GAME", "GAME")
        return GameLine(game=rest)

    def _kw_token(self, rest: str) -> Order:
        if not rest or len(rest.split()) != 1:
            raise _syntax("expected one token after TOKEN", "TOKEN")
        return TokenLine(token=rest)

    def _kw_nation(self, rest: str) -> Order:
        if not rest:
            raise _syntax("which nation?", "NATION")
        return NationLine(nation=self.names.get(rest, ("nation",)))

    # a player's settings (pbem.service.away)
    def _kw_timezone(self, rest: str) -> Order:
        if len(rest.split()) != 1:
            raise _syntax("expected one time zone name after TIMEZONE", "TIMEZONE")
        return TimezoneLine(zone=rest)

    def _kw_language(self, rest: str) -> Order:
        if len(rest.split()) != 1:
            raise _syntax("expected one language code after LANGUAGE", "LANGUAGE")
        return LanguageLine(language=rest)

    def _kw_away(self, rest: str) -> Order:
        m = re.match(r"^(\d{4}-\d{2}-\d{2})\s+(?:to|until|-)\s+(\d{4}-\d{2}-\d{2})$", rest, re.IGNORECASE)
        try:
            if m:
                return AwayLine(start=date.fromisoformat(m.group(1)).isoformat(),
                                end=date.fromisoformat(m.group(2)).isoformat())
        except ValueError:
            pass
        raise _syntax("expected two dates after AWAY", "AWAY")

    # a nation's turn
    def _kw_place(self, rest: str) -> Order:
        return Place(areas=self.names.places(rest, "PLACE", counts=True))

    def _kw_leader(self, rest: str) -> Order:
        m = re.match(r"^(.+?)\s+in\s+(.+)$", rest, re.IGNORECASE)
        if not m:
            raise _syntax("expected LEADER <name> IN <area>", "LEADER")
        bad: list = []
        leader = self.names.get(m.group(1), ("leader",), bad)
        area = self.names.place(m.group(2), bad)
        if bad:
            raise _Bad(*bad)
        return PlaceLeader(leader=leader, area=area)

    def _kw_stay(self, rest: str) -> Order:
        words = rest.split()
        if len(words) < 2 or not _COUNT.match(words[0]):
            raise _syntax("expected STAY, a number and a sea", "STAY")
        n = _count(words[0], "STAY")
        words = words[1:]
        while words and words[0].lower() in _ARMY_WORDS | {"x", "×", "in", "at"}:
            words = words[1:]
        if not words:
            raise _syntax("which sea?", "STAY")
        return Stay(count=n, sea=self.names.get(" ".join(words), ("sea",)))

    def _kw_second(self, rest: str) -> Order:
        if rest.upper() not in ("MOVEMENT", "MOVE"):
            raise _syntax("expected SECOND MOVEMENT on a line of its own", "SECOND")
        return SecondMovement()

    def _kw_battles(self, rest: str) -> Order:
        return Battles(areas=self.names.places(rest, "BATTLES"))

    def _kw_attack(self, rest: str) -> Order:
        head, tail = _split_tail(rest, "ATTACK")
        area = self.names.place(head)
        t = " ".join(tail.split()).upper()
        if t == "FIGHT":
            return Attack(area=area, mode="fight")
        if t == "RETREAT IF OUTNUMBERED":
            return Attack(area=area, mode="retreat_if_outnumbered")
        if t.startswith("RETREAT "):
            m = _AFTER.match(t[len("RETREAT "):])
            if m:
                return Attack(area=area, mode="retreat_after", after_round=_round(m.group(1) or m.group(2), "ATTACK"))
        raise _syntax(f"'{tail}' is not FIGHT, RETREAT AFTER ROUND K or RETREAT IF OUTNUMBERED", "ATTACK")

    def _kw_withdraw(self, rest: str) -> Order:
        if not rest:
            raise _syntax("which area?", "WITHDRAW")
        return Withdraw(area=self.names.place(rest))

    def _kw_settle(self, rest: str) -> Order:
        if not rest:
            raise _syntax("which area?", "SETTLE")
        return Settle(area=self.names.place(rest))

    def _kw_disband(self, rest: str) -> Order:
        return Disband(areas=self.names.places(rest, "DISBAND", counts=True))

    def _kw_brittany(self, rest: str) -> Order:
        words = rest.split()
        if len(words) < 2:
            raise _syntax("expected BRITTANY, a number and an area", "BRITTANY")
        return Brittany(count=_count(words[0], "BRITTANY"), area=self.names.place(" ".join(words[1:])))

    def _kw_vote(self, rest: str) -> Order:
        if not rest:
            raise _syntax("which nation?", "VOTE")
        return Vote(nation=self.names.get(rest, ("nation",)))

    def _kw_submit(self, rest: str) -> Order:
        words = rest.split()
        if words and words[0].upper() == "TO":
            words = words[1:]
        if not words:
            raise _syntax("to which nation?", "SUBMIT")
        return Submit(to=self.names.get(" ".join(words), ("nation",)))

    def _kw_allow(self, rest: str) -> Order:
        if not rest:
            raise _syntax("which subject nation?", "ALLOW")
        return Allow(nation=self.names.get(rest, ("nation",)))

    def _kw_pass(self, rest: str) -> Order:
        if rest:
            raise _syntax("PASS stands on a line of its own", "PASS")
        return Pass()

    # standing orders
    def _kw_defend(self, rest: str) -> Order:
        head, tail = _split_tail(rest, "DEFEND")
        area = self.names.area_or_all(head)
        t = " ".join(tail.split())
        if t.upper() == "HOLD":
            return Defend(area=area, hold=True)
        m = re.match(r"^retreat\s+to\s+(.+)$", t, re.IGNORECASE)
        split = re.match(r"^retreat\s+((?:\d+|rest)\s+to\s+.+)$", t, re.IGNORECASE)
        if not m and not split:
            raise _syntax(f"'{tail}' is not HOLD or RETREAT TO B [IF OUTNUMBERED] [AFTER ROUND K]", "DEFEND")
        tm = _DEFEND_TAIL.match((m or split).group(1))
        target, conds = tm.group("b").strip(), tm.group("conds")
        if not target:
            raise _syntax("retreat to which area?", "DEFEND")
        counts: list[int] = []
        to: list[str] = []
        if split:
            target = ""
            parts = re.split(r"\s*,\s*", tm.group("b").strip())
            for i, part in enumerate(parts):
                pm = re.match(r"^(\d+|rest)\s+to\s+(.+)$", part, re.IGNORECASE)
                if not pm:
                    raise _syntax(f"'{part}' is not 'N TO B' or 'REST TO B'", "DEFEND")
                if pm.group(1).lower() == "rest":
                    if i != len(parts) - 1:
                        raise _syntax("REST TO B comes last", "DEFEND")
                    target = pm.group(2)
                    continue
                n = int(pm.group(1))
                if n < 1:
                    raise _syntax("a retreating group has at least 1 unit", "DEFEND")
                counts.append(n)
                to.append(self.names.place(pm.group(2)))
        outnumbered, after = False, None
        for c in _COND.findall(conds):
            if c.lower().startswith("if"):
                if outnumbered:
                    raise _syntax("IF OUTNUMBERED twice", "DEFEND")
                outnumbered = True
            else:
                if after is not None:
                    raise _syntax("AFTER ROUND twice", "DEFEND")
                am = _AFTER.match(" ".join(c.split()))
                after = _round(am.group(1) or am.group(2), "DEFEND")
        return Defend(area=area, hold=False, to=self.names.place(target) if target else None, if_outnumbered=outnumbered,
                      after_round=after, split_counts=tuple(counts), split_to=tuple(to))

    def _kw_clear(self, rest: str) -> Order:
        words = rest.split()
        if len(words) < 2 or words[0].upper() != "DEFEND":
            raise _syntax("expected CLEAR DEFEND <area>", "CLEAR")
        return ClearDefend(area=self.names.area_or_all(" ".join(words[1:])))

    def _kw_losses(self, rest: str) -> Order:
        head, tail = _split_tail(rest, "LOSSES")
        area = self.names.area_or_all(head)
        pref = _LOSSES.get(" ".join(tail.replace("_", " ").split()).lower())
        if pref is None:
            raise _syntax(f"'{tail}' is not RAIDERS FIRST, SETTLERS FIRST or CAVALRY LAST", "LOSSES")
        return Losses(area=area, preference=pref)

    # moves
    def _move(self, s: str, leader_only: bool = False) -> Order:
        parts = _ARROW_SPLIT.split(s.strip())
        if s.rstrip().endswith("->"):
            raise _syntax("the path ends with an arrow: where to?", "MOVE")
        if len(parts) < 2:
            raise _syntax("a move needs at least two areas", "MOVE")
        if any(not p.strip() for p in parts):
            raise _syntax("an empty step in the path (two arrows in a row, or an arrow at the start)", "MOVE")
        bad: list = []
        try:
            count, kind, leader, start = self._head(parts[0], leader_only)
        except _Bad as e:
            bad.extend(e.problems)
            count = kind = leader = start = None
        path = [start] + [self.names.place(p, bad) for p in parts[1:]]
        if bad:
            raise _Bad(*bad)
        return Move(count=count, kind=kind, path=tuple(path), leader=leader)

    def _head(self, seg: str, leader_only: bool) -> tuple[int, str, str | None, str]:
        words = seg.split()
        count = None
        kind = "armies"
        i = 0
        if not leader_only:
            if _COUNT.match(words[0]) or re.match(r"^\d", words[0]):
                count = _count(words[0], "MOVE")
                i = 1
                if i < len(words) and words[i].lower() in ("x", "×"):
                    i += 1
            if i < len(words) and words[i].lower() in _ARMY_WORDS:
                i += 1
            elif i < len(words) and words[i].lower() in _CAV_WORDS:
                kind = "cavalry"
                i += 1
            if i < len(words) and words[i].lower() in _FIXED_WORDS:
                raise _Bad(("syntax", "forts and burhs never move", f"Only armies, cavalry and leaders move: {FORMS['MOVE']}."))
            if i >= len(words):
                raise _syntax("from which area?", "MOVE")
            rest = words[i:]
            if count is not None or kind == "cavalry" or i > 0:
                try:
                    return count or 1, kind, None, self.names.place(" ".join(rest))
                except _Bad:
                    if kind == "armies" and len(rest) > 1 and names.match(self.rs, rest[0], ("leader",)):
                        raise _Bad(("syntax", "a leader moves without a number of units",
                                    f"Write it as: {' '.join(rest)} -> ...  (armies that move on the same path "
                                    "are its escort)")) from None
                    raise
            try:
                return 1, "armies", None, self.names.place(" ".join(rest))
            except _Bad as whole:
                first_error = whole
        else:
            rest = words
            first_error = None
        # <leader> A
        place_ok_leader_bad = None
        leader_ok_place_bad = None
        for k in range(1, len(rest)):
            lt, pt = " ".join(rest[:k]), " ".join(rest[k:])
            lbad: list = []
            pbad: list = []
            lid = self.names.get(lt, ("leader",), lbad)
            pid = self.names.place(pt, pbad)
            if lid and pid:
                return 1, "leader", lid, pid
            if lid and leader_ok_place_bad is None:
                leader_ok_place_bad = pbad
            if pid and place_ok_leader_bad is None:
                place_ok_leader_bad = lbad
        if leader_ok_place_bad:
            raise _Bad(*leader_ok_place_bad)
        if place_ok_leader_bad:
            raise _Bad(*place_ok_leader_bad)
        if leader_only:
            if len(rest) < 2:
                raise _syntax("expected <leader> <area> -> ...", "MOVE")
            raise _Bad(("unknown-name", f"'{quote(' '.join(rest), 60)}' is not a leader and an area",
                        f"Write it as: {FORMS['MOVE']}."))
        if len(rest) == 1 or first_error.problems[0][0] == "ambiguous-name":
            raise first_error
        kind_, msg, hint = first_error.problems[0]
        raise _Bad((kind_, msg + " (nor a leader and an area)", hint))


# --- the message parser ----------------------------------------------------------------------------
def _problem(ln: Line, kind: str, message: str, hint: str = "") -> OrderProblem:
    return OrderProblem(kind, ln.number, ln.quoted, message, hint)


def parse_line(text: str, ruleset, *, line: int = 0) -> Order:
    """One order line (e.g. a saved standing order) -> its Order; raises OrderError when it is not one."""
    from pbem.errors import OrderError

    read = [ln for ln in clean_lines(text) if ln.text]
    if len(read) != 1:
        raise OrderError([OrderProblem("syntax", line, quote(str(text)), "expected exactly one order line",
                                       ALL_FORMS_HINT)])
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
                                           ALL_FORMS_HINT))
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
