"""The log's own rules about positions (store/FORMAT.md), with no engine and no files.

A position is set by the `created` entry and by a moderator entry of an action that sets one (a
rollback, a typed-in position) with its position; a `turn` entry moves it on. A rollback to turn
entry T, logged as entry M, voids every turn entry T <= id < M: those turns are no longer part of the
game (their orders wait again) and the rollback's position is the one before T.
"""

from __future__ import annotations

from typing import Any

POSITION_ACTIONS = ("rollback", "position")
"""The moderator actions that set the position (FORMAT.md): a rollback, a typed-in position."""


def sets_position(kind: str, data: Any) -> bool:
    """Whether a log entry (its kind and fields) sets the position: the `created` entry, and a
    moderator entry of an action that does, with its position. Any other entry's `state` is not a
    position of the game (replay reports it as a forgery)."""
    return kind == "created" or (kind == "moderator" and data.get("action") in POSITION_ACTIONS
                                 and isinstance(data.get("state"), dict))


def changes_state(e: Any) -> bool:
    """Entries after which the position is different: turns and entries that set a position."""
    return e.kind == "turn" or sets_position(e.kind, e.data)


def voided_turns(entries: list[Any]) -> set[int]:
    """Turn entries a moderator's rollback among `entries` undid (their orders are waiting again)."""
    turns = [e.id for e in entries if e.kind == "turn"]
    out: set[int] = set()
    for m in entries:
        if m.kind == "moderator" and m.get("action") == "rollback":
            lo = int(m.get("to_entry") or 0)
            out.update(t for t in turns if lo <= t < m.id)
    return out
