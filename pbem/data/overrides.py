"""Per-game data overrides (dotted keys) and the ruleset's data versions, which are overrides too.

A game may change a ruleset's data for itself (game.yaml `overrides`, `--set` of `pbem new`):
`{"ruleset.constants.move": 3, "timeline.rounds.14.arrivals": [...]}`, each key naming the file and
the path inside it. A ruleset's earlier data versions (ruleset.yaml `versions`) say, as such
overrides, how the files read then.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Mapping
from typing import Any

from pbem.data.read import FILES, file_label
from pbem.errors import DataError
from pbem.rules.ruleset import path_overlaps

# Where a per-game override may ADD a key (anywhere else the key must already exist: a typo in an
# override must not silently do nothing).
ADDABLE = (
    "ruleset.force_limits", "ruleset.landing", "ruleset.start", "ruleset.control", "ruleset.control.*",
    "ruleset.scoring.overrides", "ruleset.aliases", "ruleset.overpopulation_exempt",
    "nations.nations.*", "nations.nations.*.forces", "map.land_areas.*", "map.seas.*", "timeline.rounds.*",
    "victory_points.nations.*", "victory_points.nations.*.kills",
)

# --- data versions: a game keeps the rules it was created with -----------------------------------
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

def exists(tables: Any, path: str) -> bool:
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
