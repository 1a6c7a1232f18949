"""The position from the log alone, for when state.yaml is behind the log or damaged (issue 18).

state.yaml is derived from the log and written after the log entry it follows. A run killed between
the two leaves it one step behind; a full disk or a broken copy can leave it empty or unreadable. In
both cases the log is the truth: the position is the last one a log entry carries (the `created`
entry, or a moderator entry with `state`, e.g. a rollback), moved on by re-adjudicating every `turn`
entry after it with the dice that entry logged. Each step must reach the `state_hash` it logged;
otherwise the log itself is damaged and the game waits for its moderator (a GameError).
"""

from __future__ import annotations

from typing import Any

from pbem.errors import GameError
from pbem.rules.dice import RecordedDice
from pbem.rules.state import GameState
from pbem.store.hashing import state_hash

POSITION_ACTIONS = ("rollback", "position")
"""The moderator actions that set the position (FORMAT.md): a rollback, a typed-in position."""


def sets_position(kind: str, data: Any) -> bool:
    """Whether a log entry (its kind and fields) sets the position: the `created` entry, and a
    moderator entry of an action that does, with its position. Any other entry's `state` is not a
    position of the game (replay reports it as a forgery)."""
    return kind == "created" or (kind == "moderator" and data.get("action") in POSITION_ACTIONS
                                 and isinstance(data.get("state"), dict))


def _carries_state(e: Any) -> bool:
    return sets_position(e.kind, e.data)


def changes_state(e: Any) -> bool:
    """Entries after which the position is different: turns and entries that set a position."""
    return e.kind == "turn" or _carries_state(e)


def state_after(game: Any, entries: list[Any], upto: int) -> GameState:
    """The position after log entry `upto` (see the module doc)."""
    from pbem.service.play import default_adjudicate  # the engine, as play_turn ran it

    upto_entries = [e for e in entries if e.id <= upto]
    base = next((i for i in range(len(upto_entries) - 1, -1, -1) if _carries_state(upto_entries[i])), None)
    if base is None:
        raise GameError(f"game {game.id}: the log has no start position")
    src = upto_entries[base]
    d = src.get("state")
    if state_hash(d) != src.get("state_hash"):
        raise GameError(f"game {game.id}: log entry {src.id}: its position does not match its state_hash",
                        hint="the log was changed; `pbem replay` shows where")
    state = GameState.from_dict(d)
    rs = None
    for e in upto_entries[base + 1:]:
        if e.kind != "turn":
            continue
        rs = rs or game.ruleset()
        dice = RecordedDice({str(k): int(v) for k, v in (e.get("dice") or {}).items()})
        try:
            state, _ = default_adjudicate(rs, state, e, dice)   # handed over: the old position is not used again
        except GameError:
            raise
        except Exception as err:  # noqa: BLE001 - a damaged entry can make the engine fail anywhere
            raise GameError(f"game {game.id}: log entry {e.id} cannot be re-adjudicated: {type(err).__name__}: {err}",
                            hint="`pbem replay` shows where the log went wrong") from err
        if state_hash(state) != e.get("state_hash"):
            raise GameError(f"game {game.id}: log entry {e.id} does not lead to the position it logged",
                            hint="`pbem replay` shows where the log went wrong")
    return state


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
