"""Classic 16.0 — the optional rules are played only when the game asks (game.yaml `options`, here as
the ruleset override it becomes): 16.251 Brittany's closing die, and 16.2 said not playable."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.dice import ScriptedDice
from pbem.rules.events import BrittanyRoll, ToBrittany
from pbem.rules.rulesets.classic_optional import SENT_TO_BRITTANY
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import play_nation_turn

BRITTANY = load("classic", {"ruleset.optional_rules.brittany.play": True})


def welsh_turn(rnd: int, text: str, face: int, sent_before: int = 0):
    st = GameState(ruleset="classic", game="t", round=rnd)
    st.areas["devon"] = {"welsh": Stack(armies=3)}
    st.areas["powys"] = {"welsh": Stack(armies=2)}
    if sent_before:
        st.extras[SENT_TO_BRITTANY] = sent_before
    orders = {s.nation: s for s in parse_message("NATION Welsh\n" + text, BRITTANY).sections}
    dice = ScriptedDice({"brittany": [{"welsh": [face]}]})
    return play_nation_turn(BRITTANY, st, "welsh", orders, dice, start="movement")


def test_brittany_die_below_the_armies_sent_scores_4_after_the_turn_7_movement():
    r = welsh_turn(7, "BRITTANY 2 Devon\n", face=3, sent_before=2)   # 4 sent in all; a 3 is below
    assert r.problems == []
    assert [e.armies for e in r.events if isinstance(e, ToBrittany)] == [2]
    roll = next(e for e in r.events if isinstance(e, BrittanyRoll))
    assert (roll.sent, roll.face, roll.points) == (4, 3, 4)
    assert r.state.vp == {"welsh": 2 + 4}


def test_brittany_die_not_below_scores_nothing():
    r = welsh_turn(7, "BRITTANY 1 Devon\n", face=1)   # 1 sent: a 1 is not below it
    assert r.state.vp == {"welsh": 1}
    assert next(e for e in r.events if isinstance(e, BrittanyRoll)).points == 0


def test_the_options_are_off_by_default_and_16_2_is_not_playable():
    rs = load("classic")
    assert not rs.feature("brittany") and not rs.feature("pict_raiders")
    assert {k: r["play"] for k, r in rs.optional_rules.items()} == {"pict_raiders": False, "brittany": False}
    assert [r["rule"] for r in rs.not_playable] == ["16.2"]
    assert BRITTANY.feature("brittany")["per_turn"] == 2
