"""Issue 28 (must show) — a property test per value type: every field survives copy(), to_dict() and
from_dict(). The value types: the position (GameState) and its Stack (with the battle model's open
`counters`), every typed event of the catalog (pbem.rules.events) and every typed order
(pbem.rules.orders: its mail position, `line` and `text`, is not saved and so not compared).

A saved position keeps only what is not the default (rule: empty stacks, zero populations, empty
sets are not written), so the states drawn here are canonical: no empty stack, no zero count.
"""

from __future__ import annotations

import copy
import types
import typing
from dataclasses import fields

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.rules import events as ev
from pbem.rules import orders as od
from pbem.rules.state import GameState, Stack

NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
COUNT = st.integers(min_value=1, max_value=40)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def stacks(draw) -> Stack:
    armies = draw(st.integers(0, 20))
    s = Stack(armies=armies, cavalry=draw(st.integers(0, 5)), raiders=draw(st.integers(0, armies)),
              fort=draw(st.booleans()), burhs=draw(st.integers(0, 3)), leaders=draw(st.lists(NAMES, max_size=2)),
              counters=draw(st.dictionaries(NAMES, COUNT, max_size=3)))
    if s.empty():
        s.armies = 1
    return s


@given(stacks())
@SETTINGS
def test_every_field_of_a_stack_survives_copy_and_save(s):
    assert Stack.from_dict(s.to_dict()) == s
    c = s.copy()
    assert c == s
    for f in fields(Stack):
        assert getattr(c, f.name) == getattr(s, f.name), f.name
    # the copy is its own: changing its containers leaves the original as it was
    before = copy.deepcopy(s)
    c.leaders.append("x")
    c.counters["hits"] = 99
    assert s == before


def test_a_stack_without_counters_keeps_its_bytes():
    """Classic and ffg2 stacks have no counters: they are saved as they always were."""
    assert Stack(armies=3).to_dict() == 3
    assert Stack(armies=2, cavalry=1).to_dict() == {"armies": 2, "cavalry": 1}
    assert Stack(armies=2, counters={"hits": 1}).to_dict() == {"armies": 2, "counters": {"hits": 1}}


SCALAR = st.one_of(st.integers(-5, 50), NAMES, st.booleans(), st.none())


@st.composite
def game_states(draw) -> GameState:
    nations = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    area_names = draw(st.lists(NAMES, min_size=0, max_size=5, unique=True))
    areas = {a: draw(st.dictionaries(st.sampled_from(nations), stacks(), min_size=1, max_size=2)) for a in area_names}
    extras: dict = {}
    if draw(st.booleans()):
        extras["roman_permission"] = set(draw(st.lists(NAMES, min_size=1, max_size=2)))
    if draw(st.booleans()):
        extras["danes_withdraw_shortfall"] = draw(COUNT)
    if draw(st.booleans()):
        extras["attacked_romano_british"] = set(draw(st.lists(NAMES, min_size=1, max_size=2)))
    extras.update(draw(st.dictionaries(NAMES.map(lambda s: "x_" + s), st.one_of(COUNT, NAMES, st.lists(NAMES)),
                                       max_size=2)))
    return GameState(
        ruleset=draw(st.sampled_from(["classic", "ffg2"])), game=draw(NAMES), round=draw(st.integers(1, 16)),
        next_nation=draw(st.one_of(st.none(), st.sampled_from(nations))), areas=areas,
        population=draw(st.dictionaries(NAMES, st.floats(0.5, 20).map(lambda x: round(x * 2) / 2), max_size=3)),
        vp=draw(st.dictionaries(NAMES, st.integers(-10, 200), max_size=3)),
        ledger=draw(st.lists(st.dictionaries(NAMES, SCALAR, max_size=4), max_size=3)),
        forts_built=set(draw(st.lists(NAMES, max_size=3))),
        captured=draw(st.dictionaries(NAMES, st.sets(NAMES, min_size=1, max_size=3), max_size=2)),
        raided_from=draw(st.dictionaries(NAMES, NAMES, max_size=2)),
        subjects=draw(st.dictionaries(NAMES, NAMES, max_size=2)),
        bretwalda=draw(st.one_of(st.none(), NAMES)), kings=draw(st.lists(NAMES, max_size=2)),
        dead_leaders=set(draw(st.lists(NAMES, max_size=3))),
        leader_killed_by=draw(st.dictionaries(NAMES, NAMES, max_size=2)),
        standing=draw(st.dictionaries(NAMES, st.dictionaries(NAMES, NAMES, min_size=1, max_size=2), max_size=2)),
        finished=draw(st.booleans()), extras=extras)


@given(game_states())
@SETTINGS
def test_every_field_of_a_position_survives_copy_and_save(state):
    back = GameState.from_dict(state.to_dict())
    for f in fields(GameState):
        assert getattr(back, f.name) == getattr(state, f.name), f.name
    c = state.copy()
    for f in fields(GameState):
        assert getattr(c, f.name) == getattr(state, f.name), f.name
    # the copy's stacks are its own
    before = state.to_dict()
    for st_ in c.areas.values():
        for s in st_.values():
            s.armies += 1
            s.counters["hits"] = 7
    assert state.to_dict() == before


# --- typed events and orders: a value drawn per field from its annotation -------------------------
def _strategy(annotation: str):
    t = eval(annotation, {"Any": typing.Any, **vars(typing)})     # noqa: S307 - the catalog's own annotations
    return _of_type(t)


def _of_type(t):
    if t is int:
        return st.integers(-3, 60)
    if t is float:
        return st.floats(-5, 50, allow_nan=False).map(lambda x: round(x, 2))
    if t is str:
        return NAMES
    if t is bool:
        return st.booleans()
    if t is type(None):
        return st.none()
    if t is typing.Any:
        return SCALAR
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (types.UnionType, typing.Union):
        return st.one_of(*(_of_type(a) for a in args))
    if origin is list:
        return st.lists(_of_type(args[0]), max_size=3)
    if origin is tuple:
        return st.lists(_of_type(args[0]), max_size=3).map(tuple)
    if origin is dict:
        return st.dictionaries(_of_type(args[0]), _of_type(args[1]), max_size=3)
    raise AssertionError(f"no strategy for {t!r}")


@st.composite
def typed_events(draw):
    cls = draw(st.sampled_from(sorted(ev.KINDS.values(), key=lambda c: c.KIND)))
    return cls(**{f.name: draw(_strategy(f.type)) for f in fields(cls)})


@given(typed_events())
@SETTINGS
def test_every_field_of_an_event_survives_copy_and_save(e):
    back = ev.from_dict(e.to_dict())
    assert type(back) is type(e)
    for f in fields(e):
        assert getattr(back, f.name) == getattr(e, f.name), (e.KIND, f.name)
    assert copy.copy(e) == e and copy.deepcopy(e) == e


ORDER_CLASSES = sorted(od.ORDER_TYPES.values(), key=lambda c: c.__name__)
UNSAVED = {"line", "text"}     # where the order stood in the mail: not part of the saved order


@st.composite
def typed_orders(draw):
    cls = draw(st.sampled_from(ORDER_CLASSES))
    return cls(**{f.name: draw(_strategy(f.type)) for f in fields(cls)})


@given(typed_orders())
@SETTINGS
def test_every_saved_field_of_an_order_survives_copy_and_save(o):
    back = od.order_from_dict(od.order_to_dict(o))
    assert type(back) is type(o)
    for f in fields(o):
        if f.name not in UNSAVED:
            assert getattr(back, f.name) == getattr(o, f.name), (type(o).__name__, f.name)
    assert copy.copy(o) == o and copy.deepcopy(o) == o
