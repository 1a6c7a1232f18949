"""Move a running game over: a game started from a position file, and any game's position written out.

`new_from_position` creates the game with the typed position as its start (the `created` log entry
keeps the position and the file's text, so replay and verify-dice start from it); when the position
says the round's closing steps are due, they are played at once as the first `turn` entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.position.file import Position, read_position_file
from pbem.position.write import position_text
from pbem.store.game import Game, create_game

SOURCE = "position"   # the `start` of a created entry begins with this word for a typed-in position


def new_from_position(games_dir: Path | str, game_id: str, path: str | Path, *, ruleset: str = "classic",
                      players: int = 4, player_specs: Sequence[tuple[str, str]] = (), **kw: Any) -> tuple[Game, Position]:
    """Create `game_id` from the position file at `path` (raises PositionError before anything is written)."""
    pos = read_position_file(path, ruleset=ruleset, game=game_id)
    game = create_game(games_dir, game_id, ruleset=ruleset, players=players, player_specs=player_specs,
                       state=pos.state, source=f"{SOURCE} {Path(path).name}", position=pos.text, **kw)
    if pos.start == "end_of_round":
        from pbem.service.play import play_turn

        play_turn(game, step="end_round", orders={}, time=kw.get("time"))
    return game, pos


def set_position(game: Game, path: str | Path, *, who: str, why: str, now: datetime | None = None) -> tuple[int, Position]:
    """The moderator corrects the position (`pbem moderate GAME position FILE`): a `moderator` entry with
    the new position (replay adopts it) and the file's text; everyone is mailed it again to confirm.
    `now`: the time of the entries (`pbem moderate --now`; None: the wall clock)."""
    from pbem.store.clock import entry_time, moderate_at

    pos = read_position_file(path, ruleset=game.ruleset(), game=game.id)
    with game.lock():
        eid = moderate_at(game, now, "position", who, why, state=pos.state, file=Path(path).name, position=pos.text)
        if pos.start == "end_of_round":
            from pbem.service.play import play_turn

            play_turn(game, step="end_round", orders={}, time=entry_time(now))
    return eid, pos


def from_position(game: Game) -> bool:
    """Was the game started from a typed-in position?"""
    return str(game.entry(1).get("start") or "").startswith(SOURCE + " ")


def position_mail_key(game: Game) -> str | None:
    """The notice key of the latest typed-in position everyone must confirm (None: the game has none):
    the start (`position-imported`), or the moderator's latest correction (`position-imported:<entry>`)."""
    fixes = [e.id for e in game.entries("moderator") if e.get("action") == "position"]
    if fixes:
        return f"position-imported:{fixes[-1]}"
    return "position-imported" if from_position(game) else None


def export_position(game: Game) -> str:
    """The game's current position as a position file (the same form `new --position` reads)."""
    return position_text(game.ruleset(), game.state, game=game.id, entry=game.last_entry_id())
