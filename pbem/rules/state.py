"""The position: what stands where, saved population counts, scores, and the turn marker.

Pure data. Engine functions take a state and return a new one (they work on `state.copy()`), unless
the caller hands its state over (`consume`, pbem.rules.flow.step): then they work on it in place.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

_new_object = object.__new__


@dataclass(slots=True)
class Stack:
    """One nation's pieces in one area (rule 2.2). Slots: a game copies ~8 000 stacks."""

    armies: int = 0        # ordinary armies, raiders included
    cavalry: int = 0       # rule 2.22
    raiders: int = 0       # how many of `armies` are raiders (rule 7.1)
    fort: int = False
    """The stack's forts, a count (rule 10.4: the empire's, at most one a stack, kept as True). A family
    may let other nations hold forts, several a stack (Rules.holds_forts); one fort is saved as `true`
    as ever, more as their number."""
    burhs: int = 0
    leaders: list[str] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    """A family's counters on these pieces (its battle model's, e.g. hits that have not killed yet),
    name -> number; kept only while non-zero and saved only when there is one, so a stack without
    any keeps the bytes it always had."""

    @property
    def units(self) -> int:
        """Armies and cavalry: what counts for stacking, overpopulation and occupation."""
        return self.armies + self.cavalry

    @property
    def fortifications(self) -> int:
        """Forts and burhs: pieces that fight but never move (10.4); they count as pieces where a family
        counts them (an overrun's two to one, say), never for stacking or population."""
        return int(self.fort) + self.burhs

    @property
    def fighters(self) -> int:
        """Pieces that roll dice and can be killed (rule 8.0; a fort acts as an army, 10.4)."""
        return self.armies + self.cavalry + int(self.fort) + self.burhs

    def empty(self) -> bool:
        return not (self.armies or self.cavalry or self.fort or self.burhs or self.leaders)

    def copy(self) -> Stack:
        # slots set one by one: a third faster than the dataclass __init__ (a game copies ~8 000 stacks)
        new = _new_object(Stack)
        new.armies, new.cavalry, new.raiders = self.armies, self.cavalry, self.raiders
        new.fort, new.burhs, new.leaders = self.fort, self.burhs, self.leaders[:]
        new.counters = dict(self.counters) if self.counters else {}
        return new

    def to_dict(self) -> dict[str, Any] | int:
        if not (self.cavalry or self.raiders or self.fort or self.burhs or self.leaders or self.counters):
            return self.armies
        d: dict[str, Any] = {}
        if self.armies:
            d["armies"] = self.armies
        if self.cavalry:
            d["cavalry"] = self.cavalry
        if self.raiders:
            d["raiders"] = self.raiders
        if self.fort:
            d["fort"] = True if self.fort == 1 else int(self.fort)
        if self.burhs:
            d["burhs"] = self.burhs
        if self.leaders:
            d["leaders"] = list(self.leaders)
        if self.counters:
            d["counters"] = dict(sorted(self.counters.items()))
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Stack:
        if isinstance(d, int) and not isinstance(d, bool):
            return cls(armies=d)
        if not isinstance(d, dict):
            raise ValueError(f"a stack is a number of armies or a mapping, not {d!r}")
        unknown = set(d) - {"armies", "cavalry", "raiders", "fort", "burhs", "leaders", "counters"}
        if unknown:
            raise ValueError(f"unknown piece kind(s): {', '.join(sorted(unknown))}")
        armies = int(d.get("armies", 0))
        raiders = d.get("raiders", 0)
        if raiders is True:
            raiders = armies
        elif raiders is False or raiders is None:
            raiders = 0
        return cls(armies=armies, cavalry=int(d.get("cavalry", 0)), raiders=int(raiders),
                   fort=_forts(d.get("fort", False)), burhs=int(d.get("burhs", 0)),
                   leaders=list(d.get("leaders", []) or []), counters=_counters(d.get("counters")))


def _forts(v: Any) -> int:
    """A saved stack's `fort`: true (one fort, as rule 10.4 has it) or a number of forts."""
    if isinstance(v, bool) or v is None:
        return bool(v)
    if not isinstance(v, int) or v < 0:
        raise ValueError(f"a stack's fort is true, false or a number of forts, not {v!r}")
    return {0: False, 1: True}.get(v, v)   # one fort is `True` in memory too (the classic bytes)


def _counters(d: Any) -> dict[str, int]:
    """A saved stack's `counters` mapping (name -> number; the zeros dropped)."""
    if not d:
        return {}
    if not isinstance(d, dict):
        raise ValueError(f"a stack's counters are a mapping of names to numbers, not {d!r}")
    return {str(k): int(v) for k, v in d.items() if int(v)}


_IMMUTABLE = (str, int, float, bool, type(None), tuple, frozenset)
_COPIED = frozenset({"areas", "population", "vp", "ledger", "forts_built", "captured", "raided_from", "subjects",
                     "kings", "dead_leaders", "leader_killed_by", "standing", "extras"})

# Ruleset records of `extras` that the saved position keeps at its top level, where GameState had them
# as fields before the extras block (issue 15 item 4): archived games keep their bytes and state hashes.
# key -> (written after this key, default when absent, written even when it is the default)
LEGACY_EXTRAS: dict[str, tuple[str, Any, bool]] = {
    "roman_permission": ("subjects", frozenset(), True),         # classic 11.1 (ALLOW)
    "danes_withdraw_shortfall": ("standing", 0, True),           # classic 10.6
    "attacked_romano_british": ("finished", frozenset(), False),  # ffg2 (rulesets/ffg2.py)
}


def plain_copy(x: Any) -> Any:
    """Deep copy of plain data (dicts, lists, sets of scalars); anything else goes to copy.deepcopy."""
    t = type(x)
    if t is dict:
        return {k: (v if type(v) in _SCALARS else plain_copy(v)) for k, v in x.items()}
    if t is list:
        return [v if type(v) in _SCALARS else plain_copy(v) for v in x]
    if t in _SCALARS:
        return x
    if t is set:
        return set(x)
    return copy.deepcopy(x)


_SCALARS = frozenset({str, int, float, bool, type(None)})


class LedgerEntry(dict):
    """One entry of the VP ledger (rule 14.3): history, read-only once written, so that copies of a
    position share it (GameState.copy copies only the list; the ledger grows all game). Only flat
    entries (scalar values) are made read-only (`ledger_entry`); others stay plain, copied dicts."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kw: Any) -> Any:
        raise TypeError("a VP ledger entry is history and cannot be changed (rule 14.3)")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only

    def __reduce__(self) -> Any:      # copy.deepcopy and pickle build it whole, not key by key
        return (LedgerEntry, (dict(self),))


def ledger_entry(values: Any) -> dict[str, Any]:
    """A LedgerEntry of the values when they are all scalars, else a plain dict of them."""
    d = dict(values)
    return LedgerEntry(d) if _SCALARS.issuperset(map(type, d.values())) else d
_NO_STACKS: dict[str, Stack] = {}    # what an empty area holds (read only: never stored in a state)


@dataclass
class GameState:
    """Everything the rules need to play on. Ids only (areas, nations, leaders)."""

    ruleset: str = "classic"
    game: str = "game"
    round: int = 1
    next_nation: str | None = None        # the nation whose turn comes next (None: round start)
    areas: dict[str, dict[str, Stack]] = field(default_factory=dict)
    population: dict[str, float] = field(default_factory=dict)   # saved increase counts (10.1)
    vp: dict[str, int] = field(default_factory=dict)
    ledger: list[dict[str, Any]] = field(default_factory=list)   # every VP entry with its reason (written once)
    forts_built: set[str] = field(default_factory=set)           # areas where a Roman fort was ever built
    captured: dict[str, set[str]] = field(default_factory=dict)  # nation -> areas whose capture points it took
    raided_from: dict[str, str] = field(default_factory=dict)    # nation -> sea its raiders ashore came from
    subjects: dict[str, str] = field(default_factory=dict)       # subject nation -> overlord (11.1, 11.2)
    bretwalda: str | None = None
    kings: list[str] = field(default_factory=list)               # Kings of this round (12.3, 12.4)
    dead_leaders: set[str] = field(default_factory=set)
    leader_killed_by: dict[str, str] = field(default_factory=dict)
    standing: dict[str, dict[str, str]] = field(default_factory=dict)   # nation -> key -> canonical line
    finished: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    """Ruleset-specific records, owned by the ruleset's hooks (pbem/rules/rulesets: classic's
    `roman_permission` and `danes_withdraw_shortfall`, ffg2's `attacked_romano_british`). Only values
    other than the default are kept, so an untouched record and an absent one compare equal."""

    # --- pieces ---------------------------------------------------------------------------
    def stack(self, area: str, nation: str) -> Stack:
        """The stack (created empty if absent); call `prune()` after removing pieces."""
        return self.areas.setdefault(area, {}).setdefault(nation, Stack())

    def get(self, area: str, nation: str) -> Stack | None:
        return self.areas.get(area, _NO_STACKS).get(nation)

    def nations_in(self, area: str) -> list[str]:
        return [n for n, s in self.areas.get(area, _NO_STACKS).items() if not s.empty()]

    def occupants(self, area: str) -> list[str]:
        """Nations with armies, cavalry, forts or burhs in the area (leaders alone do not occupy)."""
        return [n for n, s in self.areas.get(area, _NO_STACKS).items() if s.armies + s.cavalry + s.fort + s.burhs]

    def prune(self) -> None:
        """Drop empty stacks and areas. Called after every change (~900 times a game), so the usual
        case, nothing to drop, is one pass without building anything (Stack.empty() inlined)."""
        doomed = None
        for area, st in self.areas.items():
            if not st:
                doomed = (doomed or []) + [area]
                continue
            for s in st.values():
                if not (s.armies or s.cavalry or s.fort or s.burhs or s.leaders):
                    doomed = (doomed or []) + [area]
                    break
        for area in doomed or ():
            st = self.areas[area]
            for n in [n for n, s in st.items() if s.empty()]:
                del st[n]
            if not st:
                del self.areas[area]

    def areas_of(self, nation: str) -> list[str]:
        return [a for a, st in self.areas.items() if nation in st and not st[nation].empty()]

    def units_of(self, nation: str) -> int:
        return sum(st[nation].units for st in self.areas.values() if nation in st)

    def leaders_on_board(self, nation: str | None = None) -> dict[str, str]:
        """leader -> area."""
        out = {}
        if nation is not None:     # one look-up an area (the same order: one stack an area)
            for a, st in self.areas.items():
                if nation in st:
                    for ld in st[nation].leaders:
                        out[ld] = a
            return out
        for a, st in self.areas.items():
            for s in st.values():
                if s.leaders:
                    for ld in s.leaders:
                        out[ld] = a
        return out

    def score(self, nation: str, points: int, reason: str, kind: str, nation_turn: str | None = None) -> None:
        """Add a victory-point entry to the ledger (rule 14.3) and the nation's total."""
        if not points:
            return
        self.vp[nation] = self.vp.get(nation, 0) + points
        self.ledger.append(LedgerEntry({"round": self.round, "nation": nation, "points": points, "kind": kind,
                                        "reason": reason, "turn": nation_turn or self.next_nation}))

    def put_in_order(self) -> GameState:
        """The areas, and the nations within each area, sorted in place: the order `copy()` gives its
        copy, for an engine step that works on the caller's own position (handed over, `consume`).
        Every turn starts from the same order whether the position was loaded or carried over, so
        the events come out the same. Usually the areas are in order already and most hold one
        nation: then nothing is rebuilt. Returns the state itself."""
        areas = self.areas
        names = sorted(areas)
        if names != list(areas):
            self.areas = areas = {a: areas[a] for a in names}
        for a, st in areas.items():
            if len(st) > 1:
                order = sorted(st)
                if order != list(st):
                    areas[a] = {n: st[n] for n in order}
        return self

    def copy(self) -> GameState:
        """A deep copy, written out by hand (copy.deepcopy was the engine's hot spot): every container
        is new; the leaves (str, int, float, bool, None) are shared, which is safe as they are immutable.
        So are the VP ledger's read-only entries (LedgerEntry, rule 14.3: history): the copy's ledger
        is a new list of the same entries (copying each entry was ~12 % of the engine: the ledger
        grows all game); any other entry is copied."""
        new = GameState.__new__(GameState)
        d = new.__dict__
        d.update(self.__dict__)
        # sorted: every turn starts from the same order of areas and nations, whether the position was
        # loaded from state.yaml or carried over in memory (replay), so the events come out the same
        # (the areas are usually in order already and most hold one nation: those skip the sort)
        areas = self.areas
        names = sorted(areas)
        d["areas"] = {a: ({n: s.copy() for n, s in st.items()} if len(st) < 2
                          else {n: st[n].copy() for n in sorted(st)})
                      for a, st in (areas.items() if names == list(areas) else ((a, areas[a]) for a in names))}
        d["population"] = dict(self.population)
        d["vp"] = dict(self.vp)
        ledger = self.ledger
        d["ledger"] = (list(ledger) if set(map(type, ledger)) <= {LedgerEntry}
                       else [e if type(e) is LedgerEntry else plain_copy(e) for e in ledger])
        d["forts_built"] = set(self.forts_built)
        d["captured"] = {k: set(v) for k, v in self.captured.items()}
        d["raided_from"] = dict(self.raided_from)
        d["subjects"] = dict(self.subjects)
        d["kings"] = list(self.kings)
        d["dead_leaders"] = set(self.dead_leaders)
        d["leader_killed_by"] = dict(self.leader_killed_by)
        d["standing"] = {k: plain_copy(v) for k, v in self.standing.items()}
        d["extras"] = {k: plain_copy(v) for k, v in self.extras.items()}
        for k, v in d.items():
            # a field added later without a line above is still copied deeply
            if k not in _COPIED and not isinstance(v, _IMMUTABLE):
                d[k] = copy.deepcopy(v)
        return new

    # --- serialisation ------------------------------------------------------------------------
    def to_dict(self, *, copy_ledger: bool = True, ordered: bool = True) -> dict[str, Any]:
        """The saved position. `copy_ledger=False` puts the ledger's own entries in it, not copies, and
        `ordered=False` leaves the keys of its mappings in any order (lists are still sorted): both for
        a reader that only encodes it with sorted keys (state hashing, pbem.store.hashing.state_json)."""
        arrange = sorted if ordered else _as_is
        areas = {}
        for a in arrange(self.areas):
            st = self.areas[a]
            if len(st) == 1:        # most areas hold one nation: no sort, no inner mapping built
                for n, s in st.items():
                    if s.armies or s.cavalry or s.fort or s.burhs or s.leaders:     # not s.empty()
                        areas[a] = {n: s.to_dict()}
                continue
            st = {n: s.to_dict() for n, s in (arrange(st.items())) if not s.empty()}
            if st:
                areas[a] = st
        d = {
            "ruleset": self.ruleset, "game": self.game, "round": self.round, "next_nation": self.next_nation,
            "areas": areas,
            "population": {k: v for k, v in arrange(self.population.items()) if v},
            "vp": dict(arrange(self.vp.items())),
            "ledger": [dict(e) for e in self.ledger] if copy_ledger else self.ledger,
            "forts_built": sorted(self.forts_built),
            "captured": {k: sorted(v) for k, v in arrange(self.captured.items()) if v},
            "raided_from": dict(arrange(self.raided_from.items())),
            "subjects": dict(arrange(self.subjects.items())),
            "bretwalda": self.bretwalda, "kings": list(self.kings),
            "dead_leaders": sorted(self.dead_leaders),
            "leader_killed_by": dict(arrange(self.leader_killed_by.items())),
            "standing": {n: dict(arrange(v.items())) for n, v in arrange(self.standing.items()) if v},
            "finished": self.finished,
        }
        return _with_extras(d, self.extras)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        st = cls(
            ruleset=d.get("ruleset", "classic"), game=d.get("game", "game"), round=int(d.get("round", 1)),
            next_nation=d.get("next_nation"),
            areas={a: {n: Stack.from_dict(s) for n, s in (nat or {}).items()} for a, nat in (d.get("areas") or {}).items()},
            population={k: float(v) for k, v in (d.get("population") or {}).items()},
            vp={k: int(v) for k, v in (d.get("vp") or {}).items()},
            ledger=[ledger_entry(e) for e in d.get("ledger") or []],
            forts_built=set(d.get("forts_built") or []),
            captured={k: set(v) for k, v in (d.get("captured") or {}).items()},
            raided_from=dict(d.get("raided_from") or {}),
            subjects=dict(d.get("subjects") or {}),
            bretwalda=d.get("bretwalda"), kings=list(d.get("kings") or []),
            dead_leaders=set(d.get("dead_leaders") or []),
            leader_killed_by=dict(d.get("leader_killed_by") or {}),
            standing={n: dict(v) for n, v in (d.get("standing") or {}).items()},
            finished=bool(d.get("finished", False)),
            extras=_read_extras(d),
        )
        st.prune()
        return st


# each legacy record (LEGACY_EXTRAS) under the key it is written after
_EXTRAS_AFTER: dict[str, list[tuple[str, Any, bool]]] = {}
for _name, (_after, _default, _always) in LEGACY_EXTRAS.items():
    _EXTRAS_AFTER.setdefault(_after, []).append((_name, _default, _always))


def _as_is(x: Any) -> Any:
    return x


def _with_extras(d: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    """The saved layout: each legacy record (LEGACY_EXTRAS) at its old place; any other record of the
    extras block under `extras` (sets as sorted lists), written only when there is one."""
    out: dict[str, Any] = {}
    for key, value in d.items():
        out[key] = value
        for name, default, always in _EXTRAS_AFTER.get(key, ()):
            if name in extras or always:
                v = extras.get(name, default)
                out[name] = sorted(v) if isinstance(v, set | frozenset) else v
    rest = {k: (sorted(v) if isinstance(v, set | frozenset) else v) for k, v in sorted(extras.items())
            if k not in LEGACY_EXTRAS}
    if rest:
        out["extras"] = rest
    return out


def _read_extras(d: dict[str, Any]) -> dict[str, Any]:
    """The extras block of a saved position: the legacy records at the top level (only values other
    than the default are kept), then the `extras` mapping."""
    extras: dict[str, Any] = {}
    for name, (_after, default, _always) in LEGACY_EXTRAS.items():
        v = d.get(name)
        if v:
            extras[name] = set(v) if isinstance(default, frozenset) else int(v)
    # copied: an engine step handed this position (`consume`) must not change the mapping it was read from
    extras.update({k: plain_copy(v) for k, v in (d.get("extras") or {}).items()})
    return extras
