"""Game saves (issue 8): games/<id>/ with settings, state, an append-only log and the dice secret.

Modules:
  game       Game (open, settings, state, save_state, append, entries, lock, dice), create_game,
             resolve_game, start_position
  turns      turn entries: pending_orders, orders_block, orders_text_hash, dice_generation (the step
             itself is adjudicated and logged by pbem.service.play.play_turn)
  replay     replay(game_dir, adjudicate=...) -> ReplayReport (first Divergence, readable)
  dicecheck  verify_dice, reveal_secret
  archive    export_game, import_game, open_source (a directory or an archive)
  hashing    state_hash, events_hash, canonical_json
  fs         atomic_write, create_exclusive
  yamlio     dump_yaml, load_plain, load_roundtrip, SaveError
"""

from pbem.store.game import Game, LogEntry, create_game, resolve_game
from pbem.store.hashing import events_hash, state_hash
from pbem.store.yamlio import SaveError

__all__ = ["Game", "LogEntry", "SaveError", "create_game", "events_hash", "resolve_game", "state_hash"]
