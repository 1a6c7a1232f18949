"""Rule 8 — the exact odds of a battle: who ends up holding the area, and the expected losses.

Pure (no I/O, no dice): the same battle rules the engine plays (battle.py), computed as an exact
probability over every possible roll, with fractions, not by sampling.

How. A round's dice only matter by how many of them reach each hit number: a modified die is a miss,
a "soft" hit (good enough for an ordinary army: 5 or 6, rule 8.0) or a "hard" hit (a 6, needed against
hiland defenders, Roman armies and cavalry; 10.4 and doubt P1). The number of each is multinomial;
the engine's own allocation (battle.allocate_hits: the roller aims to kill the most) turns them into
losses. Both sides roll at once, independently. After a round the defender may retreat (8.2: DEFEND
... RETREAT TO, IF OUTNUMBERED, AFTER ROUND K), else the attacker may (8.3: ATTACK ... RETREAT IF
OUTNUMBERED / AFTER ROUND K); we assume the retreat is possible (the engine refuses one whose way back
is blocked). A round without losses repeats the same position, so the chance of ever leaving it is
summed as a geometric series: P = (sum over the other outcomes) / (1 - P(no loss)).

A fort or burh rolls like an army without the leader's +1 (9.2, 10.4; under FFG 23, 27 a burh gets it)
and falls only once no Roman army stands; a defender's retreat leaves its fort behind, and the battle goes on against the fort.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from pbem.errors import PbemError
from pbem.rules.battle import allocate_hits

MAX_WORK = 300_000  # pairs of round outcomes summed: a few seconds at most (a mail must not stall the job)
MAX_PIECES = 20   # per side: more than a Britannia stack holds; keeps the exact sum quick

ATTACK_MODES = ("fight", "retreat_if_outnumbered", "retreat_after")
DEFEND_MODES = ("hold", "retreat", "retreat_if_outnumbered")


@dataclass(frozen=True)
class Side:
    """One side of a battle: its pieces, whether a leader is with them (9.2: +1 on army/cavalry
    dice), whether its armies are Roman (they die only to a 6, 10.4), its LOSSES choice."""

    armies: int = 0
    cavalry: int = 0
    leader: bool = False
    roman: bool = False
    fort: bool = False
    burhs: int = 0
    losses: str = "raiders_first"     # or "cavalry_last" (LOSSES order)

    @property
    def units(self) -> int:
        return self.armies + self.cavalry

    @property
    def fighters(self) -> int:
        return self.armies + self.cavalry + int(self.fort) + self.burhs


@dataclass(frozen=True)
class Plan:
    """The standing orders for this battle: the attacker's ATTACK and the defender's DEFEND."""

    attack: str = "fight"                 # ATTACK_MODES
    attack_after: int | None = None       # RETREAT AFTER ROUND K
    defend: str = "hold"                  # DEFEND_MODES ("retreat": RETREAT TO B)
    defend_after: int | None = None       # ... AFTER ROUND K


@dataclass(frozen=True)
class Odds:
    """Exact probabilities (fractions) of how the battle ends, and the expected pieces lost."""

    attacker_takes: Fraction          # the attacker is alone in the area (defender dead or retreated)
    defender_holds: Fraction          # the attacker is dead or retreated, the defender still stands
    both_gone: Fraction               # no one is left
    attacker_retreats: Fraction       # part of defender_holds
    defender_retreats: Fraction       # part of attacker_takes
    attacker_losses: Fraction         # expected armies + cavalry lost
    defender_losses: Fraction         # expected armies + cavalry + forts/burhs lost
    attacker_hits_on: int = 5         # the least modified die that kills a defending army (8.0)
    defender_hits_on: int = 5

    def as_percent(self) -> dict[str, float]:
        return {k: round(float(getattr(self, k)) * 100, 1)
                for k in ("attacker_takes", "defender_holds", "both_gone", "attacker_retreats", "defender_retreats")}


def _class_probs(soft: int, hard: int, bonus: int) -> tuple[Fraction, Fraction, Fraction]:
    """P(miss), P(soft hit), P(hard hit) of one die with `bonus` added to its face."""
    hard_n = sum(1 for f in range(1, 7) if f + bonus >= hard)
    soft_n = sum(1 for f in range(1, 7) if soft <= f + bonus < hard)
    return Fraction(6 - hard_n - soft_n, 6), Fraction(soft_n, 6), Fraction(hard_n, 6)


def _multinomial(n: int, probs: tuple[Fraction, Fraction, Fraction]) -> dict[tuple[int, int], Fraction]:
    """(soft hits, hard hits) of n independent dice -> probability."""
    p0, p1, p2 = probs
    out: dict[tuple[int, int], Fraction] = {}
    for s in range(n + 1):
        for h in range(n - s + 1):
            p = comb(n, s) * comb(n - s, h) * p1 ** s * p2 ** h * p0 ** (n - s - h)
            if p:
                out[(s, h)] = p
    return out


def _add(a: dict[tuple[int, int], Fraction], b: dict[tuple[int, int], Fraction]) -> dict[tuple[int, int], Fraction]:
    """The (soft, hard) hits of two independent groups of dice together."""
    out: dict[tuple[int, int], Fraction] = {}
    for (s1, h1), p1 in a.items():
        for (s2, h2), p2 in b.items():
            out[(s1 + s2, h1 + h2)] = out.get((s1 + s2, h1 + h2), 0) + p1 * p2
    return out


def _target_left(side: Side) -> dict[str, int]:
    return {"cavalry": side.cavalry, "roman_armies": side.armies if side.roman else 0,
            "armies": 0 if side.roman else side.armies, "forts": int(side.fort) + side.burhs}


def _kills(rs, roller: Side, target: Side, soft: int) -> dict[tuple, Fraction]:
    """Distribution of what one round of `roller`'s dice kills of `target`: (cavalry, armies, forts)."""
    hard = rs.const.hit_hard
    bonus = rs.const.leader_bonus if roller.leader else 0
    need = {"cavalry": hard, "roman_armies": hard, "armies": soft, "forts": soft}
    # FFG 25 (constant `hit_fast`): cavalry and Roman armies hit ordinary targets one lower; a target
    # hit only on 6 still needs the 6. Their dice are one more group with their own soft threshold.
    gain = rs.const.hit - (rs.const.hit_fast or rs.const.hit)
    n_fast = (roller.cavalry + (roller.armies if roller.roman else 0)) if gain else 0
    fast_soft = soft - gain if soft < hard else soft
    unit_dice = _add(_multinomial(roller.units - n_fast, _class_probs(soft, hard, bonus)),
                     _multinomial(n_fast, _class_probs(fast_soft, hard, bonus)))
    burh_bonus = bonus if rs.feature("leader_bonus_on_burhs") else 0   # FFG 23, 27
    fort_dice = _add(_multinomial(int(roller.fort), _class_probs(soft, hard, 0)),
                     _multinomial(roller.burhs, _class_probs(soft, hard, burh_bonus)))
    left = _target_left(target)
    out: dict[tuple, Fraction] = {}
    for (s1, h1), p1 in unit_dice.items():
        for (s2, h2), p2 in fort_dice.items():
            s, h = s1 + s2, h1 + h2
            killed = allocate_hits([hard] * h + [soft] * s, dict(left), need, hard, target.losses)
            key = (killed.get("cavalry", 0), killed.get("armies", 0) + killed.get("roman_armies", 0),
                   killed.get("forts", 0))
            out[key] = out.get(key, 0) + p1 * p2
    return out


def _after(side: Side, kill: tuple) -> Side:
    cav, arm, forts = kill
    fort = side.fort
    burhs = side.burhs
    if forts and fort:
        fort, forts = False, forts - 1
    burhs -= forts
    left = Side(side.armies - arm, side.cavalry - cav, side.leader, side.roman, fort, burhs, side.losses)
    return left if left.units or not side.leader else Side(left.armies, left.cavalry, False, left.roman,
                                                           left.fort, left.burhs, left.losses)


def _check(side: Side, who: str) -> None:
    if min(side.armies, side.cavalry, side.burhs) < 0:
        raise PbemError(f"the {who} cannot have a negative number of pieces")
    if side.fighters > MAX_PIECES:
        raise PbemError(f"the {who} has {side.fighters} pieces; the odds are computed for at most {MAX_PIECES}")


def battle_odds(rs, attacker: Side, defender: Side, *, hiland: bool = False, plan: Plan = Plan()) -> Odds:
    """Rule 8 — the exact odds of the attacker's battle against the defender in an area.

    `hiland`: the area is hiland (8.0: the attacker needs a 6 against the defenders there)."""
    _check(attacker, "attacker")
    _check(defender, "defender")
    if attacker.units == 0 or defender.fighters == 0:
        raise PbemError("a battle needs attacking armies or cavalry and at least one defending piece")
    if plan.attack not in ATTACK_MODES or plan.defend not in DEFEND_MODES:
        raise PbemError(f"unknown plan {plan.attack!r}/{plan.defend!r}")
    att_soft = 6 if hiland else rs.const.hit       # the attacker's dice against the defenders
    def_soft = rs.const.hit                         # the defender's dice against the attackers
    cap = max(plan.attack_after or 1, plan.defend_after or 1)

    def defender_retreats(a: Side, d: Side, br: int) -> bool:     # battle._defender_retreats
        if plan.defend == "hold" or not d.units:
            return False
        if plan.defend_after is not None and br < plan.defend_after:
            return False
        return not (plan.defend == "retreat_if_outnumbered" and d.fighters >= a.fighters)

    def attacker_retreats(a: Side, d: Side, br: int) -> bool:     # battle._attacker_retreats
        if plan.attack == "fight":
            return False
        if plan.attack == "retreat_after" and br < (plan.attack_after or 1):
            return False
        return not (plan.attack == "retreat_if_outnumbered" and a.fighters >= d.fighters)

    zero = Fraction(0)
    work = [0]

    @cache
    def kills(roller: Side, target: Side, soft: int) -> tuple:
        work[0] += (roller.fighters + 1) ** 2 * 4      # the dice outcomes allocated, roughly
        return tuple(_kills(rs, roller, target, soft).items())

    @cache
    def solve(a: Side, d: Side, rounds: int) -> tuple[Fraction, ...]:
        """(takes, holds, both, att_retreat, def_retreat, att_losses, def_losses) from here."""
        br = rounds + 1
        acc = [zero] * 7
        stay = zero
        kd_all, ka_all = kills(a, d, att_soft), kills(d, a, def_soft)
        work[0] += len(kd_all) * len(ka_all)
        if work[0] > MAX_WORK:
            raise PbemError("this battle is too big to compute exactly here (too many mixes of armies, "
                            "cavalry and rounds)", hint="try fewer pieces, or without the cavalry")
        for kd, pd in kd_all:
            for ka, pa in ka_all:
                p = pd * pa
                a2, d2 = _after(a, ka), _after(d, kd)
                lost_a, lost_d = sum(ka), sum(kd)
                acc[5] += p * lost_a
                acc[6] += p * lost_d
                if not a2.fighters or not d2.fighters:
                    if a2.fighters:
                        acc[0] += p
                    elif d2.fighters:
                        acc[1] += p
                    else:
                        acc[2] += p
                    continue
                if defender_retreats(a2, d2, br):
                    d2 = Side(0, 0, False, d2.roman, d2.fort, d2.burhs, d2.losses)
                    if not d2.fighters:
                        acc[0] += p
                        acc[4] += p
                        continue
                elif attacker_retreats(a2, d2, br):
                    acc[1] += p
                    acc[3] += p
                    continue
                nxt = min(br, cap)
                if (a2, d2, nxt) == (a, d, rounds):
                    stay += p           # nothing changed: the same round again
                    continue
                rest = solve(a2, d2, nxt)
                for i in range(5):
                    acc[i] += p * rest[i]
                acc[5] += p * rest[5]
                acc[6] += p * rest[6]
        go = 1 - stay
        return tuple(x / go for x in acc)

    r = solve(attacker, defender, 0)
    return Odds(*r, attacker_hits_on=att_soft, defender_hits_on=def_soft)


@dataclass(frozen=True)
class PlannedBattle:
    """A battle the orders will start: where, against whom, with what, and the odds."""

    area: str
    attacker: str
    defender: str
    attacking: Side
    defending: Side
    hiland: bool
    plan: Plan
    odds: Odds


def _side_of(rs, stack, nation: str, losses: str = "raiders_first") -> Side:
    return Side(stack.armies, stack.cavalry, bool(stack.leaders), nation == rs.role("empire"), stack.fort, stack.burhs, losses)


def planned_battles(rs, state, nation: str, orders) -> list[PlannedBattle]:
    """Rule 8 — the battles `orders` (a NationOrders) lead to after the first movement, each with its
    exact odds as if it were fought alone (the battles of a turn do not change each other's pieces,
    except a defender retreating into another battle area; forts and burhs as they stand).
    Orders the rules refuse give no battles (the reply lists their problems); a battle whose defender
    has a split retreat order (RETREAT 2 TO B, REST TO C) is left out: the odds do not model parts."""
    from pbem.rules.battle import loss_preference, standing_orders
    from pbem.rules.context import TurnContext
    from pbem.rules.legal import _NoDice
    from pbem.rules.orders import Attack, Defend
    from pbem.rules.turn import play_nation_turn

    result = play_nation_turn(rs, state, nation, {nation: orders}, _NoDice(), stop="after_movement", strict=True)
    if result.problems:
        return []
    after = result.state
    ctx = TurnContext(rs, after, nation, {nation: orders}, _NoDice())
    out = []
    for area in sorted(after.areas):
        own = after.get(area, nation)
        if not rs.is_land(area) or not own or not own.units:
            continue
        for other in after.occupants(area):
            if other == nation:
                continue
            d = after.get(area, other)
            attack = next((o for o in reversed(orders.of(Attack)) if o.area == area), None)
            defend = next((o for o in standing_orders(ctx, other, Defend) if o.area in (area, "all")), None)
            if defend is not None and defend.split_counts:
                continue    # a split retreat (8.2 parts) is not modelled by the odds
            plan = Plan(attack.mode if attack else "fight", attack.after_round if attack else None,
                        "hold" if defend is None or defend.hold or not defend.to else
                        ("retreat_if_outnumbered" if defend.if_outnumbered else "retreat"),
                        defend.after_round if defend is not None else None)
            a_side = _side_of(ctx.rs, own, nation, loss_preference(ctx, nation, area))
            d_side = _side_of(ctx.rs, d, other, loss_preference(ctx, other, area))
            if a_side.fighters > MAX_PIECES or d_side.fighters > MAX_PIECES:
                continue
            try:
                o = battle_odds(rs, a_side, d_side, hiland=rs.hiland(area), plan=plan)
            except PbemError:
                continue    # too big to compute here: no odds for this battle
            out.append(PlannedBattle(area, nation, other, a_side, d_side, rs.hiland(area), plan, o))
    return out
