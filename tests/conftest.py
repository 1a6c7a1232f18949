"""Fixtures shared by the test folders."""

import pytest

import pbem.store.game as store_game


@pytest.fixture
def games_opened(monkeypatch) -> list[str]:
    """The folder names of the games opened (Game.open) from now on, in order (issue 33: what an idle
    run or a site refresh must not open)."""
    names: list[str] = []
    real_open = store_game.Game.open.__func__
    monkeypatch.setattr(store_game.Game, "open",
                        classmethod(lambda cls, p, *a, **k: names.append(p.name) or real_open(cls, p, *a, **k)))
    return names
