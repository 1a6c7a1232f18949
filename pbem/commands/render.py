"""`pbem render` (the map PNG) and `pbem report` (the turn report) of a game, now or at a past turn."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.errors import GameError
from pbem.report import build_report, report_json, report_text
from pbem.store.game import Game, LogEntry, resolve_game


def _turn_entry(game: Game, rnd: int | None, nation: str | None) -> LogEntry | None:
    """The last turn entry matching round and nation (None: the latest)."""
    rs = game.ruleset()
    if nation:
        from pbem.orders.names import resolve

        nation = resolve(rs, nation, ("nation",))
    found = None
    for e in game.entries("turn"):
        if rnd is not None and int(e.get("round")) != rnd:
            continue
        if nation is not None and e.get("nation") != nation:
            continue
        found = e
    if (rnd is not None or nation is not None) and found is None:
        raise GameError(f"game {game.id} has no turn for round {rnd} {nation or ''}".strip())
    return found


def _position(game: Game, entry: LogEntry | None):
    """The position after `entry` (re-derived from the log), or the current one."""
    if entry is None or entry.id == game.state_entry:
        return game.state
    from pbem.service.moderator import position_before

    later = [e.id for e in game.entries() if e.id > entry.id]
    return position_before(game, later[0]) if later else game.state


@click.command()
@click.argument("game")
@click.option("--dir", "games_dir", default="games", show_default=True)
@click.option("--round", "rnd", type=int, help="Show the position after this round's turn (with --nation).")
@click.option("--nation", help="The nation-turn to show (default: the last of the round).")
@click.option("--out", "out", default="map.png", show_default=True, type=click.Path(dir_okay=False))
@click.option("--width", default=1600, show_default=True, help="Width in pixels.")
def render(game: str, games_dir: str, rnd: int | None, nation: str | None, out: str, width: int) -> None:
    """Draw the map of GAME (now, or after a past nation-turn) as a PNG."""
    from pbem.render import render_map

    g = Game.open(resolve_game(game, games_dir))
    rs = g.ruleset()
    entry = _turn_entry(g, rnd, nation)
    state = _position(g, entry)
    events = entry.typed_events() if entry else []
    title = f"{g.id} - round {entry.get('round') if entry else state.round}"
    if entry and entry.get("nation"):
        title += f" - {rs.display(entry.get('nation'))}"
    png = render_map(rs, state, title=title, events=events, vp_table={n: state.vp.get(n, 0) for n in rs.order_of_play},
                     width_px=width)
    target = Path(out)
    if not target.parent.is_dir():
        raise GameError(f"--out {out}: the folder {target.parent} does not exist", hint="create it first, or "
                        "give a path in an existing folder")
    try:
        target.write_bytes(png)
    except OSError as e:
        raise GameError(f"--out {out}: cannot write the map: {e.strerror or e}") from e
    click.echo(f"wrote {out} ({len(png) // 1024} KiB)")


@click.command()
@click.argument("game")
@click.option("--dir", "games_dir", default="games", show_default=True)
@click.option("--round", "rnd", type=int)
@click.option("--nation")
@click.option("--json", "as_json", is_flag=True, help="Print report.json instead of the text.")
def report(game: str, games_dir: str, rnd: int | None, nation: str | None, as_json: bool) -> None:
    """Print the turn report of GAME's last (or a given) nation-turn."""
    g = Game.open(resolve_game(game, games_dir))
    rs = g.ruleset()
    entry = _turn_entry(g, rnd, nation)
    if entry is None:
        raise GameError(f"game {g.id} has no turn yet")
    state = _position(g, entry)
    from pbem.service.moderator import position_before

    # only the points this turn gained (the ledger as it stood before the entry, then what it added)
    before = position_before(g, entry.id)
    r = build_report(rs, state, entry.typed_events(), dict(g.settings), played=entry.get("nation"),
                     round_played=int(entry.get("round")), ledger_from=len(before.ledger))
    click.echo(report_json(r) if as_json else report_text(r), nl=False)
