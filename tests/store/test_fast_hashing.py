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


@settings(max_examples=3000, deadline=None)
@given(hs.floats(allow_nan=False, allow_infinity=False) | hs.floats(-1e-3, 1e-3) | hs.floats(1e14, 1e18))
def test_floats_are_written_as_python_writes_them(x):
    """orjson writes 1e16 and 0.000025 where Python's JSON has 1e+16 and 2.5e-05: those go the
    walk's way, so a hash never depends on the encoder."""
    assert hashing.canonical_json([x, {"a": x}]) == walked([x, {"a": x}])


def test_types_the_walk_treats_otherwise_take_the_walk():
    import dataclasses
    import enum

    @dataclasses.dataclass
    class Pair:
        b: int
        a: float

    class Colour(enum.Enum):
        RED = "red"

    for x in ([Pair(1, 2.0)], {"k": frozenset({3, 1})}, {1: "int key", "1": "str key"}, [2**70, -(2**70)],
              [2.5e-05, 1e16, 1e-7, 1e22, -0.0, 1e15], [Colour.RED], {"k": (1, 2.0)}):
        assert hashing.canonical_json(x) == walked(x)


def test_state_hash_of_a_game_state_is_the_hash_of_its_canonical_json():
    """Rule 14.3's ledger is encoded entry by entry (each entry's text remembered): the hash stays
    the SHA-256 of the whole position's canonical JSON, also after an entry is replaced or changed."""
    from pbem.data.loader import load
    from pbem.rules.turn import new_game_state

    st = new_game_state(load("classic"), "g")
    for i in range(5):
        st.score("romans", i + 1, f"reason {i}", "holding")
    st.population["romans"] = 2.0
    want = lambda s: hashing.sha256_text(walked(s.to_dict()))  # noqa: E731
    assert hashing.state_hash(st) == want(st)
    copy = st.copy()
    assert copy.ledger[0] is st.ledger[0] and hashing.state_hash(copy) == want(copy)
    st.ledger[2] = dict(st.ledger[2], points=7)    # a plain (mutable) entry in its place ...
    assert hashing.state_hash(st) == want(st)
    st.ledger[2]["points"] = 8                      # ... changed in place: the hash still sees it
    st.ledger[3] = {"round": 1, "nation": "romans", "points": 1.0, "kind": "x", "reason": "é", "turn": None}
    assert hashing.state_hash(st) == want(st) != hashing.state_hash(copy)
    st.ledger.clear()
    assert hashing.state_hash(st) == want(st)
