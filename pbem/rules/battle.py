"""Rule 8 — battles: simultaneous dice, casualties, retreats (8.1-8.4), leaders (9.2), forts (10.4).

Hit numbers (our reading, doubt P1 in ruleset.yaml): a modified 5 or 6 kills an ordinary army, fort or
burh; 6 is needed against defenders in a hiland (8.0), against Roman armies (10.4: "a die roll of 5
will not eliminate the fort unless any Roman armies present are eliminated by rolls of 6") and against
cavalry (seed 000's table). A leader adds one to each die of its nation's armies and cavalry (9.2).

Which target each die is aimed at is the roller's choice (8.0 "announce the type of unit being attacked
before each die roll"); by default the engine aims to kill the most: 5s at ordinary armies, 6s at Roman
armies first (they shield forts), then cavalry, then what is left, forts last. Which of the owner's
ordinary armies die is the owner's choice (LOSSES orders); the default is raiders first.

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

from dataclasses import dataclass

from pbem.rules.context import Kill, TurnContext
from pbem.rules.dice import RollRequest, ScriptError, is_neutral
from pbem.rules.movement import kill_leader, occupy
from pbem.rules.orders import Attack, Battles, Defend, Losses, order_from_dict
from pbem.rules.stacking import can_add
from pbem.rules.state import Stack
from pbem.rules.submission import waiting_submissions

KIND_ORDER = ("cavalry", "roman_armies", "armies", "forts")


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
    if ctx.state.occupants(area) == [ctx.nation]:
        occupy(ctx, area)


@dataclass
class Side:
    nation: str
    stack: Stack

    def leader_bonus(self) -> int:
        return 1 if self.stack.leaders else 0


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
    _rs, state = ctx.rs, ctx.state
    attacker = ctx.nation
    ctx.emit("battle", area=area, attacker=attacker, defender=defender, cycle=ctx.cycle, lines=_order_lines(ctx, area))
    ctx.rs.rules.battle_begins(ctx, defender)   # FFG 41: who attacked the Romano-British
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
        _apply_losses(ctx, area, attacker, a, a_loss, killer=defender, by_raiders=False)
        _apply_losses(ctx, area, defender, d, d_loss, killer=attacker, by_raiders=a_raiders)
        ctx.emit("battle_round", area=area, battle_round=br, cycle=ctx.cycle,
                 dice={attacker: _labelled(a_req, a_faces), defender: _labelled(d_req, d_faces)},
                 losses={attacker: a_loss, defender: d_loss})
        _leaders_left_alone(ctx, area)
        if defender in waiting_submissions(ctx, "after a round of dice") and state.subjects.get(defender) == attacker:
            outcome = "defender submitted"   # 11.1: the Romans can no longer attack the subject nation
            break
        a = state.get(area, attacker)
        d = state.get(area, defender)
        if not a or not a.fighters or not d or not d.fighters:
            break
        # Rule 8.1 — the defender may retreat; if not, the attacker may. A split retreat that leaves
        # some defenders behind is carried out once: those stay and fight (8.1 "others remain").
        if not split_done and _defender_retreats(ctx, area, defender, br):
            split_done = True
            continue
        if may_retreat and _attacker_retreats(ctx, area, br):
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


def _target_kinds(target: Stack, roman: bool) -> list[str]:
    kinds = []
    if target.cavalry:
        kinds.append("cavalry")
    if target.armies:
        kinds.append("roman_armies" if roman else "armies")
    if target.fort or target.burhs:
        kinds.append("forts")
    return kinds


def _roll(ctx: TurnContext, area: str, br: int, side: str, stack: Stack, target: Stack, target_nation: str):
    """One die per army, cavalry, fort and burh (8.0, 10.4), in the order cavalry, armies, forts.
    Returns the faces and the request (its labels go into the battle_round event)."""
    req = _request(ctx, area, br, side, stack.fighters, _target_kinds(target, target_nation == ctx.rs.role("empire")))
    faces = ctx.dice.faces(req)
    if isinstance(faces, list) and any(not (1 <= f <= 6) for f in faces):
        raise ScriptError(f"die faces must be 1-6, got {faces}")
    return faces, req


def _modified(faces: list[int], stack: Stack, bonus: int, on_burhs: bool = False) -> list[int]:
    """Leader bonus on the dice of armies and cavalry (9.2), not on forts; on burhs only where the
    ruleset says so (FFG 23, 27: feature `leader_bonus_on_burhs`). Dice order: cavalry, armies, fort, burhs."""
    n_units = stack.cavalry + stack.armies
    first_burh = len(faces) - (stack.burhs if on_burhs else 0)
    return [f + (bonus if i < n_units or i >= first_burh else 0) for i, f in enumerate(faces)]


def casualties(ctx: TurnContext, area: str, faces, roller: Stack, roller_nation: str, target: Stack,
               target_nation: str, defending: bool) -> dict[str, int]:
    """How many of each kind of the target's pieces the roller's faces kill this round."""
    rs = ctx.rs
    soft, hard = rs.rules.hit_numbers(rs, area, defending)   # 8.0: hiland defence only on a 6
    bonus = rs.const.leader_bonus if roller.leaders else 0
    roman = target_nation == rs.role("empire")   # 10.4: Roman armies are hit only on a 6
    left = {"cavalry": target.cavalry, "roman_armies": target.armies if roman else 0,
            "armies": 0 if roman else target.armies, "forts": int(target.fort) + target.burhs}
    need = {"cavalry": hard, "roman_armies": hard, "armies": soft, "forts": soft}
    if isinstance(faces, dict):
        return _split_casualties(faces, roller, bonus, left, need, dict.fromkeys(KIND_ORDER, 0))
    mods = _modified(list(faces), roller, bonus, bool(rs.feature("leader_bonus_on_burhs")))
    # LOSSES CAVALRY LAST only orders armies before cavalry: asked only of a target with both (most have no cavalry)
    pref = loss_preference(ctx, target_nation, area) if target.cavalry and target.armies else "raiders_first"
    return allocate_hits(mods, left, need, hard, pref,
                         fast=_fast_dice(rs, roller, roller_nation),
                         fast_gain=fast_gain(rs))


def fast_gain(rs) -> int:
    """FFG 25 (constant `hit_fast`): how much lower a cavalry unit's or a Roman army's die hits
    ordinary targets (0 without `hit_fast`: classic)."""
    return rs.const.hit - (rs.const.hit_fast or rs.const.hit)


def _fast_dice(rs, roller: Stack, roller_nation: str) -> list[bool]:
    """FFG 25 (constant `hit_fast`): which of the roller's dice (cavalry, armies, forts, burhs in that
    order) are a cavalry unit's or a Roman army's. Without `hit_fast` (classic) none is."""
    n = roller.fighters
    if rs.const.hit_fast is None:
        return [False] * n
    fast = roller.cavalry + (roller.armies if roller_nation == rs.role("empire") else 0)
    return [i < fast for i in range(n)]


def allocate_hits(mods: list[int], left: dict[str, int], need: dict[str, int], hard: int,
                  pref: str = "raiders_first", fast: list[bool] | None = None, fast_gain: int = 0) -> dict[str, int]:
    """Rule 8.0 — which of the target's pieces a round's modified dice `mods` kill (the roller aims
    to kill the most): soft dice (good enough only for what needs `need["armies"]`) go to ordinary
    armies first, then hard dice to Roman armies, cavalry and armies (LOSSES CAVALRY LAST: armies
    before cavalry), forts last and only once no Roman army stands (10.4). `left` counts the target's
    pieces by kind (cavalry, roman_armies, armies, forts). Also used by the odds calculator (odds.py).

    FFG 25: the dice flagged in `fast` (a Roman army's or a cavalry unit's) hit ordinary targets
    `fast_gain` lower (4 instead of 5); a target hit only on 6 (Romans, cavalry, defenders in
    difficult terrain) still needs the 6."""
    killed = dict.fromkeys(KIND_ORDER, 0)
    flags = list(fast or ()) + [False] * (len(mods) - len(fast or ()))
    # ascending (die, fast flag): the first usable die of the pool is the lowest that can do the kill
    pool = sorted(zip(mods, flags, strict=False))

    def spend(kind: str, allow_hard: bool) -> None:
        # the modified die a kill of this kind needs: a fast die needs `fast_gain` less, not below a 6
        slow = need[kind]
        quick = slow if slow >= hard else slow - fast_gain
        while left[kind] - killed[kind] > 0:
            for i, (f, is_fast) in enumerate(pool):
                if f >= (quick if is_fast else slow) and (allow_hard or f < hard):
                    del pool[i]    # the lowest die that kills: the higher ones stay for harder targets
                    break
            else:
                return
            killed[kind] += 1
    spend("armies", allow_hard=False)
    hard_order = ["roman_armies", "armies", "cavalry"] if pref == "cavalry_last" else ["roman_armies", "cavalry", "armies"]
    for kind in hard_order:
        spend(kind, allow_hard=True)
    if killed["roman_armies"] == left["roman_armies"]:
        spend("forts", allow_hard=True)     # 10.4 — forts fall only once no Roman army stands
    return {k: v for k, v in killed.items() if v}


def _split_casualties(split, roller, bonus, left, need, killed) -> dict[str, int]:
    """Case dice aimed explicitly: {vs-cavalry: [...], vs-armies: [...], vs-forts: [...]}."""
    names = {"vs-cavalry": "cavalry", "vs-armies": "armies", "vs-roman-armies": "roman_armies", "vs-forts": "forts"}
    for key, faces in split.items():
        kind = names.get(key)
        if kind is None:
            raise ScriptError(f"unknown dice target {key!r}")
        if kind == "armies" and left["armies"] == 0:
            kind = "roman_armies"
        for f in faces:
            if f + bonus >= need[kind] and killed[kind] < left[kind]:
                killed[kind] += 1
    return {k: v for k, v in killed.items() if v}


def loss_preference(ctx: TurnContext, nation: str, area: str) -> str:
    pref = "raiders_first"
    for o in standing_orders(ctx, nation, Losses):
        if o.area in (area, "all"):
            pref = o.preference
            if o.area == area:
                break
    return pref


def standing_orders(ctx: TurnContext, nation: str, cls: type) -> list:
    """Standing orders of a nation: those in this adjudication's orders, then the saved ones.
    An order for the area itself comes before an ALL order."""
    sent = ctx.orders.get(nation)
    saved = ctx.state.standing.get(nation)
    key = (nation, cls)
    hit = ctx.standing_cache.get(key)
    # the saved standing orders change only at the start of a turn (turn._keep_standing_orders):
    # parsed once a turn, not once a battle round (they are frozen dataclasses, safe to share)
    if hit is not None and hit[0] is sent and hit[1] == saved:
        return hit[2]
    found = _standing_orders(sent, saved, cls)
    ctx.standing_cache[key] = (sent, dict(saved) if saved is not None else None, found)
    return found


def _standing_orders(sent, saved: dict | None, cls: type) -> list:
    found = []
    if sent:
        found += [o for o in sent.of(cls)]
    for d in (saved or {}).values():
        o = order_from_dict(d)
        if isinstance(o, cls) and not any(getattr(x, "area", None) == getattr(o, "area", None) for x in found):
            found.append(o)
    found.sort(key=lambda o: getattr(o, "area", "") == "all")
    return found


def _apply_losses(ctx: TurnContext, area: str, nation: str, stack: Stack, loss: dict[str, int], killer: str, by_raiders: bool) -> None:
    pref = None   # asked only when an army dies (the LOSSES orders are looked up then)
    for kind, n in loss.items():
        for _ in range(n):
            if kind == "cavalry":
                stack.cavalry -= 1
            elif kind in ("armies", "roman_armies"):
                settlers = stack.armies - stack.raiders
                if stack.raiders and pref is None:
                    pref = loss_preference(ctx, nation, area)
                if stack.raiders and (pref == "raiders_first" or settlers == 0):
                    stack.raiders -= 1
                stack.armies -= 1
            elif kind == "forts":
                if stack.fort:
                    stack.fort = False
                    kind_name = "roman_forts"
                else:
                    stack.burhs -= 1
                    kind_name = "burhs"
                ctx.kills.append(Kill(killer=killer, victim=nation, kind=kind_name, area=area, by_raiders=by_raiders))
                continue
            ctx.kills.append(Kill(killer=killer, victim=nation, kind=kind, area=area, by_raiders=by_raiders))
    if loss:
        ctx.emit("eliminated", area=area, nation=nation, losses=dict(loss), by=killer)


def _leaders_left_alone(ctx: TurnContext, area: str) -> None:
    """Rule 9.2 — a leader left alone in the area with another nation's armies is eliminated (FFG 23:
    unless it can first retreat to an adjacent area holding its own armies: hook leader_escape)."""
    st = ctx.state.areas.get(area, {})
    armed = [n for n, s in st.items() if s.fighters]
    for n, s in list(st.items()):
        if s.leaders and not s.fighters and any(o != n for o in armed):
            killer = next(o for o in armed if o != n)
            for ld in list(s.leaders):
                if ctx.rs.rules.leader_escape(ctx, area, n, ld) is None:
                    kill_leader(ctx, area, n, ld, killer=killer)


# --- retreats -----------------------------------------------------------------------------------
def attacker_groups(ctx: TurnContext, area: str) -> list:
    """Rule 8.3 — the attacker's groups that entered the battle area in this movement cycle."""
    return [m for m in ctx.moves if m.dest == area and m.nation == ctx.nation and m.kind != "leader"
            and m.cycle == ctx.cycle]


def attacker_origins(ctx: TurnContext, area: str) -> list[str]:
    """Rule 8.3 — the areas from which the attacker's groups entered the battle area."""
    return [m.came_from for m in attacker_groups(ctx, area)]


def defender_retreat_problem(ctx: TurnContext, area: str, defender: str, target: str, count: int) -> str:
    """Rule 8.2 — why the defender may not retreat to `target` ('' if it may)."""
    rs, state = ctx.rs, ctx.state
    if not rs.is_land(target):
        return "defenders never retreat out to sea (8.2)"
    if target not in rs.areas[area].land and target not in rs.areas[area].straits:
        return f"{rs.display(target)} does not border {rs.display(area)}"
    if target in rs.rules.retreat_barred_origins(ctx, area, attacker_origins(ctx, area)):
        return f"the attackers came from {rs.display(target)} (8.2)"
    there = [n for n in state.nations_in(target)]
    if there and there != [defender]:
        return f"{rs.display(target)} is not solely occupied by the {rs.nations[defender].name} (8.2)"
    if not there:
        for nb in sorted(rs.areas[target].land | rs.areas[target].straits):
            if nb == area:
                continue
            st = state.get(nb, ctx.nation)
            if st and st.fighters:
                return f"{rs.display(target)} is vacant but next to the attackers in {rs.display(nb)} (8.2)"
    if not can_add(rs, state, defender, target, count, leaving=area):
        return f"stacking limits in {rs.display(target)} (5.21)"
    return ""


def _defender_retreats(ctx: TurnContext, area: str, defender: str, br: int) -> bool:
    """Rules 8.1-8.2 — the defender's DEFEND order, when its condition holds after this round: all its
    units to one area, or a split retreat (parts in the order given; REST takes what is left; without
    REST the others stay and fight on). A part whose area 8.2 refuses stays; the others still go.
    Ordinary armies leave before cavalry; leaders go with the first part that leaves."""
    state = ctx.state
    d = state.get(area, defender)
    a = state.get(area, ctx.nation)
    for o in standing_orders(ctx, defender, Defend):
        if o.area not in (area, "all"):
            continue
        parts = o.parts()
        if o.hold or not parts:
            return False
        if o.after_round is not None and br < o.after_round:
            return False
        if o.if_outnumbered and d.fighters >= a.fighters:
            return False
        moved = False
        for want, target in parts:
            d = state.get(area, defender)
            left = d.units if d else 0
            count = left if want is None else min(want, left)
            if not count:
                break
            why = defender_retreat_problem(ctx, area, defender, target, count)
            if why:
                ctx.emit("retreat_refused", area=area, nation=defender, to=target, reason=why)
                continue
            armies = min(count, d.armies)
            part = Stack(armies=armies, cavalry=count - armies, raiders=min(d.raiders, armies))
            if not state.nations_in(target):   # an empty area entered in another nation's turn (FFG 51)
                ctx.entered_by_others.setdefault(defender, set()).add(target)
            _move_units(ctx, area, target, defender, part, whole=not moved)
            ctx.emit("retreated", area=area, nation=defender, to=target, count=count, side="defender")
            moved = True
        return moved
    return False


def _attack_order(ctx: TurnContext, area: str) -> Attack | None:
    found = None
    for o in ctx.own().of(Attack):
        if o.area == area:
            found = o
    return found


def _attacker_retreats(ctx: TurnContext, area: str, br: int) -> bool:
    """Rules 8.3, 8.4, 7.22 — the attacker goes back where it came from (raiders: towards their sea)."""
    o = _attack_order(ctx, area)
    if not o or o.mode == "fight":
        return False
    a = ctx.state.get(area, ctx.nation)
    d_units = sum(s.fighters for n, s in ctx.state.areas.get(area, {}).items() if n != ctx.nation)
    if o.mode == "retreat_after" and br < (o.after_round or 1):
        return False
    if o.mode == "retreat_if_outnumbered" and a.fighters >= d_units:
        return False
    return retreat_attacker(ctx, area)


def retreat_attacker(ctx: TurnContext, area: str) -> bool:
    """Rule 8.3 — each surviving attacker goes back to the area its group entered from.

    Which group the survivors belong to is the owner's choice (8.3's example); the order language has
    no words for it, so our reading is: losses come off the groups listed LAST in the orders, the
    survivors fill the groups in the order of the move lines. A group whose origin holds another
    nation's army (8.3), or which would break the stacking limits there (5.21), stays and fights on.
    A group that came from the sea goes back to it: raiders (8.4) and, on the turn of landing,
    invaders (7.22), raiders to the sea where they began the turn, fighting their way through an
    occupied area of their route (8.4). Returns True if any unit retreated."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    a = state.get(area, nation)
    groups = attacker_groups(ctx, area)
    if not a or not groups:
        return False
    remaining = {"cavalry": a.cavalry, "armies": a.armies}
    went: list[str] = []
    for m in groups:
        kind = "cavalry" if m.kind == "cavalry" else "armies"
        take = min(m.count - m.retreated, remaining[kind])
        if take <= 0:
            continue
        remaining[kind] -= take
        target = m.came_from
        raiders = min(a.raiders, take) if kind == "armies" else 0
        if raiders and raiders == take and m.raiders and not m.withdrawal:
            # 8.4 — raiders retreat only to the sea where they began the turn, back along their route;
            # an occupied area on the way must be entered and fought in (not refused as in 8.3)
            went.append(_raiders_retreat(ctx, area, m, take))
            continue
        if rs.is_land(target):
            blocked = any(n != nation for n in state.occupants(target))
            if blocked or not can_add(rs, state, nation, target, take, leaving=area):
                ctx.emit("retreat_refused", area=area, nation=nation, to=target,
                         reason="held by another nation (8.3)" if blocked else "stacking limits (5.21)")
                continue
        part = Stack(armies=take if kind == "armies" else 0, cavalry=take if kind == "cavalry" else 0)
        part.raiders = raiders
        _move_units(ctx, area, target, nation, part, whole=False)
        m.retreated += take
        ctx.emit("retreated", area=area, nation=nation, to=target, count=take, side="attacker")
        went.append(target)
    rest = state.get(area, nation)
    if went and rest and not rest.units and rest.leaders:
        # leaders go with their armies (9.1: they moved with them)
        state.stack(went[0], nation).leaders.extend(rest.leaders)
        rest.leaders.clear()
    state.prune()
    return bool(went)


def _raiders_retreat(ctx: TurnContext, area: str, m, take: int) -> str:
    """Rule 8.4 — "Raiders may only withdraw to sea, and return to the sea area where they began the
    turn. If they have raided inland, they may only withdraw along the route they entered by. If the
    area through which they entered is occupied by opposing piece(s), they must retreat to this area
    and enter into battle. If they win ... they may then withdraw to sea." """
    from pbem.rules.endturn import raider_route_back, raiders_go_back

    m.retreated += take
    route = raider_route_back(ctx, area, m)
    ctx.emit("retreated", area=area, nation=ctx.nation, to=route[-1], count=take, side="attacker", raiders=True)
    return raiders_go_back(ctx, area, take, route)


def _move_units(ctx: TurnContext, src: str, dst: str, nation: str, part: Stack, whole: bool = True) -> None:
    st = ctx.state.stack(src, nation)
    to = ctx.state.stack(dst, nation)
    to.armies += part.armies
    to.cavalry += part.cavalry
    to.raiders += part.raiders
    st.armies -= part.armies
    st.cavalry -= part.cavalry
    st.raiders -= part.raiders
    if whole:
        to.leaders.extend(st.leaders)
        st.leaders.clear()
    ctx.state.prune()
