"""Names players write -> ruleset ids (areas, seas, nations, leaders).

Matching (ORDERS.md "Area and sea names ..."), case-insensitive, in tiers; the first tier with any
match decides, and more than one match there is an ambiguous name:

1. exact: the id (`south_mercia`, also written `south mercia` / `south-mercia`), the display name, or a
   documented alias (`S. Mercia`, `S Mercia`, `Harald`); dots, hyphens, underscores, quotes and spacing
   do not matter (`Romano British`, `romano-british`, `NorthMercia`);
2. an unambiguous prefix of at least 4 letters of one of those (`Wess`, `Atlan`);
3. a word of at least 4 letters that starts a word of the name (`Hardrada`, `Ocean`; `Mercia` is
   ambiguous and the error names North Mercia and South Mercia).

Names in other languages (pbem/data/<ruleset>/names.<language>.yaml: the Russian names and their case
forms, `Йорк`, `Йорке`, `Римлянам`) are names like the others: a player may mix scripts in one mail
(`3 Кент -> Essex`), and the prefix and word tiers and the did-you-mean search look among the names
of the script the text is written in (`Йорх`: "Did you mean Йорк (York)?"). A name that mixes Latin
and Cyrillic letters (a Latin `e` typed inside `Эссeкс`) is read with its look-alike letters in one
script and then in the other: when the readings name one thing it is that thing; otherwise it is
refused naming what each reading means, never matched to something else.

This is the one place that decides how a typed name becomes an id: the orders parser, the CLI
(`pbem check`, `odds`, `render`, `rules show`), conformance cases, typed-in positions and the ruleset
loader (two names of one ruleset may not normalize alike) all use it. Nothing matching is an
`unknown-name` error with a did-you-mean (difflib) hint; several matches an `ambiguous-name` error
naming them (both PbemErrors whose `kind` is the ORDERS.md error kind, so the parser turns them into an
OrderProblem).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable

from pbem.errors import PbemError
from pbem.records import record

KINDS = ("area", "sea", "nation", "leader")
PLACE = ("area", "sea")

_KIND_WORDS = {"area": "area", "sea": "sea", "nation": "nation", "leader": "leader"}
_TRANSLIT = str.maketrans({"æ": "ae", "Æ": "ae", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ø": "o", "Ø": "o"})
_SEP = re.compile(r"[\s._\-'\"`‘’“”/]+")
_MIN_PREFIX = 4


def normalize(text: str) -> str:
    """Lower case, accents off, punctuation/underscores/hyphens as single spaces."""
    s = unicodedata.normalize("NFKD", str(text).translate(_TRANSLIT))
    s = "".join(c for c in s if not unicodedata.combining(c))
    return _SEP.sub(" ", s.casefold()).strip()


def _squash(s: str) -> str:
    return s.replace(" ", "")


class NameProblem(PbemError):
    """A name that matches nothing (`unknown-name`) or more than one thing (`ambiguous-name`)."""

    def __init__(self, kind: str, text: str, message: str, hint: str = "",
                 candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind
        self.text = text
        self.candidates = candidates


class UnknownName(NameProblem):
    def __init__(self, text: str, message: str, hint: str = "", candidates: tuple[str, ...] = ()) -> None:
        super().__init__("unknown-name", text, message, hint, candidates)


class AmbiguousName(NameProblem):
    def __init__(self, text: str, message: str, hint: str = "", candidates: tuple[str, ...] = ()) -> None:
        super().__init__("ambiguous-name", text, message, hint, candidates)


class MixedScript(NameProblem):
    """A name that mixes Latin and Cyrillic letters and cannot be read as one name: an
    `ambiguous-name` when its readings mean different things, else an `unknown-name`."""


# Letters that look alike in the two scripts (as typed: upper and lower case differ, Cyrillic н is no h).
_LATIN_TWINS = "AaBCcEeHKkMOoPpTXxYy"
_CYRILLIC_TWINS = "АаВСсЕеНКкМОоРрТХхУу"
_TO_CYRILLIC = str.maketrans(_LATIN_TWINS, _CYRILLIC_TWINS)
_TO_LATIN = str.maketrans(_CYRILLIC_TWINS, _LATIN_TWINS)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def script(text: str) -> str:
    """"cyrillic", "latin", "mixed" (letters of both) or "" (no letters of either)."""
    cyr, lat = bool(_CYRILLIC.search(text)), bool(_LATIN.search(text))
    return "mixed" if cyr and lat else "cyrillic" if cyr else "latin" if lat else ""


def readings(text: str) -> list[tuple[str, str]]:
    """(script, text) for each way a mixed-script text can be read in one script: every look-alike
    letter of the other script replaced by its twin (none if a letter of the other script has no twin)."""
    out = []
    for name, table in (("cyrillic", _TO_CYRILLIC), ("latin", _TO_LATIN)):
        read = text.translate(table)
        if script(read) == name:
            out.append((name, read))
    return out


@record
class _Entry:
    key: str          # normalized
    ident: str
    kind: str
    display: str
    squashed: str     # normalized without spaces
    words: tuple[str, ...]   # the words after the first
    label: str = ""   # how a reply writing in this name's script shows it (`Йорк (York)`)



class _Index:
    def __init__(self, ruleset) -> None:
        self.entries: dict[str, list[_Entry]] = {k: [] for k in KINDS}
        self.display: dict[tuple[str, str], str] = {}
        self.local: dict[tuple[str, str], str] = {}    # (kind, id) -> its name in a players' language
        self.kind_of: dict[str, str] = {}
        tables = {"area": ruleset.areas, "sea": ruleset.seas, "nation": ruleset.nations, "leader": ruleset.leaders}
        local_names = getattr(ruleset, "local_names", None) or {}
        for kind, table in tables.items():
            for ident, obj in table.items():
                self.display[(kind, ident)] = obj.name
                self.kind_of.setdefault(ident, kind)
                keys = {normalize(ident), normalize(obj.name)}
                keys.update(normalize(a) for a in getattr(obj, "aliases", ()) or ())
                for k in sorted(keys):
                    if k:
                        self.entries[kind].append(_Entry(k, ident, kind, obj.name, _squash(k), tuple(k.split(" ")[1:]),
                                                         obj.name))
                for spellings in local_names.values():
                    if ident not in spellings:
                        continue
                    local = spellings[ident][0]
                    self.local.setdefault((kind, ident), local)
                    label = local if normalize(local) == normalize(obj.name) else f"{local} ({obj.name})"
                    for k in dict.fromkeys(normalize(x) for x in spellings[ident]):
                        if k and k not in keys:
                            self.entries[kind].append(_Entry(k, ident, kind, obj.name, _squash(k),
                                                             tuple(k.split(" ")[1:]), label))
        # exact lookups: normalized or squashed key -> entries
        self.exact: dict[str, list[_Entry]] = {}
        for kind in KINDS:
            for e in self.entries[kind]:
                for k in {e.key, e.squashed}:
                    self.exact.setdefault(k, []).append(e)
        self.by_kinds: dict[tuple[tuple[str, ...], str], list[_Entry]] = {}
        self.memo: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
        self.raw: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}   # by the text as written
        self.near: dict[tuple[str, tuple[str, ...], int], list[str]] = {}     # suggestions (difflib is slow)


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


def describe_kinds(kinds: Iterable[str]) -> str:
    kinds = tuple(kinds)
    if set(kinds) == set(PLACE):
        return "area or sea"
    words = [_KIND_WORDS.get(k, k) for k in kinds]
    return " or ".join(words) if words else "name"


_KINDS_CHECKED: set[tuple[str, ...]] = set()     # the tuples of kinds seen already (a parse asks ~30 times a message)


def _check_kinds(kinds: str | Iterable[str]) -> tuple[str, ...]:
    if type(kinds) is tuple and kinds in _KINDS_CHECKED:
        return kinds
    if isinstance(kinds, str):
        kinds = (kinds,)
    kinds = tuple(kinds)
    for k in kinds:
        if k not in KINDS:
            raise ValueError(f"unknown name kind {k!r}")
    if len(_KINDS_CHECKED) < 64:
        _KINDS_CHECKED.add(kinds)
    return kinds


def _pick(ids: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    return sorted(ids, key=lambda k: ids[k])


def match(ruleset, text: str, kinds: str | Iterable[str] = PLACE) -> list[tuple[str, str]]:
    """All (kind, id) the text could mean in the first tier that matches anything (see module doc)."""
    return list(_found(_index(ruleset), text, _check_kinds(kinds)))


def _found(idx: _Index, text: str, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """match() without the copy: the remembered list itself, for a reader that does not change it."""
    raw_key = (text, kinds) if type(text) is str else None
    hit = idx.raw.get(raw_key) if raw_key else None   # the same spelling again (normalize: half the parse)
    if hit is not None:
        return hit
    q = normalize(text)
    if not q:
        return []
    if len(idx.raw) > 4096:
        idx.raw.clear()
    memo_key = (q, kinds)
    if memo_key in idx.memo:
        found = idx.memo[memo_key]
    elif script(q) == "mixed":     # its readings depend on the case as typed (H is Н, h has no twin)
        found = _read_mixed(idx, str(text), kinds)
    else:
        found = _match(idx, q, kinds)
        if len(idx.memo) > 4096:
            idx.memo.clear()
        idx.memo[memo_key] = found
    if raw_key:
        idx.raw[raw_key] = found
    return found


def _read_mixed(idx: _Index, text: str, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """Everything the one-script readings of a mixed-script text match (one: it is that)."""
    found: dict[tuple[str, str], str] = {}
    for _, read in readings(text):
        for hit in _match(idx, normalize(read), kinds):
            found[hit] = idx.display[hit]
    return _pick(found)


def _match(idx: _Index, q: str, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    sq = _squash(q)
    hits = idx.exact.get(q, []) + idx.exact.get(sq, [])
    found = {(e.kind, e.ident): e.display for e in hits if e.kind in kinds}
    if found:
        return _pick(found)
    if sum(c.isalnum() for c in q) < _MIN_PREFIX:
        return []
    entries = _entries(idx, kinds, script(q))
    found = {(e.kind, e.ident): e.display for e in entries if e.squashed.startswith(sq)}
    if found:
        return _pick(found)
    if " " not in q:
        found = {(e.kind, e.ident): e.display for e in entries
                 if any(w.startswith(q) for w in e.words)}
    return _pick(found)


def _entries(idx: _Index, kinds: tuple[str, ...], sc: str) -> list[_Entry]:
    """The names of `kinds` written in the script `sc` (a Latin text is no prefix of a Cyrillic name)."""
    entries = idx.by_kinds.get((kinds, sc))
    if entries is None:
        entries = idx.by_kinds[(kinds, sc)] = [e for k in kinds for e in idx.entries[k]
                                                if script(e.key) in (sc, "")]
    return entries


def suggestions(ruleset, text: str, kinds: str | Iterable[str] = PLACE, n: int = 3) -> list[str]:
    """Names close to `text` (difflib), best first, among the names of the script it is written in:
    display names for a Latin text, `Йорк (York)` for a Cyrillic one."""
    kinds = _check_kinds(kinds)
    q = normalize(text)
    if not q:
        return []
    idx = _index(ruleset)
    memo_key = (q, kinds, n)
    if memo_key in idx.near:
        return list(idx.near[memo_key])
    sc = script(q)
    if sc == "mixed":     # look among the names of the first script it reads in
        reads = readings(str(text))
        q, sc = (normalize(reads[0][1]), reads[0][0]) if reads else (q, "latin")
    by_key: dict[str, str] = {}
    for e in _entries(idx, kinds, sc or "latin"):
        by_key.setdefault(e.key, e.label or e.display)
    out: list[str] = []
    for key in difflib.get_close_matches(q[:60], list(by_key), n=n * 3, cutoff=0.6):
        if by_key[key] not in out:
            out.append(by_key[key])
    if len(idx.near) > 4096:
        idx.near.clear()
    idx.near[memo_key] = out[:n]
    return out[:n]


def resolve(ruleset, text: str, kinds: str | Iterable[str] = PLACE, *, suggest: bool = True) -> str:
    """The id `text` names among `kinds` ("area", "sea", "nation", "leader").

    `suggest=False` skips the did-you-mean search (for very long inputs).

    Raises UnknownName / AmbiguousName (both NameProblem, a PbemError with `.kind` of ORDERS.md,
    `.message`, `.hint` and `.candidates`, display names).
    """
    kinds = _check_kinds(kinds)
    idx = _index(ruleset)
    found = _found(idx, text, kinds)      # the spelling's remembered answer (a game repeats them)
    if len(found) == 1:
        return found[0][1]
    what = describe_kinds(kinds)
    shown = " ".join(str(text).split())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    sc = script(shown)
    if sc == "mixed":
        return _refuse_mixed(ruleset, idx, shown, kinds, what, found)
    if found:
        names = tuple(_label(idx, f, sc) for f in found)
        return _raise_ambiguous(shown, what, names)
    article = "an" if what[0] in "aeiou" else "a"
    if not normalize(text):
        raise UnknownName(shown, f"the name of {article} {what} is missing")
    near = tuple(suggestions(ruleset, text, kinds)) if suggest else ()
    hint = f"Did you mean {_or(near)}?" if near else _all_names(idx, kinds, sc)
    other = [k for k in KINDS if k not in kinds]
    elsewhere = match(ruleset, text, other) if other else []
    if len(elsewhere) == 1:
        k, ident = elsewhere[0]
        msg = f"{_label(idx, (k, ident), sc)} is {'an' if k == 'area' else 'a'} {_KIND_WORDS[k]}, not {article} {what}"
        raise UnknownName(shown, msg, hint, near)
    raise UnknownName(shown, f"there is no {what} called '{shown}'", hint, near)


def _label(idx: _Index, found: tuple[str, str], sc: str) -> str:
    """A name as a reply shows it to a player writing in `sc`: `Йорк (York)` for Cyrillic."""
    local = idx.local.get(found) if sc == "cyrillic" else None
    board = idx.display[found]
    return f"{local} ({board})" if local and normalize(local) != normalize(board) else board


def _refuse_mixed(ruleset, idx: _Index, shown: str, kinds: tuple[str, ...], what: str, found) -> str:
    """A mixed-script name that is not one thing: say which letters are which and what each reading means."""
    reads = readings(shown)
    parts = []
    for sc, read in reads:
        hits = _match(idx, normalize(read), kinds)
        means = _or([_label(idx, h, sc) for h in hits]) if hits else "no " + what
        parts.append(f"read in {sc.capitalize()} letters ('{read}') it is {means}")
    msg = f"'{shown}' mixes Latin and Cyrillic letters"
    if parts:
        msg += ": " + "; ".join(parts)
    else:
        msg += " that have no look-alike in the other alphabet"
    labels = tuple(_label(idx, f, "cyrillic") for f in found)
    hint = (f"Write it in one alphabet: {_or(labels)}." if labels
            else "Write the name in one alphabet (all Latin or all Cyrillic letters).")
    raise MixedScript("ambiguous-name" if len(labels) > 1 else "unknown-name", shown, msg, hint, labels)


def _raise_ambiguous(shown: str, what: str, names: tuple[str, ...]) -> str:
    raise AmbiguousName(shown, f"'{shown}' matches more than one {what}: {', '.join(names)}",
                        f"Write one of: {', '.join(names)}.", names)


def _all_names(idx: _Index, kinds: tuple[str, ...], sc: str) -> str:
    if len(kinds) == 1 and kinds[0] != "area":
        every = ", ".join(_label(idx, (kind, ident), sc) for kind, ident in idx.display if kind == kinds[0])
        return f"The {_KIND_WORDS[kinds[0]]}s are: {every}."
    return "Write the name as it is printed on the map."


def _or(names: Iterable[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def display(ruleset, ident: str) -> str:
    """The display name of an id (the id itself if unknown)."""
    return ruleset.display(ident)
