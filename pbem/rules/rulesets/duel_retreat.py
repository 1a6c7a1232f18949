"""The Duel Britannia retreats ([Retreat Options]), as DuelBattleModel answers the generic battle's hooks.

"After a session, if any defenders (non-movers) are still alive, some or all may retreat. They can
retreat to any area occupied by the same nation, or to a vacant area that the attacker did not come
from. A piece that has already been hit cannot retreat unless all pieces of that nation retreat. You
cannot retreat to a space where a battle is still unresolved. After the defender has chosen whether
to retreat, the attacker has the same option, except they must retreat to an area where they attacked
from. ... A piece cannot move more than one area when retreating. ... Stacking limits apply ... If all
defenders have been eliminated or have retreated, the victorious attacker can still retreat to any area
they occupy with no other nation present - even one that attackers did not come from."

- the defender: DEFEND orders (the generic form, its split parts too), each part checked by
  `defender_retreat_problem`; the piece already hit stays unless every piece goes (`retreating_part`);
- the attacker: ATTACK ... RETREAT orders, each group to where it attacked from (the generic rule 8.3
  drive); its piece already hit stays unless every piece can go (`wounded_stays`);
- the victorious attacker: VICTORS orders (pbem.rules.rulesets.duel_orders), one area, to an area it
  alone occupies or where it attacked from (`victors_retreat`), checked when the orders arrive
  (`victors_problems`);
- the Romans, who have no turn, retreat by the DEFEND orders of the Brython-Viking side ([A Game
  Round]: the side's player sends them under the Romans' name, as any of its nations').
"""

from __future__ import annotations

from pbem.errors import OrderProblem
from pbem.i18n import _
from pbem.rules.battle_model import attacker_groups, attacker_origins, move_units, retreating_pieces
from pbem.rules.context import TurnContext
from pbem.rules.dice import is_neutral
from pbem.rules.rulesets.duel_orders import Victors
from pbem.rules.stacking import can_add
from pbem.rules.state import Stack

REFUSAL_PHRASES = (   # DuelRules.refusal_phrases: the refusals below, in a player's language
    (r'^the (?P<nation>.+) have no battle in (?P<area>.+) this turn \(\[Retreat Options\]: VICTORS says where '
     r'the victors of a battle retreat\)$',
     _('the %(nation)s have no battle in %(area)s this turn ([Retreat Options]: VICTORS says where the victors '
       'of a battle retreat)')),
    (r'^(?P<b>.+) is no land area next to (?P<area>.+): a retreat goes one area \(\[Retreat Options\]\)$',
     _('%(b)s is no land area next to %(area)s: a retreat goes one area ([Retreat Options])')),
)

WOUNDED_STAYS = "a piece already hit cannot retreat unless all pieces of the nation retreat ([Retreat Options])"


def unresolved_battle(ctx: TurnContext, target: str) -> bool:
    """[Retreat Options] "a space where a battle is still unresolved": the nation to move and another
    nation's pieces in one land area."""
    there = ctx.state.nations_in(target)
    return ctx.nation in there and len(there) > 1


def defender_retreat_problem(ctx: TurnContext, area: str, defender: str, target: str, count: int) -> str:
    """[Retreat Options] — why the defender may not retreat `count` pieces from `area` to `target` ('' if
    it may): one area, on land (pieces attacked cannot use boats: [Boats]), to an area of its own or a
    vacant one the attackers did not come from, never into an unresolved battle, within the stacking limits."""
    rs, state = ctx.rs, ctx.state
    if not rs.is_land(target):
        return "defenders never retreat to sea ([Retreat Options], [Boats])"
    if target not in rs.areas[area].land and target not in rs.areas[area].straits:
        return f"{rs.display(target)} does not border {rs.display(area)}: a retreat goes one area ([Retreat Options])"
    if unresolved_battle(ctx, target):
        return f"a battle is still unresolved in {rs.display(target)} ([Retreat Options])"
    there = state.nations_in(target)
    if there and there != [defender]:
        return (f"{rs.display(target)} is held by the {rs.nations[there[0]].name}: the defender retreats to an "
                f"area of its own or a vacant one ([Retreat Options])")
    if not there and target in rs.rules.retreat_barred_origins(ctx, area, attacker_origins(ctx, area)):
        return f"the attackers came from {rs.display(target)}, now vacant ([Retreat Options])"
    if not can_add(rs, state, defender, target, count, leaving=area):
        return f"stacking limits in {rs.display(target)} ([Stacking Limits])"
    return ""


def retreating_part(stack: Stack, count: int, wounded: str | None) -> tuple[Stack, str]:
    """[Retreat Options] — the pieces of `stack` that make a retreating part of `count`: armies before
    cavalry, raiders first; `wounded` (the kind of the stack's piece already hit) stays unless the part
    takes every piece. Returns the part and, when fewer go than ordered, why."""
    if count >= stack.units or wounded not in ("armies", "cavalry"):
        return retreating_pieces(stack, count, stack.armies, stack.cavalry), ""
    part = retreating_pieces(stack, count, stack.armies - (wounded == "armies"), stack.cavalry - (wounded == "cavalry"))
    return part, (WOUNDED_STAYS if part.units < count else "")


def all_attackers_can_go(ctx: TurnContext, area: str) -> bool:
    """[Retreat Options] — can every attacker in `area` retreat to where its group attacked from? (The
    reading of the generic rule 8.3 drive: the groups in the order of the moves, a group's origin held by
    another nation or over the stacking limits closed; raiders go back towards their sea.)"""
    a = ctx.state.get(area, ctx.nation)
    remaining = {"cavalry": a.cavalry, "armies": a.armies}
    for m in attacker_groups(ctx, area):
        kind = "cavalry" if m.kind == "cavalry" else "armies"
        take = min(m.count - m.retreated, remaining[kind])
        if take > 0 and not ctx.rs.rules.battle.attacker_retreat_problem(ctx, area, m.came_from, take):
            remaining[kind] -= take
    return not (remaining["cavalry"] or remaining["armies"])


def victor_target_problem(ctx: TurnContext, area: str, target: str, count: int) -> str:
    """[Retreat Options] — why the victorious attacker may not retreat `count` pieces from `area` to
    `target` ('' if it may): one area, on land, an area it occupies with no other nation present or
    one it attacked from, within the stacking limits."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if not rs.is_land(target) or (target not in rs.areas[area].land and target not in rs.areas[area].straits):
        return f"{rs.display(target)} is no land area next to {rs.display(area)}: a retreat goes one area ([Retreat Options])"
    there = state.nations_in(target)
    if unresolved_battle(ctx, target) or (there and there != [nation]):
        return f"{rs.display(target)} is not occupied by the {rs.nations[nation].name} alone ([Retreat Options])"
    if not there and target not in attacker_origins(ctx, area):
        return (f"{rs.display(target)} is vacant and the attackers did not come from it: the victors retreat to an "
                f"area they alone occupy ([Retreat Options])")
    if not can_add(rs, state, nation, target, count, leaving=area):
        return f"stacking limits in {rs.display(target)} ([Stacking Limits])"
    return ""


def victors_retreat(ctx: TurnContext, area: str, wounded: str | None) -> None:
    """[Retreat Options] — the battle in `area` is won (no other nation's piece is left there): the
    attacker's VICTORS order for it takes its parts one area each, the piece already hit only with the
    last (`wounded`: its kind); leaders go with the first part when no piece stays. What went where and
    what was refused is the `duel_victors_retreated` event."""
    state, nation = ctx.state, ctx.nation
    st = state.get(area, nation)
    order = next((o for o in reversed(ctx.own().of(Victors)) if o.area == area), None)
    if order is None or is_neutral(ctx.dice):    # validation fights no battle: nothing is won yet
        return
    if not st or not st.units or any(n != nation for n in state.occupants(area)):
        ctx.emit("order_unused", nation=nation, line=order.line, text=order.text,
                 reason=f"the {ctx.rs.nations[nation].name} did not win the battle in {ctx.rs.display(area)} "
                        "([Retreat Options])")
        return
    moved: dict[str, int] = {}
    refused: dict[str, str] = {}
    for want, target in order.parts():
        st = state.get(area, nation)
        left = st.units if st else 0
        count = left if want is None else min(want, left)
        if not count:
            break
        part, held = retreating_part(st, count, wounded)
        why = victor_target_problem(ctx, area, target, part.units) if part.units else held
        if why or held:
            refused[target] = why or held
        if why:
            continue
        move_units(ctx, area, target, nation, part, whole=False)
        moved[target] = moved.get(target, 0) + part.units
    rest = state.get(area, nation)
    if moved and rest and not rest.units and rest.leaders:
        # the last pieces left: the leaders go with the first part (a leader never stays alone)
        state.stack(next(iter(moved)), nation).leaders.extend(rest.leaders)
        rest.leaders.clear()
    state.prune()
    ctx.emit("duel_victors_retreated", area=area, nation=nation, to=moved, refused=refused, lines=[order.line])


def victors_problems(ctx: TurnContext, battles: set[str]) -> list[OrderProblem]:
    """[Retreat Options] — the VICTORS orders checked as they arrive (the same turn adjudicates them): the
    battle must be one of this turn's (`battles`), each part's area must border it on land."""
    rs, nation = ctx.rs, ctx.nation
    out: list[OrderProblem] = []
    for o in ctx.own().of(Victors):
        if o.area not in battles:
            out.append(OrderProblem("not-now", o.line, o.text,
                                    f"the {rs.nations[nation].name} have no battle in {rs.display(o.area)} this turn "
                                    "([Retreat Options]: VICTORS says where the victors of a battle retreat)",
                                    "battles of this turn: " + (", ".join(sorted(rs.display(a) for a in battles)) or "none")))
            continue
        bad = next((t for _, t in o.parts() if not rs.is_land(t)
                    or (t not in rs.areas[o.area].land and t not in rs.areas[o.area].straits)), None)
        if bad is not None:
            out.append(OrderProblem("not-adjacent", o.line, o.text,
                                    f"{rs.display(bad)} is no land area next to {rs.display(o.area)}: a retreat goes "
                                    "one area ([Retreat Options])"))
    return out
