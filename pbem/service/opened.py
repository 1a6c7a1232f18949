"""Games kept open for the length of one `pbem run` (issue 33): a burst of mail to one game opens it
once, not once a mail (game.yaml parsed and copied, state.yaml read, the log's parse memo filled),
and holds its lock from its first mail to the end of the mailbox's run, so that the game's log is
listed once for the burst, not once a mail (pbem.store.game: while the lock is held no other pbem
writes the game; Game._trust_token).

A kept Game is handed out again only while nothing outside this process changed its folder since
this process last finished with it (the stat of the files a Game reads, as the idle notes take them,
pbem.service.idle; not the mail folder, which the intake itself writes): another pbem, or a
moderator's edit, makes the next mail open it afresh.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pbem.store.fs import stat_key
from pbem.store.game import Game

READ = ("game.yaml", "state.yaml", "notices.json", "secret", "log", ".")


_NAMES: dict[Path, list[str]] = {}


def fingerprint(game_dir: Path) -> list[Any]:
    names = _NAMES.get(game_dir)
    if names is None:        # the paths as strings, made once per game (no Path built per mail)
        names = _NAMES[game_dir] = [os.path.join(game_dir, name) for name in READ]
    return [stat_key(name) for name in names]


class OpenGames:
    def __init__(self) -> None:
        self._kept: dict[Path, tuple[list[Any], Game]] = {}
        self._held: dict[Path, ExitStack] = {}

    def open(self, game_dir: Path) -> Game:
        hit = self._kept.pop(game_dir, None)
        if hit is not None and hit[0] == fingerprint(game_dir):
            return hit[1]
        return Game.open(game_dir)

    def keep(self, game: Game) -> None:
        """Done with `game` for now (its lock still held: nobody changed it since its own writes). The
        lock is held on until `release` (the end of the mailbox's run)."""
        if game.path not in self._held:
            hold = ExitStack()
            hold.enter_context(game.lock(blocking=False))   # held already by the caller: never busy
            self._held[game.path] = hold
        self._kept[game.path] = (fingerprint(game.path), game)

    def release(self) -> None:
        """Let go of the games' locks (the games stay kept: a later open checks their files)."""
        held, self._held = self._held, {}
        for hold in held.values():
            hold.close()
