"""Rule 4 — the sequence of play, driven: game turns, nations in the order of play, the steps at the
start and end of each game turn.

What each phase does is the ruleset's rules family (`rs.rules`, pbem/rules/rulesets): its
`round_start`, `nation_turn` (population, movement and battle cycles, end of turn) and `round_end`.
This module only drives them: it gives each a working position, collects the events, and says who
plays next. `play_nation_turn` is the one entry point that adjudicates (and, with `dry_run`,
validates) a nation's turn: the same code refuses illegal orders and carries out legal ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.errors import OrderProblem
from pbem.rules.context import ROUND_CLOSE_OWED, STARTS, STOPS, NationTurn, TurnContext, TurnStopped
from pbem.rules.dice import Dice
from pbem.rules.events import Event
from pbem.rules.orders import NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState, Stack
from pbem.rules.submission import can_submit  # noqa: F401  (re-exported: bots and legal ask it here)

__all__ = ["STARTS", "STOPS", "CROWNS_OWED", "TurnResult", "add_stack", "can_submit", "close_round", "crowns_owed",
           "cycles", "end_round", "has_something_to_do", "new_game_state", "next_nation_after",
           "play_nation_turn", "start_round"]

CROWNS_OWED = ROUND_CLOSE_OWED   # GameState.extras: the round whose closing step is still to be played


@dataclass
class TurnResult:
    state: GameState
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[OrderProblem] = field(default_factory=list)
    # the turn as it stood at the stop points asked for (`keep`): what a play stopped there gives
    kept: dict[str, TurnResult] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return not self.problems


def new_game_state(rs: Ruleset, game_id: str = "game") -> GameState:
    """Rule 3.0 — the starting forces of every nation (nations.yaml `start`), then what the family sets
    up besides (Rules.set_up)."""
    state = GameState(ruleset=rs.id, game=game_id, round=1)
    for nid, nat in rs.nations.items():
        for area, n in nat.start.items():
            state.stack(area, nid).armies += n
    rs.rules.set_up(rs, state)
    state.next_nation = None
    return state


def _working_state(state: GameState, consume: bool) -> GameState:
    """The position a step works on: a copy, so that the caller's stays as it was (bots probing,
    validation, previews), or, when the caller hands it over (`consume`: it never uses it again), the
    caller's own, put in the order a copy would have (GameState.put_in_order)."""
    return state.put_in_order() if consume else state.copy()


def cycles(rs: Ruleset, state: GameState, nation: str) -> int:
    """Rule 7.3 — how many cycles of movement and battle the nation's turn has (the family's `cycles`)."""
    return rs.rules.cycles(rs, state, nation)


def play_nation_turn(rs: Ruleset, state: GameState, nation: str, orders: dict[str, NationOrders], dice: Dice, *,
                     start: str = "population", stop: str = "end_of_turn", strict: bool = True,
                     consume: bool = False, keep: tuple[str, ...] = ()) -> TurnResult:
    """Play one nation's turn (rule 4.1-4.5: the family's `nation_turn`). With `strict`, any illegal
    order refuses the whole turn and the state is returned unchanged; otherwise illegal orders are
    dropped and reported, and every other order the turn did not use gets an `order_unused` event
    (pbem.rules.accounting).

    The turn is played on a copy of `state`, unless the caller hands it over (`consume`: it will not
    use it again; not with `strict`, which must be able to give back the position unchanged).

    `keep`: stop points (STOPS) the turn passes and keeps a copy of (TurnResult.kept): one play
    answers what a play stopped there would (not with `strict`, whose refusal would keep nothing).

    Validation is this same function with neutral dice (pbem.rules.legal.validate): every order kind
    is judged on arrival as it will be when carried out."""
    if consume and strict:
        raise ValueError("a strict turn gives back the position unchanged: it cannot be handed over")
    if keep and strict:
        raise ValueError("a strict turn refused on the way keeps nothing: keep stop points without `strict`")
    ctx = TurnContext(rs, _working_state(state, consume), nation, dict(orders), dice)
    ctx.state.next_nation = nation
    t = NationTurn(ctx, start=start, stop=stop, strict=strict, keep=keep)
    try:
        rs.rules.nation_turn(t)
    except TurnStopped as stopped:
        if stopped.refused:
            return TurnResult(state, [], t.problems + t.move_problems)
        return TurnResult(ctx.state, ctx.events, t.problems + t.move_problems, _kept(t))
    return TurnResult(ctx.state, ctx.events, t.problems, _kept(t))


def _kept(t: NationTurn) -> dict[str, TurnResult]:
    return {point: TurnResult(*copy) for point, copy in t.kept.items()}


# --- the game turn ------------------------------------------------------------------------------
def has_something_to_do(rs: Ruleset, state: GameState, nation: str) -> bool:
    """Rule 4.0 — a nation with no pieces on the board and no arrivals this turn is skipped (and one
    the family gives no turn of its own: `Rules.has_nation_turn`)."""
    if not rs.rules.has_nation_turn(rs, nation):
        return False
    for stacks in state.areas.values():   # units_of or leaders_on_board, stopping at the first piece
        if nation in stacks:
            s = stacks[nation]
            if s.armies or s.cavalry or s.leaders:
                return True
    rnd = rs.round_info(state.round)
    if any(a.nation == nation for a in rnd.arrivals):
        return True
    return rs.rules.has_reinforcements(rs, state, nation)   # reinforced even if none is left


def next_nation_after(rs: Ruleset, state: GameState, nation: str | None) -> str | None:
    order = list(rs.order_of_play)
    rest = order if nation is None else order[order.index(nation) + 1:]
    for n in rest:
        if has_something_to_do(rs, state, n):
            return n
    return None


def start_round(rs: Ruleset, state: GameState, ballots: dict[str, str] | None = None, *,
                consume: bool = False) -> tuple[GameState, list[Event]]:
    """The beginning of a game turn (the family's `round_start`), then the first nation to play. On
    a copy of `state` unless it is handed over (`consume`)."""
    state = _working_state(state, consume)
    events: list[Event] = []
    rs.rules.round_start(rs, state, ballots or {}, events)
    state.next_nation = next_nation_after(rs, state, None)
    return state, events


def crowns_owed(state: GameState) -> bool:
    """The turns of the round and its end are played, its closing step (the family's `close_round`,
    where a family judges the crowns with the votes) is not yet."""
    return state.extras.get(CROWNS_OWED) == state.round


def close_round(rs: Ruleset, state: GameState, ballots: dict[str, str] | None = None, *,
                consume: bool = False) -> tuple[GameState, list[Event]]:
    """The closing step of a round `end_round` left open (`crowns_owed`): the family's `close_round`
    with the VOTE orders, then the round is over. On a copy of `state` unless it is handed over."""
    state = _working_state(state, consume)
    events: list[Event] = []
    rs.rules.close_round(rs, state, ballots or {}, events)
    return state, events


def end_round(rs: Ruleset, state: GameState, *, consume: bool = False) -> tuple[GameState, list[dict]]:
    """The end of a game turn (the family's `round_end`: scoring, the end of the game after the last
    one). A family may leave the round open (`crowns_owed`) for a closing step: `close_round` plays it.
    On a copy of `state` unless it is handed over (`consume`)."""
    state = _working_state(state, consume)
    events: list[Event] = []
    rs.rules.round_end(rs, state, events)
    return state, events


def add_stack(state: GameState, area: str, nation: str, stack: Stack) -> None:
    st = state.stack(area, nation)
    st.armies += stack.armies
    st.cavalry += stack.cavalry
    st.raiders += stack.raiders
    st.fort = st.fort + stack.fort if st.fort and stack.fort else (st.fort or stack.fort)   # a count (Stack.fort)
    st.burhs += stack.burhs
    st.leaders += stack.leaders
