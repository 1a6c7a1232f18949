"""Games kept open for the length of one `pbem run` (issue 33): a burst of mail to one game opens it
once, not once a mail (game.yaml parsed and copied, state.yaml read, the log's parse memo filled).

A kept Game is handed out again only while nothing outside this process changed its folder since
this process last finished with it (the stat of the files a Game reads, as the idle notes take them,
pbem.service.idle; not the mail folder, which the intake itself writes): another pbem, or a
moderator's edit, makes the next mail open it afresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.store.fs import stat_key
from pbem.store.game import Game

READ = ("game.yaml", "state.yaml", "notices.json", "secret", "log", ".")


def fingerprint(game_dir: Path) -> list[Any]:
    return [stat_key(game_dir / name) for name in READ]


class OpenGames:
    def __init__(self) -> None:
        self._kept: dict[Path, tuple[dict[str, Any], Game]] = {}

    def open(self, game_dir: Path) -> Game:
        hit = self._kept.pop(game_dir, None)
        if hit is not None and hit[0] == fingerprint(game_dir):
            return hit[1]
        return Game.open(game_dir)

    def keep(self, game: Game) -> None:
        """Done with `game` for now (its lock still held: nobody changed it since its own writes)."""
        self._kept[game.path] = (fingerprint(game.path), game)
