"""Issue 3 — validation on load: a broken data file gives a DataError naming the file and the key."""

import random
import shutil

import pytest

from pbem.data import loader
from pbem.data.loader import load, load_from_tables, raw_notes, raw_tables
from pbem.errors import DataError, PbemError


@pytest.fixture
def t():
    return raw_tables("classic")


def broken(t, file, key_part, message_part=""):
    """Build from the (broken) tables; the DataError must name file and key."""
    with pytest.raises(DataError) as e:
        load_from_tables(t)
    err = e.value
    assert isinstance(err, PbemError)
    assert err.file.endswith(f"{file}.yaml"), str(err)
    assert key_part in err.key, str(err)
    assert message_part in str(err), str(err)
    return err


def test_the_shipped_files_load():
    rs = load_from_tables(raw_tables("classic"), notes=raw_notes("classic"))
    assert len(rs.areas) == 37 and rs.digest == load().digest


def test_load_from_tables_does_not_change_its_input(t):
    before = repr(t)
    load_from_tables(t, overrides={"ruleset.constants.move": 3})
    assert repr(t) == before


# --- map.yaml ------------------------------------------------------------------------------------

def test_one_sided_land_border(t):
    t["map"]["land_areas"]["bernicia"]["land"].remove("york")
    broken(t, "map", "land_areas.bernicia.land", "must list york")


def test_one_sided_sea_border(t):
    t["map"]["seas"]["north_sea"]["coast"].remove("york")
    broken(t, "map", "seas.north_sea.coast", "york")


def test_one_sided_strait(t):
    t["map"]["land_areas"]["skye"]["straits"] = []
    broken(t, "map", "straits", "")


def test_unknown_area_name_suggests_the_right_one(t):
    t["map"]["land_areas"]["bernicia"]["land"].append("yrok")
    broken(t, "map", "land_areas.bernicia.land", "did you mean york")


def test_unknown_sea_name(t):
    t["map"]["land_areas"]["york"]["seas"].append("baltic_sea")
    broken(t, "map", "land_areas.york.seas", "unknown sea 'baltic_sea'")


def test_bad_terrain(t):
    t["map"]["land_areas"]["york"]["terrain"] = "swamp"
    broken(t, "map", "land_areas.york.terrain", "clear or hiland")


def test_bad_region(t):
    t["map"]["land_areas"]["york"]["region"] = "mercia"
    broken(t, "map", "land_areas.york.region")


def test_region_block_must_agree_with_the_areas(t):
    t["map"]["land_areas"]["york"]["region"] = "scotland"
    broken(t, "map", "regions.", "york")


def test_wales_count_of_rule_2_11(t):
    """Region moved consistently in map.yaml: ruleset.yaml's map_counts (rule 2.11) still catches it."""
    t["map"]["land_areas"]["hwicce"]["region"] = "wales"
    t["map"]["regions"]["wales"].append("hwicce")
    t["map"]["regions"]["england"].remove("hwicce")
    del t["map"]["meta"]
    broken(t, "ruleset", "map_counts.wales", "7")


def test_hiland_count(t):
    t["map"]["land_areas"]["york"]["terrain"] = "hiland"
    broken(t, "map", "meta.counts.hiland", "17")
    del t["map"]["meta"]
    broken(t, "ruleset", "map_counts.hiland")


def test_thirty_seven_land_areas(t):
    a = t["map"]["land_areas"]
    a["wight"] = {"name": "Wight", "region": "england", "terrain": "clear", "land": [], "seas": []}
    del t["map"]["meta"], t["map"]["regions"]
    broken(t, "ruleset", "map_counts.land_areas", "37")


def test_four_corners_must_stay_apart(t):
    a = t["map"]["land_areas"]
    a["lothian"]["land"].append("cumbria")
    a["cumbria"]["land"].append("lothian")
    broken(t, "map", "four_corners.not_adjacent", "5.14")


def test_area_that_is_not_a_mapping(t):
    t["map"]["land_areas"]["york"] = "somewhere up north"
    broken(t, "map", "land_areas.york", "mapping")


def test_missing_name(t):
    del t["map"]["land_areas"]["york"]["name"]
    broken(t, "map", "land_areas.york.name", "missing")


def test_missing_file(t):
    del t["timeline"]
    broken(t, "timeline", "-", "file missing")


# --- nations.yaml / ruleset.yaml -----------------------------------------------------------------

def test_nation_missing_from_the_order_of_play(t):
    t["nations"]["order_of_play"]["ah"].remove("jutes")
    broken(t, "nations", "order_of_play.ah", "jutes")


def test_nation_twice_in_the_order_of_play(t):
    t["nations"]["order_of_play"]["ah"].append("jutes")
    broken(t, "nations", "order_of_play.ah", "twice")


def test_unknown_nation_in_the_order_of_play(t):
    t["nations"]["order_of_play"]["ah"][3] = "welch"
    broken(t, "nations", "order_of_play.ah.3", "did you mean welsh")


def test_army_limit_must_be_positive(t):
    t["nations"]["nations"]["picts"]["forces"]["armies"] = {"ffg_a": 0}
    broken(t, "nations", "nations.picts.forces.armies", "positive")


def test_force_limit_override_must_be_positive(t):
    t["ruleset"]["force_limits"]["normans"]["armies"] = -1
    broken(t, "ruleset", "force_limits.normans.armies", "positive")


def test_constant_must_be_positive(t):
    t["ruleset"]["constants"]["move"] = 0
    broken(t, "ruleset", "constants.move", "positive")


def test_die_face_constant(t):
    t["ruleset"]["constants"]["hit"] = 7
    broken(t, "ruleset", "constants.hit", "die face")


def test_start_in_an_unknown_area(t):
    t["nations"]["nations"]["picts"]["start"]["areas"].append("pictland")
    broken(t, "nations", "nations.picts.start.areas", "pictland")


def test_landing_area_must_be_coastal(t):
    t["ruleset"]["landing"]["irish"]["areas"].append("march")
    broken(t, "ruleset", "landing.irish.areas", "not coastal")


def test_landing_area_must_border_the_landing_sea(t):
    t["ruleset"]["landing"]["romans"]["areas"].append("essex")
    broken(t, "ruleset", "landing.romans.areas", "borders none")


def test_codes_are_unique(t):
    t["ruleset"]["codes"]["saxons"] = "S"
    broken(t, "ruleset", "codes.saxons", "scots")


def test_every_nation_has_a_code(t):
    del t["ruleset"]["codes"]["angles"]
    broken(t, "ruleset", "codes.angles")


def test_control_table_must_list_every_nation_once(t):
    t["ruleset"]["control"][4]["blue"].remove("normans")
    broken(t, "ruleset", "control.4", "normans")


def test_four_player_table_must_match_nations_yaml(t):
    c = t["ruleset"]["control"][4]
    c["blue"].remove("normans")
    c["red"].append("normans")
    broken(t, "ruleset", "control.4", "four_players")


def test_alias_that_means_two_things(t):
    t["map"]["land_areas"]["lindsey"]["aliases"] = ["York"]
    broken(t, "ruleset", "aliases.", "also means")


def test_doubt_refs_must_exist(t):
    t["ruleset"]["doubts"][0]["refs"] = ["map.seas.*.oceans"]
    broken(t, "ruleset", "doubts.0.refs", "no data")


def test_doubt_status_must_be_known(t):
    t["ruleset"]["doubts"][0]["status"] = "maybe"
    broken(t, "ruleset", "doubts.0.status")


def test_settled_must_point_at_an_inline_doubt(t):
    t["ruleset"]["settled"]["map.land_areas.york"] = "5.15"
    with pytest.raises(DataError) as e:
        load_from_tables(t, notes=raw_notes())
    assert "settled.map.land_areas.york" in e.value.key


def test_ruleset_id_must_match(t):
    t["ruleset"]["id"] = "duel"
    broken(t, "ruleset", "id", "duel")


def test_unknown_ruleset():
    with pytest.raises(DataError):
        load("chess")


# --- timeline.yaml -------------------------------------------------------------------------------

def test_unknown_nation_in_an_arrival(t):
    t["timeline"]["rounds"][4]["arrivals"][0]["nation"] = "vikings"
    broken(t, "timeline", "rounds.4.arrivals.0.nation", "vikings")


def test_unknown_sea_in_an_arrival(t):
    t["timeline"]["rounds"][4]["arrivals"][0]["sea"] = "baltic"
    broken(t, "timeline", "rounds.4.arrivals.0.sea", "baltic")


def test_arrival_count_must_be_a_number(t):
    t["timeline"]["rounds"][4]["arrivals"][0]["armies"] = "two"
    broken(t, "timeline", "rounds.4.arrivals.0.armies", "whole number")


def test_arrival_beyond_the_counter_mix(t):
    t["timeline"]["rounds"][14]["arrivals"][1]["armies"] = 19
    broken(t, "timeline", "rounds.14.arrivals.1.armies", "18")


def test_arrival_in_a_sea_the_nation_cannot_land_from(t):
    t["timeline"]["rounds"][15]["arrivals"][1]["sea"] = "north_sea"
    broken(t, "timeline", "rounds.15.arrivals.1.sea", "english_channel")


def test_missing_round(t):
    del t["timeline"]["rounds"][9]
    broken(t, "timeline", "rounds.9", "missing")


def test_extra_round(t):
    t["timeline"]["rounds"][17] = dict(t["timeline"]["rounds"][16])
    broken(t, "timeline", "rounds.17")


def test_leader_in_the_wrong_turn(t):
    t["timeline"]["rounds"][7]["leaders"].pop(0)   # Arthur
    t["timeline"]["rounds"][8]["leaders"].append({"nation": "romano_british", "leader": "arthur"})
    broken(t, "timeline", "rounds.8.leaders.0", "turn 7")


def test_leader_that_never_enters(t):
    t["timeline"]["rounds"][7]["leaders"].pop(0)
    broken(t, "timeline", "leaders", "arthur")


def test_leader_of_another_nation(t):
    t["timeline"]["rounds"][7]["leaders"][0]["nation"] = "welsh"
    broken(t, "timeline", "rounds.7.leaders.0.nation")


def test_years_out_of_order(t):
    t["timeline"]["rounds"][5]["years"] = [200, 300]
    broken(t, "timeline", "rounds.5.years")


# --- victory_points.yaml -------------------------------------------------------------------------

def test_unknown_area_in_a_card(t):
    t["victory_points"]["nations"]["saxons"]["hold"][0]["points"][2].append("wessexx")
    broken(t, "victory_points", "nations.saxons.hold.0.points.2", "did you mean wessex")


def test_card_scoring_round_that_is_not_one(t):
    t["victory_points"]["nations"]["saxons"]["hold"][0]["rounds_b"] = [6]
    broken(t, "victory_points", "nations.saxons.hold.0.rounds_b", "scoring round")


def test_card_unknown_leader(t):
    t["victory_points"]["nations"]["jutes"]["kills"]["leaders"][0]["leader"] = "merlin"
    broken(t, "victory_points", "nations.jutes.kills.leaders.0.leader", "merlin")


def test_card_points_must_be_positive(t):
    pts = t["victory_points"]["nations"]["jutes"]["hold"][0]["points"]
    pts[0] = pts.pop(8)
    broken(t, "victory_points", "nations.jutes.hold.0.points.0", "positive")


def test_card_of_an_unknown_nation(t):
    t["victory_points"]["nations"]["vikings"] = {}
    broken(t, "victory_points", "nations", "vikings")


# --- the files on disk ---------------------------------------------------------------------------

@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A copy of pbem/data/classic to break; the loader reads it instead of the package data."""
    from pbem.data import folders

    src = folders.folder("classic")
    dst = tmp_path / "classic"
    shutil.copytree(src, dst)
    monkeypatch.setattr(folders, "_package_root", lambda: tmp_path)
    loader.clear_caches()
    yield dst
    loader.clear_caches()


def test_broken_yaml_file_names_the_file(data_dir):
    (data_dir / "map.yaml").write_text("land_areas: {york: [\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        load("classic")
    assert e.value.file.endswith("classic/map.yaml") and "not valid YAML" in str(e.value)


def test_duplicate_key_in_a_file(data_dir):
    text = (data_dir / "ruleset.yaml").read_text(encoding="utf-8")
    (data_dir / "ruleset.yaml").write_text(text + "\nid: classic\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        load("classic")
    assert e.value.file.endswith("ruleset.yaml")


def test_missing_file_on_disk(data_dir):
    (data_dir / "victory_points.yaml").unlink()
    with pytest.raises(DataError) as e:
        load("classic")
    assert e.value.file.endswith("victory_points.yaml") and "missing" in str(e.value)


def test_edited_file_on_disk_is_checked(data_dir):
    path = data_dir / "map.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "    land: [lothian, pennines, york]\n", "    land: [lothian, pennines]\n"), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load("classic")
    assert e.value.key == "land_areas.bernicia.land" and e.value.file == "pbem/data/classic/map.yaml"


# --- whatever breaks, it is a DataError (never a traceback) --------------------------------------

def _nodes(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*path, k), v
            yield from _nodes(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*path, i), v
            yield from _nodes(v, (*path, i))


def test_random_damage_is_always_a_data_error():
    base = raw_tables("classic")
    paths = [p for name in ("map", "nations", "timeline", "victory_points", "ruleset")
             for p, _ in _nodes(base[name], (name,))]
    rng = random.Random(3)
    damage = [None, "x", 0, -1, [], {}, ["nowhere"], {"a": 1}, True]
    for _ in range(80):
        path = rng.choice(paths)
        t = raw_tables("classic")
        node = t
        for k in path[:-1]:
            node = node[k]
        if rng.random() < 0.3 and isinstance(node, dict):
            del node[path[-1]]
        else:
            node[path[-1]] = rng.choice(damage)
        try:
            load_from_tables(t)
        except DataError as e:
            assert e.file.startswith("pbem/data/classic/") and e.key, (path, str(e))


def test_constant_must_be_a_number(t):
    t["ruleset"]["constants"]["danes_withdrawal"]["round"] = "fourteen"
    broken(t, "ruleset", "constants.danes_withdrawal.round", "number")


def test_nation_colour_must_match_its_four_player_set(t):
    t["nations"]["nations"]["norsemen"]["colour_4p"]["ah"] = "yellow"
    broken(t, "nations", "nations.norsemen.colour_4p.ah", "red")


def test_doubt_number_must_be_a_number_or_label(t):
    t["ruleset"]["doubts"][3]["n"] = True
    broken(t, "ruleset", "doubts.3.n")


def test_south_of_york_lists_areas(t):
    t["ruleset"]["south_of_york"].append("londinium")
    broken(t, "ruleset", "south_of_york", "londinium")


def test_inline_doubt_comments_are_kept_by_data_path():
    notes = raw_notes()
    assert "C colours it lowland" in notes["map.land_areas.clwyd.terrain"]
    assert "B also has Cornwall-Dyfed" in notes["map.land_areas.cornwall.land"]
    assert "Jutes" in notes["nations.order_of_play.ah.12"]
    assert "S001 3.0 says 15" in notes["timeline.rounds.1.arrivals.0"]
    assert "York 8 only, as on the FFG Danish card" in notes["victory_points.nations.danes.hold.0.points.8"]
    assert "Wales" in notes["ruleset.south_of_york"]
    # the file headers that merely mention the marker are not doubts
    assert not [k for k in notes if k.count(".") < 1]
