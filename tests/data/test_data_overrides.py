"""Issue 3 — per-game data overrides and the report header that names them."""

import pytest

from pbem.data.loader import apply_overrides, load, raw_tables
from pbem.errors import DataError

BASE = load("classic")


def test_header_names_ruleset_data_version_and_no_overrides():
    h = BASE.header()
    assert h.startswith("Ruleset classic, data version 2") and h.endswith("no overrides")
    assert BASE.digest[:8] in h and "\n" not in h


def test_override_is_applied_and_named_in_the_header():
    rs = load("classic", {"ruleset.constants.move": 3})
    assert rs.const.move == 3 and BASE.const.move == 2
    assert rs.overrides == ("ruleset.constants.move",)
    assert dict(rs.override_values) == {"ruleset.constants.move": 3}
    assert rs.digest != BASE.digest
    lines = rs.header().splitlines()
    assert lines[0].startswith("Ruleset classic, data version 2") and "1 override" in lines[0]
    assert lines[1] == "  ruleset.constants.move = 3"
    assert all(len(x) <= 72 for x in lines)


def test_long_override_values_are_shortened_in_the_header():
    table = {"purple": ["romans", "romano_british", "scots", "dubliners", "norwegians", "belgae"],
             "green": ["welsh", "caledonians", "jutes", "danes", "picts", "irish"],
             "red": ["brigantes", "norsemen", "saxons", "angles", "normans"]}
    rs = load("classic", {"ruleset.control.3": table})
    assert dict(rs.control[3])["green"][-1] == "irish"
    assert any(line.endswith("...") for line in rs.header().splitlines())


def test_numbered_keys_and_list_positions():
    rs = load("classic", {"timeline.rounds.14.arrivals.1.armies": 5})
    danes = [a for a in rs.rounds[14].arrivals if a.nation == "danes"]
    assert danes[0].armies == 5


def test_override_may_add_a_key_where_tables_are_open():
    rs = load("classic", {"ruleset.force_limits.jutes": {"armies": 8}})
    assert rs.nations["jutes"].max_armies == 8 and BASE.nations["jutes"].max_armies == 6


def test_override_of_a_victory_point_table():
    rs = load("classic", {"victory_points.nations.jutes.hold.0.points": {"10": ["kent"]}})
    assert dict(rs.vp["jutes"].hold[1]) == {"kent": 10}


def test_unknown_key_is_an_error_with_did_you_mean():
    with pytest.raises(DataError) as e:
        load("classic", {"ruleset.constants.mvoe": 3})
    assert e.value.file == "overrides" and e.value.key == "ruleset.constants.mvoe"
    assert "did you mean move" in str(e.value)


def test_unknown_path_is_an_error():
    with pytest.raises(DataError) as e:
        load("classic", {"ruleset.constantz.move": 3})
    assert e.value.key == "ruleset.constantz.move" and "constants" in str(e.value)


def test_unknown_file_is_an_error():
    with pytest.raises(DataError) as e:
        load("classic", {"rules.constants.move": 3})
    assert "must start with one of" in str(e.value)


def test_a_bad_value_names_the_override():
    with pytest.raises(DataError) as e:
        load("classic", {"ruleset.constants.move": -2})
    err = e.value
    assert err.file == "overrides" and err.key == "ruleset.constants.move"
    assert "ruleset.yaml" in str(err) and "positive" in str(err)


def test_a_bad_value_deeper_than_the_override_names_the_override():
    with pytest.raises(DataError) as e:
        load("classic", {"map.land_areas.york": {"name": "York", "region": "england", "terrain": "clear"}})
    assert e.value.file == "overrides" and e.value.key == "map.land_areas.york"


def test_values_must_be_plain_data():
    with pytest.raises(DataError):
        load("classic", {"ruleset.constants.move": object()})


def test_loads_are_cached_per_overrides():
    assert load("classic") is BASE
    a = load("classic", {"ruleset.constants.move": 3})
    assert load("classic", {"ruleset.constants.move": 3}) is a and a is not BASE


def test_apply_overrides_reports_the_keys_it_applied():
    t = raw_tables()
    keys = apply_overrides(t, {"ruleset.constants.move": 3, "ruleset.constants.hit": 6})
    assert keys == ("ruleset.constants.hit", "ruleset.constants.move")
    assert t["ruleset"]["constants"]["move"] == 3
    assert raw_tables()["ruleset"]["constants"]["move"] == 2   # the cached parse is untouched


def test_the_rules_data_can_be_changed_per_game_without_touching_other_games():
    """A game overriding the unsettled VP scale (doubt 17) does not affect a game that does not."""
    rs = load("classic", {"ruleset.scoring.awards.bretwalda": 4})
    assert rs.scoring["awards"]["bretwalda"] == 4 and BASE.scoring["awards"]["bretwalda"] == 2
