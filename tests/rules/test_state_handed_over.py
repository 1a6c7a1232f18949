"""A step that is handed its state (`consume`: live play, replay) plays exactly as the pure step on a
copy: the same events, problems, positions and order of areas, step by step, for recorded bot games."""

from __future__ import annotations

import pytest

from pbem.bots.bench import record_games
from pbem.data.loader import load
from pbem.rules import flow
from pbem.rules.dice import HmacDice
from pbem.rules.events import to_dicts
from pbem.rules.orders import NationOrders
from pbem.rules.state import GameState
from pbem.rules.turn import new_game_state, play_nation_turn


def _order(state: GameState) -> list[tuple[str, list[str]]]:
    return [(a, list(st)) for a, st in state.areas.items()]


@pytest.mark.parametrize("ruleset,bot,seed", [("classic", "random", 31), ("ffg2", "greedy", 32)])
def test_handed_over_state_gives_the_same_game_as_the_pure_step(ruleset, bot, seed):
    rs = load(ruleset)
    game = record_games(rs, 1, seed=seed, bot=bot)[0]
    pure = new_game_state(rs, game.game_id)
    # the position handed over starts loaded, its areas out of order: the step must sort them as a copy does
    given = GameState.from_dict(pure.to_dict())
    given.areas = dict(reversed(given.areas.items()))
    dice = HmacDice(game.secret)
    for orders in game.orders:
        before, order_before = pure.to_dict(), _order(pure)
        a = flow.step(rs, pure, orders, dice)
        assert pure.to_dict() == before and _order(pure) == order_before   # the pure step left it alone
        b = flow.step(rs, given, orders, dice, consume=True)
        assert b.state is given                                          # worked on in place
        assert (b.kind, b.nation, b.round) == (a.kind, a.nation, a.round)
        assert to_dicts(b.events) == to_dicts(a.events)
        assert [(p.kind, p.line, p.message) for p in b.problems] == [(p.kind, p.line, p.message) for p in a.problems]
        assert b.state.to_dict() == a.state.to_dict()
        assert _order(b.state) == _order(a.state)
        pure, given = a.state, b.state
    assert given.finished


def test_put_in_order_sorts_areas_and_nations_as_a_copy_does():
    st = GameState.from_dict({"areas": {"york": {"saxons": 2, "angles": 1}, "kent": {"jutes": 1}}})
    expected = _order(st.copy())
    assert _order(st.put_in_order()) == expected == [("kent", ["jutes"]), ("york", ["angles", "saxons"])]


def test_a_strict_turn_cannot_be_handed_its_state(rs):
    state = new_game_state(rs)
    with pytest.raises(ValueError):
        play_nation_turn(rs, state, "romans", {"romans": NationOrders("romans")}, HmacDice(b"x"), consume=True)
