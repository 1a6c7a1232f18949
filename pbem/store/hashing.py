"""Stable hashes of positions and events: SHA-256 of canonical JSON.

Canonical JSON: keys sorted (and made strings), no spaces, UTF-8, tuples and sets as (sorted) lists,
and a float with an integral value written as an integer, so `2` and `2.0` hash alike (a state read
back from YAML may carry one where the engine produced the other).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any


def plain(x: Any) -> Any:
    """Events and states as plain YAML/JSON data: dicts, lists, str, int, float, bool, None."""
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            raise ValueError(f"cannot store the number {x!r}")
        return x
    if isinstance(x, enum.Enum):
        return plain(x.value)
    if isinstance(x, Mapping):
        return {k if isinstance(k, (str, int)) and not isinstance(k, bool) else str(k): plain(v)
                for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted((plain(v) for v in x), key=lambda v: json.dumps(_jsonable(v), sort_keys=True))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        if hasattr(x, "to_dict"):
            return plain(x.to_dict())
        return plain(dataclasses.asdict(x))
    raise TypeError(f"cannot store a {type(x).__name__} in a game save: {x!r}")


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    return x


def canonical_json(x: Any) -> str:
    return json.dumps(_jsonable(plain(x)), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def canonical(x: Any) -> Any:
    """The value as canonical JSON reads it back: what hashes and comparisons look at."""
    return json.loads(canonical_json(x))


def sha256_hex(x: Any) -> str:
    return hashlib.sha256(canonical_json(x).encode("utf-8")).hexdigest()


def state_hash(state: Any) -> str:
    """Hash of a position: a GameState or its to_dict()."""
    if hasattr(state, "to_dict") and not isinstance(state, Mapping):
        state = state.to_dict()
    return sha256_hex(state)


def events_hash(events: list[Any]) -> str:
    return sha256_hex(list(events))
