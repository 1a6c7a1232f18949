"""Invariants of a position, checked after every step of a fuzzed game (pbem selfplay --check).

Each function returns a list of violations (plain sentences naming the rule); an empty list is good.
The limits come from the ruleset and the rules core (stacking.over_limit), never from constants here.
"""

from __future__ import annotations

from collections import Counter

from pbem.rules.endturn import exempt_from_overpopulation
from pbem.rules.ruleset import Ruleset
from pbem.rules.stacking import land_counts, over_limit
from pbem.rules.state import GameState


def stacking(rs: Ruleset, state: GameState, nations=None, when: str = "") -> list[str]:
    """Rule 5.2 (with 5.22 for the empire): every nation's land stacks within the limits."""
    out = []
    for nation in nations if nations is not None else rs.nations:
        counts = land_counts(rs, state, nation)
        bad = over_limit(rs, nation, counts)
        if bad:
            where = ", ".join(f"{a} {counts[a]}" for a in bad)
            out.append(f"stacking (5.2){' ' + when if when else ''}: {nation} has {where}")
    return out


def overpopulation(rs: Ruleset, state: GameState, nation: str, rnd: int) -> list[str]:
    """Rule 6.0 — at the end of its turn a nation has at most twice as many units on land as land areas
    it occupies (armies at sea do not count), unless exempt (ruleset.yaml overpopulation_exempt)."""
    if exempt_from_overpopulation(rs, nation, rnd):
        return []
    land = [st[nation].units for a, st in state.areas.items() if rs.is_land(a) and nation in st and st[nation].units]
    limit = rs.const.overpop_factor * len(land)
    if sum(land) > limit:
        return [f"overpopulation (6.0): {nation} ends its turn {rnd} with {sum(land)} units on land "
                f"in {len(land)} areas (at most {limit})"]
    return []


def pieces(rs: Ruleset, state: GameState) -> list[str]:
    """Piece limits (the counter mix), and no piece where it cannot be: known places and nations only,
    no negative counts, raiders among armies, forts on land and only of the nations that hold them
    (Rules.holds_forts), burhs on land, each leader of its own nation, alive, and on the board once."""
    out = []
    armies: Counter = Counter()
    cavalry: Counter = Counter()
    forts: Counter = Counter()
    burhs: Counter = Counter()
    seen_leaders: Counter = Counter()
    for area, st in state.areas.items():
        land = rs.is_land(area)
        if not land and not rs.is_sea(area):
            out.append(f"place: {area!r} is neither a land area nor a sea")
        for nation, s in st.items():
            if nation not in rs.nations:
                out.append(f"nation: {nation!r} in {area} is not a nation of the ruleset")
                continue
            for what in ("armies", "cavalry", "raiders", "burhs"):
                v = getattr(s, what)
                if not isinstance(v, int) or v < 0:
                    out.append(f"count: {nation} in {area} has {what} = {v!r}")
            if s.raiders > s.armies:
                out.append(f"raiders: {nation} in {area} has {s.raiders} raiders among {s.armies} armies")
            if s.fort and (not rs.rules.holds_forts(rs, nation) or not land):
                out.append(f"fort: a fort of the {nation} in {area} (forts are on land, of the nations that hold them, 10.4)")
            if s.burhs and not land:
                out.append(f"burh: {nation} burhs at sea in {area}")
            armies[nation] += s.armies
            cavalry[nation] += s.cavalry
            forts[nation] += int(s.fort)
            burhs[nation] += s.burhs
            for ld in s.leaders:
                seen_leaders[ld] += 1
                info = rs.leaders.get(ld)
                if info is None:
                    out.append(f"leader: {ld!r} in {area} is not a leader of the ruleset")
                elif info.nation != nation:
                    out.append(f"leader: {ld} ({info.nation}) stands in the {nation} stack in {area}")
                if ld in state.dead_leaders:
                    out.append(f"leader: {ld} is dead but on the board in {area}")
    for ld, n in seen_leaders.items():
        if n > 1:
            out.append(f"leader: {ld} is on the board {n} times")
    for nation, nat in rs.nations.items():
        limit = rs.rules.army_piece_limit(rs, nation, state.round)   # the ruleset's counter mix, this round
        if armies[nation] > limit:
            out.append(f"piece limit: {nation} have {armies[nation]} armies (max {limit})")
        if cavalry[nation] > nat.max_cavalry:
            out.append(f"piece limit: {nation} have {cavalry[nation]} cavalry (max {nat.max_cavalry})")
        if forts[nation] > max(nat.max_forts, 0):
            out.append(f"piece limit: {nation} have {forts[nation]} forts (max {nat.max_forts})")
        if burhs[nation] > max(nat.max_burhs, 0):
            out.append(f"piece limit: {nation} have {burhs[nation]} burhs (max {nat.max_burhs})")
    return out


def ledger(state: GameState) -> list[str]:
    """Rule 14.3 — the VP ledger sums to the scores, entry by entry."""
    sums: Counter = Counter()
    out = []
    for e in state.ledger:
        pts = e.get("points")
        if not isinstance(pts, int) or isinstance(pts, bool):
            out.append(f"ledger: entry with points {pts!r}: {e}")
            continue
        sums[e.get("nation")] += pts
    for nation in set(sums) | set(state.vp):
        if sums.get(nation, 0) != state.vp.get(nation, 0):
            out.append(f"ledger: {nation} ledger sums to {sums.get(nation, 0)} but the score is {state.vp.get(nation, 0)}")
    return out


def game_end(rs: Ruleset, state: GameState) -> list[str]:
    """Rule 14.1 — the game ends after round 16, not before, and nothing is played after it."""
    last = rs.const.max_rounds
    out = []
    if state.round > last:
        out.append(f"game end: round {state.round} after the last round {last}")
    if state.finished and state.round != last:
        out.append(f"game end: finished in round {state.round}, not {last}")
    if state.finished and state.next_nation is not None:
        out.append(f"game end: finished but {state.next_nation} is still to play")
    late = [e for e in state.ledger if e.get("round", 0) > last]
    if late:
        out.append(f"game end: {len(late)} ledger entries after round {last}")
    return out


def battles_over(rs: Ruleset, state: GameState) -> list[str]:
    """Rules 8.0-8.3, 9.2 — between steps every battle is over: no land area holds the fighters of two
    nations, and no leader stands without its own armies where another nation has some."""
    out = []
    for area, st in state.areas.items():
        if not rs.is_land(area):
            continue
        armed = sorted(n for n, s in st.items() if s.fighters)
        if len(armed) > 1:
            out.append(f"battle: {area} is held by {' and '.join(armed)} after the step (8.0)")
        for n, s in st.items():
            if s.leaders and not s.fighters and any(o != n for o in armed):
                out.append(f"leader: {', '.join(s.leaders)} ({n}) alone with enemy armies in {area} (9.2)")
    return out


def raiders_home(rs: Ruleset, state: GameState, nation: str) -> list[str]:
    """Rule 7.13 — at the end of its turn a nation's raiders are back at sea or have settled."""
    ashore = sorted(a for a, st in state.areas.items() if rs.is_land(a) and nation in st and st[nation].raiders)
    return [f"raiders: {nation} raiders still ashore in {', '.join(ashore)} after their turn (7.13)"] if ashore else []


def position(rs: Ruleset, state: GameState) -> list[str]:
    """Everything that must hold of any position between steps."""
    return stacking(rs, state) + pieces(rs, state) + battles_over(rs, state) + ledger(state) + game_end(rs, state)


def after_step(rs: Ruleset, before: GameState, step) -> list[str]:
    """Invariants after one flow.Step: the position; overpopulation and raiders of the nation that played;
    the family's own (`Rules.invariants`)."""
    out = position(rs, step.state) + rs.rules.invariants(rs, before, step)
    if step.kind == "nation_turn" and step.nation:
        out += overpopulation(rs, step.state, step.nation, step.round)
        out += raiders_home(rs, step.state, step.nation)
    if step.state.round < before.round:
        out.append(f"game end: the round went back from {before.round} to {step.state.round}")
    return out


def finished(rs: Ruleset, state: GameState) -> list[str]:
    """After play_game returns: the game is over, in the last round."""
    out = game_end(rs, state)
    if not state.finished:
        out.append("game end: play stopped but the game is not finished")
    elif state.round != rs.const.max_rounds:
        out.append(f"game end: finished in round {state.round}")
    return out


def orders_accounted(step, orders) -> list[str]:
    """Issue 15 — no silently ignored order: every turn order the nation's turn was given (and that
    validation answered OK) is named by an event of the step: carried out (`line`/`lines`), refused
    (`order_dropped`) or without effect, with the reason (`order_unused`)."""
    from pbem.rules.accounting import accounted
    from pbem.rules.events import named_lines

    if step.kind != "nation_turn" or not step.nation or orders is None:
        return []
    named = named_lines(step.events, step.nation)
    return [f"order ignored silently: {step.nation} line {o.line} {o.text or type(o).__name__!r}"
            for o in orders.orders if accounted(o) and o.line not in named]
