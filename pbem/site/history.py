"""A game's turns as its players saw them: the position after every turn of the log, re-derived by
the engine with the dice the log recorded (no dice secret needed, so a public archive works too).

Only what the players were mailed is shown: a `turn` entry gets a turn mail unless it is a quiet
round start (pbem.service.advance decides that, and this module asks it), and a turn undone by a
moderator's rollback is no longer part of the game. Orders entries are never shown: they are what a
player sent privately (with the player's token), and the turn report already says what they did.

`LogWalk` can start from a cached position (the one after a given entry): the log is append-only,
so what was derived once stays true, and a refresh only adjudicates the entries added since.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pbem.errors import GameError
from pbem.rules.dice import RecordedDice
from pbem.rules.state import GameState
from pbem.service.advance import worth_a_mail
from pbem.service.book import voided_turns
from pbem.service.play import default_adjudicate
from pbem.store.game import Game, LogEntry
from pbem.store.hashing import state_hash
from pbem.store.recover import sets_position


@dataclass
class Walked:
    """One turn entry with the positions before and after it."""

    entry: LogEntry
    before: GameState
    after: GameState

    @property
    def mailed(self) -> bool:
        return worth_a_mail(self.entry)


class LogWalk:
    """Iterate over the live (not rolled back) turn entries after `after`, with their positions.

    `state` is the position after entry `after` (None: start from the `created` entry). While and
    after iterating, `.state` and `.last_id` are the position after the last entry walked."""

    def __init__(self, game: Game, entries: list[LogEntry], *, after: int = 0, state: GameState | None = None) -> None:
        self.game = game
        self.entries = entries
        self.voided = voided_turns(entries)
        self.last_id = after
        self.state = state

    def __iter__(self) -> Iterator[Walked]:
        rs = self.game.ruleset()
        for e in self.entries:
            if e.id <= self.last_id:
                continue
            if sets_position(e.kind, e.data):   # the start, a rollback, a typed-in position
                self.state = GameState.from_dict(e["state"])
            elif e.kind == "turn" and e.id not in self.voided:
                if self.state is None:
                    raise GameError(f"game {self.game.id}: the log has no start position")
                before = self.state
                after = _adjudicate(self.game, rs, before, e)
                self.state, self.last_id = after, e.id
                yield Walked(e, before, after)
            self.last_id = e.id


def _adjudicate(game: Game, rs: Any, state: GameState, e: LogEntry) -> GameState:
    dice = RecordedDice({str(k): int(v) for k, v in (e.get("dice") or {}).items()})
    try:
        after, _ = default_adjudicate(rs, state.copy(), e, dice)
    except Exception as err:  # noqa: BLE001 - a damaged log must not crash the site: say where
        raise GameError(f"game {game.id}: log entry {e.id} does not replay ({type(err).__name__}: {err})",
                        hint=f"run `pbem replay {game.id}` for the details") from err
    if e.get("state_hash") and state_hash(after) != e.get("state_hash"):
        raise GameError(f"game {game.id}: the position after log entry {e.id} is not the logged one",
                        hint=f"run `pbem replay {game.id}` for the details")
    return after
