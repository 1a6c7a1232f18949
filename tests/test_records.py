"""pbem.records.record behaves as @dataclass(frozen=True) (issue 33: the same records, without
compiling six methods per class at import). Each behaviour is checked against a real frozen
dataclass of the same fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from pbem.records import record


@record
class Kept:
    """A record a pickle can name."""

    a: int
    b: tuple = ()


def _pair(**options):
    """The same class twice: as a record and as a frozen dataclass."""

    def body():
        class Base:
            count: int
            kind: str = "armies"
            path: tuple = ()
            notes: list = field(default_factory=list, compare=False)
            hidden: str = field(default="x", repr=False)
            line: int = field(default=0, kw_only=True)
        return Base

    rec = record(**options)(body()) if options else record(body())
    real = dataclass(frozen=True, **options)(body())
    return rec, real


def test_construction_defaults_and_errors_match_a_frozen_dataclass():
    rec, real = _pair()
    for args, kwargs in [((3,), {}), ((3, "cavalry", ("a", "b")), {"line": 4}), ((), {"count": 1, "hidden": "y"})]:
        a, b = rec(*args, **kwargs), real(*args, **kwargs)
        assert [getattr(a, f.name) for f in dataclasses.fields(a)] == [getattr(b, f.name) for f in dataclasses.fields(b)]
        assert repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
    for args, kwargs in [((), {}), ((1, "a", (), [], "h", 5), {}), ((1,), {"nope": 2})]:
        with pytest.raises(TypeError):
            real(*args, **kwargs)
        with pytest.raises(TypeError):
            rec(*args, **kwargs)
    assert rec(1).notes is not rec(1).notes           # a fresh default from the factory each time


def test_equality_hash_frozen_replace_pickle():
    rec, _ = _pair()
    a = rec(2, path=("x",), notes=[1])
    b = rec(2, path=("x",), notes=[9])                 # notes is compare=False
    assert a == b and hash(a) == hash(b) and a != rec(3) and a != object()
    with pytest.raises(FrozenInstanceError):
        a.count = 5
    with pytest.raises(FrozenInstanceError):
        del a.count
    assert dataclasses.replace(a, count=7).count == 7 and a.count == 2
    assert copy.deepcopy(a) == a and copy.copy(a) == a
    kept = Kept(1, ("a",))
    assert pickle.loads(pickle.dumps(kept)) == kept
    assert dataclasses.asdict(a)["path"] == ("x",) and dataclasses.is_dataclass(a)
    assert a.__match_args__ == ("count", "kind", "path", "notes", "hidden")


def test_kw_only_post_init_and_subclasses():
    @record(kw_only=True)
    class Named:
        name: str
        size: int = 1

        def __post_init__(self):
            if self.size < 0:
                raise ValueError("size")

    with pytest.raises(TypeError):
        Named("a")
    with pytest.raises(ValueError):
        Named(name="a", size=-1)
    assert Named(name="a").size == 1

    @record
    class Order:
        line: int = field(default=0, kw_only=True)

    @record
    class Rally(Order):
        area: str

    @dataclass(frozen=True)          # a family's own order, written as a frozen dataclass
    class March(Order):
        to: str

    class Plain(Rally):              # no dataclass: made and compared as its record
        pass

    assert Rally("kent", line=3) == Rally(area="kent", line=3) != Order(line=3)
    assert March("wessex").to == "wessex" and March("wessex", line=2).line == 2
    with pytest.raises(FrozenInstanceError):
        March("x").to = "y"
    assert Plain("kent").area == "kent"


def test_a_record_compiles_its_init_only_when_first_made():
    @record
    class Lazy:
        a: int

    first = Lazy.__init__
    Lazy(1)
    assert Lazy.__init__ is not first and Lazy(2).a == 2


def test_a_class_writing_its_own_methods_is_refused():
    with pytest.raises(TypeError, match="__eq__"):
        @record
        class Own:
            a: int

            def __eq__(self, other):
                return True
