"""Helpers for the end-of-round rule tests: a ruleset and a quick way to lay out a position."""

from __future__ import annotations

import pytest

from pbem.data.loader import load
from pbem.rules.state import GameState, Stack


@pytest.fixture(scope="session")
def rs():
    return load("classic")


@pytest.fixture
def board():
    """board(round, {area: {nation: n | {armies:..}}}, **state fields) -> GameState (ids only)."""

    def make(rnd: int, areas: dict, **fields) -> GameState:
        st = GameState(ruleset="classic", game="t", round=rnd)
        for area, nations in areas.items():
            for nation, pieces in nations.items():
                st.areas.setdefault(area, {})[nation] = Stack.from_dict(pieces)
        for k, v in fields.items():
            setattr(st, k, v)
        st.prune()
        return st

    return make
