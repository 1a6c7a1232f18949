"""Rule 4 — the sequence of play: game turns 1-16, nations in the order of play, the phases of a
nation's turn, and the steps at the start and end of each game turn.

`play_nation_turn` is the one entry point that adjudicates (and, with `dry_run`, validates) a nation's
turn: the same code refuses illegal orders and carries out legal ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pbem.errors import OrderProblem
from pbem.rules import accounting, battle, endturn, kingship, movement, population, scoring
from pbem.rules.context import TurnContext
from pbem.rules.dice import Dice
from pbem.rules.events import Event, make
from pbem.rules.orders import Move, NationOrders, Stay, Submit, order_to_dict, standing_key
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState, Stack
from pbem.rules.submission import can_submit, in_overlord_turn_only, revolt, submit, waiting_submissions

STARTS = ("population", "movement", "battles")
STOPS = ("after_population", "after_movement", "after_battles", "end_of_turn")


@dataclass
class TurnResult:
    state: GameState
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[OrderProblem] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return not self.problems


def new_game_state(rs: Ruleset, game_id: str = "game") -> GameState:
    """Rule 3.0 — one army in each starting area; fifteen Romans in the English Channel."""
    state = GameState(ruleset=rs.id, game=game_id, round=1)
    for nid, nat in rs.nations.items():
        for area, n in nat.start.items():
            state.stack(area, nid).armies += n
    state.next_nation = None
    return state


def _working_state(state: GameState, consume: bool) -> GameState:
    """The position a step works on: a copy, so that the caller's stays as it was (bots probing,
    validation, previews), or, when the caller hands it over (`consume`: it never uses it again), the
    caller's own, put in the order a copy would have (GameState.put_in_order)."""
    return state.put_in_order() if consume else state.copy()


def cycles(rs: Ruleset, state: GameState, nation: str) -> int:
    """Rule 7.3 — a major invasion gives two cycles of movement and battle."""
    return 2 if nation in rs.round_info(state.round).major_invasions else 1


def play_nation_turn(rs: Ruleset, state: GameState, nation: str, orders: dict[str, NationOrders], dice: Dice, *,
                     start: str = "population", stop: str = "end_of_turn", strict: bool = True,
                     consume: bool = False) -> TurnResult:
    """Play one nation's turn (rule 4.1-4.5). With `strict`, any illegal order refuses the whole turn
    and the state is returned unchanged; otherwise illegal orders are dropped and reported, and every
    other order the turn did not use gets an `order_unused` event (pbem.rules.accounting).

    The turn is played on a copy of `state`, unless the caller hands it over (`consume`: it will not
    use it again; not with `strict`, which must be able to give back the position unchanged).

    Validation is this same function with neutral dice (pbem.rules.legal.validate): every order kind
    is judged on arrival as it will be when carried out."""
    if consume and strict:
        raise ValueError("a strict turn gives back the position unchanged: it cannot be handed over")
    ctx = TurnContext(rs, _working_state(state, consume), nation, dict(orders), dice)
    ctx.state.next_nation = nation
    problems: list[OrderProblem] = []
    _keep_standing_orders(ctx)
    problems += _permissions(ctx)
    if start == "population":
        revolt(ctx)   # FFG 34: before the population increase
        population.leaders_leave(ctx)
        rs.rules.roman_reinforcements(ctx)   # 10.3
        problems += population.arrivals(ctx)
        problems += population.increase(ctx)
        if stop == "before_leaders":   # the prompt asks where the arriving leaders may enter (9.0)
            return TurnResult(ctx.state, ctx.events, problems)
        problems += population.leaders_enter(ctx)
        endturn.raid_turn_raiders(ctx)   # FFG 17: who is a raider this turn
        if problems and strict:
            return TurnResult(state, [], problems)
        if stop == "after_population":
            return TurnResult(ctx.state, ctx.events, problems)
    problems += _submission(ctx)
    if problems and strict:
        return TurnResult(state, [], problems)
    if start in ("population", "movement"):
        problems += rs.rules.optional_rules_before_movement(ctx)   # classic 16.1, 16.251 (optional)
        if problems and strict:
            return TurnResult(state, [], problems)
    seen = accounting.Seen()
    accounting.observe(ctx, seen, battles=False)
    own = ctx.own()
    n_cycles = cycles(rs, ctx.state, nation)
    moves = own.of(Move)
    stays = own.of(Stay)
    move_problems: list[OrderProblem] = []
    if not rs.feature("stays_by_movement"):   # data version 1: every STAY judged in the first movement
        stays = [dataclasses.replace(s, cycle=1) for s in stays]
    if n_cycles == 1 and any(o.cycle == 2 for o in moves + stays):
        bad = next(o for o in sorted(moves + stays, key=lambda o: o.line or 0) if o.cycle == 2)
        move_problems.append(OrderProblem("not-now", bad.line, bad.text, f"the {rs.nations[nation].name} have no major invasion this turn (rule 7.3)"))
        if strict:
            return TurnResult(state, [], problems + move_problems)
        moves = [m for m in moves if m.cycle == 1]
        stays = [s for s in stays if s.cycle == 1]
    for c in range(1, n_cycles + 1):
        ctx.cycle = c
        if start in ("population", "movement"):
            planned, cycle_problems = movement.plan_cycle(ctx, [m for m in moves if m.cycle == c],
                                                           [s for s in stays if s.cycle == c])   # 7.3, FFG 18
            if cycle_problems:
                move_problems += cycle_problems
                if strict:
                    return TurnResult(state, [], problems + move_problems)
                bad_lines = {p.line for p in cycle_problems}
                planned = [p for p in planned if p.order.line not in bad_lines]
                if any(p.kind == "stacking" for p in cycle_problems):
                    planned = []
            movement.execute_cycle(ctx, planned)
            rs.rules.after_movement(ctx)   # FFG 18: who had to land and did not is lost
            rs.rules.optional_rules_after_movement(ctx)   # classic 16.251 (optional): the Brittany roll
            waiting_submissions(ctx, "after a movement phase")   # 11.1
            if stop == "after_movement":
                return TurnResult(ctx.state, ctx.events, problems + move_problems)
        accounting.observe(ctx, seen)
        battle.fight_all(ctx)
    problems += move_problems
    if not move_problems:
        # with refused moves the battles are not those the player planned: judged again on correction
        problems += accounting.battle_phase_problems(ctx, seen)
        if problems and strict:
            return TurnResult(state, [], problems)
    if stop == "after_battles":
        return TurnResult(ctx.state, ctx.events, problems)
    end_of_nation_turn(ctx)
    accounting.account(ctx, {p.line for p in problems})
    return TurnResult(ctx.state, ctx.events, problems)


def end_of_nation_turn(ctx: TurnContext) -> None:
    """Raider withdrawal (7.13), victory points (4.5), the ruleset's own steps (hook after_nation_turn:
    classic 12.4 Canute, then 10.6 the Danish withdrawal), overpopulation (6.0) last: the rules give no
    order for the turn-14 steps; we judge Canute on the position the Danes made and count
    overpopulation on what stays in Britain."""
    held = ctx.rs.rules.captures_held_at_withdrawal(ctx)
    all_back = endturn.withdraw_raiders(ctx)
    ctx.state.raided_from.pop(ctx.nation, None)
    if held is not None:
        ctx.entered = held
    scoring.score_captures(ctx)
    scoring.score_kills(ctx, all_back)
    ctx.rs.rules.after_nation_turn(ctx)
    endturn.overpopulation(ctx)


def _keep_standing_orders(ctx: TurnContext) -> None:
    """Standing orders (DEFEND, LOSSES) sent with a nation's orders are kept until changed."""
    from pbem.rules.orders import ClearDefend

    for nation, no in ctx.orders.items():
        keep = ctx.state.standing.setdefault(nation, {})
        for o in no.standing_orders():
            if isinstance(o, ClearDefend):
                keep.pop(f"defend:{o.area}", None)
            else:
                keep[standing_key(o)] = order_to_dict(o)
        if not keep:
            ctx.state.standing.pop(nation, None)


def _permissions(ctx: TurnContext) -> list[OrderProblem]:
    """Rule 11.1 — each turn the Roman player may allow subject nations to increase population
    (ALLOW <nation> in the Romans' orders; it holds for the rest of the game turn). FFG 36: the same
    permission lets the subject leave its areas empty (Rules.movement_problems; ffg2: subject_may_not_vacate)."""
    from pbem.rules.orders import Allow

    problems = []
    for o in ctx.own().of(Allow):
        if ctx.nation != ctx.rs.role("empire") or ctx.state.subjects.get(o.nation) != ctx.nation:
            problems.append(OrderProblem("not-now", o.line, o.text,
                                         "only the Romans may allow a nation subject to them to increase (rule 11.1)"))
            continue
        ctx.rs.rules.permit_subject(ctx.state, o.nation)
        ctx.emit("allowed", nation=o.nation, line=o.line)
    return problems


def _submission(ctx: TurnContext) -> list[OrderProblem]:
    """Rules 11.1, 11.2 — the nation's own SUBMIT TO Romans/Angles, at the start of its turn, when under
    the area threshold (a SUBMIT sent earlier may already have taken effect in another nation's turn,
    rules/submission.py)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    problems: list[OrderProblem] = []
    for o in ctx.own().of(Submit):
        if state.subjects.get(nation) == o.to or in_overlord_turn_only(rs, o.to):
            continue   # FFG 35: to Rome only in the Roman turn (the turn report says why it had no effect)
        if not can_submit(rs, state, nation, o.to):
            problems.append(OrderProblem("not-now", o.line, o.text,
                                         f"the {rs.nations[nation].name} may not submit to the {rs.display(o.to)} now (rules 11.1, 11.2)",
                                         "to Rome: Welsh under 5 areas, Brigantes under 4, Picts under 3, while Roman armies are on the board; "
                                         "Brigantes to the Angles: under 3 areas in Scotland and Galloway, before turn 12"))
            continue
        submit(ctx, nation, o.to, "start of its turn", o.line)
    return problems


# --- the game turn ------------------------------------------------------------------------------
def has_something_to_do(rs: Ruleset, state: GameState, nation: str) -> bool:
    """Rule 4.0 — a nation with no pieces on the board and no arrivals this turn is skipped."""
    for stacks in state.areas.values():   # units_of or leaders_on_board, stopping at the first piece
        if nation in stacks:
            s = stacks[nation]
            if s.armies or s.cavalry or s.leaders:
                return True
    rnd = rs.round_info(state.round)
    if any(a.nation == nation for a in rnd.arrivals):
        return True
    return rs.rules.has_reinforcements(rs, state, nation)   # 10.3, 10.5: reinforced even if none is left


def next_nation_after(rs: Ruleset, state: GameState, nation: str | None) -> str | None:
    order = list(rs.order_of_play)
    rest = order if nation is None else order[order.index(nation) + 1:]
    for n in rest:
        if has_something_to_do(rs, state, n):
            return n
    return None


def start_round(rs: Ruleset, state: GameState, ballots: dict[str, str] | None = None, *,
                consume: bool = False) -> tuple[GameState, list[Event]]:
    """The beginning of a game turn: Roman departure (10.5, turn 6; hook roman_departure), end of
    subjection (11.1, 11.2), King or Bretwalda (12.1-12.3), pieces changing kind (hook
    round_start_conversions), turn-16 reinforcements (10.7; hook turn16_arrivals). On a copy of
    `state` unless it is handed over (`consume`)."""
    state = _working_state(state, consume)
    events: list[Event] = [make("round_started", round=state.round)]
    rnd = state.round
    rules = rs.rules
    rules.roman_departure(rs, state, events)
    subject = rs.role("overlord_subject")
    if subject and rnd == rs.const.angle_submission_ends and state.subjects.get(subject) == rs.role("overlord"):
        del state.subjects[subject]
        events.append(make("subjection_ended", round=rnd, nation=subject))
    _king_army(rs, state, kingship.round_start(rs, state, ballots or {}, events), events)
    rules.round_start_conversions(rs, state, events)
    rules.turn16_arrivals(rs, state, events)
    state.next_nation = next_nation_after(rs, state, None)
    return state, events


def _king_army(rs: Ruleset, state: GameState, king: str | None, events: list) -> None:
    """Rule 12.3 — the new King gets an extra army, placed as population increase."""
    if king:
        ctx = TurnContext(rs, state, king, {}, None)  # type: ignore[arg-type]
        population.place_new_armies(ctx, king, 1 if population.free_armies(ctx, king) else 0, [])
        events += ctx.events


CROWNS_OWED = "crowns_owed"   # GameState.extras: the round whose closing step 2 (crowns, FFG 56) is still to play


def crowns_owed(state: GameState) -> bool:
    """FFG 56 — the turns of the round and its holdings are played; its crowns (step 2) are not yet."""
    return state.extras.get(CROWNS_OWED) == state.round


def close_round(rs: Ruleset, state: GameState, ballots: dict[str, str] | None = None, *,
                consume: bool = False) -> tuple[GameState, list[Event]]:
    """FFG 56 — step 2 of the end of a crown round: Bretwalda (with the VOTE orders) or King, then the
    round is over. On a copy of `state` unless it is handed over (`consume`)."""
    state = _working_state(state, consume)
    events: list[Event] = []
    del state.extras[CROWNS_OWED]
    _king_army(rs, state, kingship.round_end(rs, state, ballots or {}, events), events)
    _next_round(rs, state, events)
    return state, events


def reinforce_at_sea(rs: Ruleset, state: GameState, events: list, nation: str, sea: str, n: int) -> None:
    """Rule 10.7 (and FFG 45) — up to `n` new armies for `nation` in `sea`: no more than its counter
    mix has left off the board (10.1)."""
    n = min(n, rs.nations[nation].max_armies - sum(s.armies for st in state.areas.values() for k, s in st.items() if k == nation))
    if n > 0:
        state.stack(sea, nation).armies += n
        events.append(make("reinforced", nation=nation, sea=sea, armies=n))


def end_round(rs: Ruleset, state: GameState, *, consume: bool = False) -> tuple[GameState, list[dict]]:
    """The end of a game turn: holdings (14.2), Limes (14.4), turn-16 King (12.5), game end (14.1).
    Where the ruleset judges the crowns at the end of the round (FFG 56) the round stays open after the
    holdings, its crowns owed (`crowns_owed`): `close_round` plays them with the votes, then ends it.
    On a copy of `state` unless it is handed over (`consume`)."""
    state = _working_state(state, consume)
    events: list[Event] = []
    scoring.score_holdings(rs, state, events)
    scoring.score_limes(rs, state, events)
    if state.round == rs.const.max_rounds:
        kingship.king_turn16(rs, state, events)
        state.finished = True
        state.next_nation = None
        events.append(make("game_over", round=state.round, vp=dict(state.vp)))
        return state, events
    state.next_nation = None
    if kingship.crowns_at_end(rs) and kingship.crown_round(rs, state.round):
        state.extras[CROWNS_OWED] = state.round   # FFG 56: step 2 (the crowns) is the next step
        return state, events
    _next_round(rs, state, events)
    return state, events


def _next_round(rs: Ruleset, state: GameState, events: list) -> None:
    """Rule 4.0 — the game turn is over: the next one is to start."""
    state.round += 1
    rs.rules.round_ended(state)   # 11.1: ALLOW lasts one game turn
    state.next_nation = None
    events.append(make("round_ended", round=state.round - 1))


def add_stack(state: GameState, area: str, nation: str, stack: Stack) -> None:
    st = state.stack(area, nation)
    st.armies += stack.armies
    st.cavalry += stack.cavalry
    st.raiders += stack.raiders
    st.fort = st.fort or stack.fort
    st.burhs += stack.burhs
    st.leaders += stack.leaders
