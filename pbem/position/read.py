"""The `setup:` and `state:` blocks of conformance cases and position files, read into a GameState.

One reader for both: a case and a position file differ only in how they report a bad key (a case names
the file and key, a position file the line). The caller passes a `Source` that resolves names and fails.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn, Protocol

from pbem.rules.state import GameState, Stack

# keys of `state:`; every one is optional and takes its start-of-game value when absent
STATE_KEYS = ("population", "vp", "forts_built", "raided_from", "captured", "subjects", "submitted",
              "dead_leaders", "leader_killed_by", "bretwalda", "kings", "roman_permission", "standing",
              "danes_withdraw_shortfall", "attacked_romano_british")


class Source(Protocol):
    """Where the blocks come from: resolves a name to an id and reports a bad key."""

    def name(self, text: Any, key: str, kinds: tuple[str, ...] = ("area", "sea")) -> str: ...

    def fail(self, key: str, msg: str) -> NoReturn: ...


def plain(x: Any) -> Any:
    """Plain dicts and lists (of a YAML tree that may hold ruamel's commented containers)."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def read_setup(src: Source, setup: Any, state: GameState) -> dict[tuple[str, str], str]:
    """Fill `state.areas` from `setup:` ({area: {nation: pieces}}, CASES.md). Returns the key of each
    stack read, {(area id, nation id): "setup.<area>.<nation>"}, so findings can name their line."""
    keys: dict[tuple[str, str], str] = {}
    if setup is None:
        return keys
    if not isinstance(setup, dict):
        src.fail("setup", "must map areas to their pieces")
    for area_name, nations in setup.items():
        area = src.name(area_name, f"setup.{area_name}")
        if nations is None:
            continue
        if not isinstance(nations, dict):
            src.fail(f"setup.{area_name}", "must map nations to pieces")
        for nat_name, pieces in nations.items():
            key = f"setup.{area_name}.{nat_name}"
            nation = src.name(nat_name, key, ("nation",))
            if (area, nation) in keys:
                src.fail(key, f"the {nat_name} are listed twice in {area_name}")
            if isinstance(pieces, dict) and isinstance(pieces.get("leaders"), str):
                pieces = {**pieces, "leaders": [pieces["leaders"]]}   # one leader without brackets
            try:
                stack = Stack.from_dict(pieces)
            except (ValueError, TypeError, OverflowError) as e:
                src.fail(key, str(e))
            stack.leaders = [src.name(x, f"{key}.leaders", ("leader",)) for x in stack.leaders]
            state.areas.setdefault(area, {})[nation] = stack
            keys[(area, nation)] = key
    return keys


def _names(src: Source, value: Any, key: str, kinds: tuple[str, ...] = ("area", "sea")) -> list[str]:
    """A list of names (one name alone is a list of one)."""
    if value is None:
        return []
    if isinstance(value, dict):
        src.fail(key, "must be a list of names")
    if not isinstance(value, list):
        value = [value]
    return [src.name(x, key, kinds) for x in value]


def _nations(src: Source, value: Any, key: str) -> list[str]:
    return _names(src, value, key, ("nation",))


def _mapping(src: Source, value: Any, key: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        src.fail(key, "must be a mapping")
    return value


def _number(src: Source, value: Any, key: str, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        src.fail(key, f"must be a number, not {value!r}")
    if kind is int and value != int(value):
        src.fail(key, f"must be a whole number, not {value!r}")
    return kind(value)


def read_state(src: Source, st: Any, state: GameState, *, allowed: tuple[str, ...] = STATE_KEYS) -> None:
    """Fill the scores and records of `state` from `state:` (CASES.md): saved population counts (10.1),
    VP so far, forts ever built (10.4), raiders' seas (7.1), capture points taken, subject nations (11),
    dead leaders (9.2), Bretwalda and Kings so far (12), Roman permissions (11.1), standing orders."""
    st = _mapping(src, st, "state")
    unknown = [k for k in st if k not in allowed]
    if unknown:
        src.fail(f"state.{sorted(map(str, unknown))[0]}", "unknown key")
    for nat, v in _mapping(src, st.get("population"), "state.population").items():
        state.population[src.name(nat, f"state.population.{nat}", ("nation",))] = \
            _number(src, v, f"state.population.{nat}", float)
    for nat, v in _mapping(src, st.get("vp"), "state.vp").items():
        state.vp[src.name(nat, f"state.vp.{nat}", ("nation",))] = _number(src, v, f"state.vp.{nat}", int)
    state.forts_built = set(_names(src, st.get("forts_built"), "state.forts_built"))
    for nat, sea in _mapping(src, st.get("raided_from"), "state.raided_from").items():
        state.raided_from[src.name(nat, f"state.raided_from.{nat}", ("nation",))] = \
            src.name(sea, f"state.raided_from.{nat}")
    for nat, areas in _mapping(src, st.get("captured"), "state.captured").items():
        state.captured[src.name(nat, f"state.captured.{nat}", ("nation",))] = \
            set(_names(src, areas, f"state.captured.{nat}"))
    for block in ("subjects", "submitted"):   # CASES.md says `submitted`, older cases `subjects`
        for nat, over in _mapping(src, st.get(block), f"state.{block}").items():
            state.subjects[src.name(nat, f"state.{block}.{nat}", ("nation",))] = \
                src.name(over, f"state.{block}.{nat}", ("nation",))
    state.dead_leaders = set(_names(src, st.get("dead_leaders"), "state.dead_leaders", ("leader",)))
    for ld, nat in _mapping(src, st.get("leader_killed_by"), "state.leader_killed_by").items():
        state.leader_killed_by[src.name(ld, f"state.leader_killed_by.{ld}", ("leader",))] = \
            src.name(nat, f"state.leader_killed_by.{ld}", ("nation",))
    if st.get("bretwalda") not in (None, "none"):   # round cases write `none`
        state.bretwalda = src.name(st["bretwalda"], "state.bretwalda", ("nation",))
    state.kings = _nations(src, st.get("kings"), "state.kings")
    if st.get("roman_permission") is not None:
        _set_record(state, "roman_permission", set(_nations(src, st["roman_permission"], "state.roman_permission")))
    for nat, lines in _mapping(src, st.get("standing"), "state.standing").items():
        nation = src.name(nat, f"state.standing.{nat}", ("nation",))
        state.standing[nation] = {str(k): plain(v) for k, v in _mapping(src, lines, f"state.standing.{nat}").items()}
    if st.get("attacked_romano_british") is not None:   # a record of the ffg2 family (GameState.extras)
        _set_record(state, "attacked_romano_british",
                    set(_nations(src, st["attacked_romano_british"], "state.attacked_romano_british")))
    if st.get("danes_withdraw_shortfall") is not None:
        _set_record(state, "danes_withdraw_shortfall",
                    _number(src, st["danes_withdraw_shortfall"], "state.danes_withdraw_shortfall", int))


def _set_record(state: GameState, key: str, value: Any) -> None:
    """A ruleset-specific record: an entry of the position's `extras` block (kept only when not empty
    or zero, as the engine keeps them)."""
    if value:
        state.extras[key] = value
    else:
        state.extras.pop(key, None)
