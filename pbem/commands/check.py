"""`pbem check --game DIR --nation N [FILE|-]`: what the reply to these orders would say; records nothing."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.orders.check import check_orders
from pbem.orders.hygiene import as_text
from pbem.orders.names import NameProblem, resolve
from pbem.orders.odds import odds_answers, planned_battle_lines, split_odds
from pbem.orders.reply import order_warnings, render_reply
from pbem.rules.flow import votes_owed
from pbem.rules.odds import planned_battles
from pbem.service.inbox import missing_for
from pbem.store.clock import current_deadline
from pbem.store.game import Game


@click.command("check")
@click.option("--game", "game_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The game folder (games/<id>/).")
@click.option("--nation", required=True, help="The nation whose orders these are (name or id).")
@click.argument("file", required=False, default="-", type=click.File("rb"))
def check(game_dir: Path, nation: str, file) -> None:
    """Print the reply a player would get for the orders in FILE (or stdin); records nothing.

    Exit status 0 when every line is OK, 1 otherwise.
    """
    game = Game.open(game_dir)
    rs, state = game.ruleset(), game.state
    try:
        nid = resolve(rs, nation, ("nation",))
    except NameProblem as e:
        raise click.BadParameter(f"{e.message}. {e.hint}".strip(), param_hint="--nation") from None
    text, asked = split_odds(as_text(file.read()))
    result = check_orders(text, rs, state, nation=nid)
    odds = odds_answers(asked, rs)
    if result.ok and state.next_nation == nid:
        section = result.parsed.section(nid)
        if section is not None:
            odds += planned_battle_lines(planned_battles(rs, state, nid, section), rs)
    player = game.player_of(nid)
    missing = missing_for(game, player) if player else []
    deadline = current_deadline(game, vote=votes_owed(rs, state)).text()
    click.echo(render_reply(result, rs, game=result.game or game.id, missing=missing, deadline=deadline,
                            odds=odds, warnings=order_warnings(result, rs, state, nid)), nl=False)
    click.get_current_context().exit(0 if result.ok else 1)
