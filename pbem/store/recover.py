"""The position from the log alone, for when state.yaml is behind the log or damaged (issue 18).

state.yaml is derived from the log and written after the log entry it follows. A run killed between
the two leaves it one step behind; a full disk or a broken copy can leave it empty or unreadable. In
both cases the log is the truth: the position is the last one a log entry carries (the `created`
entry, or a moderator entry with `state`, e.g. a rollback), moved on by re-adjudicating every `turn`
entry after it with the dice that entry logged (pbem.log.walk.position_after, the one walk of the
log). Each step must reach the `state_hash` it logged; otherwise the log itself is damaged and the
game waits for its moderator (a GameError).
"""

from __future__ import annotations

from typing import Any

from pbem.log.entries import POSITION_ACTIONS, changes_state, sets_position  # noqa: F401 - their home is pbem.log
from pbem.log.walk import position_after
from pbem.rules.state import GameState


def state_after(game: Any, entries: list[Any], upto: int) -> GameState:
    """The position after log entry `upto` (see the module doc)."""
    return position_after(game.id, game.ruleset, entries, upto)


def rebuild_state(game: Any) -> tuple[int | None, int]:
    """Make state.yaml the position after the log's last entry, derived from the log alone (the
    repair of a state.yaml that follows entries the log no longer has: `pbem rebuild-state`).
    Returns (the entry state.yaml followed, or None when it could not be read; the last entry)."""
    with game.lock():
        before = game.state_file_entry()
        last = game.last_entry_id()
        state = state_after(game, game.entries(cached=False), last)
        game.save_state(state, entry=last)
    return before, last
