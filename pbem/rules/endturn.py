"""The end of a nation's turn: raiders withdraw or settle (7.13, 8.4) and overpopulation (6.0).

Raiders go back along the route they came by (8.4); where an area of that route holds another nation's
pieces they step into it and fight until one side is gone (no retreat), then go on to their sea.
Raid points are cancelled if any raider settles or stays ashore alive (7.13), not by raiders that
died (7.14).
"""

from __future__ import annotations

from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.orders import Disband, Settle, Withdraw


def raider_route_back(ctx: TurnContext, area: str) -> list[str]:
    """Rule 8.4 — the way back to sea: the route the raiders came by, reversed (ending in their sea)."""
    for m in reversed(ctx.moves):
        if m.nation == ctx.nation and m.dest == area and m.raiders and ctx.rs.is_sea(m.path[0]):
            return list(reversed(m.path[:-1]))
    sea = ctx.state.raided_from.get(ctx.nation)
    if sea is None:
        # a case or an old save may place raiders ashore without a record of their sea
        seas = sorted(ctx.rs.areas[area].seas)
        return seas[:1]
    return [sea]


def withdraw_raiders(ctx: TurnContext) -> bool:
    """Rules 7.13-7.14 — after combat each raider returns to the sea it started from (default), or
    settles (SETTLE A) and loses raider status; one raider ashore cancels the turn's raid points.

    Returns True when every surviving raider went back to sea.
    """
    from pbem.rules.battle import fight

    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    settle = {o.area: o.line for o in ctx.own().of(Settle)}
    withdraw = {o.area: o.line for o in ctx.own().of(Withdraw)}
    all_back = True
    for area in [a for a in list(state.areas) if rs.is_land(a)]:
        st = state.get(area, nation)
        if not st or not st.raiders:
            continue
        if area in settle and area not in withdraw:
            ctx.emit("settled", nation=nation, area=area, armies=st.raiders, line=settle[area])
            st.raiders = 0
            all_back = False
            continue
        route = raider_route_back(ctx, area)
        here = area
        blocked = False
        for step in route[:-1]:
            if any(n != nation for n in state.occupants(step)):
                # 8.4: they must retreat into the blocking area and fight there
                n = _move_raiders(ctx, here, step)
                ctx.moves.append(MoveRecord(nation, "armies", n, n, (here, step), ctx.cycle, withdrawal=True))
                ctx.emit("withdrawing", nation=nation, area=here, to=step, armies=n, line=withdraw.get(area, 0))
                here = step
                fight(ctx, step, may_retreat=False)
                st2 = state.get(step, nation)
                if st2 and st2.raiders and any(n != nation for n in state.occupants(step)):
                    blocked = True
                    break
                if not st2 or not st2.raiders:
                    blocked = True
                    break
        if blocked:
            st3 = state.get(here, nation)
            if st3 and st3.raiders:
                all_back = False
            continue
        sea = route[-1]
        n = _move_raiders(ctx, here, sea)
        ctx.emit("withdrew", nation=nation, area=area, sea=sea, armies=n, line=withdraw.get(area, 0))
    state.prune()
    return all_back


def _move_raiders(ctx: TurnContext, src: str, dst: str) -> int:
    st = ctx.state.stack(src, ctx.nation)
    n = st.raiders
    st.raiders = 0
    st.armies -= n
    to = ctx.state.stack(dst, ctx.nation)
    to.armies += n
    to.raiders += n
    if not st.units and st.leaders:
        to.leaders.extend(st.leaders)
        st.leaders.clear()
    ctx.state.prune()
    return n


def overpopulation_exempt(ctx: TurnContext) -> bool:
    ex = ctx.rs.overpopulation_exempt.get(ctx.nation)
    return ex == "all" or (isinstance(ex, list) and ctx.state.round in ex)


def overpopulation(ctx: TurnContext) -> None:
    """Rule 6.0 — at the end of the turn, armies beyond twice the land areas occupied are removed.

    Armies at sea do not count. The owner chooses (DISBAND A, B ... areas lose armies first); the
    default takes from the largest stack (so no area is emptied), ties by area id.
    """
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if overpopulation_exempt(ctx):
        return
    land = {a: st[nation] for a, st in state.areas.items() if rs.is_land(a) and nation in st and st[nation].units}
    limit = rs.c("overpop_factor") * len(land)
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
