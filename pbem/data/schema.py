"""The common schema: the checks every ruleset's files pass, whatever its rules family.

Everything is checked on load: every name resolves, links are symmetric, the map's counts agree
with ruleset.yaml `map_counts`, every nation is in the order of play, limits are positive, the
timeline and the leaders agree. A broken file raises DataError naming the file and the key.

What only one family's rules read (the classic rules' Bretwalda, King and Limes rounds, submission,
the FFG tables) is not checked here: the family's `Rules.schema` (pbem/rules/rulesets/schema.py)
gets those sections with a Reader per file and checks them, reporting FILE: key as these checks do.
This module reads ruleset.yaml's common sections; pbem/data/tables.py the map, nations, timeline
and victory-point files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from pbem.data.overrides import exists
from pbem.data.read import _NAME_KINDS, FILES, LANGUAGES, file_label, names_file, names_label
from pbem.data.tables import (
    ID,
    build_map,
    build_nations,
    build_rounds,
    build_vp,
    colour_path,
    leader_places,
    map_counts,
)
from pbem.errors import DataError
from pbem.orders.names import normalize
from pbem.rules.ruleset import Constants, LandArea, Leader, Nation, Ruleset, SeaArea
from pbem.rules.rulesets.schema import Board, Reader, Schema

DOUBT_STATUSES = ("settled", "partly", "open")

# What the generic engine reads of ruleset.yaml `scoring` and `submission` when a ruleset's family
# has no such rule: none (no Bretwalda or King rounds, no Limes round, no submission). A family that
# has them (classic) requires and checks them in its schema; these fill only keys it did not write.
NO_SUCH_RULES: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "scoring": MappingProxyType({"limes_round": None, "bretwalda_rounds": (), "king_rounds": (), "awards": {},
                                 "king_turn16": {}, "king_turn16_leaders": {}}),
    "submission": MappingProxyType({"to_romans": {}, "to_angles": {}}),
})


def readers(ruleset_id: str) -> dict[str, Reader]:
    """A Reader per file of the ruleset (errors name pbem/data/<ruleset>/<file>.yaml)."""
    return {name: Reader(name, lambda name=name: file_label(ruleset_id, name)) for name in FILES}


def build(ruleset_id: str, t: dict[str, dict], applied: tuple[str, ...] = (), *,
          notes: Mapping[str, str] | None = None, names: Callable[[str, str], dict | None] = names_file) -> Ruleset:
    """Tables -> Ruleset, checking everything. Any malformed value becomes a DataError naming file and key.
    `names(ruleset_id, language)`: the parsed names.<language>.yaml of the ruleset, or None."""
    ctxs = readers(ruleset_id)
    current = ["ruleset"]
    try:
        return _build(ruleset_id, t, applied, dict(notes or {}), ctxs, current, names)
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:   # safety net
        ctx = ctxs[current[0]]
        raise ctx.fail(ctx.at, f"malformed ({type(e).__name__}: {e})") from e


def _build(ruleset_id, t, applied, notes, ctxs, current, names) -> Ruleset:
    rc = ctxs["ruleset"]
    rs = t["ruleset"]
    file_id = rc.text(rs, "id", "")
    if file_id != ruleset_id:
        raise rc.fail("id", f"is {file_id!r} but the ruleset is {ruleset_id!r}")
    name = rc.text(rs, "name", "")
    data_version = rc.integer(rc.get(rs, "data_version", ""), "data_version", minimum=1)
    constants = _constants(rc, rs)
    family = _family_name(rc, rs)
    const = _typed_constants(rc, constants, family)
    schema = _family_schema(family)
    max_rounds = constants["max_rounds"]
    extra_aliases = _extra_aliases(rc, rs)

    current[0] = "map"
    areas, seas = build_map(ctxs["map"], t["map"], extra_aliases)
    _check_counts(rc, rs, areas, seas)

    current[0] = "nations"
    nc = ctxs["nations"]
    order = _order_of_play(rc, nc, rs, t["nations"])
    raw_nations = nc.mapping(t["nations"], "nations", "")
    current[0] = "timeline"
    where_b = leader_places(ctxs["timeline"], t["timeline"], areas, schema)
    current[0] = "nations"
    leaders: dict[str, Leader] = {}
    nations = build_nations(nc, rc, raw_nations, rs, order, areas, seas, leaders, extra_aliases, where_b,
                            max_rounds, schema)

    current[0] = "timeline"
    rounds = build_rounds(ctxs["timeline"], t["timeline"], max_rounds, nations, seas, areas, leaders, schema)

    board = Board(tables=t, readers=ctxs, areas=areas, seas=seas, nations=nations, leaders=leaders,
                  max_rounds=max_rounds)
    current[0] = "ruleset"
    scoring = _scoring(rc, rs, max_rounds)
    schema.scoring(board, scoring)
    current[0] = "victory_points"
    vp = schema.cards(board, build_vp(ctxs["victory_points"], t["victory_points"], scoring, board, schema))

    current[0] = "ruleset"
    control = _control(rc, nc, rs, t["nations"], nations, schema)
    submission = schema.submission(board)
    overpop = _overpopulation(rc, rs, nations, max_rounds)
    lists = {}
    for key, kind in schema.list_keys.items():
        if key in rs:
            lists[key] = tuple(rc.ids(rs[key], key, board.universe(kind), kind))
    doubts = _doubts(rc, rs, t)
    settled = _settled(rc, rs, notes)
    features = dict(rc.mapping(rs, "features", "", required=False))
    optional, not_playable = _optional_rules(rc, rs, features)
    roles = _roles(rc, rs, {"area": areas, "sea": seas, "nation": nations, "leader": leaders})
    current[0] = "timeline"
    extras = schema.extras(board)
    current[0] = "ruleset"
    local = _local_names(ruleset_id, {"area": areas, "sea": seas, "nation": nations, "leader": leaders}, names)
    _unique_names(rc, areas, seas, nations, leaders, local, ruleset_id)
    for k in extra_aliases:
        if k not in areas and k not in seas and k not in nations and k not in leaders:
            raise rc.fail(f"aliases.{k}", "unknown id")
    for section, table in (("scoring", scoring), ("submission", submission)):
        for key, empty in NO_SUCH_RULES[section].items():
            table.setdefault(key, empty)

    return Ruleset(
        id=ruleset_id,
        name=name,
        data_version=data_version,
        latest_data_version=data_version,
        areas=MappingProxyType(areas),
        seas=MappingProxyType(seas),
        nations=MappingProxyType(nations),
        order_of_play=order,
        rounds=MappingProxyType(rounds),
        vp=MappingProxyType(vp),
        constants=MappingProxyType(constants),
        scoring=MappingProxyType(scoring),
        submission=MappingProxyType(submission),
        overpopulation_exempt=MappingProxyType(overpop),
        control=MappingProxyType(control),
        doubts=doubts,
        leaders=MappingProxyType(leaders),
        overrides=applied,
        lists=MappingProxyType(lists),
        data_doubts=MappingProxyType(dict(notes)),
        settled=MappingProxyType(settled),
        features=MappingProxyType(features),
        extras=MappingProxyType(extras),
        roles=MappingProxyType(roles),
        const=const,
        family=family,
        optional_rules=MappingProxyType(optional),
        not_playable=not_playable,
        local_names=MappingProxyType({lang: MappingProxyType(t) for lang, t in local.items()}),
    )


def _order_of_play(rc: Reader, nc: Reader, rs: dict, tn: dict) -> tuple[str, ...]:
    """Rule 4.0 — ruleset.yaml `order_of_play` names a list of nations.yaml `order_of_play`, which must
    list every nation once."""
    order_key = rc.text(rs, "order_of_play", "")
    orders = nc.mapping(tn, "order_of_play", "")
    if order_key not in orders:
        raise rc.fail("order_of_play", f"nations.yaml order_of_play has no list {order_key!r}")
    order_raw = nc.seq(orders, order_key, "order_of_play", required=True)
    raw_nations = nc.mapping(tn, "nations", "")
    for i, nid in enumerate(order_raw):
        nc.one(nid, f"order_of_play.{order_key}.{i}", raw_nations, "nation")
    if len(set(order_raw)) != len(order_raw):
        dup = next(n for n in order_raw if order_raw.count(n) > 1)
        raise nc.fail(f"order_of_play.{order_key}", f"lists {dup} twice")
    missing = [n for n in raw_nations if n not in order_raw]
    if missing:
        raise nc.fail(f"order_of_play.{order_key}", f"must list every nation; missing {', '.join(missing)}")
    return tuple(order_raw)


def _scoring(rc: Reader, rs: dict, max_rounds: int) -> dict:
    """ruleset.yaml `scoring`: the common part, the game turns at whose end holdings score (14.2) and
    the victory-point card column of each (`vp_table_rounds`); none when the ruleset scores no holdings."""
    sc = rc.mapping(rs, "scoring", "", required=False)
    if "hold_rounds" not in sc and "vp_table_rounds" not in sc:
        return {**sc, "hold_rounds": [], "vp_table_rounds": []}
    hold = rc.rounds_list(rc.get(sc, "hold_rounds", "scoring"), "scoring.hold_rounds", max_rounds)
    table = rc.get(sc, "vp_table_rounds", "scoring")
    if not isinstance(table, list) or len(table) != len(hold):
        raise rc.fail("scoring.vp_table_rounds", f"must list {len(hold)} rounds, one per holding occasion")
    if hold != sorted(set(hold)):
        raise rc.fail("scoring.hold_rounds", "must be increasing")
    return dict(sc)


def _family_schema(family: str) -> Schema:
    from pbem.rules.rulesets import FAMILIES

    return getattr(FAMILIES[family], "schema", Schema)()


def _optional_rules(rc: Reader, rs: Mapping[str, Any], features: dict[str, Any]
                    ) -> tuple[dict[str, Any], tuple[Mapping[str, Any], ...]]:
    """ruleset.yaml `optional_rules` (name -> rule, name, play, text, feature) and `not_playable`
    (rule, name, why). A rule in play (`play: true`, from game.yaml `options`) adds its `feature` to
    the ruleset's features."""
    out: dict[str, Any] = {}
    for key, d in rc.mapping(rs, "optional_rules", "", required=False).items():
        where = f"optional_rules.{key}"
        if not isinstance(d, Mapping) or not all(isinstance(d.get(k), str) for k in ("rule", "name", "text")):
            raise rc.fail(where, "must be a mapping with rule, name, text (strings), play and feature")
        if not isinstance(d.get("play", False), bool):
            raise rc.fail(f"{where}.play", "must be true or false")
        feature = d.get("feature")
        if not isinstance(feature, Mapping) or not feature:
            raise rc.fail(f"{where}.feature", "must be a mapping of feature names to values")
        if d.get("play"):
            features.update(feature)
        out[key] = MappingProxyType({**d, "play": bool(d.get("play")), "feature": MappingProxyType(dict(feature))})
    rows = rs.get("not_playable") or []
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) and all(isinstance(r.get(k), str) for k in
                                                                          ("rule", "name", "why")) for r in rows):
        raise rc.fail("not_playable", "must be a list of mappings with rule, name, why")
    return out, tuple(MappingProxyType(dict(r)) for r in rows)


def _typed_constants(rc: Reader, constants: Mapping[str, Any], family: str) -> Constants:
    """ruleset.yaml `constants` as the family's typed constants class (pbem/rules/rulesets): a missing,
    mistyped or unknown key is an error naming the file and key."""
    from pbem.rules.rulesets import FAMILIES

    return FAMILIES[family].constants_class.from_data(constants, rc.fail)


def _family_name(rc: Reader, rs: dict) -> str:
    """ruleset.yaml `family`: the registered rules family (pbem/rules/rulesets) playing the ruleset's own rules."""
    from pbem.rules.rulesets import (
        FAMILIES,  # the family modules import the rules engine, which imports this one
    )

    name = rc.text(rs, "family", "")
    if name not in FAMILIES:
        raise rc.fail("family", f"unknown rules family {name!r}; known: {', '.join(sorted(FAMILIES))}")
    return name


def _roles(rc: Reader, rs: dict, universes: Mapping[str, Mapping]) -> dict[str, Any]:
    """ruleset.yaml `roles`: which of this ruleset's nations, leaders, areas and seas play the parts
    the shared engine names (`empire: romans`); every value an id of the data (or a list of ids)."""
    known = {k: v for u in universes.values() for k, v in u.items()}
    out: dict[str, Any] = {}
    for key, value in rc.mapping(rs, "roles", "", required=False).items():
        for ident in (value if isinstance(value, list) else [value]):
            if ident not in known:
                raise rc.fail(f"roles.{key}", f"unknown id {ident!r}")
        out[key] = tuple(value) if isinstance(value, list) else value
    return out


# --- ruleset.yaml pieces -------------------------------------------------------------------------

def _numbers(ctx: Reader, v: Any, where: str) -> None:
    """Every leaf a number of at least 0 (constants are numbers, lists of numbers or maps of numbers;
    zero is a value a ruleset may have: no bonus, no points). The family's constants class types them."""
    if isinstance(v, bool) or not isinstance(v, int | float | list | Mapping):
        raise ctx.fail(where, f"must be a number, not {v!r}")
    if isinstance(v, int | float):
        if v < 0:
            raise ctx.fail(where, f"must be positive or 0, not {v}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _numbers(ctx, x, f"{where}.{i}")
    else:
        for k, x in v.items():
            _numbers(ctx, x, f"{where}.{k}")


def _constants(rc: Reader, rs: dict) -> dict[str, Any]:
    """ruleset.yaml `constants`: numbers; the game's length, the moves and the stacking limits positive,
    the hit numbers die faces."""
    constants = rc.mapping(rs, "constants", "")
    for k, v in constants.items():
        _numbers(rc, v, f"constants.{k}")
    rc.integer(rc.get(constants, "max_rounds", "constants"), "constants.max_rounds", minimum=1)
    for k in ("move", "move_fast", "stack_clear", "stack_hiland"):
        if k in constants:
            rc.integer(constants[k], f"constants.{k}", minimum=1)
    for k in ("hit", "hit_hard"):
        if k in constants and not (isinstance(constants[k], int) and 1 <= constants[k] <= 6):
            raise rc.fail(f"constants.{k}", f"must be a die face 1-6, not {constants[k]!r}")
    return dict(constants)


def _extra_aliases(rc: Reader, rs: dict) -> dict[str, tuple[str, ...]]:
    out = {}
    for k, v in rc.mapping(rs, "aliases", "", required=False).items():
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            raise rc.fail(f"aliases.{k}", "must be a list of names")
        out[str(k)] = tuple(v)
    return out


def _check_counts(rc: Reader, rs: dict, areas: dict[str, LandArea], seas: dict[str, SeaArea]) -> None:
    expected = rc.mapping(rs, "map_counts", "", required=False)
    found = map_counts(areas, seas)
    for k, v in expected.items():
        if k not in found:
            raise rc.fail(f"map_counts.{k}", f"unknown count; known: {', '.join(found)}")
        if v != found[k]:
            raise rc.fail(f"map_counts.{k}", f"the rules say {v} but map.yaml has {found[k]}")


def _control(rc: Reader, nc: Reader, rs: dict, tn: dict, nations: dict[str, Nation], schema: Schema) -> dict:
    """ruleset.yaml `control` (13.0): per player count, the player colours and the nations each plays;
    a nation's colour (nations.yaml) is that of its set in the table that names the colours."""
    control = {}
    raw = rc.mapping(rs, "control", "")
    for n, table in raw.items():
        where = f"control.{n}"
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(nations):
            raise rc.fail(where, f"player count must be a whole number from 1 to {len(nations)} (the nations)")
        if not isinstance(table, Mapping) or len(table) != n:
            raise rc.fail(where, f"must map {n} player colours to their nations")
        sets = {}
        for colour, ns in table.items():
            sets[str(colour)] = tuple(rc.ids(ns, f"{where}.{colour}", nations, "nation"))
        listed = [x for ns in sets.values() for x in ns]
        for nid in nations:
            if listed.count(nid) != 1:
                raise rc.fail(where, f"must list every nation exactly once; {nid} is listed {listed.count(nid)} times")
        control[int(n)] = MappingProxyType(sets)
    if not control:
        raise rc.fail("control", "missing: one table of player colours -> nations per player count")
    # the table that names the nations' colours (nations.yaml colour_4p): the 4-player one when there is
    # one (1.0: three to five players), else the one of the most players
    n_col = 4 if 4 in control else max(control)
    # the 4-player sets are attested in nations.yaml (13.0 table missing): both files must agree
    ref = nc.mapping(nc.mapping(tn, "control", "", required=False), "four_players", "control", required=False)
    for k, v in ref.items():
        if isinstance(v, list):
            nc.ids(v, f"control.four_players.{k}", nations, "nation")
    ref_sets = sorted(sorted(v) for k, v in ref.items() if isinstance(v, list))
    if ref_sets and ref_sets != sorted(sorted(v) for v in control[n_col].values()):
        raise rc.fail(f"control.{n_col}", "does not match nations.yaml control.four_players")
    colour_key = rs["colour_key"] if "colour_key" in rs else schema.colour_key
    raw = tn.get("nations") or {}
    for colour, ns in control[n_col].items():   # a nation's colour (nations.yaml) is its set's
        for nid in ns:
            if nations[nid].colour != colour:
                raise nc.fail(colour_path(raw.get(nid) or {}, f"nations.{nid}", colour_key),
                              f"is {nations[nid].colour!r} but ruleset.yaml control.{n_col} puts the {nid} in {colour}")
    return control


def _overpopulation(rc: Reader, rs: dict, nations, max_rounds: int) -> dict:
    raw = rc.mapping(rs, "overpopulation_exempt", "", required=False)
    for nid, when in raw.items():
        where = f"overpopulation_exempt.{nid}"
        rc.one(nid, "overpopulation_exempt", nations, "nation")
        if when != "all":
            rc.rounds_list(when, where, max_rounds)
    return dict(raw)


def _doubts(rc: Reader, rs: dict, t: dict) -> tuple[Mapping[str, Any], ...]:
    out = []
    seen = set()
    for i, d in enumerate(rc.seq(rs, "doubts", "")):
        where = f"doubts.{i}"
        if not isinstance(d, Mapping):
            raise rc.fail(where, "must be a mapping with n, topic, status, resolution, refs")
        n = rc.get(d, "n", where)
        if isinstance(n, bool) or not (isinstance(n, int) and n > 0 or isinstance(n, str) and n.strip()):
            raise rc.fail(f"{where}.n", f"must be a doubt number or label, not {n!r}")
        if n in seen:
            raise rc.fail(f"{where}.n", f"doubt {n} is listed twice")
        seen.add(n)
        rc.text(d, "topic", where)
        rc.text(d, "resolution", where)
        if "short" in d:
            rc.text(d, "short", where)
        status = d.get("status", "open")
        if status not in DOUBT_STATUSES:
            raise rc.fail(f"{where}.status", f"must be one of {', '.join(DOUBT_STATUSES)}, not {status!r}")
        refs = d.get("refs", [])
        if not isinstance(refs, list):
            raise rc.fail(f"{where}.refs", "must be a list of data paths")
        for ref in refs:
            if not isinstance(ref, str) or not exists(t, ref):
                raise rc.fail(f"{where}.refs", f"no data at {ref!r}")
        out.append(MappingProxyType({**d, "status": status, "refs": tuple(refs)}))
    return tuple(out)


def _settled(rc: Reader, rs: dict, notes: Mapping[str, str]) -> dict[str, str]:
    raw = rc.mapping(rs, "settled", "", required=False)
    for path, why in raw.items():
        if not isinstance(why, str) or not why.strip():
            raise rc.fail(f"settled.{path}", "must say which rule settles it")
        if notes and path not in notes:
            raise rc.fail(f"settled.{path}", "there is no inline doubt comment at that path")
    return {str(k): v for k, v in raw.items()}


def _unique_names(rc: Reader, areas, seas, nations, leaders, local=None, ruleset_id: str = "") -> None:
    """Ids unique across kinds, and no name, alias or (names.<language>.yaml) local name or case form
    that means two things (the resolver needs it)."""
    owner: dict[str, str] = {}
    for table in (areas, seas, nations, leaders):
        for ident, thing in table.items():
            if not ID.match(ident):
                raise rc.fail(ident, "ids are lower_snake")
            for name in (ident, thing.name, *thing.aliases):
                key = normalize(name)
                if not key:
                    raise rc.fail(ident, f"name {name!r} has no letters")
                if owner.setdefault(key, ident) != ident:
                    raise rc.fail(f"aliases.{ident}", f"name {name!r} also means {owner[key]}")
    for lang, table in (local or {}).items():
        for ident, spellings in table.items():
            for name in spellings:
                key = normalize(name)
                if owner.setdefault(key, ident) != ident:
                    raise DataError(names_label(ruleset_id, lang), ident,
                                    f"name {name!r} also means {owner[key]}")

def _local_names(ruleset_id: str, universe: Mapping[str, Mapping], names: Callable[[str, str], dict | None]
                 ) -> dict[str, dict[str, tuple[str, ...]]]:
    """language -> id -> (name, aliases, their case forms, listed forms) from names.<language>.yaml.
    An id the built ruleset lacks (a test's cut-down tables) is left out; pbem/orders/declension.py
    makes the case forms."""
    from pbem.orders.declension import forms

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for lang in LANGUAGES:
        raw = names(ruleset_id, lang)
        if raw is None:
            continue
        label = names_label(ruleset_id, lang)
        table: dict[str, tuple[str, ...]] = {}
        for section, kind in _NAME_KINDS.items():
            entries = raw.get(section) or {}
            if not isinstance(entries, Mapping):
                raise DataError(label, section, "must be a mapping of ids to names")
            for ident, e in entries.items():
                where = f"{section}.{ident}"
                if not isinstance(e, Mapping) or not isinstance(e.get("name"), str) or not e["name"].strip():
                    raise DataError(label, where, "must be a mapping with a `name`")
                extra = [e.get("aliases") or [], e.get("forms") or []]
                if not all(isinstance(x, list) and all(isinstance(a, str) and a.strip() for a in x) for x in extra):
                    raise DataError(label, where, "aliases and forms must be lists of names")
                if ident not in universe[kind]:
                    continue
                plural = bool(e.get("plural", False))
                spellings: dict[str, None] = {}
                for name in (e["name"], *extra[0]):
                    spellings.update(dict.fromkeys(forms(name, plural=plural)))
                spellings.update(dict.fromkeys(extra[1]))
                table[str(ident)] = tuple(spellings)
        out[lang] = table
    return out

