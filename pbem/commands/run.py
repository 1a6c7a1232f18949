"""`pbem run [GAMES_DIR]` — the cron job: read mail, answer players, adjudicate, mail reports."""

from __future__ import annotations

import difflib
from datetime import datetime
from pathlib import Path

import click

from pbem.errors import GameError
from pbem.service.job import game_dirs, run_job


def parse_now(text: str) -> datetime:
    """An ISO 8601 time with its zone (`2026-12-10T18:00Z`, `...+01:00`): a time without a zone
    would be ambiguous against the deadlines, which are kept in UTC."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as e:
        raise GameError(f"--now: not an ISO 8601 time: {text!r}", hint="write it like 2026-12-10T18:00Z") from e
    if when.tzinfo is None:
        raise GameError(f"--now: {text!r} has no time zone",
                        hint=f"add Z for UTC ({text.strip()}Z) or an offset such as +01:00")
    return when


def check_games_dir(games_dir: Path, only: tuple[str, ...]) -> None:
    """`pbem run` takes the folder that HOLDS the games: a game's own folder, or a --game that is not
    there, is a moderator's slip to report, not a run that quietly does nothing."""
    if (games_dir / "game.yaml").is_file():
        raise GameError(f"{games_dir} is a game's folder, not the folder of games",
                        hint=f"run: pbem run {games_dir.parent or '.'} --game {games_dir.name}")
    if not games_dir.is_dir():
        raise GameError(f"no games folder {games_dir}", hint="pbem run GAMES_DIR (default: games)")
    known = [d.name for d in game_dirs(games_dir)]
    for gid in only:
        if gid not in known:
            near = difflib.get_close_matches(gid, known, n=1)
            hint = f"did you mean {near[0]}?" if near else ("games here: " + ", ".join(known) if known
                                                              else "there is no game here yet (pbem new)")
            raise GameError(f"--game {gid}: there is no game {gid!r} in {games_dir}", hint=hint)


@click.command()
@click.argument("games_dir", default="games", type=click.Path(file_okay=False))
@click.option("--game", "only", multiple=True, help="Only this game (repeatable).")
@click.option("--now", help="Pretend it is this time (ISO 8601, UTC); for tests and dry runs of deadlines.")
@click.option("--no-map", is_flag=True, help="Skip the map PNG (faster).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing when there was nothing to do.")
def run(games_dir: str, only: tuple[str, ...], now: str | None, no_map: bool, quiet: bool) -> None:
    """Poll the mailboxes once, answer every player, adjudicate every game as far as orders allow."""
    when = parse_now(now) if now else None
    check_games_dir(Path(games_dir), only)
    report = run_job(games_dir, now=when, only=list(only) or None, render_map=not no_map)
    busy = report.mails_in or any(g.steps for g in report.games) or report.errors
    if busy or not quiet:
        for line in report.lines():
            click.echo(line)
    if report.errors:
        raise SystemExit(1)
