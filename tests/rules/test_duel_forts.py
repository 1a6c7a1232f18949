"""Duel Britannia's fortifications (doubt S2): the Roman forts of [Setting Up Round 1], the forts that
remain after [Withdrawal Of The Romans], Dumbarton, Bamburgh and the burhs (aid doubts D8-D11), a fort's
dice in [Battle Dice], the Saxon Shore points (aid doubt D6); and the generic pieces they need (a fort
count a stack, a family saying which nations hold forts) leaving the classic positions as they were.
The rules' cases are in tests/cases/duel (forts-*.yaml, fort-*.yaml, battle-against-a-fort.yaml)."""

from __future__ import annotations

import pytest

from pbem.data.loader import load
from pbem.position.check import check_position
from pbem.render import map as m
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import new_game_state


@pytest.fixture(scope="module")
def duel():
    return load("duel")


def test_one_fort_is_saved_as_true_as_ever_and_more_as_their_number():
    assert Stack(armies=1, fort=True).to_dict() == {"armies": 1, "fort": True}
    assert Stack(armies=1, fort=2).to_dict() == {"armies": 1, "fort": 2}
    assert Stack.from_dict({"fort": 2}).fort == 2
    assert Stack.from_dict({"fort": 1}).fort is True      # one fort is True in memory too (10.4 bytes)
    assert Stack.from_dict({"fort": True}).fortifications == 1
    assert Stack(armies=2, fort=2, burhs=1).fighters == 5
    with pytest.raises(ValueError):
        Stack.from_dict({"fort": -1})


def test_a_fort_falls_one_at_a_time_and_the_last_leaves_false():
    from pbem.rules.rulesets.duel_battle import split_hits

    s = Stack(fort=2)
    assert split_hits(4, 0, 0, 0, s.fortifications, None) == {"forts": 2}
    assert split_hits(3, 0, 0, 0, s.fortifications, None) == {"forts": 1, "wounded_fort": 1}


def test_only_the_families_that_say_so_let_other_nations_hold_forts(duel):
    classic = load("classic")
    assert classic.rules.holds_forts(classic, "romans")
    assert not classic.rules.holds_forts(classic, "romano_british")
    for nation in ("romans", "romano_british", "rheged", "north_angles"):
        assert duel.rules.holds_forts(duel, nation), nation
    assert not duel.rules.holds_forts(duel, "saxons")     # the Saxons' fortifications are burhs


def test_the_classic_start_has_no_fort_and_duel_sets_up_the_eight_roman_forts(duel):
    classic = load("classic")
    assert not any(s.fort for st in new_game_state(classic).areas.values() for s in st.values())
    st = new_game_state(duel)
    forts = {a: int(s.fort) for a, stacks in st.areas.items() for n, s in stacks.items() if s.fort}
    assert forts == {"kent": 2, "essex": 2, "wessex": 1, "e_anglia": 1, "strathclyde": 1, "northumbria": 1}
    assert all(n == "romans" for a in forts for n in st.areas[a])
    assert st.forts_built == set(forts)


def test_a_position_with_an_heirs_forts_is_good_in_duel_and_not_in_classic(duel):
    st = GameState(ruleset="duel", round=2)
    st.stack("kent", "romano_british").fort = 2
    st.forts_built.add("kent")
    found = check_position(duel, st, "round_start")
    assert not [f for f in found if f.level == "error" and "fort" in f.message], found
    classic = load("classic")
    bad = GameState(ruleset="classic", round=2)
    bad.stack("kent", "belgae").fort = True
    bad.forts_built.add("kent")
    assert any("only the Romans build forts" in f.message for f in check_position(classic, bad, "round_start"))


def test_the_map_draws_a_non_roman_fort_and_the_number_of_forts(duel):
    c = m.stack_layout("kent", {"romano_british": Stack(armies=1, fort=2)}, duel)
    assert [x.nation for x in c] == ["romano_british"]
    assert m._squares(c[0]) == ("F2",)
    c = m.stack_layout("essex", {"rheged": Stack(fort=True)}, duel)
    assert m._squares(c[0]) == ("F",)


def test_the_odds_count_two_forts_a_stack(duel):
    """`pbem odds` (still the generic one-hit allocation for Duel: doubt S6) takes forts off one by one."""
    from pbem.rules.odds import Side, battle_odds

    one = battle_odds(duel, Side(armies=3), Side(armies=1, fort=True), area="kent")
    two = battle_odds(duel, Side(armies=3), Side(armies=1, fort=2), area="kent")
    assert 0 < two.attacker_takes < one.attacker_takes < 1
