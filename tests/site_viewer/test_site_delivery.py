"""Issue 27 item 9: the site refresh is confined per game, redraws a turn once its mail has gone out,
and sweeps the temp files a killed refresh left."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.service.job import run_job
from pbem.site import build_site
from pbem.store import fs
from pbem.store.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from jobkit import T0, new_game, send  # noqa: E402

T1 = T0 + timedelta(hours=1)


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


class Killed(BaseException):
    pass


def _played(games: Path, gid: str = "t1") -> Game:
    from jobkit import PLAYERS

    from pbem.store.game import create_game

    g = create_game(games, gid, players=4, player_specs=PLAYERS, secret=b"site delivery " + gid.encode(),
                    time=T0.isoformat())
    (g.path / "inbox").mkdir(exist_ok=True)
    return g


def test_a_game_that_cannot_be_locked_stops_only_itself(tmp_path):
    """A game whose folder cannot be written (its lock cannot be made; a directory stands in the
    lock file's place, which fails even for root) is reported; the other games' pages are made."""
    _played(tmp_path, "bad")
    _played(tmp_path, "good")
    run_job(tmp_path, now=T0, render_map=False)
    lock = tmp_path / "bad" / ".lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    report = build_site(tmp_path, tmp_path / "site", render_maps=False)
    assert report.games == ["good"] and len(report.errors) == 1 and report.errors[0].startswith("bad:")
    assert (tmp_path / "site" / "good" / "index.html").is_file()
    assert 'href="good/index.html"' in (tmp_path / "site" / "index.html").read_text()


def test_a_turn_drawn_while_its_mail_was_owed_is_drawn_again_from_the_mail(tmp_path):
    g = new_game(tmp_path, b"site delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    send(g, "ann", "NATION Romans\n4 Channel -> Kent", 1)

    def kill(what, path):
        if what == "done" and path.name.endswith("-turn.yaml"):
            raise Killed(str(path))

    fs.WRITE_HOOK = kill
    with pytest.raises(Killed):
        run_job(tmp_path, now=T1, render_map=False)
    fs.WRITE_HOOK = None
    site = tmp_path / "site"
    build_site(tmp_path, site, render_maps=False)
    turns = json.loads((site / "t1" / "site.json").read_text())["turns"]
    assert [t["source"] for t in turns] == ["log"]           # the turn mail is owed
    run_job(tmp_path, now=T1, render_map=False)              # ... and goes out now
    build_site(tmp_path, site, render_maps=False)
    (turn,) = json.loads((site / "t1" / "site.json").read_text())["turns"]
    mailed = (g.path / "outbox" / "reports" / f"{turn['entry']:06d}" / "report.txt").read_text()
    assert turn["source"] == "turn mail" and turn["text"] == mailed


def test_temp_files_of_a_killed_refresh_are_swept(tmp_path):
    new_game(tmp_path, b"site delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    site = tmp_path / "site"
    build_site(tmp_path, site, render_maps=False)
    left = [site / ".tmp-abc-index.html", site / "t1" / ".tmp-def-site.json"]
    for p in left:
        p.write_text("half")
    build_site(tmp_path, site, render_maps=False)
    assert not [p for p in left if p.exists()]
