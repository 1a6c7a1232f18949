"""`pbem run [GAMES_DIR]` — the job a moderator runs from cron (issue 11).

1. Poll every mailbox once. A mailbox is the site's (GAMES_DIR/pbem.yaml `mail:` list: IMAP in, SMTP
   out, serving every game) or, by default, each game's own folders (games/<id>/inbox and outbox: the
   embedded default, no mail server needed). Every mail is stored, routed, authenticated and answered
   by the intake (pbem.mail.intake) with pbem.service.inbox.OrdersHandler.
2. Move every game along as far as it can go (pbem.service.advance).

Safe to run concurrently (each game and each mailbox has its own lock; a busy one is skipped) and
after a crash (the intake's ledger and the append-only game log make every step idempotent).

A game found with nothing to do is noted as idle (pbem.service.idle); the next run skips it in a few
stat calls while nothing changed. The mail, store and engine modules are imported only when some
game has work, so an idle run over many games stays cheap.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import GameBusy, GameError, MailError, PbemError
from pbem.mail.directory import GamesDirDirectory
from pbem.service import idle
from pbem.service.gamerun import GameRun
from pbem.store.fs import clean_stale_temp_files

if TYPE_CHECKING:
    from pbem.mail.intake import Intake, RunReport

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# job alone, measured): pbem.site.build +217, pbem.service.advance +209, pbem.service.inbox +206,
# pbem.store.clock +115, pbem.store.game +108, pbem.mail.intake +78, ruamel.yaml +39, pbem.mail.folder +35,
# pbem.mail.transport +27, pbem.service.faults +27, pbem.rules.flow +23, pbem.site.fresh +7.

log = logging.getLogger("pbem.run")
SITE = "pbem.yaml"


@dataclass
class JobReport:
    mails_in: int = 0
    replies: int = 0
    games: list[GameRun] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"mail: {self.mails_in} taken, {self.replies} answered"]
        for g in self.games:
            head = f"{g.game}: " + ("; ".join(g.steps) if g.steps else (g.note or "nothing to do"))
            if g.waiting_for:
                head += f" (waiting for {', '.join(g.waiting_for)})"
            out.append(head)
        out += [f"error: {e}" for e in self.errors]
        return out


def game_dirs(games_dir: Path) -> list[Path]:
    """The game folders (those with a game.yaml), by name; listed with scandir and tested by string
    paths (a thousand games a run: pathlib's joins cost more than the stats)."""
    if not games_dir.is_dir():
        raise GameError(f"no games folder {games_dir}")
    with os.scandir(games_dir) as entries:
        names = sorted(e.name for e in entries if os.path.isfile(os.path.join(e.path, "game.yaml")))
    return [games_dir / name for name in names]


def site_config(games_dir: Path) -> dict[str, Any]:
    """GAMES_DIR/pbem.yaml, read as YAML once and then from the idle folder's copy while the file is
    unchanged (pbem.service.idle.read_site: an idle run need not load the YAML library)."""
    path = games_dir / SITE
    if not path.is_file():
        return {}
    kept = idle.read_site(games_dir, path)
    if kept is not None:
        return kept
    data = _read_site_yaml(path)
    idle.write_site(games_dir, path, data)
    return data


def _read_site_yaml(path: Path) -> dict[str, Any]:
    from ruamel.yaml import YAML

    try:
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
    except Exception as e:  # noqa: BLE001 - any YAML problem is the moderator's to fix
        raise GameError(f"{path}: cannot read: {e}") from e
    if not isinstance(data, dict):
        raise GameError(f"{path}: must be a mapping")
    return data


def _game_mail_config(game) -> list[dict]:
    mail = dict(game.settings.get("mail") or {})
    kind = mail.pop("transport", None) or mail.pop("type", "folder")
    return [{"type": kind, **mail}]


def run_job(games_dir: Path | str, *, now: datetime | None = None, only: list[str] | None = None,
            render_map: bool = True) -> JobReport:
    games_dir = Path(games_dir)
    now = now or datetime.now(UTC)
    report = JobReport()
    dirs = [d for d in game_dirs(games_dir) if not only or d.name in only]
    site = site_config(games_dir)
    order = {d.name: i for i, d in enumerate(dirs)}
    listed = dirs
    shared = None
    try:
        if site.get("mail"):    # the site's mailbox: polled once, before any game is opened
            shared = _poll_shared(games_dir, site, now, report)
        if shared is None or shared.ok:
            # idle games are known without opening them; a game the mailbox routed mail to has work
            dirs = _skip_idle(games_dir, dirs, now, report, shared=shared)
        if dirs:
            _work(games_dir, dirs, site, now, render_map, report, shared)
    finally:
        if shared is not None:
            shared.close()
    if site.get("site_dir"):
        _refresh_site(games_dir, site, only, render_map, report, listed)
    report.games.sort(key=lambda g: order.get(g.game, len(order)))
    return report


@dataclass
class _SharedMailbox:
    """The site's mailbox (pbem.yaml `mail:`) after this run's one poll: its transports (kept open
    to send the turn mails) and the games it routed mail to (those are opened; the others may be
    skipped on their idle notes, as with folder mail)."""

    transports: Any
    handler: Any
    ok: bool = True                       # polled; False: the poll itself failed (every game opened)
    games: set[str] = field(default_factory=set)

    def close(self) -> None:
        self.transports.close()


def _poll_shared(games_dir: Path, site: dict[str, Any], now: datetime, report: JobReport) -> _SharedMailbox:
    from pbem.mail.intake import Intake
    from pbem.mail.transport import make_transports

    clean_stale_temp_files(games_dir / ".mail")
    transports = make_transports(site["mail"], games_dir)
    handler = _LazyOrders(games_dir, now)
    shared = _SharedMailbox(transports, handler)
    intake = Intake(transports.incoming, transports.outgoing, GamesDirDirectory(games_dir), handler,
                    archive_dir=games_dir / ".mail", from_addr=str(site.get("from") or "pbem@localhost"), now=now)
    r = _poll(intake, report)
    if r is None:
        shared.ok = False     # the intake itself failed: no game is skipped on its note
    else:
        shared.games = set(r.games)
    return shared


class _LazyOrders:
    """pbem.service.inbox.OrdersHandler, imported (with the engine) only when a mail reaches a game."""

    def __init__(self, games_dir: Path, now: datetime) -> None:
        self.games_dir, self.now = games_dir, now
        self.faults: dict[str, str] = {}
        self._real: Any = None

    def _handler(self) -> Any:
        if self._real is None:
            from pbem.service.inbox import OrdersHandler

            self._real = OrdersHandler(self.games_dir, self.now, faults=self.faults)
        return self._real

    def __call__(self, game_id: str, who: str, mail: Any) -> Any:
        return self._handler()(game_id, who, mail)

    def taken(self, game_id: str, mail: Any) -> str:
        return self._handler().taken(game_id, mail)

    def run_done(self) -> None:
        if self._real is not None:
            self._real.run_done()

    def open_game(self, game_dir: Path) -> Any:
        from pbem.store.game import Game

        return self._real.open_game(game_dir) if self._real is not None else Game.open(game_dir)


def _skip_idle(games_dir: Path, dirs: list[Path], now: datetime, report: JobReport, *,
               shared: _SharedMailbox | None = None) -> list[Path]:
    """The games that may have work; the others are reported from their idle notes."""
    busy = []
    mode = idle.SHARED if shared is not None else idle.FOLDERS
    touched = shared.games if shared is not None else set()
    for d in dirs:
        note = None if d.name in touched else idle.read_note(games_dir, d, now, mode=mode)
        if note is None:
            busy.append(d)
        else:
            report.games.append(GameRun(d.name, waiting_for=list(note.get("waiting_for") or []),
                                        note=str(note.get("note") or "")))
    return busy


def _work(games_dir: Path, dirs: list[Path], site: dict[str, Any], now: datetime, render_map: bool,
          report: JobReport, shared: _SharedMailbox | None = None) -> None:
    from pbem.mail.intake import Intake
    from pbem.mail.transport import make_transports
    from pbem.service import faults
    from pbem.service.advance import from_addr
    from pbem.service.inbox import OrdersHandler
    from pbem.store.game import Game

    faulty: dict[str, str] = {}         # games that cannot be worked on this run
    mail_problems: dict[str, str] = {}  # games whose mail could not all be taken (they still advance)
    mail_taken: set[str] = set(shared.games) if shared is not None else set()   # games that had mail
    directory = GamesDirDirectory(games_dir)
    handler = shared.handler if shared is not None else OrdersHandler(games_dir, now)
    senders: dict[str, Any] = {}
    opened = []
    for d in dirs:   # temp files of a run killed earlier (issue 18)
        clean_stale_temp_files(d)
    if shared is not None:
        for d in dirs:
            senders[d.name] = shared.transports.outgoing
    for d in dirs:
        try:
            if d.name in senders:
                continue
            game = Game.open(d)
            transports = make_transports(_game_mail_config(game), d)
            opened.append(transports)
            senders[d.name] = transports.outgoing
            r = _poll(Intake(transports.incoming, transports.outgoing, directory, handler, archive_dir=d / "mail",
                             from_addr=from_addr(game), now=now), report, game_id=d.name, problems=mail_problems)
            if r is None or r.new or r.games:
                mail_taken.add(d.name)
        except Exception as e:  # noqa: BLE001 - one game's fault must not stop the others (issue 18)
            faulty[d.name] = faults.describe(e)
    faulty.update(handler.faults)
    try:
        _advance_all(dirs, senders, now, render_map, report, faulty, open_game=handler.open_game)
        _report_faults(games_dir, dirs, senders, {**mail_problems, **faulty}, now, report)
    finally:
        for t in opened:
            t.close()
    # each game's note stands on its own: another game's fault or mail does not stop it (issue 33)
    _note_idle(games_dir, dirs, now, report, skip=mail_taken | set(faulty) | set(mail_problems),
               mode=idle.SHARED if shared is not None else idle.FOLDERS)


def _note_idle(games_dir: Path, dirs: list[Path], now: datetime, report: JobReport, *, skip: set[str],
               mode: str) -> None:
    """Write an idle note for each game this run left with nothing to do (pbem.service.idle); a game
    in `skip` (it had mail or a fault this run) is looked at again next run."""
    from pbem.mail.folder import FolderTransport
    from pbem.mail.transport import make_transports
    from pbem.rules.flow import votes_owed
    from pbem.store.clock import current_deadline, next_wake
    from pbem.store.game import Game

    runs = {g.game: g for g in report.games}
    for d in dirs:
        run = runs.get(d.name)
        if run is None or run.steps or run.mails or d.name in skip or (run.note and run.note != "paused") \
                or any("decision" in w for w in run.waiting_for):
            idle.drop_note(games_dir, d.name)
            continue
        try:
            game = Game.open(d)
            inboxes: list[Path] = []
            if mode == idle.FOLDERS:
                transports = make_transports(_game_mail_config(game), d)
                try:
                    if not all(isinstance(t, FolderTransport) and t.inbox is not None for t in transports.incoming):
                        continue
                    inboxes = [t.inbox for t in transports.incoming]
                finally:
                    transports.close()
            state = game.state
            until = None
            if not game.paused and not state.finished:
                deadline = current_deadline(game, vote=votes_owed(game.ruleset(), state))
                until = next_wake(game, deadline, now)   # reminders come in each player's day
            idle.write_note(games_dir, d, inboxes, until, run.waiting_for, run.note, mode=mode)
        except PbemError:
            idle.drop_note(games_dir, d.name)


def _refresh_site(games_dir: Path, site: dict[str, Any], only: list[str] | None, render_map: bool,
                  report: JobReport, dirs: list[Path]) -> None:
    """pbem.yaml `site_dir:` (relative to the games folder): refresh the archive site after the run
    (nothing to do, in a few stat calls a game, when no game's folder changed: pbem.site.fresh)."""
    from pbem.site.fresh import up_to_date

    out = games_dir / str(site["site_dir"])
    try:
        if up_to_date(games_dir, out, dirs, render_map):     # the games this run listed
            return
        from pbem.site.build import build_site

        done = build_site(games_dir, out, only=only, render_maps=render_map)
    except Exception as e:  # noqa: BLE001 - the site is an extra: it never stops the job's report
        from pbem.service.faults import describe

        report.errors.append(f"site: {describe(e)}")
        return
    report.errors += [f"site: {e}" for e in done.errors]


def _advance_all(dirs: list[Path], senders: dict[str, Any], now: datetime, render_map: bool, report: JobReport,
                 faulty: dict[str, str], open_game: Any = None) -> None:
    """Move every game on; `open_game`: how a game is opened (the intake's handler hands out the game
    it opened for the mail, when its files did not change since: one open of a game per run)."""
    from pbem.service import faults
    from pbem.service.advance import advance, outbox_of
    from pbem.store.game import Game

    for d in dirs:
        if d.name in faulty:
            continue
        try:
            game = (open_game or Game.open)(d)
            out = senders.get(d.name)
            send = out.send if out is not None else (lambda m: None)
            report.games.append(advance(game, now, send, outbox=outbox_of(game), render_map=render_map))
        except GameBusy:
            report.games.append(GameRun(d.name, note="busy (another pbem is working on it)"))
        except GameError as e:
            faulty[d.name] = faults.describe(e)
        except Exception as e:  # noqa: BLE001 - one game's fault must not stop the others (issue 18)
            faulty[d.name] = faults.describe(e)


def _report_faults(games_dir: Path, dirs: list[Path], senders: dict[str, Any], faulty: dict[str, str],
                   now: datetime, report: JobReport) -> None:
    """Every fault in the job's errors; its moderator mailed once per fault; faults of games that
    worked this time cleared (pbem.service.faults)."""
    from pbem.service import faults
    from pbem.service.advance import from_addr
    from pbem.store.game import Game

    known = faults.current(games_dir)
    for d in dirs:
        fault = faulty.get(d.name)
        if fault is None:
            if d.name in known and any(g.game == d.name for g in report.games):
                faults.clear_fault(games_dir, d.name)
            continue
        report.errors.append(f"{d.name}: {fault}")
        out = senders.get(d.name)
        try:
            sender = from_addr(Game.open(d))
        except Exception:  # noqa: BLE001 - game.yaml may be the fault
            sender = f"pbem-{d.name}@localhost"
        tell = faults.moderator_teller(d, out.send if out is not None else None, sender)
        if faults.report_fault(games_dir, d.name, fault, now, tell=tell):
            report.errors.append(f"{d.name}: the moderator was told")


def _poll(intake: Intake, report: JobReport, game_id: str | None = None,
          problems: dict[str, str] | None = None) -> RunReport | None:
    """Take the mail of one mailbox; its run report, or None when the mailbox could not be read."""
    from pbem.service import faults

    try:
        r = intake.run_once()
    except MailError as e:
        report.errors.append(str(e))
        return None
    except Exception as e:  # noqa: BLE001 - a mailbox that cannot be written (read-only, disk full)
        if game_id is None:
            report.errors.append(f"mail: {faults.describe(e)}")
            return None
        raise
    report.mails_in += r.new
    report.replies += r.replies_sent
    report.errors += list(r.set_aside)   # answered and kept; not a fault of the game (issue 27)
    if game_id is not None and problems is not None and r.errors:
        problems[game_id] = f"mail: {r.errors[0]}"   # the moderator hears of it once (_report_faults)
    else:
        report.errors += list(r.errors)
    return r
