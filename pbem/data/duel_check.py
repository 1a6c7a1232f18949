"""Check a Duel Britannia board and player aid against what the Duel rulebook chapter states.

`pbem rules check DIR` reads DIR/board.yaml and DIR/aid.yaml (the format of docs/DUEL-BOARD.md, the
shipped provisional pair is pbem/data/duel/) and holds them against the facts of
pbem/data/duel/facts.yaml: 27 land areas, the four seas, 11 difficult / 14 clear / 2 impassable
areas ([The Game Board]), the populations ([Phase I]), the named borders, the two pairs of areas the
impassable areas keep apart and their scoring-only adjacency, the straits the text names ([Straits]), the coasts the examples use, the Roman forts and set-up ([Setting Up Round 1]),
the Roman withdrawal, the unit list and army limits ([Unit List]), the scoring centres the text
gives ([Army Limits and Scoring Centres], [The Game Board], [Scoring Centres]), the sides and
partners, and so on. [Section] names a section of the Duel rulebook chapter.

Every failure is a `Failure` printed `FILE:LINE: message`; a board or aid with any failure is refused.
Reading the text is the only step that can raise (a PbemError for text that is not YAML, or too big);
`check` itself is pure: it takes the parsed documents and returns the failures, never raising on odd
content (wrong types, unknown ids, missing keys are failures too).

Any value may be written bare or as {value: V, confidence: C, why: W} (the provisional files say how
sure each value is that way); the checker reads V.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from pbem.errors import PbemError

FACTS_FILE = Path(__file__).with_name("duel") / "facts.yaml"
PROVISIONAL_DIR = Path(__file__).with_name("duel")
TERRAINS = ("clear", "difficult", "impassable")
CONFIDENCES = ("stated", "derived", "inferred", "placeholder")
WRAPPER_KEYS = {"value", "confidence", "why"}
MAX_SIZE = 2 * 1024 * 1024
MAX_DEPTH = 40


# ------------------------------------------------------------------------------------------------
# reading (the only part that raises)
# ------------------------------------------------------------------------------------------------

class DuelDataError(PbemError):
    """A board, aid or facts file that cannot be read at all (not YAML, too big, not a mapping)."""


@dataclass(frozen=True)
class Doc:
    """One parsed file: its label (the path as shown in failures) and its ruamel round-trip tree."""

    label: str
    root: Any


def _depth(text: str) -> int:
    depth = deepest = 0
    for c in text:
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}" and depth:
            depth -= 1
    return deepest


def parse(text: str, label: str) -> Doc:
    """YAML text -> Doc, keeping line numbers; DuelDataError (a PbemError) for anything unreadable."""
    if len(text) > MAX_SIZE:
        raise DuelDataError(f"{label}: too long ({len(text)} characters; at most {MAX_SIZE})")
    if _depth(text) > MAX_DEPTH:
        raise DuelDataError(f"{label}: nested deeper than a board or aid can be (more than {MAX_DEPTH} brackets)")
    try:
        root = YAML(typ="rt").load(text)
    except YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{label}:{mark.line + 1}" if mark is not None else label
        raise DuelDataError(f"{where}: not YAML: {getattr(e, 'problem', None) or e}") from e
    except RecursionError as e:
        raise DuelDataError(f"{label}: nested too deep to read") from e
    except Exception as e:  # noqa: BLE001 -- the reader's own errors on odd input (a list as a key, huge ints)
        raise DuelDataError(f"{label}: not a YAML file pbem can read ({type(e).__name__})",
                            hint="docs/DUEL-BOARD.md describes the format") from e
    if not isinstance(root, CommentedMap):
        raise DuelDataError(f"{label}:1: the file must be a mapping (format, status, ...)",
                            hint="docs/DUEL-BOARD.md describes the format")
    return Doc(label, root)


def read(path: Path) -> Doc:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise DuelDataError(f"{path}: no such file", hint="a board folder holds board.yaml and aid.yaml") from e
    except (OSError, UnicodeDecodeError) as e:
        raise DuelDataError(f"{path}: cannot be read ({e})") from e
    return parse(text, str(path))


def check_dir(folder: Path | str, facts_path: Path = FACTS_FILE) -> list[Failure]:
    """Read FOLDER/board.yaml and FOLDER/aid.yaml and check them (the I/O around `check`)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DuelDataError(f"{folder}: not a folder", hint="give the folder that holds board.yaml and aid.yaml")
    return check(read(folder / "board.yaml"), read(folder / "aid.yaml"), read(facts_path))


# ------------------------------------------------------------------------------------------------
# failures and line numbers
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Failure:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def _line(parent: Any, key: Any) -> int | None:
    """1-based line of `key` in a ruamel mapping / sequence, or None."""
    try:
        if isinstance(parent, CommentedMap):
            return parent.lc.key(key)[0] + 1
        if isinstance(parent, CommentedSeq):
            return parent.lc.item(key)[0] + 1
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return None


def _own_line(node: Any) -> int | None:
    lc = getattr(node, "lc", None)
    line = getattr(lc, "line", None)
    return line + 1 if isinstance(line, int) else None


def unwrap(node: Any) -> Any:
    """{value: V, confidence: C, why: W} -> V (once); anything else as it is."""
    if isinstance(node, Mapping) and "value" in node and set(map(str, node)) <= WRAPPER_KEYS:
        return node["value"]
    return node


def plain(node: Any, depth: int = 0) -> Any:
    """Unwrapped plain data (dicts, lists, scalars) of a subtree."""
    node = unwrap(node)
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v, depth + 1) for v in node]
    return node


@dataclass
class Report:
    """Collects the failures of one check, each at the best line known."""

    failures: list[Failure] = field(default_factory=list)

    def fail(self, doc: Doc, line: int | None, message: str) -> None:
        self.failures.append(Failure(doc.label, line or 1, message))


def _strs(x: Any) -> list[str]:
    """The text items of a list (anything else: none)."""
    return [str(i) for i in x if isinstance(i, (str, int)) and not isinstance(i, bool)] if isinstance(x, list) else []


def _guarded(method: Any, rep: Report, doc: Doc) -> None:
    """Run one kind of check; a section of an unexpected shape becomes a failure, never a crash."""
    try:
        method()
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as e:
        rep.fail(doc, 1, f"cannot check {method.__name__}: a section has an unexpected shape ({type(e).__name__}); "
                 "docs/DUEL-BOARD.md describes the format")


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(text).lower()).strip()


# ------------------------------------------------------------------------------------------------
# the board as read
# ------------------------------------------------------------------------------------------------

@dataclass
class Area:
    id: str
    line: int
    name: str = ""
    region: str = ""
    terrain: str = ""
    population: int | None = None
    roman_forts: int = 0
    scores_nothing: bool = False
    lines: dict[str, int] = field(default_factory=dict)   # field -> line


@dataclass
class Link:
    a: str
    b: str
    line: int

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))


@dataclass
class Board:
    doc: Doc
    areas: dict[str, Area] = field(default_factory=dict)
    seas: dict[str, str] = field(default_factory=dict)         # id -> name
    borders: list[Link] = field(default_factory=list)
    coasts: list[Link] = field(default_factory=list)           # a = area, b = sea
    straits: list[Link] = field(default_factory=list)
    scoring_only: list[Link] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)        # normalised printed name / alias -> id
    section_line: dict[str, int] = field(default_factory=dict)

    def at(self, section: str) -> int:
        return self.section_line.get(section, 1)

    def passable(self) -> list[Area]:
        return [a for a in self.areas.values() if a.terrain != "impassable"]

    def neighbours(self, area: str, links: Iterable[Link]) -> set[str]:
        return {(lk.b if lk.a == area else lk.a) for lk in links if area in (lk.a, lk.b)}


def _section(doc: Doc, rep: Report, key: str, kind: type, required: bool = True) -> Any:
    node = doc.root.get(key)
    if node is None:
        if required:
            rep.fail(doc, 1, f"{key}: missing (docs/DUEL-BOARD.md lists the sections)")
        return kind()
    node = unwrap(node)
    if not isinstance(node, kind):
        rep.fail(doc, _line(doc.root, key), f"{key}: must be a {'mapping' if kind is dict else 'list'}")
        return kind()
    return node


def _pair(item: Any) -> list[Any] | None:
    v = unwrap(item)
    if isinstance(v, Mapping):
        v = unwrap(v.get("between"))
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v):
        return [str(x) for x in v]
    return None


def read_board(doc: Doc, rep: Report) -> Board:
    b = Board(doc)
    for key in doc.root:
        b.section_line[str(key)] = _line(doc.root, key) or 1
    areas = _section(doc, rep, "areas", dict)
    for aid, node in areas.items():
        line = _line(areas, aid) or 1
        aid = str(aid)
        if not isinstance(node, Mapping):
            rep.fail(doc, line, f"areas.{aid}: must be a mapping (name, region, terrain, population)")
            continue
        area = Area(aid, line, lines={str(k): _line(node, k) or line for k in node})
        for fld in ("name", "region", "terrain"):
            v = unwrap(node.get(fld))
            if not isinstance(v, str) or not v.strip():
                rep.fail(doc, area.lines.get(fld, line), f"areas.{aid}.{fld}: missing or not text")
            else:
                setattr(area, fld, v.strip())
        if area.terrain and area.terrain not in TERRAINS:
            rep.fail(doc, area.lines["terrain"], f"areas.{aid}.terrain: {area.terrain!r} is none of {', '.join(TERRAINS)}")
        pop = unwrap(node.get("population"))
        if pop is not None:
            if isinstance(pop, bool) or not isinstance(pop, int) or not 0 <= pop <= 9:
                rep.fail(doc, area.lines["population"], f"areas.{aid}.population: a whole number 0-9, not {pop!r}")
            else:
                area.population = pop
        elif area.terrain != "impassable":
            rep.fail(doc, line, f"areas.{aid}.population: missing (every passable area has one, [Phase I])")
        forts = unwrap(node.get("roman_forts", 0))
        if isinstance(forts, bool) or not isinstance(forts, int) or not 0 <= forts <= 8:
            rep.fail(doc, area.lines.get("roman_forts", line), f"areas.{aid}.roman_forts: a whole number 0-8")
        else:
            area.roman_forts = forts
        area.scores_nothing = unwrap(node.get("scores_nothing")) is True
        for conf_line, conf in _confidences(node):
            if conf not in CONFIDENCES:
                rep.fail(doc, conf_line or line, f"areas.{aid}: confidence {conf!r} is none of {', '.join(CONFIDENCES)}")
        b.areas[aid] = area
        aliases = unwrap(node.get("aliases")) or []
        for label in [area.name, *(aliases if isinstance(aliases, list) else [])]:
            if _norm(label):
                b.names.setdefault(_norm(label), aid)
    seas = _section(doc, rep, "seas", dict)
    for sid, node in seas.items():
        name = unwrap(node.get("name")) if isinstance(node, Mapping) else None
        if not isinstance(name, str):
            rep.fail(doc, _line(seas, sid), f"seas.{sid}.name: missing or not text")
            name = str(sid)
        if str(sid) in b.areas:
            rep.fail(doc, _line(seas, sid), f"seas.{sid}: the id is also a land area")
        b.seas[str(sid)] = name
        for label in (name,):
            b.names.setdefault(_norm(label), str(sid))
    b.borders = _links(doc, rep, "borders", b, land_b=True)
    b.coasts = _links(doc, rep, "coasts", b, land_b=False)
    b.straits = _links(doc, rep, "straits", b, land_b=True)
    b.scoring_only = _links(doc, rep, "scoring_only", b, land_b=True, required=False)
    return b


def _confidences(node: Mapping) -> Iterator[tuple[int | None, str]]:
    for k, v in node.items():
        if isinstance(v, Mapping) and "confidence" in v and "value" in v:
            yield _line(node, k), str(v["confidence"])


def _links(doc: Doc, rep: Report, key: str, b: Board, *, land_b: bool, required: bool = True) -> list[Link]:
    items = _section(doc, rep, key, list, required)
    out: list[Link] = []
    seen: dict[frozenset[str], int] = {}
    for i, item in enumerate(items):
        line = _line(items, i) or b.at(key)
        pair = _pair(item)
        what = "two area ids" if land_b else "an area id and a sea id"
        if pair is None:
            rep.fail(doc, line, f"{key}: each entry is [{what}] (or {{between: [...]}})")
            continue
        a, c = pair
        if a not in b.areas:
            rep.fail(doc, line, f"{key}: {a!r} is no land area of areas:")
            continue
        if land_b and c not in b.areas:
            rep.fail(doc, line, f"{key}: {c!r} is no land area of areas:")
            continue
        if not land_b and c not in b.seas:
            rep.fail(doc, line, f"{key}: {c!r} is no sea of seas:")
            continue
        if a == c:
            rep.fail(doc, line, f"{key}: {a} linked to itself")
            continue
        link = Link(a, c, line)
        if link.pair in seen:
            rep.fail(doc, line, f"{key}: {a} - {c} listed twice (also line {seen[link.pair]})")
            continue
        seen[link.pair] = line
        out.append(link)
    return out


# ------------------------------------------------------------------------------------------------
# board facts
# ------------------------------------------------------------------------------------------------

class _Facts:
    """facts.yaml, unwrapped, with the rule citation of each fact for the messages."""

    def __init__(self, doc: Doc, rep: Report, part: str) -> None:
        self.doc = doc
        node = doc.root.get(part)
        self.data = node if isinstance(node, Mapping) else {}
        if not self.data:
            rep.fail(doc, 1, f"{part}: missing from the facts file")

    def get(self, key: str) -> Any:
        return self.data.get(key)

    def items(self, key: str) -> list[Mapping]:
        v = self.data.get(key)
        return [x for x in v if isinstance(x, Mapping)] if isinstance(v, list) else []


def _cite(fact: Any) -> str:
    if not isinstance(fact, Mapping):
        return ""
    rule = fact.get("rule", "")
    kind = fact.get("kind", "")
    tail = f" ({kind})" if kind and kind != "stated" else ""
    return f" -- rulebook {rule}{tail}" if rule else ""


def _v(fact: Any) -> Any:
    return plain(fact.get("value")) if isinstance(fact, Mapping) else None


class BoardCheck:
    """Every board fact of facts.yaml; each method one kind of fact."""

    def __init__(self, board: Board, facts: _Facts, rep: Report) -> None:
        self.b, self.f, self.rep = board, facts, rep
        self.doc = board.doc

    def fail(self, line: int | None, message: str) -> None:
        self.rep.fail(self.doc, line, message)

    def area(self, name: Any, fact: Any = None) -> str | None:
        """The board's id for a printed name, or a failure (the rulebook names an area the board lacks)."""
        aid = self.b.names.get(_norm(name))
        if aid is None or aid not in self.b.areas:
            if not any(x.message.startswith(f"no land area is named {name!r}") for x in self.rep.failures):
                self.fail(self.b.at("areas"), f"no land area is named {name!r}{_cite(fact)}")
            return None
        return aid

    def sea(self, name: Any, fact: Any = None) -> str | None:
        sid = self.b.names.get(_norm(name))
        if sid is None or sid not in self.b.seas:
            self.fail(self.b.at("seas"), f"no sea is named {name!r}{_cite(fact)}")
            return None
        return sid

    def name(self, aid: str) -> str:
        if aid in self.b.areas:
            return self.b.areas[aid].name or aid
        return self.b.seas.get(aid, aid)

    def run(self) -> None:
        for method in (self.counts, self.named, self.terrain, self.population, self.regions, self.borders,
                       self.separated, self.straits, self.coasts, self.forts):
            _guarded(method, self.rep, self.doc)

    def counts(self) -> None:
        f = self.f.get("land_areas")
        if isinstance(_v(f), int) and len(self.b.areas) != _v(f):
            self.fail(self.b.at("areas"), f"{len(self.b.areas)} land areas; the rulebook's board has {_v(f)}{_cite(f)}")
        f = self.f.get("seas")
        want = {_norm(s) for s in _v(f) or []}
        have = {_norm(n) for n in self.b.seas.values()}
        if want and want != have:
            missing = sorted(s for s in _v(f) if _norm(s) not in have)
            extra = sorted(n for n in self.b.seas.values() if _norm(n) not in want)
            self.fail(self.b.at("seas"), f"the seas must be exactly {', '.join(_v(f))}"
                      + (f"; missing {', '.join(missing)}" if missing else "")
                      + (f"; not on the board: {', '.join(extra)}" if extra else "") + _cite(f))
        f = self.f.get("terrain_counts")
        for terrain, n in (_v(f) or {}).items():
            got = [a for a in self.b.areas.values() if a.terrain == terrain]
            if len(got) != n:
                self.fail(self.b.at("areas"), f"{len(got)} {terrain} areas; the rulebook's board has {n}{_cite(f)}")
        f = self.f.get("impassable")
        for name in _v(f) or []:
            aid = self.area(name, f)
            if aid and self.b.areas[aid].terrain != "impassable":
                a = self.b.areas[aid]
                self.fail(a.lines.get("terrain", a.line), f"{a.name} must be impassable{_cite(f)}")

    def named(self) -> None:
        f = self.f.get("named_areas")
        for name in _v(f) or []:
            self.area(name, f)

    def terrain(self) -> None:
        for f in self.f.items("terrain"):
            aid = self.area(f.get("area"), f)
            if aid and self.b.areas[aid].terrain != f.get("value"):
                a = self.b.areas[aid]
                self.fail(a.lines.get("terrain", a.line),
                          f"{a.name} is {a.terrain or 'no'} terrain; it must be {f.get('value')}{_cite(f)}")

    def population(self) -> None:
        exceptions: dict[str, Any] = {}
        for f in self.f.items("population"):
            aid = self.area(f.get("area"), f)
            if aid:
                exceptions[aid] = f
                a = self.b.areas[aid]
                if a.population is not None and a.population != f.get("value"):
                    self.fail(a.lines.get("population", a.line),
                              f"{a.name}'s population is {a.population}; it must be {f.get('value')}{_cite(f)}")
        f = self.f.get("population_rule")
        rule = _v(f) or {}
        for a in self.b.areas.values():
            if a.id in exceptions or a.population is None or a.terrain not in rule:
                continue
            if a.population != rule[a.terrain]:
                self.fail(a.lines.get("population", a.line), f"{a.name}'s population is {a.population}; a {a.terrain} "
                          f"area is worth {rule[a.terrain]} unless the rulebook prints another number{_cite(f)}")
        f = self.f.get("scores_nothing")
        for name in _v(f) or []:
            aid = self.area(name, f)
            if aid and not self.b.areas[aid].scores_nothing:
                a = self.b.areas[aid]
                self.fail(a.line, f"{a.name} must say `scores_nothing: true`{_cite(f)}")

    def _region_of(self, aid: str) -> str:
        return _norm(self.b.areas[aid].region)

    def regions(self) -> None:
        f = self.f.get("england_and_wales_passable")
        ew = [a for a in self.b.passable() if _norm(a.region) in ("england", "wales")]
        if isinstance(_v(f), int) and len(ew) != _v(f):
            self.fail(self.b.at("areas"), f"{len(ew)} passable areas in England and Wales (regions england, wales); "
                      f"the empire's one army in each needs {_v(f)}{_cite(f)}")
        for f in self.f.items("region_passable"):
            got = [a for a in self.b.passable() if _norm(a.region) == _norm(f.get("region"))]
            if len(got) != f.get("value"):
                self.fail(self.b.at("areas"), f"{len(got)} passable areas in region {f.get('region')}; "
                          f"it has {f.get('value')}{_cite(f)}")
        for f in self.f.items("region_members"):
            want = {x for x in (self.area(n, f) for n in _v(f) or []) if x}
            got = {a.id for a in self.b.areas.values() if _norm(a.region) == _norm(f.get("region"))}
            for aid in sorted(got - want):
                a = self.b.areas[aid]
                self.fail(a.lines.get("region", a.line), f"{a.name} is not in region {f.get('region')}{_cite(f)}")
            for aid in sorted(want - got):
                a = self.b.areas[aid]
                self.fail(a.lines.get("region", a.line), f"{a.name} must be in region {f.get('region')}{_cite(f)}")
        f = self.f.get("in_england_or_wales")
        for name in _v(f) or []:
            aid = self.area(name, f)
            if aid and self._region_of(aid) not in ("england", "wales"):
                a = self.b.areas[aid]
                self.fail(a.lines.get("region", a.line), f"{a.name} must be in England or Wales{_cite(f)}")
        for f in self.f.items("not_in_region"):
            aid = self.area(f.get("area"), f)
            if aid and self._region_of(aid) == _norm(f.get("region")):
                a = self.b.areas[aid]
                self.fail(a.lines.get("region", a.line), f"{a.name} must not be in region {f.get('region')}{_cite(f)}")

    def _pairs(self, key: str) -> Iterator[tuple[Mapping, str, str]]:
        for f in self.f.items(key):
            names = f.get("between")
            if isinstance(names, list) and len(names) == 2:
                a, c = self.area(names[0], f), self.area(names[1], f)
                if a and c:
                    yield f, a, c

    def borders(self) -> None:
        have = {lk.pair: lk for lk in self.b.borders}
        for f, a, c in self._pairs("borders"):
            if frozenset((a, c)) not in have:
                near = sorted({lk.line for lk in self.b.borders if a in (lk.a, lk.b) or c in (lk.a, lk.b)})
                hint = f" (their borders: lines {', '.join(map(str, near))})" if near else ""
                self.fail(self.b.at("borders"), f"{self.name(a)} and {self.name(c)} must border each other{hint}{_cite(f)}")
        for f, a, c in self._pairs("not_borders"):
            link = have.get(frozenset((a, c)))
            if link:
                self.fail(link.line, f"{self.name(a)} and {self.name(c)} must not border each other{_cite(f)}")
        scoring = {lk.pair: lk for lk in self.b.scoring_only}
        for f, a, c in self._pairs("scoring_only"):
            if frozenset((a, c)) not in scoring:
                self.fail(self.b.at("scoring_only") if "scoring_only" in self.b.section_line else 1,
                          f"{self.name(a)} and {self.name(c)} must be listed in scoring_only (adjacent for "
                          f"scoring though not for movement){_cite(f)}")
        for lk in self.b.scoring_only:
            if lk.pair in have:
                self.fail(lk.line, f"scoring_only: {self.name(lk.a)} and {self.name(lk.b)} already border each other")
        for lk in self.b.borders + self.b.straits:
            for end in (lk.a, lk.b):
                if end in self.b.areas and self.b.areas[end].terrain == "impassable" and lk in self.b.straits:
                    self.fail(lk.line, f"straits: {self.name(end)} is impassable; no strait can end there")

    def separated(self) -> None:
        for f in self.f.items("separates"):
            mid = self.area(f.get("area"), f)
            names = f.get("between")
            if not mid or not isinstance(names, list):
                continue
            for name in names:
                aid = self.area(name, f)
                if aid and aid not in self.b.neighbours(mid, self.b.borders):
                    self.fail(self.b.at("borders"), f"{self.name(mid)} lies between {' and '.join(names)}: "
                              f"it must border {self.name(aid)}{_cite(f)}")

    def straits(self) -> None:
        have = {lk.pair for lk in self.b.straits}
        for f, a, c in self._pairs("straits"):
            if frozenset((a, c)) not in have:
                self.fail(self.b.at("straits"), f"a strait must join {self.name(a)} and {self.name(c)}{_cite(f)}")
        for f in self.f.items("strait_ends"):
            aid = self.area(f.get("area"), f)
            if not aid:
                continue
            ends = self.b.neighbours(aid, self.b.straits)
            outside = f.get("outside_region")
            if outside:
                ends = {e for e in ends if self._region_of(e) != _norm(outside)}
            n = f.get("at_least", 1)
            if len(ends) < n:
                where = f" outside {outside}" if outside else ""
                self.fail(self.b.at("straits"), f"{len(ends)} strait(s) from {self.name(aid)}{where}; "
                          f"the rulebook needs at least {n}{_cite(f)}")

    def coasts(self) -> None:
        have = {(lk.a, lk.b) for lk in self.b.coasts}
        for f in self.f.items("coasts"):
            aid, sid = self.area(f.get("area"), f), self.sea(f.get("sea"), f)
            if aid and sid and (aid, sid) not in have:
                self.fail(self.b.at("coasts"), f"{self.name(aid)} must be on the coast of the {self.name(sid)}{_cite(f)}")
        for f in self.f.items("inland"):
            aid = self.area(f.get("area"), f)
            for lk in self.b.coasts:
                if lk.a == aid:
                    self.fail(lk.line, f"{self.name(aid)} must not be on a coast{_cite(f)}")
        for lk in self.b.coasts:
            if self.b.areas[lk.a].terrain == "impassable":
                self.fail(lk.line, f"coasts: {self.name(lk.a)} is impassable; no army can land there")

    def forts(self) -> None:
        f = self.f.get("roman_forts")
        want = {x: n for x, n in ((self.area(k, f), n) for k, n in (_v(f) or {}).items()) if x}
        for a in self.b.areas.values():
            n = want.get(a.id, 0)
            if a.roman_forts != n:
                self.fail(a.lines.get("roman_forts", a.line),
                          f"{a.name} starts with {a.roman_forts} Roman fort(s); the set-up gives it {n}{_cite(f)}")


def _symmetry(board: Board, rep: Report) -> None:
    """Structure: every passable area reaches some neighbour; no area sits in two regions (a region is a field)."""
    for a in board.passable():
        if not board.neighbours(a.id, board.borders) and not board.neighbours(a.id, board.straits):
            rep.fail(board.doc, a.line, f"areas.{a.id}: {a.name} has no border and no strait")


# ------------------------------------------------------------------------------------------------
# the aid
# ------------------------------------------------------------------------------------------------

class AidCheck:
    """Every aid fact of facts.yaml, read against the aid and the board it names ids of."""

    def __init__(self, doc: Doc, board: Board, facts: _Facts, rep: Report) -> None:
        self.doc, self.b, self.f, self.rep = doc, board, facts, rep
        self.root = doc.root
        self.nations: dict[str, Any] = {}
        self.nation_line: dict[str, int] = {}
        self.by_name: dict[str, str] = {}
        nations = unwrap(self.root.get("nations"))
        if not isinstance(nations, Mapping):
            self.fail(_line(self.root, "nations"), "nations: missing or not a mapping (one entry per nation on the aid)")
            nations = {}
        for nid, node in nations.items():
            if not isinstance(node, Mapping):
                self.fail(_line(nations, nid), f"nations.{nid}: must be a mapping")
                continue
            self.nations[str(nid)] = node
            self.nation_line[str(nid)] = _line(nations, nid) or 1
        romans = unwrap(self.root.get("romans"))
        if isinstance(romans, Mapping):
            self.nations["romans"] = romans
            self.nation_line["romans"] = _line(self.root, "romans") or 1
        for nid, node in self.nations.items():
            for label in (nid, plain(node.get("name"))):
                if isinstance(label, str):
                    self.by_name.setdefault(_norm(label), nid)

    def fail(self, line: int | None, message: str) -> None:
        self.rep.fail(self.doc, line, message)

    def at(self, key: str) -> int:
        return _line(self.root, key) or 1

    def nation(self, name: Any, fact: Any = None) -> str | None:
        nid = self.by_name.get(_norm(name))
        if nid is None:
            self.fail(self.at("nations"), f"no nation is named {name!r}{_cite(fact)}")
        return nid

    def field_line(self, nid: str, key: str) -> int:
        node = self.nations.get(nid)
        return (_line(node, key) if isinstance(node, Mapping) else None) or self.nation_line.get(nid, 1)

    def place(self, name: Any) -> str | None:
        return self.b.names.get(_norm(name))

    def run(self) -> None:
        for method in (self.rounds, self.sides, self.partners, self.units, self.limits, self.centres,
                       self.sea_centres, self.starts, self.withdrawal, self.order, self.eruption,
                       self.arrivals, self.straits, self.ids):
            _guarded(method, self.rep, self.doc)

    def rounds(self) -> None:
        f = self.f.get("rounds")
        got = plain(self.root.get("rounds"))
        if got != _v(f):
            self.fail(self.at("rounds"), f"rounds: {got!r}; the game has {_v(f)} rounds{_cite(f)}")

    def _side_lists(self) -> dict[str, tuple[list[str], int]]:
        sides = unwrap(self.root.get("sides"))
        out: dict[str, tuple[list[str], int]] = {}
        if isinstance(sides, Mapping):
            for k, v in sides.items():
                members = plain(v)
                if isinstance(members, list):
                    out[_norm(k)] = ([str(m) for m in members], _line(sides, k) or self.at("sides"))
        return out

    def sides(self) -> None:
        f = self.f.get("sides")
        lists = self._side_lists()
        for side, names in (_v(f) or {}).items():
            got = lists.get(_norm(side))
            if got is None:
                self.fail(self.at("sides"), f"sides: no side {side!r}{_cite(f)}")
                continue
            want = {self.nation(n, f) for n in names} - {None}
            have = {self.by_name.get(_norm(m), m) for m in got[0]}
            if want != have:
                self.fail(got[1], f"sides.{_norm(side).replace(' ', '_')}: must be exactly "
                          f"{', '.join(names)}{_cite(f)}")
        for nid in self.nations:
            side = plain(self.nations[nid].get("side"))
            if side is not None and _norm(side) not in lists:
                self.fail(self.field_line(nid, "side"), f"nations.{nid}.side: {side!r} is no side of sides:")
            elif side is not None and nid not in {self.by_name.get(_norm(m), m) for m in lists[_norm(side)][0]}:
                self.fail(self.field_line(nid, "side"), f"nations.{nid}.side: {side} does not list {nid}")

    def partners(self) -> None:
        f = self.f.get("partners")
        sides = unwrap(self.root.get("sides"))
        four = plain(sides.get("four_player")) if isinstance(sides, Mapping) else None
        line = (_line(sides, "four_player") if isinstance(sides, Mapping) else None) or self.at("sides")
        if not isinstance(four, Mapping):
            self.fail(line, f"sides.four_player: missing (the four partners' nations){_cite(f)}")
            return
        have = {frozenset(self.by_name.get(_norm(n), str(n)) for n in v) for v in four.values() if isinstance(v, list)}
        for names in _v(f) or []:
            want = frozenset(self.nation(n, f) for n in names)
            if want not in have:
                self.fail(line, f"sides.four_player: one partner plays exactly {', '.join(names)}{_cite(f)}")

    def units(self) -> None:
        f = self.f.get("units")
        for name, want in (_v(f) or {}).items():
            nid = self.nation(name, f)
            if not nid:
                continue
            node = self.nations[nid]
            for key in ("infantry", "cavalry"):
                got = plain(node.get(key, 0))
                if got != want.get(key):
                    self.fail(self.field_line(nid, key), f"{name}: {got!r} {key}; the unit list gives {want.get(key)}{_cite(f)}")
            got = plain(node.get("leaders")) or []
            if not isinstance(got, list) or sorted(map(_norm, _strs(got))) != sorted(map(_norm, want.get("leaders", []))):
                self.fail(self.field_line(nid, "leaders"), f"{name}: leaders must be exactly "
                          f"{', '.join(want.get('leaders', [])) or 'none'}{_cite(f)}")

    def limits(self) -> None:
        f = self.f.get("army_limits")
        for name, n in (_v(f) or {}).items():
            nid = self.nation(name, f)
            if nid and plain(self.nations[nid].get("army_limit")) != n:
                self.fail(self.field_line(nid, "army_limit"), f"{name}: army limit "
                          f"{plain(self.nations[nid].get('army_limit'))!r}; the aid prints {n}{_cite(f)}")
        f = self.f.get("army_limit_is_infantry")
        if _v(f):
            for nid, node in self.nations.items():
                lim, inf = plain(node.get("army_limit")), plain(node.get("infantry"))
                if lim != inf:
                    self.fail(self.field_line(nid, "army_limit"),
                              f"nations.{nid}.army_limit: {lim!r}, not its {inf!r} infantry{_cite(f)}")

    def _centres(self, nid: str) -> list[tuple[str, list[int] | None, int]]:
        """(place id or text, rounds or None = every round, line) of a nation's scoring_centres."""
        node = self.nations[nid].get("scoring_centres")
        items = unwrap(node)
        out = []
        if not isinstance(items, list):
            return out
        for i, item in enumerate(items):
            v = plain(item)
            line = _line(items, i) or self.field_line(nid, "scoring_centres")
            if isinstance(v, str):
                out.append((v, None, line))
            elif isinstance(v, Mapping) and isinstance(v.get("where"), str):
                rounds = v.get("rounds")
                out.append((v["where"], rounds if isinstance(rounds, list) else None, line))
            else:
                self.fail(line, f"nations.{nid}.scoring_centres: each is a place id or {{where: ID, rounds: [..]}}")
        return out

    def _centres_in(self, nid: str, rnd: int) -> set[str]:
        return {w for w, rounds, _ in self._centres(nid) if rounds is None or rnd in rounds}

    def centres(self) -> None:
        n_rounds = _v(self.f.get("rounds")) or 7
        for f in self.f.items("scoring_centres"):
            nid = self.nation(f.get("nation"), f)
            if not nid:
                continue
            want = {self.place(p) or p for p in plain(f.get("value")) or []}
            # no `rounds` in the fact: every round in which the aid gives the nation a centre (the Vikings
            # are in play from their first arrival only); there must be at least one
            rounds = f.get("rounds") or [r for r in range(1, n_rounds + 1) if self._centres_in(nid, r)] or [1]
            for rnd in rounds:
                got = self._centres_in(nid, rnd)
                if got != want:
                    names = ", ".join(plain(f.get("value")) or []) or "none"
                    self.fail(self.field_line(nid, "scoring_centres"), f"{f.get('nation')}: scoring centres in round {rnd} "
                              f"must be exactly {names}{_cite(f)}")
                    break
        for f in self.f.items("scoring_centre_added"):
            nid = self.nation(f.get("nation"), f)
            place = self.place(f.get("centre"))
            if not nid or not place:
                continue
            start = f.get("from_round", 1)
            for rnd in range(1, n_rounds + 1):
                got = self._centres_in(nid, rnd)
                if (place in got) != (rnd >= start) or (rnd >= start and len(got - {place}) != 1) or (rnd < start and not got):
                    self.fail(self.field_line(nid, "scoring_centres"), f"{f.get('nation')}: {f.get('centre')} is a second "
                              f"scoring centre from round {start} on, beside one other{_cite(f)}")
                    break
        for nid in self.nations:
            for where, _, line in self._centres(nid):
                if nid != "romans" and where not in self.b.areas and where not in self.b.seas:
                    self.fail(line, f"nations.{nid}.scoring_centres: {where!r} is no area or sea of the board")

    def sea_centres(self) -> None:
        f = self.f.get("sea_centres")
        for name in _v(f) or []:
            nid = self.nation(name, f)
            if not nid:
                continue
            for where, _, line in self._centres(nid):
                if where not in self.b.seas:
                    self.fail(line, f"{name}: scoring centre {where!r} must be a sea{_cite(f)}")
            if not self._centres(nid):
                self.fail(self.field_line(nid, "scoring_centres"), f"{name}: no scoring centre (a sea){_cite(f)}")

    def starts(self) -> None:
        for f in self.f.items("start"):
            nid = self.nation(f.get("nation"), f)
            if not nid:
                continue
            want = {self.place(k) or k: n for k, n in (plain(f.get("value")) or {}).items()}
            got = plain(self.nations[nid].get("start"))
            if not isinstance(got, Mapping) or dict(got) != want:
                shown = ", ".join(f"{n} in {k}" for k, n in (plain(f.get("value")) or {}).items())
                self.fail(self.field_line(nid, "start"), f"{f.get('nation')}: must start with {shown}{_cite(f)}")
        f = self.f.get("empty_at_start")
        for name in _v(f) or []:
            place = self.place(name)
            for nid, node in self.nations.items():
                got = plain(node.get("start"))
                if isinstance(got, Mapping) and place in got:
                    self.fail(self.field_line(nid, "start"), f"nations.{nid}.start: no army starts in {name}{_cite(f)}")

    def withdrawal(self) -> None:
        f = self.f.get("roman_withdrawal")
        rule = _v(f) or {}
        node = unwrap(self.root.get("roman_withdrawal"))
        if not isinstance(node, Mapping):
            self.fail(self.at("roman_withdrawal"), f"roman_withdrawal: missing (which nation takes each Roman area){_cite(f)}")
            return
        lists: dict[str, tuple[set[str], int]] = {}
        for k, v in node.items():
            nid = self.by_name.get(_norm(k))
            members = plain(v)
            if nid and isinstance(members, list):
                lists[nid] = ({str(m) for m in members}, _line(node, k) or self.at("roman_withdrawal"))
        ew = {a.id for a in self.b.passable() if _norm(a.region) in ("england", "wales")}
        taken: set[str] = set()
        rest_nation = None
        for name, want in rule.items():
            nid = self.nation(name, f)
            if not nid:
                continue
            if nid not in lists:
                self.fail(self.at("roman_withdrawal"), f"roman_withdrawal: no list for {name}{_cite(f)}")
                continue
            if isinstance(want, list):
                target = {self.place(n) or n for n in want}
            elif isinstance(want, Mapping):
                target = {a.id for a in self.b.passable() if _norm(a.region) == _norm(want.get("region"))}
                target |= {self.place(n) or n for n in want.get("and", [])}
            else:
                rest_nation = (name, nid)
                continue
            taken |= target
            if lists[nid][0] != target:
                shown = ", ".join(sorted(self.b.areas[x].name for x in target if x in self.b.areas))
                self.fail(lists[nid][1], f"roman_withdrawal.{nid}: must be exactly {shown}{_cite(f)}")
        if rest_nation:
            name, nid = rest_nation
            target = ew - taken
            if nid in lists and lists[nid][0] != target:
                shown = ", ".join(sorted(self.b.areas[x].name for x in target))
                self.fail(lists[nid][1], f"roman_withdrawal.{nid}: the remaining Roman areas, {shown}{_cite(f)}")
        for nid, (members, line) in lists.items():
            limit = plain(self.nations[nid].get("infantry")) if nid in self.nations else None
            if isinstance(limit, int) and len(members) > limit:
                self.fail(line, f"roman_withdrawal.{nid}: {len(members)} areas for {limit} infantry -- rulebook [Unit List]")

    def order(self) -> None:
        order = plain(self.root.get("order_of_play"))
        line = self.at("order_of_play")
        if not isinstance(order, list):
            self.fail(line, "order_of_play: missing or not a list of nation ids")
            return
        f = self.f.get("not_on_aid")
        for name in _v(f) or []:
            nid = self.by_name.get(_norm(name))
            if nid in order:
                self.fail(line, f"order_of_play: {name} are not on the player aid and have no nation turn{_cite(f)}")
        for nid in self.nations:
            if nid != "romans" and nid not in order:
                self.fail(line, f"order_of_play: {nid} is missing")
        for f in self.f.items("plays_before"):
            a, c = self.nation(f.get("first"), f), self.nation(f.get("then"), f)
            if a in order and c in order and order.index(a) > order.index(c):
                self.fail(line, f"order_of_play: {f.get('first')} must play before {f.get('then')}{_cite(f)}")

    def _leaders(self) -> Mapping:
        node = unwrap(self.root.get("leaders"))
        return node if isinstance(node, Mapping) else {}

    def eruption(self) -> None:
        leaders = self._leaders()
        for f in self.f.items("erupts_only_in"):
            found = [k for k, v in leaders.items() if isinstance(v, Mapping) and _norm(plain(v.get("name"))) == _norm(f.get("leader"))]
            if not found:
                self.fail(self.at("leaders"), f"leaders: no leader named {f.get('leader')!r}{_cite(f)}")
                continue
            for k in found:
                arrives = plain(leaders[k].get("arrives"))
                where = arrives.get("erupt_in_one_of") if isinstance(arrives, Mapping) else None
                want = {self.place(p) or p for p in plain(f.get("value")) or []}
                if not _strs(where) or not set(_strs(where)) <= want or len(_strs(where)) != len(where):
                    self.fail(_line(leaders, k), f"leaders.{k}.arrives.erupt_in_one_of: only "
                              f"{', '.join(plain(f.get('value')))}{_cite(f)}")

    def _arrivals(self) -> Iterator[tuple[int, str, dict, int]]:
        """(round, nation id, arrival, line) of the timeline."""
        timeline = unwrap(self.root.get("timeline"))
        if not isinstance(timeline, Mapping):
            return
        for rnd, rnode in timeline.items():
            rnode = unwrap(rnode)
            nations = unwrap(rnode.get("nations")) if isinstance(rnode, Mapping) else None
            if not isinstance(nations, Mapping):
                continue
            for nid, nnode in nations.items():
                nnode = unwrap(nnode)
                arr = unwrap(nnode.get("arrivals")) if isinstance(nnode, Mapping) else None
                if not isinstance(arr, list):
                    continue
                for i, item in enumerate(arr):
                    v = plain(item)
                    if isinstance(v, Mapping) and isinstance(rnd, int):
                        yield rnd, str(nid), v, _line(arr, i) or 1

    def arrivals(self) -> None:
        arrivals = list(self._arrivals())
        for f in self.f.items("two_sea_arrival"):
            nid = self.nation(f.get("nation"), f)
            want = {self.place(s) for s in plain(f.get("value")) or []}
            if nid and not any(n == nid and set(_strs(a.get("at_sea"))) == want for _, n, a, _ in arrivals):
                self.fail(self.at("timeline"), f"timeline: some {f.get('nation')} must appear in "
                          f"{'/'.join(plain(f.get('value')))} (a choice of two seas){_cite(f)}")
        for f in self.f.items("at_sea_in_round"):
            nid, sea = self.nation(f.get("nation"), f), self.place(f.get("sea"))
            if nid and not any(r == f.get("round") and n == nid and sea in _strs(a.get("at_sea"))
                               for r, n, a, _ in arrivals):
                self.fail(self.at("timeline"), f"timeline: {f.get('nation')} must be at sea in the "
                          f"{f.get('sea')} in round {f.get('round')}{_cite(f)}")
        for rnd, nid, a, line in arrivals:
            if nid not in self.nations:
                self.fail(line, f"timeline.{rnd}: {nid!r} is no nation of nations:")
            if a.get("at_sea") is not None and not _strs(a.get("at_sea")):
                self.fail(line, f"timeline.{rnd}.{nid}.at_sea: a list of sea ids")
            for sea in _strs(a.get("at_sea")):
                if sea not in self.b.seas:
                    self.fail(line, f"timeline.{rnd}.{nid}: {sea!r} is no sea of the board")
                elif not any(lk.b == sea for lk in self.b.coasts):
                    self.fail(line, f"timeline.{rnd}.{nid}: the {self.b.seas[sea]} has no coast to land on")

    def straits(self) -> None:
        for f in self.f.items("no_straits_to"):
            nid = self.nation(f.get("nation"), f)
            if not nid:
                continue
            want = {self.place(p) or p for p in plain(f.get("value")) or []}
            got = plain(self.nations[nid].get("no_straits_to"))
            if set(_strs(got)) != want:
                self.fail(self.field_line(nid, "no_straits_to"), f"{f.get('nation')}: no_straits_to must be exactly "
                          f"{', '.join(plain(f.get('value')))}{_cite(f)}")

    def ids(self) -> None:
        """Structure: each leader's nation exists and lists the leader's name."""
        leaders = self._leaders()
        for k, v in leaders.items():
            if not isinstance(v, Mapping):
                self.fail(_line(leaders, k), f"leaders.{k}: must be a mapping (name, nation, round, arrives)")
                continue
            nid, name = plain(v.get("nation")), plain(v.get("name"))
            if not isinstance(nid, str) or nid not in self.nations:
                self.fail(_line(leaders, k), f"leaders.{k}.nation: {nid!r} is no nation of nations:")
            elif _norm(name) not in map(_norm, _strs(plain(self.nations[nid].get("leaders")))):
                self.fail(_line(leaders, k), f"leaders.{k}: {name!r} is not among the {nid} leaders")


# ------------------------------------------------------------------------------------------------
# the whole check
# ------------------------------------------------------------------------------------------------

def check(board_doc: Doc, aid_doc: Doc, facts_doc: Doc) -> list[Failure]:
    """All failures of a board and aid against the facts, sorted by file and line (pure)."""
    rep = Report()
    try:
        board = read_board(board_doc, rep)
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as e:
        rep.fail(board_doc, 1, f"cannot read the board: a section has an unexpected shape ({type(e).__name__}); "
                 "docs/DUEL-BOARD.md describes the format")
        return rep.failures
    _symmetry(board, rep)
    BoardCheck(board, _Facts(facts_doc, rep, "board"), rep).run()
    AidCheck(aid_doc, board, _Facts(facts_doc, rep, "aid"), rep).run()
    order = {board_doc.label: 0, aid_doc.label: 1}
    unique = sorted(set(rep.failures), key=lambda x: (order.get(x.file, 2), x.file, x.line, x.message))
    return unique


def is_provisional(doc: Doc) -> bool:
    """The file says `status: PROVISIONAL` (the shipped reconstruction) rather than a typed-in printed board."""
    return _norm(plain(doc.root.get("status"))) == "provisional"


def read_status(folder: Path | str) -> bool:
    """True when the board or the aid of FOLDER is marked PROVISIONAL."""
    folder = Path(folder)
    return any(is_provisional(read(folder / name)) for name in ("board.yaml", "aid.yaml"))


class DuelBoardRefused(PbemError):
    """A board or aid that contradicts the Duel rulebook: every failure, one per line."""

    def __init__(self, failures: list[Failure]) -> None:
        self.failures = list(failures)
        super().__init__("the Duel board and aid contradict the rulebook:\n" + "\n".join(map(str, self.failures)),
                         hint="docs/DUEL-BOARD.md; `pbem rules check DIR` lists the same")


def require_valid(folder: Path | str) -> None:
    """For a game that names its own board folder: refuse it (DuelBoardRefused) unless every fact holds."""
    failures = check_dir(folder)
    if failures:
        raise DuelBoardRefused(failures)


@dataclass(frozen=True)
class Unsure:
    """One value of a board or aid that is not printed fact: where, how sure, why."""

    path: str
    line: int
    confidence: str
    why: str


def unsure_values(doc: Doc) -> list[Unsure]:
    """Every wrapped value of a file whose confidence is not `stated` (what a PROVISIONAL mark stands for),
    in file order: `areas.kent.terrain`, `borders.3`, ..."""
    out: list[Unsure] = []

    def walk(node: Any, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(node, Mapping):
            conf = node.get("confidence")
            if "value" in node and set(map(str, node)) <= WRAPPER_KEYS and conf not in (None, "stated"):
                out.append(Unsure(path, _own_line(node) or 1, str(conf), str(node.get("why", ""))))
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else str(k), depth + 1)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}.{i}", depth + 1)

    walk(doc.root, "", 0)
    return out
