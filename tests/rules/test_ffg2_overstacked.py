"""FFG 39, doubt 25 — Arthur's cavalry enter ignoring stacking; a movement that does not mend the break
is not refused for it, and what is still over the stacking limits after the movement is removed, so
the position keeps rule 5.2 after every movement (pbem selfplay --check; seed 168 broke it)."""

from __future__ import annotations

from pbem.bots import invariants
from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.dice import HmacDice
from pbem.rules.events import Overstacked
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import play_nation_turn

FFG = load("ffg2")


def arthur_in_sussex(orders: str):
    st = GameState(ruleset="ffg2", game="t", round=7)
    st.areas["wessex"] = {"romano_british": Stack(armies=4)}
    st.areas["sussex"] = {"romano_british": Stack(armies=3)}
    st.areas["kent"] = {"romano_british": Stack(armies=1)}
    text = "NATION Romano-British\nLEADER Arthur IN Sussex\n" + orders
    sent = {s.nation: s for s in parse_message(text, FFG).sections}
    return play_nation_turn(FFG, st, "romano_british", sent, HmacDice(b"k"), stop="after_movement", strict=False)


def test_a_second_large_stack_left_by_arthur_is_cut_back_after_the_movement():
    result = arthur_in_sussex("PASS\n")
    assert result.problems == []
    cut = [e for e in result.events if isinstance(e, Overstacked)]
    assert [c.removed for c in cut] == [{"wessex": 1}]     # the area nearest its limit, one army
    assert invariants.stacking(FFG, result.state) == []
    assert result.state.areas["sussex"]["romano_british"].cavalry == 2


def test_moving_more_into_a_breaking_area_is_still_refused():
    result = arthur_in_sussex("1 Kent -> Sussex\n")
    assert [p.kind for p in result.problems] == ["stacking"]
    assert invariants.stacking(FFG, result.state) == []


def test_classic_has_no_such_removal():
    assert not load("classic").rules.excess_stacking_removed(load("classic"))
