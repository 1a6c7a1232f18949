"""One game's fault never stops the others, and its moderator hears of it once (issue 18).

A fault is anything that keeps `pbem run` from working on a game: a damaged file (log entry,
notices.json, game.yaml), a folder it cannot write (read-only, disk full), an unexpected error. The
job catches it per game, goes on with the other games, and records it in GAMES_DIR/.pbem-faults.json;
the moderator gets one mail per fault (not one per cron run). Player mail for a faulty game is not
answered and not used: it waits in the mailbox (the intake defers it) and is taken on the first run
after the moderator has repaired the game. A run that gets through the game clears its fault.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime
from email.message import Message
from pathlib import Path

from pbem.store.fs import atomic_write

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# faults alone, measured): pbem.store.game +96, pbem.mail.compose +25, pbem.errors +9.

log = logging.getLogger("pbem.run")
FAULTS = ".pbem-faults.json"


def describe(exc: BaseException) -> str:
    """The fault in one line (the type for errors that are not pbem's own)."""
    from pbem.errors import PbemError

    text = str(exc).strip() or type(exc).__name__
    return text if isinstance(exc, PbemError) else f"{type(exc).__name__}: {text}"


def _read(games_dir: Path) -> dict[str, dict]:
    try:
        data = json.loads((games_dir / FAULTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(games_dir: Path, data: dict[str, dict]) -> None:
    try:
        atomic_write(games_dir / FAULTS, json.dumps(data, indent=1, sort_keys=True) + "\n")
    except OSError as e:   # the games folder itself is read-only: the job's errors still say it
        log.error("cannot record faults in %s: %s", games_dir / FAULTS, e)


def current(games_dir: Path) -> dict[str, dict]:
    """{game id: {"fault": text, "since": time, "told": bool}}"""
    return _read(games_dir)


def report_fault(games_dir: Path, game_id: str, fault: str, now: datetime, *,
                 tell: Callable[[str, str], bool] | None = None) -> bool:
    """Record `fault` for the game; the first time (per distinct fault) `tell(subject, text)` mails
    the moderator (it returns whether the mail went out). Returns True when the moderator was told now."""
    data = _read(games_dir)
    old = data.get(game_id) or {}
    if old.get("fault") == fault and old.get("told"):
        return False
    told = False
    if tell is not None:
        text = (f"pbem cannot work on game {game_id}:\n\n  {fault}\n\nThe other games go on. Player mail for "
                f"{game_id} is kept, unanswered, and will be read on the first run after the game is repaired.\n"
                f"`pbem replay {game_id}` shows whether the log is intact.\n")
        try:
            told = bool(tell(f"[{game_id}] pbem cannot work on this game", text))
        except Exception as e:  # noqa: BLE001 - telling must not become a second fault
            log.error("game %s: cannot mail the moderator about its fault: %s", game_id, e)
    data[game_id] = {"fault": fault, "since": old.get("since") if old.get("fault") == fault else now.isoformat(),
                     "told": told}
    _write(games_dir, data)
    return told


def clear_fault(games_dir: Path, game_id: str) -> None:
    data = _read(games_dir)
    if game_id in data:
        del data[game_id]
        _write(games_dir, data)


def moderator_teller(game_dir: Path, send: Callable[[Message], None] | None, from_addr: str) -> Callable[[str, str], bool]:
    """A `tell` for report_fault: a mail to the moderator address of game.yaml, if it can be read."""
    def tell(subject: str, text: str) -> bool:
        from pbem.mail.compose import build_mail
        from pbem.store.game import Game

        if send is None:
            return False
        try:
            address = (Game.open(game_dir).settings.get("moderator") or {}).get("address")
        except Exception:  # noqa: BLE001 - game.yaml may be the fault
            return False
        if not address:
            return False
        send(build_mail(str(address), subject, text, from_addr=from_addr, auto_submitted="auto-generated"))
        return True

    return tell
