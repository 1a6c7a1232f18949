"""Bots that play Britannia by writing order TEXT (pbem/bots): RandomBot and GreedyBot, the self-play
driver, the invariants the fuzzer checks, and `bot_orders` for playing a missing player's nation (NMR).
"""

from __future__ import annotations

from pbem.bots.base import Bot
from pbem.bots.greedy import GreedyBot
from pbem.bots.random_bot import RandomBot

__all__ = ["Bot", "GreedyBot", "RandomBot", "bot_orders"]


def bot_orders(ruleset, state, nation: str, kind: str = "greedy", seed: int | str = 0,
               friends: tuple[str, ...] = ()) -> str:
    """Order text (ORDERS.md, with a `NATION <name>` header) for `nation` in `state`: its turn when it is
    next to play, its Bretwalda vote when votes are owed at a round start, else `PASS`.

    For the game runner's no-move-received (NMR) option: the text goes through the same parser and
    validator as a player's mail. `seed` makes the choice repeatable (use the game id and round);
    `friends` are the other nations of the same player (votes).
    """
    from pbem.bots.selfplay import make_bot

    return make_bot(kind, seed, friends).orders(ruleset, state, nation)
