"""The intake pipeline (issue 9): every incoming mail is handled exactly once, even across crashes.

`Intake.run_once()` polls each incoming transport once, then for every message:

 1. store the raw bytes FIRST, atomically, as `<archive_dir>/<sha256>.eml`; ledger `stored`
 2. dedupe: the same bytes (sha256) are one message; a second message with an already seen
    Message-ID is a replay and is quarantined without a reply
 3. route to a game (`GAME <id>` line, else `[<id>]` subject tag); unroutable mail is quarantined
    with a polite reply
 4. authenticate (registered address AND matching `TOKEN`); on failure a polite `auth` reply,
    nothing recorded, and a notice to the player an unregistered sender claimed to be
 5. hand the mail to `handler(game_id, player_or_'moderator', mail) -> Reply | None`; ledger
    `applying` before the call, `applied` (with the reply mails already written to disk) after
 6. send the replies threaded (In-Reply-To/References, `Re: [<game>] ...`); ledger `sent`/`replied`
 7. ack at the transport (which checkpoints); ledger `acked` — all acks at the end of the run

Ledger lines are appended and flushed at once (a kill keeps them: the kernel has them) and fsynced
once, before the first ack (issue 33): until the transports let go of their copies, a power loss can
only make the next run fetch and take those mails again (the handler is idempotent by `mail.sha256`,
the replies have fixed Message-IDs). The archive's copies are made durable together at that point
too (one syncfs for many), and so are the replies to a transport that never writes a Message-ID
twice (the folder outbox): their `sent` lines are held and written only once they are durable, so
a run stopped before sends them again, and the transport keeps one copy. Mails are fetched one at a time (a transport's `fetch_each`); a
big one is copied from its file in chunks, only its headers are parsed on arrival, and one over
MAX_PARSE is never parsed past its headers: memory does not grow with the number or size of mails.

Messages are taken in order of received time (INTERNALDATE / file mtime), never the Date header.
A rerun after a crash at any step resumes from the ledger: the archive, not the transport, is the
source of truth once step 1 is done, so nothing is lost, and the handler is not called again once
`applied` is recorded. The one window left is a crash *inside* the handler (ledger `applying`): the
rerun calls it again for that message, so handlers should be idempotent by `mail.sha256` (the game
log stores the mail id for this). Replies have a fixed Message-ID, so a reply re-sent after a crash
between sending and recording it is recognisable as the same mail.

No mail can stop its game (issue 27). A mail whose handling raises (the handler, or routing and
reading it) is answered at once: its sender is told it could not be read (and what of it was
taken), the moderator gets a note naming the mail (Message-ID, sender, subject, the error), and the
mail is set aside in the quarantine folder, kept. A mail that stopped the run itself MAX_RUNS times
(a kill inside the handler: every call is a durable `applying` line of the ledger) is set aside the
same way without calling the handler again. Either way the other mails of its game are taken in the
same run. Only a fault of the game (the handler's RetryLater: a damaged file, a read-only folder)
or of the mail system (OSError, MailError) holds the game's later mail back, and only for a bounded
MAX_ATTEMPTS runs for one mail.
"""

from __future__ import annotations

import dataclasses
import email
import email.utils
import hashlib
import json
import logging
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import policy
from pathlib import Path

from pbem.errors import MailError
from pbem.mail import notices
from pbem.mail._fs import atomic_write, fsync_dir, write_once, write_tmp_from
from pbem.mail.compose import mail_bytes, reply_subject, thread_references, written_headers
from pbem.mail.directory import GameDirectory, games_of_sender_like
from pbem.mail.ledger import Entry, Ledger
from pbem.mail.message import MAX_PARSE, MailIn, head_summary, read_message
from pbem.mail.message import _synth_id as synth_id
from pbem.mail.routing import authenticate, route
from pbem.mail.transport import Incoming, IncomingTransport, OutgoingTransport, PermanentMailError
from pbem.records import record
from pbem.store.fs import make_durable, write_point

log = logging.getLogger("pbem.mail")

FAULT_POINTS = ("stored", "recorded", "applying", "applied", "sending", "sent", "replied", "acking", "acked")
"""Where the fault hook is called: right after each durable step (tests raise there to crash)."""

MAX_ATTEMPTS = 5
"""Errors of the mail system (OSError, MailError) on one message before it is set aside (so one bad
mail cannot block a game)."""

SYNC_EVERY = 64
"""Files written without an fsync each (archive copies, batched reply files) are made durable once
this many new files wait (links to files there already do not count), not only at the end of the
run. Nothing waits on it (the acks still come after the run's last sync); it keeps the creation of
new files cheap in a burst: on ext4 creating a file slows as new files not yet written back pile
up (measured on this project's machine, 1 000 reply files into one folder: 0.09 ms each for the
first hundred, 0.8 ms each past the five hundredth; with a syncfs every 64, 0.1-0.2 ms each)."""

MAX_RUNS = 3
"""Runs that stopped inside the handler for one message (killed, out of memory) before it is set
aside without calling the handler again."""


@record
class Reply:
    """What the handler wants sent back to the sender: text first, then attachments (PNG maps)."""

    text: str
    attachments: Sequence[tuple[str, bytes, str]] = ()
    subject: str | None = None
    language: str = "en"      # the reader's language (pbem.i18n): the intake's notes added to the text


class RetryLater(Exception):
    """Raised by a handler that cannot take the mail now (e.g. the game is locked): the mail stays
    pending, later mail for the same game waits behind it, and the next run tries again."""


class HandlerFailed(Exception):
    """Raised by a handler when the mail itself made it fail (not the game: that is RetryLater).
    `error` says what went wrong in a plain sentence; `taken` what of the mail was nevertheless
    recorded (for the sender's reply and the moderator's note)."""

    def __init__(self, error: str, taken: str = "") -> None:
        super().__init__(error)
        self.error = error
        self.taken = taken


def sender_language(game, mail: MailIn) -> str:
    """The language of the player of `game` (a GameContact) the mail comes from (pbem.i18n; English for
    an address the game does not know: nothing of a player is said to a stranger)."""
    addr = str(mail.from_addr or "").strip().strip("<>").lower()
    for p in getattr(game, "players", {}).values():
        if p.address == addr:
            return p.language
    return "en"


def plain_error(exc: BaseException) -> str:
    """An exception as a sentence a player or moderator can read (not Python's own wording)."""
    from pbem.errors import DataError, GameError, PbemError

    if isinstance(exc, HandlerFailed):
        return exc.error
    if isinstance(exc, PbemError) and not isinstance(exc, (GameError, DataError, MailError)):
        return str(exc)          # about the mail; the game's and the server's errors may name its files
    if isinstance(exc, RecursionError):
        return "something in it is nested deeper than pbem can follow"
    if isinstance(exc, MemoryError):
        return "reading it needed more memory than pbem has"
    if isinstance(exc, ValueError) and "digits" in str(exc):
        return "a number in it is far too long"
    return "pbem met an error of its own while reading it"


Handler = Callable[[str, str, MailIn], "Reply | None"]
Fault = Callable[[str, str], None]


@dataclass
class RunReport:
    """What one run did (counts), and the problems it logged."""

    fetched: int = 0
    new: int = 0
    applied: int = 0
    rejected: int = 0
    quarantined: int = 0
    deferred: int = 0
    replies_sent: int = 0
    acked: int = 0
    errors: list[str] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    """Games this run routed a mail to (whatever became of it): the job opens these, and may skip the
    others on their idle notes (pbem.service.idle)."""
    set_aside: list[str] = field(default_factory=list)
    """Mails set aside because handling them raised (each: game, Message-ID, sender, error). They
    are answered and their game goes on: not a fault of the game."""


@dataclass
class _Decision:
    outcome: str
    """applied | rejected | quarantined | error"""
    reason: str = ""
    game: str = ""
    sender: str = ""
    mails: list[bytes] = field(default_factory=list)
    """the reply mails, as written (pbem.mail.compose.mail_bytes)"""


def _technical(exc: BaseException) -> str:
    """The exception as the moderator's note and the log name it (type and message)."""
    if isinstance(exc, HandlerFailed) and exc.__cause__ is not None:
        exc = exc.__cause__
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}"[:2000] if text else type(exc).__name__


HEAD_MAX = 1024 * 1024
"""Bytes read of a mail whose headers alone are wanted (the headers end well before)."""


def read_head(raw: bytes, sha: str, size: int) -> MailIn:
    """The headers of a mail (its body is not parsed, not even copied) as a MailIn that names the
    whole mail: its SHA-256 and size. Empty raw bytes: a mail read this way is never handled."""
    mail = read_message(_header_block(raw), body=False)
    message_id = synth_id(sha) if mail.message_id_synthesized else mail.message_id
    return dataclasses.replace(mail, sha256=sha, size=size, message_id=message_id, raw=b"")


def _header_block(raw: bytes) -> bytes:
    """The headers of a mail, up to its first empty line (within HEAD_MAX), and an empty line."""
    end = min((i for i in (raw.find(b"\r\n\r\n", 0, HEAD_MAX), raw.find(b"\n\n", 0, HEAD_MAX)) if i >= 0),
              default=min(len(raw), HEAD_MAX))
    return raw[:end] + b"\n\n"


def _stamp(incoming: Incoming) -> str:
    return incoming.received.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Intake:
    """The mail intake of one mailbox (which may serve several games)."""

    def __init__(
        self,
        incoming: Sequence[IncomingTransport],
        outgoing: OutgoingTransport | None,
        directory: GameDirectory,
        handler: Handler,
        *,
        archive_dir: Path,
        from_addr: str,
        ledger_path: Path | None = None,
        quarantine_dir: Path | None = None,
        fault: Fault | None = None,
        lock_timeout: float = 10.0,
        now: datetime | None = None,
    ) -> None:
        self.now = now
        """the run's time (`pbem run --now`): the Date of every reply (None: the wall clock)"""
        self.incoming = list(incoming)
        self.outgoing = outgoing
        self.directory = directory
        self.handler = handler
        self.archive_dir = Path(archive_dir)
        self.replies_dir = self.archive_dir / "replies"
        self.quarantine_dir = Path(quarantine_dir) if quarantine_dir else self.archive_dir / "quarantine"
        self.ledger = Ledger(Path(ledger_path) if ledger_path else self.archive_dir / "ledger.jsonl",
                             lock_timeout=lock_timeout)
        self.from_addr = from_addr
        self.own_addr = email.utils.parseaddr(from_addr)[1].lower()
        self.domain = self.own_addr.rpartition("@")[2] or "pbem.invalid"
        self.fault = fault
        self._by_name = {t.name: t for t in self.incoming}
        self._tracebacks: dict[str, str] = {}   # sha -> where a mail set aside failed (kept with it)
        self._unsynced: list[Path] = []          # archive copies stored this run, not fsynced yet
        self._unsynced_replies: list[Path] = []  # reply files written this run (batched), not fsynced yet
        self._digests: dict[str, list[str]] = {}  # sha -> its batched reply files' SHA-256, for `applied`
        self._created = 0                         # new files (not links) written without an fsync since the last sync
        self._written: dict[str, bytes] = {}     # reply file name -> its bytes, written by this run, not sent yet

    # -- the run --------------------------------------------------------------------------------
    def run_once(self) -> RunReport:
        """Poll every transport once and take every pending message as far as it can go."""
        report = RunReport()
        with self.ledger:
            handles = self._poll(report)
            blocked: set[str] = set()
            try:
                for entry in self.ledger.pending():
                    try:
                        self._advance(entry, handles, blocked, report)
                    except Exception as exc:
                        if self._failed(entry, exc, blocked, report):
                            try:    # set aside: its replies go out now, and its transport copy is acked
                                self._advance(entry, handles, blocked, report)
                            except Exception as again:  # noqa: BLE001 - as any error of a decided mail
                                self._failed(entry, again, blocked, report)
            finally:
                done = getattr(self.handler, "run_done", None)   # e.g. the games' locks let go
                if done is not None:
                    done()
            # the archive's copies and the ledger are made durable once, before the transports let go
            # of their copies: until then a power loss only makes the next run fetch and store those
            # mails again, and take the ones the ledger lost (issue 33)
            self._sync_archive()
            sync_sent = getattr(self.outgoing, "sync_sent", None)
            if sync_sent is not None:
                sync_sent()            # the replies sent without an fsync each, before the ledger says so
            self.ledger.sync()
            for sha in list(handles):
                entry = self.ledger.entries.get(sha)
                if entry is not None and entry.state == "replied":
                    self._ack(entry, handles, report)
            for transport in self.incoming:   # the acks' renames (lost ones: the mail comes again, known)
                sync = getattr(transport, "sync_acks", None)
                if sync is not None:
                    sync()
        return report

    def _fault(self, point: str, sha: str) -> None:
        if self.fault is not None:
            self.fault(point, sha)

    def _poll(self, report: RunReport) -> dict[str, list[Incoming]]:
        """Fetch, store and record every new message, one at a time (a transport's `fetch_each`
        reads each only when its turn comes); only the headers are parsed here, and the handles
        kept for the ack hold no bytes (issue 33: memory bounded whatever the mail sizes)."""
        handles: dict[str, list[Incoming]] = {}
        for transport in self.incoming:
            each = getattr(transport, "fetch_each", None)
            try:
                fetched = iter(each() if each is not None else transport.fetch())
            except Exception as exc:  # one broken transport must not stop the others
                log.error("mail transport %s: fetch failed: %s", transport.name, exc)
                report.errors.append(f"{transport.name}: {exc}")
                continue
            while True:
                try:
                    inc = next(fetched, None)
                except Exception as exc:  # noqa: BLE001 - as a failed fetch: the rest waits for the next run
                    log.error("mail transport %s: fetch failed: %s", transport.name, exc)
                    report.errors.append(f"{transport.name}: {exc}")
                    break
                if inc is None:
                    break
                report.fetched += 1
                try:
                    if inc.path is not None and not inc.raw:
                        sha, size, head = self._store_file(inc.path)
                    else:
                        sha, size, head = hashlib.sha256(inc.raw).hexdigest(), len(inc.raw), inc.raw
                        # durable with the others before any ack (_sync_archive): the mailbox keeps it till then
                        if write_once(self.archive_dir / f"{sha}.eml", inc.raw, durable=False, source=inc.file):
                            self._unsynced.append(self.archive_dir / f"{sha}.eml")
                            if inc.file is None:      # a new file (a folder's message file is linked)
                                self._created += 1
                                self._sync_if_many()
                except OSError as exc:  # not stored: not touched, so the transport keeps it
                    log.error("mail %s from %s %s: cannot store it: %s", sha[:12], inc.transport, inc.key, exc)
                    report.errors.append(f"store {inc.key}: {exc}")
                    continue
                self._fault("stored", sha)
                if sha not in self.ledger.entries:
                    message_id, from_addr, subject = head_summary(_header_block(head), sha)
                    self.ledger.append(
                        "stored", sha, durable=False, message_id=message_id, received=_stamp(inc),
                        seq=len(self.ledger.entries), transport=inc.transport, key=inc.key,
                        size=size, **{"from": from_addr, "subject": subject[:200]},
                    )
                    report.new += 1
                    log.info("mail %s stored: from <%s> %r via %s %s", sha[:12], from_addr,
                             subject[:80], inc.transport, inc.key)
                    self._fault("recorded", sha)
                handles.setdefault(sha, []).append(dataclasses.replace(inc, raw=b""))
                del inc, head
        return handles

    def _sync_archive(self) -> None:
        """The archive copies this run stored and the batched reply files it wrote, made durable
        together (one syncfs for many)."""
        files = self._unsynced + self._unsynced_replies
        dirs = [d for d, some in ((self.archive_dir, self._unsynced), (self.replies_dir, self._unsynced_replies)) if some]
        if files:
            make_durable(files, dirs)
            self._unsynced, self._unsynced_replies = [], []
        self._created = 0

    def _sync_if_many(self) -> None:
        """`_sync_archive` once SYNC_EVERY new files wait for it."""
        if self._created >= SYNC_EVERY:
            self._sync_archive()

    def _store_file(self, source: Path) -> tuple[str, int, bytes]:
        """Store a big message from its file in chunks (hashed on the way): its SHA-256, its size
        and its first HEAD_MAX bytes (for the headers). Crash-safe as write_once: a temp file
        fsynced, then renamed to its content's name."""
        digest, size, head = hashlib.sha256(), 0, b""

        class _Hashing:
            def __init__(self, fh) -> None:
                self.fh = fh

            def read(self, n: int = -1) -> bytes:
                nonlocal size, head
                chunk = self.fh.read(n)
                digest.update(chunk)
                if len(head) < HEAD_MAX:
                    head += chunk[:HEAD_MAX - len(head)]
                size += len(chunk)
                return chunk

        self.archive_dir.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as fh:
            tmp = write_tmp_from(self.archive_dir, _Hashing(fh))
        sha = digest.hexdigest()
        final = self.archive_dir / f"{sha}.eml"
        try:
            if final.is_file() and final.stat().st_size == size:
                tmp.unlink()          # stored before (the name is the content's hash)
            else:
                os.replace(tmp, final)
                fsync_dir(self.archive_dir)
                write_point("done", final)
        finally:
            tmp.unlink(missing_ok=True)
        return sha, size, head

    def _advance(self, entry: Entry, handles: dict[str, list[Incoming]], blocked: set[str],
                 report: RunReport) -> None:
        sha = entry.sha256
        self._written.clear()        # at most one mail's replies held (one whose sending failed)
        if entry.game:
            report.games.add(entry.game)
        if entry.state == "applied" and entry.digests and self._replies_lost(entry):
            log.warning("mail %s: its reply was lost before it was made durable (a power loss?): taken again", sha[:12])
            self.ledger.append("deferred", sha, durable=False, reason="reply lost before the sync; taken again")
        if entry.state in ("stored", "applying") and entry.killed_reading >= MAX_RUNS:
            self._set_aside_killer(entry, report)       # now `applied`: its replies go out below
        if entry.state in ("stored", "applying"):
            # a run that dies reading it (out of memory, a signal) leaves `reading` as its last line
            self.ledger.append("reading", sha, durable=False)
            mail = self._read(entry)
            self.ledger.append("read", sha, durable=False)
            decision = self._decide(entry, mail, blocked, report)
            if decision is None:
                return
            files = self._write_replies(sha, decision.mails)
            if decision.outcome in ("quarantined", "error"):
                self._quarantine(mail, entry, decision.reason)
            self.ledger.append("applied", sha, durable=False, outcome=decision.outcome, reason=decision.reason,
                               game=decision.game, sender=decision.sender, replies=files,
                               **self._digests_of(sha))
            counter = decision.outcome if decision.outcome in ("applied", "rejected") else "quarantined"
            setattr(report, counter, getattr(report, counter) + 1)
            self._fault("applied", sha)
        if entry.state == "applied":
            if not self._send_all(entry, report):
                return
            self.ledger.append("replied", sha, durable=False)
            self._fault("replied", sha)
        # acked at the end of the run, after the ledger's one fsync (run_once)

    def _read(self, entry: Entry) -> MailIn:
        """The mail from the archive: parsed whole when it is within MAX_PARSE; beyond that only
        its headers are read (it is answered as too large), so no mail costs more than MAX_PARSE
        of parsing, whatever its size (issue 33)."""
        path = self.archive_dir / f"{entry.sha256}.eml"
        try:
            size = path.stat().st_size
            if size <= MAX_PARSE:
                return read_message(path.read_bytes())
            with open(path, "rb") as fh:
                return read_head(fh.read(HEAD_MAX), entry.sha256, size)
        except FileNotFoundError:
            # the archive copy vanished (someone cleaned up): the transport still has it (not acked)
            raise MailError(f"archived mail {path} is missing") from None

    # -- deciding -------------------------------------------------------------------------------
    def _no_reply_reason(self, mail: MailIn) -> str:
        """Why this mail must not be answered automatically (mail loops, bounces), or ''."""
        if not mail.from_addr:
            return "no sender address"
        if mail.auto_submitted:
            return mail.auto_submitted
        if mail.from_addr == self.own_addr:
            return "sent by this adjudicator"
        return ""

    def _decide(self, entry: Entry, mail: MailIn, blocked: set[str], report: RunReport) -> _Decision | None:
        sha = entry.sha256
        first = self.ledger.message_ids.get(mail.message_id)
        if first and first != sha:
            log.warning("mail %s: Message-ID %s was already used by %s: replay, quarantined",
                        sha[:12], mail.message_id[:80], first[:12])
            return _Decision("quarantined", f"duplicate-message-id of {first}")
        no_reply = self._no_reply_reason(mail)
        try:
            where = route(mail, self.directory)
        except Exception as exc:
            log.error("mail %s: game directory failed: %s (mail kept for the next run)", sha[:12], exc)
            report.errors.append(f"directory: {exc}")
            report.deferred += 1
            return None
        if mail.size > MAX_PARSE:   # cut before it was read: its TOKEN line may be in the part not read
            gid = where.game.id if where.game is not None else None
            mails = [] if no_reply else [self._reply(mail, gid, notices.too_large(gid, mail), 0)]
            return _Decision("quarantined", f"too large ({mail.size} bytes, limit {MAX_PARSE})", gid or "", mails=mails)
        if where.game is None:
            near = games_of_sender_like(self.directory, where.asked, mail.from_addr or "") if where.asked else []
            mails = [] if no_reply else [self._reply(mail, None, notices.unroutable(mail, where.asked, near), 0)]
            reason = f"unroutable ({where.asked!r})" + (f"; no reply: {no_reply}" if no_reply else "")
            return _Decision("quarantined", reason, mails=mails)
        game = where.game
        report.games.add(game.id)
        if game.id in blocked:
            return None
        auth = authenticate(mail, game)
        if not auth.ok:
            if no_reply:
                return _Decision("quarantined", f"auth-failed: {auth.reason}; no reply: {no_reply}", game.id)
            mails = [self._reply(mail, game.id, notices.auth_failed(game.id, auth.reason, mail,
                                                                   sender_language(game, mail)), 0)]
            for who, address, matched in auth.claimed:
                mails.append(self._mail(
                    address, f"[{game.id}] rejected message sent in your name",
                    notices.claim_notice(game.id, who, mail, matched), sha, len(mails)))
            log.warning("mail %s for %s rejected (auth: %s) from <%s>%s", sha[:12], game.id, auth.reason,
                        mail.from_addr, f"; notified {len(auth.claimed)}" if auth.claimed else "")
            return _Decision("rejected", auth.reason, game.id, "", mails)
        return self._handle(entry, mail, game, auth.sender, blocked, report)

    def _handle(self, entry, mail: MailIn, game, sender: str, blocked: set[str], report) -> _Decision | None:
        sha = entry.sha256
        if entry.state == "applying":
            if entry.attempts >= MAX_RUNS:
                error = f"the run stopped while reading it, {entry.attempts} times"
                log.error("mail %s for %s: %s; set aside", sha[:12], game.id, error)
                return self._set_aside(mail, game, sender, error, error, self._taken(game.id, mail), report)
            log.warning("mail %s: the last run stopped inside the handler; calling it again", sha[:12])
        self.ledger.append("applying", sha, durable=False, game=game.id, sender=sender)
        self._fault("applying", sha)
        try:
            reply = self.handler(game.id, sender, mail)
        except RetryLater as exc:
            self.ledger.append("deferred", sha, durable=False, reason=str(exc)[:300])
            blocked.add(game.id)
            report.deferred += 1
            log.info("mail %s for %s deferred: %s", sha[:12], game.id, exc)
            return None
        except Exception as exc:
            log.error("mail %s for %s: the handler failed: %s (set aside; the traceback is kept with it in %s)",
                      sha[:12], game.id, _technical(exc)[:300], self.quarantine_dir)
            self._tracebacks[sha] = traceback.format_exc()[-20000:]
            taken = exc.taken if isinstance(exc, HandlerFailed) else self._taken(game.id, mail)
            return self._set_aside(mail, game, sender, plain_error(exc), _technical(exc), taken, report)
        log.info("mail %s applied to %s as %s", sha[:12], game.id, sender)
        return _Decision("applied", "", game.id, sender, self._handler_reply(mail, game.id, reply))

    def _handler_reply(self, mail: MailIn, game_id: str, reply) -> list[bytes]:
        """The reply mail for what the handler returned. The handler has run: nothing here may fail
        (a failure would leave the mail `applying` and call the handler again), so a reply that
        cannot be built is replaced by a plain one without attachments."""
        if reply is None:
            return []
        if isinstance(reply, str):
            reply = Reply(reply)
        try:
            return [self._reply(mail, game_id, notices.with_notes(reply.text, mail, reply.language), 0,
                                attachments=reply.attachments, subject=reply.subject)]
        except Exception:
            log.exception("mail %s: could not build the reply; sending it without attachments", mail.sha256[:12])
            return [self._reply(mail, game_id, notices.with_notes(str(getattr(reply, "text", reply)), mail), 0)]

    def _failed(self, entry: Entry, exc: Exception, blocked: set[str], report: RunReport) -> bool:
        """An error while advancing one mail outside the handler. An error of the mail system
        (OSError, MailError: a full disk, a server down) holds back later mail of its game and is
        counted; after MAX_ATTEMPTS the mail is set aside. Any other error comes from the mail
        (reading, routing it): it is set aside at once, and its game goes on."""
        system = isinstance(exc, (MailError, OSError))
        if system:
            log.error("mail %s: %s", entry.sha256[:12], exc)
        else:
            log.error("mail %s: unexpected error: %s", entry.sha256[:12], _technical(exc)[:300])
            self._tracebacks[entry.sha256] = traceback.format_exc()[-20000:]
        self.ledger.append("failed", entry.sha256, durable=False, error=_technical(exc)[:500])
        undecided = entry.state in ("stored", "applying")
        if undecided and (not system or entry.failures >= MAX_ATTEMPTS):
            try:
                self._set_aside_failed(entry, exc, report)
                return True
            except Exception:  # noqa: BLE001 - then it waits, as below
                log.exception("mail %s: could not set it aside", entry.sha256[:12])
        report.errors.append(f"{entry.sha256[:12]}: {_technical(exc)}")
        if entry.game:
            blocked.add(entry.game)
        if entry.failures >= MAX_ATTEMPTS and entry.state == "applied":  # its replies cannot be sent
            path = self.archive_dir / f"{entry.sha256}.eml"
            mail = read_message(path.read_bytes() if path.exists() else b"")
            self._quarantine(mail, entry, f"internal-error after {entry.failures} attempts")
            self.ledger.append("applied", entry.sha256, durable=False, outcome="quarantined", game=entry.game,
                               reason="internal-error", replies=[])
        return False

    def _set_aside_killer(self, entry: Entry, report: RunReport) -> None:
        """A mail that stopped the run MAX_RUNS times while it was read: set aside by its headers
        alone (not read again), answered, its moderator told, and acked."""
        error = f"the run stopped while reading it, {entry.killed_reading} times"
        log.error("mail %s: %s; set aside unread", entry.sha256[:12], error)
        path = self.archive_dir / f"{entry.sha256}.eml"
        try:
            with open(path, "rb") as fh:
                mail = read_head(fh.read(HEAD_MAX), entry.sha256, path.stat().st_size)
        except FileNotFoundError:
            mail = read_message(b"")
        self._set_aside_failed(entry, HandlerFailed(error), report, mail=mail)

    def _set_aside_failed(self, entry: Entry, exc: Exception, report: RunReport, *, mail: MailIn | None = None) -> None:
        """Set aside a mail whose reading or routing raised (no handler result to go by)."""
        if mail is None:
            path = self.archive_dir / f"{entry.sha256}.eml"
            mail = read_message(path.read_bytes() if path.exists() else b"")
        game = None
        try:
            game = self.directory.lookup(entry.game) if entry.game else route(mail, self.directory).game
        except Exception:  # noqa: BLE001 - the note then goes to the sender only
            game = None
        taken = self._taken(game.id, mail) if game is not None else ""
        decision = self._set_aside(mail, game, entry.sender, plain_error(exc), _technical(exc), taken, report)
        files = self._write_replies(entry.sha256, decision.mails)
        self._quarantine(mail, entry, decision.reason)
        self.ledger.append("applied", entry.sha256, durable=False, outcome="error", reason=decision.reason,
                           game=decision.game, sender=decision.sender, replies=files,
                           **self._digests_of(entry.sha256))
        report.quarantined += 1

    def _set_aside(self, mail: MailIn, game, sender: str, error: str, technical: str, taken: str,
                   report: RunReport) -> _Decision:
        """A mail that could not be handled: answered (unless it must not be), its moderator told
        which mail it was, and kept in the quarantine folder (the `error` outcome)."""
        game_id = game.id if game is not None else None
        mails = []
        if not self._no_reply_reason(mail):
            mails.append(self._reply(mail, game_id, notices.could_not_read(
                game_id, mail, error, taken, sender_language(game, mail) if game is not None else "en"), 0))
        if game is not None and game.moderator:
            where = self.quarantine_dir / f"{mail.sha256}.eml"
            mails.append(self._mail(game.moderator[0], f"[{game.id}] a mail was set aside",
                                    notices.moderator_error(game.id, mail, technical, taken, where),
                                    mail.sha256, len(mails)))
        report.set_aside.append(f"{game_id or 'no game'}: mail {mail.message_id[:100]} from "
                                f"<{mail.from_addr or 'unknown'}> set aside: {technical[:200]}")
        return _Decision("error", f"handler-error: {technical}"[:300], game_id or "", sender, mails)

    def _taken(self, game_id: str, mail: MailIn) -> str:
        """What the handler says it recorded of this mail (its optional `taken(game_id, mail)`)."""
        taken = getattr(self.handler, "taken", None)
        if taken is None:
            return ""
        try:
            return str(taken(game_id, mail) or "")
        except Exception:  # noqa: BLE001 - only said when it can be said
            log.exception("mail %s: cannot tell what of it was recorded", mail.sha256[:12])
            return ""

    # -- outgoing -------------------------------------------------------------------------------
    def _mail(self, to: str, subject: str, text: str, sha: str, n: int, **kw) -> bytes:
        return mail_bytes(to, subject, text, from_addr=self.from_addr,
                          message_id=f"<{sha[:32]}.{n}@{self.domain}>", date=self.now,
                          auto_submitted="auto-replied", **kw)

    def _reply(self, mail: MailIn, game_id: str | None, text: str, n: int, *,
               attachments=(), subject: str | None = None) -> bytes:
        """A reply to the sender, threaded under the mail (no In-Reply-To for a made-up Message-ID)."""
        irt = None if mail.message_id_synthesized else mail.message_id
        return self._mail(
            mail.from_addr, subject or reply_subject(mail.subject, game_id), text, mail.sha256, n,
            in_reply_to=irt, references=thread_references(mail.references, irt),
            attachments=attachments,
        )

    def _batched(self) -> bool:
        """Replies go to a transport that never writes a Message-ID twice (the folder outbox): they
        are written, and sent, without an fsync each, and made durable together before the ledger
        records them sent (run_once)."""
        return bool(getattr(self.outgoing, "resend_safe", False))

    def _write_replies(self, sha: str, mails: list[bytes]) -> list[str]:
        names, digests = [], []
        batched = self._batched()
        for i, data in enumerate(mails):
            name = f"{sha}.{i}.eml"
            atomic_write(self.replies_dir / name, data, mode=0o600, durable=not batched)
            names.append(name)
            self._written[name] = data      # sent right after (_send_all): not read back from the file
            if batched:
                self._unsynced_replies.append(self.replies_dir / name)
                self._created += 1
                self._sync_if_many()
                digests.append(hashlib.sha256(data).hexdigest())
        if batched and digests:
            self._digests[sha] = digests
        return names

    def _digests_of(self, sha: str) -> dict[str, list[str]]:
        """The `digests` of an `applied` line: the batched reply files' SHA-256 (Entry.digests)."""
        digests = self._digests.pop(sha, None)
        return {"digests": digests} if digests else {}

    def _replies_lost(self, entry: Entry) -> bool:
        """A reply written without its own fsync (batched) that is not there as written: a power loss
        before the run's sync took it (its mail was not acked, its reply not sent: it is taken again)."""
        for i, (name, digest) in enumerate(zip(entry.replies, entry.digests)):
            if i in entry.sent:
                continue
            try:
                data = (self.replies_dir / name).read_bytes()
            except FileNotFoundError:
                return True
            if hashlib.sha256(data).hexdigest() != digest:
                return True
        return False

    def _send_all(self, entry: Entry, report: RunReport) -> bool:
        sha = entry.sha256
        for i, name in enumerate(entry.replies):
            if i in entry.sent:
                continue
            if self.outgoing is None:
                log.error("mail %s: no outgoing transport configured; reply kept in %s", sha[:12],
                          self.replies_dir)
                report.errors.append("no outgoing transport")
                return False
            path = self.replies_dir / name
            data = self._written.pop(name, None)
            if data is None:     # written by an earlier run (stopped before it sent them)
                try:
                    data = path.read_bytes()
                except FileNotFoundError:
                    log.error("mail %s: reply file %s is missing; not sent", sha[:12], path)
                    self.ledger.append("sent", sha, durable=False, n=i, failed="reply file missing")
                    continue
            # a transport that never sends a Message-ID twice takes the replies without an fsync each:
            # they are made durable together before the ledger records them sent (run_once); one that
            # takes the bytes as written (the folder outbox) needs only the headers read
            as_written = self._batched() and hasattr(self.outgoing, "send_bytes")
            # compat32 writes the stored bytes back out unchanged (and is much faster than default)
            msg = (written_headers(data) if as_written
                   else email.message_from_bytes(data, policy=policy.compat32))
            batch = self._batched() and bool(msg.get("Message-ID"))
            try:
                if batch and as_written:
                    self.outgoing.send_bytes(data, msg, durable=False, source=path)
                elif batch:
                    self.outgoing.send(msg, durable=False)
                else:
                    self.outgoing.send(msg)
            except PermanentMailError as exc:
                log.error("mail %s: reply %d to %s refused for good: %s", sha[:12], i, msg["To"], exc)
                report.errors.append(str(exc))
                self.ledger.append("sent", sha, durable=False, n=i, failed=str(exc)[:300])
                continue
            except MailError as exc:
                log.warning("mail %s: sending reply %d failed, will retry: %s", sha[:12], i, exc)
                report.errors.append(str(exc))
                return False
            self._fault("sending", sha)
            self.ledger.append("sent", sha, durable=False, hold=batch, n=i, to=str(msg["To"]))
            report.replies_sent += 1
            self._fault("sent", sha)
        return True

    def _ack(self, entry: Entry, handles: dict[str, list[Incoming]], report: RunReport) -> None:
        sha = entry.sha256
        for inc in handles.pop(sha, []):
            transport = self._by_name.get(inc.transport)
            if transport is None:
                continue
            try:
                transport.ack(inc)
            except Exception as exc:  # try again next run; the ledger dedupes the refetch
                log.warning("mail %s: ack at %s failed: %s", sha[:12], inc.transport, exc)
                report.errors.append(f"ack {inc.transport} {inc.key}: {exc}")
                continue
            self._fault("acking", sha)
            self.ledger.append("acked", sha, durable=False, transport=inc.transport, key=inc.key)
            report.acked += 1
            self._fault("acked", sha)

    # -- quarantine -----------------------------------------------------------------------------
    def _quarantine(self, mail: MailIn, entry: Entry, reason: str) -> None:
        """Keep a copy of the mail and why in the quarantine folder, and log it."""
        sha = entry.sha256
        if mail.raw or not (self.archive_dir / f"{sha}.eml").is_file():
            write_once(self.quarantine_dir / f"{sha}.eml", mail.raw)
        elif not (self.quarantine_dir / f"{sha}.eml").is_file():   # read by its headers only: copied as a file
            self.quarantine_dir.mkdir(parents=True, exist_ok=True)
            with open(self.archive_dir / f"{sha}.eml", "rb") as src:
                tmp = write_tmp_from(self.quarantine_dir, src)
            os.replace(tmp, self.quarantine_dir / f"{sha}.eml")
        info = {"reason": reason, "from": mail.from_addr, "subject": mail.subject[:200],
                "message_id": mail.message_id, "received": entry.received, "problems": list(mail.problems)}
        if sha in self._tracebacks:
            info["traceback"] = self._tracebacks[sha]
        atomic_write(self.quarantine_dir / f"{sha}.json",
                     (json.dumps(info, indent=1, sort_keys=True) + "\n").encode())
        log.warning("mail %s quarantined: %s (from <%s>, subject %r)", sha[:12], reason,
                    mail.from_addr, mail.subject[:80])
