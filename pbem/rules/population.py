"""Rule 10 — population increase (10.1, 10.2), leaders entering (9.0), arrivals at sea (4.2, 7.0).

Readings where seed 001 is silent (each pinned by a case):
- the invaders of the turn are on the board before the increase is counted (4.0: they are placed in
  their seas at the start of the game turn), so they are not "unused pieces" for 10.1;
- an area holding the nation's one unlimited group (5.2) is not "occupied by the maximum number", so
  10.2 sends a second new army there before doubling up anywhere else;
- a new army that 5.21 leaves no room for is treated like one with no piece available (10.1): not
  raised, and at most 2 1/2 of the count is saved;
- a leader whose Turn Record Chart entry names an area (Offa, Oswiu: data doubt 6) enters only there,
  and only if the nation holds it (9.0 "special conditions").
"""

from __future__ import annotations

import math

from pbem.errors import OrderProblem
from pbem.rules.context import TurnContext
from pbem.rules.orders import Place, PlaceLeader
from pbem.rules.stacking import Room


def pieces_in_play(ctx: TurnContext, nation: str) -> tuple[int, int]:
    """(armies, cavalry) of the nation on the board, at sea included."""
    armies = cav = 0
    for st in ctx.state.areas.values():
        if nation in st:
            s = st[nation]
            armies += s.armies
            cav += s.cavalry
    return armies, cav


def free_armies(ctx: TurnContext, nation: str) -> int:
    """Rule 10.1 — 'from among the eliminated and unused pieces': the counter mix limits new armies."""
    armies, _ = pieces_in_play(ctx, nation)
    return max(0, ctx.rs.nations[nation].max_armies - armies)


def occupied_value(ctx: TurnContext, nation: str) -> float:
    """Rule 10.1 — land areas occupied by the nation's armies: clear 1, hiland 1/2."""
    rs = ctx.rs
    total = 0.0
    for area, st in ctx.state.areas.items():
        if nation in st:
            s = st[nation]
            if (s.armies or s.cavalry) and rs.is_land(area):
                total += rs.const.pop_hiland if rs.hiland(area) else rs.const.pop_clear
    return total


def may_increase(ctx: TurnContext, nation: str) -> bool:
    """Rule 10.1 — does the nation increase its population this turn? The family says
    (`Rules.may_increase`: 2.24 never some nations, 11.1 not a subject without permission, ...)."""
    return ctx.rs.rules.may_increase(ctx, nation)


def increase(ctx: TurnContext) -> list[OrderProblem]:
    """Rules 10.1-10.2 — count, raise armies (one per 3), save the rest, place them."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if not may_increase(ctx, nation):
        return [OrderProblem("not-now", o.line, o.text, f"the {rs.nations[nation].name} do not increase population "
                             "this turn (rules 2.24, 10.1, 10.5, 11.1)") for o in ctx.own().of(Place)]
    saved = state.population.get(nation, 0.0)
    value = occupied_value(ctx, nation)
    value = rs.rules.population_count(ctx, value)   # the family may count them otherwise
    total = saved + value
    due = math.floor(total / rs.const.pop_per_army + 1e-9)
    free = free_armies(ctx, nation)
    new = min(due, free)
    rest = total - new * rs.const.pop_per_army
    if new < due:   # no army piece available: at most 2 1/2 saved (10.1)
        rest = min(rest, rs.const.pop_max_saved_without_army)
    before = state.units_of(nation)
    problems = place_new_armies(ctx, nation, new, ctx.own().of(Place), skip=reinforcement_places(ctx))
    placed = state.units_of(nation) - before
    if placed < new:
        # 5.21: no room for the rest under the stacking limits. Our reading: an army that cannot be
        # placed is treated like one with no piece available (10.1) -- not raised, at most 2 1/2 saved
        rest = min(total - placed * rs.const.pop_per_army, rs.const.pop_max_saved_without_army)
        new = placed
    built = rs.rules.armies_not_raised(ctx, due - placed) if placed < due else 0
    if built:   # what could not be raised as armies the family built as something else
        rest = total - (placed + built) * rs.const.pop_per_army
        if placed + built < due:
            rest = min(rest, rs.const.pop_max_saved_without_army)
    state.population[nation] = rest
    ctx.emit("population", nation=nation, saved_before=saved, count=total, new_armies=new, saved=rest)
    return problems


def placement_areas(ctx: TurnContext, nation: str) -> list[str]:
    """Rule 10.2 — new armies go to land areas occupied by the nation's armies."""
    return [a for a, st in ctx.state.areas.items() if nation in st and st[nation].units and ctx.rs.is_land(a)]


def place_new_armies(ctx: TurnContext, nation: str, new: int, places: list[Place], *, kind: str = "armies",
                     skip: int = 0, limit: int | None = None) -> list[OrderProblem]:
    """Rule 10.2 — one per area unless stacking (5.2) leaves no alternative; never over the limits (5.21).

    `places` are the PLACE orders; their first `skip` areas were already used (10.5: the successor's
    turn-7 reinforcements, placed as population increase, take the first `limit` areas of the same order)."""
    rs = ctx.rs
    problems: list[OrderProblem] = []
    eligible = placement_areas(ctx, nation)
    wanted: list[tuple[str, Place | None]] = [(a, p) for p in places for a in p.areas][skip:None if limit is None else skip + limit]
    placed: list[str] = []
    used: set[int] = set()
    room = Room(rs, ctx.state, nation)   # 5.21 of the position, kept up to date as armies are placed
    for area, p in wanted:
        if len(placed) >= new:
            break
        if area not in eligible:
            problems.append(OrderProblem("not-now", p.line if p else 0, p.text if p else "",
                                         f"new armies go only to areas the {rs.nations[nation].name} occupy (rule 10.2)",
                                         "occupied: " + ", ".join(rs.display(a) for a in eligible)))
            continue
        if not _may_place(ctx, nation, area, placed, eligible, room, kind):
            problems.append(OrderProblem("stacking", p.line if p else 0, p.text if p else "",
                                         f"no second army in {rs.display(area)} while other areas can take one (rule 10.2, 5.2)"))
            continue
        _put(ctx, nation, area, kind)
        room.add(area)
        placed.append(area)
        if p is not None:
            used.add(p.line)
    # anything left: the default placement (the largest stacks' neighbours first would be a strategy;
    # the documented default is the order of the areas by size, smallest first, one each)
    while len(placed) < new:
        area = _default_area(ctx, nation, placed, eligible, room, kind)
        if area is None:
            break
        _put(ctx, nation, area, kind)
        room.add(area)
        placed.append(area)
    if placed:
        ctx.emit("placed", nation=nation, areas=placed, lines=sorted(used), **({} if kind == "armies" else {"kind": kind}))
    return problems


def _may_place(ctx: TurnContext, nation: str, area: str, placed: list[str], eligible: list[str], room: Room,
               kind: str = "armies") -> bool:
    if not room.can_add(area):
        return False
    if area not in placed:
        return True
    if kind == "armies" and ctx.rs.rules.one_new_army_per_area(ctx.rs):
        return False   # the family allows never a second new army in one area
    # a second one here only if no unused area can take one (10.2)
    return not any(a not in placed and room.can_add(a) for a in eligible)


def _default_area(ctx: TurnContext, nation: str, placed: list[str], eligible: list[str], room: Room,
                  kind: str = "armies") -> str | None:
    """Rule 10.2 default placement: an area not given one yet, the smallest stack first (ties by id);
    a second one only where stacking leaves no alternative."""
    options = [a for a in eligible if _may_place(ctx, nation, a, placed, eligible, room, kind)]
    return min(options, key=lambda a: (a in placed, ctx.state.stack(a, nation).units, a), default=None)


def _put(ctx: TurnContext, nation: str, area: str, kind: str = "armies") -> None:
    st = ctx.state.stack(area, nation)
    setattr(st, kind, getattr(st, kind) + 1)


def arrivals(ctx: TurnContext) -> list[OrderProblem]:
    """Rule 4.2 / 7.0 — the nation's invaders and raiders of this round appear in their seas (10.5:
    reinforcements without a sea are placed as population increase)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    problems: list[OrderProblem] = []
    for arr in rs.round_info(state.round).arrivals:
        if arr.nation != nation:
            continue
        if arr.sea is None:
            if not rs.rules.reinforcements_enter_with_leader(rs, state, nation):   # else they come with a leader
                problems += _reinforcements_as_increase(ctx, arr)
            continue
        free = free_armies(ctx, nation)
        n = max(0, min(arr.armies, free))
        rs.rules.arrival_shortfall(ctx, arr.armies - n)   # 10.6
        cav = max(0, min(arr.cavalry, rs.nations[nation].max_cavalry - pieces_in_play(ctx, nation)[1]))
        if n <= 0 and cav <= 0:
            continue
        st = state.stack(arr.sea, nation)
        st.armies += n
        st.cavalry += cav
        if arr.raider:
            st.raiders += n
        ctx.emit("arrived", nation=nation, sea=arr.sea, armies=n, raiders=arr.raider, **({"cavalry": cav} if cav else {}))
    return problems


def leaders_enter(ctx: TurnContext) -> list[OrderProblem]:
    """Rule 9.0 — leaders of the Turn Record Chart enter in any area with the nation's pieces."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    problems: list[OrderProblem] = []
    wanted = {o.leader: o for o in ctx.own().of(PlaceLeader)}
    entering = {leader for nat, leader in rs.round_info(state.round).leaders if nat == nation}
    for o in wanted.values():
        if o.leader not in entering or o.leader in state.dead_leaders or o.leader in state.leaders_on_board():
            problems.append(OrderProblem("not-now", o.line, o.text, f"{rs.display(o.leader)} does not enter the board "
                                         f"in the {rs.nations[nation].name} turn {state.round} (rule 9.0)"))
    for nat, leader in rs.round_info(state.round).leaders:
        if nat != nation or leader in state.dead_leaders or leader in state.leaders_on_board():
            continue
        places = rs.rules.leader_entry_choices(ctx, leader)   # 9.0, or the ruleset's entry areas
        alone = not any((st := state.get(a, nation)) and st.units for a in places)
        if not places:
            continue   # never played if the nation has been eliminated (9.0), or its condition fails
        o = wanted.get(leader)
        if o and o.area in places:
            area = o.area
        else:
            if o:
                problems.append(OrderProblem("not-now", o.line, o.text, f"{rs.display(leader)} may enter only where the "
                                             f"{rs.nations[nation].name} have pieces (rule 9.0)",
                                             "possible: " + ", ".join(rs.display(a) for a in places)))
            area = places[0] if alone else max(places, key=lambda a: (state.areas[a][nation].units, rs.is_land(a), a))
        state.stack(area, nation).leaders.append(leader)
        ctx.emit("leader_entered", nation=nation, leader=leader, area=area, line=o.line if o else 0)
        rs.rules.leader_arrives(ctx, leader, area)
    return problems


def leaders_leave(ctx: TurnContext) -> None:
    """Rule 9.0 — a leader is removed at the start of its nation's next turn (not Harold, Harald, William)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    for leader, area in state.leaders_on_board(nation).items():
        ld = rs.leaders.get(leader)
        if ld and ld.stays_until_end:
            continue
        if ld and ld.round == state.round:
            continue
        state.stack(area, nation).leaders.remove(leader)
        ctx.emit("leader_left", nation=nation, leader=leader, area=area)
    state.prune()


def reinforcement_places(ctx: TurnContext) -> int:
    """How many areas of the PLACE order the turn's reinforcements "placed as Increase Population"
    take first (rule 10.5: the successor's turn-7 units); the new armies of 10.1 get the rest."""
    if ctx.rs.rules.reinforcements_enter_with_leader(ctx.rs, ctx.state, ctx.nation):
        return 0   # their leader brings them (the family's reinforcements_enter_with_leader)
    return sum(a.cavalry + a.armies for a in ctx.rs.round_info(ctx.state.round).arrivals
               if a.nation == ctx.nation and a.sea is None)


def _reinforcements_as_increase(ctx: TurnContext, arr) -> list[OrderProblem]:
    """Rule 10.5 with 10.2 — the successor's turn-7 reinforcements (role `successor`) are "placed as Increase
    Population": where the player's PLACE order says (its first areas), one per area as in 10.2, else by
    the 10.2 default. If none of its armies is left they enter together in a vacant area of the
    ruleset's `south_of_york` list: the first such area of the PLACE order, else the first in the list."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    n = min(arr.cavalry, max(0, rs.nations[nation].max_cavalry - pieces_in_play(ctx, nation)[1]))
    if n <= 0:
        return []
    places = ctx.own().of(Place)
    if placement_areas(ctx, nation):
        return place_new_armies(ctx, nation, n, places, kind="cavalry", limit=reinforcement_places(ctx))
    vacant = [a for a in rs.constants_list("south_of_york") if not state.nations_in(a)]
    asked = [a for p in places for a in p.areas][:reinforcement_places(ctx)]
    chosen = [a for a in asked if a in vacant]
    if vacant:
        area = (chosen or vacant)[0]
        state.stack(area, nation).cavalry += n
        ctx.emit("reinforced", nation=nation, cavalry=n, areas=[area] * n)
    return []
