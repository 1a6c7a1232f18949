"""Bots write only legal orders: the parser reads every line, validate() finds nothing."""

from __future__ import annotations

import pytest

from pbem.bots import GreedyBot, RandomBot, bot_orders
from pbem.orders.parser import parse_message
from pbem.rules.flow import votes_owed
from pbem.rules.legal import validate, vote_options
from pbem.rules.orders import Move, Pass, Vote
from pbem.rules.turn import new_game_state


def _check(rs, state, nation, text):
    assert text.splitlines()[0].upper().startswith("NATION ")
    pm = parse_message(text, rs, default_nation=nation)
    assert not pm.problems, (text, pm.problems)
    assert pm.nations == [nation]
    orders = pm.section(nation)
    if state.next_nation == nation:
        assert validate(rs, state, orders) == [], text
    return orders


@pytest.mark.parametrize("make", [lambda i: RandomBot(i), lambda i: RandomBot(100 + i), lambda i: GreedyBot(i)],
                         ids=["random-a", "random-b", "greedy"])
def test_bot_orders_are_legal_in_many_positions(rs, positions, make):
    turns = [s for s in positions if s.next_nation is not None]
    assert len(turns) > 250
    moved = 0
    for i, state in enumerate(turns):
        nation = state.next_nation
        orders = _check(rs, state, nation, make(i).orders(rs, state, nation))
        moved += bool(orders.of(Move))
    assert moved > len(turns) // 3      # they do play


def test_votes_are_read(rs, positions):
    starts = [s for s in positions if votes_owed(rs, s)]
    assert starts
    for state in starts:
        for nation in vote_options(rs, state):
            for bot in (RandomBot(3), GreedyBot(3, friends=("angles", "saxons"))):
                orders = _check(rs, state, nation, bot.orders(rs, state, nation))
                assert [type(o) for o in orders.orders] == [Vote]


def test_bot_orders_function(rs):
    state = new_game_state(rs, "nmr")
    # round start of round 1: nothing owed
    assert parse_message(bot_orders(rs, state, "belgae"), rs).section("belgae").orders == [Pass()]
    from pbem.rules.turn import start_round

    state, _ = start_round(rs, state)
    assert state.next_nation == "romans"
    text = bot_orders(rs, state, "romans", kind="greedy", seed="nmr/1")
    assert text == bot_orders(rs, state, "romans", kind="greedy", seed="nmr/1")   # repeatable
    orders = _check(rs, state, "romans", text)
    assert orders.of(Move)
    text = bot_orders(rs, state, "romans", kind="random", seed=5)
    _check(rs, state, "romans", text)
    # not its turn: PASS
    assert parse_message(bot_orders(rs, state, "belgae"), rs).section("belgae").orders == [Pass()]
    with pytest.raises(ValueError):
        bot_orders(rs, state, "romans", kind="clever")


def test_random_bot_writes_varied_forms(rs, positions):
    texts = [RandomBot(i).orders(rs, s, s.next_nation) for i, s in enumerate(positions[:120]) if s.next_nation]
    joined = "\n".join(texts)
    assert "_" in joined                      # ids as well as names
    assert any(line.islower() for t in texts for line in t.splitlines()[1:] if line.strip())


def test_bots_repair_a_position_over_the_stacking_limits(rs):
    """A turn that starts over the limits (a moderator's position, or an engine slip) still gets legal
    orders: the bots move units out until the set passes validate()."""
    state = new_game_state(rs, "repair")
    state.next_nation = "belgae"
    state.stack("kent", "belgae").armies = 4
    state.stack("essex", "belgae").armies = 4
    from pbem.rules.orders import NationOrders

    assert validate(rs, state, NationOrders("belgae", [Pass()]))     # PASS alone is refused here
    for bot in (GreedyBot(1), RandomBot(1), RandomBot(2)):
        orders = _check(rs, state, "belgae", bot.orders(rs, state, "belgae"))
        assert orders.of(Move)
