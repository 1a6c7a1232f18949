"""Issue 15 — validation = adjudication: every order kind is judged on arrival by playing the whole
nation turn (neutral dice); orders for a later nation are checked against today's position; an OK
order without effect says why, and so does the turn."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import cli
from pbem.orders.check import check_orders
from pbem.orders.reply import render_reply
from pbem.rules.dice import ScriptedDice
from pbem.rules.events import OrderUnused
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import play_nation_turn


def _state(next_nation: str = "saxons") -> GameState:
    st = GameState(game="v-1", round=7, next_nation=next_nation)
    st.areas = {"essex": {"saxons": Stack(armies=3)}, "kent": {"saxons": Stack(armies=2)},
                "suffolk": {"angles": Stack(armies=2)}, "north_sea": {"angles": Stack(armies=2, raiders=2)}}
    return st


def _problems(rs, text, state=None, nation="saxons"):
    result = check_orders(text, rs, state or _state(), nation=nation)
    return result, {ln.line: [p.kind for p in ln.problems] for ln in result.lines if ln.problems}


def test_rule_7_13_withdraw_without_raiders_is_refused_on_arrival(rs):
    _, probs = _problems(rs, "3 Essex -> Suffolk\nWITHDRAW Kent\n")
    assert probs == {2: ["not-your-unit"]}


def test_rule_8_3_attack_where_no_battle_is_refused_on_arrival(rs):
    _, probs = _problems(rs, "3 Essex -> Suffolk\nATTACK Kent: RETREAT IF OUTNUMBERED\nATTACK Suffolk: FIGHT\n")
    assert probs == {2: ["not-now"]}


def test_rule_4_4_battles_only_where_battles_are(rs):
    _, probs = _problems(rs, "3 Essex -> Suffolk\nBATTLES Suffolk, Kent\n")
    assert probs == {2: ["not-now"]}


def test_rule_6_0_disband_only_where_the_nation_is(rs):
    _, probs = _problems(rs, "DISBAND Essex, Lindsey\n")
    assert probs == {1: ["not-your-unit"]}


def test_rule_10_1_place_when_the_nation_does_not_increase(rs):
    st = _state()
    st.subjects["saxons"] = "romans"    # 11.1: subjects do not increase without permission
    _, probs = _problems(rs, "PLACE Essex\n", st)
    assert probs == {1: ["not-now"]}


def test_rule_9_0_leader_that_does_not_enter_this_turn(rs):
    _, probs = _problems(rs, "LEADER Arthur IN Essex\n")
    assert probs == {1: ["not-now"]}


def test_moves_are_checked_after_an_error_in_place(rs):
    st = _state()
    st.subjects["saxons"] = "romans"
    _, probs = _problems(rs, "PLACE Essex\n3 Essex -> Norfolk -> Lindsey -> York\n", st)
    assert probs[1] == ["not-now"] and probs[2]


def test_orders_for_a_later_nation_are_checked_against_todays_position(rs):
    result, probs = _problems(rs, "WITHDRAW Kent\n", _state(next_nation="jutes"))
    assert probs == {1: ["not-your-unit"]}
    assert result.later == ["saxons"]
    text = render_reply(result, rs, game="v-1")
    assert "checked against today's position" in text and "checked again when your turn comes" in text


def test_ok_line_without_effect_says_why_in_the_reply(rs):
    st = _state()
    st.areas["essex"]["saxons"].armies = 1
    result, probs = _problems(rs, "DISBAND Essex\n", st)
    assert not probs
    assert result.lines[0].notes and "overpopulated" in result.lines[0].notes[0]
    assert "no effect: " in render_reply(result, rs, game="v-1")


def test_turn_reports_an_order_the_dice_made_useless(rs):
    """ATTACK and WITHDRAW are legal when sent; the battle kills every raider: order_unused says so."""
    from pbem.orders.parser import parse_message

    st = GameState(game="v-2", round=5, next_nation="angles")
    st.areas = {"north_sea": {"angles": Stack(armies=1, raiders=1)}, "york": {"belgae": Stack(armies=1)}}
    no = parse_message("1 North Sea -> York\nWITHDRAW York\n", rs, default_nation="angles").section("angles")
    dice = ScriptedDice({"york": [{"angles": [1], "belgae": [6]}]})
    res = play_nation_turn(rs, st, "angles", {"angles": no}, dice, strict=False)
    assert not res.problems
    unused = [ev for ev in res.events if isinstance(ev, OrderUnused)]
    assert [(ev.line, "no raiders" in ev.reason) for ev in unused] == [(2, True)]


def test_cli_check_flags_withdraw_with_its_line_number(tmp_path):
    from pbem.store.game import create_game

    g = create_game(tmp_path, "chk", state=_state(), secret=b"check command test secret").path
    r = CliRunner().invoke(cli, ["check", "--game", str(g), "--nation", "Saxons", "-"],
                           input="3 Essex -> Suffolk\nWITHDRAW Kent\n")
    assert r.exit_code == 1
    assert "line   2" in r.output and "not-your-unit" in r.output and "raiders" in r.output
