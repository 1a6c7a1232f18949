"""Issue 29 (Duel Britannia), data: the shipped PROVISIONAL board and aid (pbem/data/duel/), and
`pbem rules check DIR`, which refuses a board or aid that contradicts the Duel rulebook chapter.

[Section] below names a section of the Duel rulebook chapter, as facts.yaml does.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pbem.cli import cli
from pbem.data import duel_check
from pbem.data.duel_check import PROVISIONAL_DIR, check_dir, plain, unwrap
from pbem.errors import PbemError

GOOD_AID = (PROVISIONAL_DIR / "aid.yaml").read_text(encoding="utf-8")
GOOD_BOARD = (PROVISIONAL_DIR / "board.yaml").read_text(encoding="utf-8")


def _load(name: str) -> Any:
    return YAML(typ="rt").load((PROVISIONAL_DIR / name).read_text(encoding="utf-8"))


def _dump(tree: Any) -> str:
    y = YAML(typ="rt")
    y.width = 110
    buf = io.StringIO()
    y.dump(tree, buf)
    return buf.getvalue()


def _write(folder: Path, board: Any, aid: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "board.yaml").write_text(board if isinstance(board, str) else _dump(board), encoding="utf-8")
    (folder / "aid.yaml").write_text(aid if isinstance(aid, str) else _dump(aid), encoding="utf-8")
    return folder


def setv(node: Any, key: Any, new: Any) -> None:
    """Set node[key] to `new`, inside its {value, confidence, why} wrapper if it has one."""
    old = node[key]
    if unwrap(old) is not old:
        old["value"] = new
    else:
        node[key] = new


def _find(items: Any, pair: list[str]) -> int:
    return next(i for i, x in enumerate(items) if sorted(plain(x) if isinstance(plain(x), list)
                                                          else plain(x)["between"]) == sorted(pair))


# ------------------------------------------------------------------------------------------------
# the shipped data
# ------------------------------------------------------------------------------------------------

def test_shipped_provisional_data_holds_every_fact():
    assert check_dir(PROVISIONAL_DIR) == []


def test_shipped_data_is_marked_provisional_with_every_doubt():
    board, aid = _load("board.yaml"), _load("aid.yaml")
    assert board["status"] == aid["status"] == "PROVISIONAL"
    assert [d["id"] for d in board["doubts"]] == [f"B{i}" for i in range(1, 9)]
    assert [d["id"] for d in aid["doubts"]] == [f"D{i}" for i in range(1, 21)]
    assert all(d["reading"] and d["why"] for d in aid["doubts"])


def test_every_board_value_says_how_sure_it_is():
    """Each area field, border, coast, strait and scoring-only pair: {value, confidence, why}."""
    board = _load("board.yaml")
    levels = set(duel_check.CONFIDENCES)
    for aid, area in board["areas"].items():
        for key in ("name", "region", "terrain"):
            assert area[key]["confidence"] in levels, (aid, key)
        if area["terrain"]["value"] != "impassable":
            assert area["population"]["confidence"] in levels, aid
    for key in ("borders", "coasts", "straits", "scoring_only"):
        for item in board[key]:
            assert item["confidence"] in levels and item.get("why"), (key, item)


def test_the_project_does_not_point_at_the_reference_folder():
    for name in ("board.yaml", "aid.yaml", "facts.yaml"):
        text = (PROVISIONAL_DIR / name).read_text(encoding="utf-8")
        assert "shared/" not in text and "S003" not in text and "seeds/" not in text, name


def test_cli_ok_line_names_provisional():
    result = CliRunner().invoke(cli, ["rules", "check", str(PROVISIONAL_DIR)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("OK: ") and "PROVISIONAL" in result.output


# ------------------------------------------------------------------------------------------------
# one border changed
# ------------------------------------------------------------------------------------------------

def _edit_line(old: str, new: str) -> tuple[str, int]:
    """The shipped board with one line's text changed (as an owner edits it), and that line's number."""
    lines = GOOD_BOARD.splitlines(keepends=True)
    [i] = [n for n, text in enumerate(lines) if old in text]
    lines[i] = lines[i].replace(old, new)
    return "".join(lines), i + 1


def test_a_border_changed_to_one_the_rulebook_forbids_is_refused_at_its_line(tmp_path):
    """[The Game Board]: armies cannot move directly between Strathclyde and Northumbria."""
    text, line = _edit_line("value: [pennines, strathclyde]", "value: [northumbria, strathclyde]")
    folder = _write(tmp_path / "b", text, GOOD_AID)
    failures = [str(f) for f in check_dir(folder)]
    assert f"{folder / 'board.yaml'}:{line}: Strathclyde and Northumbria must not border each other" \
        " -- rulebook [The Game Board]" in failures
    result = CliRunner().invoke(cli, ["rules", "check", str(folder)])
    assert result.exit_code == 1
    assert f"board.yaml:{line}: Strathclyde and Northumbria must not border" in result.output


def test_a_stated_border_changed_away_is_refused_naming_the_lines(tmp_path):
    """[Phase III]: an army moves Wessex - Hwicce - Elmet, so Wessex borders Hwicce."""
    text, changed = _edit_line("value: [hwicce, wessex]", "value: [hwicce, kent]")
    folder = _write(tmp_path / "b", text, GOOD_AID)
    section = 1 + next(n for n, t in enumerate(text.splitlines()) if t.startswith("borders:"))
    [failure] = [f for f in check_dir(folder) if "Wessex and Hwicce" in f.message]
    assert failure.file == str(folder / "board.yaml") and failure.line == section
    assert str(changed) in failure.message.split("lines ")[1].split(")")[0].split(", ")


# ------------------------------------------------------------------------------------------------
# each kind of fact has a failing example
# ------------------------------------------------------------------------------------------------

def _area(b: Any, aid: str) -> Any:
    return b["areas"][aid]


def _drop(items: Any, pair: list[str]) -> None:
    del items[_find(items, pair)]


def _nation(a: Any, nid: str) -> Any:
    return a["romans"] if nid == "romans" else a["nations"][nid]


def _timeline_arrival(a: Any, rnd: int, nid: str) -> Any:
    return unwrap(unwrap(a["timeline"][rnd]["nations"][nid]["arrivals"])[0])


BOARD_CASES: dict[str, tuple[Callable[[Any], None], str]] = {
    "land_areas": (lambda b: b["areas"].__setitem__("lundy", {"name": "Lundy", "region": "england", "terrain": "clear",
                                                                "population": 2}), "28 land areas; the rulebook's board has 27"),
    "seas": (lambda b: setv(b["seas"]["north_sea"], "name", "German Ocean"), "the seas must be exactly"),
    "terrain_counts": (lambda b: setv(_area(b, "kent"), "terrain", "difficult"), "12 difficult areas; the rulebook's board has 11"),
    "impassable": (lambda b: setv(_area(b, "grampians"), "terrain", "difficult"), "Grampians must be impassable"),
    "named_areas": (lambda b: setv(_area(b, "mercia"), "name", "Middle England"), "no land area is named 'Mercia'"),
    "terrain": (lambda b: setv(_area(b, "powys"), "terrain", "clear"), "Powys is clear terrain; it must be difficult"),
    "population": (lambda b: setv(_area(b, "kent"), "population", 2), "Kent's population is 2; it must be 3"),
    "population_rule": (lambda b: setv(_area(b, "york"), "population", 3), "York's population is 3; a clear area is worth 2"),
    "scores_nothing": (lambda b: _area(b, "connacht").pop("scores_nothing"), "Connacht must say `scores_nothing: true`"),
    "england_and_wales_passable": (lambda b: setv(_area(b, "lindsey"), "region", "scotland"),
                                   "16 passable areas in England and Wales"),
    "region_passable": (lambda b: setv(_area(b, "lindsey"), "region", "scotland"), "5 passable areas in region scotland"),
    "region_members": (lambda b: setv(_area(b, "dublin"), "region", "wales"), "Dublin must be in region ireland"),
    "in_england_or_wales": (lambda b: setv(_area(b, "strathclyde"), "region", "scotland"),
                            "Strathclyde must be in England or Wales"),
    "not_in_region": (lambda b: setv(_area(b, "devon"), "region", "wales"), "Devon must not be in region wales"),
    "borders": (lambda b: _drop(b["borders"], ["dyfed", "powys"]), "Dyfed and Powys must border each other"),
    "not_borders": (lambda b: b["borders"].append(["dalriada", "mar"]), "Mar and Dalriada must not border each other"),
    "separates": (lambda b: _drop(b["borders"], ["grampians", "mar"]), "Grampians lies between Mar and Dalriada"),
    "scoring_only": (lambda b: _drop(b["scoring_only"], ["mar", "dalriada"]), "Mar and Dalriada must be listed in scoring_only"),
    "straits": (lambda b: _drop(b["straits"], ["cornwall", "dyfed"]), "a strait must join Dyfed and Cornwall"),
    "strait_ends": (lambda b: _drop(b["straits"], ["dublin", "dyfed"]), "1 strait(s) from Dublin outside ireland"),
    "coasts": (lambda b: _drop(b["coasts"], ["dublin", "irish_sea"]), "Dublin must be on the coast of the Irish Sea"),
    "inland": (lambda b: b["coasts"].append(["hwicce", "atlantic_ocean"]), "Hwicce must not be on a coast"),
    "roman_forts": (lambda b: setv(_area(b, "kent"), "roman_forts", 1), "Kent starts with 1 Roman fort(s); the set-up gives it 2"),
}


def _move_picts(a: Any) -> None:
    unwrap(a["sides"]["brython_viking"]).remove("picts")
    unwrap(a["sides"]["anglo_saxon"]).append("picts")


def _swap_order(a: Any) -> None:
    order = unwrap(a["order_of_play"])
    i, j = order.index("jutes"), order.index("saxons")
    order[i], order[j] = order[j], order[i]


AID_CASES: dict[str, tuple[Callable[[Any], None], str]] = {
    "rounds": (lambda a: setv(a, "rounds", 6), "the game has 7 rounds"),
    "sides": (_move_picts, "sides.brython_viking: must be exactly"),
    "partners": (lambda a: unwrap(a["sides"]["four_player"])["anglo_saxon_1"].remove("irish"),
                 "one partner plays exactly Saxons, Jutes, Irish"),
    "units": (lambda a: setv(_nation(a, "saxons"), "infantry", 10), "Saxons: 10 infantry; the unit list gives 11"),
    "units_leaders": (lambda a: unwrap(_nation(a, "welsh")["leaders"]).remove("Cadwallon"),
                      "Welsh: leaders must be exactly Arthur, Cadwallon"),
    "army_limits": (lambda a: setv(_nation(a, "ostmen"), "army_limit", 5), "Ostmen: army limit 5; the aid prints 4"),
    "army_limit_is_infantry": (lambda a: setv(_nation(a, "danes"), "army_limit", 10), "not its 11 infantry"),
    "scoring_centres": (lambda a: unwrap(unwrap(_nation(a, "scots")["scoring_centres"])[0]).__setitem__("where", "dalriada"),
                        "Scots: scoring centres in round 1 must be exactly Mar"),
    "scoring_centres_jutes": (lambda a: unwrap(unwrap(_nation(a, "jutes")["scoring_centres"])[0])
                              .__setitem__("rounds", [1, 2, 3, 4, 5, 6, 7]),
                              "Jutes: scoring centres in round 5 must be exactly none"),
    "scoring_centre_added": (lambda a: unwrap(unwrap(_nation(a, "saxons")["scoring_centres"])[1])
                             .__setitem__("rounds", [4, 5, 6, 7]), "York is a second scoring centre from round 5"),
    "sea_centres": (lambda a: unwrap(unwrap(_nation(a, "danes")["scoring_centres"])[0]).__setitem__("where", "york"),
                    "Danes: scoring centre 'york' must be a sea"),
    "start": (lambda a: setv(_nation(a, "irish"), "start", {"dublin": 2}), "Irish: must start with 1 in Dublin, 1 in Munster"),
    "empty_at_start": (lambda a: setv(_nation(a, "scots"), "start", {"ui_neil": 1, "connacht": 1}),
                       "no army starts in Connacht"),
    "roman_withdrawal": (lambda a: unwrap(a["roman_withdrawal"]["rheged"]).remove("hwicce"),
                         "roman_withdrawal.rheged: must be exactly"),
    "not_on_aid": (lambda a: unwrap(a["order_of_play"]).insert(0, "romans"), "Romans are not on the player aid"),
    "plays_before": (_swap_order, "Jutes must play before Saxons"),
    "erupts_only_in": (lambda a: unwrap(a["leaders"]["fergus_mor_mac_erc"]["arrives"])["erupt_in_one_of"].append("mar"),
                       "erupt_in_one_of: only Ui Neil, Dalriada, The Isles"),
    "two_sea_arrival": (lambda a: [_timeline_arrival(a, r, "danes").__setitem__("at_sea", ["north_sea"]) for r in (5, 6, 7)],
                        "some Danes must appear in North Sea/English Channel"),
    "at_sea_in_round": (lambda a: _timeline_arrival(a, 1, "jutes").__setitem__("at_sea", ["north_sea"]),
                        "Jutes must be at sea in the English Channel in round 1"),
    "no_straits_to": (lambda a: setv(_nation(a, "welsh"), "no_straits_to", ["dublin"]),
                      "Welsh: no_straits_to must be exactly Dublin, Munster"),
}


def _facts_keys(part: str) -> set[str]:
    return set(YAML(typ="safe").load(duel_check.FACTS_FILE.read_text())[part])


def test_every_fact_kind_has_a_failing_example():
    assert _facts_keys("board") == set(BOARD_CASES)
    assert _facts_keys("aid") <= {k.split("_jutes")[0].replace("_leaders", "") for k in AID_CASES}


@pytest.mark.parametrize("kind", sorted(BOARD_CASES))
def test_board_contradicting_a_fact_is_refused(tmp_path, kind):
    mutate, expected = BOARD_CASES[kind]
    board = _load("board.yaml")
    mutate(board)
    folder = _write(tmp_path / kind, board, _load("aid.yaml"))
    failures = check_dir(folder)
    hits = [f for f in failures if expected in f.message]
    assert hits, [str(f) for f in failures]
    assert hits[0].file == str(folder / "board.yaml") and hits[0].line >= 1
    assert "-- rulebook [" in hits[0].message


@pytest.mark.parametrize("kind", sorted(AID_CASES))
def test_aid_contradicting_a_fact_is_refused(tmp_path, kind):
    mutate, expected = AID_CASES[kind]
    aid = _load("aid.yaml")
    mutate(aid)
    folder = _write(tmp_path / kind, _load("board.yaml"), aid)
    failures = check_dir(folder)
    hits = [f for f in failures if expected in f.message]
    assert hits, [str(f) for f in failures]
    assert hits[0].file == str(folder / "aid.yaml") and hits[0].line > 1


# ------------------------------------------------------------------------------------------------
# hostile input: a PbemError or failures, never a crash
# ------------------------------------------------------------------------------------------------


HOSTILE = {
    "not yaml": "areas: [\n",
    "a list": "- 1\n- 2\n",
    "a scalar": "hello\n",
    "empty": "",
    "deep": "a: " + "[" * 200 + "]" * 200 + "\n",
    "complex key": "? [a, b]\n: c\n",
    "huge int": "rounds: " + "9" * 5000 + "\n",
    "tabs": "areas:\n\tkent: 1\n",
    "binary": "\x00\x01\x02\xff",
    "anchors": "a: &x [*x]\n",
    "areas a list": "format: duel-board 1\nareas: [1, 2]\nseas: 3\nborders: {a: b}\ncoasts: [[1, 2], x]\n",
    "odd areas": "areas:\n  kent: 3\n  essex: {name: [1], terrain: {value: {x: 1}}, population: lots, roman_forts: -1}\n"
                 "  york: {name: York, region: england, terrain: clear, population: 2, aliases: 7}\n"
                 "seas:\n  s: {name: {a: b}}\nborders: [[york, york], [york, nowhere], {between: [york]}, [[1], 2]]\n"
                 "straits: [[york, kent]]\ncoasts: [[york, s], [york, s]]\n",
}
HOSTILE_AID = {
    "aid odd": "nations: {x: 1, y: {name: [1], side: [2], leaders: {a: 1}, scoring_centres: [1, {where: [1]}],"
               " start: 3, army_limit: {q: 1}}}\nsides: {a: 1, four_player: {p: [[1], {z: 2}]}}\n"
               "order_of_play: {a: 1}\nleaders: {l: 1, m: {name: [1], nation: [2], arrives: {erupt_in_one_of: [{a: 1}]}}}\n"
               "timeline: {1: {nations: {x: {arrivals: [{at_sea: 5}, {at_sea: [[1]]}, 3]}}}, two: 4}\n"
               "roman_withdrawal: {rheged: 3, welsh: [[1]]}\nromans: [1]\nrounds: {a: 1}\n",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_board_gives_failures_or_a_pbem_error(tmp_path, kind):
    folder = _write(tmp_path / "h", HOSTILE[kind], GOOD_AID)
    try:
        failures = check_dir(folder)
    except PbemError as e:
        assert "board.yaml" in str(e)
    else:
        assert failures and all(f.file.endswith(("board.yaml", "aid.yaml")) for f in failures)
    result = CliRunner().invoke(cli, ["rules", "check", str(folder)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("kind", sorted(HOSTILE_AID) + sorted(HOSTILE))
def test_hostile_aid_gives_failures_or_a_pbem_error(tmp_path, kind):
    text = {**HOSTILE, **HOSTILE_AID}[kind]
    folder = _write(tmp_path / "h", GOOD_BOARD, text)
    try:
        failures = check_dir(folder)
    except PbemError as e:
        assert "aid.yaml" in str(e)
    else:
        assert failures and all(f.file.endswith("aid.yaml") for f in failures)


def test_missing_folder_or_file_is_a_pbem_error(tmp_path):
    with pytest.raises(PbemError, match="not a folder"):
        check_dir(tmp_path / "nowhere")
    (tmp_path / "board.yaml").write_text(GOOD_BOARD)
    with pytest.raises(PbemError, match="aid.yaml: no such file"):
        check_dir(tmp_path)
    result = CliRunner().invoke(cli, ["rules", "check", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and "not a folder" in result.output


# ------------------------------------------------------------------------------------------------
# the worked example of docs/DUEL-BOARD.md
# ------------------------------------------------------------------------------------------------

def test_the_worked_example_of_the_guide(tmp_path, monkeypatch):
    """docs/DUEL-BOARD.md: Lindsey clear alone is refused with the lines the guide shows; with York
    difficult, Dunedin printed Fortriu and the Munster strait to Dyfed the board passes."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "DUEL-BOARD.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    board, aid = _load("board.yaml"), _load("aid.yaml")
    lindsey = board["areas"]["lindsey"]
    lindsey["terrain"], lindsey["population"] = "clear", 2
    _write(tmp_path / "myduel", board, aid)
    result = CliRunner().invoke(cli, ["rules", "check", "myduel"])
    assert result.exit_code == 1
    for line in result.output.splitlines():
        assert line in guide, line
    assert "myduel/board.yaml:22: 10 difficult areas" in result.output
    york = board["areas"]["york"]
    york["terrain"], york["population"] = "difficult", 1
    board["areas"]["dunedin"]["name"] = "Fortriu"
    i = _find(board["straits"], ["munster", "cornwall"])
    board["straits"][i] = {"between": ["munster", "dyfed"], "crosses": "irish_sea"}
    _write(tmp_path / "myduel", board, aid)
    result = CliRunner().invoke(cli, ["rules", "check", "myduel"])
    assert result.exit_code == 0 and result.output.startswith("OK: "), result.output


def test_require_valid_refuses_with_every_failure(tmp_path):
    duel_check.require_valid(PROVISIONAL_DIR)
    text, line = _edit_line("value: [pennines, strathclyde]", "value: [northumbria, strathclyde]")
    folder = _write(tmp_path / "b", text, GOOD_AID)
    with pytest.raises(duel_check.DuelBoardRefused) as e:
        duel_check.require_valid(folder)
    assert isinstance(e.value, PbemError)
    assert f"board.yaml:{line}: Strathclyde and Northumbria must not border" in str(e.value)


def test_unsure_values_are_the_provisional_ones():
    board = duel_check.read(PROVISIONAL_DIR / "board.yaml")
    unsure = {u.path: u for u in duel_check.unsure_values(board)}
    assert unsure["areas.sussex.name"].confidence == "placeholder"
    assert unsure["areas.lindsey.terrain"].confidence == "inferred" and unsure["areas.lindsey.terrain"].why
    assert "areas.powys.terrain" not in unsure and "areas.kent.population" not in unsure   # stated
    assert unsure["areas.wessex.terrain"].confidence == "derived"
    printed = duel_check.parse("areas:\n  kent: {name: Kent, terrain: clear}\n", "printed.yaml")
    assert duel_check.unsure_values(printed) == []


# any tree of YAML values, as a board or an aid: failures, never a crash
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.text(max_size=8),
                     st.sampled_from(["kent", "essex", "irish_sea", "clear", "difficult", "impassable", "romans",
                                      "value", "confidence", "scots", "Kent", "Mar"]))
_KEYS = st.sampled_from(["areas", "seas", "borders", "coasts", "straits", "scoring_only", "name", "region", "terrain",
                         "population", "roman_forts", "value", "confidence", "why", "between", "nations", "sides",
                         "four_player", "rounds", "timeline", "leaders", "arrivals", "at_sea", "start", "where",
                         "scoring_centres", "order_of_play", "roman_withdrawal", "romans", "kent", "scots", "1"])
_TREES = st.recursive(_SCALARS, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                       st.dictionaries(_KEYS, kids, max_size=5)), max_leaves=25)
_FACTS = duel_check.read(duel_check.FACTS_FILE)


@settings(max_examples=150, deadline=None, database=None)
@given(board=st.dictionaries(_KEYS, _TREES, max_size=7), aid=st.dictionaries(_KEYS, _TREES, max_size=7))
def test_fuzz_trees_give_failures_never_a_crash(board, aid):
    failures = duel_check.check(duel_check.parse(json.dumps(board), "board.yaml"),
                                duel_check.parse(json.dumps(aid), "aid.yaml"), _FACTS)
    assert failures and all(f.file in ("board.yaml", "aid.yaml") and f.line >= 1 for f in failures)
