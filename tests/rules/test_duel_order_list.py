"""Duel Britannia has no Bretwalda or King election and no submission to Rome (seed rules: no such
phase): its order language holds no VOTE and no SUBMIT, and a mail using them is told the forms it has."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.rules.rulesets.duel import DuelRules


def test_duel_order_list_has_no_vote_or_submit():
    forms = tuple(DuelRules.order_forms)
    assert "ARRIVE" in forms and "MOVE" in forms
    assert "VOTE" not in forms and "SUBMIT" not in forms


def test_a_vote_line_in_a_duel_mail_is_a_typed_error():
    from pbem.orders.check import check_orders
    from pbem.rules.turn import new_game_state

    rs = load("duel")
    state = new_game_state(rs, "d1")
    nation = next(iter(rs.nations))
    r = check_orders(f"NATION {rs.nations[nation].name}\nVOTE {rs.nations[nation].name}\n", rs, state, nation=nation)
    assert any(p.line == 2 for p in r.problems), r.problems


def test_duel_texts_cite_the_duel_rule_book():
    """Issue 30 item 5 for Duel: a generic message's classic section is cited by the Duel rule book's
    section ("rule 8.0" -> "[Battle Dice]"), a section Duel has no word on said to be the classic game's."""
    rs = load("duel")
    assert rs.rules.cite(rs, "too many (rule 5.2)") == "too many ([Stacking Limits])"
    assert rs.rules.cite(rs, "(rules 10.2, 5.2)") == "([Phase I], [Stacking Limits])"
    assert rs.rules.cite(rs, "(rule 12.2)") == "(the classic game's rule 12.2 (Duel is silent))"
    from pbem.orders.language import guide_lines

    meanings = "\n".join(line.split("`: ", 1)[-1] for line in guide_lines(rs))
    assert "[Phase I]" in meanings and "rule 10.2" not in meanings
