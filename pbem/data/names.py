"""Names -> ids: the one resolver for areas, seas, nations and leaders (CLI, orders parser, cases).

A name matches, case-insensitively and ignoring punctuation, an id (`south_mercia`), a display name
(`South Mercia`) or an alias (`S. Mercia`), or is an unambiguous prefix of one of them of at least four
letters (`Sout`). Exact matches win over prefixes. A name that matches nothing raises UnknownNameError
(with "did you mean" suggestions); one that matches several things raises AmbiguousNameError naming the
candidates. Both are PbemErrors whose `kind` is the ORDERS.md error kind, so the orders parser can turn
them into an OrderProblem(e.kind, line, text, e.message, e.hint).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pbem.errors import PbemError

if TYPE_CHECKING:
    from pbem.rules.ruleset import Ruleset

KINDS = ("area", "sea", "nation", "leader")
MIN_PREFIX = 4   # ORDERS.md: "an unambiguous prefix of at least 4 letters"

_KIND_WORDS = {"area": "area", "sea": "sea", "nation": "nation", "leader": "leader"}


def normalize(text: str) -> str:
    """`S. Mercia` -> `s mercia`; `romano_british` -> `romano british`; `Sweyn/Canute` -> `sweyn canute`."""
    t = text.casefold().replace("'", "").replace("\u2019", "")
    t = re.sub(r"[^0-9a-z]+", " ", t)
    return t.strip()


def _letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


class NameLookupError(PbemError):
    """A name in a command, order or case that does not resolve to exactly one thing."""

    kind = "unknown-name"

    def __init__(self, message: str, *, text: str, kinds: tuple[str, ...], candidates: tuple[str, ...] = (),
                 suggestions: tuple[str, ...] = (), hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.text = text
        self.kinds = kinds
        self.candidates = candidates      # ids that matched (ambiguous) -- empty when unknown
        self.suggestions = suggestions    # display names that are close (unknown)


class UnknownNameError(NameLookupError):
    kind = "unknown-name"


class AmbiguousNameError(NameLookupError):
    kind = "ambiguous-name"


class _Index:
    """Every (normalized key, id, kind, display name) of a ruleset."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.entries: list[tuple[str, str, str]] = []   # (key, id, kind)
        self.kind_of: dict[str, str] = {}
        self.display: dict[str, str] = {}
        tables = (("area", ruleset.areas), ("sea", ruleset.seas), ("nation", ruleset.nations),
                  ("leader", ruleset.leaders))
        for kind, table in tables:
            for ident, thing in table.items():
                self.kind_of[ident] = kind
                self.display[ident] = thing.name
                keys = {normalize(ident), normalize(thing.name)}
                keys.update(normalize(a) for a in thing.aliases)
                for key in sorted(k for k in keys if k):
                    self.entries.append((key, ident, kind))


def per_ruleset(build):
    """Memoise `build(ruleset)` per loaded ruleset object (rulesets are immutable and cached by the
    loader, so identity is the key; the entry also holds the ruleset so its id cannot be reused)."""
    cache: dict[int, tuple[object, object]] = {}

    def get(ruleset):
        hit = cache.get(id(ruleset))
        if hit is not None and hit[0] is ruleset:
            return hit[1]
        if len(cache) > 16:
            cache.clear()
        value = build(ruleset)
        cache[id(ruleset)] = (ruleset, value)
        return value

    return get


_index = per_ruleset(lambda rs: _Index(rs))


def _check_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    kinds = tuple(kinds)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r}; kinds are {', '.join(KINDS)}")
    return kinds


def matches(ruleset: Ruleset, text: str, kinds: Iterable[str] = KINDS) -> tuple[str, ...]:
    """The ids `text` could mean: the exact matches if there are any, else the prefix matches (>= 4
    letters), in the ruleset's order. Empty when nothing matches."""
    kinds = _check_kinds(kinds)
    idx = _index(ruleset)
    key = normalize(text)
    if not key:
        return ()
    pool = [(k, i) for k, i, kind in idx.entries if kind in kinds]
    exact = [i for k, i in pool if k == key]
    if exact:
        return tuple(dict.fromkeys(exact))
    if _letters(key) < MIN_PREFIX:
        return ()
    return tuple(dict.fromkeys(i for k, i in pool if k.startswith(key)))


def suggest(ruleset: Ruleset, text: str, kinds: Iterable[str] = KINDS, n: int = 3) -> tuple[str, ...]:
    """Display names close to `text` (difflib), best first; for "did you mean" hints."""
    kinds = _check_kinds(kinds)
    idx = _index(ruleset)
    key = normalize(text)
    by_key: dict[str, str] = {}
    for k, ident, kind in idx.entries:
        if kind in kinds:
            by_key.setdefault(k, ident)
    out: list[str] = []
    best = 0.0
    for k in difflib.get_close_matches(key, list(by_key), n=n * 3, cutoff=0.6):
        score = difflib.SequenceMatcher(None, key, k).ratio()
        best = max(best, score)
        name = idx.display[by_key[k]]
        if name not in out and score >= best - 0.15:   # only the ones about as close as the best
            out.append(name)
    if not out and key:   # a word of a longer name ("mercia" -> North Mercia, South Mercia)
        words = [i for k, i, kind in idx.entries if kind in kinds and key in k.split()]
        out = list(dict.fromkeys(idx.display[i] for i in words))
    return tuple(out[:n])


def _what(kinds: tuple[str, ...]) -> str:
    words = [_KIND_WORDS[k] for k in kinds]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def resolve(ruleset: Ruleset, text: str, kinds: Iterable[str] = KINDS) -> str:
    """The id `text` names among `kinds` (area, sea, nation, leader).

    Raises UnknownNameError (kind "unknown-name", hint "did you mean ...?") or AmbiguousNameError
    (kind "ambiguous-name", candidates named in the message)."""
    kinds = _check_kinds(kinds)
    found = matches(ruleset, text, kinds)
    if len(found) == 1:
        return found[0]
    idx = _index(ruleset)
    shown = text.strip()
    if found:
        names = [f"{idx.display[i]} ({idx.kind_of[i]})" if len(kinds) > 1 else idx.display[i] for i in found]
        raise AmbiguousNameError(
            f"{shown!r} could be {_or_list(names)}", text=text, kinds=kinds, candidates=found,
            hint="write more of the name")
    close = suggest(ruleset, text, kinds)
    hint = f"did you mean {_or_list(list(close))}?" if close else ""
    if not hint and 0 < _letters(normalize(text)) < MIN_PREFIX:
        hint = f"write at least {MIN_PREFIX} letters"
    raise UnknownNameError(f"no {_what(kinds)} called {shown!r}", text=text, kinds=kinds,
                           suggestions=close, hint=hint)


def _or_list(names: list[str]) -> str:
    if len(names) <= 2:
        return " or ".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def kind_of(ruleset: Ruleset, ident: str) -> str:
    """area | sea | nation | leader for an id of the ruleset (KeyError otherwise)."""
    return _index(ruleset).kind_of[ident]
