"""Issue 20 — an idle `pbem run`: a game that waits is skipped without being opened while nothing
changed, and taken up again by a mail, a change in its folder, or its reminder/deadline time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import pbem.store.game as store_game
from pbem.service.job import run_job
from pbem.store.game import create_game

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def games(tmp_path):
    for gid in ("g1", "g2"):
        create_game(tmp_path, gid, secret=b"idle test secret " + gid.encode(), time=T0.isoformat())
    run_job(tmp_path, now=T0, render_map=False)         # round 1 starts, the Romans are prompted
    return tmp_path


def lines(report):
    return report.lines()


def test_waiting_games_are_reported_without_opening_them(games, monkeypatch):
    first = run_job(games, now=T0 + timedelta(minutes=5), render_map=False)
    assert (games / ".pbem-idle" / "g1.json").is_file()

    def refuse(*a, **k):
        raise AssertionError("an idle game was opened")

    monkeypatch.setattr(store_game.Game, "open", classmethod(refuse))
    again = run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert lines(again) == lines(first)
    assert "g1: nothing to do (waiting for purple (Romans))" in lines(again)


def test_a_mail_or_a_change_or_the_clock_wakes_a_game(games, monkeypatch):
    run_job(games, now=T0 + timedelta(minutes=5), render_map=False)
    opened = []
    real_open = store_game.Game.open.__func__
    monkeypatch.setattr(store_game.Game, "open", classmethod(lambda cls, p: opened.append(p.name) or real_open(cls, p)))

    (games / "g1" / "inbox" / "001.txt").write_text("From: nobody@example.org\nhello\n")
    run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert "g1" in opened and "g2" not in opened

    opened.clear()
    run_job(games, now=T0 + timedelta(minutes=15), render_map=False)    # g1 noted idle again
    opened.clear()
    settings = games / "g2" / "game.yaml"
    settings.write_text(settings.read_text().replace("turn_hours: 72", "turn_hours: 48"))
    run_job(games, now=T0 + timedelta(minutes=20), render_map=False)
    assert opened and set(opened) == {"g2"}

    opened.clear()
    run_job(games, now=T0 + timedelta(minutes=25), render_map=False)
    assert not opened
    r = run_job(games, now=T0 + timedelta(hours=61), render_map=False)  # g1's reminder is due (72 - 12 h)
    assert "g1" in opened
    assert any(ln.startswith("g1:") for ln in r.lines())
