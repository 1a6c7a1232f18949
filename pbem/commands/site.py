"""`pbem site GAMES_DIR --out DIR`: the static archive site of every game (pbem.site)."""

from __future__ import annotations

import click

from pbem.errors import GameError


@click.command()
@click.argument("games_dir", default="games", metavar="[GAMES_DIR]")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Folder of the site.")
@click.option("--game", "only", multiple=True, metavar="ID", help="Refresh only this game (repeat).")
@click.option("--no-map", is_flag=True, help="Leave the maps out (drawn by a later run with maps).")
def site(games_dir: str, out: str, only: tuple[str, ...], no_map: bool) -> None:
    """Write (or refresh: only new turns are drawn) a static site of the games: DIR/index.html and a
    turn-by-turn viewer per game. It opens from file:// with no server."""
    report = write_site(games_dir, out, only=only, render_maps=not no_map)
    for line in report.lines():
        click.echo(line)


def write_site(games_dir: str, out: str, *, only: tuple[str, ...] = (), render_maps: bool = True):
    from pbem.site import build_site

    report = build_site(games_dir, out, only=only, render_maps=render_maps)
    if report.errors and not report.games:
        raise GameError("; ".join(report.errors))
    return report
