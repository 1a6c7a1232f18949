"""ImapTransport: incoming mail from an IMAP folder, via imapclient (issue 9).

Fetches with BODY.PEEK[] (nothing is marked read by fetching), ordered by INTERNALDATE (when the
server got the mail, not the sender's Date header). `ack` moves a message to `processed_folder`,
or, without one, flags it `\\Seen` plus the keyword `$PbemProcessed`. A checkpoint file keeps the
folder's UIDVALIDITY and the highest UID below which everything was acknowledged, so old mail is
not fetched again; when UIDVALIDITY changes the checkpoint is dropped and the folder re-read (the
intake's ledger then recognises the messages it already handled by their content hash).
"""

from __future__ import annotations

import imaplib
import json
import logging
import ssl
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime
from pathlib import Path

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from pbem.errors import MailError
from pbem.mail._fs import atomic_write
from pbem.mail.transport import Incoming, secret

log = logging.getLogger("pbem.mail")

KEYWORD = "$PbemProcessed"
_BATCH = 50
BATCH_BYTES = 8 * 1024 * 1024
"""Bodies fetched in one command at most (a bigger message comes alone)."""
_ERRORS = (IMAPClientError, imaplib.IMAP4.error, OSError)  # OSError covers timeouts and TLS errors


class ImapTransport:
    """One IMAP folder. Connects lazily, keeps the connection until `close()`."""

    def __init__(
        self,
        host: str,
        *,
        port: int | None = None,
        security: str = "ssl",
        username: str = "",
        password: str | None = None,
        folder: str = "INBOX",
        processed_folder: str | None = None,
        checkpoint: Path | None = None,
        timeout: float = 60.0,
        ssl_context: ssl.SSLContext | None = None,
        name: str | None = None,
        since: date | None = None,
    ) -> None:
        if security not in ("ssl", "starttls", "none"):
            raise MailError(f"imap: unknown security {security!r}", hint="use ssl, starttls or none")
        self.host = host
        self.security = security
        self.port = port or (993 if security == "ssl" else 143)
        self.username = username
        self.password = password
        self.folder = folder
        self.processed_folder = processed_folder
        self.checkpoint = Path(checkpoint) if checkpoint else None
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.name = name or f"imap:{username}@{host}/{folder}"
        self.since = since
        self._client: IMAPClient | None = None
        self._selected: IMAPClient | None = None  # the connection on which `folder` is selected
        self._uidvalidity: int | None = None
        self._pending: set[int] = set()
        self._max_seen = 0

    @classmethod
    def from_config(cls, config: Mapping, base_dir: Path) -> ImapTransport:
        """From settings: host, port, security (ssl|starttls|none; or ssl/starttls booleans),
        username, password or password_env (default PBEM_IMAP_PASSWORD), folder, processed_folder,
        checkpoint (file, default `.imap-<username>-<folder>.json` in base_dir), timeout, name,
        since (YYYY-MM-DD: ignore older mail, so that a first run on an old mailbox does not answer
        every mail in it; better still, give the game its own mailbox or folder)."""
        if not config.get("host"):
            raise MailError("imap transport: `host` is missing")
        security = config.get("security")
        if security is None:
            security = "ssl" if config.get("ssl", not config.get("starttls")) else (
                "starttls" if config.get("starttls") else "none")
        user = str(config.get("username", ""))
        folder = str(config.get("folder", "INBOX"))
        cp = config.get("checkpoint")
        if cp:
            cp_path = Path(cp) if Path(cp).is_absolute() else Path(base_dir) / cp
        else:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{user}-{folder}")
            cp_path = Path(base_dir) / f".imap-{safe}.json"
        return cls(
            str(config["host"]), port=int(config["port"]) if config.get("port") else None,
            security=str(security), username=user, password=secret(config, "PBEM_IMAP_PASSWORD"),
            folder=folder, processed_folder=config.get("processed_folder"), checkpoint=cp_path,
            timeout=float(config.get("timeout", 60)), name=config.get("name"),
            since=_date(config.get("since")),
        )

    # -- connection -------------------------------------------------------------------------
    def _connect(self) -> IMAPClient:
        if self._client is not None:
            return self._client
        try:
            client = IMAPClient(
                self.host, port=self.port, ssl=self.security == "ssl",
                ssl_context=self.ssl_context, timeout=self.timeout,
            )
            if self.security == "starttls":
                client.starttls(self.ssl_context or ssl.create_default_context())
            if self.username:
                client.login(self.username, self.password or "")
            client.normalise_times = False
        except _ERRORS as exc:
            raise MailError(f"{self.name}: cannot connect or log in: {exc}") from exc
        self._client = client
        return client

    def close(self) -> None:
        """Log out (errors ignored)."""
        client, self._client, self._selected = self._client, None, None
        if client is not None:
            try:
                client.logout()
            except Exception:
                pass

    def _drop(self) -> None:
        client, self._client, self._selected = self._client, None, None
        if client is not None:
            try:
                client.shutdown()
            except Exception:
                pass

    # -- checkpoint ---------------------------------------------------------------------------
    def _load_checkpoint(self) -> tuple[int | None, int]:
        if self.checkpoint is None or not self.checkpoint.exists():
            return None, 0
        try:
            data = json.loads(self.checkpoint.read_text())
            return int(data["uidvalidity"]), int(data["last_uid"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s: ignoring damaged checkpoint %s: %s", self.name, self.checkpoint, exc)
            return None, 0

    def _save_checkpoint(self, last_uid: int) -> None:
        if self.checkpoint is None or self._uidvalidity is None:
            return
        data = {"uidvalidity": self._uidvalidity, "last_uid": last_uid, "folder": self.folder}
        atomic_write(self.checkpoint, (json.dumps(data) + "\n").encode())

    # -- incoming -----------------------------------------------------------------------------
    def fetch(self) -> list[Incoming]:
        """Messages after the checkpoint not yet acknowledged, oldest INTERNALDATE first."""
        return list(self.fetch_each())

    def fetch_each(self) -> Iterator[Incoming]:
        """As fetch(), one message at a time: the dates and sizes of all come first (one command),
        then the bodies in batches of at most _BATCH messages and BATCH_BYTES (a big message alone),
        so the intake holds about one batch in memory whatever the mail sizes (issue 33)."""
        client = self._connect()
        try:
            info = client.select_folder(self.folder)
            uidvalidity = int(info[b"UIDVALIDITY"])
            saved_validity, last_uid = self._load_checkpoint()
            if saved_validity is not None and saved_validity != uidvalidity:
                log.warning("%s: UIDVALIDITY changed (%s -> %s): reading the whole folder again",
                            self.name, saved_validity, uidvalidity)
                last_uid = 0
            self._uidvalidity = uidvalidity
            self._selected = client
            criteria: list = ["UID", f"{last_uid + 1}:*", "UNDELETED"]
            if not self.processed_folder:
                criteria += ["UNKEYWORD", KEYWORD]
            if self.since:
                criteria += ["SINCE", self.since]
            uids = sorted(u for u in client.search(criteria) if u > last_uid)
            listed: list[tuple[datetime, int, int]] = []
            for i in range(0, len(uids), _BATCH * 20):
                for uid, data in client.fetch(uids[i:i + _BATCH * 20], ["INTERNALDATE", "RFC822.SIZE"]).items():
                    listed.append((_utc(data.get(b"INTERNALDATE")), uid, int(data.get(b"RFC822.SIZE") or 0)))
        except _ERRORS as exc:
            self._drop()
            raise MailError(f"{self.name}: fetch failed: {exc}") from exc
        listed.sort()
        self._pending = {uid for _, uid, _ in listed}
        self._max_seen = max([last_uid, *self._pending])
        if saved_validity != uidvalidity:
            self._save_checkpoint(self._checkpoint_uid())
        batch: list[tuple[datetime, int, int]] = []
        for n, item in enumerate(listed):
            batch.append(item)
            if n + 1 < len(listed) and len(batch) < _BATCH and sum(b[2] for b in batch) + listed[n + 1][2] <= BATCH_BYTES:
                continue
            try:
                bodies = client.fetch([uid for _, uid, _ in batch], ["BODY.PEEK[]"])
            except _ERRORS as exc:
                self._drop()
                raise MailError(f"{self.name}: fetch failed: {exc}") from exc
            for received, uid, _size in batch:
                raw = bodies.pop(uid, {}).get(b"BODY[]")
                if raw is None:
                    self._pending.discard(uid)
                    continue
                yield Incoming(raw=bytes(raw), key=f"{uidvalidity}:{uid}", received=received, transport=self.name)
                del raw
            batch, bodies = [], {}

    def _checkpoint_uid(self) -> int:
        return min(self._pending) - 1 if self._pending else self._max_seen

    def ack(self, incoming: Incoming) -> None:
        """Move (or flag) the message, then advance the checkpoint over everything acknowledged."""
        validity, _, uid_text = incoming.key.partition(":")
        uid = int(uid_text)
        client = self._connect()
        try:
            # UIDVALIDITY cannot change while the folder stays selected on this connection, so the
            # select of fetch() holds; after a reconnect, select (and check) again.
            if self._selected is not client:
                current = int(client.select_folder(self.folder)[b"UIDVALIDITY"])
                self._selected, self._uidvalidity = client, current
            if self._uidvalidity != int(validity):
                log.warning("%s: not acking %s: UIDVALIDITY is now %s", self.name, incoming.key,
                            self._uidvalidity)
                return
            try:
                client.add_flags([uid], [b"\\Seen", KEYWORD.encode()])
            except IMAPClientError:
                client.add_flags([uid], [b"\\Seen"])  # server without keywords
            if self.processed_folder:
                self._move(client, uid)
        except _ERRORS as exc:
            self._drop()
            raise MailError(f"{self.name}: ack of {incoming.key} failed: {exc}") from exc
        self._pending.discard(uid)
        self._max_seen = max(self._max_seen, uid)
        self._save_checkpoint(self._checkpoint_uid())

    def _move(self, client: IMAPClient, uid: int) -> None:
        assert self.processed_folder
        if not client.folder_exists(self.processed_folder):
            try:
                client.create_folder(self.processed_folder)
            except IMAPClientError:
                if not client.folder_exists(self.processed_folder):
                    raise
        if client.has_capability("MOVE"):
            client.move([uid], self.processed_folder)
        else:
            client.copy([uid], self.processed_folder)
            client.delete_messages([uid])
            if client.has_capability("UIDPLUS"):
                client.uid_expunge([uid])
            else:
                client.expunge()


def _utc(value) -> datetime:
    if not isinstance(value, datetime):
        return datetime.now(UTC)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _date(value) -> date | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise MailError(f"imap transport: since: {value!r} is not a date (YYYY-MM-DD)") from exc
