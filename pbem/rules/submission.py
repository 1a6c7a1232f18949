"""Rules 11.1, 11.2 — submission to the empire (and of the 11.2 subject to its overlord): when, and what follows.

11.1: "Submission can be declared after any battle finishes, or after any round of dice throwing in
battle, or after any movement phase." In play by mail a nation cannot speak up in the middle of
another nation's turn, so a `SUBMIT TO` line sent before that turn is read as a declaration made at
the FIRST of those moments at which the nation may submit (under its area threshold): after each
movement phase, after each round of dice and after each battle of every nation's turn, until its
own turn comes, where it is checked once more before its movement (and refused if still not allowed).

What follows (11.1): the overlord at once gains capture points for the subject's areas, the subject's
armies and the overlord's no longer fight each other (a battle between them ends), and overlord armies
"stationed on territory held by a subject nation ... must leave immediately, either to the areas
from which they came, or to a wholly Roman occupied area" (our reading where the rule is silent: the
area they entered from this turn if no other nation's army is there, else a bordering area only the
overlord occupies, within the stacking limits; where neither exists they stay, and do not fight).
"""

from __future__ import annotations

from pbem.rules.context import TurnContext
from pbem.rules.orders import Submit
from pbem.rules.ruleset import Ruleset
from pbem.rules.stacking import can_add
from pbem.rules.state import GameState


def in_overlord_turn_only(rs: Ruleset, to: str) -> bool:
    """Rule 11.1 as a ruleset may narrow it (ruleset.yaml submission.in_overlord_turn): submission to the
    empire is declared only during the empire's turn, "after any battle, any round of dice or the movement
    phase" of that turn. Played as 11.1 is here: a SUBMIT TO sent before that turn is read at the first of
    those moments of it at which the nation may submit; in the nation's own turn it has no effect."""
    return to == rs.role("empire") and bool(rs.submission.get("in_overlord_turn"))


def can_submit(rs: Ruleset, state: GameState, nation: str, to: str) -> bool:
    """Rule 11.1 (while the empire's armies are on the board) and 11.2 (the overlord's subject); a nation
    listed in ruleset.yaml submission.rounds only in those rounds, and under submission.at_most the
    threshold itself is allowed ("or fewer")."""
    areas = [a for a in state.areas_of(nation) if rs.is_land(a)]
    if to == rs.role("empire"):
        limit = rs.submission["to_romans"].get(nation)
        rounds = rs.submission.get("rounds", {}).get(nation)
        if limit is None or (rounds and state.round not in rounds):
            return False
        fewer = len(areas) <= limit if rs.submission.get("at_most") else len(areas) < limit
        return fewer and state.units_of(to) > 0
    if to == rs.role("overlord") and nation == rs.role("overlord_subject"):
        rule = rs.submission["to_angles"][nation]
        counted = [a for a in areas if rs.region(a) in rule["count_in"] or a in rule["plus"]]
        return len(counted) < rule["fewer_than"] and state.units_of(to) > 0 and rs.rules.overlord_submission_open(rs, state)
    return False


def submit(ctx: TurnContext, nation: str, to: str, moment: str, line: int = 0) -> None:
    """Rule 11.1 — the nation becomes subject to `to`: capture points at once (the empire), and the
    overlord's armies leave the subject's territory; ruleset.yaml submission.points: points the
    overlord scores for this nation's submission."""
    rs, state = ctx.rs, ctx.state
    state.subjects[nation] = to
    ctx.emit("submitted", nation=nation, to=to, moment=moment, **({"line": line} if line else {}))
    rs.rules.nation_submitted(rs, state, nation, to)
    if to == rs.role("empire"):
        card = rs.vp.get(to)
        taken = state.captured.setdefault(to, set())
        for area in state.areas_of(nation):
            for _rounds, table in (card.capture if card else ()):
                if area in table and area not in taken:
                    taken.add(area)
                    state.score(to, table[area], f"{rs.display(nation)} submitted: {rs.display(area)}", "capture", nation)
        state.score(to, rs.submission.get("points", {}).get(nation, 0), f"{rs.display(nation)} submitted",
                    "submission", ctx.nation)
    _overlord_leaves(ctx, nation, to)


def _submit_orders(ctx: TurnContext) -> list[tuple[str, list[Submit]]]:
    """Every nation's SUBMIT TO orders in this turn's orders (nations without one left out), worked out
    once a turn: they are asked for after every round of dice."""
    cached = ctx.submit_cache
    if cached is None or cached[0] is not ctx.orders:
        found = [(nation, subs) for nation, orders in ctx.orders.items() if (subs := orders.of(Submit))]
        cached = ctx.submit_cache = (ctx.orders, found)
    return cached[1]


def waiting_submissions(ctx: TurnContext, moment: str) -> list[str]:
    """Rule 11.1 — at one of the moments the rule names (after a movement phase, a round of dice, a
    battle), every other nation whose SUBMIT TO order is waiting submits if it now may. Returns the
    nations that submitted."""
    done = []
    for nation, submits in _submit_orders(ctx):
        if nation == ctx.nation:
            continue   # the nation whose turn it is submits at the start of its turn (turn._submission)
        for o in submits:
            if in_overlord_turn_only(ctx.rs, o.to) and ctx.nation != o.to:
                continue   # submission.in_overlord_turn: only during the overlord's turn
            if ctx.state.subjects.get(nation) != o.to and can_submit(ctx.rs, ctx.state, nation, o.to):
                submit(ctx, nation, o.to, moment)
                done.append(nation)
                break
    return done


def revolt(ctx: TurnContext) -> None:
    """A nation leaves its submission at the start of its own turn of a round, before the population
    increase (ruleset.yaml submission.revolt: nation -> round)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if rs.submission.get("revolt", {}).get(nation) == state.round and state.subjects.get(nation) == rs.role("empire"):
        del state.subjects[nation]
        ctx.emit("subjection_ended", nation=nation)


def _overlord_leaves(ctx: TurnContext, subject: str, overlord: str) -> None:
    rs, state = ctx.rs, ctx.state
    for area in [a for a in list(state.areas) if rs.is_land(a)]:
        mine, theirs = state.get(area, overlord), state.get(area, subject)
        if not mine or not mine.units or not theirs or not theirs.fighters:
            continue
        target = rs.rules.overlord_way_out(ctx, area, overlord, subject)
        if target is None and rs.rules.stranded_overlord_lost(rs):   # nowhere to go: the armies are lost
            ctx.emit("lost_leaving_subject_area", nation=overlord, area=area, count=mine.units, subject=subject)
            mine.armies = mine.cavalry = mine.raiders = 0
            for leader in list(mine.leaders):
                state.dead_leaders.add(leader)
            mine.leaders.clear()
            continue
        if target is None:
            ctx.emit("not_left", nation=overlord, area=area, subject=subject)
            continue
        to = state.stack(target, overlord)
        to.armies += mine.armies
        to.cavalry += mine.cavalry
        to.leaders.extend(mine.leaders)
        ctx.emit("left_subject_area", nation=overlord, area=area, to=target, count=mine.units, subject=subject)
        mine.armies = mine.cavalry = mine.raiders = 0
        mine.leaders.clear()
    state.prune()


def way_out(ctx: TurnContext, area: str, nation: str) -> str | None:
    """Where the overlord's armies in `area` go (11.1): the area they came from, else one it alone holds."""
    rs, state = ctx.rs, ctx.state
    count = state.get(area, nation).units
    came = [m.came_from for m in reversed(ctx.moves) if m.nation == nation and m.dest == area and not m.withdrawal]
    for target in came:
        if rs.is_land(target) and not any(n != nation for n in state.occupants(target)) \
                and can_add(rs, state, nation, target, count, leaving=area):
            return target
    for target in sorted(rs.areas[area].land | rs.areas[area].straits):
        if state.occupants(target) == [nation] and can_add(rs, state, nation, target, count, leaving=area):
            return target
    return None
