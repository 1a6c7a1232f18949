"""Rule 11.1 — the Roman player may allow subject nations to increase population (ALLOW <nation>)."""

from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.dice import HmacDice
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import play_nation_turn


def _board():
    st = GameState(round=3, subjects={"welsh": "romans"})
    st.areas = {"kent": {"romans": Stack(armies=2)}, "gwynedd": {"welsh": Stack(armies=1)},
                "dyfed": {"welsh": Stack(armies=1)}, "powys": {"welsh": Stack(armies=1)}}
    st.population = {"welsh": 2.0}
    return st


def test_rule_11_1_subjects_do_not_increase_without_permission():
    rs = load("classic")
    r = play_nation_turn(rs, _board(), "welsh", {}, HmacDice(b"permission test secret!!"))
    assert r.state.units_of("welsh") == 3


def test_rule_11_1_roman_permission_lets_the_subject_increase_this_turn():
    rs = load("classic")
    allow = parse_message("ALLOW Welsh", rs, default_nation="romans").section("romans")
    r = play_nation_turn(rs, _board(), "romans", {"romans": allow}, HmacDice(b"permission test secret!!"))
    assert r.accepted and "welsh" in rs.rules.permitted_subjects(r.state)
    r2 = play_nation_turn(rs, r.state, "welsh", {}, HmacDice(b"permission test secret!!"))
    assert r2.state.units_of("welsh") == 4      # 2 saved + 2 clear + 1/2 hiland = 4.5: one army
