"""Issue 28 item 3 — a schema per family, rulesets found by their folder (docs/RULESETS.md).

The common loader checks what every ruleset has; the sections only one family's rules read are
checked by that family's `Rules.schema`, whose errors name the file and the key as the loader's do.
A ruleset is any folder with a ruleset.yaml: the package's, or one outside it (PBEM_RULESETS,
`add_folder`), which may extend another and hold only the files it changes.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.data import folders, loader
from pbem.data.loader import load, load_from_tables, raw_tables
from pbem.errors import DataError
from pbem.rules.rulesets import FAMILIES
from pbem.rules.rulesets.base import Rules
from pbem.rules.rulesets.classic import ClassicSchema
from pbem.rules.rulesets.ffg2 import Ffg2Schema
from pbem.rules.rulesets.schema import Schema
from pbem.store.yamlio import load_plain

TINY = Path(__file__).parent / "tiny"


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A folder of rulesets outside the package, named by PBEM_RULESETS; caches forgotten around it."""
    monkeypatch.setenv(folders.ENV, str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    loader.clear_caches()
    yield tmp_path
    loader.clear_caches()


def _tiny_tables() -> dict:
    return {n: load_plain(TINY / f"{n}.yaml") for n in folders.FILES}


# --- the families own their sections -------------------------------------------------------------

def test_each_family_names_its_schema():
    assert Rules.schema is Schema and FAMILIES["classic"].schema is ClassicSchema
    assert FAMILIES["ffg2"].schema is Ffg2Schema and issubclass(Ffg2Schema, ClassicSchema)


def test_a_classic_section_missing_is_the_classic_schemas_error_naming_file_and_key():
    """Rule 14.4 — the Limes round is the classic family's: its schema reports it missing."""
    t = raw_tables("classic")
    del t["ruleset"]["scoring"]["limes_round"]
    with pytest.raises(DataError) as e:
        load_from_tables(t, "classic")
    assert (e.value.file, e.value.key) == ("pbem/data/classic/ruleset.yaml", "scoring.limes_round")
    assert str(e.value) == "pbem/data/classic/ruleset.yaml: scoring.limes_round: missing"


def test_a_bretwalda_award_missing_names_the_key():
    """Rule 12.1 — the classic family requires the Bretwalda award."""
    t = raw_tables("classic")
    del t["ruleset"]["scoring"]["awards"]["bretwalda"]
    with pytest.raises(DataError) as e:
        load_from_tables(t, "classic")
    assert (e.value.file, e.value.key) == ("pbem/data/classic/ruleset.yaml", "scoring.awards.bretwalda")


def test_an_ffg_kill_line_is_checked_by_the_ffg2_schema_in_its_own_file():
    """FFG 52 — `except:` of a kill line is the ffg2 family's reading, reported in victory_points.yaml."""
    t = raw_tables("ffg2")
    line = next((nid, kind, i) for nid, card in t["victory_points"]["nations"].items()
                for kind, lines in (card.get("kills") or {}).items() if isinstance(lines, list)
                for i, kr in enumerate(lines) if isinstance(kr, dict) and "except" in kr)
    nid, kind, i = line
    t["victory_points"]["nations"][nid]["kills"][kind][i]["except"] = "now and then"
    with pytest.raises(DataError) as e:
        load_from_tables(t, "ffg2")
    assert e.value.file == "pbem/data/ffg2/victory_points.yaml"
    assert e.value.key == f"nations.{nid}.kills.{kind}.{i}.except" and "turn of round N" in e.value.message


def test_an_ffg_table_is_checked_by_the_ffg2_schema_in_the_timeline():
    """FFG 31 — the Roman reinforcement table belongs to ffg2 and names timeline.yaml."""
    t = raw_tables("ffg2")
    table = t["timeline"]["roman_reinforcements"]["table"]
    key = next(iter(table))
    table["lots"] = table.pop(key)
    with pytest.raises(DataError) as e:
        load_from_tables(t, "ffg2")
    assert (e.value.file, e.value.key) == ("pbem/data/ffg2/timeline.yaml", "roman_reinforcements.table.lots")


def test_the_submission_regions_are_the_maps_regions():
    """Rule 11.2 — `count_in` names regions of map.yaml (no closed list of regions)."""
    t = raw_tables("classic")
    t["ruleset"]["submission"]["to_angles"]["brigantes"]["count_in"] = ["mordor"]
    with pytest.raises(DataError, match="unknown region 'mordor'") as e:
        load_from_tables(t, "classic")
    assert e.value.key == "submission.to_angles.brigantes.count_in"


def test_a_family_without_submission_refuses_the_section():
    t = _tiny_tables()
    t["ruleset"]["submission"] = {"to_romans": {"blues": 2}}
    with pytest.raises(DataError) as e:
        load_from_tables(t, "tiny")
    assert (e.value.file, e.value.key) == ("pbem/data/tiny/ruleset.yaml", "submission")
    assert "no submission" in e.value.message


def test_tiny_writes_no_limes_bretwalda_king_or_submission():
    """The made-up ruleset has none of the classic sections, and loads (the engine reads none)."""
    t = _tiny_tables()
    rs_yaml = t["ruleset"]
    assert set(rs_yaml["scoring"]) == {"hold_rounds", "vp_table_rounds"}
    assert "submission" not in rs_yaml and "colour_4p" not in t["nations"]["nations"]["reds"]
    rs = load_from_tables(t, "tiny")
    assert rs.scoring["limes_round"] is None and tuple(rs.scoring["bretwalda_rounds"]) == ()
    assert rs.const.leader_bonus == 0   # a zero constant is a value
    assert rs.nations["reds"].colour == "red" and rs.region("hill") == "vales"


def test_a_negative_constant_is_refused():
    t = _tiny_tables()
    t["ruleset"]["constants"]["leader_bonus"] = -1
    with pytest.raises(DataError) as e:
        load_from_tables(t, "tiny")
    assert e.value.key == "constants.leader_bonus"


def test_a_region_not_in_the_regions_block_is_refused():
    t = raw_tables("classic")
    t["map"]["land_areas"]["york"]["region"] = "narnia"
    with pytest.raises(DataError) as e:
        load_from_tables(t, "classic")
    assert (e.value.file, e.value.key) == ("pbem/data/classic/map.yaml", "land_areas.york.region")


# --- rulesets found by their folder ------------------------------------------------------------------

def test_the_package_rulesets_are_found():
    assert {"classic", "ffg2"} <= set(loader.known_rulesets())


def test_a_ruleset_folder_outside_the_package_loads_by_its_id(outside):
    shutil.copytree(TINY, outside / "tiny")
    assert "tiny" in loader.known_rulesets()
    rs = load("tiny")
    assert set(rs.areas) == {"hill", "vale", "wood"} and rs.family == "base"
    assert load("tiny") is rs   # cached as the package's are
    assert list((outside / ".cache" / "pbem").glob("tiny-*.marshal"))   # and its parsed files kept


def test_errors_of_an_outside_ruleset_name_its_file(outside):
    shutil.copytree(TINY, outside / "tiny")
    text = (outside / "tiny" / "ruleset.yaml").read_text(encoding="utf-8")
    (outside / "tiny" / "ruleset.yaml").write_text(text.replace("hit: 5", "hit: 9"), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load("tiny")
    assert e.value.file == str(outside / "tiny" / "ruleset.yaml") and e.value.key == "constants.hit"


def test_an_outside_folder_may_not_take_a_package_id(outside):
    shutil.copytree(TINY, outside / "classic")
    with pytest.raises(DataError, match="ruleset of the installed package"):
        load("tiny")


def test_an_outside_ruleset_extends_another_and_holds_only_what_it_changes(outside):
    """A typed-in board: map.yaml of its own, the other files from the ruleset it extends."""
    shutil.copytree(TINY, outside / "tiny")
    mine = outside / "tiny_board"
    mine.mkdir()
    text = (TINY / "ruleset.yaml").read_text(encoding="utf-8")
    (mine / "ruleset.yaml").write_text(text.replace("id: tiny", "id: tiny_board\nextends: tiny"),
                                       encoding="utf-8")
    board = (TINY / "map.yaml").read_text(encoding="utf-8").replace("terrain: hiland", "terrain: clear")
    (mine / "map.yaml").write_text(board.replace("{name: Hill,", "{name: Hill, aliases: [Hillock],"),
                                   encoding="utf-8")
    rs = load("tiny_board")
    assert rs.id == "tiny_board" and not rs.hiland("hill") and "Hillock" in rs.areas["hill"].aliases
    assert set(rs.nations) == {"reds", "blues"}   # nations.yaml of tiny
    assert folders.file_path("tiny_board", "nations.yaml") == outside / "tiny" / "nations.yaml"


def test_add_folder_names_a_ruleset_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "_added", [])
    loader.clear_caches()
    try:
        shutil.copytree(TINY, tmp_path / "tiny")
        assert loader.add_folder(tmp_path / "tiny") == "tiny"
        assert load("tiny").name.startswith("Tiny")
    finally:
        loader.clear_caches()


def test_an_unknown_ruleset_names_the_known_ones():
    with pytest.raises(DataError, match="unknown ruleset; known: .*classic.*ffg2"):
        load("martian")


def test_the_classic_family_requires_the_holding_rounds():
    """Rule 14.2 — a ruleset without holdings may leave them out; a classic one may not."""
    t = raw_tables("classic")
    del t["ruleset"]["scoring"]["hold_rounds"], t["ruleset"]["scoring"]["vp_table_rounds"]
    with pytest.raises(DataError) as e:
        load_from_tables(t, "classic")
    assert (e.value.file, e.value.key) == ("pbem/data/classic/ruleset.yaml", "scoring.hold_rounds")
    tiny = _tiny_tables()
    del tiny["ruleset"]["scoring"]
    for card in tiny["victory_points"]["nations"].values():
        card.pop("hold", None)
    assert tuple(load_from_tables(tiny, "tiny").scoring["hold_rounds"]) == ()
