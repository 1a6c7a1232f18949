"""The transport interface (issue 9): where mail comes from and where replies go.

Incoming transports: `fetch() -> list[Incoming]` returns every message not yet acknowledged, and
`ack(incoming)` marks one as processed (IMAP: move to a folder or flag it; folder: move the file to
`processed/`). Both may be called again for the same message: ack is idempotent, and the intake
dedupes what fetch returns twice. Outgoing transports: `send(message)`.

`make_transports(config, base_dir)` builds them from settings such as
`{"type": "folder", "inbox": "inbox", "outbox": "outbox"}`, `{"type": "imap", ...}` or
`{"type": "smtp", ...}` (a single dict or a list of them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.message import Message
from pathlib import Path
from typing import Protocol, runtime_checkable

from pbem.errors import MailError
from pbem.records import record


class PermanentMailError(MailError):
    """Sending failed for good (SMTP 5xx): retrying the same message will not help."""


@record
class Incoming:
    """One fetched message: its raw bytes and how to find it again at its transport."""

    raw: bytes = field(repr=False)
    key: str
    """stable id within the transport: '<uidvalidity>:<uid>' for IMAP, the file name for folders."""
    received: datetime
    """when the transport got it (IMAP INTERNALDATE, file mtime), timezone-aware UTC."""
    transport: str
    """name of the transport that fetched it (to route `ack` back)."""
    path: Path | None = None
    """a big message left in its file (raw is then empty): the intake copies it from there in
    chunks, so it is never in memory whole (issue 33)."""
    file: Path | None = None
    """the file `raw` was read from, byte for byte (a mail folder's message file, never rewritten in
    place): the intake's archive may take it by a hard link instead of a copy (issue 33)."""


@runtime_checkable
class IncomingTransport(Protocol):
    name: str

    def fetch(self) -> list[Incoming]:
        """Every message not acknowledged yet, oldest `received` first."""
        ...

    def ack(self, incoming: Incoming) -> None:
        """Mark a message processed so fetch no longer returns it (idempotent)."""
        ...


@runtime_checkable
class OutgoingTransport(Protocol):
    name: str

    def send(self, message: Message) -> None:
        """Deliver (or hand over) one message (an EmailMessage, or a compat32 Message read back from
        disk); raise MailError when that failed, PermanentMailError when retrying cannot help."""
        ...


@dataclass
class Transports:
    """What make_transports built: the incoming transports, and the one outgoing transport (or None)."""

    incoming: list[IncomingTransport]
    outgoing: OutgoingTransport | None

    def close(self) -> None:
        for t in [*self.incoming, self.outgoing]:
            close = getattr(t, "close", None)
            if close is not None:
                close()


def make_transports(config: Mapping | Sequence[Mapping], base_dir: Path) -> Transports:
    """Build transports from settings; relative paths are taken from `base_dir`.

    Types: folder (incoming and, unless `outbox: null`, outgoing), maildir (alias of folder), imap
    (incoming), smtp (outgoing). At most one outgoing transport may be configured.
    """
    items = [config] if isinstance(config, Mapping) else list(config)
    base_dir = Path(base_dir)
    incoming: list[IncomingTransport] = []
    outgoing: list[OutgoingTransport] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise MailError(f"mail transport #{i + 1}: expected a mapping, got {type(item).__name__}")
        kind = str(item.get("type", "folder")).lower()
        if kind in ("folder", "maildir"):
            from pbem.mail.folder import FolderTransport

            outbox = item.get("outbox", "outbox")
            t = FolderTransport(
                _path(base_dir, item.get("inbox", "inbox")),
                _path(base_dir, outbox) if outbox else None,
                processed_dir=_path(base_dir, item["processed"]) if item.get("processed") else None,
                name=str(item.get("name") or f"folder:{item.get('inbox', 'inbox')}"),
            )
            incoming.append(t)
            if outbox:
                outgoing.append(t)
        elif kind == "imap":
            from pbem.mail.imap import ImapTransport

            incoming.append(ImapTransport.from_config(item, base_dir))
        elif kind == "smtp":
            from pbem.mail.smtp import SmtpTransport

            outgoing.append(SmtpTransport.from_config(item))
        else:
            raise MailError(f"mail transport #{i + 1}: unknown type {kind!r}", hint="use folder, imap or smtp")
    names = [t.name for t in incoming]
    if len(set(names)) != len(names):
        raise MailError("two incoming mail transports have the same name", hint="give each a `name`")
    if len(outgoing) > 1:
        raise MailError(
            "more than one outgoing mail transport configured",
            hint="set `outbox: null` on the folder transport when replies go out by SMTP",
        )
    return Transports(incoming, outgoing[0] if outgoing else None)


def _path(base_dir: Path, value) -> Path:
    p = Path(os.path.expanduser(str(value)))
    return p if p.is_absolute() else base_dir / p


def secret(config: Mapping, env_default: str) -> str | None:
    """A password from the settings (`password`) or the environment (`password_env`, else env_default)."""
    if config.get("password") is not None:
        return str(config["password"])
    return os.environ.get(str(config.get("password_env") or env_default))
