"""Issue 15 — the decision machine: `pending(ruleset, state, book)` says what is owed now."""

from __future__ import annotations

from pbem.orders.parser import parse_message
from pbem.rules.book import OrdersBook
from pbem.rules.decisions import pending
from pbem.rules.legal import vote_options
from pbem.rules.state import GameState, Stack


def _orders(rs, nation, text):
    return parse_message(text, rs, default_nation=nation).section(nation).orders


def _state(next_nation="saxons") -> GameState:
    st = GameState(game="p-1", round=7, next_nation=next_nation)
    st.areas = {"essex": {"saxons": Stack(armies=3)}, "kent": {"saxons": Stack(armies=2)},
                "suffolk": {"angles": Stack(armies=2)}}
    return st


def test_rule_4_0_the_nation_to_move_owes_its_turn(rs):
    assert [(d.nation, d.kind, d.deadline_kind) for d in pending(rs, _state(), OrdersBook())] == [("saxons", "turn", "turn")]


def test_legal_turn_orders_waiting_owe_nothing(rs):
    book = OrdersBook()
    book.add("saxons", 5, _orders(rs, "saxons", "3 Essex -> Suffolk\n"))
    assert pending(rs, _state(), book) == []
    assert book.get("saxons").entries(turn=True) == [5]


def test_refused_orders_waiting_owe_a_correction(rs):
    book = OrdersBook()
    book.add("saxons", 5, _orders(rs, "saxons", "3 Essex -> Suffolk\nWITHDRAW Kent\n"))
    [d] = pending(rs, _state(), book)
    assert d.kind == "turn" and d.correction and d.problems[0].line == 2


def test_orders_for_a_later_nation_do_not_answer_the_turn(rs):
    book = OrdersBook()
    book.add("angles", 6, _orders(rs, "angles", "PASS\n"))
    assert [d.nation for d in pending(rs, _state(), book)] == ["saxons"]


def test_rule_12_2_voters_owe_a_vote_at_the_round_start(rs):
    st = GameState(game="p-2", round=9, next_nation=None)
    st.areas = {"essex": {"saxons": Stack(armies=3)}, "kent": {"jutes": Stack(armies=2)}}
    voters = sorted(vote_options(rs, st))
    owed = pending(rs, st, OrdersBook())
    assert [d.nation for d in owed] == voters and {d.kind for d in owed} == {"vote"}
    book = OrdersBook()
    book.add(voters[0], 3, _orders(rs, voters[0], f"VOTE {voters[0]}\n"))
    assert [d.nation for d in pending(rs, st, book)] == voters[1:]


def test_rule_8_2_wait_mode_defenders_owe_a_retreat_decision(rs):
    book = OrdersBook()
    book.add("saxons", 5, _orders(rs, "saxons", "3 Essex -> Suffolk\n"))
    [d] = pending(rs, _state(), book, wait_for_defenders=True)
    assert (d.nation, d.kind, d.area, d.attacker, d.deadline_kind) == ("angles", "defence", "suffolk", "saxons", "decision")
    book.add("angles", 6, _orders(rs, "angles", "DEFEND Suffolk: HOLD\n"))
    assert pending(rs, _state(), book, wait_for_defenders=True) == []
