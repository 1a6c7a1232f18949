"""`pbem check --game DIR --nation N [FILE|-]`: what the reply to these orders would say; records nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.errors import GameError
from pbem.orders.check import check_orders
from pbem.orders.hygiene import as_text
from pbem.orders.names import NameProblem, resolve
from pbem.orders.reply import render_reply
from pbem.rules.state import GameState


def _read_yaml(path: Path) -> Any:
    """Plain data of a game file (the store's reader when there is one)."""
    try:
        from pbem.store.yamlio import load_plain
    except ImportError:
        load_plain = None
    if load_plain is not None:
        return load_plain(path, str(path))
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        with open(path, encoding="utf-8") as f:
            return YAML(typ="safe", pure=True).load(f)
    except FileNotFoundError as e:
        raise GameError(f"{path}: file missing") from e
    except (YAMLError, UnicodeDecodeError) as e:
        raise GameError(f"{path}: not valid YAML: {e}") from e


def load_game(game_dir: Path) -> tuple[dict, GameState]:
    """(settings of game.yaml, the current GameState of state.yaml)."""
    if not game_dir.is_dir():
        raise GameError(f"{game_dir}: no such game folder")
    settings_path = game_dir / "game.yaml"
    settings = _read_yaml(settings_path) if settings_path.exists() else {}
    if not isinstance(settings, dict):
        raise GameError(f"{settings_path}: -: must be a mapping")
    state_path = game_dir / "state.yaml"
    if not state_path.exists():
        raise GameError(f"{state_path}: file missing", hint="is this a game folder?")
    raw = _read_yaml(state_path)
    if not isinstance(raw, dict):
        raise GameError(f"{state_path}: -: must be a mapping")
    try:
        state = GameState.from_dict(raw)
    except (ValueError, TypeError, AttributeError) as e:
        raise GameError(f"{state_path}: not a game position: {e}") from e
    return settings, state


def _ruleset(settings: dict):
    from pbem.data.loader import load

    overrides = settings.get("overrides") or None
    return load(str(settings.get("ruleset") or "classic"), overrides if isinstance(overrides, dict) else None)


@click.command("check")
@click.option("--game", "game_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The game folder (games/<id>/).")
@click.option("--nation", required=True, help="The nation whose orders these are (name or id).")
@click.argument("file", required=False, default="-", type=click.File("rb"))
def check(game_dir: Path, nation: str, file) -> None:
    """Print the reply a player would get for the orders in FILE (or stdin); records nothing.

    Exit status 0 when every line is OK, 1 otherwise.
    """
    settings, state = load_game(game_dir)
    rs = _ruleset(settings)
    try:
        nid = resolve(rs, nation, ("nation",))
    except NameProblem as e:
        raise click.BadParameter(f"{e.message}. {e.hint}".strip(), param_hint="--nation") from None
    text = as_text(file.read())
    result = check_orders(text, rs, state, nation=nid)
    game = str(settings.get("id") or settings.get("game") or state.game or game_dir.name)
    deadline = settings.get("deadline")
    click.echo(render_reply(result, rs, game=result.game or game,
                            deadline=deadline if isinstance(deadline, str) else None), nl=False)
    click.get_current_context().exit(0 if result.ok else 1)
