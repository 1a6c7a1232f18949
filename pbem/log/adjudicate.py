"""The engine run on one turn entry of the log: the same code for live play (pbem.service.play), for
`pbem replay` and for every position re-derived from the log (pbem.log.walk).

An adjudicator is a callable `adjudicate(ruleset, state, entry, dice) -> (state, events)`
(pbem.store.turns.Adjudicator); `default_adjudicate` is the engine's, tests put their own in its place
(it is looked up when a walk or a play starts: `resolve_adjudicator`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pbem.errors import GameError
from pbem.orders.parser import parse_message
from pbem.rules import flow, turn
from pbem.rules.dice import Dice, Faces, RollRequest
from pbem.rules.events import to_dicts
from pbem.rules.orders import NationOrders
from pbem.rules.state import GameState

if TYPE_CHECKING:
    from pbem.store.turns import Adjudicator


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


def entry_orders(entry: Mapping[str, Any], ruleset: Any) -> dict[str, Any]:
    """The turn entry's orders texts parsed into {nation: NationOrders} (the section of each nation)."""
    out: dict[str, Any] = {}
    for nation, o in (entry.get("orders") or {}).items():
        pm = parse_message((o or {}).get("text") or "", ruleset, default_nation=nation)
        out[nation] = pm.section(nation) or NationOrders(nation)
    return out


def default_adjudicate(ruleset: Any, state: GameState, entry: Any, dice: Dice) -> tuple[GameState, list[dict]]:
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

