"""A game's own mail (turn mails, prompts, reminders, decision prompts, game over), exactly once
across crashes (issue 18).

Every such mail has a key naming what it is (`turn:17`, `prompt:r3:saxons:alice`). Before it is
handed to the transport, the composed mail is written to `games/<id>/sending/<key>.eml` (the intent);
after it, the key is recorded in notices.json (the completion) and the intent removed. A run killed in
between leaves the intent behind, and the next run sends exactly those bytes (same Message-ID, derived
from the key) before doing anything else. A transport that already took the mail recognises it by its
Message-ID (the folder transport does not write it twice; a mail program shows one message).
"""

from __future__ import annotations

import email
import hashlib
import logging
from collections.abc import Callable
from datetime import datetime
from email import policy
from email.message import EmailMessage, Message
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import quote, unquote

from pbem.mail.transport import PermanentMailError
from pbem.store.clock import already_sent, mark_sent
from pbem.store.fs import TEMP_PREFIX, atomic_write
from pbem.store.game import Game
from pbem.store.loghash import log_end

log = logging.getLogger("pbem.run")
PENDING = "sending"

Send = Callable[[Message], None]


def log_line(game: Game, language: str = "en") -> str:
    """The log's end as this mail leaves (pbem.store.loghash), the last lines of every game mail (issue 27
    item 5): whoever keeps any mail of the game can later see that the log was cut short or changed
    after it (`pbem replay --log-hash N:H`)."""
    n, h = log_end(game)
    from pbem.i18n import _, tr

    return "\n" + tr(language, _("Log: entry %(n)s, running hash %(hash)s\n(check it later: pbem replay %(game)s "
                                 "--log-hash %(n)s:%(hash)s)"), n=n, hash=h, game=game.id) + "\n"


def message_id(game: Game, key: str, from_addr: str) -> str:
    """The Message-ID of the game's mail `key`: the same on every run (so a resend is recognisable)."""
    domain = from_addr.rpartition("@")[2].strip(" <>") or "pbem.invalid"
    digest = hashlib.sha256(f"{game.id}\0{key}".encode()).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def _path(game: Game, key: str) -> Path:
    return game.path / PENDING / f"{quote(key, safe='')}.eml"


def _load(path: Path) -> Message:
    # compat32 writes the stored bytes back out unchanged
    return email.message_from_bytes(path.read_bytes(), policy=policy.compat32)


def send_once(game: Game, key: str, build: Callable[[], EmailMessage], send: Send, now: datetime) -> bool:
    """Send the mail `build()` makes unless `key` was sent before; True when it was sent now."""
    path = _path(game, key)
    if already_sent(game, key):
        path.unlink(missing_ok=True)
        return False
    if not path.exists():
        msg = build()
        for name, value in (("Message-ID", message_id(game, key, str(msg.get("From", "")))),
                            ("Date", format_datetime(now))):
            del msg[name]
            msg[name] = value
        atomic_write(path, bytes(msg), mode=0o600)   # the intent (it may quote tokens: not world-readable)
    _deliver(game, key, _load(path), send)
    mark_sent(game, key, now)                         # the completion
    path.unlink(missing_ok=True)
    return True


def _deliver(game: Game, key: str, msg: Message, send: Send) -> None:
    """Hand the mail to the transport. A transport failure (MailError: nobody took it) propagates and
    the mail stays owed; a refusal for good of some of its addresses (PermanentMailError: the others
    have it) is logged, and the mail counts as sent."""
    try:
        send(msg)
    except PermanentMailError as e:
        log.warning("game %s: %s: %s", game.id, key, e)


def finish_pending(game: Game, send: Send, now: datetime) -> int:
    """Send the mails a killed run had decided on but not recorded as sent; returns how many."""
    folder = game.path / PENDING
    if not folder.is_dir():
        return 0
    n = 0
    for path in sorted(folder.glob("*.eml")):
        if path.name.startswith(TEMP_PREFIX):   # half-written: the run died before the intent existed
            path.unlink(missing_ok=True)
            continue
        key = unquote(path.name[:-len(".eml")])
        if already_sent(game, key):
            path.unlink(missing_ok=True)
            continue
        log.info("game %s: sending %s, decided before a crash", game.id, key)
        _deliver(game, key, _load(path), send)
        mark_sent(game, key, now)
        path.unlink(missing_ok=True)
        n += 1
    return n
