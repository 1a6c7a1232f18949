"""legal.py — the options offered are the ones the engine accepts."""

from pbem.data.loader import load
from pbem.rules import legal
from pbem.rules.state import GameState, Stack


def test_rule_10_5_romano_british_are_not_offered_an_attack_on_the_welsh():
    rs = load("classic")
    st = GameState(round=7)
    st.areas = {"hwicce": {"romano_british": Stack(armies=2)}, "gwent": {"welsh": Stack(armies=1)},
                "south_mercia": {"saxons": Stack(armies=1)}}
    dests = legal.reachable(rs, st, "romano_british", "hwicce")
    assert "gwent" not in dests and "south_mercia" in dests


def test_rule_11_1_romans_are_not_offered_an_attack_on_their_subjects():
    rs = load("classic")
    st = GameState(round=3, subjects={"welsh": "romans"})
    st.areas = {"avalon": {"romans": Stack(armies=3)}, "devon": {"welsh": Stack(armies=1)}}
    assert "devon" not in legal.reachable(rs, st, "romans", "avalon")
