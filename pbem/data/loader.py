"""Read a ruleset's YAML files into the immutable `Ruleset` of pbem.rules.ruleset, checking them.

The reference files (map.yaml, nations.yaml, timeline.yaml, victory_points.yaml) keep the structure
and the doubt comments of the public sources they were gathered from; ruleset.yaml says how the
classic ruleset reads them. Everything is checked on load: every name resolves, links are symmetric,
the counts of rules 2.1/2.11 hold, every nation is in the order of play, limits are positive, the
timeline and the leaders agree. A broken file raises DataError naming the file and the key.

Entry points:
  load(ruleset_id, overrides, data_version=N)   cached; the normal way (N: an earlier data version,
                                       read as ruleset.yaml `versions.N` says; a game's `created` one)
  load_from_tables(tables, ...)        uncached; builds from in-memory tables (tests, tools)
  raw_tables(ruleset_id)               fresh copies of the parsed files
  apply_overrides(tables, overrides)   per-game overrides with dotted keys (`ruleset.constants.move`)

Inline `# doubt:` comments of the files are kept, by data path, in `Ruleset.data_doubts`.
"""

from __future__ import annotations

import bisect
import copy
import difflib
import functools
import hashlib
import json
import marshal
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from pbem.data import data_path
from pbem.errors import DataError
from pbem.orders.names import normalize
from pbem.rules.ruleset import (
    Arrival,
    Constants,
    KillRule,
    LandArea,
    Landing,
    Leader,
    Nation,
    RoundInfo,
    Ruleset,
    SeaArea,
    VPCard,
    path_overlaps,
)

FILES = ("ruleset", "map", "nations", "timeline", "victory_points")
KNOWN_RULESETS = ("classic", "ffg2")
REGIONS = ("wales", "scotland", "england")
TERRAINS = ("clear", "hiland")
ARRIVAL_KINDS = ("raider", "invader", "reinforcement")
DOUBT_STATUSES = ("settled", "partly", "open")
# list-valued facts of ruleset.yaml kept beside the constants -> Ruleset.lists / constants_list(key);
# the value says what the list holds (checked on load)
LIST_KEYS = {"south_of_york": "area", "rb_departure_areas": "area"}   # 10.5; ffg2: FFG 38
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_CODE = re.compile(r"^[A-Z]{1,2}$")  # 2.21: a 1 or 2 letter nationality code

# Where a per-game override may ADD a key (anywhere else the key must already exist: a typo in an
# override must not silently do nothing).
ADDABLE = (
    "ruleset.force_limits", "ruleset.landing", "ruleset.start", "ruleset.control", "ruleset.control.*",
    "ruleset.scoring.overrides", "ruleset.aliases", "ruleset.overpopulation_exempt",
    "nations.nations.*", "nations.nations.*.forces", "map.land_areas.*", "map.seas.*", "timeline.rounds.*",
    "victory_points.nations.*", "victory_points.nations.*.kills",
)


def file_label(ruleset_id: str, name: str) -> str:
    return f"pbem/data/{ruleset_id}/{name}.yaml"


# ================================================================================================
# reading the files (parsed once per process; callers get copies)
# ================================================================================================

def _plain(node: Any) -> Any:
    """ruamel round-trip nodes -> plain dict / list / int / float / str / bool / None."""
    if isinstance(node, Mapping):
        return {_plain(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node


def _node_lines(root: Any, prefix: str) -> dict[int, str]:
    """0-based line -> the shallowest data path of a node that starts on that line."""
    lines: dict[int, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, CommentedMap):
            for k, v in node.items():
                p = f"{path}.{k}"
                try:
                    lines.setdefault(node.lc.key(k)[0], p)
                except (KeyError, TypeError, AttributeError):
                    pass
                walk(v, p)
        elif isinstance(node, CommentedSeq):
            for i, v in enumerate(node):
                p = f"{path}.{i}"
                try:
                    lines.setdefault(node.lc.item(i)[0], p)
                except (KeyError, TypeError, AttributeError, IndexError):
                    pass
                walk(v, p)

    walk(root, prefix)
    return lines


def _comment_of(line: str) -> tuple[int, str] | None:
    """(column, text after '#') of the YAML comment on a line, quotes respected; None if none."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            if ch == "'":
                if i + 1 < len(line) and line[i + 1] == "'":
                    i += 1
                else:
                    quote = ""
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = ""
        elif ch in "'\"" and (i == 0 or line[i - 1] in " \t[{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i, line[i + 1:].strip()
        i += 1
    return None


def _doubt_comments(text: str, root: Any, name: str) -> dict[str, str]:
    """Inline `# doubt:` comments -> {data path: comment}. A comment at the end of a line belongs to
    the node on that line; a comment line to the next node; the file's header block is skipped."""
    lines = _node_lines(root, name)
    starts = sorted(lines)
    notes: dict[str, str] = {}
    for n, line in enumerate(text.splitlines()):
        c = _comment_of(line)
        if c is None:
            continue
        col, comment = c
        m = re.search(r"(?<!# )\bdoubt:\s*", comment)   # not a quoted '"# doubt:"' in prose
        if not m:
            continue
        full_line = not line[:col].strip()
        if full_line and col == 0 and (not starts or n < starts[0]):
            continue   # the file's header block
        if full_line:
            k = bisect.bisect_right(starts, n)
            if k == len(starts):
                continue
            path = lines[starts[k]]
        elif n in lines:
            path = lines[n]
        else:
            k = bisect.bisect_right(starts, n) - 1
            if k < 0:
                continue
            path = lines[starts[k]]
        body = comment[m.end():] if m.start() == 0 else comment
        body = re.sub(r"\s+", " ", body).strip()
        notes[path] = f"{notes[path]} / {body}" if path in notes else body
    return notes


def _read_file(ruleset_id: str, name: str) -> tuple[dict, dict[str, str]]:
    path = data_path(ruleset_id, f"{name}.yaml")
    label = file_label(ruleset_id, name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise DataError(label, "-", "file missing") from e
    try:
        root = YAML(typ="rt").load(text)
    except YAMLError as e:
        raise DataError(label, "-", f"not valid YAML: {e}") from e
    if not isinstance(root, Mapping):
        raise DataError(label, "-", "top level must be a mapping")
    return _plain(root), _doubt_comments(text, root, name)


@functools.lru_cache(maxsize=4)
def _parsed(ruleset_id: str) -> tuple[dict[str, dict], dict[str, str]]:
    if ruleset_id not in KNOWN_RULESETS:
        raise DataError(ruleset_id, "ruleset", f"unknown ruleset; known: {', '.join(KNOWN_RULESETS)}")
    cached = _cache_read(ruleset_id)
    if cached is not None:
        return cached
    tables: dict[str, dict] = {}
    notes: dict[str, str] = {}
    for name in FILES:
        tables[name], file_notes = _read_file(ruleset_id, name)
        notes.update(file_notes)
    _cache_write(ruleset_id, (tables, notes))
    return tables, notes


# Reading the files keeps their comments (the doubts), which needs ruamel's pure-Python round-trip
# parser: about a second. Every `pbem` process needs the ruleset, so the parsed tables are kept in the
# user's cache folder (marshal: plain data only), keyed by the SHA-256 of the files' bytes.
def _cache_file(ruleset_id: str) -> Path | None:
    try:
        digest = hashlib.sha256()
        for name in FILES:
            digest.update(data_path(ruleset_id, f"{name}.yaml").read_bytes())
    except OSError:
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem"
    return base / f"{ruleset_id}-{digest.hexdigest()[:24]}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"


def _cache_read(ruleset_id: str):
    path = _cache_file(ruleset_id)
    try:
        data = marshal.loads(path.read_bytes()) if path else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    ok = isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], dict) and isinstance(data[1], dict)
    return data if ok else None


def _cache_write(ruleset_id: str, parsed) -> None:
    path = _cache_file(ruleset_id)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(marshal.dumps(parsed))
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass   # only a cache


def raw_tables(ruleset_id: str = "classic") -> dict[str, dict]:
    """Fresh (deep-copied) plain tables of the ruleset's files: {"map": {...}, ...}."""
    return copy.deepcopy(_parsed(ruleset_id)[0])


def tables_for(rs: Ruleset) -> dict[str, dict]:
    """Fresh copies of the tables a ruleset loaded by `load` was built from, its overrides applied
    (for tools that need the file layout, e.g. list positions behind the data paths of doubts)."""
    t = raw_tables(rs.id)
    if rs.latest_data_version and rs.data_version != rs.latest_data_version:
        t = dict(at_data_version(t, rs.id, rs.data_version)[0])
    apply_overrides(t, dict(rs.override_values))
    return t


def raw_notes(ruleset_id: str = "classic") -> dict[str, str]:
    """The inline `# doubt:` comments of the ruleset's files, by data path."""
    return dict(_parsed(ruleset_id)[1])


# ================================================================================================
# loading
# ================================================================================================

def load(ruleset_id: str = "classic", overrides: Mapping[str, Any] | None = None, *,
         data_version: int | None = None) -> Ruleset:
    """Load and validate; the result is cached per (ruleset, overrides, data version). `data_version`
    (a game's `created` entry) reads the files as that earlier data version did (`versions`); None or
    the current version: the files as they are."""
    try:
        key = json.dumps(overrides or {}, sort_keys=True)
    except TypeError as e:
        raise DataError("overrides", "-", f"values must be plain data (numbers, text, lists, maps): {e}") from e
    if data_version is not None and data_version == _parsed(ruleset_id)[0]["ruleset"].get("data_version"):
        data_version = None   # the current version: the one cached ruleset
    return _load_cached(ruleset_id, key, data_version)


load_ruleset = load


@functools.lru_cache(maxsize=32)
def _load_cached(ruleset_id: str, overrides_json: str, data_version: int | None = None) -> Ruleset:
    tables, notes = _parsed(ruleset_id)
    latest = tables["ruleset"].get("data_version")
    tables, note = at_data_version(tables, ruleset_id, data_version)
    rs = load_from_tables(tables, ruleset_id, json.loads(overrides_json), notes=notes)
    return _with(rs, version_note=note, latest_data_version=latest) if note else rs


# ================================================================================================
# data versions: a game keeps the rules it was created with
# ================================================================================================
# ruleset.yaml `data_version` is the version of the files; a change of how a ruleset reads (a rule
# played differently) raises it, and `versions: {N: {note, overrides}}` says how each earlier version
# N read: dotted-key overrides (as a game's, applied first) that restore the readings of then. A game
# logged under version N (its `created` entry) loads the ruleset at N, so it replays byte-identically
# and goes on being played under the rules it was created with; new games get the current version.

def data_versions(tables: Mapping[str, Any], ruleset_id: str) -> tuple[int, dict[int, dict]]:
    """(the current data version, {earlier version: {note, overrides}}) of a ruleset's tables, checked."""
    label = file_label(ruleset_id, "ruleset")
    rs = tables["ruleset"]
    current = rs.get("data_version")
    if isinstance(current, bool) or not isinstance(current, int) or current < 1:
        raise DataError(label, "data_version", f"must be a whole number of at least 1, not {current!r}")
    versions = rs.get("versions") or {}
    if not isinstance(versions, Mapping):
        raise DataError(label, "versions", "must be a mapping of earlier data versions to {note, overrides}")
    out: dict[int, dict] = {}
    for n, spec in versions.items():
        where = f"versions.{n}"
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n < current:
            raise DataError(label, where, f"an earlier data version is a whole number from 1 to {current - 1}")
        if not isinstance(spec, Mapping) or set(spec) - {"note", "overrides"}:
            raise DataError(label, where, "must be a mapping with `note` (text) and `overrides` (dotted keys)")
        if not isinstance(spec.get("note"), str) or not spec["note"].strip():
            raise DataError(label, f"{where}.note", "missing: say in a few words what this version reads differently")
        if not isinstance(spec.get("overrides") or {}, Mapping):
            raise DataError(label, f"{where}.overrides", "must be a mapping of dotted keys to values")
        out[n] = {"note": spec["note"].strip(), "overrides": dict(spec.get("overrides") or {})}
    return current, out


def at_data_version(tables: Mapping[str, Any], ruleset_id: str, data_version: int | None
                    ) -> tuple[Mapping[str, Any], str]:
    """The tables as data version `data_version` read them, and its note ('' for the current version).
    Versions between it and the current one apply too, the newest first and the asked one last, so
    each version's overrides need say only what changed after it."""
    current, versions = data_versions(tables, ruleset_id)
    if data_version is None or data_version == current:
        return tables, ""
    label = file_label(ruleset_id, "ruleset")
    if isinstance(data_version, bool) or not isinstance(data_version, int) or data_version not in versions:
        known = ", ".join(str(v) for v in [*sorted(versions), current])
        raise DataError(label, "data_version",
                        f"this pbem cannot read the {ruleset_id} rules of data version {data_version!r} (it knows {known}): "
                        "the game was made by another pbem version")
    t = copy.deepcopy(dict(tables))
    for n in sorted((v for v in versions if v >= data_version), reverse=True):
        try:
            apply_overrides(t, versions[n]["overrides"])
        except DataError as e:
            raise DataError(label, f"versions.{n}.overrides", e.message.split(": ", 2)[-1]) from e
    t["ruleset"]["data_version"] = data_version
    return t, versions[data_version]["note"]


def load_from_tables(tables: Mapping[str, Any], ruleset_id: str = "classic",
                     overrides: Mapping[str, Any] | None = None, *, notes: Mapping[str, str] | None = None
                     ) -> Ruleset:
    """Build a Ruleset from in-memory tables ({"ruleset": ..., "map": ..., ...}); nothing is cached and
    `tables` is not changed. Errors name the file as pbem/data/<ruleset_id>/<table>.yaml."""
    if not isinstance(tables, Mapping):
        raise DataError(ruleset_id, "-", "tables must be a mapping of file name -> contents")
    t = copy.deepcopy(dict(tables))
    for name in FILES:
        if name not in t:
            raise DataError(file_label(ruleset_id, name), "-", "file missing")
        if not isinstance(t[name], Mapping):
            raise DataError(file_label(ruleset_id, name), "-", "top level must be a mapping")
    overrides = dict(overrides or {})
    applied = apply_overrides(t, overrides)
    try:
        rs = build(ruleset_id, t, applied, notes=notes if notes is not None else {})
    except DataError as e:
        # a value a game override put there: say so, naming the override
        where = f"{e.file.rsplit('/', 1)[-1].removesuffix('.yaml')}.{e.key}"
        for dotted in applied:
            if path_overlaps(dotted, where):
                raise DataError("overrides", dotted, f"{e.file}: {e.key}: {e.message.split(': ', 2)[-1]}") from e
        raise
    values = {k: copy.deepcopy(overrides[k]) for k in applied}
    return _with(rs, override_values=MappingProxyType(values), digest=_digest(t))


def _with(rs: Ruleset, **changes: Any) -> Ruleset:
    import dataclasses

    return dataclasses.replace(rs, **changes)


def _canon(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _canon(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_canon(v) for v in x]
    return x


def _digest(tables: Mapping[str, Any]) -> str:
    text = json.dumps(_canon(tables), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _step(node: Any, part: str) -> tuple[bool, Any]:
    """One step of a dotted path: mapping key (text or number) or list index."""
    if isinstance(node, Mapping):
        if part in node:
            return True, part
        if re.fullmatch(r"-?\d+", part) and int(part) in node:
            return True, int(part)
        return False, part
    if isinstance(node, list) and re.fullmatch(r"\d+", part) and int(part) < len(node):
        return True, int(part)
    return False, part


def apply_overrides(tables: dict[str, dict], overrides: Mapping[str, Any]) -> tuple[str, ...]:
    """Per-game data overrides: `{"ruleset.constants.move": 3, "timeline.rounds.14.arrivals": [...]}`.

    A dotted key names the file, then the path inside it (mapping keys, numbers for numbered keys,
    list indexes); the value replaces that node whole. The key must exist, except under the tables
    listed in ADDABLE. Returns the keys applied, sorted."""
    if not isinstance(overrides, Mapping):
        raise DataError("overrides", "-", "must be a mapping of dotted keys to values")
    applied = []
    for dotted in sorted(overrides, key=str):
        value = overrides[dotted]
        parts = str(dotted).split(".")
        if parts[0] not in tables or len(parts) < 2 or not all(parts):
            raise DataError("overrides", str(dotted), f"must start with one of {', '.join(FILES)} and name a key")
        node: Any = tables[parts[0]]
        for i, p in enumerate(parts[1:-1], start=1):
            ok, key = _step(node, p)
            if not ok:
                raise DataError("overrides", dotted, f"no key {p!r} under {'.'.join(parts[:i])}{_did_you_mean(p, node)}")
            node = node[key]
        last = parts[-1]
        ok, key = _step(node, last)
        parent = ".".join(parts[:-1])
        if not ok:
            if not isinstance(node, dict):
                raise DataError("overrides", dotted, f"{parent} is not a mapping")
            if not any(path_overlaps(a, parent) and len(a.split(".")) == len(parts) - 1 for a in ADDABLE):
                raise DataError("overrides", dotted, f"no key {last!r} under {parent}{_did_you_mean(last, node)}")
            key = int(last) if re.fullmatch(r"-?\d+", last) and all(isinstance(k, int) for k in node) and node else last
        node[key] = _int_keys(copy.deepcopy(value))
        applied.append(dotted)
    return tuple(applied)


def _int_keys(v: Any) -> Any:
    """Mapping keys written as digits become numbers, as YAML reads `10:` (JSON has text keys only)."""
    if isinstance(v, Mapping):
        return {(int(k) if isinstance(k, str) and re.fullmatch(r"-?\d+", k) else k): _int_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_int_keys(x) for x in v]
    return v


def _did_you_mean(word: str, node: Any) -> str:
    if not isinstance(node, Mapping):
        return ""
    close = difflib.get_close_matches(str(word), [str(k) for k in node], n=1)
    return f" (did you mean {close[0]}?)" if close else ""


# ================================================================================================
# building and checking
# ================================================================================================

class _Ctx:
    """Reads one file, remembering where it is so errors can name the file and the key."""

    def __init__(self, ruleset_id: str, name: str) -> None:
        self.name = name
        self.file = file_label(ruleset_id, name)
        self.at = "-"

    def fail(self, key: str, msg: str) -> DataError:
        return DataError(self.file, key or "-", msg)

    def get(self, d: Any, key: Any, path: str) -> Any:
        where = f"{path}.{key}" if path else str(key)
        if not isinstance(d, Mapping):
            raise self.fail(path or "-", "must be a mapping")
        if key not in d:
            raise self.fail(where, "missing")
        self.at = where
        return d[key]

    def mapping(self, d: Any, key: Any, path: str, *, required: bool = True) -> dict:
        where = f"{path}.{key}" if path else str(key)
        if not required and (not isinstance(d, Mapping) or d.get(key) is None):
            return {}
        v = self.get(d, key, path)
        if not isinstance(v, Mapping):
            raise self.fail(where, f"must be a mapping, not {_kind(v)}")
        return v

    def seq(self, d: Any, key: Any, path: str, *, required: bool = False) -> list:
        where = f"{path}.{key}" if path else str(key)
        if not required and (not isinstance(d, Mapping) or d.get(key) is None):
            return []
        v = self.get(d, key, path)
        if not isinstance(v, list):
            raise self.fail(where, f"must be a list, not {_kind(v)}")
        return v

    def text(self, d: Any, key: Any, path: str) -> str:
        v = self.get(d, key, path)
        if not isinstance(v, str) or not v.strip():
            raise self.fail(f"{path}.{key}" if path else str(key), "must be a non-empty text")
        return v

    def integer(self, v: Any, where: str, *, minimum: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(where, f"must be a whole number, not {v!r}")
        if minimum is not None and v < minimum:
            raise self.fail(where, f"must be at least {minimum}, not {v}" if minimum != 1 else f"must be positive, not {v}")
        return v

    def ids(self, values: Any, where: str, universe: Iterable[str], what: str) -> list[str]:
        """A list of ids, each of which must be in `universe`."""
        if not isinstance(values, list):
            raise self.fail(where, f"must be a list of {what} ids, not {_kind(values)}")
        universe = list(universe)
        for v in values:
            self.one(v, where, universe, what)
        return list(values)

    def one(self, v: Any, where: str, universe: Iterable[str], what: str) -> str:
        universe = list(universe)
        if not isinstance(v, str) or v not in universe:
            close = difflib.get_close_matches(str(v), universe, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise self.fail(where, f"unknown {what} {v!r}{hint}")
        return v


def _kind(v: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a text", int: "a number", float: "a number",
            bool: "true/false", type(None): "empty"}.get(type(v), type(v).__name__)


def build(ruleset_id: str, t: dict[str, dict], applied: tuple[str, ...] = (), *,
          notes: Mapping[str, str] | None = None) -> Ruleset:
    """Tables -> Ruleset, checking everything. Any malformed value becomes a DataError naming file and key."""
    ctxs = {name: _Ctx(ruleset_id, name) for name in FILES}
    current = ["ruleset"]
    try:
        return _build(ruleset_id, t, applied, dict(notes or {}), ctxs, current)
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:   # safety net
        ctx = ctxs[current[0]]
        raise ctx.fail(ctx.at, f"malformed ({type(e).__name__}: {e})") from e


def _build(ruleset_id, t, applied, notes, ctxs, current) -> Ruleset:
    rc = ctxs["ruleset"]
    rs = t["ruleset"]
    file_id = rc.text(rs, "id", "")
    if file_id != ruleset_id:
        raise rc.fail("id", f"is {file_id!r} but the ruleset is {ruleset_id!r}")
    name = rc.text(rs, "name", "")
    data_version = rc.integer(rc.get(rs, "data_version", ""), "data_version", minimum=1)
    constants = _constants(rc, rs)
    family = _family_name(rc, rs)
    const = _typed_constants(rc, constants, family)
    max_rounds = constants["max_rounds"]
    extra_aliases = _extra_aliases(rc, rs)

    current[0] = "map"
    areas, seas = _build_map(ctxs["map"], t["map"], extra_aliases)
    _check_counts(rc, rs, areas, seas)

    current[0] = "nations"
    nc = ctxs["nations"]
    order_key = rc.text(rs, "order_of_play", "")
    orders = nc.mapping(t["nations"], "order_of_play", "")
    if order_key not in orders:
        raise rc.fail("order_of_play", f"nations.yaml order_of_play has no list {order_key!r}")
    order_raw = nc.seq(orders, order_key, "order_of_play", required=True)
    raw_nations = nc.mapping(t["nations"], "nations", "")
    for i, nid in enumerate(order_raw):
        nc.one(nid, f"order_of_play.{order_key}.{i}", raw_nations, "nation")
    if len(set(order_raw)) != len(order_raw):
        dup = next(n for n in order_raw if order_raw.count(n) > 1)
        raise nc.fail(f"order_of_play.{order_key}", f"lists {dup} twice")
    missing = [n for n in raw_nations if n not in order_raw]
    if missing:
        raise nc.fail(f"order_of_play.{order_key}", f"must list every nation; missing {', '.join(missing)}")
    order = tuple(order_raw)
    current[0] = "timeline"
    where_b = _leader_places(ctxs["timeline"], t["timeline"], areas)
    current[0] = "nations"
    leaders: dict[str, Leader] = {}
    nations = _build_nations(nc, rc, raw_nations, rs, order, areas, seas, leaders, extra_aliases, where_b,
                             max_rounds)

    current[0] = "timeline"
    rounds = _build_rounds(ctxs["timeline"], t["timeline"], max_rounds, nations, seas, areas, leaders)

    current[0] = "victory_points"
    scoring = _scoring(rc, rs, nations, leaders, max_rounds)
    vp = _build_vp(ctxs["victory_points"], t["victory_points"], scoring, nations, areas, leaders, max_rounds)

    current[0] = "ruleset"
    control = _control(rc, nc, rs, t["nations"], nations)
    submission = _submission(rc, rs, nations, areas)
    overpop = _overpopulation(rc, rs, nations, max_rounds)
    lists = {}
    for key, kind in LIST_KEYS.items():
        if key in rs:
            universe = {"area": areas, "sea": seas, "nation": nations, "leader": leaders}[kind]
            lists[key] = tuple(rc.ids(rs[key], key, universe, kind))
    doubts = _doubts(rc, rs, t)
    settled = _settled(rc, rs, notes)
    features = dict(rc.mapping(rs, "features", "", required=False))
    optional, not_playable = _optional_rules(rc, rs, features)
    roles = _roles(rc, rs, {"area": areas, "sea": seas, "nation": nations, "leader": leaders})
    extras = _extras(ctxs["timeline"], t, nations, max_rounds)
    local = _local_names(ruleset_id, {"area": areas, "sea": seas, "nation": nations, "leader": leaders})
    _unique_names(rc, areas, seas, nations, leaders, local, ruleset_id)
    for k in extra_aliases:
        if k not in areas and k not in seas and k not in nations and k not in leaders:
            raise rc.fail(f"aliases.{k}", "unknown id")

    return Ruleset(
        id=ruleset_id,
        name=name,
        data_version=data_version,
        latest_data_version=data_version,
        areas=MappingProxyType(areas),
        seas=MappingProxyType(seas),
        nations=MappingProxyType(nations),
        order_of_play=order,
        rounds=MappingProxyType(rounds),
        vp=MappingProxyType(vp),
        constants=MappingProxyType(constants),
        scoring=MappingProxyType(scoring),
        submission=MappingProxyType(submission),
        overpopulation_exempt=MappingProxyType(overpop),
        control=MappingProxyType(control),
        doubts=doubts,
        leaders=MappingProxyType(leaders),
        overrides=applied,
        lists=MappingProxyType(lists),
        data_doubts=MappingProxyType(dict(notes)),
        settled=MappingProxyType(settled),
        features=MappingProxyType(features),
        extras=MappingProxyType(extras),
        roles=MappingProxyType(roles),
        const=const,
        family=family,
        optional_rules=MappingProxyType(optional),
        not_playable=not_playable,
        local_names=MappingProxyType({lang: MappingProxyType(t) for lang, t in local.items()}),
    )


def _optional_rules(rc: _Ctx, rs: Mapping[str, Any], features: dict[str, Any]
                    ) -> tuple[dict[str, Any], tuple[Mapping[str, Any], ...]]:
    """ruleset.yaml `optional_rules` (name -> rule, name, play, text, feature) and `not_playable`
    (rule, name, why). A rule in play (`play: true`, from game.yaml `options`) adds its `feature` to
    the ruleset's features."""
    out: dict[str, Any] = {}
    for key, d in rc.mapping(rs, "optional_rules", "", required=False).items():
        where = f"optional_rules.{key}"
        if not isinstance(d, Mapping) or not all(isinstance(d.get(k), str) for k in ("rule", "name", "text")):
            raise rc.fail(where, "must be a mapping with rule, name, text (strings), play and feature")
        if not isinstance(d.get("play", False), bool):
            raise rc.fail(f"{where}.play", "must be true or false")
        feature = d.get("feature")
        if not isinstance(feature, Mapping) or not feature:
            raise rc.fail(f"{where}.feature", "must be a mapping of feature names to values")
        if d.get("play"):
            features.update(feature)
        out[key] = MappingProxyType({**d, "play": bool(d.get("play")), "feature": MappingProxyType(dict(feature))})
    rows = rs.get("not_playable") or []
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) and all(isinstance(r.get(k), str) for k in
                                                                          ("rule", "name", "why")) for r in rows):
        raise rc.fail("not_playable", "must be a list of mappings with rule, name, why")
    return out, tuple(MappingProxyType(dict(r)) for r in rows)


def _typed_constants(rc: _Ctx, constants: Mapping[str, Any], family: str) -> Constants:
    """ruleset.yaml `constants` as the family's typed constants class (pbem/rules/rulesets): a missing,
    mistyped or unknown key is an error naming the file and key."""
    from pbem.rules.rulesets import FAMILIES

    return FAMILIES[family].constants_class.from_data(constants, rc.fail)


def _family_name(rc: _Ctx, rs: dict) -> str:
    """ruleset.yaml `family`: the registered rules family (pbem/rules/rulesets) playing the ruleset's own rules."""
    from pbem.rules.rulesets import (
        FAMILIES,  # the family modules import the rules engine, which imports this one
    )

    name = rc.text(rs, "family", "")
    if name not in FAMILIES:
        raise rc.fail("family", f"unknown rules family {name!r}; known: {', '.join(sorted(FAMILIES))}")
    return name


def _roles(rc: _Ctx, rs: dict, universes: Mapping[str, Mapping]) -> dict[str, Any]:
    """ruleset.yaml `roles`: which of this ruleset's nations, leaders, areas and seas play the parts
    the shared engine names (`empire: romans`); every value an id of the data (or a list of ids)."""
    known = {k: v for u in universes.values() for k, v in u.items()}
    out: dict[str, Any] = {}
    for key, value in rc.mapping(rs, "roles", "", required=False).items():
        for ident in (value if isinstance(value, list) else [value]):
            if ident not in known:
                raise rc.fail(f"roles.{key}", f"unknown id {ident!r}")
        out[key] = tuple(value) if isinstance(value, list) else value
    return out


def _extras(tc: _Ctx, t: dict, nations, max_rounds: int) -> dict[str, Any]:
    """Ruleset-specific tables: timeline.yaml `roman_reinforcements.table` (FFG 31) as
    {round: ((low, high, armies), ...)}, and the leaders that enter with armies (nations.yaml
    `arrives_with: {armies: N}` without a sea: Boudicca, FFG 34) as {leader: armies}, and those that
    bring cavalry (`arrives_with: {cavalry: N}`: Arthur, FFG 39) as {leader: cavalry}."""
    out: dict[str, Any] = {}
    rr = t["timeline"].get("roman_reinforcements")
    if isinstance(rr, Mapping) and "table" in rr:
        rounds: dict[int, list] = {}
        for key, row in tc.mapping(rr, "table", "roman_reinforcements").items():
            where = f"roman_reinforcements.table.{key}"
            lo, _, hi = str(key).rstrip("+").partition("-")
            try:
                low, high = int(lo), (10 ** 6 if str(key).endswith("+") else int(hi or lo))
            except ValueError:
                raise tc.fail(where, "must be N or N-M (Roman armies)") from None
            if not isinstance(row, list):
                raise tc.fail(where, "must list the reinforcements per round")
            for i, n in enumerate(row):
                rounds.setdefault(2 + i, []).append((low, high, tc.integer(n, f"{where}.{i}", minimum=0)))
        out["roman_reinforcements"] = {r: tuple(v) for r, v in rounds.items()}
    armies, cavalry = {}, {}
    for n in (t["nations"].get("nations") or {}).values():
        for ld in (n.get("leaders") or []) if isinstance(n, Mapping) else []:
            w = ld.get("arrives_with") if isinstance(ld, Mapping) else None
            if isinstance(w, Mapping) and w.get("armies") and "sea" not in w:
                armies[ld["id"]] = int(w["armies"])
            if isinstance(w, Mapping) and w.get("cavalry") and "sea" not in w:
                cavalry[ld["id"]] = int(w["cavalry"])   # FFG 39: Arthur's 2 cavalry
    out["leader_armies"] = armies
    out["leader_cavalry"] = cavalry
    return out


# --- ruleset.yaml pieces -------------------------------------------------------------------------

def _positive_numbers(ctx: _Ctx, v: Any, where: str) -> None:
    """Every leaf a positive number (constants are numbers, lists of numbers or maps of numbers)."""
    if isinstance(v, bool) or not isinstance(v, int | float | list | Mapping):
        raise ctx.fail(where, f"must be a positive number, not {v!r}")
    if isinstance(v, int | float):
        if v <= 0:
            raise ctx.fail(where, f"must be positive, not {v}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _positive_numbers(ctx, x, f"{where}.{i}")
    else:
        for k, x in v.items():
            _positive_numbers(ctx, x, f"{where}.{k}")


def _constants(rc: _Ctx, rs: dict) -> dict[str, Any]:
    constants = rc.mapping(rs, "constants", "")
    for k, v in constants.items():
        _positive_numbers(rc, v, f"constants.{k}")
    rc.integer(rc.get(constants, "max_rounds", "constants"), "constants.max_rounds", minimum=1)
    for k in ("move", "move_fast", "stack_clear", "stack_hiland"):
        if k in constants:
            rc.integer(constants[k], f"constants.{k}", minimum=1)
    for k in ("hit", "hit_hard"):
        if k in constants and not (isinstance(constants[k], int) and 1 <= constants[k] <= 6):
            raise rc.fail(f"constants.{k}", f"must be a die face 1-6, not {constants[k]!r}")
    return dict(constants)


def _extra_aliases(rc: _Ctx, rs: dict) -> dict[str, tuple[str, ...]]:
    out = {}
    for k, v in rc.mapping(rs, "aliases", "", required=False).items():
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            raise rc.fail(f"aliases.{k}", "must be a list of names")
        out[str(k)] = tuple(v)
    return out


def _check_counts(rc: _Ctx, rs: dict, areas: dict[str, LandArea], seas: dict[str, SeaArea]) -> None:
    expected = rc.mapping(rs, "map_counts", "", required=False)
    found = _map_counts(areas, seas)
    for k, v in expected.items():
        if k not in found:
            raise rc.fail(f"map_counts.{k}", f"unknown count; known: {', '.join(found)}")
        if v != found[k]:
            raise rc.fail(f"map_counts.{k}", f"the rules say {v} but map.yaml has {found[k]}")


def _map_counts(areas: dict[str, LandArea], seas: dict[str, SeaArea]) -> dict[str, int]:
    return {
        "land_areas": len(areas), "seas": len(seas),
        "wales": sum(a.region == "wales" for a in areas.values()),
        "scotland": sum(a.region == "scotland" for a in areas.values()),
        "england": sum(a.region == "england" for a in areas.values()),
        "hiland": sum(a.hiland for a in areas.values()),
        "clear": sum(not a.hiland for a in areas.values()),
        "land_land_borders": sum(len(a.land) for a in areas.values()) // 2,
        "straits": sum(len(a.straits) for a in areas.values()) // 2,
        "land_sea_borders": sum(len(a.seas) for a in areas.values()),
        "sea_sea_borders": sum(len(s.seas) for s in seas.values()) // 2,
        "coastal_areas": sum(a.coastal for a in areas.values()),
        "inland_areas": sum(not a.coastal for a in areas.values()),
    }


def _control(rc: _Ctx, nc: _Ctx, rs: dict, tn: dict, nations: dict[str, Nation]) -> dict:
    control = {}
    raw = rc.mapping(rs, "control", "")
    for n, table in raw.items():
        where = f"control.{n}"
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(nations):
            raise rc.fail(where, f"player count must be a whole number from 1 to {len(nations)} (the nations)")
        if not isinstance(table, Mapping) or len(table) != n:
            raise rc.fail(where, f"must map {n} player colours to their nations")
        sets = {}
        for colour, ns in table.items():
            sets[str(colour)] = tuple(rc.ids(ns, f"{where}.{colour}", nations, "nation"))
        listed = [x for ns in sets.values() for x in ns]
        for nid in nations:
            if listed.count(nid) != 1:
                raise rc.fail(where, f"must list every nation exactly once; {nid} is listed {listed.count(nid)} times")
        control[int(n)] = MappingProxyType(sets)
    if not control:
        raise rc.fail("control", "missing: one table of player colours -> nations per player count")
    # the table that names the nations' colours (nations.yaml colour_4p): the 4-player one when there is
    # one (the classic rules, 1.0: three to five players), else the one of the most players
    n_col = 4 if 4 in control else max(control)
    # the 4-player sets are attested in nations.yaml (13.0 table missing): both files must agree
    ref = nc.mapping(nc.mapping(tn, "control", "", required=False), "four_players", "control", required=False)
    for k, v in ref.items():
        if isinstance(v, list):
            nc.ids(v, f"control.four_players.{k}", nations, "nation")
    ref_sets = sorted(sorted(v) for k, v in ref.items() if isinstance(v, list))
    if ref_sets and ref_sets != sorted(sorted(v) for v in control[n_col].values()):
        raise rc.fail(f"control.{n_col}", "does not match nations.yaml control.four_players")
    for colour, ns in control[n_col].items():   # a nation's colour (nations.yaml colour_4p.ah) is its set's
        for nid in ns:
            if nations[nid].colour != colour:
                raise nc.fail(f"nations.{nid}.colour_4p.ah",
                              f"is {nations[nid].colour!r} but ruleset.yaml control.{n_col} puts the {nid} in {colour}")
    return control


def _submission(rc: _Ctx, rs: dict, nations, areas) -> dict:
    sub = rc.mapping(rs, "submission", "")
    for nid, v in rc.mapping(sub, "to_romans", "submission").items():
        rc.one(nid, "submission.to_romans", nations, "nation")
        rc.integer(v, f"submission.to_romans.{nid}", minimum=1)
    for nid, v in rc.mapping(sub, "to_angles", "submission", required=False).items():
        where = f"submission.to_angles.{nid}"
        rc.one(nid, "submission.to_angles", nations, "nation")
        rc.integer(rc.get(v, "fewer_than", where), f"{where}.fewer_than", minimum=1)
        rc.ids(rc.seq(v, "count_in", where), f"{where}.count_in", REGIONS, "region")
        rc.ids(rc.seq(v, "plus", where), f"{where}.plus", areas, "area")
    for key in ("rounds", "points", "revolt"):   # FFG 34: per-nation rounds, points to Rome, revolt round
        for nid, v in rc.mapping(sub, key, "submission", required=False).items():
            rc.one(nid, f"submission.{key}", nations, "nation")
            for i, r in enumerate(v if key == "rounds" else [v]):
                rc.integer(r, f"submission.{key}.{nid}" + (f".{i}" if key == "rounds" else ""), minimum=1)
    return dict(sub)


def _overpopulation(rc: _Ctx, rs: dict, nations, max_rounds: int) -> dict:
    raw = rc.mapping(rs, "overpopulation_exempt", "", required=False)
    for nid, when in raw.items():
        where = f"overpopulation_exempt.{nid}"
        rc.one(nid, "overpopulation_exempt", nations, "nation")
        if when != "all":
            _rounds_list(rc, when, where, max_rounds)
    return dict(raw)


def _rounds_list(ctx: _Ctx, v: Any, where: str, max_rounds: int) -> list[int]:
    if not isinstance(v, list) or not v:
        raise ctx.fail(where, "must be a non-empty list of turns")
    for i, r in enumerate(v):
        ctx.integer(r, f"{where}.{i}", minimum=1)
        if r > max_rounds:
            raise ctx.fail(f"{where}.{i}", f"turn {r} is after the last turn ({max_rounds})")
    return list(v)


def _scoring(rc: _Ctx, rs: dict, nations, leaders, max_rounds: int) -> dict:
    sc = rc.mapping(rs, "scoring", "")
    hold = _rounds_list(rc, rc.get(sc, "hold_rounds", "scoring"), "scoring.hold_rounds", max_rounds)
    table = rc.get(sc, "vp_table_rounds", "scoring")
    if not isinstance(table, list) or len(table) != len(hold):
        raise rc.fail("scoring.vp_table_rounds", f"must list {len(hold)} rounds, one per holding occasion")
    if hold != sorted(set(hold)):
        raise rc.fail("scoring.hold_rounds", "must be increasing")
    limes = rc.integer(rc.get(sc, "limes_round", "scoring"), "scoring.limes_round", minimum=1)
    if limes > max_rounds:
        raise rc.fail("scoring.limes_round", "after the last turn")
    for k, v in rc.mapping(sc, "awards", "scoring").items():
        rc.integer(v, f"scoring.awards.{k}", minimum=1)
    for k in ("bretwalda", "king"):
        if k not in sc["awards"]:
            raise rc.fail(f"scoring.awards.{k}", "missing")
    for nid, v in rc.mapping(sc, "king_turn16", "scoring").items():
        rc.one(nid, "scoring.king_turn16", nations, "nation")
        rc.integer(v, f"scoring.king_turn16.{nid}", minimum=1)
    for nid, lid in rc.mapping(sc, "king_turn16_leaders", "scoring").items():
        where = f"scoring.king_turn16_leaders.{nid}"
        rc.one(nid, "scoring.king_turn16_leaders", nations, "nation")
        rc.one(lid, where, leaders, "leader")
        if leaders[lid].nation != nid:
            raise rc.fail(where, f"{lid} is a leader of the {leaders[lid].nation}, not the {nid}")
    for k in ("bretwalda_rounds", "king_rounds"):
        _rounds_list(rc, rc.get(sc, k, "scoring"), f"scoring.{k}", max_rounds)
    over = rc.mapping(sc, "overrides", "scoring", required=False)
    if "angles_roman_fort_kill" in over:
        rc.integer(over["angles_roman_fort_kill"], "scoring.overrides.angles_roman_fort_kill", minimum=1)
    if "norsemen_capture_rounds" in over:
        _rounds_list(rc, over["norsemen_capture_rounds"], "scoring.overrides.norsemen_capture_rounds", max_rounds)
    if over.get("scots_army_kills_of", "any_other_nation") != "any_other_nation":
        raise rc.fail("scoring.overrides.scots_army_kills_of", "only any_other_nation is understood")
    return dict(sc)


def _exists(tables: Any, path: str) -> bool:
    def walk(node: Any, parts: list[str]) -> bool:
        if not parts:
            return True
        p, rest = parts[0], parts[1:]
        if p == "*":
            children = list(node.values()) if isinstance(node, Mapping) else node if isinstance(node, list) else []
            return any(walk(c, rest) for c in children)
        ok, key = _step(node, p)
        return ok and walk(node[key], rest)

    return walk(tables, path.split("."))


def _doubts(rc: _Ctx, rs: dict, t: dict) -> tuple[Mapping[str, Any], ...]:
    out = []
    seen = set()
    for i, d in enumerate(rc.seq(rs, "doubts", "")):
        where = f"doubts.{i}"
        if not isinstance(d, Mapping):
            raise rc.fail(where, "must be a mapping with n, topic, status, resolution, refs")
        n = rc.get(d, "n", where)
        if isinstance(n, bool) or not (isinstance(n, int) and n > 0 or isinstance(n, str) and n.strip()):
            raise rc.fail(f"{where}.n", f"must be a doubt number or label, not {n!r}")
        if n in seen:
            raise rc.fail(f"{where}.n", f"doubt {n} is listed twice")
        seen.add(n)
        rc.text(d, "topic", where)
        rc.text(d, "resolution", where)
        if "short" in d:
            rc.text(d, "short", where)
        status = d.get("status", "open")
        if status not in DOUBT_STATUSES:
            raise rc.fail(f"{where}.status", f"must be one of {', '.join(DOUBT_STATUSES)}, not {status!r}")
        refs = d.get("refs", [])
        if not isinstance(refs, list):
            raise rc.fail(f"{where}.refs", "must be a list of data paths")
        for ref in refs:
            if not isinstance(ref, str) or not _exists(t, ref):
                raise rc.fail(f"{where}.refs", f"no data at {ref!r}")
        out.append(MappingProxyType({**d, "status": status, "refs": tuple(refs)}))
    return tuple(out)


def _settled(rc: _Ctx, rs: dict, notes: Mapping[str, str]) -> dict[str, str]:
    raw = rc.mapping(rs, "settled", "", required=False)
    for path, why in raw.items():
        if not isinstance(why, str) or not why.strip():
            raise rc.fail(f"settled.{path}", "must say which rule settles it")
        if notes and path not in notes:
            raise rc.fail(f"settled.{path}", "there is no inline doubt comment at that path")
    return {str(k): v for k, v in raw.items()}


def _unique_names(rc: _Ctx, areas, seas, nations, leaders, local=None, ruleset_id: str = "") -> None:
    """Ids unique across kinds, and no name, alias or (names.<language>.yaml) local name or case form
    that means two things (the resolver needs it)."""
    owner: dict[str, str] = {}
    for table in (areas, seas, nations, leaders):
        for ident, thing in table.items():
            if not _ID.match(ident):
                raise rc.fail(ident, "ids are lower_snake")
            for name in (ident, thing.name, *thing.aliases):
                key = normalize(name)
                if not key:
                    raise rc.fail(ident, f"name {name!r} has no letters")
                if owner.setdefault(key, ident) != ident:
                    raise rc.fail(f"aliases.{ident}", f"name {name!r} also means {owner[key]}")
    for lang, table in (local or {}).items():
        for ident, spellings in table.items():
            for name in spellings:
                key = normalize(name)
                if owner.setdefault(key, ident) != ident:
                    raise DataError(names_label(ruleset_id, lang), ident,
                                    f"name {name!r} also means {owner[key]}")


# --- names.<language>.yaml -------------------------------------------------------------------------

LANGUAGES = ("ru",)       # the languages of names files a ruleset may have
_NAME_KINDS = {"areas": "area", "seas": "sea", "nations": "nation", "leaders": "leader"}


def names_label(ruleset_id: str, lang: str) -> str:
    return f"pbem/data/{ruleset_id}/names.{lang}.yaml"


@functools.lru_cache(maxsize=8)
def _names_file(ruleset_id: str, lang: str) -> dict | None:
    """The parsed names file (plain data), None when the ruleset has none."""
    label = names_label(ruleset_id, lang)
    try:
        text = data_path(ruleset_id, f"names.{lang}.yaml").read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise DataError(label, "-", f"unreadable: {e}") from e
    try:
        root = YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        raise DataError(label, "-", f"not valid YAML: {e}") from e
    if not isinstance(root, Mapping):
        raise DataError(label, "-", "top level must be a mapping")
    if root.get("language") != lang:
        raise DataError(label, "language", f"must be {lang!r}")
    return _plain(root)


def _local_names(ruleset_id: str, universe: Mapping[str, Mapping]) -> dict[str, dict[str, tuple[str, ...]]]:
    """language -> id -> (name, aliases, their case forms, listed forms) from names.<language>.yaml.
    An id the built ruleset lacks (a test's cut-down tables) is left out; pbem/orders/declension.py
    makes the case forms."""
    from pbem.orders.declension import forms

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for lang in LANGUAGES:
        raw = _names_file(ruleset_id, lang)
        if raw is None:
            continue
        label = names_label(ruleset_id, lang)
        table: dict[str, tuple[str, ...]] = {}
        for section, kind in _NAME_KINDS.items():
            entries = raw.get(section) or {}
            if not isinstance(entries, Mapping):
                raise DataError(label, section, "must be a mapping of ids to names")
            for ident, e in entries.items():
                where = f"{section}.{ident}"
                if not isinstance(e, Mapping) or not isinstance(e.get("name"), str) or not e["name"].strip():
                    raise DataError(label, where, "must be a mapping with a `name`")
                extra = [e.get("aliases") or [], e.get("forms") or []]
                if not all(isinstance(x, list) and all(isinstance(a, str) and a.strip() for a in x) for x in extra):
                    raise DataError(label, where, "aliases and forms must be lists of names")
                if ident not in universe[kind]:
                    continue
                plural = bool(e.get("plural", False))
                spellings: dict[str, None] = {}
                for name in (e["name"], *extra[0]):
                    spellings.update(dict.fromkeys(forms(name, plural=plural)))
                spellings.update(dict.fromkeys(extra[1]))
                table[str(ident)] = tuple(spellings)
        out[lang] = table
    return out


# --- map.yaml ------------------------------------------------------------------------------------

def _aliases(ctx: _Ctx, d: Mapping, where: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    raw = d.get("aliases") or []
    if not isinstance(raw, list) or not all(isinstance(a, str) and a.strip() for a in raw):
        raise ctx.fail(f"{where}.aliases", "must be a list of names")
    return tuple(dict.fromkeys([*raw, *extra]))


def _build_map(ctx: _Ctx, m: dict, extra_aliases) -> tuple[dict[str, LandArea], dict[str, SeaArea]]:
    raw_land = ctx.mapping(m, "land_areas", "")
    raw_seas = ctx.mapping(m, "seas", "")
    for sid in raw_seas:
        if sid in raw_land:
            raise ctx.fail(f"seas.{sid}", "is also a land area")
    areas: dict[str, LandArea] = {}
    for aid, a in raw_land.items():
        path = f"land_areas.{aid}"
        if not isinstance(aid, str) or not _ID.match(aid):
            raise ctx.fail(path, "ids are lower_snake")
        if not isinstance(a, Mapping):
            raise ctx.fail(path, "must be a mapping")
        terrain = ctx.get(a, "terrain", path)
        if terrain not in TERRAINS:
            raise ctx.fail(f"{path}.terrain", f"must be clear or hiland, not {terrain!r}")
        region = ctx.get(a, "region", path)
        if region not in REGIONS:
            raise ctx.fail(f"{path}.region", f"must be one of {', '.join(REGIONS)}, not {region!r}")
        land = ctx.ids(a.get("land") or [], f"{path}.land", raw_land, "area")
        straits = ctx.ids(a.get("straits") or [], f"{path}.straits", raw_land, "area")
        sea_ids = ctx.ids(a.get("seas") or [], f"{path}.seas", raw_seas, "sea")
        for key, vals in (("land", land), ("straits", straits), ("seas", sea_ids)):
            if aid in vals:
                raise ctx.fail(f"{path}.{key}", "an area cannot border itself")
            if len(set(vals)) != len(vals):
                raise ctx.fail(f"{path}.{key}", "lists a place twice")
        both = set(land) & set(straits)
        if both:
            raise ctx.fail(f"{path}.straits", f"{sorted(both)[0]} is both a land neighbour and a strait")
        areas[aid] = LandArea(
            id=aid, name=ctx.text(a, "name", path), aliases=_aliases(ctx, a, path, extra_aliases.get(aid, ())),
            region=region, terrain=terrain, land=frozenset(land), straits=frozenset(straits),
            seas=frozenset(sea_ids),
        )
    seas: dict[str, SeaArea] = {}
    for sid, s in raw_seas.items():
        path = f"seas.{sid}"
        if not isinstance(sid, str) or not _ID.match(sid):
            raise ctx.fail(path, "ids are lower_snake")
        if not isinstance(s, Mapping):
            raise ctx.fail(path, "must be a mapping")
        nb = ctx.ids(s.get("seas") or [], f"{path}.seas", raw_seas, "sea")
        coast = ctx.ids(s.get("coast") or [], f"{path}.coast", raw_land, "area")
        if sid in nb:
            raise ctx.fail(f"{path}.seas", "a sea cannot border itself")
        seas[sid] = SeaArea(id=sid, name=ctx.text(s, "name", path), aliases=_aliases(ctx, s, path, extra_aliases.get(sid, ())),
                            seas=frozenset(nb), coast=frozenset(coast))
    # every link is listed on both ends
    for aid, a in areas.items():
        for n in sorted(a.land):
            if aid not in areas[n].land:
                raise ctx.fail(f"land_areas.{n}.land", f"must list {aid} (adjacency is symmetric)")
        for n in sorted(a.straits):
            if aid not in areas[n].straits:
                raise ctx.fail(f"land_areas.{n}.straits", f"must list {aid} (straits are symmetric)")
        for s in sorted(a.seas):
            if aid not in seas[s].coast:
                raise ctx.fail(f"seas.{s}.coast", f"must list {aid} (it lists {s} among its seas)")
    for sid, s in seas.items():
        for n in sorted(s.seas):
            if sid not in seas[n].seas:
                raise ctx.fail(f"seas.{n}.seas", f"must list {sid} (adjacency is symmetric)")
        for a in sorted(s.coast):
            if sid not in areas[a].seas:
                raise ctx.fail(f"land_areas.{a}.seas", f"must list {sid} (its coast lists {a})")
    _map_blocks(ctx, m, areas, seas)
    return areas, seas


def _map_blocks(ctx: _Ctx, m: dict, areas: dict[str, LandArea], seas: dict[str, SeaArea]) -> None:
    """The summary blocks of map.yaml (regions, straits, four corners, meta.counts) agree with the areas."""
    regions = ctx.mapping(m, "regions", "", required=False)
    for region, ids in regions.items():
        if region not in REGIONS:
            raise ctx.fail(f"regions.{region}", f"unknown region; regions are {', '.join(REGIONS)}")
        ctx.ids(ids, f"regions.{region}", areas, "area")
        actual = sorted(a for a, v in areas.items() if v.region == region)
        if sorted(ids) != actual:
            diff = sorted(set(ids) ^ set(actual))
            raise ctx.fail(f"regions.{region}", f"disagrees with the areas' region fields about {', '.join(diff)}")
    straits = ctx.seq(m, "straits", "")
    for i, pair in enumerate(straits):
        where = f"straits.{i}"
        ctx.ids(pair, where, areas, "area")
        if len(pair) != 2 or pair[1] not in areas[pair[0]].straits:
            raise ctx.fail(where, "must be two areas whose `straits` list each other")
    if straits:
        listed = {frozenset(p) for p in straits}
        actual = {frozenset((a, b)) for a, v in areas.items() for b in v.straits}
        if listed != actual:
            raise ctx.fail("straits", "must list exactly the straits of the land areas")
    corners = ctx.mapping(m, "four_corners", "", required=False)
    for i, pair in enumerate(ctx.seq(corners, "not_adjacent", "four_corners")):
        where = f"four_corners.not_adjacent.{i}"
        ctx.ids(pair, where, areas, "area")
        if len(pair) != 2 or pair[1] in areas[pair[0]].land:
            raise ctx.fail(where, "these areas meet at a point only and must not be land neighbours (5.14)")
    counts = ctx.mapping(ctx.mapping(m, "meta", "", required=False), "counts", "meta", required=False)
    found = _map_counts(areas, seas)
    for k, v in counts.items():
        if k in found and v != found[k]:
            raise ctx.fail(f"meta.counts.{k}", f"says {v} but the file has {found[k]}")


# --- nations.yaml --------------------------------------------------------------------------------

def _forces(ctx: _Ctx, nat: Mapping, kind: str, where: str, keys: tuple[str, ...] = ()) -> int:
    forces = nat.get("forces") or {}
    if not isinstance(forces, Mapping):
        raise ctx.fail(f"{where}.forces", "must be a mapping of piece kind -> count")
    f = forces.get(kind) or {}
    if isinstance(f, int) and not isinstance(f, bool):
        return ctx.integer(f, f"{where}.forces.{kind}", minimum=0)
    if not isinstance(f, Mapping):
        raise ctx.fail(f"{where}.forces.{kind}", "must be a number or a mapping of source -> number")
    for key in (*keys, "ah", "ffg_a", "ffg_timeline_a", "b_cap"):
        if key in f:
            return ctx.integer(f[key], f"{where}.forces.{kind}.{key}", minimum=0)
    return 0


def _leader_places(tc: _Ctx, tt: dict, areas) -> dict[str, str]:
    """timeline leaders' `where_b` (Oswiu in Bernicia, Offa in North Mercia) -> Leader.place_in."""
    out = {}
    rounds = tt.get("rounds") if isinstance(tt, Mapping) else None
    if not isinstance(rounds, Mapping):
        return out
    for r, d in rounds.items():
        lds = d.get("leaders") if isinstance(d, Mapping) else None
        for i, ld in enumerate(lds if isinstance(lds, list) else []):
            key = "where_b" if isinstance(ld, Mapping) and "where_b" in ld else "where"   # ffg2: `where` (FFG 24)
            if isinstance(ld, Mapping) and ld.get(key) is not None and isinstance(ld.get("leader"), str):
                out[ld["leader"]] = tc.one(ld[key], f"rounds.{r}.leaders.{i}.{key}", areas, "area")
    return out


def _build_nations(ctx, rc, raw, rs: dict, order, areas, seas, leaders_out, extra_aliases, where_b,
                   max_rounds) -> dict[str, Nation]:
    never = rc.ids(rs.get("never_increase_population") or [], "never_increase_population", raw, "nation")
    no_sea = rc.ids(rs.get("no_sea_moves") or [], "no_sea_moves", raw, "nation")
    landing = rc.mapping(rs, "landing", "", required=False)
    codes = rc.mapping(rs, "codes", "")
    start_override = rc.mapping(rs, "start", "", required=False)
    limits_all = rc.mapping(rs, "force_limits", "", required=False)
    colour_key = rc.text(rs, "colour_key", "") if "colour_key" in rs else "ah"   # nations.yaml colour_4p.<key>
    fkeys = tuple(rc.seq(rs, "forces_keys", "")) if "forces_keys" in rs else ()
    forbidden = rc.mapping(rs, "forbidden_seas", "", required=False)
    for nid, ss in forbidden.items():
        rc.one(nid, "forbidden_seas", raw, "nation")
        rc.ids(ss, f"forbidden_seas.{nid}", seas, "sea")
    for key, table in (("landing", landing), ("codes", codes), ("start", start_override),
                       ("force_limits", limits_all)):
        for nid in table:
            rc.one(nid, key, raw, "nation")
    seen_codes: dict[str, str] = {}
    for nid in order:
        code = codes.get(nid)
        if not isinstance(code, str) or not _CODE.match(code):
            raise rc.fail(f"codes.{nid}", f"must be a 1 or 2 letter code (2.21), not {code!r}")
        if seen_codes.setdefault(code, nid) != nid:
            raise rc.fail(f"codes.{nid}", f"code {code} is also the {seen_codes[code]}' code")
    nations = {}
    for i, nid in enumerate(order):
        n = raw[nid]
        path = f"nations.{nid}"
        if not isinstance(n, Mapping):
            raise ctx.fail(path, "must be a mapping")
        # start (3.0): ruleset.yaml `start` wins; else one army in each start area
        if nid in start_override:
            start = {}
            for place, count in rc.mapping(start_override, nid, "start").items():
                rc.one(place, f"start.{nid}", [*areas, *seas], "area or sea")
                start[place] = rc.integer(count, f"start.{nid}.{place}", minimum=1)
        else:
            start_raw = ctx.mapping(n, "start", path, required=False)
            start = {a: 1 for a in ctx.ids(start_raw.get("areas") or [], f"{path}.start.areas", areas, "area")}
        land = landing.get(nid) or {}
        if not isinstance(land, Mapping):
            raise rc.fail(f"landing.{nid}", "must be a mapping with areas and/or from_seas")
        land_areas = rc.ids(land.get("areas") or [], f"landing.{nid}.areas", areas, "area")
        from_seas = rc.ids(land.get("from_seas") or [], f"landing.{nid}.from_seas", seas, "sea")
        for a in land_areas:
            if not areas[a].coastal:
                raise rc.fail(f"landing.{nid}.areas", f"{a} is not coastal")
            if from_seas and not areas[a].seas & set(from_seas):
                raise rc.fail(f"landing.{nid}.areas", f"{a} borders none of {', '.join(from_seas)}")
        leaders = []
        for j, ld in enumerate(ctx.seq(n, "leaders", path)):
            lpath = f"{path}.leaders.{j}"
            if not isinstance(ld, Mapping):
                raise ctx.fail(lpath, "must be a mapping with id, name, round")
            lid = ctx.text(ld, "id", lpath)
            if not _ID.match(lid):
                raise ctx.fail(f"{lpath}.id", "ids are lower_snake")
            if lid in leaders_out:
                raise ctx.fail(f"{lpath}.id", f"leader {lid} is listed twice")
            rnd = ctx.integer(ctx.get(ld, "round", lpath), f"{lpath}.round", minimum=1)
            if rnd > max_rounds:
                raise ctx.fail(f"{lpath}.round", f"turn {rnd} is after the last turn")
            place = where_b.get(lid)
            # leader rounds are doubts only for the classic rules (seed 001 has no chart); ffg2 reads the board
            proven = "S001" in str(ld.get("sources", "")) or "seed 001" not in str(rs.get("source", ""))
            doubt = "" if proven else "round from A and B (FFG data), not in seed 001"
            if place and not proven:
                doubt += f"; placed only in {areas[place].name}, if the {ctx.text(n, 'name', path)} hold it (B)"
            leader = Leader(
                id=lid, name=ctx.text(ld, "name", lpath), nation=nid, round=rnd,
                aliases=_aliases(ctx, ld, lpath, extra_aliases.get(lid, ())),
                stays_until_end=bool(ld.get("stays_until_end", False)), place_in=place, doubt=doubt,
            )
            leaders.append(leader)
            leaders_out[lid] = leader
        limits = limits_all.get(nid) or {}
        if not isinstance(limits, Mapping):
            raise rc.fail(f"force_limits.{nid}", "must be a mapping (armies, cavalry)")
        max_armies = (rc.integer(limits["armies"], f"force_limits.{nid}.armies", minimum=1) if "armies" in limits
                      else _forces(ctx, n, "armies", path, fkeys))
        if max_armies <= 0:
            raise ctx.fail(f"{path}.forces.armies", "must be positive")
        max_cavalry = (rc.integer(limits["cavalry"], f"force_limits.{nid}.cavalry", minimum=0) if "cavalry" in limits
                       else _forces(ctx, n, "cavalry", path, fkeys))
        start_total = sum(start.values())
        if start_total > max_armies:
            raise ctx.fail(f"{path}.start", f"{start_total} starting armies but only {max_armies} pieces")
        colour = ctx.text(ctx.mapping(n, "colour_4p", path), colour_key, f"{path}.colour_4p")
        nations[nid] = Nation(
            id=nid, name=ctx.text(n, "name", path), aliases=_aliases(ctx, n, path, extra_aliases.get(nid, ())),
            code=codes[nid], colour=str(colour), order=i, max_armies=max_armies, max_cavalry=max_cavalry,
            max_forts=_forces(ctx, n, "forts", path, fkeys), max_burhs=_forces(ctx, n, "burhs", path, fkeys),
            start=MappingProxyType(start), increases_population=nid not in never,
            landing=Landing(
                areas=frozenset(land_areas) if land_areas else None,
                from_seas=frozenset(from_seas) if from_seas else None,
                forbidden_seas=frozenset(forbidden.get(nid) or ()),
            ),
            sea_moves=nid not in no_sea, leaders=tuple(leaders),
            notes=tuple(str(x) for x in ctx.seq(n, "notes", path)),
        )
    return nations


# --- timeline.yaml -------------------------------------------------------------------------------

def _build_rounds(ctx, t: dict, max_rounds: int, nations, seas, areas, leaders) -> dict[int, RoundInfo]:
    raw = ctx.mapping(t, "rounds", "")
    extra = [r for r in raw if not (isinstance(r, int) and 1 <= r <= max_rounds)]
    if extra:
        raise ctx.fail(f"rounds.{extra[0]}", f"rounds are numbered 1 to {max_rounds}")
    rounds = {}
    placed: dict[str, int] = {}
    prev_end = None
    for r in range(1, max_rounds + 1):
        path = f"rounds.{r}"
        d = ctx.mapping(raw, r, "rounds")
        years = d.get("years") or [0, 0]
        if (not isinstance(years, list) or len(years) != 2
                or not all(isinstance(y, int) and not isinstance(y, bool) for y in years) or years[0] > years[1]):
            raise ctx.fail(f"{path}.years", "must be [first year, last year]")
        if prev_end is not None and years[0] < prev_end:
            raise ctx.fail(f"{path}.years", f"starts before the previous turn ends ({prev_end})")
        prev_end = years[1]
        arrivals = []
        for i, a in enumerate(ctx.seq(d, "arrivals", path)):
            apath = f"{path}.arrivals.{i}"
            if not isinstance(a, Mapping):
                raise ctx.fail(apath, "must be a mapping")
            nid = ctx.one(a.get("nation"), f"{apath}.nation", nations, "nation")
            kind = a.get("kind", "invader")
            if kind not in ARRIVAL_KINDS:
                raise ctx.fail(f"{apath}.kind", f"must be one of {', '.join(ARRIVAL_KINDS)}, not {kind!r}")
            sea = a.get("sea")
            if sea is None and kind != "reinforcement":
                raise ctx.fail(f"{apath}.sea", "missing (only a reinforcement has no sea)")
            if sea is not None:
                ctx.one(sea, f"{apath}.sea", seas, "sea")
            armies = ctx.integer(a.get("armies", 0), f"{apath}.armies", minimum=0)
            cavalry = ctx.integer(a.get("cavalry", 0), f"{apath}.cavalry", minimum=0)
            nat = nations[nid]
            if armies + cavalry == 0:
                raise ctx.fail(apath, "brings no units")
            if armies > nat.max_armies:
                raise ctx.fail(f"{apath}.armies", f"{armies} is more than the {nat.name}' {nat.max_armies} army pieces")
            if cavalry > nat.max_cavalry:
                raise ctx.fail(f"{apath}.cavalry", f"{cavalry} is more than the {nat.name}' {nat.max_cavalry} cavalry pieces")
            if sea is not None and nat.landing.from_seas is not None and sea not in nat.landing.from_seas:
                raise ctx.fail(f"{apath}.sea", f"the {nat.name} land only from {', '.join(sorted(nat.landing.from_seas))}")
            if nat.start.get(sea or "", 0) and r == 1:
                continue  # rule 3.0: the nation starts at sea there (15 Romans); no arrival on top of them
            arrivals.append(Arrival(nation=nid, armies=armies, cavalry=cavalry, sea=sea, raider=kind == "raider"))
        lds = []
        for i, ld in enumerate(ctx.seq(d, "leaders", path)):
            lpath = f"{path}.leaders.{i}"
            if not isinstance(ld, Mapping):
                raise ctx.fail(lpath, "must be a mapping with nation and leader")
            lid = ctx.one(ld.get("leader"), f"{lpath}.leader", leaders, "leader")
            nid = ctx.one(ld.get("nation"), f"{lpath}.nation", nations, "nation")
            if leaders[lid].nation != nid:
                raise ctx.fail(f"{lpath}.nation", f"{lid} is a leader of the {leaders[lid].nation}")
            if leaders[lid].round != r:
                raise ctx.fail(lpath, f"{lid} enters in turn {leaders[lid].round} according to nations.yaml")
            if lid in placed:
                raise ctx.fail(lpath, f"{lid} already enters in turn {placed[lid]}")
            placed[lid] = r
            lds.append((nid, lid))
        major = ctx.ids(d.get("major_invasions") or [], f"{path}.major_invasions", nations, "nation")
        boats = ctx.ids(d.get("boats") or [], f"{path}.boats", nations, "nation")
        note_key = "ah" if "ah" in d else "special"   # ffg2's timeline calls them `special`
        notes = d.get(note_key) or []
        if not isinstance(notes, list):
            raise ctx.fail(f"{path}.{note_key}", "must be a list of texts")
        rounds[r] = RoundInfo(
            number=r, years=(years[0], years[1]), arrivals=tuple(arrivals),
            major_invasions=frozenset(major), leaders=tuple(lds),
            boats=frozenset(boats), notes=tuple(str(x) for x in notes),
        )
    for lid, leader in leaders.items():
        if lid not in placed:
            raise ctx.fail(f"rounds.{leader.round}.leaders", f"leader {lid} of nations.yaml never enters")
    return rounds


# --- victory_points.yaml -------------------------------------------------------------------------

def _rounds(ctx: _Ctx, spec: Any, where: str, max_rounds: int) -> frozenset[int]:
    if spec in (None, "any"):
        return frozenset()
    if isinstance(spec, str) and re.fullmatch(r"\d+-\d+", spec):
        lo, hi = (int(x) for x in spec.split("-"))
        if not 1 <= lo <= hi <= max_rounds:
            raise ctx.fail(where, f"bad turn range {spec!r}")
        return frozenset(range(lo, hi + 1))
    if isinstance(spec, list):
        return frozenset(_rounds_list(ctx, spec, where, max_rounds))
    raise ctx.fail(where, f"must be 'any', 'A-B' or a list of turns, not {spec!r}")


def _points_table(ctx: _Ctx, points: Any, path: str, areas) -> dict[str, int]:
    """{value: [areas]} -> {area: value}; an area listed twice keeps its higher value (doubt 19)."""
    if not isinstance(points, Mapping):
        raise ctx.fail(path, "must map points to lists of areas")
    out: dict[str, int] = {}
    for value, names in points.items():
        ctx.integer(value, f"{path}.{value}", minimum=1)
        for a in ctx.ids(names, f"{path}.{value}", areas, "area"):
            out[a] = max(out.get(a, 0), int(value))
    return out


SUBJECTS_ATTACKING = "subject_nations_that_attacked_romano_british"   # R-B card (FFG 41)
_EXCEPT_OWN_TURN = re.compile(r"^the \w+ turn of round (\d+)$")   # "the Belgae turn of round 1"


def _turn_limits(ctx: _Ctx, kr: Mapping, kpath: str, max_rounds: int) -> dict[str, Any]:
    """FFG 52 — `own_turn_only: true` (kills in the killer's own turn only) and `except: 'the <nation> turn
    of round N'` (not in the killer's own turn of round N)."""
    out: dict[str, Any] = {"own_turn_only": bool(kr.get("own_turn_only", False))}
    if "except" in kr:
        m = _EXCEPT_OWN_TURN.match(str(kr["except"]))
        if not m:
            raise ctx.fail(f"{kpath}.except", "must read 'the <nation> turn of round N'")
        out["not_own_turn_rounds"] = _rounds(ctx, [int(m.group(1))], f"{kpath}.except", max_rounds)
    return out


def _build_vp(ctx, t: dict, scoring: dict, nations, areas, leaders, max_rounds: int) -> dict[str, VPCard]:
    raw = ctx.mapping(t, "nations", "")
    for nid in raw:
        ctx.one(nid, "nations", nations, "nation")
    table_rounds = list(scoring["vp_table_rounds"])
    over = scoring.get("overrides") or {}
    cards = {}
    for nid in nations:
        n = raw.get(nid) or {}
        path = f"nations.{nid}"
        if not isinstance(n, Mapping):
            raise ctx.fail(path, "must be a mapping")
        hold: dict[int, dict[str, int]] = {}
        for i, entry in enumerate(ctx.seq(n, "hold", path)):
            hpath = f"{path}.hold.{i}"
            rbs = ctx.seq(entry, "rounds_b", hpath, required=True)
            table = _points_table(ctx, ctx.get(entry, "points", hpath), f"{hpath}.points", areas)
            for rb in rbs:
                if rb not in table_rounds:
                    raise ctx.fail(f"{hpath}.rounds_b", f"{rb} is not a scoring round ({table_rounds})")
                occasion = table_rounds.index(rb) + 1
                if occasion in hold:
                    raise ctx.fail(f"{hpath}.rounds_b", f"round {rb} has two holding tables")
                hold[occasion] = table
        capture = []
        for i, entry in enumerate(ctx.seq(n, "capture", path)):
            cpath = f"{path}.capture.{i}"
            rounds = _rounds(ctx, ctx.get(entry, "rounds_b", cpath), f"{cpath}.rounds_b", max_rounds)
            if nid == "norsemen" and "norsemen_capture_rounds" in over:
                rounds = frozenset(over["norsemen_capture_rounds"])   # 14.2 (doubt 16)
            table = _points_table(ctx, ctx.get(entry, "points", cpath), f"{cpath}.points", areas)
            capture.append((rounds, MappingProxyType(table)))
        limes: dict[str, int] = {}
        for i, entry in enumerate(ctx.seq(n, "limes", path)):
            limes = _points_table(ctx, ctx.get(entry, "points", f"{path}.limes.{i}"), f"{path}.limes.{i}.points", areas)
        kills = []
        k = ctx.mapping(n, "kills", path, required=False)
        known_kinds = {"armies", "cavalry", "roman_forts", "leaders", "none"}
        for kind in k:
            if kind not in known_kinds:
                raise ctx.fail(f"{path}.kills.{kind}", f"unknown kind; kinds are {', '.join(sorted(known_kinds))}")
        for kind in ("armies", "cavalry", "roman_forts", "leaders"):
            for i, kr in enumerate(ctx.seq(k, kind, f"{path}.kills")):
                if not isinstance(kr, Mapping):
                    raise ctx.fail(f"{path}.kills.{kind}.{i}", "must be a mapping with points and rounds_b")
        for kind in ("armies", "cavalry"):
            for i, kr in enumerate(ctx.seq(k, kind, f"{path}.kills")):
                kpath = f"{path}.kills.{kind}.{i}"
                of = kr.get("of")
                if of in (None, "any_other_nation", "any_enemy_nation", SUBJECTS_ATTACKING):
                    of_set = None
                else:
                    of_set = frozenset(ctx.ids(of, f"{kpath}.of", nations, "nation"))
                if nid == "scots" and of_set is not None and over.get("scots_army_kills_of") == "any_other_nation":
                    of_set = None   # doubt 21: read as any other nation
                pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
                kills.append(KillRule(kind, pts, _rounds(ctx, kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                      of=of_set, of_attacking_subjects=of == SUBJECTS_ATTACKING,
                                      **_turn_limits(ctx, kr, kpath, max_rounds)))
        for i, kr in enumerate(ctx.seq(k, "roman_forts", f"{path}.kills")):
            kpath = f"{path}.kills.roman_forts.{i}"
            pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
            if nid == "angles" and "angles_roman_fort_kill" in over:
                pts = int(over["angles_roman_fort_kill"])   # 8.4 example
            kills.append(KillRule("roman_forts", pts, _rounds(ctx, kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                  **_turn_limits(ctx, kr, kpath, max_rounds)))
        for i, kr in enumerate(ctx.seq(k, "leaders", f"{path}.kills")):
            kpath = f"{path}.kills.leaders.{i}"
            who = ctx.get(kr, "leader", kpath)
            names = who if isinstance(who, list) else [who]
            ctx.ids(names, f"{kpath}.leader", leaders, "leader")
            pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
            kills.append(KillRule("leaders", pts, _rounds(ctx, kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                  leaders=frozenset(names)))
        cards[nid] = VPCard(
            nation=nid, hold=MappingProxyType({o: MappingProxyType(v) for o, v in sorted(hold.items())}),
            capture=tuple(capture), kills=tuple(kills), limes=MappingProxyType(limes),
        )
    return cards
