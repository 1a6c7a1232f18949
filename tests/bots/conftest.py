from __future__ import annotations

import pytest

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.rules.state import GameState


@pytest.fixture(scope="session")
def rs():
    return load("classic")


def game_positions(rs, seed: int, bot: str) -> list[GameState]:
    """Every position a bot game passes through (before each step)."""
    g = BotGame(rs, seed, bot=bot)
    seen: list[GameState] = []
    inner = g.orders_for

    def orders_for(state):
        seen.append(state)
        return inner(state)

    g.orders_for = orders_for
    g.play()
    return seen


@pytest.fixture(scope="session")
def positions(rs) -> list[GameState]:
    """Positions from a greedy game and a random game (each one step of play)."""
    return game_positions(rs, 7, "greedy") + game_positions(rs, 8, "random")
