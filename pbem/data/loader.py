"""Load a ruleset: its YAML files read, checked and built into the immutable `Ruleset` of
pbem.rules.ruleset. The entry points; the work is done by the modules beside this one:

  folders.py    where rulesets live: every folder with a ruleset.yaml (the package's, PBEM_RULESETS)
  read.py       reading the files: plain data and their `# doubt:` comments
  cache.py      the parsed files kept between processes (the comment-keeping parser is slow)
  overrides.py  a game's dotted-key overrides and the ruleset's earlier data versions
  schema.py     the common checks of ruleset.yaml; tables.py those of the other four files; the
                sections only one rules family reads are checked by its Rules.schema
                (pbem/rules/rulesets/schema.py)

Entry points:
  load(ruleset_id, overrides, data_version=N)   cached; the normal way (N: an earlier data version,
                                       read as ruleset.yaml `versions.N` says; a game's `created` one)
  load_from_tables(tables, ...)        uncached; builds from in-memory tables (tests, tools)
  raw_tables(ruleset_id)               fresh copies of the parsed files
  apply_overrides(tables, overrides)   per-game overrides with dotted keys (`ruleset.constants.move`)
  known_rulesets()                     the ids of every ruleset found
  add_folder(path)                     rulesets outside the package, for this process

A broken file raises DataError naming the file and the key. Inline `# doubt:` comments of the files
are kept, by data path, in `Ruleset.data_doubts`.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pbem.data import cache, folders
from pbem.data.folders import add_folder, known_rulesets  # noqa: F401  (entry points)
from pbem.data.overrides import ADDABLE, apply_overrides, at_data_version, data_versions  # noqa: F401
from pbem.data.read import FILES, file_label, names_file, names_label, read_file  # noqa: F401
from pbem.data.schema import build  # noqa: F401
from pbem.errors import DataError
from pbem.rules.ruleset import Ruleset, path_overlaps

_names_file = names_file   # the parsed names.<language>.yaml of a ruleset (tests read it)


# --- the files, parsed once per process (callers get copies) -------------------------------------

@functools.lru_cache(maxsize=8)
def _parsed(ruleset_id: str) -> tuple[dict[str, dict], dict[str, str]]:
    folders.folder(ruleset_id)   # DataError naming the known rulesets when there is no such one
    cached = cache.read(ruleset_id)
    if cached is not None:
        return cached
    tables: dict[str, dict] = {}
    notes: dict[str, str] = {}
    for name in FILES:
        tables[name], file_notes = read_file(ruleset_id, name)
        notes.update(file_notes)
    cache.write(ruleset_id, (tables, notes))
    return tables, notes


def clear_caches() -> None:
    """Forget what this process has read and built (after a ruleset's files or folders changed)."""
    _parsed.cache_clear()
    _load_cached.cache_clear()
    names_file.cache_clear()


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


# --- loading ---------------------------------------------------------------------------------------

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
        rs = build(ruleset_id, t, applied, notes=notes if notes is not None else {},
                   names=lambda rid, lang: _names_file(rid, lang))   # looked up here: tests replace it
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
