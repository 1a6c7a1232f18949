"""`pbem prune [GAMES_DIR]` — apply the retention policy (pbem/store/retention.py) to every game."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from pbem.commands.run import check_games_dir, parse_now


@click.command()
@click.argument("games_dir", default="games", type=click.Path(file_okay=False, path_type=Path))
@click.option("--game", "only", multiple=True, metavar="ID", help="Only this game (repeat for more).")
@click.option("--now", "now_text", default=None, metavar="TIME", help="The time ages are measured from (ISO 8601).")
@click.option("--dry-run", is_flag=True, help="Say what would be removed or compressed, change nothing.")
@click.option("--days", type=float, default=None, help="Age in days after which the policy applies "
              "(default: games/pbem.yaml retention.days, else 30).")
@click.option("-q", "--quiet", is_flag=True, help="Print only problems (for cron).")
def prune(games_dir: Path, only: tuple[str, ...], now_text: str | None, dry_run: bool, days: float | None,
          quiet: bool) -> None:
    """Trim old mail copies: sent mail in each game's outbox removed (or compressed), received mail
    and replies the intake is done with compressed in place; the log, the state, the turn reports and
    maps, and anything still owed are always kept. The policy is `retention:` in GAMES_DIR/pbem.yaml
    ({days: 30, outbox: delete|compress|keep, mail: compress|keep}). Run it daily from cron."""
    from dataclasses import replace

    from pbem.service.job import game_dirs, site_config
    from pbem.store.retention import Policy, PruneReport, human, prune_game, prune_mail_archive

    check_games_dir(games_dir, only)
    policy = Policy.from_settings(site_config(games_dir).get("retention"))
    if days is not None:
        if days < 0:
            raise click.BadParameter("a number of days, 0 or more", param_hint="--days")
        policy = replace(policy, days=days)
    now = parse_now(now_text) if now_text else datetime.now(UTC)
    freed = 0
    for d in game_dirs(games_dir):
        if only and d.name not in only:
            continue
        report = prune_game(d, policy, now, dry_run=dry_run)
        freed += report.freed
        if not quiet:
            click.echo(report.line(d.name, dry_run))
    shared = games_dir / ".mail"
    if not only and shared.is_dir():        # the archive of a shared mailbox (games/pbem.yaml mail:)
        report = PruneReport()
        prune_mail_archive(shared, policy, now, report, dry_run)
        freed += report.freed
        if not quiet:
            click.echo(report.line("shared mailbox archive", dry_run))
    if not quiet:
        click.echo(f"{'would free' if dry_run else 'freed'} {human(freed)} in all "
                   f"(policy: older than {policy.days:g} days, outbox {policy.outbox}, mail {policy.mail})")
