"""What a game keeps on disk, and the retention policy that trims it (issue 33).

A 16-round game by folder mail leaves about 80 MB, most of it copies: every mail sent (the turn mail
carries its map, the prompt the players' guide) in `outbox/`, and every mail received, with the
replies to it, in the mail archive (`mail/` of the game, or `.mail/` of a shared mailbox). The policy:

- **kept always**: game.yaml, state.yaml, the log (the record replay re-derives), the secret, the turn
  reports in `outbox/reports/<entry>/` (report.txt, report.json, map.png: the site reuses the maps),
  anything still owed (`sending/`) and every mail the intake has not finished with;
- **sent mail** (`outbox/*.eml`, the folder transport's copies) older than `days`: removed
  (`outbox: delete`, the default), gzip-compressed beside (`compress`) or kept (`keep`);
- **received mail and its replies** in the archive, once the intake's ledger says the mail is done
  (replied to), older than `days`: gzip-compressed in place, `<sha>.eml` -> `<sha>.eml.gz` (`mail:
  compress`, the default), or kept (`keep`). Never removed: a received mail is the evidence of what
  a player sent.

The policy lives in games/pbem.yaml (`retention: {days: 30, outbox: delete, mail: compress}`) and is
applied by `pbem prune` (daily from cron); `pbem prune --dry-run` and `pbem status GAME --disk` show
what a game holds. Ages are file modification times against the `now` given (`--now`).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.errors import GameError

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# retention alone, measured): pbem.store.game +130, pbem.mail.ledger +62.

DEFAULTS = {"days": 30.0, "outbox": "delete", "mail": "compress"}
CHOICES = {"outbox": ("keep", "compress", "delete"), "mail": ("keep", "compress")}
DONE = ("replied",)


@dataclass(frozen=True)
class Policy:
    days: float = 30.0
    outbox: str = "delete"
    mail: str = "compress"

    @classmethod
    def from_settings(cls, data: Any) -> Policy:
        """The `retention:` mapping of games/pbem.yaml (missing keys: the defaults)."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise GameError("pbem.yaml: retention: must be a mapping", hint="e.g. {days: 30, outbox: delete}")
        unknown = sorted(set(map(str, data)) - set(DEFAULTS))
        if unknown:
            raise GameError(f"pbem.yaml: retention.{unknown[0]}: unknown key",
                            hint="known keys: " + ", ".join(DEFAULTS))
        days = data.get("days", DEFAULTS["days"])
        if isinstance(days, bool) or not isinstance(days, (int, float)) or days < 0:
            raise GameError(f"pbem.yaml: retention.days: must be a number of days, not {days!r}")
        out = {}
        for key, allowed in CHOICES.items():
            value = str(data.get(key, DEFAULTS[key]))
            if value not in allowed:
                raise GameError(f"pbem.yaml: retention.{key}: {value!r} is not one of: {', '.join(allowed)}")
            out[key] = value
        return cls(float(days), out["outbox"], out["mail"])


@dataclass
class Usage:
    """Bytes and files per part of a game folder."""

    parts: dict[str, list[int]] = field(default_factory=dict)     # part -> [bytes, files]

    def add(self, part: str, size: int) -> None:
        cell = self.parts.setdefault(part, [0, 0])
        cell[0] += size
        cell[1] += 1

    @property
    def total(self) -> int:
        return sum(b for b, _ in self.parts.values())

    def lines(self) -> list[str]:
        width = max((len(p) for p in self.parts), default=4)
        out = [f"  {part.ljust(width)}  {human(b):>9}  {n} file(s)" for part, (b, n) in sorted(self.parts.items())]
        return out + [f"  {'total'.ljust(width)}  {human(self.total):>9}"]


def human(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"   # pragma: no cover


def _part(rel: Path) -> str:
    top = rel.parts[0]
    if top == "outbox":
        if len(rel.parts) > 1 and rel.parts[1] == "reports":
            return "outbox: turn reports and maps"
        return "outbox: sent mail" + (" (compressed)" if rel.name.endswith(".gz") else "")
    if top == "mail":
        kind = "replies" if len(rel.parts) > 2 and rel.parts[1] == "replies" else "received"
        if rel.name.endswith(".eml.gz"):
            return f"mail: {kind} (compressed)"
        return f"mail: {kind}" if rel.name.endswith(".eml") else "mail: ledger and other"
    if top == "log":
        return "log"
    if top == "inbox":
        return "inbox: mail not yet read"
    if top == "sending":
        return "sending: mail owed"
    return "settings, state and other"


def disk_usage(game_dir: Path) -> Usage:
    """What the game folder holds, by part (`pbem status GAME --disk`). A file with two names (a reply
    in the mail archive and its copy in the outbox are one file, hard-linked) counts its bytes once,
    under the first name found in a sorted walk."""
    usage = Usage()
    seen: set[tuple[int, int]] = set()
    for root, dirs, files in os.walk(game_dir):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            try:
                st = path.stat()
            except OSError:
                continue
            first = st.st_nlink < 2 or (st.st_dev, st.st_ino) not in seen
            if st.st_nlink > 1:
                seen.add((st.st_dev, st.st_ino))
            usage.add(_part(path.relative_to(game_dir)), st.st_size if first else 0)
    return usage


@dataclass
class PruneReport:
    removed: list[Path] = field(default_factory=list)
    compressed: list[Path] = field(default_factory=list)
    freed: int = 0

    def line(self, name: str, dry_run: bool) -> str:
        verb = "would free" if dry_run else "freed"
        return (f"{name}: {len(self.removed)} removed, {len(self.compressed)} compressed, "
                f"{verb} {human(self.freed)}")


def _old(path: Path, now: datetime, days: float) -> bool:
    try:
        return now.timestamp() - path.stat().st_mtime >= days * 86400
    except OSError:
        return False


def _compress(path: Path, report: PruneReport, dry_run: bool) -> None:
    """path -> path.gz (written whole and synced before the original goes)."""
    size = path.stat().st_size
    target = path.with_name(path.name + ".gz")
    if dry_run:
        report.compressed.append(path)
        report.freed += size * 3 // 4       # a rough guess: mail compresses about fourfold
        return
    data = gzip.compress(path.read_bytes(), mtime=0)
    tmp = target.with_name("." + target.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    os.utime(target, (path.stat().st_atime, path.stat().st_mtime))
    path.unlink()
    report.compressed.append(path)
    report.freed += max(size - len(data), 0)


def prune_outbox(outbox: Path, policy: Policy, now: datetime, report: PruneReport, dry_run: bool) -> None:
    if policy.outbox == "keep" or not outbox.is_dir():
        return
    for path in sorted(outbox.glob("*.eml")):     # the top level only: reports/ stay
        if not path.is_file() or not _old(path, now, policy.days):
            continue
        if policy.outbox == "compress":
            _compress(path, report, dry_run)
        else:
            report.freed += path.stat().st_size
            report.removed.append(path)
            if not dry_run:
                path.unlink()


def prune_mail_archive(archive: Path, policy: Policy, now: datetime, report: PruneReport, dry_run: bool) -> None:
    """Compress the received mails the intake's ledger says are done (replied to), and their replies;
    under the ledger's lock, so no intake run works on the archive meanwhile."""
    from pbem.mail.ledger import Ledger

    ledger_path = archive / "ledger.jsonl"
    if policy.mail == "keep" or not ledger_path.is_file():
        return
    with Ledger(ledger_path) as ledger:
        done = {sha for sha, e in ledger.entries.items() if e.state in DONE}
        candidates: Iterable[Path] = list(archive.glob("*.eml")) + list((archive / "replies").glob("*.eml"))
        for path in sorted(candidates):
            sha = path.name.split(".", 1)[0]
            if sha in done and _old(path, now, policy.days):
                _compress(path, report, dry_run)


def prune_game(game_dir: Path, policy: Policy, now: datetime, *, dry_run: bool = False) -> PruneReport:
    """Apply the policy to one game folder (its outbox and its own mail archive)."""
    report = PruneReport()
    from pbem.store.game import Game

    game = Game.open(game_dir, editable=False)
    outbox = game_dir / str((game.settings.get("mail") or {}).get("outbox", "outbox"))
    with game.lock():
        prune_outbox(outbox, policy, now, report, dry_run)
        prune_mail_archive(game_dir / "mail", policy, now, report, dry_run)
    return report
