"""The end of a nation's turn: raiders withdraw or settle (7.13, 8.4) and overpopulation (6.0).

Raiders go back along the route they came by to the sea where they began the turn (8.4); where a land
area of that route holds another nation's pieces they step into it and fight until one side is gone (no
retreat), then go on to their sea. Seas on the way are passed: no fighting at sea (5.5, 8.0).
Raid points are cancelled if any raider settles or stays ashore alive (7.13), not by raiders that
died (7.14).
"""

from __future__ import annotations

from pbem.rules.battle import fight
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.orders import Disband, Settle, Withdraw


def raider_route_back(ctx: TurnContext, area: str, group: MoveRecord | None = None, *, to_land: bool = False) -> list[str]:
    """Rule 8.4 — the way back to sea: the route the raiders came by, reversed, ending in the sea where
    they BEGAN THE TURN (not the last sea of their path: that is the invader's rule, 7.22).

    `group` is the move that brought them (default: the last raider move into `area`). A group that
    moved on from where it landed (a later move line, or the second cycle of a major invasion) goes back
    through that area too; seas on the way are passed, never fought in (5.5).
    """
    route: list[str] = []
    here, rec = area, group
    for _ in range(len(ctx.moves) + 1):
        if rec is None:
            rec = next((m for m in reversed(ctx.moves) if m.nation == ctx.nation and m.dest == here and m.raiders
                        and not m.withdrawal and m.path[0] != here), None)
        if rec is None:
            break
        route += list(reversed(rec.path[:-1]))
        here, rec = rec.path[0], None
    if ctx.rs.is_sea(here) or to_land:   # 16.1: Pict raiders go home to the land area they started in
        return route
    sea = ctx.state.raided_from.get(ctx.nation)
    if sea is None:
        # a case or an old save may place raiders ashore without a record of their sea
        sea = sorted(ctx.rs.areas[here].seas)[0]
    return route + [sea]


def raiders_go_back(ctx: TurnContext, area: str, count: int, route: list[str], line: int = 0) -> str:
    """Rule 8.4 — `count` raiders in `area` go back to sea along `route` (raider_route_back). Where a
    land area of the route holds other nations' pieces they must enter it and fight until one side is
    gone (no retreat); if they win they go on to sea. No fighting at sea (5.5, 8.0): seas are passed.
    Returns where they stopped (their sea, or the area where they fought and did not win). `line`: the
    WITHDRAW order that sent them (named in the events). The family may shorten the route
    (`Rules.raider_route`: e.g. straight back to their sea, whatever lies between)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    here = area
    route = rs.rules.raider_route(ctx, route)
    for step in route[:-1]:
        if rs.is_sea(step) or not any(n != nation for n in state.occupants(step)):
            continue
        n = _move_raiders(ctx, here, step, count)
        ctx.moves.append(MoveRecord(nation, "armies", n, n, (here, step), ctx.cycle, withdrawal=True))
        ctx.emit("withdrawing", nation=nation, area=here, to=step, armies=n, line=line)
        here = step
        fight(ctx, step, may_retreat=False)
        st = state.get(step, nation)
        if not st or not st.raiders or any(o != nation for o in state.occupants(step)):
            return step
        count = min(count, st.raiders)
    sea = route[-1]
    n = _move_raiders(ctx, here, sea, count)
    ctx.emit("withdrew", nation=nation, area=area, sea=sea, armies=n, line=line)
    return sea


def withdraw_raiders(ctx: TurnContext) -> bool:
    """Rules 7.13-7.14 — after combat each raider returns to the sea it started from (default), or
    settles (SETTLE A) and loses raider status; one raider ashore cancels the turn's raid points.

    Returns True when every surviving raider went back to sea.
    """
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    may_settle = rs.rules.raiders_may_settle(ctx)   # the family may forbid it this turn
    settle = {o.area: o.line for o in ctx.own().of(Settle)} if may_settle else {}
    withdraw = {o.area: o.line for o in ctx.own().of(Withdraw)}
    all_back = True
    for stacks in state.areas.values():
        if nation in stacks and stacks[nation].raiders:
            break
    else:
        state.prune()   # no raider anywhere (most turns): nothing below would happen
        return all_back
    if ctx.rs.rules.raiders_home_on_land(ctx):   # classic 16.1 (optional)
        return _raiders_home_on_land(ctx, settle, withdraw)
    # every area of the position now (raiders stopped on the way back may come to a later one)
    areas = state.areas
    for area in list(areas):
        stacks = areas.get(area)   # state.get, inlined: this loop asks every area
        st = stacks.get(nation) if stacks is not None else None
        if not st or not st.raiders or not rs.is_land(area):
            continue
        if area in settle and area not in withdraw:
            ctx.emit("settled", nation=nation, area=area, armies=st.raiders, line=settle[area])
            st.raiders = 0
            all_back = False
            continue
        stopped = raiders_go_back(ctx, area, st.raiders, raider_route_back(ctx, area), line=withdraw.get(area, 0))
        if rs.is_land(stopped):
            st3 = state.get(stopped, nation)
            if st3 and st3.raiders:
                all_back = False
    state.prune()
    return all_back


def _raiders_home_on_land(ctx: TurnContext, settle: dict[str, int], withdraw: dict[str, int]) -> bool:
    """16.1 — raiders that started the turn on land go back along their way to the land area they
    started in (fighting, as 8.4, where another nation holds an area of it, their home included), or
    settle (SETTLE A); then none of them is a raider any more. True when every one that moved got home."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    all_back = True
    trips = []
    for area, stacks in state.areas.items():
        st = stacks.get(nation)
        if not st or not st.raiders or not rs.is_land(area):
            continue
        if area in settle and area not in withdraw:
            ctx.emit("settled", nation=nation, area=area, armies=st.raiders, line=settle[area])
            all_back = False
            continue
        route = raider_route_back(ctx, area, to_land=True)
        if route:
            trips.append((area, st.raiders, route))
    for area, count, route in trips:
        home = route[-1]
        stopped = raiders_go_back(ctx, area, count, route + [home], line=withdraw.get(area, 0))
        if stopped != home:
            all_back = False
    for area, stacks in state.areas.items():
        st = stacks.get(nation)
        if st and rs.is_land(area):
            st.raiders = 0
    state.prune()
    return all_back


def _move_raiders(ctx: TurnContext, src: str, dst: str, count: int | None = None) -> int:
    """Move `count` raiders (all of them by default) from src to dst; leaders left alone go with them."""
    st = ctx.state.stack(src, ctx.nation)
    n = st.raiders if count is None else min(count, st.raiders)
    st.raiders -= n
    st.armies -= n
    to = ctx.state.stack(dst, ctx.nation)
    to.armies += n
    to.raiders += n
    if not st.units and st.leaders:
        to.leaders.extend(st.leaders)
        st.leaders.clear()
    ctx.state.prune()
    return n


def exempt_from_overpopulation(rs, nation: str, rnd: int) -> bool:
    """Rule 6.0 — ruleset.yaml `overpopulation_exempt`: the nation always ("all") or in the listed turns."""
    ex = rs.overpopulation_exempt.get(nation)
    return ex == "all" or (isinstance(ex, list) and rnd in ex)


def overpopulation_exempt(ctx: TurnContext) -> bool:
    return exempt_from_overpopulation(ctx.rs, ctx.nation, ctx.state.round)


def overpopulation(ctx: TurnContext) -> None:
    """Rule 6.0 — at the end of the turn, armies beyond twice the land areas occupied are removed.

    Armies at sea do not count. The owner chooses (DISBAND A, B ... areas lose armies first); the
    default takes from the largest stack (so no area is emptied), ties by area id.
    """
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if overpopulation_exempt(ctx):
        return
    land = {}   # the nation's stacks with armies or cavalry on land, in the position's order
    for a, st in state.areas.items():
        if nation in st:
            s = st[nation]
            if (s.armies or s.cavalry) and rs.is_land(a):
                land[a] = s
    limit = rs.const.overpop_factor * len(land)
    excess = sum(s.units for s in land.values()) - limit
    if excess <= 0:
        return
    prefs = [a for o in ctx.own().of(Disband) for a in o.areas]
    lines = [o.line for o in ctx.own().of(Disband)]
    removed: dict[str, int] = {}
    while excess > 0:
        candidates = [a for a in prefs if a in land and land[a].units > 1]
        if candidates:
            area = candidates[0]
        else:
            area = max(land, key=lambda a: (land[a].units, a))
        s = land[area]
        if s.armies:
            s.armies -= 1
            s.raiders = min(s.raiders, s.armies)
        else:
            s.cavalry -= 1
        removed[area] = removed.get(area, 0) + 1
        excess -= 1
        if area in prefs and s.units <= 1:
            prefs = [a for a in prefs if a != area]
    ctx.emit("overpopulation", nation=nation, removed=removed, lines=lines)
    state.prune()
