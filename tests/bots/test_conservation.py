"""Issue 31 "Also" 1 — the stronger invariants of `pbem selfplay --check` notice what they are meant to
notice: units and points that change without an event saying so, a ledger entry no event names, a
nation on the board before it can arrive, a step that plays differently from the same inputs."""

from __future__ import annotations

import dataclasses

import pytest

from pbem.bots import conservation as C
from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.rules.dice import HmacDice
from pbem.rules.flow import play_game
from pbem.rules.flow import step as play_step
from pbem.rules.turn import new_game_state


def _first_steps(rs, seed=3, n=12):
    """(position before, step) of the first n steps of a bot game."""
    bots = BotGame(rs, seed)
    state, out = new_game_state(rs, "c"), []
    for _ in range(n):
        s = play_step(rs, state, bots.orders_for(state), HmacDice(bots.secret))
        out.append((state, s))
        state = s.state
    return out


@pytest.mark.parametrize("ruleset", ["classic", "ffg2"])
def test_whole_bot_games_keep_every_conservation_invariant(ruleset):
    rs = load(ruleset)
    for seed in (0, 1):
        bots, chk, found = BotGame(rs, seed), C.Checker(rs), []
        before = [new_game_state(rs, "c")]

        def on(step):
            found.extend(chk.after_step(before[0], step))
            before[0] = step.state.copy()

        play_game(rs, before[0].copy(), bots.orders_for, HmacDice(bots.secret), on_step=on)
        assert found == [], found[:5]


def test_a_unit_that_appears_without_an_event_is_noticed():
    rs = load("classic")
    before, step = _first_steps(rs)[1]
    step.state.stack("kent", "belgae").armies += 1
    assert any(v.startswith("units: the belgae") for v in C.units_explained(rs, before, step))


def test_a_loss_in_battle_accounts_for_the_unit_gone():
    rs = load("classic")
    steps = _first_steps(rs)
    before, step = next((b, s) for b, s in steps if any(type(e).__name__ == "Eliminated" for e in s.events))
    assert C.units_explained(rs, before, step) == []
    events = [e for e in step.events if type(e).__name__ != "Eliminated"]
    assert C.units_explained(rs, before, dataclasses.replace(step, events=events))   # the losses unexplained


def test_points_without_a_ledger_entry_or_an_event_are_noticed():
    rs = load("classic")
    steps = _first_steps(rs)
    before, step = next((b, s) for b, s in steps if any(type(e).__name__ == "Scored" for e in s.events))
    assert C.vp_explained(rs, before, step) == []
    step.state.vp["romans"] = step.state.vp.get("romans", 0) + 5
    assert any("score moved" in v for v in C.vp_explained(rs, before, step))
    step.state.vp["romans"] -= 5
    bare = dataclasses.replace(step, events=[e for e in step.events if type(e).__name__ != "Scored"])
    assert any("has no event" in v for v in C.vp_explained(rs, before, bare))


def test_a_nation_on_the_board_before_it_can_arrive_is_noticed():
    rs = load("classic")
    state = new_game_state(rs, "c")
    assert C.not_before_arrival(rs, state) == []
    state.stack("kent", "normans").armies = 2      # the Normans come in turn 15
    assert any("normans" in v for v in C.not_before_arrival(rs, state))


def test_selfplay_check_replays_each_step_from_its_inputs():
    rs = load("classic")
    game = BotGame(rs, 5, check=True)
    result = game.play()
    assert result.violations == []
    # a step whose recorded outcome differs from what its inputs give is reported
    before = new_game_state(rs, "c")
    game._before, game._given = before, game.orders_for(before)
    s = play_step(rs, before, game._given, HmacDice(game.secret))
    assert game._replayed_the_same(s) == []
    s.state.stack("kent", "belgae").armies += 1
    assert game._replayed_the_same(s) == ["replay: the step played again from its inputs gives another position"]
