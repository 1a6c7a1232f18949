"""`pbem check --game DIR --nation N [FILE|-]`: what the reply to these orders would say; records nothing."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.orders.check import check_orders
from pbem.orders.hygiene import as_text
from pbem.orders.names import NameProblem, resolve
from pbem.orders.odds import odds_answers, split_odds
from pbem.orders.reply import order_warnings, render_reply
from pbem.rules.flow import votes_owed
from pbem.service.inbox import split_confirm, take_orders
from pbem.store.clock import current_deadline
from pbem.store.game import Game


@click.command("check")
@click.option("--game", "game_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The game folder (games/<id>/).")
@click.option("--nation", required=True, help="The nation whose orders these are (name or id).")
@click.argument("file", required=False, default="-", type=click.File("rb"))
def check(game_dir: Path, nation: str, file) -> None:
    """Print the reply the player of NATION would get for a mail with the orders in FILE (or stdin),
    byte for byte; records nothing.

    Exit status 0 when every line is OK, 1 otherwise.
    """
    game = Game.open(game_dir)
    rs, state = game.ruleset(), game.state
    try:
        nid = resolve(rs, nation, ("nation",))
    except NameProblem as e:
        raise click.BadParameter(f"{e.message}. {e.hint}".strip(), param_hint="--nation") from None
    text = as_text(file.read())
    player = game.player_of(nid)
    if player is None:   # a nation nobody plays: read against the position, as the rules see it
        text, asked = split_odds(text)
        result = check_orders(text, rs, state, nation=nid)
        deadline = current_deadline(game, vote=votes_owed(rs, state)).text()
        reply = render_reply(result, rs, game=result.game or game.id, deadline=deadline,
                             odds=odds_answers(asked, rs), warnings=order_warnings(result, rs, state, nid))
        ok = result.ok
    else:   # the very reply the player's mail would get (issue 30), nothing logged
        from datetime import UTC, datetime

        reply = take_orders(game, player, text, mail_id="", received=datetime.now(UTC), record=False, default=nid)
        ok = check_orders(split_odds(split_confirm(text)[0])[0], rs, state, nation=nid).ok
    click.echo(reply, nl=False)
    click.get_current_context().exit(0 if ok else 1)
