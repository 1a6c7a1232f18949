"""A game's turns as its players saw them: the position after every turn of the log, re-derived by
the engine with the dice the log recorded (no dice secret needed, so a public archive works too).

Only what the players were mailed is shown: a `turn` entry gets a turn mail unless it is a quiet
round start (pbem.service.advance decides that, and this module asks it), and a turn undone by a
moderator's rollback is no longer part of the game. Orders entries are never shown: they are what a
player sent privately (with the player's token), and the turn report already says what they did.

The walk is the one every reader of the log takes (pbem.log.walk.LogWalk: positions, logged dice,
voided turns skipped, every step checked against its state_hash), keeping the position before each
turn. It can start from a cached position (the one after a given entry): the log is append-only, so
what was derived once stays true, and a refresh only adjudicates the entries added since.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbem.log import walk
from pbem.rules.state import GameState
from pbem.service.advance import worth_a_mail
from pbem.store.game import Game, LogEntry


class Walked(walk.Step):
    """One live turn entry with the positions before and after it."""

    before: GameState

    @property
    def mailed(self) -> bool:
        return worth_a_mail(self.entry)


class LogWalk(walk.LogWalk):
    """Iterate over the live (not rolled back) turn entries after `after`, with their positions.

    `state` is the position after entry `after` (None: start from the `created` entry). While and
    after iterating, `.state` and `.last_id` are the position after the last entry walked."""

    def __init__(self, game: Game, entries: list[LogEntry], *, after: int = 0, state: GameState | None = None) -> None:
        super().__init__(game.id, game.ruleset, entries, after=after, state=state, keep_before=True)
        self.game = game

    def __iter__(self) -> Iterator[Walked]:
        for s in super().__iter__():
            yield Walked(s.entry, s.before, s.after, s.events, s.rolled, s.voided)
