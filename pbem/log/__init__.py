"""The game log read as a game: one walker below the store's checks and the service.

Modules:
  entries     which entries set the position (POSITION_ACTIONS, sets_position, changes_state) and
              which turns a rollback voided (voided_turns): the log's own rules, no engine
  adjudicate  the engine run on one turn entry (default_adjudicate) and the dice wrappers a logged
              turn needs (RecordingDice, GenerationDice)
  walk        LogWalk: the position after every entry, each turn re-adjudicated with one dice policy
              (the secret when given, else the faces the entry logged) and one handling of voided
              turns; used by `pbem replay` (pbem.store.replay), the position re-derived from the log
              (pbem.store.recover), a moderator's rollback (pbem.service.moderator) and the site
              (pbem.site.history)

Below the store and the service: it imports the rules core, the orders parser and the store's
hashing (a leaf), never pbem.store.game or pbem.service.
"""
