"""Issue 29 with issue 27's rule: nothing a Duel player's mail can contain makes the parser, the
validator (the Duel turn played on a copy of the position) or the reply raise: hostile arguments for
every Duel order word (ARRIVE, LOSE, REMOVE, WITHHOLD, HITS, VICTORS among them), against positions
of a Duel game at each round, with the round's arrivals, eruptions and battles to come."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.errors import ORDER_ERROR_KINDS, PbemError
from pbem.orders.check import check_orders
from pbem.orders.language import prompt_words
from pbem.orders.reply import render_reply
from pbem.rules.dice import HmacDice
from pbem.rules.flow import play_game
from pbem.rules.turn import new_game_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzzkit import JUNK, NASTY_DIGITS, fuzz, line  # noqa: E402

RS = load("duel")
HEADS = ["ARRIVE", "ARRIVE 2", "LOSE", "REMOVE", "WITHHOLD", "HITS", "HITS ALL:", "HITS Kent: FORT", "VICTORS",
         "VICTORS Kent: RETREAT", "VICTORS Kent: RETREAT 1 TO", "DEFEND Kent: RETREAT TO", "PLACE", "LEADER",
         "STAY", "SETTLE", "WITHDRAW", "ATTACK Kent:", "BATTLES", "NATION Romans", "DISBAND", "LOSSES ALL:",
         "SECOND MOVEMENT", "VOTE", "SUBMIT TO", "ПОБЕДИТЕЛИ", "ПОПАДАНИЯ", "ПОТЕРЯТЬ", "УБРАТЬ", "УДЕРЖАТЬ",
         "ПРИБЫТЬ", "CLEAR DEFEND", "PASS", "3", "2 cavalry", "Arthur", *NASTY_DIGITS[:6]]
WORDS = ["Kent", "Dublin", "North Sea", "English Channel", "Irish Sea", "Fergus Mor Mac Erc", "Cerdic", "Arthur",
         "FORT", "FIRST", "LAST", "REST", "TO", "->", ":", ",", "ALL", "RAIDERS", "SETTLERS", *JUNK[:8]]


@pytest.fixture(scope="module")
def positions():
    """A Duel game's position before each nation's turn, a few a round (who moves next, its round)."""
    bots = BotGame(RS, 11)
    out = []
    play_game(RS, new_game_state(RS, "g"), bots.orders_for, HmacDice(bots.secret),
              on_step=lambda step: out.append(step.state.copy()) if step.state.next_nation else None)
    return out[::4]


def _answer(text: str, state) -> None:
    try:
        result = check_orders(text, RS, state, nation=state.next_nation)
    except PbemError:
        return
    for ln in result.lines:
        for p in ln.problems:
            assert p.kind in ORDER_ERROR_KINDS and p.message
    assert isinstance(render_reply(result, RS, missing=["x"], deadline="soon"), str)


@fuzz(400)
@given(st.lists(st.one_of(line(st.sampled_from(HEADS), WORDS), st.sampled_from(JUNK)), min_size=1, max_size=6),
       st.integers(0, 10_000))
def test_hostile_duel_orders_get_a_reply_at_every_round(positions, parts, pick):
    state = positions[pick % len(positions)]
    _answer("\n".join([f"NATION {RS.display(state.next_nation)}", *parts]), state)


def test_the_fuzz_knows_every_duel_order_word():
    """Every order word a Duel prompt lists is among the heads fuzzed."""
    words = {w.split(" (")[0].split()[0] for w in prompt_words(RS).split(", ")}
    assert words - {"moves"} <= {h.split()[0] for h in HEADS}, words
