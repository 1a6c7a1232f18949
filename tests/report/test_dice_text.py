"""Issue 28 — the report's dice text and the odds take the hit numbers from the engine's battle model
(rules.odds.die_needs over rs.rules.hit_numbers and FFG 25's hit_fast), not from a literal 6: an ffg2
Roman die that kills on 4 is reported as 'kills on 4+'."""

from __future__ import annotations

import pytest

from pbem.data.loader import load
from pbem.report.facts import _need
from pbem.rules import battle
from pbem.rules.context import TurnContext
from pbem.rules.odds import die_needs, terrain_area
from pbem.rules.state import GameState, Stack

RS = {r: load(r) for r in ("classic", "ffg2")}


def _kills(rs, area, face, roller_nation, roller, target_nation, defending) -> bool:
    """Does one die of `face` kill a lone ordinary army, by the engine's battle.casualties?"""
    ctx = TurnContext(rs, GameState(game="t", round=3), roller_nation, {}, None)
    got = battle.casualties(ctx, area, [face] * roller.fighters, roller, roller_nation, Stack(armies=1),
                            target_nation, defending=defending)
    return bool(got)


@pytest.mark.parametrize("ruleset", ["classic", "ffg2"])
@pytest.mark.parametrize("hiland", [False, True])
@pytest.mark.parametrize("defending", [False, True])
@pytest.mark.parametrize("roman", [False, True])
def test_die_needs_is_what_the_engine_kills_with(ruleset, hiland, defending, roman):
    rs = RS[ruleset]
    area = terrain_area(rs, hiland)
    needs = die_needs(rs, area, defending)
    nation = rs.role("empire") if roman else "welsh"
    need = needs.fast if roman else needs.soft
    for face in range(1, 7):
        assert _kills(rs, area, face, nation, Stack(armies=1), "belgae", defending) == (face >= need), face


def test_ffg2_report_says_a_roman_die_kills_on_4():
    rs = RS["ffg2"]
    clear = terrain_area(rs, False)
    text = _need(rs, clear, "romans", "belgae", "romans", False, False)
    assert text == "kills on 4+"
    assert _need(RS["classic"], clear if clear in RS["classic"].areas else terrain_area(RS["classic"], False),
                 "romans", "belgae", "romans", False, False) == "kills on 5+"
    # the Belgae's cavalry dice hit on 4 too (FFG 25); their armies need a 5
    assert _need(rs, clear, "belgae", "romans", "romans", False, False, roller_cavalry=True) == \
        "kills on 6 (Roman armies)"
    assert "cavalry dice on 4+" in _need(rs, clear, "belgae", "welsh", "belgae", False, False, roller_cavalry=True)
    hiland = terrain_area(rs, True)
    assert _need(rs, hiland, "romans", "welsh", "romans", False, False).startswith("kills on 6 (defenders in hiland")
