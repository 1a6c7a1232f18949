"""Rule 4.0 — stepping a game along: round start, each nation's turn in the order of play, round end
(what each does is the ruleset's rules family, `rs.rules`; pbem.rules.turn drives it).

The position says where the game stands: `next_nation is None` (and not finished) means the start of
round `state.round` is still to be played, or first the closing step of the last round when a family
left it open (`turn.crowns_owed`). Whether VOTE orders are owed at that step, the family says
(`Rules.votes_owed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pbem.errors import OrderProblem
from pbem.rules.dice import Dice
from pbem.rules.events import Event, make
from pbem.rules.orders import NationOrders, Vote
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState
from pbem.rules.turn import (
    close_round,
    crowns_owed,
    end_round,
    next_nation_after,
    play_nation_turn,
    start_round,
)


@dataclass
class Step:
    """What one step did: `kind` is round_start | nation_turn | finished."""

    kind: str
    state: GameState
    events: list[Event] = field(default_factory=list)
    problems: list[OrderProblem] = field(default_factory=list)
    nation: str | None = None
    round: int = 0


def votes_owed(rs: Ruleset, state: GameState) -> bool:
    """The next step (between two nation turns' rounds) takes the nations' VOTE orders: the family
    says when (`Rules.votes_owed`; classic 12.1: the start of a round with a Bretwalda vote)."""
    if state.finished or state.next_nation is not None:
        return False
    return rs.rules.votes_owed(rs, state)


def ballots_from(orders: dict[str, NationOrders]) -> dict[str, str]:
    """VOTE orders of every nation (simultaneous secret orders, rule 12.2)."""
    out = {}
    for nation, no in orders.items():
        votes = no.of(Vote)
        if votes:
            out[nation] = votes[-1].nation
    return out


def step(rs: Ruleset, state: GameState, orders: dict[str, NationOrders], dice: Dice, *,
         consume: bool = False) -> Step:
    """Play the next step: a round start, or the next nation's turn (then a round end if it was last).

    `state` stays as it was (the step works on a copy) unless the caller hands it over with `consume`
    (it never uses that state again, nor anything in it): then the step works on it in place and
    `Step.state` is that same object, saving a copy of the whole position every step."""
    if state.finished:
        return Step("finished", state, round=state.round)
    rnd = state.round
    if state.next_nation is None:
        events = []
        if crowns_owed(state):   # the last round's closing step (the family left it open), then the new round
            state, events = close_round(rs, state, ballots_from(orders), consume=consume)
            consume = True       # `state` is this step's own position now
        new, start_events = start_round(rs, state, ballots_from(orders), consume=consume)
        return Step("round_start", new, events + start_events, round=rnd)
    nation = state.next_nation
    result = play_nation_turn(rs, state, nation, orders, dice, strict=False, consume=consume)
    new = result.state
    # orders the rules refuse are dropped, and the report says why (ORDERS.md "Replies")
    events = [make("order_dropped", round=rnd, turn=nation, nation=nation, line=p.line,
               text=p.text, kind=p.kind, message=p.message) for p in result.problems]
    events += list(result.events)
    new.next_nation = next_nation_after(rs, new, nation)
    if new.next_nation is None:
        new, end_events = end_round(rs, new, consume=True)   # `new` is this step's own position
        events += end_events
    return Step("nation_turn", new, events, result.problems, nation=nation, round=rnd)


def play_game(rs: Ruleset, state: GameState, orders_for: Callable[[GameState], dict[str, NationOrders]], dice: Dice,
              on_step: Callable[[Step], None] | None = None, max_steps: int = 10_000) -> GameState:
    """Play to the end of turn 16, asking `orders_for(state)` before each step."""
    for _ in range(max_steps):
        if state.finished:
            return state
        s = step(rs, state, orders_for(state), dice)
        if on_step:
            on_step(s)
        state = s.state
    raise RuntimeError("the game did not end")  # a bug, not a user error
