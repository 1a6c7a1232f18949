"""Frozen value records: `@record` is `@dataclass(frozen=True)` (the same fields, `dataclasses.fields`,
`replace` and `asdict`, the same __init__, equality, hash, repr and FrozenInstanceError), built
without compiling code for every class at import.

A frozen dataclass compiles six methods for each class when its module is imported (__init__,
__repr__, __eq__, __hash__, __setattr__, __delattr__): ~1 ms a class, and pbem has a hundred such
records (orders, ruleset tables, odds, routes), a tenth of the start-up of every `pbem run`, which
a cron job pays each time (issue 33). Here five of them are written once below for every record,
reading the class's fields, and __init__ is compiled for a class the first time one of its records
is made (most runs make only a few kinds).

Kept as a dataclass would: positional fields with defaults and default factories, `kw_only`,
`field(init=False / repr=False / compare=False / hash=...)`, `__post_init__`, record subclasses.
Refused at decoration (use `@dataclass(frozen=True)` there): InitVar fields, and a class that
writes its own __init__, __eq__, __hash__ or __setattr__.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, FrozenInstanceError
from typing import Any

_PLAN = "__record_plan__"


class _Plan:
    """What the shared methods read of one record class (computed once, at decoration)."""

    __slots__ = ("fields", "names", "shown", "compared", "hashed")

    def __init__(self, cls: type) -> None:
        self.fields = dataclasses.fields(cls)
        self.names = frozenset(f.name for f in self.fields)
        self.shown = tuple(f.name for f in self.fields if f.repr)
        self.compared = tuple(f.name for f in self.fields if f.compare)
        self.hashed = tuple(f.name for f in self.fields if (f.compare if f.hash is None else f.hash))


def _plan_of(cls: type) -> _Plan:
    for c in cls.__mro__:          # a plain subclass of a record is made and compared as its record
        plan = c.__dict__.get(_PLAN)
        if plan is not None:
            return plan
    raise TypeError(f"{cls.__name__} is no record")


class _HasFactory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _HasFactory()


def _compiled_init(cls: type, plan: _Plan) -> Any:
    """The __init__ a frozen dataclass has: the fields in order (keyword-only ones after a `*`), each
    set through object.__setattr__; defaults and factories; then __post_init__."""
    ns: dict[str, Any] = {"_set": object.__setattr__, "_HAS_FACTORY": _HAS_FACTORY}
    positional, keyword, body = [], [], []
    for f in plan.fields:
        if f.default is not MISSING:
            ns[f"_default_{f.name}"] = f.default
        if f.default_factory is not MISSING:
            ns[f"_factory_{f.name}"] = f.default_factory
        if not f.init:
            value = f"_factory_{f.name}()" if f.default_factory is not MISSING else f"_default_{f.name}"
            if f.default is MISSING and f.default_factory is MISSING:
                continue       # as a dataclass: an init=False field without a default is left unset
            body.append(f"_set(self, {f.name!r}, {value})")
            continue
        if f.default_factory is not MISSING:
            param = f"{f.name}=_HAS_FACTORY"
            body.append(f"_set(self, {f.name!r}, _factory_{f.name}() if {f.name} is _HAS_FACTORY else {f.name})")
        else:
            param = f.name if f.default is MISSING else f"{f.name}=_default_{f.name}"
            body.append(f"_set(self, {f.name!r}, {f.name})")
        (keyword if f.kw_only else positional).append(param)
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__({params}) -> None:\n    " + ("\n    ".join(body) or "pass")
    exec(source, ns)    # noqa: S102 - the source is built from the class's own field names only
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _first_init(self, *args: Any, **kwargs: Any) -> None:
    """Every record's __init__ until its class makes its first record: then the compiled one."""
    cls = next(c for c in type(self).__mro__ if _PLAN in c.__dict__)
    init = _compiled_init(cls, cls.__dict__[_PLAN])
    cls.__init__ = init
    init(self, *args, **kwargs)


def _values(self, names: tuple[str, ...]) -> tuple:
    return tuple(getattr(self, n) for n in names)


def _eq(self, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _plan_of(self.__class__).compared
    return _values(self, names) == _values(other, names)


def _hash(self) -> int:
    return hash(_values(self, _plan_of(self.__class__).hashed))


def _repr(self) -> str:
    shown = _plan_of(self.__class__).shown
    return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in shown) + ")"


def _setattr(self, name: str, value: Any) -> None:
    if _PLAN in type(self).__dict__ or name in _plan_of(type(self)).names:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _delattr(self, name: str) -> None:
    if _PLAN in type(self).__dict__ or name in _plan_of(type(self)).names:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


_OWN = {"__init__", "__eq__", "__hash__", "__setattr__", "__delattr__"}


def record(cls: type | None = None, /, *, kw_only: bool = False) -> Any:
    """`@record` or `@record(kw_only=True)`: a frozen dataclass (see the module doc)."""

    def wrap(c: type) -> type:
        own = sorted(_OWN & {k for k, v in c.__dict__.items() if v is not None})
        if own:
            raise TypeError(f"{c.__name__} writes its own {', '.join(own)}: make it a @dataclass(frozen=True)")
        if not c.__dict__.get("__doc__"):
            c.__doc__ = c.__name__      # (a dataclass would inspect its signature for one)
        # made as a plain dataclass (nothing compiled), then marked frozen as it is: a frozen
        # dataclass may subclass a record (a family's own order) and a record a frozen dataclass
        frozen_bases = [b.__dataclass_params__ for b in c.__mro__[1:]
                        if "__dataclass_params__" in b.__dict__ and b.__dataclass_params__.frozen]
        for params in frozen_bases:
            params.frozen = False
        try:
            c = dataclasses.dataclass(c, init=False, repr=False, eq=False, kw_only=kw_only)
        finally:
            for params in frozen_bases:
                params.frozen = True
        params = c.__dataclass_params__
        params.init = params.repr = params.eq = params.frozen = True
        if any(f._field_type is dataclasses._FIELD_INITVAR for f in c.__dataclass_fields__.values()):
            raise TypeError(f"{c.__name__} has an InitVar field: make it a @dataclass(frozen=True)")
        setattr(c, _PLAN, _Plan(c))
        c.__init__ = _first_init
        c.__eq__, c.__hash__ = _eq, _hash
        if "__repr__" not in c.__dict__:
            c.__repr__ = _repr
        c.__setattr__, c.__delattr__ = _setattr, _delattr
        return c

    return wrap if cls is None else wrap(cls)
