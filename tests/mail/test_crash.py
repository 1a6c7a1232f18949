"""Crash injection: the intake dies after each durable step in turn; the rerun must end in the same
state as an uninterrupted run, with every mail applied exactly once and nothing lost (issue 9)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from pbem.mail.folder import FolderTransport
from pbem.mail.intake import FAULT_POINTS, Intake
from pbem.mail.transport import make_transports

from .conftest import ALICE, BOB, CAROL, PBEM, FakeHandler, directory, make_mail
from .helpers import Setup


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    """Crashes here are simulated by exceptions, not power loss: skip the (slow) fsyncs."""
    import os

    monkeypatch.setattr(os, "fsync", lambda fd: None)


class Crash(BaseException):
    """Stands for the process being killed: not an Exception, so nothing in the intake catches it."""


class Faults:
    """Raises Crash at the chosen fault-hook calls (0-based, counted over the whole test)."""

    def __init__(self, at=(), rng: random.Random | None = None, p: float = 0.0) -> None:
        self.at, self.rng, self.p = set(at), rng, p
        self.n = 0
        self.points: list[str] = []

    def __call__(self, point: str, sha: str) -> None:
        assert point in FAULT_POINTS
        n, self.n = self.n, self.n + 1
        self.points.append(point)
        if n in self.at or (self.rng is not None and self.rng.random() < self.p):
            raise Crash(f"{point} #{n}")


def scenario() -> list[tuple[str, bytes]]:
    """Mails of every kind: applied, rejected with a notice, unroutable, replay, duplicate, loop."""
    dup = make_mail(BOB[0], "[demo-1] bob", f"TOKEN {BOB[1]}\nPASS\n", mid="<bob@mua>")
    return [
        ("01.eml", make_mail(ALICE[0], "[demo-1] alice", f"TOKEN {ALICE[1]}\nPASS\n", mid="<alice@mua>")),
        ("02.eml", dup),
        ("03.txt", f"From: {CAROL[0]}\nGAME north-2\nTOKEN {CAROL[1]}\nPASS\n".encode()),
        ("04.eml", make_mail("eve@evil.example", "[demo-1]", f"TOKEN {ALICE[1]}\n", mid="<eve@x>")),
        ("05.eml", make_mail(ALICE[0], "no game", "hello\n", mid="<lost@mua>")),
        ("06.eml", make_mail(BOB[0], "[demo-1] replay", f"TOKEN {BOB[1]}\nPASS\nx\n", mid="<bob@mua>")),
        ("07.eml", dup),
        ("08.eml", make_mail(ALICE[0], "Re: [demo-1]", "away", extra="Auto-Submitted: auto-replied\r\n")),
    ]


def _setup(tmp, fault):
    s = Setup(tmp, fault=fault)
    for i, (name, raw) in enumerate(scenario()):
        s.drop(name, raw, 1000 + i)
    return s


def snapshot(s: Setup):
    """Everything that must be the same after any crash + rerun (except exact duplicate sends)."""
    entries = {sha: (e.state, e.outcome, e.reason, e.game, e.sender, tuple(e.replies), frozenset(e.sent))
               for sha, e in s.entries().items()}
    by_id: dict[str, set[bytes]] = {}
    for m in s.sent():
        by_id.setdefault(m["Message-ID"], set()).add(m.get_content().encode())
    assert all(len(v) == 1 for v in by_id.values()), "two different mails with one Message-ID"
    quarantine = sorted(p.name for p in (s.archive / "quarantine").glob("*"))
    return entries, sorted(by_id), quarantine, Counter(sha for _, _, sha in s.handler.calls)


def _run_until_done(s: Setup, limit: int = 50) -> int:
    crashes = 0
    for _ in range(limit):
        try:
            s.run()
        except Crash:
            crashes += 1
            continue
        if s.pending_files() == [] and all(e.state == "replied" for e in s.entries().values()):
            return crashes
    raise AssertionError("the intake never finished")


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    faults = Faults()
    s = _setup(tmp_path_factory.mktemp("clean"), faults)
    s.run()
    snap = snapshot(s)
    assert s.pending_files() == []
    assert set(snap[3].values()) == {1} and len(snap[3]) == 3  # alice, bob, carol
    return snap, faults.n, faults.points


def test_clean_run_shape(clean):
    (entries, ids, quarantine, calls), n, points = clean
    outcomes = Counter(e[1] for e in entries.values())
    assert outcomes == {"applied": 3, "rejected": 1, "quarantined": 3}
    assert n == len(points) and set(points) == set(FAULT_POINTS)


def test_crash_at_every_step(clean, tmp_path):
    expected, n, points = clean
    for k in range(n):
        faults = Faults(at=[k])
        s = _setup(tmp_path / f"k{k}", faults)
        with pytest.raises(Crash):
            s.run()
        s.fault = None
        assert _run_until_done(s) == 0
        got = snapshot(s)
        assert got == expected, f"crash at step {k} ({points[k]}) changed the outcome"
        sent = [m["Message-ID"] for m in s.sent()]
        dupes = [mid for mid, c in Counter(sent).items() if c > 1]
        # only a crash between handing a reply to the transport and recording it sends it twice
        assert not dupes or (points[k] == "sending" and len(dupes) == 1), (k, points[k], dupes)


def test_random_repeated_crashes(clean, tmp_path):
    expected, _, _ = clean
    for seed in range(12):
        faults = Faults(rng=random.Random(seed), p=0.08)
        s = _setup(tmp_path / f"s{seed}", faults)
        _run_until_done(s, limit=200)
        assert snapshot(s) == expected, f"seed {seed}"


def test_crash_inside_handler_calls_it_again_once(tmp_path):
    state = {"crash": True}
    inner = FakeHandler()

    def handler(game_id, sender, mail):
        if state["crash"]:
            state["crash"] = False
            raise Crash("killed while applying")
        return inner(game_id, sender, mail)

    s = Setup(tmp_path, handler=handler)
    s.drop("1.eml", make_mail(ALICE[0], "[demo-1]", f"TOKEN {ALICE[1]}\n"), 1000)
    with pytest.raises(Crash):
        s.run()
    (entry,) = s.entries().values()
    assert entry.state == "applying"  # the rerun cannot know whether the handler finished
    s.run()
    assert len(inner.calls) == 1 and len(s.sent()) == 1 and s.pending_files() == []


@pytest.mark.mail
def test_crash_at_every_point_with_imap_and_smtp(dovecot, smtp, tmp_path):
    """The same over real servers: crash once at the first call of each fault point."""
    t0 = datetime(2024, 6, 3, tzinfo=UTC)
    mails = [make_mail(ALICE[0], "[demo-1] a", f"TOKEN {ALICE[1]}\n", mid="<ia@mua>"),
             make_mail("eve@evil.example", "[demo-1] e", f"TOKEN {ALICE[1]}\n", mid="<ie@mua>"),
             make_mail(BOB[0], "[demo-1] b", f"TOKEN {BOB[1]}\n", mid="<ib@mua>")]
    for point in FAULT_POINTS:
        folder = dovecot.new_folder()
        dovecot.append_many(folder, [(raw, t0 + timedelta(minutes=i)) for i, raw in enumerate(mails)])
        before = len(smtp.messages)
        fired = {"done": False}

        def fault(p, sha, point=point, fired=fired):
            if p == point and not fired["done"]:
                fired["done"] = True
                raise Crash(p)

        handler = FakeHandler()
        base = tmp_path / point
        for attempt in range(2):
            tr = make_transports([dovecot.config(folder, processed_folder=folder + "-done"), smtp.config()], base)
            intake = Intake(tr.incoming, tr.outgoing, directory(), handler, archive_dir=base / "mail",
                            from_addr=PBEM, fault=fault if attempt == 0 else None)
            try:
                if attempt == 0:
                    with pytest.raises(Crash):
                        intake.run_once()
                else:
                    intake.run_once()
            finally:
                tr.close()
        assert sorted(p for _, p, _ in handler.calls) == ["alice", "bob"], point
        sent = [m for m in smtp.messages[before:]]
        recipients = Counter(r for _, rcpts, _ in sent for r in rcpts)
        assert set(recipients) == {ALICE[0], BOB[0], "eve@evil.example"}, point
        assert sum(recipients.values()) <= 4 + (point == "sending"), (point, recipients)
        with dovecot.client() as c:
            assert c.select_folder(folder)[b"EXISTS"] == 0, point
            assert c.select_folder(folder + "-done")[b"EXISTS"] == 3, point


def test_folder_transport_only_one_outgoing(tmp_path):
    # FolderTransport doubles as the outgoing transport of the embedded default
    t = FolderTransport(tmp_path / "in", tmp_path / "out")
    assert Intake([t], t, directory(), FakeHandler(), archive_dir=tmp_path / "m", from_addr=PBEM).outgoing is t
