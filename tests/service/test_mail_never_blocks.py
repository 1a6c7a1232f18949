"""Issue 27 item 1: no mail can stop its game.

A mail whose handling raises is answered (its sender told it could not be read), its moderator told
which mail it was (Message-ID, sender, subject, the error), and it is set aside in the game's mail
quarantine, kept; a mail that stopped the run itself MAX_RUNS times is set aside without being read
again. Either way the game's other mail is answered and the game moves on in the same run. A fault of
the game itself (a damaged log entry, a read-only folder) still holds its mail back (issue 18).
"""

from __future__ import annotations

import email
import json
import os
import subprocess
import sys
from datetime import timedelta
from email import policy

import pytest
from jobkit import REPO, T0, body, mails, new_game

import pbem.service.inbox as inbox_mod
from pbem.mail import intake as intake_mod
from pbem.service.job import run_job
from pbem.store.game import Game

T1 = T0 + timedelta(hours=1)
ROMANS = "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex"


class Killed(BaseException):
    """The run killed (SIGKILL, the OOM killer) while it handled a mail."""


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def drop(game: Game, player: str, text: str, n: int, *, subject: str = "orders") -> str:
    p = game.player(player)
    mid = f"<m{n}.{game.id}@x.org>"
    raw = f"From: {p['address']}\nSubject: [{game.id}] {subject}\nMessage-ID: {mid}\n\nTOKEN {p['token']}\n{text}\n"
    path = game.path / "inbox" / f"{n:03d}.eml"
    path.write_text(raw)
    os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))
    return mid


def _game(tmp_path) -> Game:
    g = new_game(tmp_path, b"issue 27 never blocks")
    run_job(tmp_path, now=T0, render_map=False)
    return g


def _to(game: Game, address: str) -> list:
    return [m for m in mails(game.path / "outbox") if m["To"] == address]


def _breaking(real, marker: str, exc: BaseException):
    def take(game, player, text, **kw):
        if marker in text:
            raise exc
        return real(game, player, text, **kw)
    return take


def _moved_on(g: Game) -> None:
    g2 = Game.open(g.path)
    assert g2.state.next_nation != "romans", "the Romans' turn was played in the same run"
    assert not (g.path.parent / ".pbem-faults.json").exists() or \
        g.id not in json.loads((g.path.parent / ".pbem-faults.json").read_text())


def test_a_mail_whose_handler_raises_is_answered_set_aside_and_the_game_moves_on(tmp_path, monkeypatch):
    g = _game(tmp_path)
    monkeypatch.setattr(inbox_mod, "take_orders",
                        _breaking(inbox_mod.take_orders, "BOOM", ValueError("invalid literal for int()")))
    bad = drop(g, "ann", "NATION Romans\nBOOM", 1, subject="the bad one")
    drop(g, "ann", ROMANS, 2)
    drop(g, "di", "NATION Belgae\nPASS", 3)
    r = run_job(tmp_path, now=T1, render_map=False)
    assert list((g.path / "inbox").glob("*.eml")) == [], "every mail taken in this one run"
    _moved_on(g)
    replies = [m for m in _to(g, "ann@x.org") if str(m["Subject"]).startswith("Re:")]
    assert len(replies) == 2
    (unread,) = [m for m in replies if m["In-Reply-To"] == bad]
    assert "could not be read" in body(unread) and "ValueError" not in body(unread)
    (note,) = [m for m in _to(g, g.settings["moderator"]["address"]) if "set aside" in str(m["Subject"])]
    text = body(note)
    assert bad in text and "ann@x.org" in text and "the bad one" in text
    assert "ValueError: invalid literal for int()" in text
    (kept,) = (g.path / "mail" / "quarantine").glob("*.eml")
    assert b"BOOM" in kept.read_bytes()
    assert any("set aside" in e for e in r.errors) and not any(e.startswith("t1: mail:") for e in r.errors)
    run_job(tmp_path, now=T1 + timedelta(minutes=5), render_map=False)
    assert len([m for m in _to(g, "ann@x.org") if m["In-Reply-To"] == bad]) == 1, "answered once"


def test_the_reply_says_what_of_a_failed_mail_was_recorded(tmp_path, monkeypatch):
    """A mail that failed after its Romans section was logged says so (and the orders stand)."""
    g = _game(tmp_path)

    def render(*a, **kw):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(inbox_mod, "render_reply", render)
    drop(g, "ann", ROMANS, 1)
    run_job(tmp_path, now=T1, render_map=False)
    assert Game.open(g.path).entries("orders")
    (reply,) = [m for m in _to(g, "ann@x.org") if str(m["Subject"]).startswith("Re:")]
    assert "Recorded from it: the orders for the Romans." in body(reply)
    assert "nested deeper" in body(reply)


def test_a_mail_that_killed_the_run_is_set_aside_after_max_runs(tmp_path, monkeypatch):
    g = _game(tmp_path)
    monkeypatch.setattr(inbox_mod, "take_orders", _breaking(inbox_mod.take_orders, "BOOM", Killed()))
    bad = drop(g, "ann", "NATION Romans\nBOOM", 1)
    drop(g, "ann", ROMANS, 2)
    drop(g, "di", "NATION Belgae\nPASS", 3)
    for _ in range(intake_mod.MAX_RUNS):
        with pytest.raises(Killed):
            run_job(tmp_path, now=T1, render_map=False)
    run_job(tmp_path, now=T1, render_map=False)
    _moved_on(g)
    (unread,) = [m for m in _to(g, "ann@x.org") if m["In-Reply-To"] == bad]
    assert "could not be read" in body(unread) and "stopped while reading it, 3 times" in body(unread)
    (note,) = [m for m in _to(g, g.settings["moderator"]["address"]) if "set aside" in str(m["Subject"])]
    assert bad in body(note)
    ledger = [json.loads(ln) for ln in (g.path / "mail" / "ledger.jsonl").read_text().splitlines()]
    calls = [e for e in ledger if e["event"] == "applying" and e.get("sender") == "ann"]
    assert len(calls) == intake_mod.MAX_RUNS + 1, "three killed calls, then the good mail"


def test_a_damaged_game_still_holds_its_mail_back(tmp_path, monkeypatch):
    """The confinement of issue 18 stays: a garbage log entry is the game's fault, not the mail's."""
    g = _game(tmp_path)
    entry = sorted((g.path / "log").glob("*.yaml"))[-1]
    entry.write_bytes(b"\x00garbage: [\n")
    drop(g, "ann", ROMANS, 1)
    r = run_job(tmp_path, now=T1, render_map=False)
    assert any(e.startswith("t1:") for e in r.errors)
    assert (g.path / "inbox" / "001.eml").exists() and not (g.path / "mail" / "quarantine").exists()


HOSTILE = {
    "odds with a superscript digit": "NATION Romans\nODDS ² VS 1",
    "a 5000-digit army count": "NATION Romans\n" + "9" * 5000 + " Channel -> Kent",
    "NUL and surrogate junk": "NATION Romans\n\x00\udcff PLACE \x00 Kent",
    "deep brackets": "NATION Romans\n" + "(" * 5000 + "Kent" + ")" * 5000,
}


def test_hostile_mails_through_pbem_run_never_stop_the_game(tmp_path):
    """End to end through `pbem run` on a folder game: every hostile mail is answered, the good mails
    of the same run too, and the Romans' turn is played in that run."""
    g = _game(tmp_path)
    for n, (what, text) in enumerate(HOSTILE.items(), 1):
        p = g.player("ann")
        raw = (f"From: {p['address']}\nSubject: [t1] {what}\nMessage-ID: <h{n}@x.org>\n\nTOKEN {p['token']}\n"
               f"{text}\n").encode("utf-8", "surrogateescape")
        path = g.path / "inbox" / f"{n:03d}.eml"
        path.write_bytes(raw)
        os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))
    drop(g, "ann", ROMANS, 10)
    drop(g, "di", "NATION Belgae\nPASS", 11)
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "run", str(tmp_path), "--no-map", "--now", T1.isoformat()],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert "Traceback" not in out.stderr, out.stderr
    assert list((g.path / "inbox").glob("*.eml")) == []
    answered = {m["In-Reply-To"] for m in _to(g, "ann@x.org")}
    assert {f"<h{n}@x.org>" for n in range(1, len(HOSTILE) + 1)} <= answered
    assert "<m10.t1@x.org>" in answered
    _moved_on(g)
    for m in (g.path / "outbox").glob("*.eml"):
        msg = email.message_from_bytes(m.read_bytes(), policy=policy.default)
        assert "Traceback" not in str(msg)
