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


def test_rule_8_2_defence_options_are_the_engines_ffg_29_overrun_origin_barred():
    """Rule 8.2 with ffg2 difference 29 — the defence decision comes from the engine's own movement: the
    defender may not retreat into an area from which attackers overran through the battle area (it
    was re-derived from the orders' end points, which know only where the stopping groups came from)."""
    from pbem.data.loader import load

    rs = load("ffg2")
    plain = [a for a in sorted(rs.areas) if rs.is_land(a) and not rs.hiland(a)]

    def land(a):
        return sorted(b for b in rs.areas[a].land if b in plain)

    p, x, y, q = next((p, x, y, q) for x in plain for p in land(x) for y in land(x) for q in land(x)
                      if len({p, x, y, q}) == 4 and y not in rs.neighbours(p) and q not in rs.neighbours(p)
                      and any(r not in (p, q, y) for r in land(x)))
    st = GameState(game="p-1", round=7, next_nation="saxons")
    st.areas = {p: {"saxons": Stack(armies=1)}, q: {"saxons": Stack(armies=2)}, x: {"angles": Stack(armies=1)}}
    book = OrdersBook()
    book.add("saxons", 5, _orders(rs, "saxons", f"1 {rs.display(p)} -> {rs.display(x)} -> {rs.display(y)}\n"
                                                 f"2 {rs.display(q)} -> {rs.display(x)}\n"))
    [d] = pending(rs, st, book, wait_for_defenders=True)
    assert (d.nation, d.area) == ("angles", x)
    assert set(d.origins) == {p, q}
    assert p not in d.options and q not in d.options


def test_orders_already_checked_are_not_played_again_and_owe_the_same(rs, monkeypatch):
    """Issue 33: a mail's orders, validated once (check_turn), answer `pending` when the book holds
    exactly those orders; other orders are checked afresh, and the decisions are the same either way."""
    from pbem.rules import decisions
    from pbem.rules.legal import check_turn

    text = "3 Essex -> Suffolk\nWITHDRAW Kent\n"
    section = parse_message(text, rs, default_nation="saxons").section("saxons")
    book = OrdersBook()
    book.add("saxons", 5, section.orders)
    plain = pending(rs, _state(), book)
    played = []
    monkeypatch.setattr(decisions, "check_turn", lambda *a, **k: played.append(1) or check_turn(*a, **k))
    known = {"saxons": (section, check_turn(rs, _state(), section).problems)}   # the mail's, as take_orders gives them
    assert pending(rs, _state(), book, checked=known) == plain and not played
    other = parse_message("2 Essex -> Suffolk\n", rs, default_nation="saxons").section("saxons")
    assert pending(rs, _state(), book, checked={"saxons": (other, [])}) == plain and played == [1]
