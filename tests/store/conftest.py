"""Fixtures for the game-store tests (helpers in storekit.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from storekit import fake_adjudicate, new_game, play_round

from pbem.store.game import Game


@pytest.fixture(scope="session")
def played_master(tmp_path_factory) -> Path:
    """A game with two rounds played by the fake engine (built once; copy it before changing it)."""
    games = tmp_path_factory.mktemp("master")
    g = new_game(games, player_specs=[("alice", "alice@example.org"), ("bob", "bob@example.org")])
    play_round(g)
    play_round(g, {"romans": "attack kent\n", "belgae": "attack kent\nscore 1\n"})
    return g.path


@pytest.fixture
def played(played_master: Path, tmp_path: Path) -> Game:
    dest = tmp_path / "games" / played_master.name
    shutil.copytree(played_master, dest)
    return Game.open(dest)


@pytest.fixture
def fresh(tmp_path: Path) -> Game:
    return new_game(tmp_path / "fresh")


@pytest.fixture
def fake_engine(monkeypatch):
    """Make the CLI (default adjudicator) use the fake engine."""
    import pbem.log.adjudicate as adjudicate  # the engine every walk of the log and play_turn look up

    monkeypatch.setattr(adjudicate, "default_adjudicate", fake_adjudicate)
    return fake_adjudicate
