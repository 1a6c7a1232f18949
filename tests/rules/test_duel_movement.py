"""The Duel family's movement hooks (pbem/rules/rulesets/duel_movement.py) and the generic defaults they
replace; the rule paragraphs themselves are pinned by tests/cases/duel/ (overrun-*, boats-*,
difficult-terrain-*, movement-*, sea-movement-*, raiders-sneak-past-*, stacking-*)."""

from __future__ import annotations

from pathlib import Path

from pbem.cases import load_case, run_case
from pbem.data.loader import load
from pbem.rules.context import MoveRecord
from pbem.rules.rulesets.duel_movement import barred_strait, boat_move

DUEL = load("duel")
CLASSIC = load("classic")
CASES = Path(__file__).resolve().parents[1] / "cases" / "duel"


def test_a_boat_move_starts_on_land_and_crosses_a_sea_to_land():
    """[Boats] — Dublin by the Irish Sea to Strathclyde; a landing from the sea is no boat move."""
    assert boat_move(DUEL, ("dublin", "irish_sea", "strathclyde"))
    assert not boat_move(DUEL, ("irish_sea", "strathclyde"))
    assert not boat_move(DUEL, ("york", "mercia", "hwicce"))


def test_the_vikings_have_boats_every_round_and_no_one_else():
    """[Boats] — the aid's "boats all game": timeline.yaml `boats` of each of the seven rounds."""
    for r in range(1, 8):
        assert DUEL.round_info(r).boats == {"ostmen", "norse", "danes"}


def test_a_boat_attacker_retreats_to_its_origin_others_to_where_they_came_from():
    """[Boats] — the retreat of attackers by boat goes to the land area they started from."""
    rules = DUEL.rules
    boat = MoveRecord("danes", "armies", 2, 0, ("kent", "north_sea", "york"), 1)
    land = MoveRecord("saxons", "armies", 2, 0, ("wessex", "hwicce", "elmet"), 1)
    ctx = type("Ctx", (), {"rs": DUEL})()
    assert rules.attacker_retreat_area(ctx, boat) == "kent"
    assert rules.attacker_retreat_area(ctx, land) == "hwicce"
    assert CLASSIC.rules.attacker_retreat_area(ctx, boat) == "north_sea"   # the generic rule 8.3


def test_difficult_terrain_stops_an_escort_in_duel_not_in_classic():
    """[Difficult Terrain] every army stops; classic 9.1 lets a leader's escort go on."""
    assert DUEL.rules.stops_in_hiland(DUEL, "armies", True)
    assert not DUEL.rules.stops_in_hiland(DUEL, "leader", False)
    assert not CLASSIC.rules.stops_in_hiland(CLASSIC, "armies", True)
    assert CLASSIC.rules.stops_in_hiland(CLASSIC, "armies", False)


def test_the_welsh_strait_bar():
    """[Straits] — the Welsh may not cross to Dublin; the Irish may cross to Dyfed."""
    assert barred_strait(DUEL, "welsh", ("dyfed", "dublin")) == ("dyfed", "dublin")
    assert barred_strait(DUEL, "welsh", ("dyfed", "cornwall")) is None
    assert barred_strait(DUEL, "irish", ("dublin", "dyfed")) is None


def test_a_case_with_the_wrong_error_words_fails(tmp_path):
    """docs/CASES.md `expect.error`: the refusal's message must contain the words."""
    text = (CASES / "overrun-needs-twice-the-defenders.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("moving on needs 2 of yours", "moving on needs 3 of yours"), encoding="utf-8")
    assert run_case(load_case(CASES / "overrun-needs-twice-the-defenders.yaml")).passed
    result = run_case(load_case(bad))
    assert not result.passed and "refusal saying" in result.line()
