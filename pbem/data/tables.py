"""The common schema of the map, nations, timeline and victory-point files of a ruleset.

map.yaml: land areas (region, terrain clear or hiland, land neighbours, straits, seas) and seas,
every link listed on both ends, and the summary blocks agreeing with the areas. nations.yaml: the
nations with their pieces, start, leaders and colours. timeline.yaml: per game turn, the arrivals,
leaders, major invasions and boats. victory_points.yaml: each nation's card. The readings a rules
family owns (the sources a piece count is read from, the leaders' doubts, extra kill-line fields)
are asked of its Schema (pbem/rules/rulesets/schema.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from pbem.rules.ruleset import (
    Arrival,
    KillRule,
    LandArea,
    Landing,
    Leader,
    Nation,
    RoundInfo,
    SeaArea,
    VPCard,
)
from pbem.rules.rulesets.schema import Board, Reader, Schema

TERRAINS = ("clear", "hiland")
ARRIVAL_KINDS = ("raider", "invader", "reinforcement")
ID = re.compile(r"^[a-z][a-z0-9_]*$")
_CODE = re.compile(r"^[A-Z]{1,2}$")  # 2.21: a 1 or 2 letter nationality code


def map_counts(areas: Mapping[str, LandArea], seas: Mapping[str, SeaArea]) -> dict[str, int]:
    """The counts ruleset.yaml `map_counts` and map.yaml `meta.counts` may state (rule 2.1): areas and
    seas, the areas of each region, of each terrain, the borders of each kind, coastal and inland areas."""
    regions = dict.fromkeys(a.region for a in areas.values())
    return {
        "land_areas": len(areas), "seas": len(seas),
        **{r: sum(a.region == r for a in areas.values()) for r in regions},
        "hiland": sum(a.hiland for a in areas.values()),
        "clear": sum(not a.hiland for a in areas.values()),
        "land_land_borders": sum(len(a.land) for a in areas.values()) // 2,
        "straits": sum(len(a.straits) for a in areas.values()) // 2,
        "land_sea_borders": sum(len(a.seas) for a in areas.values()),
        "sea_sea_borders": sum(len(s.seas) for s in seas.values()) // 2,
        "coastal_areas": sum(a.coastal for a in areas.values()),
        "inland_areas": sum(not a.coastal for a in areas.values()),
    }


def nation_colour(ctx: Reader, n: Mapping, path: str, colour_key: str | None) -> str:
    """nations.yaml: a nation's colour, `colour: <colour>`, or `colour_4p.<key>` (the colour of its set
    in the four-player game, by source: ruleset.yaml `colour_key`, else the family's)."""
    if "colour" in n or colour_key is None:
        return ctx.text(n, "colour", path)
    return str(ctx.text(ctx.mapping(n, "colour_4p", path), colour_key, f"{path}.colour_4p"))


def colour_path(n: Mapping, path: str, colour_key: str | None) -> str:
    """The data path of a nation's colour (for the messages that name it)."""
    return f"{path}.colour" if "colour" in n or colour_key is None else f"{path}.colour_4p.{colour_key}"


# --- map.yaml ------------------------------------------------------------------------------------

def _aliases(ctx: Reader, d: Mapping, where: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    raw = d.get("aliases") or []
    if not isinstance(raw, list) or not all(isinstance(a, str) and a.strip() for a in raw):
        raise ctx.fail(f"{where}.aliases", "must be a list of names")
    return tuple(dict.fromkeys([*raw, *extra]))


def build_map(ctx: Reader, m: dict, extra_aliases) -> tuple[dict[str, LandArea], dict[str, SeaArea]]:
    raw_land = ctx.mapping(m, "land_areas", "")
    raw_seas = ctx.mapping(m, "seas", "")
    for sid in raw_seas:
        if sid in raw_land:
            raise ctx.fail(f"seas.{sid}", "is also a land area")
    listed_regions = list(ctx.mapping(m, "regions", "", required=False))   # the regions block, if any, names them all
    areas: dict[str, LandArea] = {}
    for aid, a in raw_land.items():
        path = f"land_areas.{aid}"
        if not isinstance(aid, str) or not ID.match(aid):
            raise ctx.fail(path, "ids are lower_snake")
        if not isinstance(a, Mapping):
            raise ctx.fail(path, "must be a mapping")
        terrain = ctx.get(a, "terrain", path)
        if terrain not in TERRAINS:
            raise ctx.fail(f"{path}.terrain", f"must be clear or hiland, not {terrain!r}")
        region = ctx.get(a, "region", path)
        if not isinstance(region, str) or not ID.match(region):
            raise ctx.fail(f"{path}.region", f"must be a region id (lower_snake), not {region!r}")
        if listed_regions and region not in listed_regions:
            raise ctx.fail(f"{path}.region", f"must be one of {', '.join(listed_regions)} (map.yaml regions), not {region!r}")
        land = ctx.ids(a.get("land") or [], f"{path}.land", raw_land, "area")
        straits = ctx.ids(a.get("straits") or [], f"{path}.straits", raw_land, "area")
        sea_ids = ctx.ids(a.get("seas") or [], f"{path}.seas", raw_seas, "sea")
        for key, vals in (("land", land), ("straits", straits), ("seas", sea_ids)):
            if aid in vals:
                raise ctx.fail(f"{path}.{key}", "an area cannot border itself")
            if len(set(vals)) != len(vals):
                raise ctx.fail(f"{path}.{key}", "lists a place twice")
        both = set(land) & set(straits)
        if both:
            raise ctx.fail(f"{path}.straits", f"{sorted(both)[0]} is both a land neighbour and a strait")
        areas[aid] = LandArea(
            id=aid, name=ctx.text(a, "name", path), aliases=_aliases(ctx, a, path, extra_aliases.get(aid, ())),
            region=region, terrain=terrain, land=frozenset(land), straits=frozenset(straits),
            seas=frozenset(sea_ids),
        )
    seas: dict[str, SeaArea] = {}
    for sid, s in raw_seas.items():
        path = f"seas.{sid}"
        if not isinstance(sid, str) or not ID.match(sid):
            raise ctx.fail(path, "ids are lower_snake")
        if not isinstance(s, Mapping):
            raise ctx.fail(path, "must be a mapping")
        nb = ctx.ids(s.get("seas") or [], f"{path}.seas", raw_seas, "sea")
        coast = ctx.ids(s.get("coast") or [], f"{path}.coast", raw_land, "area")
        if sid in nb:
            raise ctx.fail(f"{path}.seas", "a sea cannot border itself")
        seas[sid] = SeaArea(id=sid, name=ctx.text(s, "name", path), aliases=_aliases(ctx, s, path, extra_aliases.get(sid, ())),
                            seas=frozenset(nb), coast=frozenset(coast))
    # every link is listed on both ends
    for aid, a in areas.items():
        for n in sorted(a.land):
            if aid not in areas[n].land:
                raise ctx.fail(f"land_areas.{n}.land", f"must list {aid} (adjacency is symmetric)")
        for n in sorted(a.straits):
            if aid not in areas[n].straits:
                raise ctx.fail(f"land_areas.{n}.straits", f"must list {aid} (straits are symmetric)")
        for s in sorted(a.seas):
            if aid not in seas[s].coast:
                raise ctx.fail(f"seas.{s}.coast", f"must list {aid} (it lists {s} among its seas)")
    for sid, s in seas.items():
        for n in sorted(s.seas):
            if sid not in seas[n].seas:
                raise ctx.fail(f"seas.{n}.seas", f"must list {sid} (adjacency is symmetric)")
        for a in sorted(s.coast):
            if sid not in areas[a].seas:
                raise ctx.fail(f"land_areas.{a}.seas", f"must list {sid} (its coast lists {a})")
    _map_blocks(ctx, m, areas, seas)
    return areas, seas


def _map_blocks(ctx: Reader, m: dict, areas: dict[str, LandArea], seas: dict[str, SeaArea]) -> None:
    """The summary blocks of map.yaml (regions, straits, four corners, meta.counts) agree with the areas."""
    regions = ctx.mapping(m, "regions", "", required=False)
    for region, ids in regions.items():
        ctx.ids(ids, f"regions.{region}", areas, "area")
        actual = sorted(a for a, v in areas.items() if v.region == region)
        if sorted(ids) != actual:
            diff = sorted(set(ids) ^ set(actual))
            raise ctx.fail(f"regions.{region}", f"disagrees with the areas' region fields about {', '.join(diff)}")
    straits = ctx.seq(m, "straits", "")
    for i, pair in enumerate(straits):
        where = f"straits.{i}"
        ctx.ids(pair, where, areas, "area")
        if len(pair) != 2 or pair[1] not in areas[pair[0]].straits:
            raise ctx.fail(where, "must be two areas whose `straits` list each other")
    if straits:
        listed = {frozenset(p) for p in straits}
        actual = {frozenset((a, b)) for a, v in areas.items() for b in v.straits}
        if listed != actual:
            raise ctx.fail("straits", "must list exactly the straits of the land areas")
    corners = ctx.mapping(m, "four_corners", "", required=False)
    for i, pair in enumerate(ctx.seq(corners, "not_adjacent", "four_corners")):
        where = f"four_corners.not_adjacent.{i}"
        ctx.ids(pair, where, areas, "area")
        if len(pair) != 2 or pair[1] in areas[pair[0]].land:
            raise ctx.fail(where, "these areas meet at a point only and must not be land neighbours (5.14)")
    counts = ctx.mapping(ctx.mapping(m, "meta", "", required=False), "counts", "meta", required=False)
    found = map_counts(areas, seas)
    for k, v in counts.items():
        if k in found and v != found[k]:
            raise ctx.fail(f"meta.counts.{k}", f"says {v} but the file has {found[k]}")


# --- nations.yaml --------------------------------------------------------------------------------

def _forces(ctx: Reader, nat: Mapping, kind: str, where: str, keys: tuple[str, ...] = ()) -> int:
    """nations.yaml `forces.<kind>`: a number, or {source: number} read by the first of `keys` present."""
    forces = nat.get("forces") or {}
    if not isinstance(forces, Mapping):
        raise ctx.fail(f"{where}.forces", "must be a mapping of piece kind -> count")
    f = forces.get(kind) or {}
    if isinstance(f, int) and not isinstance(f, bool):
        return ctx.integer(f, f"{where}.forces.{kind}", minimum=0)
    if not isinstance(f, Mapping):
        raise ctx.fail(f"{where}.forces.{kind}", "must be a number or a mapping of source -> number")
    for key in keys:
        if key in f:
            return ctx.integer(f[key], f"{where}.forces.{kind}.{key}", minimum=0)
    return 0


def leader_places(tc: Reader, tt: dict, areas, schema: Schema) -> dict[str, str]:
    """timeline.yaml leaders' only area of entry (the family's `leader_place_keys`: e.g.
    a leader who enters in one area only) -> Leader.place_in."""
    out = {}
    rounds = tt.get("rounds") if isinstance(tt, Mapping) else None
    if not isinstance(rounds, Mapping):
        return out
    for r, d in rounds.items():
        lds = d.get("leaders") if isinstance(d, Mapping) else None
        for i, ld in enumerate(lds if isinstance(lds, list) else []):
            keys = schema.leader_place_keys
            key = next((k for k in keys if isinstance(ld, Mapping) and k in ld), keys[-1])
            if isinstance(ld, Mapping) and ld.get(key) is not None and isinstance(ld.get("leader"), str):
                out[ld["leader"]] = tc.one(ld[key], f"rounds.{r}.leaders.{i}.{key}", areas, "area")
    return out


def build_nations(ctx, rc, raw, rs: dict, order, areas, seas, leaders_out, extra_aliases, where_b,
                   max_rounds, schema: Schema) -> dict[str, Nation]:
    never = rc.ids(rs.get("never_increase_population") or [], "never_increase_population", raw, "nation")
    no_sea = rc.ids(rs.get("no_sea_moves") or [], "no_sea_moves", raw, "nation")
    landing = rc.mapping(rs, "landing", "", required=False)
    codes = rc.mapping(rs, "codes", "")
    start_override = rc.mapping(rs, "start", "", required=False)
    limits_all = rc.mapping(rs, "force_limits", "", required=False)
    colour_key = rc.text(rs, "colour_key", "") if "colour_key" in rs else schema.colour_key   # colour_4p.<key>
    fkeys = (*(tuple(rc.seq(rs, "forces_keys", "")) if "forces_keys" in rs else ()), *schema.forces_keys)
    forbidden = rc.mapping(rs, "forbidden_seas", "", required=False)
    for nid, ss in forbidden.items():
        rc.one(nid, "forbidden_seas", raw, "nation")
        rc.ids(ss, f"forbidden_seas.{nid}", seas, "sea")
    for key, table in (("landing", landing), ("codes", codes), ("start", start_override),
                       ("force_limits", limits_all)):
        for nid in table:
            rc.one(nid, key, raw, "nation")
    seen_codes: dict[str, str] = {}
    for nid in order:
        code = codes.get(nid)
        if not isinstance(code, str) or not _CODE.match(code):
            raise rc.fail(f"codes.{nid}", f"must be a 1 or 2 letter code (2.21), not {code!r}")
        if seen_codes.setdefault(code, nid) != nid:
            raise rc.fail(f"codes.{nid}", f"code {code} is also the {seen_codes[code]}' code")
    nations = {}
    for i, nid in enumerate(order):
        n = raw[nid]
        path = f"nations.{nid}"
        if not isinstance(n, Mapping):
            raise ctx.fail(path, "must be a mapping")
        # start (3.0): ruleset.yaml `start` wins; else one army in each start area
        if nid in start_override:
            start = {}
            for place, count in rc.mapping(start_override, nid, "start").items():
                rc.one(place, f"start.{nid}", [*areas, *seas], "area or sea")
                start[place] = rc.integer(count, f"start.{nid}.{place}", minimum=1)
        else:
            start_raw = ctx.mapping(n, "start", path, required=False)
            start = {a: 1 for a in ctx.ids(start_raw.get("areas") or [], f"{path}.start.areas", areas, "area")}
        land = landing.get(nid) or {}
        if not isinstance(land, Mapping):
            raise rc.fail(f"landing.{nid}", "must be a mapping with areas and/or from_seas")
        land_areas = rc.ids(land.get("areas") or [], f"landing.{nid}.areas", areas, "area")
        from_seas = rc.ids(land.get("from_seas") or [], f"landing.{nid}.from_seas", seas, "sea")
        for a in land_areas:
            if not areas[a].coastal:
                raise rc.fail(f"landing.{nid}.areas", f"{a} is not coastal")
            if from_seas and not areas[a].seas & set(from_seas):
                raise rc.fail(f"landing.{nid}.areas", f"{a} borders none of {', '.join(from_seas)}")
        leaders = []
        for j, ld in enumerate(ctx.seq(n, "leaders", path)):
            lpath = f"{path}.leaders.{j}"
            if not isinstance(ld, Mapping):
                raise ctx.fail(lpath, "must be a mapping with id, name, round")
            lid = ctx.text(ld, "id", lpath)
            if not ID.match(lid):
                raise ctx.fail(f"{lpath}.id", "ids are lower_snake")
            if lid in leaders_out:
                raise ctx.fail(f"{lpath}.id", f"leader {lid} is listed twice")
            rnd = ctx.integer(ctx.get(ld, "round", lpath), f"{lpath}.round", minimum=1)
            if rnd > max_rounds:
                raise ctx.fail(f"{lpath}.round", f"turn {rnd} is after the last turn")
            place = where_b.get(lid)
            doubt = schema.leader_doubt(rs, ld, ctx.text(n, "name", path), areas[place].name if place else None)
            leader = Leader(
                id=lid, name=ctx.text(ld, "name", lpath), nation=nid, round=rnd,
                aliases=_aliases(ctx, ld, lpath, extra_aliases.get(lid, ())),
                stays_until_end=bool(ld.get("stays_until_end", False)), place_in=place, doubt=doubt,
            )
            leaders.append(leader)
            leaders_out[lid] = leader
        limits = limits_all.get(nid) or {}
        if not isinstance(limits, Mapping):
            raise rc.fail(f"force_limits.{nid}", "must be a mapping (armies, cavalry)")
        max_armies = (rc.integer(limits["armies"], f"force_limits.{nid}.armies", minimum=1) if "armies" in limits
                      else _forces(ctx, n, "armies", path, fkeys))
        if max_armies <= 0:
            raise ctx.fail(f"{path}.forces.armies", "must be positive")
        max_cavalry = (rc.integer(limits["cavalry"], f"force_limits.{nid}.cavalry", minimum=0) if "cavalry" in limits
                       else _forces(ctx, n, "cavalry", path, fkeys))
        start_total = sum(start.values())
        if start_total > max_armies:
            raise ctx.fail(f"{path}.start", f"{start_total} starting armies but only {max_armies} pieces")
        colour = nation_colour(ctx, n, path, colour_key)
        nations[nid] = Nation(
            id=nid, name=ctx.text(n, "name", path), aliases=_aliases(ctx, n, path, extra_aliases.get(nid, ())),
            code=codes[nid], colour=str(colour), order=i, max_armies=max_armies, max_cavalry=max_cavalry,
            max_forts=_forces(ctx, n, "forts", path, fkeys), max_burhs=_forces(ctx, n, "burhs", path, fkeys),
            start=MappingProxyType(start), increases_population=nid not in never,
            landing=Landing(
                areas=frozenset(land_areas) if land_areas else None,
                from_seas=frozenset(from_seas) if from_seas else None,
                forbidden_seas=frozenset(forbidden.get(nid) or ()),
            ),
            sea_moves=nid not in no_sea, leaders=tuple(leaders),
            notes=tuple(str(x) for x in ctx.seq(n, "notes", path)),
        )
    return nations


# --- timeline.yaml -------------------------------------------------------------------------------

def build_rounds(ctx, t: dict, max_rounds: int, nations, seas, areas, leaders, schema: Schema) -> dict[int, RoundInfo]:
    raw = ctx.mapping(t, "rounds", "")
    extra = [r for r in raw if not (isinstance(r, int) and 1 <= r <= max_rounds)]
    if extra:
        raise ctx.fail(f"rounds.{extra[0]}", f"rounds are numbered 1 to {max_rounds}")
    rounds = {}
    placed: dict[str, int] = {}
    prev_end = None
    for r in range(1, max_rounds + 1):
        path = f"rounds.{r}"
        d = ctx.mapping(raw, r, "rounds")
        years = d.get("years") or [0, 0]
        if (not isinstance(years, list) or len(years) != 2
                or not all(isinstance(y, int) and not isinstance(y, bool) for y in years) or years[0] > years[1]):
            raise ctx.fail(f"{path}.years", "must be [first year, last year]")
        if prev_end is not None and years[0] < prev_end:
            raise ctx.fail(f"{path}.years", f"starts before the previous turn ends ({prev_end})")
        prev_end = years[1]
        arrivals = []
        for i, a in enumerate(ctx.seq(d, "arrivals", path)):
            apath = f"{path}.arrivals.{i}"
            if not isinstance(a, Mapping):
                raise ctx.fail(apath, "must be a mapping")
            nid = ctx.one(a.get("nation"), f"{apath}.nation", nations, "nation")
            kind = a.get("kind", "invader")
            if kind not in ARRIVAL_KINDS:
                raise ctx.fail(f"{apath}.kind", f"must be one of {', '.join(ARRIVAL_KINDS)}, not {kind!r}")
            sea = a.get("sea")
            if sea is None and kind != "reinforcement":
                raise ctx.fail(f"{apath}.sea", "missing (only a reinforcement has no sea)")
            if sea is not None:
                ctx.one(sea, f"{apath}.sea", seas, "sea")
            armies = ctx.integer(a.get("armies", 0), f"{apath}.armies", minimum=0)
            cavalry = ctx.integer(a.get("cavalry", 0), f"{apath}.cavalry", minimum=0)
            nat = nations[nid]
            if armies + cavalry == 0:
                raise ctx.fail(apath, "brings no units")
            if armies > nat.max_armies:
                raise ctx.fail(f"{apath}.armies", f"{armies} is more than the {nat.name}' {nat.max_armies} army pieces")
            if cavalry > nat.max_cavalry:
                raise ctx.fail(f"{apath}.cavalry", f"{cavalry} is more than the {nat.name}' {nat.max_cavalry} cavalry pieces")
            if sea is not None and nat.landing.from_seas is not None and sea not in nat.landing.from_seas:
                raise ctx.fail(f"{apath}.sea", f"the {nat.name} land only from {', '.join(sorted(nat.landing.from_seas))}")
            if nat.start.get(sea or "", 0) and r == 1:
                continue  # rule 3.0: the nation starts at sea there; no arrival on top of them
            arrivals.append(Arrival(nation=nid, armies=armies, cavalry=cavalry, sea=sea, raider=kind == "raider"))
        lds = []
        for i, ld in enumerate(ctx.seq(d, "leaders", path)):
            lpath = f"{path}.leaders.{i}"
            if not isinstance(ld, Mapping):
                raise ctx.fail(lpath, "must be a mapping with nation and leader")
            lid = ctx.one(ld.get("leader"), f"{lpath}.leader", leaders, "leader")
            nid = ctx.one(ld.get("nation"), f"{lpath}.nation", nations, "nation")
            if leaders[lid].nation != nid:
                raise ctx.fail(f"{lpath}.nation", f"{lid} is a leader of the {leaders[lid].nation}")
            if leaders[lid].round != r:
                raise ctx.fail(lpath, f"{lid} enters in turn {leaders[lid].round} according to nations.yaml")
            if lid in placed:
                raise ctx.fail(lpath, f"{lid} already enters in turn {placed[lid]}")
            placed[lid] = r
            lds.append((nid, lid))
        major = ctx.ids(d.get("major_invasions") or [], f"{path}.major_invasions", nations, "nation")
        boats = ctx.ids(d.get("boats") or [], f"{path}.boats", nations, "nation")
        keys = schema.round_notes_keys   # the notes for people of a round: the first of the family's keys present
        note_key = next((k for k in keys if k in d), keys[-1])
        notes = d.get(note_key) or []
        if not isinstance(notes, list):
            raise ctx.fail(f"{path}.{note_key}", "must be a list of texts")
        rounds[r] = RoundInfo(
            number=r, years=(years[0], years[1]), arrivals=tuple(arrivals),
            major_invasions=frozenset(major), leaders=tuple(lds),
            boats=frozenset(boats), notes=tuple(str(x) for x in notes),
        )
    for lid, leader in leaders.items():
        if lid not in placed:
            raise ctx.fail(f"rounds.{leader.round}.leaders", f"leader {lid} of nations.yaml never enters")
    return rounds


# --- victory_points.yaml -------------------------------------------------------------------------

def _points_table(ctx: Reader, points: Any, path: str, areas) -> dict[str, int]:
    """{value: [areas]} -> {area: value}; an area listed twice keeps its higher value (doubt 19)."""
    if not isinstance(points, Mapping):
        raise ctx.fail(path, "must map points to lists of areas")
    out: dict[str, int] = {}
    for value, names in points.items():
        ctx.integer(value, f"{path}.{value}", minimum=1)
        for a in ctx.ids(names, f"{path}.{value}", areas, "area"):
            out[a] = max(out.get(a, 0), int(value))
    return out


KILL_KINDS = ("armies", "cavalry", "roman_forts", "leaders")
KILL_OF_ANY = (None, "any_other_nation", "any_enemy_nation")   # `of:` that counts every other nation's pieces


def build_vp(ctx: Reader, t: dict, scoring: dict, board: Board, schema: Schema) -> dict[str, VPCard]:
    """Rule 14.3 — victory_points.yaml: a card per nation of holding tables (one per scoring occasion
    of ruleset.yaml scoring.vp_table_rounds), capture tables, kill lines and a Limes table. Kill lines
    may carry what the family reads (Schema.kill_line, Schema.kill_of)."""
    nations, areas, leaders, max_rounds = board.nations, board.areas, board.leaders, board.max_rounds
    raw = ctx.mapping(t, "nations", "")
    for nid in raw:
        ctx.one(nid, "nations", nations, "nation")
    table_rounds = list(scoring["vp_table_rounds"])
    cards = {}
    for nid in nations:
        n = raw.get(nid) or {}
        path = f"nations.{nid}"
        if not isinstance(n, Mapping):
            raise ctx.fail(path, "must be a mapping")
        hold: dict[int, dict[str, int]] = {}
        for i, entry in enumerate(ctx.seq(n, "hold", path)):
            hpath = f"{path}.hold.{i}"
            rbs = ctx.seq(entry, "rounds_b", hpath, required=True)
            table = _points_table(ctx, ctx.get(entry, "points", hpath), f"{hpath}.points", areas)
            for rb in rbs:
                if rb not in table_rounds:
                    raise ctx.fail(f"{hpath}.rounds_b", f"{rb} is not a scoring round ({table_rounds})")
                occasion = table_rounds.index(rb) + 1
                if occasion in hold:
                    raise ctx.fail(f"{hpath}.rounds_b", f"round {rb} has two holding tables")
                hold[occasion] = table
        capture = []
        for i, entry in enumerate(ctx.seq(n, "capture", path)):
            cpath = f"{path}.capture.{i}"
            rounds = ctx.round_set(ctx.get(entry, "rounds_b", cpath), f"{cpath}.rounds_b", max_rounds)
            table = _points_table(ctx, ctx.get(entry, "points", cpath), f"{cpath}.points", areas)
            capture.append((rounds, MappingProxyType(table)))
        limes: dict[str, int] = {}
        for i, entry in enumerate(ctx.seq(n, "limes", path)):
            limes = _points_table(ctx, ctx.get(entry, "points", f"{path}.limes.{i}"), f"{path}.limes.{i}.points", areas)
        kills = []
        k = ctx.mapping(n, "kills", path, required=False)
        known_kinds = {*KILL_KINDS, "none"}
        for kind in k:
            if kind not in known_kinds:
                raise ctx.fail(f"{path}.kills.{kind}", f"unknown kind; kinds are {', '.join(sorted(known_kinds))}")
        for kind in KILL_KINDS:
            for i, kr in enumerate(ctx.seq(k, kind, f"{path}.kills")):
                if not isinstance(kr, Mapping):
                    raise ctx.fail(f"{path}.kills.{kind}.{i}", "must be a mapping with points and rounds_b")
        for kind in ("armies", "cavalry"):
            for i, kr in enumerate(ctx.seq(k, kind, f"{path}.kills")):
                kpath = f"{path}.kills.{kind}.{i}"
                of = kr.get("of")
                flags = {}
                if of in KILL_OF_ANY:
                    of_set = None
                elif isinstance(of, str) and of in schema.kill_of:
                    of_set, flags = None, {schema.kill_of[of]: True}
                else:
                    of_set = frozenset(ctx.ids(of, f"{kpath}.of", nations, "nation"))
                pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
                kills.append(KillRule(kind, pts, ctx.round_set(kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                      of=of_set, **flags, **schema.kill_line(board, kind, kr, kpath)))
        for i, kr in enumerate(ctx.seq(k, "roman_forts", f"{path}.kills")):
            kpath = f"{path}.kills.roman_forts.{i}"
            pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
            kills.append(KillRule("roman_forts", pts, ctx.round_set(kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                  **schema.kill_line(board, "roman_forts", kr, kpath)))
        for i, kr in enumerate(ctx.seq(k, "leaders", f"{path}.kills")):
            kpath = f"{path}.kills.leaders.{i}"
            who = ctx.get(kr, "leader", kpath)
            names = who if isinstance(who, list) else [who]
            ctx.ids(names, f"{kpath}.leader", leaders, "leader")
            pts = ctx.integer(ctx.get(kr, "points", kpath), f"{kpath}.points", minimum=1)
            kills.append(KillRule("leaders", pts, ctx.round_set(kr.get("rounds_b"), f"{kpath}.rounds_b", max_rounds),
                                  leaders=frozenset(names)))
        cards[nid] = VPCard(
            nation=nid, hold=MappingProxyType({o: MappingProxyType(v) for o, v in sorted(hold.items())}),
            capture=tuple(capture), kills=tuple(kills), limes=MappingProxyType(limes),
        )
    return cards
