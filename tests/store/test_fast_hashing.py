"""canonical_json's one-call encoding gives the same text as the walk through plain() it replaces
(the hashes of every stored game depend on it)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as hs

from pbem.store import hashing


def walked(x):
    return json.dumps(hashing._jsonable(hashing.plain(x)), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)


keys = hs.text(max_size=5) | hs.integers(-20, 20) | hs.sampled_from(["3", "true", "2.0", "a", "-1"])
values = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | hs.floats(allow_nan=False, allow_infinity=False)
    | hs.text(max_size=8) | hs.sampled_from(["2.0,", "x1e+5", "\"3\":", ":2.0,", "a,[3.0}", "q\\\"r:1.0]"]),
    lambda inner: hs.lists(inner, max_size=4) | hs.tuples(inner, inner) | hs.dictionaries(keys, inner, max_size=4)
    | hs.frozensets(hs.integers(), max_size=3),
    max_leaves=25)


@settings(max_examples=1000, deadline=None)
@given(values)
def test_direct_encoding_is_the_canonical_one(x):
    assert hashing.canonical_json(x) == walked(x)
