"""`pbem moderate GAME ACTION ...` — the moderator's actions, the same as by mail (pbem.service.moderator)."""

from __future__ import annotations

import getpass

import click

from pbem.service import moderator as mod
from pbem.store.game import Game, resolve_game


@click.command()
@click.argument("game")
@click.argument("action", type=click.Choice(mod.ACTIONS + ("position",), case_sensitive=False))
@click.argument("args", nargs=-1)
@click.option("--dir", "games_dir", default="games", show_default=True, help="Folder of the games.")
@click.option("--why", default="", help="The reason, kept in the log with the action.")
@click.option("--who", default=None, help="Who acts (default: your login name).")
@click.option("--now", default=None, help="Pretend it is this time (ISO 8601, UTC), as `pbem run --now`: the "
              "entry's time and the time a past deadline is measured against.")
@click.option("--past", is_flag=True, help="deadline TIME: allow a time already past (the player is mailed it).")
def moderate(game: str, action: str, args: tuple[str, ...], games_dir: str, why: str, who: str | None,
             now: str | None, past: bool) -> None:
    """Moderate GAME: pause | resume | deadline TIME | extend HOURS | rollback ENTRY | process |
    replace PLAYER ADDRESS [TOKEN] | observer add|remove ADDRESS | preview | position FILE.

    A deadline already past is refused unless --past; the next `pbem run` mails every player whose
    deadline an action moved, and a replaced player's successor their token and nations.

    Every action is an entry in the game log with who and why. `rollback ENTRY` returns to the
    position before that turn entry (`pbem status GAME --log` lists them). `position FILE` replaces the
    position with a corrected position file (docs/POSITIONS.md; command line only, not by mail).
    """
    from pbem.commands.run import parse_now

    when = parse_now(now) if now else None
    g = Game.open(resolve_game(game, games_dir))
    who = who or getpass.getuser()
    if action.lower() == "position":
        if len(args) != 1:
            raise click.UsageError("position FILE: name the corrected position file")
        from pbem.position.game import set_position

        eid, pos = set_position(g, args[0], who=who, why=why or "position corrected", now=when)
        for w in pos.warnings:
            click.echo(f"warning: {w}", err=True)
        click.echo(f"Position of {g.id} replaced from {args[0]} (log entry {eid}); the next pbem run mails it to "
                   "everyone to confirm.")
        return
    try:
        if past and action.lower() != "deadline":
            raise click.UsageError("--past goes with deadline TIME only")
        text = mod.run_command(g, action.lower(), list(args), who=who, why=why or "by command line", now=when,
                               past=past)
    except (IndexError, ValueError) as e:
        raise click.UsageError(f"{action}: missing or bad argument ({e})") from e
    click.echo(text)
