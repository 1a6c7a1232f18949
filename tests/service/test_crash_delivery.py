"""Issue 27 must-show: the kill-at-every-write-point test (tests/service/test_crash_run.py) for the
games whose turn mails are not all recorded in notices.json: a game whose notices.json is gone (the
bundled demo as committed, a game from before turn mails were recorded, notices deleted) and a game
moved with `pbem export` / `pbem import`. Killed at any write point and run again, `pbem run` leaves
the same games folder and the same mails as a run never killed; no turn mail is lost (issue 27 item
6: one of a turn logged just before the kill was never sent) and none of the game's history is
mailed again."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from test_crash_run import T0, T1, KillAt, Killed, _mail, assert_as_clean_run, clean_run, snapshot

from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.archive import export_game, import_game
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    import os

    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


def _with_history(base: Path) -> Game:
    """A game whose Romans and Belgae have played and been mailed, then orders waiting: the Welsh's
    and the Brigantes', played by the next run, and the Romano-British's (not in play yet: answered)."""
    g = create_game(base, "t1", players=4, player_specs=PLAYERS, secret=b"test secret for the legacy crash tests",
                    time=T0.isoformat())
    run_job(base, now=T0, render_map=False)
    _mail(g, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    _mail(g, "di", "NATION Belgae\nPASS", 2)
    run_job(base, now=T0, render_map=False)
    _mail(g, "ann", "NATION Romano-British\nPASS", 3)
    _mail(g, "bob", "NATION Welsh\nPASS", 4)
    _mail(g, "cy", "NATION Brigantes\nPASS", 5)
    return g


@pytest.fixture(scope="module")
def legacy(tmp_path_factory) -> Path:
    """notices.json deleted (as in the demo as committed, or a game from before turn mails were
    recorded): the turn mails sent before are nowhere recorded."""
    base = tmp_path_factory.mktemp("legacy") / "games"
    g = _with_history(base)
    (g.path / "notices.json").unlink()
    return base


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    """The same game moved to another machine: exported with its secret and imported (no notices.json,
    no outbox, no sending/)."""
    root = tmp_path_factory.mktemp("imported")
    g = _with_history(root / "old")
    export_game(Game.open(g.path), root / "t1.tar.gz", include_secret=True)
    base = root / "games"
    new = import_game(root / "t1.tar.gz", base)
    for n in (3, 4, 5):
        src = g.path / "inbox" / f"{n:03d}.eml"
        shutil.copy2(src, new.path / "inbox" / src.name)
    return base


def _turn_mails(snap, before) -> Counter:
    """The turn mails this run sent (the outbox minus the template's)."""
    return Counter(dict(head)["Subject"] for head, _ in (snap["sent"] - before["sent"]).elements()
                   if "have played" in dict(head)["Subject"])


def _killed_everywhere(template: Path, tmp_path: Path, step: int = 1) -> int:
    expected, n, points = clean_run(template, tmp_path / "clean")
    before = snapshot(template)
    turns = _turn_mails(expected, before)
    assert sorted(turns) == ["[t1] Round 1 (43-60 AD): the Brigantes have played",
                             "[t1] Round 1 (43-60 AD): the Welsh have played"], "no history mailed again"
    assert set(turns.values()) == {1}
    tried = 0
    mail_points = ("-turn.yaml", "notices.json", "sending/", "/outbox")
    for k in [k for k in range(n) if k % step == 0 or any(m in points[k] for m in mail_points)]:
        games = tmp_path / f"k{k}" / "games"
        shutil.copytree(template, games)
        fs.WRITE_HOOK = KillAt(k)
        try:
            with pytest.raises(Killed):
                run_job(games, now=T1, render_map=False)
        finally:
            fs.WRITE_HOOK = None
        run_job(games, now=T1, render_map=False)
        got = snapshot(games)
        where = f"killed at write point {k} ({points[k]})"
        assert _turn_mails(got, before) == turns, f"{where}: turn mails differ"
        assert_as_clean_run(got, expected, where)
        if k % 25 == 0:
            assert replay(Game.open(games / "t1")).ok, where
        shutil.rmtree(games.parent)
        tried += 1
    return tried


def test_legacy_game_killed_at_every_write_point(legacy, tmp_path):
    assert _killed_everywhere(legacy, tmp_path) > 50


def test_imported_game_killed_at_write_points(imported, tmp_path):
    """The same walk, sampled to keep the default run short: every write point of the turn entries,
    notices, pending and sent mails, and every third of the others."""
    assert _killed_everywhere(imported, tmp_path, step=3) > 30
