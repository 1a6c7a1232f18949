"""Adjudicate one step of play and log it: the same code path for live play and for replay.

`play_turn` holds the game lock, asks the adjudicator (the engine, `default_adjudicate`: the turn
entry's orders texts parsed, pbem.rules.flow.step with the game's dice) for the new position and the
events, and has the store log a `turn` entry (events as the log keeps them, the dice rolled, hashes, the
orders entries used) and save the state. The adjudicator may work on the state it is given in place:
the caller hands it over and never uses it again (play_turn's comes from Game.state, a copy).
The adjudicator itself, `default_adjudicate` (pbem.log.adjudicate), is the one `pbem replay`, the
position re-derived from the log, rollbacks and the site run too (pbem.log.walk).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.errors import GameError
from pbem.log.adjudicate import (  # noqa: F401 - the engine run on a turn entry lives below store and service
    GenerationDice,
    RecordingDice,
    default_adjudicate,
    entry_orders,
    resolve_adjudicator,
)
from pbem.store.game import Game, LogEntry, utc_now
from pbem.store.hashing import events_hash, plain, state_hash
from pbem.store.turns import STEPS, Adjudicator, dice_generation, orders_block, pending_orders


# --- play a step --------------------------------------------------------------------------------------
def play_turn(game: Game, nation: str | None = None, *, step: str = "nation",
              orders: Mapping[str, int | str | None] | None = None, adjudicate: Adjudicator | None = None,
              time: str | None = None, used: Mapping[str, list[int]] | None = None) -> LogEntry:
    """Adjudicate one step with the game's dice, log it (a `turn` entry) and save the new state.

    `nation` defaults to the state's next nation. `orders` maps nation -> orders entry id, or text
    (orders a moderator or the no-orders rule supplied), or None (no orders); by default the pending
    orders of every nation (`pending_orders`), the moving nation's included when it has some.
    `used` names, per nation, the orders entries a supplied text was made of (logged as `entries`).
    Holds the game lock throughout; nothing is written when the adjudicator raises.
    """
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r}")
    adjudicate = resolve_adjudicator(adjudicate)
    with game.lock():
        entries = game.entries()
        state = game.state
        if step == "nation":
            nation = nation or state.next_nation
            if not nation:
                raise GameError(f"game {game.id}: no nation to move (the round has not started)")
        else:
            nation = None
        if orders is None:
            orders = {n: e.id for n, e in pending_orders(game, entries).items()}
        data: dict[str, Any] = {"round": state.round, "step": step, "nation": nation,
                                "orders": plain(orders_block(game, orders, entries, used))}
        generation = dice_generation(entries)
        if generation:
            data["dice_generation"] = generation
        draft = LogEntry(0, "turn", time or utc_now(), data)
        dice = RecordingDice(game.dice())
        new_state, events = adjudicate(game.ruleset(), state, draft, dice)   # game.state is a copy already
        events = plain(list(events))
        data.update({"dice": dict(dice.rolled), "events": events, "events_hash": events_hash(events),
                     "state_hash": state_hash(new_state)})
        eid = game.append("turn", data, time=draft.time, already_plain=True)   # events plain above, the rest built here
        game.save_state(new_state, entry=eid)
        entry = LogEntry(eid, "turn", draft.time, dict(data))    # plain already: events above, the rest built here
        entry.file = f"log/{entry.name}"
        return entry
