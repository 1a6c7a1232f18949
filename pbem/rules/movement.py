"""Rule 5 — movement (with 7.1-7.5 landings, 9.1 leaders, 10.4 forts built on the way).

One function checks a movement phase's orders and, when asked, carries them out: validation and
adjudication are the same code. Problems carry the error kinds of ORDERS.md.

Readings where seed 001 is silent (each pinned by a case in tests/cases/classic):
- an army is a leader's escort (9.1) when it moves on exactly the leader's path in the same cycle;
- a landing counts as the first move (7.11 (1)); fast units (the empire's, cavalry, escorts) may land and
  move two more (7.24), or take the next sea and then land and move one more;
- the 5.3 ratio counts forts as armies (10.4) and never leaders (9.0); armies of a nation subject to
  the mover do not stop it (11.1), for the 11.2 overlord only in the subject's areas that submitted (11.2);
- a leader that ends its move alone in an area held by another nation's armies is eliminated (9.2).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pbem.errors import OrderProblem
from pbem.rules.context import Kill, MoveRecord, TurnContext
from pbem.rules.orders import Move, Stay
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import submitted_area
from pbem.rules.stacking import land_counts, limits_text, over_limit
from pbem.rules.state import GameState


@dataclass
class PlannedMove:
    order: Move
    escorted: bool = False


def problem(kind: str, order, message: str, hint: str = "") -> OrderProblem:
    return OrderProblem(kind, order.line, order.text, message, hint)


def allowance(rs: Ruleset, nation: str, kind: str, escorted: bool) -> int:
    """5.12 two areas; 5.13 cavalry and the empire's armies three; 9.1 leaders and their escort three."""
    if kind in ("cavalry", "leader") or nation == rs.role("empire") or escorted:
        return rs.const.move_fast
    return rs.const.move


def enemy_armies(state: GameState, area: str, nation: str) -> int:
    """Armies (and forts/burhs, which act as armies) of other nations in the area (5.3)."""
    return sum(s.fighters for n, s in state.areas.get(area, {}).items() if n != nation)


def passable_enemy(state: GameState, area: str, nation: str, rs: Ruleset | None = None) -> bool:
    """Rule 11.1 — Roman armies move freely through areas of nations subject to Rome (and, 11.2, the
    overlord of rule 11.2 through its subject's areas that submitted to it)."""
    others = [n for n, s in state.areas.get(area, {}).items() if n != nation and s.fighters]
    if rs is None:
        return bool(others) and all(state.subjects.get(n) == nation for n in others)
    return bool(others) and all(submitted_area(rs, state, n, area) == nation for n in others)


def check_path(rs: Ruleset, state: GameState, nation: str, order: Move, escorted: bool) -> list[OrderProblem]:
    """The checks that need only the path and the map: adjacency, straits, seas, distance, hilands."""
    path = order.path
    if len(path) < 2:
        return [problem("syntax", order, "a move needs at least two places")]
    rnd = rs.round_info(state.round)
    must_stop = rs.rules.stops_in_hiland(rs, order.kind, escorted)
    starts_at_sea = rs.is_sea(path[0])
    nat = rs.nations[nation]
    steps = len(path) - 1
    seas_passed = [p for p in path[1:] if rs.is_sea(p)]
    for i, (a, b) in enumerate(zip(path, path[1:])):
        if rs.strait(a, b):
            if steps != 1:
                return [problem("strait", order, f"crossing from {rs.display(a)} to {rs.display(b)} takes the whole move (rule 5.15)",
                                 f"start the turn in {rs.display(a)} and end it in {rs.display(b)}")]
            continue
        if b not in rs.neighbours(a):
            hint = ", ".join(sorted(rs.display(x) for x in rs.neighbours(a) | (rs.areas[a].straits if rs.is_land(a) else frozenset())))
            return [problem("not-adjacent", order, f"{rs.display(a)} does not border {rs.display(b)}", f"{rs.display(a)} borders: {hint}")]
        if rs.is_sea(b) and b in nat.landing.forbidden_seas:
            return [problem("sea-move", order, f"the {nat.name} may not enter the {rs.display(b)} (their card)")]
        if rs.is_sea(a) and rs.is_sea(b):
            if not (starts_at_sea and i == 0):
                return [problem("sea-move", order, "armies may pass through only one sea (rules 5.4, 7.11)")]
            if not nat.sea_moves:
                return [problem("sea-move", order, f"the {nat.name} must land from {rs.display(a)} directly (rule 7.4)")]
        if rs.is_land(a) and rs.is_sea(b):
            if nation not in rnd.boats:
                return [problem("sea-move", order, f"the {nat.name} have no boats in round {state.round} (rule 5.4)",
                                 "armies on land may enter a sea only in a Boats turn")]
            if len([p for p in path if rs.is_sea(p)]) > 1:
                return [problem("sea-move", order, "a boat move passes through one sea only (rule 5.4)")]
        if rs.is_sea(a) and rs.is_land(b) and starts_at_sea:
            land = nat.landing
            if (land.areas is not None and b not in land.areas) or (land.from_seas is not None and a not in land.from_seas):
                allowed = ", ".join(sorted(rs.display(x) for x in rs.seas[a].coast if land.areas is None or x in land.areas))
                return [problem("landing-restriction", order, f"the {nat.name} may not land in {rs.display(b)} (rules 7.4, 15.3)",
                                 f"from {rs.display(a)} they may land in: {allowed or 'nowhere'}")]
        if rs.is_land(b) and rs.hiland(b) and i < steps - 1 and must_stop:
            escorts_stop = rs.rules.stops_in_hiland(rs, "armies", True)
            hint = "a leader need not stop (rule 5.12)" if escorts_stop else "a leader and its escort need not stop (rule 9.1)"
            return [problem("hiland-stop", order, f"armies must stop on entering a hiland ({rs.display(b)}, rule 5.12)", hint)]
    limit = allowance(rs, nation, order.kind, escorted)
    if steps > limit and rs.rules.road_cost(rs, state, nation, path) > limit:
        return [problem("too-far", order, f"{steps} areas is more than the {limit} allowed (rules 5.12, 5.13, 9.1)")]
    end = path[-1]
    if rs.is_sea(end):
        if not starts_at_sea:
            return [problem("sea-move", order, "no move may end at sea (rules 5.4, 7.5)")]
        if len(seas_passed) and not _is_raider_move(state, nation, order):
            return [problem("sea-move", order, "invaders may not move to another sea and stay there (rule 7.21)")]
    return []


def _is_raider_move(state: GameState, nation: str, order: Move) -> bool:
    st = state.get(order.path[0], nation)
    return bool(st and st.raiders >= order.count)


def plan_cycle(ctx: TurnContext, moves: list[Move], stays: list[Stay]) -> tuple[list[PlannedMove], list[OrderProblem]]:
    """Check one movement phase's orders against the position at its start (rules 5.1-5.5, 7.1-7.5)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    problems: list[OrderProblem] = []
    leader_paths = {(m.path, m.cycle) for m in moves if m.kind == "leader"}
    used: dict[tuple[str, str], int] = defaultdict(int)   # (place, kind) -> units already ordered away
    planned: list[PlannedMove] = []
    for m in moves:
        if m.count < 1:
            problems.append(problem("syntax", m, "the number of units must be at least 1"))
            continue
        if any(not (rs.is_land(p) or rs.is_sea(p)) for p in m.path):
            problems.append(problem("unknown-name", m, "unknown place in the path"))
            continue
        start = m.path[0]
        stack = state.get(start, nation)
        if m.kind == "leader":
            if not stack or m.leader not in stack.leaders:
                problems.append(problem("not-your-unit", m, f"{rs.display(m.leader or '?')} is not in {rs.display(start)}"))
                continue
        else:
            have = 0 if not stack else (stack.cavalry if m.kind == "cavalry" else stack.armies)
            used[(start, m.kind)] += m.count
            if used[(start, m.kind)] > have:
                what = "cavalry" if m.kind == "cavalry" else "armies"
                problems.append(problem("not-your-unit", m, f"the {rs.nations[nation].name} have {have} {what} in {rs.display(start)}",
                                         f"{used[(start, m.kind)]} ordered to move from there"))
                continue
        escorted = m.kind != "leader" and (m.path, m.cycle) in leader_paths
        path_problems = check_path(rs, state, nation, m, escorted)
        if not path_problems:
            path_problems = check_attack_rules(ctx, m)
        if path_problems:
            problems.extend(path_problems)
            continue
        planned.append(PlannedMove(m, escorted))
    for s in stays:
        st = state.get(s.sea, nation)
        if not rs.is_sea(s.sea):
            problems.append(problem("sea-move", s, f"{rs.display(s.sea)} is not a sea"))
        elif not st or st.armies - used[(s.sea, "armies")] < s.count:
            problems.append(problem("not-your-unit", s, f"not {s.count} armies left at {rs.display(s.sea)}"))
        elif rs.rules.must_come_ashore(ctx):
            problems.append(problem("not-now", s, *rs.rules.stay_at_sea_refusal(rs, nation)))
        else:
            used[(s.sea, "armies")] += s.count
    problems.extend(_check_enemy_stops(ctx, planned))
    problems.extend(rs.rules.movement_problems(ctx, planned))   # the family's own checks
    if not problems:
        problems.extend(_check_stacking(ctx, planned))
    return planned, problems


def units_after_moves(state: GameState, nation: str, planned: list[PlannedMove]
                       ) -> tuple[dict[str, int], dict[str, int], dict[str, Move], dict[str, Move]]:
    """The nation's armies and cavalry per area before the planned moves and after them, the last
    planned move out of each area, and each moving leader's move (the families' movement checks ask them)."""
    units: dict[str, int] = {}
    for area, st in state.areas.items():
        if nation in st:
            s = st[nation]
            units[area] = s.armies + s.cavalry
    after = dict(units)
    out_of: dict[str, Move] = {}
    leaders_moved: dict[str, Move] = {}
    for p in planned:
        m = p.order
        if m.kind == "leader":
            leaders_moved[m.leader or ""] = m
            continue
        after[m.path[0]] = after.get(m.path[0], 0) - m.count
        after[m.path[-1]] = after.get(m.path[-1], 0) + m.count
        out_of[m.path[0]] = m
    return units, after, out_of, leaders_moved


def check_attack_rules(ctx: TurnContext, m: Move) -> list[OrderProblem]:
    """Rules 10.5 and 11.1 — who may not attack whom (and the ruleset's own bars, Rules.attack_barred)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    end = m.path[-1]
    others = [n for n in state.occupants(end) if n != nation]
    # hook shielded_from_successor: 10.5, or the ruleset's own shield
    shielded = [n for n in others if nation == rs.role("successor") and rs.rules.shielded_from_successor(rs, state, n)]
    if shielded:
        return [problem("not-now", m, rs.rules.successor_shield_reason(rs, shielded[0]))]
    for n in others:
        if submitted_area(rs, state, n, end) == nation:
            return [problem("not-now", m, f"the {rs.nations[n].name} in {rs.display(end)} are subject to you: you may pass through but not end there (rules 11.1, 11.2)")]
        if submitted_area(rs, state, nation, end) == n:
            return [problem("not-now", m, f"a subject nation cannot attack the {rs.nations[n].name} (rules 11.1, 11.2)")]
        barred = rs.rules.attack_barred(ctx, m, n)
        if barred is not None:
            return [barred]
    return []


def _check_enemy_stops(ctx: TurnContext, planned: list[PlannedMove]) -> list[OrderProblem]:
    """Rule 5.3 — stop on entering an area held by another nation's armies, unless armies stopping there
    outnumber the occupiers at least two to one (overrun)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    stoppers: dict[str, int] = defaultdict(int)
    for p in planned:
        if p.order.kind != "leader" and rs.is_land(p.order.path[-1]):
            stoppers[p.order.path[-1]] += p.order.count
    problems = []
    for p in planned:
        for area in p.order.path[1:-1]:
            if not rs.is_land(area):
                continue
            enemies = enemy_armies(state, area, nation)
            if not enemies or passable_enemy(state, area, nation, rs):
                continue
            barred = rs.rules.overrun_barred(ctx, area)   # hook: where the family allows no overrun at all
            if barred is not None:
                problems.append(problem("enemy-stop", p.order, barred))
                break
            own_there = state.get(area, nation)
            stopping = stoppers.get(area, 0) + (own_there.units if own_there else 0)
            if stopping < 2 * enemies:
                problems.append(problem(
                    "enemy-stop", p.order, f"{rs.display(area)} is held by other armies ({enemies}); moving on needs {2 * enemies} of yours stopping there (rule 5.3)",
                    f"{stopping} stop there"))
                break
    return problems


def _check_stacking(ctx: TurnContext, planned: list[PlannedMove]) -> list[OrderProblem]:
    """Rule 5.2 at the end of the movement phase (15.1)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    counts = land_counts(rs, state, nation)
    for p in planned:
        m = p.order
        if m.kind == "leader":
            continue
        if rs.is_land(m.path[0]):
            counts[m.path[0]] = counts.get(m.path[0], 0) - m.count
        if rs.is_land(m.path[-1]):
            counts[m.path[-1]] = counts.get(m.path[-1], 0) + m.count
    counts = {a: n for a, n in counts.items() if n > 0}
    bad = over_limit(rs, nation, counts)
    if not bad:
        return []
    if (rs.rules.excess_stacking_removed(rs) and over_limit(rs, nation, land_counts(rs, state, nation))
            and not any(p.order.kind != "leader" and p.order.path[-1] in bad for p in planned)):
        return []   # over the limits before the movement, and not by these moves: the excess goes after it
    culprit = None
    for p in planned:
        if p.order.path[-1] in bad and p.order.kind != "leader":
            culprit = p.order
    desc = ", ".join(f"{rs.display(a)} {counts[a]}" for a in bad)
    msg = f"stacking limits broken at the end of movement: {desc} ({limits_text(rs, nation)})"
    if culprit is None:
        return [OrderProblem("stacking", 0, "", msg)]
    return [problem("stacking", culprit, msg)]


def execute_cycle(ctx: TurnContext, planned: list[PlannedMove]) -> None:
    """Carry out checked moves: pieces leave, pass through (killing lone leaders, 9.0; building Roman
    forts, 10.4; recording captures, 14.3) and arrive."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    for p in planned:
        m = p.order
        src = state.stack(m.path[0], nation)
        raiders = 0
        if m.kind == "leader":
            src.leaders.remove(m.leader)
        elif m.kind == "cavalry":
            src.cavalry -= m.count
        else:
            # raiders move first out of a stack that holds them (they are the ones at sea)
            raiders = min(src.raiders, m.count)
            src.armies -= m.count
            src.raiders -= raiders
        dst = state.stack(m.path[-1], nation)
        if m.kind == "leader":
            dst.leaders.append(m.leader)
        elif m.kind == "cavalry":
            dst.cavalry += m.count
        else:
            dst.armies += m.count
            dst.raiders += raiders
        rec = MoveRecord(nation, m.kind, m.count, raiders, m.path, ctx.cycle, m.line, m.leader)
        ctx.moves.append(rec)
        if raiders and rs.is_sea(m.path[0]):
            ctx.state.raided_from.setdefault(nation, m.path[0])
        ctx.emit("moved", nation=nation, kind=m.kind, count=m.count, path=list(m.path), leader=m.leader,
                 raiders=raiders, cycle=ctx.cycle, line=m.line)
        for area in m.path[1:]:
            if rs.is_land(area) and m.kind != "leader":
                enter_area(ctx, area, passing=area != m.path[-1])
    _lone_leaders_among_enemies(ctx)
    state.prune()


def _lone_leaders_among_enemies(ctx: TurnContext) -> None:
    """Rule 9.2 (our reading where the rules are silent) — a leader that ends its move alone in an area
    held by another nation's armies cannot fight (9.0) and is eliminated, as if left alone in battle."""
    state, nation = ctx.state, ctx.nation
    for area, st in list(state.areas.items()):   # kill_leader adds and removes no stack
        if nation not in st:
            continue
        own = st[nation]
        if not own.leaders or own.fighters:
            continue
        armed = [n for n in state.occupants(area) if n != nation]
        if armed:
            for ld in list(own.leaders):
                kill_leader(ctx, area, nation, ld, killer=armed[0])


def enter_area(ctx: TurnContext, area: str, passing: bool) -> None:
    """Side effects of armies entering a land area (rules 9.0, 10.4, 14.3)."""
    state, nation = ctx.state, ctx.nation
    for other, st in list(state.areas.get(area, {}).items()):
        if other != nation and st.leaders and not st.fighters:
            for ld in list(st.leaders):
                kill_leader(ctx, area, other, ld, killer=nation)
    if not any(n != nation for n in state.occupants(area)):
        occupy(ctx, area)


def occupy(ctx: TurnContext, area: str) -> None:
    """The nation is (for a moment, at least) sole occupant of `area`: capture (14.3) and forts (10.4)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    ctx.entered.add(area)
    if rs.rules.builds_fort(rs, state, nation, area):
        state.forts_built.add(area)
        state.stack(area, nation).fort = True
        ctx.emit("fort_built", area=area)


def kill_leader(ctx: TurnContext, area: str, owner: str, leader: str, killer: str) -> None:
    """Rules 9.0, 9.2 — a leader alone with enemy armies is eliminated."""
    st = ctx.state.get(area, owner)
    if st and leader in st.leaders:
        st.leaders.remove(leader)
    ctx.state.dead_leaders.add(leader)
    ctx.state.leader_killed_by[leader] = killer
    ctx.kills.append(Kill(killer=killer, victim=owner, kind="leaders", area=area, leader=leader))
    ctx.emit("leader_killed", area=area, nation=owner, leader=leader, by=killer)


def invaders_left_at_sea(ctx: TurnContext) -> None:
    """Rule 7.2 as a family plays it — when its armies must come ashore in this movement phase
    (`Rules.must_come_ashore`), the armies, cavalry and leaders of the nation still at sea at its end
    are lost (`lost_at_sea`)."""
    if not ctx.rs.rules.must_come_ashore(ctx):
        return
    state = ctx.state
    for area, stacks in list(state.areas.items()):   # the loop empties stacks, removes none
        st = stacks.get(ctx.nation)
        if st and (st.armies or st.cavalry or st.leaders) and ctx.rs.is_sea(area):
            ctx.emit("lost_at_sea", nation=ctx.nation, sea=area, armies=st.armies, cavalry=st.cavalry,
                     leaders=list(st.leaders))
            state.dead_leaders.update(st.leaders)
            st.armies = st.cavalry = st.raiders = 0
            st.leaders.clear()
    state.prune()
