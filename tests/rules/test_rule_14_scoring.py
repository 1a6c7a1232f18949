"""Rules 14.2-14.4 and 11.1/11.2 — holdings at the end of the scoring turns and the Roman Limes:
end-of-round steps the conformance cases cannot reach (end_round)."""

from __future__ import annotations

from pbem.rules.events import Scored
from pbem.rules.turn import end_round


def test_rule_14_2_holdings_scored_at_end_of_turn_4(rs, board):
    st = board(4, {"essex": {"saxons": 2}, "kent": {"saxons": 1}, "york": {"angles": 2}})
    new, events = end_round(rs, st)
    # first scoring occasion (turn 4): Saxons 2 + 2, Angles York 2 (data doubt 17: FFG-scale tables)
    assert new.vp == {"saxons": 4, "angles": 2}
    assert {(e.nation, e.area) for e in events if isinstance(e, Scored)} == {
        ("saxons", "essex"), ("saxons", "kent"), ("angles", "york")}
    assert new.round == 5


def test_rule_14_2_no_holdings_outside_scoring_turns(rs, board):
    for rnd in (3, 6, 8, 9):
        new, _ = end_round(rs, board(rnd, {"essex": {"saxons": 2}, "york": {"angles": 2}}))
        assert not new.vp, rnd


def test_rule_14_3_holding_means_sole_occupant(rs, board):
    st = board(7, {"essex": {"saxons": 2, "romano_british": 1}, "norfolk": {"angles": 1}})
    new, _ = end_round(rs, st)
    assert "saxons" not in new.vp                  # shares Essex (only possible mid-battle or with leaders)
    assert new.vp["angles"] == 6                   # Norfolk on the turn-7 table


def test_rule_9_0_a_leader_alone_holds_for_points(rs, board):
    new, _ = end_round(rs, board(10, {"wessex": {"saxons": {"leaders": ["egbert"]}}}))
    assert new.vp == {"saxons": 4}


def test_rule_9_2_two_leaders_hold_nothing(rs, board):
    st = board(10, {"wessex": {"saxons": {"leaders": ["egbert"]}, "danes": {"leaders": ["ivar_and_halfdan"]}}})
    new, _ = end_round(rs, st)
    assert not new.vp


def test_rule_14_4_limes_at_end_of_turn_5(rs, board):
    st = board(5, {"york": {"romans": {"armies": 2, "fort": True}}, "essex": {"romans": {"fort": True}},
                   "kent": {"romans": 1, "saxons": 1}})
    new, events = end_round(rs, st)
    # doubt 18: areas the Romans solely occupy (armies or fort) on the Limes table: York 6, Essex 6
    assert new.vp == {"romans": 12}
    assert all(e.kind == "limes" for e in events if isinstance(e, Scored))


def test_rule_14_4_no_limes_in_turn_4(rs, board):
    new, _ = end_round(rs, board(4, {"york": {"romans": {"armies": 2, "fort": True}}}))
    assert "romans" not in new.vp


def test_rule_11_1_limes_for_subject_areas(rs, board):
    st = board(5, {"powys": {"welsh": 2}, "gwynedd": {"welsh": 1}, "york": {"romans": 2}},
               subjects={"welsh": "romans"})
    new, _ = end_round(rs, st)
    # York 6 + subject-held Powys 1 + Gwynedd 1; the subject scores nothing (11.1)
    assert new.vp == {"romans": 8}


def test_rule_11_1_subject_scores_no_holdings(rs, board):
    st = board(4, {"powys": {"welsh": 2}, "kent": {"romans": 2}}, subjects={"welsh": "romans"})
    new, _ = end_round(rs, st)
    assert "welsh" not in new.vp


def test_rule_11_2_angles_score_submitted_brigante_areas_in_turn_10(rs, board):
    st = board(10, {"galloway": {"brigantes": 1}, "cumbria": {"brigantes": 1}, "york": {"brigantes": 1},
                    "bernicia": {"angles": 2}}, subjects={"brigantes": "angles"})
    new, _ = end_round(rs, st)
    # Bernicia 4 (their own) + Galloway 2 (submitted); Cumbria and York are English areas, which cannot
    # submit to the Angles (11.2), so they do not count for them
    assert new.vp == {"angles": 6}
