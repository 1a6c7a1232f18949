"""Rule 8 — battles: the engine's drive of a battle (8.0-8.4, 9.2, 10.4), over the ruleset's battle model.

What a die kills, how hits become losses and where a side may retreat are the battle model's
(`rs.rules.battle`, pbem.rules.battle_model: the one statement of those rules, read by the odds, the
report and the validator too). Here: which battles are fought and in what order, the rounds of
simultaneous dice until one side is gone or retreats, and the events that record them.

Which target each die is aimed at is the roller's choice (8.0 "announce the type of unit being attacked
before each die roll"); by default the engine aims to kill the most (battle_model.allocate_hits).
Which of the owner's ordinary armies die is the owner's choice (LOSSES orders); the default is raiders first.

Retreats (8.1-8.4), readings where the rules are silent:
- a DEFEND retreat takes all the defender's armies and cavalry (leaders with them), or the parts a split
  retreat names (RETREAT 2 TO B, REST TO C), ordinary armies before cavalry; a fort stays;
- an attacker retreats group by group to where each group entered from (8.3); which group lost the
  armies is the owner's choice, which the order language cannot say, so losses come off the groups of
  the LAST move lines; a group that cannot go back (origin held by another nation, or 5.21) fights on
  alone, and the others still leave;
- a raider fighting its way back to sea through a blocked area (8.4) fights that battle to the end.
Battle rounds are numbered per area and movement cycle across every battle fought there in the turn
(the label of each die, dice.py), so a second battle in the same area never reuses dice.
"""

from __future__ import annotations

from pbem.rules.battle_model import (
    KIND_ORDER,
    allocate_hits,
    attacker_origins,
    loss_preference,
    standing_orders,
)
from pbem.rules.context import TurnContext
from pbem.rules.dice import RollRequest, is_neutral
from pbem.rules.movement import occupy
from pbem.rules.orders import Attack, Battles
from pbem.rules.state import Stack
from pbem.rules.submission import waiting_submissions

__all__ = ["KIND_ORDER", "allocate_hits", "attacker_origins", "battle_areas", "battle_order", "casualties", "defender_retreat_problem",
           "fight", "fight_all", "loss_preference", "standing_orders"]


def battle_order(ctx: TurnContext) -> list[str]:
    """Battles are fought in the attacker's BATTLES order, else in the order of its moves."""
    areas = battle_areas(ctx)
    ordered: list[str] = []
    for b in ctx.own().of(Battles):
        for a in b.areas:
            if a in areas and a not in ordered:
                ordered.append(a)
    for rec in ctx.moves:
        if rec.cycle == ctx.cycle and rec.dest in areas and rec.dest not in ordered:
            ordered.append(rec.dest)
    ordered += [a for a in areas if a not in ordered]
    return ordered


def battle_areas(ctx: TurnContext) -> list[str]:
    """Rule 8.0 — the land areas where the nation's armies or cavalry stand with another nation's
    occupying pieces, in the position's order of areas (`_is_battle` of every area, in one pass:
    this runs twice a movement cycle)."""
    nation, is_land = ctx.nation, ctx.rs.is_land
    out = []
    for a, st in ctx.state.areas.items():
        if nation not in st:   # only areas where the nation stands can hold its battles
            continue
        own = st[nation]
        if not (own.armies or own.cavalry) or not is_land(a):
            continue
        for n, s in st.items():
            if n != nation and s.armies + s.cavalry + s.fort + s.burhs:
                out.append(a)
                break
    return out


def _is_battle(ctx: TurnContext, area: str) -> bool:
    if not ctx.rs.is_land(area):
        return False
    own = ctx.state.get(area, ctx.nation)
    return bool(own and own.units) and any(n != ctx.nation for n in ctx.state.occupants(area))


def fight_all(ctx: TurnContext) -> None:
    """Rule 4.4 — every battle of the nation's battle phase."""
    queue = battle_order(ctx)
    while queue:
        area = queue.pop(0)
        if _is_battle(ctx, area):
            fight(ctx, area)
            waiting_submissions(ctx, "after a battle")   # 11.1
        for extra in ctx.pending_battles:
            if extra not in queue:
                queue.append(extra)
        ctx.pending_battles.clear()


def fight(ctx: TurnContext, area: str, *, may_retreat: bool = True) -> None:
    """Rule 8.0 — the battle in `area`: the nation whose turn it is against each other nation there.

    `may_retreat=False` (a raider fighting its way back to sea, 8.4): the attacker does not retreat.
    """
    pruned = False   # the last pair fought ended with state.prune() and nothing changed since
    for defender in [n for n in ctx.state.occupants(area) if n != ctx.nation]:
        own = ctx.state.get(area, ctx.nation)
        if not own or not own.units:
            break
        pruned = _fight_pair(ctx, area, defender, may_retreat)
    if not pruned:
        ctx.state.prune()
    ctx.rs.rules.battle.victors_retreat(ctx, area)   # what a victorious attacker may still do
    ctx.rs.rules.battle.battle_over(ctx, area)    # what persisted within the battle ends with it
    if ctx.state.occupants(area) == [ctx.nation]:
        occupy(ctx, area)


def _die_round(ctx: TurnContext, area: str) -> int:
    """The number that labels this round's dice: it keeps counting across every battle fought in the
    area in this movement cycle, so no two rounds share dice labels (dice.py)."""
    key = (area, ctx.cycle)
    ctx.battle_rounds[key] = ctx.battle_rounds.get(key, 0) + 1
    return ctx.battle_rounds[key]


def _fight_pair(ctx: TurnContext, area: str, defender: str, may_retreat: bool = True) -> bool:
    """Rules 8.0-8.1 — rounds of simultaneous dice until one side is gone or retreats.

    After each round the defender may retreat (8.2); if it does not, the attacker may (8.3). Attackers
    that cannot retreat (their origin is held by another nation, or 5.21) stay and fight again.
    Returns True when the battle was fought (the position is pruned then), False when only announced."""
    state, model = ctx.state, ctx.rs.rules.battle
    attacker = ctx.nation
    ctx.emit("battle", area=area, attacker=attacker, defender=defender, cycle=ctx.cycle, lines=_order_lines(ctx, area))
    ctx.rs.rules.battle_begins(ctx, defender)   # what the ruleset remembers of who attacked whom
    if is_neutral(ctx.dice):
        # validation plays the turn without dice: the battle is announced, not fought
        ctx.emit("battle_end", area=area, attacker=attacker, defender=defender, rounds=0, outcome="not fought",
                 winner=None)
        return False
    br = 0
    outcome = None
    split_done = False
    while True:
        a = state.get(area, attacker)
        d = state.get(area, defender)
        if not a or not a.fighters or not d or not d.fighters:
            break
        br += 1
        dr = _die_round(ctx, area)
        a_faces, a_req = _roll(ctx, area, dr, attacker, a, d, defender)
        d_faces, d_req = _roll(ctx, area, dr, defender, d, a, attacker)
        a_loss = casualties(ctx, area, d_faces, d, defender, a, attacker, defending=False)
        d_loss = casualties(ctx, area, a_faces, a, attacker, d, defender, defending=True)
        a_raiders = a.raiders > 0
        model.apply_losses(ctx, area, attacker, a, a_loss, killer=defender, by_raiders=False)
        model.apply_losses(ctx, area, defender, d, d_loss, killer=attacker, by_raiders=a_raiders)
        ctx.emit("battle_round", area=area, battle_round=br, cycle=ctx.cycle,
                 dice={attacker: _labelled(a_req, a_faces), defender: _labelled(d_req, d_faces)},
                 losses={attacker: a_loss, defender: d_loss})
        _leaders_left_alone(ctx, area, (attacker, defender))
        if defender in waiting_submissions(ctx, "after a round of dice") and state.subjects.get(defender) == attacker:
            outcome = "defender submitted"   # 11.1: the overlord can no longer attack its subject
            break
        a = state.get(area, attacker)
        d = state.get(area, defender)
        if not a or not a.fighters or not d or not d.fighters:
            break
        # Rule 8.1 — the defender may retreat; if not, the attacker may. A split retreat that leaves
        # some defenders behind is carried out once: those stay and fight (8.1 "others remain").
        if not split_done and model.defender_retreats(ctx, area, defender, br):
            split_done = True
            continue
        if may_retreat and model.attacker_retreats(ctx, area, br):
            a = state.get(area, attacker)
            if not a or not a.units:
                outcome = "attacker retreated"
                break
            # 8.3 — the armies whose origin is closed remain in the battle area and fight again
    state.prune()
    a = state.get(area, attacker)
    d = state.get(area, defender)
    if outcome is None:
        if a and a.fighters and not (d and d.fighters):
            outcome = f"{attacker} won"
        elif d and d.fighters and not (a and a.fighters):
            outcome = f"{defender} won"
        else:
            outcome = "both destroyed" if not (a and a.fighters) else "undecided"
    winner = attacker if (a and a.fighters and not (d and d.fighters)) else (defender if d and d.fighters and not (a and a.fighters) else None)
    ctx.emit("battle_end", area=area, attacker=attacker, defender=defender, rounds=br, outcome=outcome, winner=winner)
    return True


def _order_lines(ctx: TurnContext, area: str) -> list[int]:
    """The lines of the attacker's ATTACK and BATTLES orders that speak of this battle."""
    return sorted({o.line for o in ctx.own().of(Attack) if o.area == area}
                  | {o.line for o in ctx.own().of(Battles) if area in o.areas})


def _labelled(req: RollRequest, faces):
    """The faces with their labels (the label names the round and side, not the count or targets)."""
    if isinstance(faces, dict):
        return {k: list(v) for k, v in faces.items()}
    return [{"label": req.label(i), "face": f} for i, f in enumerate(faces)]


def _request(ctx: TurnContext, area: str, br: int, side: str, count: int, targets=()) -> RollRequest:
    return RollRequest(game=ctx.state.game, round=ctx.state.round, nation=ctx.nation, area=area, cycle=ctx.cycle,
                       battle_round=br, side=side, count=count, targets=tuple(targets))


def _roll(ctx: TurnContext, area: str, br: int, side: str, stack: Stack, target: Stack, target_nation: str):
    """One die per piece that fights (the battle model's dice, rs.rules.battle). Returns the faces and
    the request (its labels go into the battle_round event)."""
    model = ctx.rs.rules.battle
    req = _request(ctx, area, br, side, model.dice_count(ctx.rs, stack, side),
                   model.target_kinds(ctx.rs, target, target_nation))
    return model.roll(ctx, req), req


def casualties(ctx: TurnContext, area: str, faces, roller: Stack, roller_nation: str, target: Stack,
               target_nation: str, defending: bool) -> dict[str, int]:
    """How many of each kind of the target's pieces the roller's faces kill this round (the battle model)."""
    return ctx.rs.rules.battle.casualties(ctx, area, faces, roller, roller_nation, target, target_nation, defending)


def _leaders_left_alone(ctx: TurnContext, area: str, pair: tuple[str, str]) -> None:
    """Rule 9.2 — a leader left alone in the area with another nation's armies is eliminated (whether
    he is: the battle model's `leader_killer`; unless the ruleset lets him escape first, hook
    leader_escape; how he falls: hook leader_falls)."""
    rules = ctx.rs.rules
    for n, s in list(ctx.state.areas.get(area, {}).items()):
        if not s.leaders:
            continue
        killer = rules.battle.leader_killer(ctx, area, n, s, pair)
        if killer is None:
            continue
        for ld in list(s.leaders):
            if rules.leader_escape(ctx, area, n, ld) is None:
                rules.leader_falls(ctx, area, n, ld, killer)


# --- retreats: the battle model's (rs.rules.battle) ------------------------------------------------
def defender_retreat_problem(ctx: TurnContext, area: str, defender: str, target: str, count: int) -> str:
    """Rule 8.2 — why the defender may not retreat to `target` ('' if it may): the battle model's answer."""
    return ctx.rs.rules.battle.defender_retreat_problem(ctx, area, defender, target, count)
