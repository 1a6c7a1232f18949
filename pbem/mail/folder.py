"""FolderTransport: the embedded default transport (ARCHITECTURE: games/<id>/inbox, outbox).

Incoming: `<inbox>/*.eml` (full RFC 822 messages), `<inbox>/*.txt` (plain order files: a message
body, with an optional first line `From: x@y` or `From: Name <x@y>`), and, when the inbox is a Maildir, `new/` and `cur/`.
`ack` moves the file to `<inbox>/processed/` (or `processed_dir`). Outgoing: each message is written
atomically (tmp + fsync + rename) as `<outbox>/<timestamp>-<n>-<slug>.eml`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import Message
from email.utils import format_datetime
from pathlib import Path

from pbem.errors import MailError
from pbem.mail._fs import fsync_dir, link_new, write_tmp
from pbem.mail.transport import Incoming
from pbem.store.fs import make_durable, write_point

log = logging.getLogger("pbem.mail")

_FROM_LINE = re.compile(rb"^\s*from:\s*(\S+@\S+?)\s*$", re.IGNORECASE)
_FROM_NAMED = re.compile(rb"^\s*from:[^<>]*<([^<>\s]+@[^<>\s]+)>\s*$", re.IGNORECASE)


STREAM_OVER = 4 * 1024 * 1024
"""A message file bigger than this is handed over by its path (Incoming.path), not read whole."""


class FolderTransport:
    """Inbox and outbox directories on disk (either may be None to use only one direction)."""

    def __init__(
        self,
        inbox_dir: Path | None,
        outbox_dir: Path | None = None,
        *,
        processed_dir: Path | None = None,
        name: str = "folder",
    ) -> None:
        self.inbox = Path(inbox_dir) if inbox_dir is not None else None
        self.outbox = Path(outbox_dir) if outbox_dir is not None else None
        self.processed = Path(processed_dir) if processed_dir else (
            self.inbox / "processed" if self.inbox is not None else None
        )
        self.name = name
        self._counter = 0
        self._sent_ids: set[str] | None = None
        self._ack_dirs: set[Path] = set()   # folders whose renames (acks) wait for sync_acks
        self._unsynced_sent: list[Path] = []   # mails sent with durable=False, waiting for sync_sent
        self._outbox_made = False

    # -- incoming ---------------------------------------------------------------------------
    def _candidates(self) -> list[tuple[str, Path, os.stat_result]]:
        """The message files of the inbox: (key, path, stat), each file stat'ed once (scandir)."""
        assert self.inbox is not None
        found: list[tuple[str, Path, os.stat_result]] = []
        if not self.inbox.is_dir():
            return found
        maildir = (self.inbox / "tmp").is_dir()
        for sub in ("", "new", "cur"):
            folder = self.inbox / sub if sub else self.inbox
            if sub and not (maildir and folder.is_dir()):
                continue
            try:
                with os.scandir(folder) as it:
                    for d in it:
                        if d.name.startswith(".") or not (sub or d.name.lower().endswith((".eml", ".txt"))):
                            continue
                        try:
                            if d.is_file():
                                found.append((f"{sub}/{d.name}" if sub else d.name, Path(d.path), d.stat()))
                        except OSError as exc:  # vanished or unreadable: try again next time
                            log.warning("%s: cannot read %s: %s", self.name, d.path, exc)
            except OSError as exc:
                log.warning("%s: cannot list %s: %s", self.name, folder, exc)
        return found

    def fetch(self) -> list[Incoming]:
        """Every message file still in the inbox, oldest modification time first."""
        return list(self.fetch_each())

    def fetch_each(self) -> Iterator[Incoming]:
        """As fetch(), one message at a time: a file is read only when its turn comes, so the intake
        holds one mail in memory however many and however big they are (issue 33)."""
        if self.inbox is None:
            return
        dated = [(st.st_mtime, key, path, st.st_size) for key, path, st in self._candidates()]
        dated.sort(key=lambda d: (datetime.fromtimestamp(d[0], UTC), d[1]))
        for mtime, key, path, size in dated:
            received = datetime.fromtimestamp(mtime, UTC)
            try:
                if path.suffix.lower() != ".txt" and size > STREAM_OVER:
                    yield Incoming(raw=b"", key=key, received=received, transport=self.name, path=path)
                    continue
                data = path.read_bytes()
            except OSError as exc:
                log.warning("%s: cannot read %s: %s", self.name, path, exc)
                continue
            if path.suffix.lower() == ".txt" and "/" not in key:
                yield Incoming(raw=order_file_to_mail(data, key, received), key=key, received=received,
                               transport=self.name)
            else:
                yield Incoming(raw=data, key=key, received=received, transport=self.name, file=path)

    def ack(self, incoming: Incoming) -> None:
        """Move the message file to processed/ (a file already gone was acked before)."""
        if self.inbox is None or self.processed is None:
            return
        src = self.inbox / incoming.key
        if not src.exists():
            return
        if self.processed not in self._ack_dirs:      # made once a run, not once a mail
            self.processed.mkdir(parents=True, exist_ok=True)
        base = incoming.key.replace("/", "_").split(":", 1)[0]  # Maildir names carry ':2,S' flags
        dest = self.processed / base
        n = 1
        while dest.exists():
            dest = self.processed / f"{base}.{n}"
            n += 1
        try:
            os.replace(src, dest)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise MailError(f"{self.name}: cannot move {src} to {dest}: {exc}") from exc
        # the renames are made durable once for all the run's acks (sync_acks): one lost by a power
        # loss brings the mail back to a ledger that knows it (acked again, not taken again)
        self._ack_dirs.update((self.processed, src.parent))
        write_point("done", dest)

    def sync_sent(self) -> None:
        """Make the mails sent with durable=False durable, all at once."""
        if self._unsynced_sent and self.outbox is not None:
            files, self._unsynced_sent = self._unsynced_sent, []
            make_durable(files, [self.outbox])

    def sync_acks(self) -> None:
        """Make the acks' renames durable (the intake calls it after its acks)."""
        dirs, self._ack_dirs = self._ack_dirs, set()
        for d in sorted(dirs):
            fsync_dir(d)

    # -- outgoing ---------------------------------------------------------------------------
    resend_safe = True
    """A mail sent again with the same Message-ID is not written twice (the intake may then record
    its replies as sent after a batch of them is durable, pbem.mail.intake)."""

    def send(self, message: Message, *, durable: bool = True) -> None:
        """Write the message as `<outbox>/<timestamp>-<n>-<id>-<slug>.eml` atomically, `<id>` naming
        its Message-ID: a mail sent again after a crash (same Message-ID) is not written twice.
        `durable=False`: without the fsyncs, until `sync_sent` (the intake's replies)."""
        self.send_bytes(None, message, durable=durable)

    def send_bytes(self, data: bytes | None, message: Message, *, durable: bool = True,
                   source: Path | None = None) -> None:
        """`send`, of a mail whose bytes are there already (`data`: a reply file as written; `message`
        its headers, read for the file's name): written as they are. `data` None: `bytes(message)`.
        `source`: a file holding exactly those bytes (the intake's reply file, never rewritten in
        place), given its outbox name by a hard link instead of a copy where the file system has
        them (issue 33: a new file and its bytes less for every reply)."""
        if self.outbox is None:
            raise MailError(f"{self.name}: no outbox configured")
        try:
            ident = _id_tag(str(message.get("Message-ID", "") or ""))
            if ident and ident in self._sent():
                log.info("%s: %s is in the outbox already (sent before a crash)", self.name, message.get("Message-ID"))
                return
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            slug = _slug(str(message.get("Subject", "")))
            tag = f"{ident}-" if ident else ""

            def names():
                while True:
                    self._counter += 1
                    yield f"{stamp}-{self._counter}-{tag}{slug}.eml"

            final = None
            if source is not None:
                if not self._outbox_made:
                    self.outbox.mkdir(parents=True, exist_ok=True)
                    self._outbox_made = True
                try:
                    final = link_new(source, self.outbox, names(), durable=durable, keep=True)
                except FileExistsError:
                    raise
                except OSError:     # no hard links here (or across folders), the file gone: a copy, as below
                    final = None
            if final is None:
                tmp = write_tmp(self.outbox, bytes(message) if data is None else data, durable=durable)
                final = link_new(tmp, self.outbox, names(), durable=durable)
            if not durable:
                self._unsynced_sent.append(final)
            if ident:
                self._sent().add(ident)
        except OSError as exc:
            raise MailError(f"{self.name}: cannot write to {self.outbox}: {exc}") from exc

    def _sent(self) -> set[str]:
        """The Message-ID tags of the mails in the outbox (read once per run)."""
        if self._sent_ids is None:
            assert self.outbox is not None
            names = [p.name for p in self.outbox.iterdir()] if self.outbox.is_dir() else []
            self._sent_ids = {m.group(1) for m in map(_ID_IN_NAME.search, names) if m}
        return self._sent_ids

    def close(self) -> None:
        pass


_ID_IN_NAME = re.compile(r"^\d{8}T\d+Z-\d+-(m[0-9a-f]{16})-")


def _id_tag(message_id: str) -> str:
    """A short tag of a Message-ID for file names ('' without one)."""
    message_id = message_id.strip()
    if not message_id:
        return ""
    return "m" + hashlib.sha256(message_id.encode("utf-8", "replace")).hexdigest()[:16]


def _slug(subject: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:40].strip("-")
    return slug or "mail"


def order_file_to_mail(data: bytes, name: str, received: datetime) -> bytes:
    """An RFC 822 message around a plain order file: From from an optional first `From: x@y` line.

    The file name and time go into headers, so two files with the same orders (say `PASS` in two
    turns) are two messages, while re-reading the same file gives the same bytes (same sha256).
    """
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark (Windows editors)
        data = data[3:]
    body = data
    sender = b""
    first, sep, rest = data.partition(b"\n")
    m = _FROM_LINE.match(first.rstrip(b"\r"))
    if m:
        sender, body = m.group(1).strip(b"<>"), rest
    else:   # `From: Bob <bob@x.org>`, as a mail's From header is written: the address in the brackets
        m = _FROM_NAMED.match(first.rstrip(b"\r"))
        if m:
            sender, body = m.group(1), rest
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = body.decode("latin-1")
    safe_name = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:200]
    headers = [
        b"From: " + re.sub(rb"[^\x21-\x7e]", b"", sender),
        b"Subject: ",
        b"Date: " + format_datetime(received).encode("ascii"),
        b"X-Pbem-Order-File: " + safe_name.encode("ascii"),
        b"MIME-Version: 1.0",
        b"Content-Type: text/plain; charset=utf-8",
        b"Content-Transfer-Encoding: 8bit",
    ]
    return b"\r\n".join(headers) + b"\r\n\r\n" + text.encode("utf-8")
