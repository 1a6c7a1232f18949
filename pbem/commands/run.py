"""`pbem run [GAMES_DIR]` — the cron job: read mail, answer players, adjudicate, mail reports."""

from __future__ import annotations

from datetime import datetime

import click

from pbem.errors import GameError
from pbem.service.job import run_job


@click.command()
@click.argument("games_dir", default="games", type=click.Path(file_okay=False))
@click.option("--game", "only", multiple=True, help="Only this game (repeatable).")
@click.option("--now", help="Pretend it is this time (ISO 8601, UTC); for tests and dry runs of deadlines.")
@click.option("--no-map", is_flag=True, help="Skip the map PNG (faster).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing when there was nothing to do.")
def run(games_dir: str, only: tuple[str, ...], now: str | None, no_map: bool, quiet: bool) -> None:
    """Poll the mailboxes once, answer every player, adjudicate every game as far as orders allow."""
    when = None
    if now:
        try:
            when = datetime.fromisoformat(now.replace("Z", "+00:00"))
        except ValueError as e:
            raise GameError(f"--now: not an ISO time: {now!r}") from e
    report = run_job(games_dir, now=when, only=list(only) or None, render_map=not no_map)
    busy = report.mails_in or any(g.steps for g in report.games) or report.errors
    if busy or not quiet:
        for line in report.lines():
            click.echo(line)
    if report.errors:
        raise SystemExit(1)
