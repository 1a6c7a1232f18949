"""Game saves (issue 8): games/<id>/ with settings, state, an append-only log and the dice secret.

Modules:
  game       Game (open, settings, state, save_state, append, entries, lock, dice), create_game,
             resolve_game, start_position
  turns      turn entries: pending_orders, orders_block, orders_text_hash, dice_generation (the step
             itself is adjudicated and logged by pbem.service.play.play_turn)
  replay     replay(game_dir, adjudicate=...) -> ReplayReport (first Divergence, readable): the checks
             around the one walk of the log (pbem.log.walk)
  recover    state_after, rebuild_state: the position from the log alone (pbem.log.walk.position_after)
  dicecheck  verify_dice, reveal_secret
  archive    export_game, import_game, open_source (a directory or an archive)
  hashing    state_hash, events_hash, canonical_json
  fs         atomic_write, create_exclusive
  yamlio     dump_yaml, load_plain, load_roundtrip, SaveError
"""


from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Game", "LogEntry", "SaveError", "create_game", "events_hash", "resolve_game", "state_hash"]
_HOME = {"Game": "game", "LogEntry": "game", "create_game": "game", "resolve_game": "game",
         "events_hash": "hashing", "state_hash": "hashing", "SaveError": "yamlio"}


def __getattr__(name: str) -> Any:
    """The names above, imported when first asked for: `pbem.store.fs` (the mail layer's atomic
    writes) must not load the engine, so an idle `pbem run` stays cheap (issue 33)."""
    if name in _HOME:
        return getattr(importlib.import_module(f"pbem.store.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
