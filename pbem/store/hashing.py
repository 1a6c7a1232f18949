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
import re
from collections.abc import Mapping
from typing import Any

import orjson

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# hashing alone, measured): pbem.rules.state +2.


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


# The one-call encoder (orjson: C speed, sorted keys, no spaces, UTF-8 as it is). Whatever it would
# write differently from the canonical walk goes to the walk instead: dataclasses, datetimes and sets
# (passed to `default`, which refuses them), non-string keys and integers beyond 64 bits (orjson
# refuses them), and floats Python writes with an exponent (orjson writes 1e16 where Python has
# 1e+16, and 0.000025 for 2.5e-05; see _odd_float_form). Non-finite floats are not data: JSON has
# no such number, the walk refuses them and no reader of saves lets one in (pbem.store.yamlio,
# blockyaml, the log index).
_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def _refuse(x: Any) -> Any:
    raise TypeError("not JSON")


def _direct(x: Any) -> str:
    return orjson.dumps(x, default=_refuse, option=_OPTIONS).decode("utf-8")


_EXPONENT = re.compile(r"e[-+]?\d")     # orjson writes a small e; a literal first letter makes the scan fast


def _odd_float_form(text: str) -> bool:
    """Whether the text may hold a float whose text is not Python's: a fraction below 1e-4 written
    out (0.0000...), or an exponent (a digit, e, a digit or sign). Strings that look so only cost
    the slower walk."""
    if "0.0000" in text:
        return True
    for m in _EXPONENT.finditer(text):
        if text[m.start() - 1:m.start()].isdigit():
            return True
    return False


def _ints_for_integral_floats(text: str) -> str | None:
    """The text with every integral float outside a string (2.0 where a value starts) written as an
    integer; None when that is not sure (a backslash: a string may hold an escaped quote)."""
    if "\\" in text or text[:1] not in "[{":
        return None
    parts: list[str] = []
    last = pos = quotes = 0
    i = text.find(".0")
    while i != -1:
        end = i + 2
        if text[end:end + 1] in (",", "]", "}"):
            k = i
            while k > 0 and text[k - 1].isdigit():
                k -= 1
            if k > 0 and text[k - 1] == "-":
                k -= 1
            if k < i and text[i - 1].isdigit() and text[k - 1:k] in (":", "[", ","):
                quotes += text.count('"', pos, k)     # odd: the number is inside a string
                pos = k
                if quotes % 2 == 0:
                    parts += (text[last:k], "0" if text[k:i] == "-0" else text[k:i])
                    last = end
        i = text.find(".0", end)
    parts.append(text[last:])
    return "".join(parts)


def canonical_json(x: Any) -> str:
    """Canonical JSON (see the module doc). Plain data (the states and events of the engine) is
    encoded in one call at C speed and its integral floats rewritten in the text; the slower walk
    through plain() is taken for other types, non-string keys, and where the text shows an exponent
    or a backslash. tests/store/test_fast_hashing.py checks that both give the same text."""
    try:
        text: str | None = _direct(x)
    except TypeError:            # orjson.JSONEncodeError is a TypeError
        text = None
    if text is not None and ".0" in text:
        text = _ints_for_integral_floats(text)
    if text is None or _odd_float_form(text):
        text = json.dumps(_jsonable(plain(x)), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    return text


def canonical(x: Any) -> Any:
    """The value as canonical JSON reads it back: what hashes and comparisons look at."""
    return json.loads(canonical_json(x))


def sha256_hex(x: Any) -> str:
    return sha256_text(canonical_json(x))


def sha256_text(text: str) -> str:
    """The hash of a canonical JSON text already made (no second encoding)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_hash(state: Any) -> str:
    """Hash of a position: a GameState or its to_dict(). A GameState's VP ledger (most of the text by
    the end of a game) is encoded only where it grew since the last position hashed (state_json)."""
    if hasattr(state, "to_dict") and not isinstance(state, Mapping):
        return sha256_text(state_json(state))
    return sha256_hex(state)


class _LedgerText:
    """The canonical text of the last VP ledger encoded: the next position of the game has the same
    entries and a few more (rule 14.3: the ledger only grows), so only the new ones are encoded.
    An entry that is the same read-only LedgerEntry as before is unchanged (a copied position shares
    them: the check is one identity comparison at C speed); any other entry is compared with a copy
    of it taken when it was encoded (it may have been changed in place; Python's equality takes True
    for 1, which a ledger never holds: points and rounds are ints)."""

    def __init__(self) -> None:
        self.entries: list[Any] = []     # the entries encoded (the objects themselves)
        self.copies: list[Any] = []      # for each: None when read-only, else a copy of it
        self.mutable = 0                 # how many entries are not read-only
        self.parts: list[str] = []

    def text(self, ledger: list[Any]) -> str:
        from pbem.rules.state import LedgerEntry, plain_copy

        n = len(self.entries)
        same = len(ledger) >= n and ledger[:n] == self.entries   # identical objects compare without a look inside
        if same and self.mutable:
            same = all(c is None or c == e for e, c in zip(ledger, self.copies))
        if not same:
            self.entries, self.copies, self.parts, self.mutable, n = [], [], [], 0, 0
        for e in ledger[n:]:
            self.parts.append(canonical_json(e))
            self.entries.append(e)
            frozen = type(e) is LedgerEntry
            self.copies.append(None if frozen else plain_copy(e))
            self.mutable += not frozen
        return "[" + ",".join(self.parts) + "]"


_LEDGER = _LedgerText()


def state_json(state: Any) -> str:
    """canonical_json(state.to_dict()), with the ledger's entries encoded one by one (the same text:
    canonical JSON of a list is its items' texts joined by commas, and the top-level keys are
    sorted, so the ledger's text goes between the keys before "ledger" and those after it)."""
    from pbem.rules.state import GameState

    d = state.to_dict(copy_ledger=False, ordered=False) if isinstance(state, GameState) else state.to_dict()
    ledger = getattr(state, "ledger", None)
    if not isinstance(d.get("ledger"), list) or not isinstance(ledger, list) or len(ledger) != len(d["ledger"]):
        return canonical_json(d)
    head = canonical_json({k: v for k, v in d.items() if k < "ledger"})[1:-1]
    tail = canonical_json({k: v for k, v in d.items() if k > "ledger"})[1:-1]
    body = '"ledger":' + _LEDGER.text(ledger)
    return "{" + ",".join(p for p in (head, body, tail) if p) + "}"


def events_hash(events: list[Any]) -> str:
    return sha256_hex(list(events))
