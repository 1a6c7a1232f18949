"""Every order is accounted for (issue 15: "no silently ignored order").

A nation's turn is played by one code path for validation (neutral dice, pbem.rules.dice.NeutralDice)
and for adjudication (the game's dice), so an order is judged the same way on arrival and when it is
carried out. Two checks live here:

* `battle_phase_problems` — orders of the battle phase and the end of the turn (ATTACK, BATTLES,
  WITHDRAW, SETTLE, DISBAND) must speak of something the turn has: a battle of this nation in the area
  (8.0-8.3), raiders of this nation in the area (7.13), land it holds (6.0). What the turn has is
  gathered by `observe` after population and after each movement cycle.
* `account` — at the end of the turn, every turn order that no event names (events carry the `line`
  or `lines` of the orders they carried out) and that was not refused gets an `order_unused` event
  saying why it had no effect (e.g. "no battle was fought in <area>"). The turn report shows them.

Standing orders (DEFEND, LOSSES, CLEAR DEFEND) are kept for later turns and answered in battles;
VOTE counts at the start of a round; STAY, PASS and SECOND MOVEMENT only shape the movement: none of
them is accounted for here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.errors import OrderProblem
from pbem.rules.battle import battle_areas
from pbem.rules.context import TurnContext
from pbem.rules.endturn import overpopulation_exempt
from pbem.rules.events import Population, named_lines
from pbem.rules.orders import (
    STANDING_TYPES,
    Attack,
    Battles,
    Brittany,
    Disband,
    Move,
    Order,
    Pass,
    Place,
    PlaceLeader,
    SecondMovement,
    Settle,
    Stay,
    Submit,
    Vote,
    Withdraw,
)
from pbem.rules.submission import in_overlord_turn_only

NOT_ACCOUNTED = (*STANDING_TYPES, Vote, Stay, Pass, SecondMovement, Brittany)   # Brittany: 16.251, judged at once


@dataclass
class Seen:
    """What the orders of the battle phase and the end of the turn may speak of."""

    battles: set[str] = field(default_factory=set)    # areas where this nation has a battle (any cycle)
    raiders: set[str] = field(default_factory=set)    # land areas where it has raiders
    held: set[str] = field(default_factory=set)       # areas and seas where it has pieces


def observe(ctx: TurnContext, seen: Seen, *, battles: bool = True) -> None:
    """Note the battles, raiders and land of the nation in the position now (after a movement)."""
    nation, is_land, held, raiders = ctx.nation, ctx.rs.is_land, seen.held, seen.raiders
    for area, st in ctx.state.areas.items():
        if nation not in st:
            continue
        s = st[nation]
        held.add(area)
        if s.raiders and is_land(area):
            raiders.add(area)
    if battles:
        seen.battles.update(battle_areas(ctx))


def _names(rs, areas) -> str:
    return ", ".join(sorted(rs.display(a) for a in areas)) or "none"


def battle_phase_problems(ctx: TurnContext, seen: Seen) -> list[OrderProblem]:
    """Rules 8.3, 7.13, 6.0 — battle-phase and end-of-turn orders that cannot apply this turn."""
    rs, nation = ctx.rs, ctx.nation
    name = rs.nations[nation].name
    out: list[OrderProblem] = []
    battles_hint = "battles of this turn: " + _names(rs, seen.battles)
    for o in ctx.own().orders:
        if isinstance(o, Attack) and o.area not in seen.battles:
            out.append(OrderProblem("not-now", o.line, o.text,
                                    f"the {name} have no battle in {rs.display(o.area)} this turn: ATTACK orders "
                                    "say how an attacker fights where its armies attack (rules 8.0, 8.3)", battles_hint))
        elif isinstance(o, Battles):
            bad = [a for a in o.areas if a not in seen.battles]
            if bad:
                out.append(OrderProblem("not-now", o.line, o.text,
                                        f"the {name} have no battle in {_names(rs, bad)} this turn (rule 4.4)",
                                        battles_hint))
        elif isinstance(o, Withdraw | Settle) and o.area not in seen.raiders:
            word = "WITHDRAW" if isinstance(o, Withdraw) else "SETTLE"
            out.append(OrderProblem("not-your-unit", o.line, o.text,
                                    f"the {name} have no raiders in {rs.display(o.area)} this turn: {word} is for "
                                    "raiders ashore after their raid (rule 7.13)",
                                    "raiders ashore after movement: " + _names(rs, seen.raiders)))
        elif isinstance(o, Disband):
            bad = [a for a in o.areas if a not in seen.held]
            if bad:
                out.append(OrderProblem("not-your-unit", o.line, o.text,
                                        f"the {name} have no pieces in {_names(rs, bad)} this turn: DISBAND names areas "
                                        "of theirs that lose armies first (rules 6.0, 10.6)",
                                        "held: " + _names(rs, seen.held)))
    return out


def accounted(order: Order) -> bool:
    """True for the orders that must end in an event naming them (see the module doc)."""
    return order.line > 0 and not isinstance(order, NOT_ACCOUNTED)


def account(ctx: TurnContext, refused: set[int]) -> None:
    """Rule-independent: every turn order of the nation not named by an event and not refused gets an
    `order_unused` event saying why it had no effect."""
    named = named_lines(ctx.events, ctx.nation) | refused
    for o in ctx.own().orders:
        if accounted(o) and o.line not in named:
            ctx.emit("order_unused", nation=ctx.nation, line=o.line, text=o.text, reason=why_unused(ctx, o))
            named.add(o.line)


def why_unused(ctx: TurnContext, o: Order) -> str:
    """A sentence saying why a (legal) order had no effect this turn."""
    rs = ctx.rs
    name = rs.nations[ctx.nation].name
    if isinstance(o, Place):
        new = next((ev.new_armies for ev in ctx.events if isinstance(ev, Population) and ev.nation == ctx.nation),
                   None)
        if new is None:
            return f"the {name} do not increase population this turn (rule 10.1)"
        if not new:
            return "no new army this turn: the population count was too low, or no piece or room was left (rule 10.1)"
        armies = "1 new army" if new == 1 else f"{new} new armies"
        return f"{armies} this turn, placed by the earlier PLACE areas or rule 10.2 (rule 10.1)"
    if isinstance(o, PlaceLeader):
        return f"{rs.display(o.leader)} does not enter this turn (rule 9.0)"
    if isinstance(o, Move):
        return "not carried out: another order of this movement was refused (see the orders dropped)"
    if isinstance(o, Attack):
        return f"no battle was fought in {rs.display(o.area)} (the defenders were gone before it)"
    if isinstance(o, Battles):
        return f"no battle was fought in {_names(rs, o.areas)}"
    if isinstance(o, Settle):
        if not ctx.rs.rules.raiders_may_settle(ctx):
            return ctx.rs.rules.settle_refusal(ctx)
    if isinstance(o, Withdraw | Settle):
        return f"no raiders of the {name} were left in {rs.display(o.area)} after the battles"
    if isinstance(o, Disband):
        if overpopulation_exempt(ctx):
            return f"the {name} are exempt from overpopulation this turn (rule 6.0)"
        return f"the {name} were not overpopulated at the end of the turn (rule 6.0)"
    if isinstance(o, Submit):
        if in_overlord_turn_only(rs, o.to) and ctx.state.subjects.get(ctx.nation) != o.to:
            return rs.rules.overlord_turn_note(rs, ctx.nation, o.to)
        return f"the {name} were subject to the {rs.display(o.to)} already"
    return "no effect this turn"
