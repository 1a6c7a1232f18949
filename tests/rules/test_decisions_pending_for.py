"""The decisions a player's reply lists (pbem.rules.decisions.pending_for) are `pending`'s for the
player's nations, whatever the position: a property test over bot positions of both rulesets."""
from __future__ import annotations

import pytest

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.rules.book import OrdersBook
from pbem.rules.decisions import pending, pending_for
from pbem.rules.dice import HmacDice
from pbem.rules.flow import play_game
from pbem.rules.turn import new_game_state


@pytest.mark.parametrize("ruleset", ["classic", "duel"])
def test_pending_for_a_players_nations_is_pending_filtered(ruleset):
    rs = load(ruleset)
    bots = BotGame(rs, 3)
    states = []
    play_game(rs, new_game_state(rs, "g"), bots.orders_for, HmacDice(bots.secret),
              on_step=lambda st: states.append(st.state.copy()) if len(states) < 40 else None)
    seats = list(rs.players_table(4).values())
    for state in states:
        book = OrdersBook()
        for wait in (False, True):
            every = pending(rs, state, book, wait_for_defenders=wait)
            for nations in seats:
                assert pending_for(rs, state, book, nations, wait_for_defenders=wait) == \
                    [d for d in every if d.nation in nations]
