"""Issue 29 — `pbem selfplay --ruleset duel --check` checks Duel's own invariants (Rules.invariants):
[Allocation Of Hits And Elimination Of Armies] at most one wounded piece a side, none left after a
battle; [Phase I] the maintenance economy (the table's change, the areas counted, only that change)."""
from __future__ import annotations

from types import SimpleNamespace

from pbem.data.loader import load_ruleset
from pbem.rules.events import make
from pbem.rules.state import GameState, Stack

RS = load_ruleset("duel")


def _state(**areas) -> GameState:
    state = GameState(ruleset="duel", game="t", round=3)
    for area, stacks in areas.items():
        state.areas[area] = dict(stacks)
    return state


def _step(state, *events):
    return SimpleNamespace(state=state, events=list(events), kind="nation_turn", nation="welsh", round=3)


def _maintenance(**kw):
    base = dict(round=3, nation="welsh", points=3, armies=2, change=1, gained=1, lost={}, lines=[])
    return make("duel_maintenance", **{**base, **kw})


def test_a_right_maintenance_count_and_battle_pass():
    before = _state(powys=dict(welsh=Stack(armies=1)), dyfed=dict(welsh=Stack(armies=1)))
    fought = make("battle_round", round=3, area="powys", battle_round=1, cycle=1, dice={},
                  losses={"welsh": {"wounded_armies": 1}, "saxons": {"armies": 1}})
    assert RS.rules.invariants(RS, before, _step(before, _maintenance(), fought)) == []


def test_two_wounded_pieces_of_one_side_are_caught():
    before = _state()
    fought = make("battle_round", round=3, area="powys", battle_round=1, cycle=1, dice={},
                  losses={"welsh": {"wounded_armies": 1, "wounded_fort": 1}})
    assert any("2 wounded" in v for v in RS.rules.invariants(RS, before, _step(before, fought)))


def test_a_wound_left_after_the_step_is_caught():
    after = _state(powys=dict(welsh=Stack(armies=2, counters={"wounded_armies": 1})))
    assert any("wounded" in v for v in RS.rules.invariants(RS, _state(), _step(after)))


def test_a_wrong_maintenance_count_is_caught():
    before = _state(powys=dict(welsh=Stack(armies=1)), dyfed=dict(welsh=Stack(armies=1)))   # 1 + 2 points
    for wrong in (_maintenance(points=5), _maintenance(change=2), _maintenance(gained=2),
                  _maintenance(points=3, armies=6, change=-1, gained=0, lost={"powys": 2})):
        assert RS.rules.invariants(RS, before, _step(before, wrong)), wrong
