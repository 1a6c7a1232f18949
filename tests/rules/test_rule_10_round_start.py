"""Rules 10.4, 10.5, 10.7, 11.1 and 11.2 — what happens at the beginning of a game turn (start_round)."""

from __future__ import annotations

from pbem.rules import population
from pbem.rules.context import TurnContext
from pbem.rules.dice import ScriptedDice
from pbem.rules.events import RomansLeft
from pbem.rules.turn import start_round


def test_rule_10_5_romans_become_romano_british_at_turn_6(rs, board):
    st = board(6, {"kent": {"romans": {"armies": 4, "fort": True}}, "york": {"romans": 3},
                   "essex": {"romans": {"fort": True}}, "wessex": {"romans": 3}, "english_channel": {"romans": 2}})
    new, events = start_round(rs, st, {})
    assert new.units_of("romans") == 0 and not new.areas_of("romans")
    # up to eight Romano-British replace Roman armies on land (10.5); the extra two are removed
    assert new.units_of("romano_british") == 8
    # 10.4: every surviving fort is removed
    assert "essex" not in new.areas
    assert any(isinstance(e, RomansLeft) for e in events)


def test_rule_10_5_no_romans_no_replacement_before_turn_6(rs, board):
    new, _ = start_round(rs, board(5, {"kent": {"romans": {"armies": 4, "fort": True}}}), {})
    assert new.areas["kent"]["romans"].armies == 4 and new.areas["kent"]["romans"].fort


def test_rule_11_1_subjection_ends_when_the_romans_leave(rs, board):
    st = board(6, {"kent": {"romans": 2}, "powys": {"welsh": 2}}, subjects={"welsh": "romans"})
    new, _ = start_round(rs, st, {})
    assert new.subjects == {}


def test_rule_11_2_subjection_to_the_angles_ends_at_turn_12(rs, board):
    st = board(12, {"galloway": {"brigantes": 1}, "bernicia": {"angles": 2}}, subjects={"brigantes": "angles"})
    new, _ = start_round(rs, st, {})
    assert "brigantes" not in new.subjects


def test_rule_11_2_subjection_to_the_angles_lasts_through_turn_11(rs, board):
    st = board(11, {"galloway": {"brigantes": 1}, "bernicia": {"angles": 2}}, subjects={"brigantes": "angles"})
    new, _ = start_round(rs, st, {})
    assert new.subjects == {"brigantes": "angles"}


def test_rule_10_71_harald_one_army_per_area(rs, board):
    st = board(16, {"york": {"norwegians": {"armies": 3, "leaders": ["harald_hardrada"]}},
                    "bernicia": {"norwegians": 2}, "lindsey": {"norwegians": 1}})
    new, _ = start_round(rs, st, {})
    assert new.areas["north_sea"]["norwegians"].armies == 3


def test_rule_10_72_william_per_named_area_and_three_for_harold(rs, board):
    st = board(16, {"essex": {"normans": 2}, "wessex": {"normans": {"armies": 2, "leaders": ["william"]}},
                    "kent": {"normans": 2}}, dead_leaders={"harold"}, leader_killed_by={"harold": "normans"})
    new, _ = start_round(rs, st, {})
    # Essex 1 + Wessex 1 (Kent is not a named area) + 3 for Harold killed by the Normans
    assert new.areas["english_channel"]["normans"].armies == 5


def test_rule_10_73_no_reinforcements_when_the_leader_is_dead(rs, board):
    st = board(16, {"essex": {"normans": 2}, "york": {"norwegians": 2}},
               dead_leaders={"william", "harald_hardrada"})
    new, _ = start_round(rs, st, {})
    assert "english_channel" not in new.areas and "north_sea" not in new.areas


def test_rule_10_5_reinforcements_enter_south_of_york_when_rb_gone(rs, board):
    st = board(7, {"york": {"saxons": 2}, "essex": {"saxons": 1}}, next_nation="romano_british")
    ctx = TurnContext(rs, st, "romano_british", {}, ScriptedDice({}))
    population.arrivals(ctx)
    placed = [a for a in st.areas_of("romano_british")]
    assert len(placed) == 1 and st.areas[placed[0]]["romano_british"].cavalry == 2
    assert placed[0] in rs.constants_list("south_of_york")
