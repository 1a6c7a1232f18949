"""Issue 33 item 3: a burst of mail to one game is taken in time linear in the number of mails. The
game is opened and its log listed once for the burst (not once a mail), the orders book is filed
entry by entry, and the folder mailbox's writes are made durable together; the mails are answered
one reply each, as before, and a reply lost to a power loss before the run's sync is answered again.
"""

from __future__ import annotations

import email
import json
import os
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

from pbem.mail.ledger import Ledger
from pbem.service.job import run_job
from pbem.store import fs
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
T1 = T0 + timedelta(hours=1)
PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]


def _burst(tmp_path: Path, n: int) -> tuple[Path, Game]:
    games = tmp_path / "games"
    g = create_game(games, "t1", players=4, player_specs=PLAYERS, secret=b"burst test secret", time=T0.isoformat())
    run_job(games, now=T0, render_map=False)
    (g.path / "inbox").mkdir(exist_ok=True)
    for i in range(n):
        p = g.player(PLAYERS[i % 4][0])
        path = g.path / "inbox" / f"{i:03d}.eml"
        path.write_text(f"From: {p['address']}\nSubject: [t1] orders\nMessage-ID: <m{i}@x.org>\n\n"
                        f"TOKEN {p['token']}\nPASS\n", encoding="utf-8")
        os.utime(path, (1_800_000_000 + i, 1_800_000_000 + i))
    return games, g


def _replies(game_dir: Path) -> Counter:
    """In-Reply-To of every reply in the outbox (the mails' own Message-IDs)."""
    got: Counter = Counter()
    for p in (game_dir / "outbox").glob("*.eml"):
        msg = email.message_from_bytes(p.read_bytes(), policy=policy.default)
        if msg["In-Reply-To"]:
            got[str(msg["In-Reply-To"])] += 1
    return got


def test_a_burst_lists_the_log_once_and_syncs_once_per_run(tmp_path, monkeypatch):
    games, g = _burst(tmp_path, 40)
    listed, fsyncs = [0], [0]
    real_list, real_fsync = Game._log_dir_entries, os.fsync

    def counting_list(self):
        listed[0] += 1
        return real_list(self)

    def counting_fsync(fd):
        fsyncs[0] += 1
        return real_fsync(fd)

    monkeypatch.setattr(Game, "_log_dir_entries", counting_list)
    monkeypatch.setattr(os, "fsync", counting_fsync)
    monkeypatch.setattr(fs, "_syncfs", lambda dirs: False)    # count the fsyncs the batch stands for
    report = run_job(games, now=T1, render_map=False)
    assert report.mails_in == 40 and report.replies >= 40
    assert _replies(g.path) == Counter({f"<m{i}@x.org>": 1 for i in range(40)}), "one reply per mail"
    assert listed[0] < 15, f"the log was listed {listed[0]} times for 40 mails (once a mail before)"
    orders = len(Game.open(g.path).entries("orders"))
    # the orders entries stay durable one by one (2 fsyncs each); the rest is batched: an archive
    # copy, a reply and its outbox copy are one fsync each at the run's sync (16 a mail before)
    assert fsyncs[0] <= 2 * orders + 3 * 40 + 40, (fsyncs[0], orders)
    assert replay(Game.open(g.path)).ok


def test_the_burst_is_taken_as_without_the_caches(tmp_path, monkeypatch):
    """The log listed once for the burst and the book filed entry by entry give the very log and
    replies the log listed and the book built afresh for every mail give."""
    from pbem.service import book

    def taken(root: Path) -> tuple[list, list]:
        games, g = _burst(root, 12)
        run_job(games, now=T1, render_map=False)
        log = [e.to_dict() for e in Game.open(g.path).entries()]
        for e in log:
            e.pop("time", None)
            e.pop("received", None)
            e.pop("mail_id", None)      # the mails hold the players' tokens (random)
        mails = []
        for p in (g.path / "outbox").glob("*.eml"):
            msg = email.message_from_bytes(p.read_bytes(), policy=policy.default)
            if msg["In-Reply-To"]:
                mails.append((str(msg["In-Reply-To"]), msg.get_body(("plain",)).get_content()))
        return log, sorted(mails)

    cached = taken(tmp_path / "a")
    monkeypatch.setattr(Game, "_trust_token", lambda self: None)
    monkeypatch.setattr(book, "_extends", lambda before, entries: False)
    fresh = taken(tmp_path / "b")
    assert cached[0] == fresh[0]
    assert [m for m, _ in cached[1]] == [m for m, _ in fresh[1]]
    assert [t.split("Log: entry")[0] for _, t in cached[1]] == [t.split("Log: entry")[0] for _, t in fresh[1]]


def test_a_reply_lost_before_the_sync_is_answered_again(tmp_path):
    """A power loss after a reply was written (without its own fsync) and its mail recorded as
    decided, before the run's sync: the reply file is gone; the next run takes the mail again and
    answers it once (its orders are logged once)."""
    games, g = _burst(tmp_path, 2)

    class Killed(BaseException):
        pass

    def kill_at_outbox(what, path):     # the reply's outbox name made (a link to the reply file)
        if path.parent.name == "outbox" and what == "done" and (g.path / "mail" / "replies").is_dir():
            raise Killed

    fs.WRITE_HOOK = kill_at_outbox
    try:
        run_job(games, now=T1, render_map=False)
    except Killed:
        pass
    finally:
        fs.WRITE_HOOK = None
    led = Ledger(g.path / "mail" / "ledger.jsonl")
    led.load()
    decided = [e for e in led.entries.values() if e.state == "applied"]
    assert decided and decided[0].digests, "the reply was written batched and recorded with its digest"
    lost = set()
    for name in decided[0].replies:           # what the power loss took: the reply and its outbox name
        lost.add((g.path / "mail" / "replies" / name).stat().st_ino)
        (g.path / "mail" / "replies" / name).unlink()
    for p in (g.path / "outbox").glob("*.eml"):
        if p.stat().st_ino in lost:
            p.unlink()
    run_job(games, now=T1, render_map=False)
    assert _replies(g.path) == Counter({"<m0@x.org>": 1, "<m1@x.org>": 1})
    mails = [e.get("mail_id") for e in Game.open(g.path).entries("orders")]
    assert len(mails) == len(set(mails)), "each mail's orders logged once"
    lines = [json.loads(x) for x in (g.path / "mail" / "ledger.jsonl").read_text().splitlines()]
    assert any(x["event"] == "deferred" and "reply lost" in x.get("reason", "") for x in lines)
    assert replay(Game.open(g.path)).ok


def test_the_outbox_holds_each_reply_byte_for_byte_as_written(tmp_path):
    """The folder outbox takes a reply's bytes as the intake wrote them (FolderTransport.send_bytes:
    only the headers are read back), the same bytes the mail's parse and write gave before."""
    games, g = _burst(tmp_path, 8)
    run_job(games, now=T1, render_map=False)
    written = {p.read_bytes() for p in (games / ".mail" / "replies").glob("*.eml")} or \
        {p.read_bytes() for p in games.rglob("replies/*.eml")}
    sent = {p.read_bytes() for p in (g.path / "outbox").glob("*.eml")
            if b"In-Reply-To: <m" in p.read_bytes()}
    assert written and sent == written
    for data in sent:   # and each is what a parse and write of it gives back
        assert bytes(email.message_from_bytes(data, policy=policy.compat32)) == data


def test_the_archive_and_the_outbox_take_their_copies_by_hard_links(tmp_path):
    """Issue 33: a mail folder's message file is archived as a second name of the same file (no copy),
    readable by its owner only; a reply's outbox copy is a second name of the reply file. A .txt
    order file (wrapped in a mail's headers) is archived as a copy. The disk use counts each file once."""
    from pbem.store.retention import disk_usage

    games, g = _burst(tmp_path, 8)
    (g.path / "inbox" / "orders.txt").write_text("PASS\n", encoding="utf-8")
    run_job(games, now=T1, render_map=False)
    processed = sorted((g.path / "inbox" / "processed").glob("*.eml"))
    archive = {p.stat().st_ino: p for p in (g.path / "mail").glob("*.eml")}
    assert len(processed) == 8 and all(p.stat().st_ino in archive for p in processed)
    for p in processed:
        assert p.read_bytes() == archive[p.stat().st_ino].read_bytes()
        assert archive[p.stat().st_ino].stat().st_mode & 0o777 == 0o600 and p.stat().st_nlink == 2
    assert len(archive) == 9      # and the order file's mail, a file of its own
    replies = {p.stat().st_ino for p in (g.path / "mail" / "replies").glob("*.eml")}
    sent = [p for p in (g.path / "outbox").glob("*.eml") if b"In-Reply-To: <m" in p.read_bytes()]
    assert len(sent) == 8 and all(p.stat().st_ino in replies for p in sent)
    usage = disk_usage(g.path)
    walked = sum(p.stat().st_size for p in g.path.rglob("*") if p.is_file())
    once = sum({(p.stat().st_ino): p.stat().st_size for p in g.path.rglob("*") if p.is_file()}.values())
    assert usage.total == once < walked


def test_an_archive_link_that_is_not_the_bytes_read_is_replaced_by_a_copy(tmp_path):
    """A message file written to after it was read (its size changed): the archive holds the bytes
    read, as a file of its own."""
    from pbem.mail._fs import write_once

    src = tmp_path / "in.eml"
    src.write_bytes(b"Subject: x\n\nlonger than read\n")
    dest = tmp_path / "archive" / "abc.eml"
    dest.parent.mkdir()
    assert write_once(dest, b"Subject: x\n\nshort\n", durable=False, source=src)
    assert dest.read_bytes() == b"Subject: x\n\nshort\n" and dest.stat().st_ino != src.stat().st_ino
    assert not write_once(dest, b"Subject: x\n\nshort\n", durable=False, source=src)   # there already
