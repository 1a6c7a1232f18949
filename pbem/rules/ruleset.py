"""A ruleset as immutable data: map, nations, timeline, victory-point cards, constants.

A ruleset's facts live in the YAML files of its folder (pbem/data/<ruleset>/, docs/RULESETS.md);
pbem/data/loader.py reads and checks them into these types. Rule numbers in comments are seed 001's
(Avalon Hill classic rules, PBEM edition), the rules the types were first made for.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pbem.records import record

if TYPE_CHECKING:
    from pbem.rules.rulesets.base import Rules

SEA = "sea"

FAMILIES: dict[str, type[Rules]] = {}
"""ruleset.yaml `family:` -> the Rules class that plays it. Each family registers itself here by
subclassing `pbem.rules.rulesets.base.Rules`; the loader imports pbem.rules.rulesets (every family
module) before it builds a Ruleset, so this module never imports a family (they import the engine)."""


def _freeze(d: dict) -> Mapping:
    return MappingProxyType(dict(d))


def _empty() -> Mapping:
    return MappingProxyType({})


def path_overlaps(a: str, b: str) -> bool:
    """Two dotted data paths overlap when one is a prefix of the other, segment by segment; `*` matches
    any one segment. `map.seas.*.seas` overlaps `map.seas.irish_sea` and `map.seas.irish_sea.seas`."""
    pa, pb = a.split("."), b.split(".")
    return all(x == y or x == "*" or y == "*" for x, y in zip(pa, pb))


@record
class LandArea:
    """Rule 2.1 — one of the 37 land areas."""

    id: str
    name: str
    aliases: tuple[str, ...]
    region: str            # wales | scotland | england (rule 2.11)
    terrain: str           # clear | hiland
    land: frozenset[str]   # land neighbours (rule 5.14 corners already removed)
    straits: frozenset[str]  # rule 5.15
    seas: frozenset[str]   # bordering seas (rule 5.16)

    @property
    def hiland(self) -> bool:
        return self.terrain == "hiland"

    @property
    def coastal(self) -> bool:
        return bool(self.seas)


@record
class SeaArea:
    """Rule 5.5 — one of the six seas."""

    id: str
    name: str
    aliases: tuple[str, ...]
    seas: frozenset[str]
    coast: frozenset[str]


@record
class Leader:
    """Rule 9.0 — a leader piece."""

    id: str
    name: str
    nation: str
    round: int
    aliases: tuple[str, ...] = ()
    stays_until_end: bool = False   # Harold, Harald, William (9.0)
    place_in: str | None = None     # only placed in this area, if occupied (doubt 6)
    doubt: str = ""


@record
class Landing:
    """Rule 7.4 (read with 15.3) — where a nation's armies may come ashore from the sea."""

    areas: frozenset[str] | None     # None: anywhere
    from_seas: frozenset[str] | None  # None: from any sea
    forbidden_seas: frozenset[str] = frozenset()   # seas its armies may never enter (FFG cards)

    def allows(self, area: str, sea: str | None = None) -> bool:
        """May this nation land in `area` (coming from `sea`, if given)? Adjacency is not checked here."""
        if self.areas is not None and area not in self.areas:
            return False
        return sea is None or self.from_seas is None or sea in self.from_seas


@record
class Nation:
    id: str
    name: str
    aliases: tuple[str, ...]
    code: str
    colour: str
    order: int                       # position in the order of play (4.0)
    max_armies: int
    max_cavalry: int
    max_forts: int
    max_burhs: int
    start: Mapping[str, int]         # rule 3.0
    increases_population: bool       # rule 2.24
    landing: Landing
    sea_moves: bool                  # False: may not move from sea to sea (7.41, 7.46, 7.49)
    leaders: tuple[Leader, ...]
    notes: tuple[str, ...] = ()      # rule notes of nations.yaml, for people (landing, submission ...)


@record
class Arrival:
    """A line of the Turn Record Chart: pieces placed at sea (or as reinforcement) in a round."""

    nation: str
    armies: int
    cavalry: int
    sea: str | None      # None: placed as population increase (e.g. the successor's reinforcements)
    raider: bool

    @property
    def kind(self) -> str:
        """raider | invader | reinforcement (placed as population increase, no sea)."""
        if self.sea is None:
            return "reinforcement"
        return "raider" if self.raider else "invader"


@record
class RoundInfo:
    number: int
    years: tuple[int, int]
    arrivals: tuple[Arrival, ...]
    major_invasions: frozenset[str]
    leaders: tuple[tuple[str, str], ...]   # (nation, leader id)
    boats: frozenset[str]
    notes: tuple[str, ...]


@record
class KillRule:
    """A kill line of a victory-point card: `points` for each unit of `kind` destroyed in `rounds`."""

    kind: str                        # armies | cavalry | roman_forts | leaders
    points: int
    rounds: frozenset[int]           # empty: any round
    of: frozenset[str] | None = None  # nations whose armies count (None: any other nation)
    leaders: frozenset[str] = frozenset()
    own_turn_only: bool = False      # a card's kill line scored only for kills made in the killer's own nation turn
    not_own_turn_rounds: frozenset[int] = frozenset()   # a card's kill line: not in the killer's own turn of these rounds
    of_attacking_subjects: bool = False   # R-B card: armies of former Roman subjects that attacked them

    def applies(self, rnd: int, own_turn: bool = True) -> bool:
        if self.rounds and rnd not in self.rounds:
            return False
        if self.own_turn_only and not own_turn:
            return False
        return not (own_turn and rnd in self.not_own_turn_rounds)


@record
class VPCard:
    """Rule 14.3 — a nation's victory-point card."""

    nation: str
    hold: Mapping[int, Mapping[str, int]]          # scoring occasion (1..5) -> area -> points
    capture: tuple[tuple[frozenset[int], Mapping[str, int]], ...]   # (rounds, area -> points)
    kills: tuple[KillRule, ...]
    limes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


@record(kw_only=True)
class Constants:
    """ruleset.yaml `constants` that every ruleset has, typed (`rs.const.hit`). A ruleset's own
    constants are fields of its subclass (ClassicConstants, Ffg2Constants in pbem/rules/rulesets), named
    by its rules family; `from_data` builds and checks them when ruleset.yaml loads."""

    move: int                   # 5.12 areas an army moves
    move_fast: int              # 5.12 cavalry, Roman armies
    stack_clear: int            # 5.2 plain limit in a clear area
    stack_hiland: int           # 5.2 plain limit in a hiland area
    big_stack_hiland: int       # 5.2 the one bigger group, in a hiland
    hit: int                    # 8.0 die roll that kills an army
    hit_hard: int               # 8.0 die roll that kills a hard target (cavalry, forts, Roman armies)
    leader_bonus: int           # 9.2 added to the dice of a stack with a leader
    overpop_factor: int         # 6.0 armies allowed per land area
    pop_per_army: int           # 10.1 population points per new army
    pop_clear: float            # 10.1 points of a clear area
    pop_hiland: float           # 10.1 points of a hiland area
    pop_max_saved_without_army: float   # 10.1 saved when no army piece is free
    max_rounds: int             # 4.0 game turns
    hit_fast: int | None = None   # a faster die: a cavalry unit's or an empire army's roll against ordinary targets
    big_stack_clear: int | None = None   # 5.2 the one bigger group in a clear area (None: any size)

    @classmethod
    def from_data(cls, values: Mapping[str, Any], fail: Callable[[str, str], Exception],
                  where: str = "constants") -> Constants:
        """Build from the `constants` mapping: every field present with its type (an int where a float is
        asked is kept as written, so replays stay identical), no unknown key. `fail(key, message)` makes
        the error naming the file and key."""
        return _typed(cls, values, fail, where)


def _typed(cls: type, values: Any, fail: Callable[[str, str], Exception], where: str) -> Any:
    if not isinstance(values, Mapping):
        raise fail(where, f"must be a mapping, not {values!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise fail(f"{where}.{unknown[0]}", f"is not a constant of this ruleset ({cls.__name__} has no such field; "
                                             f"known: {', '.join(sorted(fields))})")
    out = {}
    for name, f in fields.items():
        if name not in values:
            if f.default is dataclasses.MISSING:
                raise fail(f"{where}.{name}", f"missing (a {_type_name(hints[name])}, {cls.__name__})")
            continue
        out[name] = _check_type(values[name], hints[name], fail, f"{where}.{name}")
    return cls(**out)


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _check_type(v: Any, tp: Any, fail: Callable[[str, str], Exception], where: str) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return _typed(tp, v, fail, where)
    if origin in (typing.Union, types.UnionType):
        if v is None and type(None) in args:
            return None
        return _check_type(v, next(a for a in args if a is not type(None)), fail, where)
    if origin is tuple:
        if not isinstance(v, list | tuple):
            raise fail(where, f"must be a list, not {v!r}")
        return tuple(_check_type(x, args[0], fail, f"{where}.{i}") for i, x in enumerate(v))
    if tp is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise fail(where, f"must be a whole number, not {v!r}")
    if tp is float and (isinstance(v, bool) or not isinstance(v, int | float)):
        raise fail(where, f"must be a number, not {v!r}")
    return v


@record
class Ruleset:
    id: str
    name: str
    data_version: int
    areas: Mapping[str, LandArea]
    seas: Mapping[str, SeaArea]
    nations: Mapping[str, Nation]
    order_of_play: tuple[str, ...]
    rounds: Mapping[int, RoundInfo]
    # --- sections a rules family may not have (the loader fills what the data has) --------------
    vp: Mapping[str, VPCard] = field(default_factory=_empty)
    constants: Mapping[str, Any] = field(default_factory=_empty)
    scoring: Mapping[str, Any] = field(default_factory=_empty)
    """ruleset.yaml `scoring`: the common hold_rounds and vp_table_rounds, and the family's own keys
    (classic: Bretwalda, King and Limes rounds and awards)"""
    submission: Mapping[str, Any] = field(default_factory=_empty)
    """ruleset.yaml `submission` (classic 11.1, 11.2), checked by the family's schema"""
    overpopulation_exempt: Mapping[str, Any] = field(default_factory=_empty)
    control: Mapping[int, Mapping[str, tuple[str, ...]]] = field(default_factory=_empty)
    doubts: tuple[Mapping[str, Any], ...] = ()
    leaders: Mapping[str, Leader] = field(default_factory=_empty)
    overrides: tuple[str, ...] = ()
    lists: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    # --- added by issue 3 (all optional, so older constructors keep working) ----------------
    override_values: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    digest: str = ""                 # sha256 (first 12 hex) of the tables after overrides
    data_doubts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """inline `# doubt:` comments of the data files, by data path (`map.land_areas.clwyd.terrain`)"""
    settled: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """inline doubts that the rules text settles: data path -> the rule that settles it"""
    features: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """ruleset.yaml `features`: rules of one ruleset that the shared engine plays only when asked (ffg2)"""
    extras: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """ruleset-specific tables: `roman_reinforcements` (armies range -> per round), `leader_armies`"""
    roles: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """ruleset.yaml `roles`: the nation, leader, area or sea that plays a part the engine names"""
    const: Constants = None   # type: ignore[assignment]   # set by the loader
    """ruleset.yaml `constants`, typed (the family's constants class: rs.const.pop_per_army)"""
    family: str = "classic"
    optional_rules: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """ruleset.yaml `optional_rules` (classic 16.0): name -> {rule, name, play, text, feature}; a rule
    whose `play` is true (game.yaml `options`) has its `feature` in `features`"""
    not_playable: tuple[Mapping[str, Any], ...] = ()
    local_names: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=lambda: MappingProxyType({}))
    """names.<language>.yaml: language -> id -> (its name in that language, then every other spelling
    and case form a player may write); not part of `digest` (it changes no adjudication)"""
    """ruleset.yaml `not_playable`: variants of the rulebook the engine cannot play, and why"""
    latest_data_version: int = 0
    """the data version of the ruleset's files; `data_version` is lower for a game created before
    (its readings restored from ruleset.yaml `versions`); 0: the same as `data_version`"""
    version_note: str = ""
    """ruleset.yaml `versions.<n>.note` of an earlier data version: the readings it keeps"""
    """ruleset.yaml `family`: the rules family (a Rules class of pbem/rules/rulesets) that plays this ruleset"""

    @cached_property
    def rules(self) -> Rules:
        """The ruleset's rules family (pbem/rules/rulesets), one instance per loaded ruleset: the generic
        sequence of play calls `rs.rules.<name>(...)` where a ruleset differs."""
        return FAMILIES[self.family]()

    def feature(self, key: str) -> Any:
        return self.features.get(key)

    def role(self, key: str) -> Any:
        """The id (or ids) playing a named part in this ruleset (ruleset.yaml `roles`), e.g.
        `role("empire")` -> the nation of the Roman rules; None when the ruleset has no such part."""
        return self.roles.get(key)

    # --- provenance ---------------------------------------------------------------------------
    def version_line(self) -> str:
        """"ffg2, data version 1: the readings before ..." for a game playing an earlier data version of
        the ruleset (it keeps the rules it was created with); '' for the current one."""
        if not self.latest_data_version or self.data_version == self.latest_data_version:
            return ""
        return f"{self.id}, data version {self.data_version} (now {self.latest_data_version}): {self.version_note}"

    def header(self) -> str:
        """One line (more when there are overrides) naming the ruleset, data version and overrides."""
        head = f"Ruleset {self.id}, data version {self.data_version}"
        if self.digest:
            head += f" ({self.digest[:8]})"
        if not self.overrides:
            return head + ", no overrides"
        lines = [head + f", {len(self.overrides)} override{'s' if len(self.overrides) > 1 else ''}:"]
        for key in self.overrides:
            if key in self.override_values:
                value = json.dumps(self.override_values[key], sort_keys=True, separators=(",", ":"))
                if len(value) > 40:
                    value = value[:37] + "..."
                lines.append(f"  {key} = {value}")
            else:
                lines.append(f"  {key}")
        return "\n".join(lines)

    def doubts_about(self, paths: Iterable[str]) -> list[Mapping[str, Any]]:
        """The numbered doubts (ruleset.yaml `doubts`) whose `refs` touch any of these data paths."""
        paths = list(paths)
        return [d for d in self.doubts
                if any(path_overlaps(ref, p) for ref in d.get("refs", ()) for p in paths)]

    def doubt_notes(self, paths: Iterable[str]) -> list[tuple[str, str, str]]:
        """Inline doubt comments at or under these data paths: (path, comment, settled-by or "")."""
        paths = list(paths)
        return [(k, v, self.settled.get(k, "")) for k, v in self.data_doubts.items()
                if any(path_overlaps(p, k) for p in paths)]

    # --- scoring queries ------------------------------------------------------------------------
    def hold_occasion(self, rnd: int) -> int | None:
        """1..5 when holdings are scored at the end of turn `rnd` (14.2), else None (VPCard.hold keys)."""
        rounds = list(self.scoring.get("hold_rounds", ()))
        return rounds.index(rnd) + 1 if rnd in rounds else None

    # --- map queries -------------------------------------------------------------------------
    def is_sea(self, place: str) -> bool:
        return place in self.seas

    def is_land(self, place: str) -> bool:
        return place in self.areas

    def display(self, ident: str) -> str:
        for table in (self.areas, self.seas, self.nations, self.leaders):
            if ident in table:
                return table[ident].name
        return ident

    def hiland(self, area: str) -> bool:
        return area in self.areas and self.areas[area].hiland

    def region(self, area: str) -> str:
        return self.areas[area].region if area in self.areas else SEA

    def neighbours(self, place: str) -> frozenset[str]:
        """Places one ordinary step away (land-land, land-sea, sea-land, sea-sea; not straits)."""
        if place in self.areas:
            a = self.areas[place]
            return a.land | a.seas
        s = self.seas[place]
        return s.seas | s.coast

    def strait(self, a: str, b: str) -> bool:
        """Rule 5.15 — a and b are linked by a straits symbol."""
        return a in self.areas and b in self.areas[a].straits

    def english_areas(self) -> tuple[str, ...]:
        return tuple(a for a, v in self.areas.items() if v.region == "england")

    def nation_of_leader(self, leader: str) -> str:
        return self.leaders[leader].nation

    def constants_list(self, key: str) -> tuple[str, ...]:
        """A list-valued ruleset fact kept beside the constants (e.g. `south_of_york`)."""
        return tuple(self.lists.get(key, ()))

    def round_info(self, rnd: int) -> RoundInfo:
        return self.rounds[rnd]

    def players_table(self, players: int) -> Mapping[str, tuple[str, ...]]:
        return self.control[players]

