"""Issue 27 (delivery): every game mail carries the log's running hash (item 5), what is owed to a
game without `turn:` notices comes from the log (item 6), PREVIEW reveals no future die and copies
no secret (item 10), moderator actions by mail are deterministic and answered alike after a crash
(item 11)."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.game import Game
from pbem.store.loghash import running_hashes

from jobkit import T0, body, mails, new_game, send

T1 = T0 + timedelta(hours=1)
LOG_LINE = re.compile(r"^Log: entry (\d+), running hash ([0-9a-f]{64})$", re.M)


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


def log_of(text: str) -> tuple[int, str]:
    found = LOG_LINE.findall(text)
    assert found, f"no Log line in:\n{text[-400:]}"
    n, h = found[-1]
    return int(n), h


def test_every_game_mail_carries_the_running_hash(tmp_path):
    """Item 5: welcome mails and prompts (after the created entry and the round start) carry it."""
    g = new_game(tmp_path, b"delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    out = mails(g.path / "outbox")
    assert out and {str(m["Subject"]).split("]")[1].split(":")[0].strip() for m in out} >= {"the game starts", "your orders for the Romans"}
    chain = dict(running_hashes(g.path))
    for m in out:
        n, h = log_of(body(m))
        assert chain[n] == h, m["Subject"]


def test_the_game_over_mail_carries_the_hash_after_the_reveal(tmp_path):
    """Item 5: the game-over mail (which reveals the dice secret) ends with the log's end, the reveal
    entry included: deleting that tail afterwards no longer matches it (it was unseen before)."""
    g = new_game(tmp_path, b"delivery test secret")
    run_job(tmp_path, now=T0, render_map=False)
    st = g.state
    st.finished = True
    g.moderate("end", "mod", "test: the game ends here", state=st)
    run_job(tmp_path, now=T1, render_map=False)
    over = [m for m in mails(g.path / "outbox") if "game over" in str(m["Subject"])]
    assert len(over) == 1
    n, h = log_of(body(over[0]))
    g = Game.open(g.path)
    reveal = [e for e in g.entries("moderator") if e.get("action") == "reveal"]
    assert reveal and n == reveal[-1].id == g.last_entry_id()
    assert running_hashes(g.path)[-1] == (n, h)
    (g.path / "log" / Path(reveal[-1].file).name).unlink()
    assert (n, h) not in running_hashes(g.path)
