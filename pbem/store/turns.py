"""Turn entries in the log (persistence only; adjudicating and logging a step is pbem.service.play).

A step is a nation's turn (`step: nation`) or a game-turn boundary (`step: start_round`,
`step: end_round`). An adjudicator is a callable

    adjudicate(ruleset, state, entry, dice) -> (state, events)

where `entry` is the turn log entry (round, step, nation, orders {nation: {entry, text}}), `dice` a
pbem.rules.dice.Dice and `events` the plain mappings the log keeps (pbem.rules.events.to_dicts);
pbem.log.adjudicate.default_adjudicate is the engine's, tests inject their own.

Here: which orders entries are waiting (`pending_orders`), the orders block of a turn entry
(`orders_block`, with the SHA-256 of each orders text used: `orders_text_hash`) and the rollback
generation of the dice labels (`dice_generation`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from pbem.errors import GameError
from pbem.rules.dice import Dice
from pbem.rules.state import GameState
from pbem.store.game import Game, LogEntry

Adjudicator = Callable[[Any, GameState, LogEntry, Dice], tuple[GameState, list[dict[str, Any]]]]
"""adjudicate(ruleset, state, turn entry, dice) -> (new position, events as plain mappings). The
adjudicator may work on `state` in place and return it: the caller hands it over and must not use it
again (pass `state.copy()` to keep it)."""
STEPS = ("nation", "start_round", "end_round")


def dice_generation(entries: list[LogEntry]) -> int:
    """How many rollbacks the log has had (0: none): the generation of the dice labels from now on."""
    return sum(1 for e in entries if e.kind == "moderator" and e.get("action") == "rollback")


# --- which orders are waiting ---------------------------------------------------------------------
def pending_orders(game: Game, entries: list[LogEntry] | None = None) -> dict[str, LogEntry]:
    """For each nation, its latest orders entry received after its own last nation turn."""
    entries = game.entries() if entries is None else entries
    last_turn: dict[str, int] = {}
    latest: dict[str, LogEntry] = {}
    for e in entries:
        if e.kind == "turn" and e.get("step", "nation") == "nation" and e.get("nation"):
            last_turn[e["nation"]] = e.id
        elif e.kind == "orders" and e.get("nation"):
            latest[e["nation"]] = e
    return {n: e for n, e in latest.items() if e.id > last_turn.get(n, 0)}


def orders_block(game: Game, orders: Mapping[str, int | str | None], entries: list[LogEntry],
                  used: Mapping[str, list[int]] | None = None) -> dict[str, Any]:
    """{nation: {entry, text}}; with `used`, each nation also lists the orders entries its text was
    made from (`entries`) and the SHA-256 of each one's text as logged (`entries_sha256`, in the same
    order), so that replay can tell when an orders entry was edited afterwards (issue 18)."""
    by_id = {e.id: e for e in entries}
    out: dict[str, Any] = {}
    for nation, ids in (used or {}).items():
        for ref in ids:
            e = by_id.get(ref)
            if e is None or e.kind != "orders" or e.get("nation") != nation:
                raise GameError(f"game {game.id}: log entry {ref} holds no orders of {nation}")
    for nation, ref in orders.items():
        if isinstance(ref, int) and not isinstance(ref, bool):
            e = by_id.get(ref)
            if e is None or e.kind != "orders":
                raise GameError(f"game {game.id}: log entry {ref} is not an orders entry")
            if e.get("nation") != nation:
                raise GameError(f"game {game.id}: log entry {ref} holds orders for {e.get('nation')}, not {nation}")
            out[nation] = {"entry": ref, "text": e.get("text") or ""}
        else:
            out[nation] = {"entry": None, "text": ref or ""}
        if used and used.get(nation):
            out[nation]["entries"] = sorted(used[nation])
            out[nation]["entries_sha256"] = [orders_text_hash(by_id[i]) for i in out[nation]["entries"]]
    return out


def orders_text_hash(entry: LogEntry | Mapping[str, Any]) -> str:
    """SHA-256 of an orders entry's text (UTF-8), as a turn that used it records it."""
    return hashlib.sha256(str(entry.get("text") or "").encode("utf-8")).hexdigest()


