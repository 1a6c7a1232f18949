"""Adjudicate one step of play and log it: the same code path for live play and for replay.

`play_turn` holds the game lock, asks the adjudicator (the engine, `default_adjudicate`: the turn
entry's orders texts parsed, pbem.rules.flow.step with the game's dice) for the new position and the
events, and has the store log a `turn` entry (events as the log keeps them, the dice rolled, hashes, the
orders entries used) and save the state. The adjudicator may work on the state it is given in place:
the caller hands it over and never uses it again (play_turn's comes from Game.state, a copy).
`pbem replay` (pbem.store.replay) and the position re-derived
from the log (pbem.store.recover) run the same `default_adjudicate`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pbem.errors import GameError
from pbem.orders.parser import parse_message
from pbem.rules import flow, turn
from pbem.rules.dice import Dice, Faces, RollRequest
from pbem.rules.events import to_dicts
from pbem.rules.orders import NationOrders
from pbem.rules.state import GameState
from pbem.store.game import Game, LogEntry, utc_now
from pbem.store.hashing import events_hash, plain, state_hash
from pbem.store.turns import STEPS, Adjudicator, dice_generation, orders_block, pending_orders


class RecordingDice:
    """Wraps a Dice and records every face it hands out, by label, in the order rolled."""

    def __init__(self, inner: Dice) -> None:
        self.inner = inner
        self.rolled: dict[str, int] = {}

    def faces(self, req: RollRequest) -> Faces:
        out = self.inner.faces(req)
        if isinstance(out, list):
            for i, face in enumerate(out):
                self.rolled.setdefault(req.label(i), int(face))
        return out


class GenerationDice:
    """Dice for a turn played again after a rollback: the labels name the rollback generation
    (`<game>~g<N>/r...`), so the re-fought battles get fresh dice that nobody could read in the voided
    turn, while every die stays verifiable from its label (pbem verify-dice)."""

    def __init__(self, inner: Dice, generation: int) -> None:
        self.inner = inner
        self.generation = generation

    def faces(self, req: RollRequest) -> Faces:
        return self.inner.faces(dataclasses.replace(req, game=f"{req.game}~g{self.generation}"))


def entry_orders(entry: LogEntry | Mapping[str, Any], ruleset: Any) -> dict[str, Any]:
    """The turn entry's orders texts parsed into {nation: NationOrders} (the section of each nation)."""
    out: dict[str, Any] = {}
    for nation, o in (entry.get("orders") or {}).items():
        pm = parse_message((o or {}).get("text") or "", ruleset, default_nation=nation)
        out[nation] = pm.section(nation) or NationOrders(nation)
    return out


def default_adjudicate(ruleset: Any, state: GameState, entry: LogEntry, dice: Dice) -> tuple[GameState, list[dict]]:
    """The engine (pbem.rules.flow.step): a `start_round` step plays the beginning of the round (VOTE
    orders among the orders used are the Bretwalda ballots); a `nation` step plays that nation's turn,
    dropping illegal orders (reported as `order_dropped` events), and when it was the last nation of the
    round also the end of the round. `end_round` is kept for logs written that way. The events come
    back as the log keeps them (plain mappings, pbem.rules.events.to_dicts).

    `state` becomes the adjudicator's (flow.step with `consume`: the step works on it in place and
    returns it, sparing a copy of the whole position): the caller must not use it again, nor anything
    in it; a caller that still needs the position before the step passes `state.copy()`."""
    step = entry.get("step", "nation")
    orders = entry_orders(entry, ruleset)
    if step == "end_round":
        state, events = turn.end_round(ruleset, state, consume=True)
        return state, to_dicts(events)
    if step == "start_round" and state.next_nation is not None:
        raise GameError(f"the round has started already (the {state.next_nation} are to move)")
    if step == "nation" and state.next_nation != entry.get("nation"):
        raise GameError(f"it is not the turn of {entry.get('nation')} (next: {state.next_nation})")
    generation = int(entry.get("dice_generation") or 0)
    if generation:
        dice = GenerationDice(dice, generation)
    result = flow.step(ruleset, state, orders, dice, consume=True)
    return result.state, to_dicts(result.events)   # the log keeps plain mappings (pbem.rules.events)


def resolve_adjudicator(adjudicate: Adjudicator | None) -> Adjudicator:
    if adjudicate is not None:
        return adjudicate
    return globals()["default_adjudicate"]   # looked up at call time, so tests can replace it


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
