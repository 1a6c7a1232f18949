"""Issue 18 must-show: `pbem run` killed at EVERY write point, then run again, leaves the same games
folder, log and set of sent mails as a run that was never killed: no lost and no duplicated turn,
orders entry, report, reply or prompt.

The kill is deterministic: pbem.store.fs.WRITE_HOOK is called at every write point (a temp file
written, a file renamed or linked into place, a log entry, a ledger line, an outbox mail, an ack) and
raises `Killed` at the N-th; N runs from 0 until a run completes without reaching it.
"""

from __future__ import annotations

import email
import json
import os
import shutil
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

import pytest

from pbem.mail.ledger import Ledger
from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]
VOLATILE = {".lock", ".log-index.json", ".log-index.jsonl", "ledger.jsonl", "ledger.jsonl.lock"}


class Killed(BaseException):
    """The process dies here: not an Exception, so nothing in pbem catches it."""


class KillAt:
    def __init__(self, n: int | None) -> None:
        self.n, self.count, self.points = n, 0, []

    def __call__(self, what: str, path: Path) -> None:
        k, self.count = self.count, self.count + 1
        self.points.append(f"{what} {path.parent.name}/{path.name}")
        if k == self.n:
            raise Killed(f"write point {k}: {what} {path}")


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    """Kills are exceptions here, not power cuts: skip the slow fsyncs."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    yield
    fs.WRITE_HOOK = None


def _mail(game: Game, player: str, text: str, n: int, *, token: str | None = None, sender: str | None = None) -> None:
    p = game.player(player)
    raw = (f"From: {sender or p['address']}\nSubject: [{game.id}] orders\nMessage-ID: <m{n}@x.org>\n\n"
           f"TOKEN {token or p['token']}\n{text}\n")
    path = game.path / "inbox" / f"{n:03d}.eml"
    path.write_text(raw)
    os.utime(path, (1_800_000_000 + n, 1_800_000_000 + n))


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A game after its first run (round 1 started, the Romans prompted) with mails waiting: a
    two-nation mail, a second player's orders, a bad token and a spoofed sender."""
    base = tmp_path_factory.mktemp("template") / "games"
    g = create_game(base, "t1", players=4, player_specs=PLAYERS, secret=b"test secret for the crash tests",
                    time=T0.isoformat())
    run_job(base, now=T0, render_map=False)
    _mail(g, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex\n\nNATION Romano-British\nPASS", 1)
    _mail(g, "di", "NATION Belgae\nPASS", 2)
    _mail(g, "bob", "NATION Welsh\nPASS", 3, token="000000")
    _mail(g, "cy", "NATION Brigantes\nPASS", 4, sender="eve@evil.example")
    return base


def _eml(data: bytes) -> tuple:
    """A mail as what it says: its addressing headers and its parts (not the Date, which replies get
    when they are written, nor the random MIME boundaries)."""
    msg = email.message_from_bytes(data, policy=policy.default)
    head = tuple((k, str(msg.get(k))) for k in ("From", "To", "Subject", "Message-ID", "In-Reply-To", "References"))
    parts = tuple((part.get_content_type(), part.get_filename(), part.get_payload(decode=True))
                  for part in msg.walk() if not part.is_multipart())
    return head, parts


def snapshot(games: Path) -> dict:
    """Every file of the games folder (mails without Date, ledgers by what they decided), the
    outbox as a multiset of mails, and no temp file left where a reader could trip on it."""
    files: dict[str, object] = {}
    sent: Counter = Counter()
    for p in sorted(games.rglob("*")):
        if not p.is_file() or p.name in VOLATILE or p.name.startswith(fs.TEMP_PREFIX) or ".pbem-idle" in p.parts:
            continue   # caches (rebuilt when missing) and crash leftovers a later run sweeps
        rel = str(p.relative_to(games))
        if p.parent.name == "outbox" and p.suffix == ".eml":
            sent[_eml(p.read_bytes())] += 1
        elif p.suffix == ".eml":
            files[rel] = _eml(p.read_bytes())
        else:
            files[rel] = p.read_bytes()
    ledgers = {}
    for p in games.rglob("ledger.jsonl"):
        led = Ledger(p)
        led.load()
        ledgers[str(p.relative_to(games))] = {
            sha: (e.state, e.outcome, e.reason, e.game, e.sender, tuple(e.replies), frozenset(e.sent))
            for sha, e in led.entries.items()}
    return {"files": files, "sent": sent, "ledgers": ledgers}


def clean_run(template: Path, dest: Path):
    """An uninterrupted run on a copy of `template` in dest/games: (its snapshot, the number of write
    points it passed, their names)."""
    games = dest / "games"
    shutil.copytree(template, games)
    hook = KillAt(None)
    fs.WRITE_HOOK = hook
    try:
        run_job(games, now=T1, render_map=False)
    finally:
        fs.WRITE_HOOK = None
    return snapshot(games), hook.count, hook.points


@pytest.fixture(scope="module")
def clean(template, tmp_path_factory):
    return clean_run(template, tmp_path_factory.mktemp("clean"))


def test_the_uninterrupted_run_does_the_work(clean):
    snap, n, _ = clean
    logs = sorted(k for k in snap["files"] if "/log/" in k)
    assert any(k.endswith("-turn.yaml") for k in logs)
    orders = [json.dumps(k) for k in logs if k.endswith("-orders.yaml")]
    assert len(orders) == 3, "Romans, Romano-British (one mail) and Belgae"
    subjects = Counter(dict(head)["Subject"] for head, _ in snap["sent"])
    assert any("Romans" in s and "played" in s for s in subjects), subjects
    assert any("rejected message sent in your name" in s for s in subjects), "cy hears of the spoof"
    assert n > 50


def test_killed_at_every_write_point_then_rerun_is_the_same(template, clean, tmp_path):
    expected, n, points = clean
    for k in range(n + 1):
        games = tmp_path / f"k{k}" / "games"
        shutil.copytree(template, games)
        fs.WRITE_HOOK = KillAt(k)
        try:
            with pytest.raises(Killed):
                run_job(games, now=T1, render_map=False)
        except pytest.fail.Exception:
            assert k == n, f"the run finished before write point {k} of {n}"
            continue
        finally:
            fs.WRITE_HOOK = None
        run_job(games, now=T1, render_map=False)
        got = snapshot(games)
        where = f"killed at write point {k} ({points[k]})"
        assert_as_clean_run(got, expected, where)
        if k % 10 == 0:
            assert replay(Game.open(games / "t1")).ok, where
        shutil.rmtree(games.parent)


def assert_as_clean_run(got: dict, expected: dict, where: str) -> None:
    """A rerun after a kill left what a clean run leaves: the same mails sent, ledgers and files."""
    assert got["sent"] == expected["sent"], f"{where}: sent mails differ"
    assert got["ledgers"] == expected["ledgers"], f"{where}: the mail ledger differs"
    diff = sorted(set(got["files"]) ^ set(expected["files"]))
    assert not diff, f"{where}: files differ: {diff}"
    changed = [f for f in expected["files"] if got["files"][f] != expected["files"][f]]
    assert not changed, f"{where}: contents differ: {changed}"


def test_a_killed_run_replays(template, tmp_path):
    """Killed half-way through the turns, rerun: the log replays and state.yaml is the log's end."""
    games = tmp_path / "games"
    shutil.copytree(template, games)
    hook = KillAt(None)
    fs.WRITE_HOOK = hook
    run_job(games, now=T1, render_map=False)
    fs.WRITE_HOOK = None
    turn_writes = [i for i, p in enumerate(hook.points) if p.endswith("-turn.yaml") and p.startswith("done")]
    shutil.rmtree(games)
    shutil.copytree(template, games)
    fs.WRITE_HOOK = KillAt(turn_writes[0])     # right after the first turn entry, before state.yaml
    with pytest.raises(Killed):
        run_job(games, now=T1, render_map=False)
    fs.WRITE_HOOK = None
    g = Game.open(games / "t1")
    assert g.state_entry == g.last_entry_id(), "state.yaml is re-derived from the log"
    run_job(games, now=T1, render_map=False)
    assert replay(Game.open(games / "t1")).ok
