"""Games with nothing to do: how `pbem run` (cron, every few minutes) skips them in a few stat calls.

A game that waits for orders stays as it is until one of three things happens: a mail arrives in its
inbox, something changes in the game folder (a log entry, the state, game.yaml, a notice sent), or the
clock reaches the next reminder or deadline. After a run that found nothing to do in a game, the job
writes an idle note, GAMES_DIR/.pbem-idle/<id>.json: the stat of every file and folder that would
change in the first two cases (a fingerprint), the time of the third (`until`), and what the game
waits for. The next run compares the fingerprint and the clock and, when both say nothing can have
happened, reports the game as waiting without opening it (no YAML, no engine, no mail code).

With folder mail (the default, games/<id>/inbox) the inbox folders are part of the fingerprint. With
the site's mailbox (GAMES_DIR/pbem.yaml `mail:`, IMAP or a shared folder) the job polls that mailbox
once per run, before any game is opened, and routes its mail by the GAME line or subject tag; a game
it routed mail to is opened, the others are judged by their notes as above (issue 33). A note says
which of the two it was written for, and holds only for that one. A note from another pbem version
is ignored.
The folder also keeps the site's settings (GAMES_DIR/pbem.yaml) as read, as JSON (site-config.json),
with the file's stat: while the file is unchanged an idle run reads them from there and never loads
the YAML library (read_site, write_site).
Deleting .pbem-idle/ is always safe: the next run opens every game again and reads pbem.yaml again.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from pbem import __version__
from pbem.store.fs import stat_key

IDLE_DIR = ".pbem-idle"
FOLDERS = "folders"     # the game's own mail folders (fingerprinted)
SHARED = "shared"       # the site's mailbox, polled once per run by the job
FAR = "9999-12-31T23:59:59+00:00"
# files and folders of a game whose change means work may be waiting (names in the game folder)
# (sending/: mails a killed run decided on and did not send, pbem.service.outgoing)
WATCHED = ("game.yaml", "state.yaml", "notices.json", "secret", "log", "mail", "mail/ledger.jsonl", "sending", ".")


def note_path(games_dir: Path, game_id: str) -> Path:
    return games_dir / IDLE_DIR / f"{game_id}.json"


def fingerprint(game_dir: Path | str, inboxes: list[Path] | list[str]) -> dict[str, Any]:
    """The stat of the watched files and of the inbox folders (and their Maildir new/ and cur/).
    Paths joined as strings (a thousand games a run: pathlib's joins cost more than the stats)."""
    base = os.fspath(game_dir) + os.sep
    fp: dict[str, Any] = {name: stat_key(base + name) for name in WATCHED}
    for inbox in map(os.fspath, inboxes):
        fp[f"inbox:{inbox}"] = stat_key(inbox)
        for sub in ("new", "cur"):
            p = inbox + os.sep + sub
            fp[f"inbox:{p}"] = stat_key(p)
    return fp


def read_note(games_dir: Path, game_dir: Path, now: datetime, *, mode: str = FOLDERS) -> dict[str, Any] | None:
    """The idle note of a game when it still holds (written for this `mode` of mail, nothing changed,
    `until` not reached), else None."""
    note = _read_kept(os.path.join(games_dir, IDLE_DIR, f"{os.path.basename(game_dir)}.json"))   # note_path
    if note is None or note.get("mail", FOLDERS) != mode:
        return None
    try:
        until = datetime.fromisoformat(str(note["until"]))
        inboxes = [os.fspath(Path(p)) for p in note["inboxes"]]
    except (KeyError, TypeError, ValueError):
        return None
    if until.tzinfo is None or now >= until:
        return None
    if note.get("fingerprint") != fingerprint(game_dir, inboxes):
        return None
    return note


def write_note(games_dir: Path, game_dir: Path, inboxes: list[Path], until: datetime | None,
               waiting_for: list[str], note: str, *, mode: str = FOLDERS) -> None:
    """Remember that the game has nothing to do until `until` (None: until something changes)."""
    data = {"pbem": __version__, "mail": mode, "until": until.isoformat() if until else FAR,
            "inboxes": [str(p) for p in inboxes], "fingerprint": fingerprint(game_dir, inboxes),
            "waiting_for": list(waiting_for), "note": note}
    _keep(note_path(games_dir, game_dir.name), json.dumps(data, indent=1))


def _read_kept(path: str) -> dict[str, Any] | None:
    """A note or copy of the idle folder, when it is a mapping written by this pbem version."""
    try:
        with open(path, "rb") as fh:
            kept = orjson.loads(fh.read())
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and kept.get("pbem") == __version__ else None


def _keep(path: Path, text: str) -> None:
    """Write a note or copy of the idle folder (replaced whole; only a cache: no fsync needed, a lost
    one costs one full look)."""
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".tmp-{path.name}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


SITE_COPY = "site-config.json"


def read_site(games_dir: Path, path: Path) -> dict[str, Any] | None:
    """The site's settings (pbem.yaml at `path`) as last read, when the file is unchanged since (its
    stat_key) and they were read by this pbem version; else None."""
    kept = _read_kept(os.path.join(games_dir, IDLE_DIR, SITE_COPY))
    if kept is None or kept.get("stat") != stat_key(path) or not isinstance(kept.get("settings"), dict):
        return None
    return kept["settings"]


def write_site(games_dir: Path, path: Path, settings: dict[str, Any]) -> None:
    """Keep the settings read from `path` for read_site, when JSON holds them exactly (YAML may also
    give dates and other values JSON has not; those are read as YAML every run)."""
    stat = stat_key(path)
    try:
        text = json.dumps({"pbem": __version__, "stat": stat, "settings": settings}, allow_nan=False)
        if stat is None or json.loads(text)["settings"] != settings:
            return
    except (TypeError, ValueError):
        return
    _keep(games_dir / IDLE_DIR / SITE_COPY, text)


def drop_note(games_dir: Path, game_id: str) -> None:
    try:
        note_path(games_dir, game_id).unlink()
    except OSError:
        pass
