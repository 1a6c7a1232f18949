"""The intake ledger (issue 9 exactly-once): one JSON line per step of each message, fsynced.

Each line is an event for one message (keyed by the sha256 of its raw bytes):
  stored    raw bytes archived; carries message_id, received, transport, key, from, subject
  applying  the handler is about to be called (a rerun that finds this state calls it again); one
            line per call, so `attempts` counts the runs that stopped inside the handler
  deferred  the handler asked to be retried later (back to `stored`, attempts back to 0)
  failed    an unexpected error; after MAX_ATTEMPTS the message is quarantined
  applied   decided: outcome (applied|rejected|quarantined|error), game, sender, reply files;
            an `applied` outcome takes the message's Message-ID (a later mail with it is a replay)
  sent      reply number `n` was handed to the outgoing transport (or `failed` for good)
  replied   every reply is out: the message is done
  acked     the transport copy `key` was acknowledged
Replaying the lines gives each message's state; a torn last line (crash mid-append) is cut off.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from pbem.errors import MailError
from pbem.mail._fs import fsync_dir
from pbem.mail._lock import FlockLock, LockTimeout
from pbem.store.fs import write_point

log = logging.getLogger("pbem.mail")

STATES = ("stored", "applying", "applied", "replied")


@dataclass
class Entry:
    """What the ledger knows about one message."""

    sha256: str
    message_id: str = ""
    received: str = ""
    transport: str = ""
    key: str = ""
    state: str = "stored"
    outcome: str = ""
    reason: str = ""
    game: str = ""
    sender: str = ""
    replies: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    """SHA-256 of each reply file, when they were written without an fsync each (batched): a file
    that is not these bytes was lost to a power loss before the run's sync"""
    sent: set[int] = field(default_factory=set)
    acked: set[str] = field(default_factory=set)
    failures: int = 0
    attempts: int = 0
    """handler calls since the last `deferred`: a run killed inside the handler leaves one behind"""
    kills: int = 0
    """runs that stopped while reading it (a `reading` not followed by `read`: out of memory, a
    signal) since the last `deferred` (issue 33)"""
    reading: bool = False
    seq: int = 0
    info: dict = field(default_factory=dict)

    @property
    def killed_reading(self) -> int:
        """Runs that stopped while reading it, the last one included (its `reading` is still open)."""
        return self.kills + int(self.reading)


_LINE_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def _line(record: dict) -> bytes:
    """One ledger line: the record as JSON with sorted keys, and a newline (orjson: a burst appends
    eight lines a mail). A value orjson refuses (a file name with undecodable bytes, an integer
    beyond 64 bits) is written by the standard library's encoder: a reader takes either."""
    try:
        return orjson.dumps(record, default=str, option=_LINE_OPTIONS)
    except TypeError:            # orjson.JSONEncodeError is a TypeError
        return (json.dumps(record, sort_keys=True, default=str) + "\n").encode("ascii")   # escapes all but ASCII


class Ledger:
    """Append-only JSON-lines file plus its in-memory fold; `with ledger:` locks and loads it for a run."""

    def __init__(self, path: Path, *, lock_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self.entries: dict[str, Entry] = {}
        self.message_ids: dict[str, str] = {}
        self._lock = FlockLock(str(self.path) + ".lock", timeout=lock_timeout)
        self._fh = None
        self._unsynced = False   # events appended with durable=False since the last fsync
        self._held: list[bytes] = []       # lines held (append(hold=True)) until sync() writes them
        self._held_shas: set[str] = set()  # their messages: every later line of these is held too

    def __enter__(self) -> Ledger:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire()
        except LockTimeout as exc:
            raise MailError(f"mail intake already running (lock {self._lock.lock_file} held)") from exc
        try:
            self.load()
        except BaseException:
            self._lock.release()
            raise
        return self

    def sync(self) -> None:
        """Write the held events, then make every event appended so far durable (one fsync for all
        of them). The caller has made what the held events speak of durable first."""
        if self._held:
            self._open().write(b"".join(self._held))
            self._fh.flush()
            self._held, self._held_shas = [], set()
            self._unsynced = True
            write_point("done", self.path)
        if self._fh is not None and self._unsynced:
            os.fsync(self._fh.fileno())
            self._unsynced = False

    def __exit__(self, *exc) -> None:
        # held events not written by a sync() are dropped: the next run does those steps again (the
        # caller holds only steps that are safe to repeat, e.g. a reply a transport does not resend)
        self._held, self._held_shas = [], set()
        fh, self._fh = self._fh, None
        try:
            if fh is not None:
                if self._unsynced:
                    os.fsync(fh.fileno())
                    self._unsynced = False
                fh.close()
        finally:
            self._lock.release()

    def load(self) -> None:
        """Read the file again; cut a torn last line, skip (and log) damaged ones."""
        self.entries, self.message_ids = {}, {}
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            log.warning("mail ledger %s: cutting a torn last line (%d bytes)", self.path, len(data) - cut)
            with open(self.path, "r+b") as fh:
                fh.truncate(cut)
                fh.flush()
                os.fsync(fh.fileno())
            data = data[:cut]
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                self._apply(event)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                log.warning("mail ledger %s line %d: skipped (%s)", self.path, n, exc)

    def _open(self):
        if self._fh is None:  # kept open while the ledger is locked (one open per run)
            new_file = not self.path.exists()
            self._fh = open(self.path, "ab")
            if new_file:
                fsync_dir(self.path.parent)
        return self._fh

    def append(self, event: str, sha256: str, *, durable: bool = True, hold: bool = False, **fields) -> Entry:
        """Write one event (append; `durable`: and fsync), then fold it into memory. An event written
        with durable=False is in the file for any later reader or a rerun after a kill (the kernel
        has it); only a power loss can take it, until the next sync(). `hold`: folded into memory now
        but written by the next sync() (with every later event of the same message, so that each
        message's events stay in order); lost, and so done again by the next run, if the run stops
        before that."""
        record = {"event": event, "sha256": sha256, "at": datetime.now(UTC).isoformat(), **fields}
        line = _line(record)
        if hold or sha256 in self._held_shas:
            self._apply(record)
            self._held.append(line)
            self._held_shas.add(sha256)
            return self.entries[sha256]
        self._open().write(line)
        self._fh.flush()
        if durable:
            os.fsync(self._fh.fileno())
            self._unsynced = False
        else:
            self._unsynced = True
        self._apply(record)
        write_point("done", self.path)
        return self.entries[sha256]

    def _apply(self, ev: dict) -> None:
        sha = ev["sha256"]
        kind = ev["event"]
        entry = self.entries.get(sha)
        if entry is None:
            if kind != "stored":
                raise ValueError(f"{kind} before stored")
            entry = self.entries[sha] = Entry(sha)
        if kind == "reading":
            entry.kills += entry.reading    # the previous run's reading never finished
            entry.reading = True
            return
        entry.reading = False
        if kind == "stored":
            entry.message_id = ev.get("message_id", "")
            entry.received = ev.get("received", "")
            entry.transport = ev.get("transport", "")
            entry.key = ev.get("key", "")
            entry.seq = int(ev.get("seq", 0))
            entry.info = {k: ev.get(k, "") for k in ("from", "subject")}
        elif kind == "applying":
            entry.state = "applying"
            entry.attempts += 1
            entry.game, entry.sender = ev.get("game", ""), ev.get("sender", "")
        elif kind == "deferred":
            entry.state = "stored"
            entry.attempts = entry.kills = 0
        elif kind == "failed":
            entry.failures += 1
        elif kind == "applied":
            entry.state = "applied"
            entry.outcome = ev["outcome"]
            entry.reason = ev.get("reason", "")
            entry.game, entry.sender = ev.get("game", ""), ev.get("sender", "")
            entry.replies = list(ev.get("replies", []))
            entry.digests = list(ev.get("digests", []))
            entry.sent = set()
            # a Message-ID is taken only by a mail that was accepted: a mail that failed
            # authentication (or claimed the id in advance) cannot make the real one a "replay"
            if entry.outcome == "applied" and entry.message_id:
                self.message_ids.setdefault(entry.message_id, sha)
        elif kind == "sent":
            entry.sent.add(int(ev["n"]))
        elif kind == "replied":
            entry.state = "replied"
        elif kind == "acked":
            entry.acked.add(f"{ev.get('transport', '')}|{ev.get('key', '')}")
        elif kind == "read":
            pass     # the reading that `reading` began has finished (entry.reading is cleared above)
        else:
            raise ValueError(f"unknown event {kind!r}")

    def pending(self) -> list[Entry]:
        """Messages not done yet, oldest received first (ties: the order they were fetched in)."""
        todo = [e for e in self.entries.values() if e.state != "replied"]
        return sorted(todo, key=lambda e: (e.received, e.seq, e.sha256))
