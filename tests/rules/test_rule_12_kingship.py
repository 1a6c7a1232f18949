"""Rules 12.1-12.5 — Bretwalda and King: checked at the beginning of game turns (start_round) and at
the end of turn 16 (end_round), which the conformance cases cannot reach."""

from __future__ import annotations

from pbem.rules import kingship
from pbem.rules.events import BretwaldaVote, King
from pbem.rules.turn import end_round, start_round

ENGLISH = ["essex", "kent", "sussex", "wessex", "suffolk", "norfolk", "south_mercia", "north_mercia", "hwicce",
           "avalon", "downlands", "lindsey", "york", "march", "cheshire", "bernicia", "pennines", "cumbria",
           "galloway", "lothian"]


def holding(**counts):
    """{'saxons': 5, 'angles': 2} -> one army of each nation in that many distinct English areas."""
    areas, i = {}, 0
    for nation, n in counts.items():
        for _ in range(n):
            areas[ENGLISH[i]] = {nation: 1}
            i += 1
    return areas


def test_rule_12_1_bretwalda_vote_in_turn_9(rs, board):
    st = board(9, holding(saxons=5, angles=3, welsh=1))
    new, events = start_round(rs, st, {"welsh": "saxons"})
    assert new.bretwalda == "saxons"
    assert new.vp == {"saxons": 2}
    assert any(isinstance(e, BretwaldaVote) and e.tally == {"saxons": 6, "angles": 3} for e in events)


def test_rule_12_2_majority_of_votes_cast_needed(rs, board):
    st = board(10, holding(saxons=4, angles=3, welsh=1))
    new, _ = start_round(rs, st, {})          # no abstention: each votes for itself; 4 of 8 is no majority
    assert new.bretwalda is None
    assert not new.vp


def test_rule_12_2_votes_may_go_to_another_nation(rs, board):
    st = board(11, holding(saxons=4, angles=3, welsh=2))
    new, _ = start_round(rs, st, {"saxons": "angles"})
    assert new.bretwalda == "angles"
    assert new.vp == {"angles": 2}


def test_rule_12_2_one_vote_per_english_area_only(rs, board):
    areas = holding(saxons=2, angles=1)
    areas.update({"gwynedd": {"welsh": 1}, "powys": {"welsh": 1}, "dyfed": {"welsh": 1}, "alban": {"picts": 3}})
    new, _ = start_round(rs, board(9, areas), {})
    assert new.bretwalda == "saxons"          # 2 of 3 English votes; Welsh and Pictish areas do not vote


def test_rule_12_2_subject_galloway_votes_with_the_angles(rs, board):
    areas = holding(saxons=2, angles=1)
    areas["galloway"] = {"brigantes": 1}
    areas["strathclyde"] = {"brigantes": 1}
    st = board(9, areas, subjects={"brigantes": "angles"})
    assert dict(kingship.votes_by_nation(rs, st)) == {"saxons": 2, "angles": 2}
    new, _ = start_round(rs, st, {})
    assert new.bretwalda is None              # 2 against 2: no majority


def test_rule_12_1_no_vote_outside_turns_9_to_15(rs, board):
    for rnd in (8, 16):
        new, events = start_round(rs, board(rnd, holding(saxons=6)), {})
        assert new.bretwalda is None and not new.kings and not new.vp
        assert not any(isinstance(e, (BretwaldaVote, King)) for e in events)


def test_rule_12_3_king_needs_four_areas(rs, board):
    new, events = start_round(rs, board(12, holding(saxons=3)), {})
    assert new.kings == []
    # no King: a Bretwalda vote is held instead (12.1)
    assert new.bretwalda == "saxons" and new.vp == {"saxons": 2}
    assert any(isinstance(e, BretwaldaVote) for e in events)


def test_rule_12_3_king_needs_twice_any_other(rs, board):
    new, _ = start_round(rs, board(13, holding(saxons=7, danes=4)), {})
    assert new.kings == []
    assert new.bretwalda == "saxons"          # 7 of 11 votes


def test_rule_12_3_king_with_exactly_twice(rs, board):
    st = board(12, holding(saxons=8, danes=4))
    new, events = start_round(rs, st, {})
    assert new.kings == ["saxons"]
    assert new.bretwalda is None              # 12.1: a Bretwalda only if there is no King
    assert new.vp == {"saxons": 4}
    assert not any(isinstance(e, BretwaldaVote) for e in events)


def test_rule_12_3_king_gets_an_extra_army_placed_as_population_increase(rs, board):
    st = board(14, holding(saxons=4))
    new, _ = start_round(rs, st, {})
    assert new.kings == ["saxons"]
    assert new.units_of("saxons") == 5
    # 10.2: one per area, into an area the Saxons occupy
    assert all(new.areas[a]["saxons"].units <= 2 for a in new.areas_of("saxons"))


def test_rule_9_0_a_leader_holds_an_area_towards_kingship(rs, board):
    areas = holding(saxons=3)
    areas["york"] = {"saxons": {"leaders": ["alfred"]}}
    new, _ = start_round(rs, board(12, areas), {})
    assert new.kings == ["saxons"]


def test_rule_9_2_two_opposing_leaders_control_nothing(rs, board):
    areas = holding(saxons=3)
    areas["york"] = {"saxons": {"leaders": ["alfred"]}, "danes": {"leaders": ["ivar_and_halfdan"]}}
    st = board(12, areas)
    assert kingship.english_areas_held(rs, st)["saxons"] == 3
    new, _ = start_round(rs, st, {})
    assert new.kings == []


def test_rule_12_5_king_in_turn_16_by_the_usual_rules(rs, board):
    areas = holding(normans=8, saxons=4)
    areas["wessex"] = {"normans": {"armies": 1, "leaders": ["william"]}}
    st = board(16, areas)
    new, events = end_round(rs, st)
    assert new.kings == ["normans"]
    assert new.vp.get("normans", 0) >= 5
    assert any(isinstance(e, King) and e.nation == "normans" for e in events)
    assert new.finished


def test_rule_12_5_only_harold_william_harald_eligible(rs, board):
    st = board(16, holding(danes=10, saxons=1))
    new, _ = end_round(rs, st)
    assert "danes" not in new.kings


def test_rule_12_5_last_survivor_is_king_automatically(rs, board):
    st = board(16, holding(saxons=2, normans=3, danes=3), dead_leaders={"william", "harald_hardrada"})
    new, _ = end_round(rs, st)
    assert new.kings == ["saxons"]
    ledger = [e for e in new.ledger if e["kind"] == "king"]
    assert ledger and ledger[0]["points"] == 4


def test_rule_12_5_last_survivor_blocked_by_twice_as_many(rs, board):
    st = board(16, holding(saxons=2, danes=4), dead_leaders={"william", "harald_hardrada"})
    new, _ = end_round(rs, st)
    assert new.kings == []


def test_rule_12_5_dead_leaders_nations_not_king(rs, board):
    st = board(16, holding(normans=8, saxons=1), dead_leaders={"william"})
    new, _ = end_round(rs, st)
    assert "normans" not in new.kings


def test_rule_12_4_two_kings_in_turn_14(rs, board):
    """12.3 at the start of turn 14 (the Saxons) and 12.4 at the end of the Danish turn (Canute)."""
    from pbem.rules.dice import HmacDice
    from pbem.rules.turn import play_nation_turn

    st = board(14, holding(saxons=4, angles=1))
    st, events = start_round(rs, st, {})
    assert st.kings == ["saxons"] and st.vp.get("saxons") == 4
    # the Danes then take English areas: at the end of their turn 14 they hold twice any other nation
    for area in ("york", "march", "cheshire", "bernicia", "pennines", "cumbria", "galloway", "lothian", "avalon"):
        st.stack(area, "danes").armies = 2
    st.stack("york", "danes").leaders.append("cnut")
    for area in ("essex", "kent"):
        st.areas.pop(area, None)          # the Saxons are down to two English areas
    result = play_nation_turn(rs, st, "danes", {}, HmacDice(b"two kings in turn fourteen"), start="movement")
    assert result.state.kings == ["saxons", "danes"]
    assert any(isinstance(e, King) and e.canute for e in result.events)
