"""Read a ruleset's YAML files into the immutable `Ruleset` of pbem.rules.ruleset, checking them.

The reference files (map.yaml, nations.yaml, timeline.yaml, victory_points.yaml) keep the structure
and the doubt comments of the public sources they were gathered from; ruleset.yaml says how the
classic ruleset reads them. A broken file raises DataError naming the file and the key.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from pbem.data import data_path
from pbem.errors import DataError
from pbem.rules.ruleset import (
    Arrival,
    KillRule,
    Landing,
    LandArea,
    Leader,
    Nation,
    RoundInfo,
    Ruleset,
    SeaArea,
    VPCard,
)

FILES = ("ruleset", "map", "nations", "timeline", "victory_points")
KNOWN_RULESETS = ("classic",)


def _read_yaml(ruleset_id: str, name: str) -> dict:
    path = data_path(ruleset_id, f"{name}.yaml")
    try:
        with open(path, encoding="utf-8") as f:
            data = YAML(typ="safe").load(f)
    except FileNotFoundError as e:
        raise DataError(str(path), "-", "file missing") from e
    except YAMLError as e:
        raise DataError(str(path), "-", f"not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise DataError(str(path), "-", "top level must be a mapping")
    return data


def raw_tables(ruleset_id: str) -> dict[str, dict]:
    if ruleset_id not in KNOWN_RULESETS:
        raise DataError(ruleset_id, "ruleset", f"unknown ruleset; known: {', '.join(KNOWN_RULESETS)}")
    return {name: _read_yaml(ruleset_id, name) for name in FILES}


def load(ruleset_id: str = "classic", overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """Load and validate; the result is cached per (ruleset, overrides)."""
    key = json.dumps(overrides or {}, sort_keys=True, default=str)
    return _load_cached(ruleset_id, key)


load_ruleset = load


@functools.lru_cache(maxsize=32)
def _load_cached(ruleset_id: str, overrides_json: str) -> Ruleset:
    tables = raw_tables(ruleset_id)
    overrides = json.loads(overrides_json)
    applied = apply_overrides(tables, overrides)
    return build(ruleset_id, tables, applied)


def apply_overrides(tables: dict[str, dict], overrides: Mapping[str, Any]) -> tuple[str, ...]:
    """Per-game data overrides: `{"victory_points.nations.saxons.hold": [...], ...}`.

    A dotted key names file then the path inside it; the value replaces that node whole.
    """
    applied = []
    for dotted, value in sorted(overrides.items()):
        parts = dotted.split(".")
        if parts[0] not in tables or len(parts) < 2:
            raise DataError("overrides", dotted, f"must start with one of {', '.join(FILES)} and name a key")
        node = tables[parts[0]]
        for p in parts[1:-1]:
            if not isinstance(node, dict) or p not in node:
                raise DataError("overrides", dotted, f"no key {p!r}")
            node = node[p]
        if not isinstance(node, dict):
            raise DataError("overrides", dotted, "parent is not a mapping")
        node[parts[-1]] = copy.deepcopy(value)
        applied.append(dotted)
    return tuple(applied)


class _Ctx:
    """Remembers which file is being read so errors can name it."""

    def __init__(self, ruleset_id: str, file: str) -> None:
        self.file = f"pbem/data/{ruleset_id}/{file}.yaml"

    def fail(self, key: str, msg: str) -> DataError:
        return DataError(self.file, key, msg)

    def get(self, d: Mapping, key: str, path: str) -> Any:
        if not isinstance(d, Mapping) or key not in d:
            raise self.fail(f"{path}.{key}" if path else key, "missing")
        return d[key]


def build(ruleset_id: str, t: dict[str, dict], applied: tuple[str, ...] = ()) -> Ruleset:
    rs_ctx = _Ctx(ruleset_id, "ruleset")
    rs = t["ruleset"]
    areas, seas = _build_map(_Ctx(ruleset_id, "map"), t["map"])
    order_key = rs_ctx.get(rs, "order_of_play", "")
    nctx = _Ctx(ruleset_id, "nations")
    order = tuple(nctx.get(nctx.get(t["nations"], "order_of_play", ""), order_key, "order_of_play"))
    leaders: dict[str, Leader] = {}
    nations = _build_nations(nctx, rs_ctx, t["nations"], rs, order, areas, seas, leaders)
    rounds = _build_rounds(_Ctx(ruleset_id, "timeline"), t["timeline"], rs, nations, seas, leaders)
    vp = _build_vp(_Ctx(ruleset_id, "victory_points"), t["victory_points"], rs, nations, areas, leaders)
    control = {}
    for n, table in rs_ctx.get(rs, "control", "").items():
        table = {colour: tuple(ns) for colour, ns in table.items()}
        listed = [x for ns in table.values() for x in ns]
        if sorted(listed) != sorted(nations):
            raise rs_ctx.fail(f"control.{n}", "must list every nation exactly once")
        control[int(n)] = MappingProxyType(table)
    constants = rs_ctx.get(rs, "constants", "")
    for k, v in constants.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v <= 0:
            raise rs_ctx.fail(f"constants.{k}", "must be positive")
    return Ruleset(
        id=ruleset_id,
        name=rs_ctx.get(rs, "name", ""),
        data_version=int(rs_ctx.get(rs, "data_version", "")),
        areas=MappingProxyType(areas),
        seas=MappingProxyType(seas),
        nations=MappingProxyType(nations),
        order_of_play=order,
        rounds=MappingProxyType(rounds),
        vp=MappingProxyType(vp),
        constants=MappingProxyType(dict(constants)),
        scoring=MappingProxyType(dict(rs_ctx.get(rs, "scoring", ""))),
        submission=MappingProxyType(dict(rs_ctx.get(rs, "submission", ""))),
        overpopulation_exempt=MappingProxyType(dict(rs.get("overpopulation_exempt", {}))),
        control=MappingProxyType(control),
        doubts=tuple(MappingProxyType(d) for d in rs.get("doubts", [])),
        leaders=MappingProxyType(leaders),
        overrides=applied,
    )


def _aliases(d: Mapping) -> tuple[str, ...]:
    return tuple(str(a) for a in d.get("aliases", []) or [])


def _build_map(ctx: _Ctx, m: dict) -> tuple[dict[str, LandArea], dict[str, SeaArea]]:
    raw_land = ctx.get(m, "land_areas", "")
    raw_seas = ctx.get(m, "seas", "")
    areas: dict[str, LandArea] = {}
    for aid, a in raw_land.items():
        path = f"land_areas.{aid}"
        terrain = ctx.get(a, "terrain", path)
        if terrain not in ("clear", "hiland"):
            raise ctx.fail(f"{path}.terrain", f"must be clear or hiland, not {terrain!r}")
        areas[aid] = LandArea(
            id=aid, name=ctx.get(a, "name", path), aliases=_aliases(a), region=ctx.get(a, "region", path),
            terrain=terrain, land=frozenset(a.get("land") or []), straits=frozenset(a.get("straits") or []),
            seas=frozenset(a.get("seas") or []),
        )
    seas: dict[str, SeaArea] = {}
    for sid, s in raw_seas.items():
        path = f"seas.{sid}"
        seas[sid] = SeaArea(id=sid, name=ctx.get(s, "name", path), aliases=_aliases(s),
                            seas=frozenset(s.get("seas") or []), coast=frozenset(s.get("coast") or []))
    # every link resolves and is symmetric
    for aid, a in areas.items():
        for n in a.land:
            if n not in areas:
                raise ctx.fail(f"land_areas.{aid}.land", f"unknown area {n!r}")
            if aid not in areas[n].land:
                raise ctx.fail(f"land_areas.{n}.land", f"must list {aid} (adjacency is symmetric)")
        for n in a.straits:
            if n not in areas or aid not in areas[n].straits:
                raise ctx.fail(f"land_areas.{aid}.straits", f"{n!r} must be an area listing {aid} back")
        for s in a.seas:
            if s not in seas:
                raise ctx.fail(f"land_areas.{aid}.seas", f"unknown sea {s!r}")
            if aid not in seas[s].coast:
                raise ctx.fail(f"seas.{s}.coast", f"must list {aid}")
    for sid, s in seas.items():
        for n in s.seas:
            if n not in seas or sid not in seas[n].seas:
                raise ctx.fail(f"seas.{sid}.seas", f"{n!r} must be a sea listing {sid} back")
        for a in s.coast:
            if a not in areas or sid not in areas[a].seas:
                raise ctx.fail(f"seas.{sid}.coast", f"{a!r} must be an area listing {sid} back")
    counts = m.get("meta", {}).get("counts", {})
    checks = {
        "land_areas": len(areas), "seas": len(seas),
        "wales": sum(a.region == "wales" for a in areas.values()),
        "scotland": sum(a.region == "scotland" for a in areas.values()),
        "england": sum(a.region == "england" for a in areas.values()),
        "hiland": sum(a.hiland for a in areas.values()),
    }
    for k, v in checks.items():
        if k in counts and counts[k] != v:
            raise ctx.fail(f"meta.counts.{k}", f"says {counts[k]} but the file has {v}")
    return areas, seas


def _forces(nat: Mapping, kind: str) -> int:
    f = (nat.get("forces") or {}).get(kind) or {}
    if isinstance(f, int):
        return f
    for key in ("ah", "ffg_a", "ffg_timeline_a", "b_cap"):
        if key in f:
            return int(f[key])
    return 0


def _build_nations(ctx, rs_ctx, t: dict, rs: dict, order, areas, seas, leaders_out) -> dict[str, Nation]:
    raw = ctx.get(t, "nations", "")
    if sorted(order) != sorted(raw):
        raise rs_ctx.fail("order_of_play", "must list every nation of nations.yaml exactly once")
    never = set(rs.get("never_increase_population", []))
    no_sea = set(rs.get("no_sea_moves", []))
    landing = rs.get("landing", {})
    codes = rs.get("codes", {})
    start_override = rs.get("start", {})
    nations = {}
    for i, nid in enumerate(order):
        n = raw[nid]
        path = f"nations.{nid}"
        start_raw = n.get("start") or {}
        if nid in start_override:
            start = dict(start_override[nid])
        else:
            start = {a: 1 for a in start_raw.get("areas", [])}
        for place in start:
            if place not in areas and place not in seas:
                raise ctx.fail(f"{path}.start", f"unknown area {place!r}")
        land = landing.get(nid, {})
        for a in land.get("areas", []) or []:
            if a not in areas:
                raise rs_ctx.fail(f"landing.{nid}", f"unknown area {a!r}")
        leaders = []
        for ld in n.get("leaders", []) or []:
            lid = ld["id"]
            leader = Leader(
                id=lid, name=ld["name"], nation=nid, round=int(ld["round"]), aliases=_aliases(ld),
                stays_until_end=bool(ld.get("stays_until_end", False)),
                place_in=None, doubt="" if "S001" in str(ld.get("sources", "")) else "not in seed 001 (FFG data)",
            )
            leaders.append(leader)
            leaders_out[lid] = leader
        limits = rs.get("force_limits", {}).get(nid, {})
        max_armies = int(limits.get("armies", _forces(n, "armies")))
        if max_armies <= 0:
            raise ctx.fail(f"{path}.forces.armies", "must be positive")
        colour = (n.get("colour_4p") or {}).get("ah", "grey")
        nations[nid] = Nation(
            id=nid, name=ctx.get(n, "name", path), aliases=_aliases(n), code=codes.get(nid, nid[:2].upper()),
            colour=colour, order=i, max_armies=max_armies, max_cavalry=int(limits.get("cavalry", _forces(n, "cavalry"))),
            max_forts=_forces(n, "forts"), max_burhs=_forces(n, "burhs"), start=MappingProxyType(start),
            increases_population=nid not in never,
            landing=Landing(
                areas=frozenset(land["areas"]) if land.get("areas") else None,
                from_seas=frozenset(land["from_seas"]) if land.get("from_seas") else None,
            ),
            sea_moves=nid not in no_sea, leaders=tuple(leaders),
        )
    return nations


def _build_rounds(ctx, t: dict, rs: dict, nations, seas, leaders) -> dict[int, RoundInfo]:
    raw = ctx.get(t, "rounds", "")
    rounds = {}
    for r in range(1, int(rs["constants"]["max_rounds"]) + 1):
        if r not in raw:
            raise ctx.fail(f"rounds.{r}", "missing")
        d = raw[r]
        path = f"rounds.{r}"
        arrivals = []
        for i, a in enumerate(d.get("arrivals") or []):
            nid = a.get("nation")
            if nid not in nations:
                raise ctx.fail(f"{path}.arrivals[{i}].nation", f"unknown nation {nid!r}")
            if r == 1 and nid == "romans":
                continue  # rule 3.0: the Romans start in the Channel; no arrival on top of them
            sea = a.get("sea")
            if sea is not None and sea not in seas:
                raise ctx.fail(f"{path}.arrivals[{i}].sea", f"unknown sea {sea!r}")
            arrivals.append(Arrival(nation=nid, armies=int(a.get("armies", 0)), cavalry=int(a.get("cavalry", 0)),
                                    sea=sea, raider=a.get("kind") == "raider"))
        lds = []
        for i, ld in enumerate(d.get("leaders") or []):
            if ld["leader"] not in leaders:
                raise ctx.fail(f"{path}.leaders[{i}]", f"unknown leader {ld['leader']!r}")
            lds.append((ld["nation"], ld["leader"]))
        for key in ("major_invasions", "boats"):
            for nid in d.get(key) or []:
                if nid not in nations:
                    raise ctx.fail(f"{path}.{key}", f"unknown nation {nid!r}")
        years = tuple(d.get("years") or (0, 0))
        rounds[r] = RoundInfo(
            number=r, years=(int(years[0]), int(years[1])), arrivals=tuple(arrivals),
            major_invasions=frozenset(d.get("major_invasions") or []), leaders=tuple(lds),
            boats=frozenset(d.get("boats") or []), notes=tuple(str(x) for x in d.get("ah") or []),
        )
    return rounds


def _rounds(spec: Any) -> frozenset[int]:
    if spec in (None, "any"):
        return frozenset()
    if isinstance(spec, str) and "-" in spec:
        lo, hi = spec.split("-")
        return frozenset(range(int(lo), int(hi) + 1))
    return frozenset(int(x) for x in spec)


def _points_table(ctx, points: Mapping, path: str, areas) -> dict[str, int]:
    """{value: [areas]} -> {area: value}; an area listed twice keeps its higher value (doubt 19)."""
    out: dict[str, int] = {}
    for value, names in points.items():
        for a in names:
            if a not in areas:
                raise ctx.fail(path, f"unknown area {a!r}")
            out[a] = max(out.get(a, 0), int(value))
    return out


def _build_vp(ctx, t: dict, rs: dict, nations, areas, leaders) -> dict[str, VPCard]:
    raw = ctx.get(t, "nations", "")
    scoring = rs["scoring"]
    table_rounds = list(scoring["vp_table_rounds"])
    over = scoring.get("overrides", {})
    cards = {}
    for nid in nations:
        n = raw.get(nid, {}) or {}
        path = f"nations.{nid}"
        hold: dict[int, dict[str, int]] = {}
        for i, entry in enumerate(n.get("hold", []) or []):
            for rb in entry["rounds_b"]:
                if rb not in table_rounds:
                    raise ctx.fail(f"{path}.hold[{i}].rounds_b", f"{rb} is not a scoring round")
                hold[table_rounds.index(rb) + 1] = _points_table(ctx, entry["points"], f"{path}.hold[{i}]", areas)
        capture = []
        for i, entry in enumerate(n.get("capture", []) or []):
            rounds = _rounds(entry["rounds_b"])
            if nid == "norsemen" and "norsemen_capture_rounds" in over:
                rounds = frozenset(over["norsemen_capture_rounds"])
            capture.append((rounds, MappingProxyType(_points_table(ctx, entry["points"], f"{path}.capture[{i}]", areas))))
        limes = {}
        for i, entry in enumerate(n.get("limes", []) or []):
            limes = _points_table(ctx, entry["points"], f"{path}.limes[{i}]", areas)
        kills = []
        k = n.get("kills") or {}
        for kr in k.get("armies", []) or []:
            of = kr.get("of")
            of_set = None if of in (None, "any_other_nation") else frozenset(of)
            if nid == "scots" and of_set is not None:   # doubt 21: read as any other nation
                of_set = None
            kills.append(KillRule("armies", int(kr["points"]), _rounds(kr.get("rounds_b")), of=of_set))
        for kr in k.get("roman_forts", []) or []:
            pts = int(kr["points"])
            if nid == "angles" and "angles_roman_fort_kill" in over:
                pts = int(over["angles_roman_fort_kill"])
            kills.append(KillRule("roman_forts", pts, _rounds(kr.get("rounds_b"))))
        for kr in k.get("leaders", []) or []:
            names = kr["leader"] if isinstance(kr["leader"], list) else [kr["leader"]]
            for ld in names:
                if ld not in leaders:
                    raise ctx.fail(f"{path}.kills.leaders", f"unknown leader {ld!r}")
            kills.append(KillRule("leaders", int(kr["points"]), _rounds(kr.get("rounds_b")), leaders=frozenset(names)))
        cards[nid] = VPCard(
            nation=nid, hold=MappingProxyType({o: MappingProxyType(v) for o, v in hold.items()}),
            capture=tuple(capture), kills=tuple(kills), limes=MappingProxyType(limes),
        )
    return cards
