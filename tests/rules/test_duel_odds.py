"""Issue 29 (doubt S6) — the exact odds of a Duel Britannia battle are the engine's battle, in the
Duel battle model: [Battle Dice] (two dice a piece, a 5 or 6 hits, two hits eliminate), [Defender In
Difficult Terrain] (only a 6), [Leaders] (+1), [Allocation Of Hits] (one wounded piece a side, its hit
kept within the battle; by default the cavalry takes the 6s first, then the armies, the fortification
last) and [Cavalry] (hit only by a 6, its dice rolled apart hit on 4-6 in clear terrain).

Three checks, each against the engine's own rules (DuelBattleModel.casualties, apply_losses, battle.fight):
- one round: every face of every die through the engine's casualties and apply_losses gives the
  target's pieces and wound after it with the probabilities the odds solver's round gives;
- a whole battle without retreats: the rounds chained exactly (each state's every roll through the
  engine's casualties, a round that changes nothing repeating), the same fractions as the odds;
- whole battles with retreat plans (DEFEND RETREAT, ATTACK RETREAT IF OUTNUMBERED / AFTER ROUND):
  battle.fight over many seeded dice, its frequencies within 4.5 standard deviations of the odds.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from math import sqrt

import pytest

from pbem.data.loader import load
from pbem.rules import battle, odds
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.dice import HmacDice
from pbem.rules.events import BattleEnd, Retreated
from pbem.rules.odds import Plan, Side, battle_odds
from pbem.rules.orders import Attack, Defend, NationOrders
from pbem.rules.rulesets.duel_battle import WOUNDED, wounded_kind
from pbem.rules.state import GameState, Stack

RS = load("duel")
CLEAR, DIFFICULT = "hwicce", "powys"      # Hwicce clear; Powys difficult terrain
ORIGIN = {CLEAR: "wessex", DIFFICULT: "hwicce"}        # where the attackers came from
RETREAT = {CLEAR: "mercia", DIFFICULT: "gwynedd"}      # a vacant area for the defender's retreat
ATTACKER, DEFENDER = "saxons", "welsh"
LEADER = {ATTACKER: "cerdic", DEFENDER: "arthur_welsh"}


def _stack(side: Side, nation: str) -> Stack:
    s = Stack(armies=side.armies, cavalry=side.cavalry, fort=side.fort, leaders=[LEADER[nation]] if side.leader else [])
    if side.wounded:
        s.counters[WOUNDED[side.wounded]] = 1
    return s


def _probe():
    return TurnContext(RS, GameState(ruleset="duel", game="duel-odds", round=3), ATTACKER, {}, None)


def _after(ctx, area, roller: Stack, rn: str, target: Stack, tn: str, defending: bool, faces) -> tuple:
    """The engine's round on the target: casualties, then apply_losses; (armies, cavalry, fort, wound)."""
    t = target.copy()
    loss = battle.casualties(ctx, area, list(faces), roller, rn, target, tn, defending)
    RS.rules.battle.apply_losses(ctx, area, tn, t, loss, killer=rn, by_raiders=False)
    return t.armies, t.cavalry, t.fort, wounded_kind(t) if t.fighters else None


@cache
def _engine_round(area: str, roller: Side, target: Side, attacking: bool) -> dict[tuple, Fraction]:
    """Every roll of the roller's dice (two a piece) through the engine: the target after -> probability."""
    rn, tn = (ATTACKER, DEFENDER) if attacking else (DEFENDER, ATTACKER)
    ctx = _probe()
    r, t = _stack(roller, rn), _stack(target, tn)
    n = RS.rules.battle.dice_count(RS, r, rn)
    out: dict[tuple, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=n):
        key = _after(ctx, area, r, rn, t, tn, attacking, faces)
        out[key] = out.get(key, 0) + Fraction(1, 6 ** n)
    return out


def _solver_round(area: str, roller: Side, target: Side, attacking: bool) -> dict[tuple, Fraction]:
    """The odds solver's round (its model's kills): the target after -> probability."""
    model = odds._Model(RS, odds.die_needs(RS, area, True), odds.die_needs(RS, area, False))
    r, t = model.side_id(odds._of(roller)), model.side_id(odds._of(target))
    rows = model.kills(r, t, attacking)
    total = sum(c for *_, c in rows)
    out: dict[tuple, Fraction] = {}
    for after, _, c in rows:
        s = model.sides[after]
        key = (s[odds.ARMIES], s[odds.CAVALRY], s[odds.FORT], s[odds.WOUNDED] if s[odds.FIGHTERS] else None)
        out[key] = out.get(key, 0) + Fraction(c, total)
    return out


ROUNDS = [   # (area, roller, target, the roller attacks)
    (CLEAR, Side(2), Side(2), True),
    (DIFFICULT, Side(2), Side(2), True),                    # only the 6s hit the defender
    (DIFFICULT, Side(2), Side(2), False),                   # the defender's dice: 5-6 as in clear
    (CLEAR, Side(1, leader=True), Side(2, wounded="armies"), True),    # leader +1; the wound counts
    (CLEAR, Side(0, 1), Side(2, 1), True),                  # the cavalry's dice hit on 4; cavalry takes 6s
    (CLEAR, Side(1, 1, leader=True), Side(1, 1, wounded="cavalry"), True),
    (DIFFICULT, Side(1, 1), Side(1, 1, wounded="armies"), True),     # a 6 on the cavalry drops the army's wound
    (CLEAR, Side(2), Side(1, 0, fort=True), False),
    (CLEAR, Side(2, 1), Side(0, 0, fort=True, wounded="forts"), True),
    (CLEAR, Side(1), Side(1, 1, fort=True, wounded="armies"), True),
]


@pytest.mark.parametrize("area,roller,target,attacking", ROUNDS)
def test_one_round_of_the_odds_is_the_engines_round_roll_by_roll(area, roller, target, attacking):
    assert _solver_round(area, roller, target, attacking) == _engine_round(area, roller, target, attacking)


def _exact_battle(area: str, att: Side, dfd: Side) -> tuple[Fraction, ...]:
    """(takes, holds, both, attacker's losses, defender's losses): the engine's rounds chained exactly
    (fight / hold), a side as (armies, cavalry, fort, wound), each side's dice through the engine."""
    leaders = (att.leader, dfd.leader)

    def side(key: tuple, leader: bool) -> Side:
        return Side(key[0], key[1], leader and any(key[:3]), fort=key[2], wounded=key[3])

    @cache
    def solve(a: tuple, d: tuple) -> tuple[Fraction, ...]:
        on_d = _engine_round(area, side(a, leaders[0]), side(d, leaders[1]), True)
        on_a = _engine_round(area, side(d, leaders[1]), side(a, leaders[0]), False)
        total = [Fraction(0)] * 5
        stay = Fraction(0)
        for (a2, pa), (d2, pd) in itertools.product(on_a.items(), on_d.items()):
            p = pa * pd
            lost = (sum(a[:3]) - sum(a2[:3]), sum(d[:3]) - sum(d2[:3]))
            total[3] += p * lost[0]
            total[4] += p * lost[1]
            a_alive, d_alive = any(a2[:3]), any(d2[:3])
            if not a_alive or not d_alive:
                total[0 if a_alive else 1 if d_alive else 2] += p
            elif (a2, d2) == (a, d):
                stay += p
            else:
                rest = solve(a2, d2)
                for i in range(5):
                    total[i] += p * rest[i]
        return tuple(x / (1 - stay) for x in total)

    return solve((att.armies, att.cavalry, att.fort, att.wounded), (dfd.armies, dfd.cavalry, dfd.fort, dfd.wounded))


BATTLES = [   # (area, attacker, defender)
    (CLEAR, Side(1), Side(1)),
    (CLEAR, Side(2), Side(1)),
    (DIFFICULT, Side(2), Side(2)),
    (CLEAR, Side(1, leader=True), Side(2)),
    (CLEAR, Side(1, 1), Side(1, 1)),                                # the cavalry's 4s and 6s
    (DIFFICULT, Side(0, 1, leader=True), Side(2, leader=True)),     # Arthur's cavalry against a leader
    (CLEAR, Side(2, wounded="armies"), Side(1, 1, wounded="cavalry")),
    (CLEAR, Side(2), Side(0, 1, fort=True)),
]


@pytest.mark.parametrize("area,att,dfd", BATTLES)
def test_the_odds_are_the_engines_rounds_chained_exactly(area, att, dfd):
    o = battle_odds(RS, att, dfd, area=area)
    assert (o.attacker_takes, o.defender_holds, o.both_gone, o.attacker_losses, o.defender_losses) == \
        _exact_battle(area, att, dfd)
    assert o.attacker_takes + o.defender_holds + o.both_gone == 1


def test_a_duel_battle_kills_at_two_hits_not_one():
    """[Battle Dice] — one army against one: each side rolls two dice and needs two hits to eliminate;
    the plain model's one hit a kill would give 40 / 40 / 20 % (classic 8.0), Duel gives less for 'both'."""
    o = battle_odds(RS, Side(1), Side(1), area=CLEAR)
    assert o.attacker_takes == o.defender_holds
    assert o.both_gone < Fraction(1, 5)
    assert battle_odds(RS, Side(1), Side(1), area=CLEAR) != battle_odds(load("classic"), Side(1), Side(1))


PLANNED = [   # (area, attacker, defender, plan): played by battle.fight over seeded dice
    (CLEAR, Side(3), Side(2, 1), Plan(defend="retreat", defend_after=2)),
    (CLEAR, Side(2, 1, leader=True), Side(3), Plan(attack="retreat_if_outnumbered")),
    (DIFFICULT, Side(3), Side(2), Plan(attack="retreat_after", attack_after=2, defend="retreat_if_outnumbered")),
    (CLEAR, Side(2), Side(2, fort=True), Plan(defend="retreat")),
]
SEEDED = 1200       # battles per plan


def _fight(area: str, att: Side, dfd: Side, plan: Plan, seed: int) -> tuple[str, int, int, bool]:
    """One battle played by the engine: (how it ended, the attacker's losses, the defender's, whether
    a side retreated)."""
    st = GameState(ruleset="duel", game=f"duel-odds-{seed}", round=3)
    st.areas[area] = {ATTACKER: _stack(att, ATTACKER), DEFENDER: _stack(dfd, DEFENDER)}
    defend = {"hold": Defend(area, hold=True),
              "retreat": Defend(area, hold=False, to=RETREAT[area], after_round=plan.defend_after),
              "retreat_if_outnumbered": Defend(area, hold=False, to=RETREAT[area], if_outnumbered=True,
                                               after_round=plan.defend_after)}[plan.defend]
    orders = {ATTACKER: NationOrders(ATTACKER, [Attack(area, plan.attack, plan.attack_after)]),
              DEFENDER: NationOrders(DEFENDER, [defend])}
    ctx = TurnContext(RS, st, ATTACKER, orders, HmacDice(f"duel-odds-{seed}".encode()))
    ctx.moves = [MoveRecord(ATTACKER, "armies", att.armies, 0, (ORIGIN[area], area), 1)]
    if att.cavalry:
        ctx.moves.append(MoveRecord(ATTACKER, "cavalry", att.cavalry, 0, (ORIGIN[area], area), 1))
    battle.fight(ctx, area)
    end = [e for e in ctx.events if isinstance(e, BattleEnd)][-1]
    there = {n: st.get(area, n) for n in (ATTACKER, DEFENDER)}
    alive = {n: bool(s and s.fighters) for n, s in there.items()}
    if end.outcome == "attacker retreated":
        how = "attacker_retreats"
    elif alive[ATTACKER] and not alive[DEFENDER]:
        # the odds' "defender retreats": it left nothing behind (a fort left fights on, and falls)
        how = "defender_retreats" if st.get(RETREAT[area], DEFENDER) and not dfd.fort else "attacker_takes"
    elif alive[DEFENDER]:
        how = "defender_holds"
    else:
        how = "both_gone"
    lost_a = att.fighters - sum((st.get(a, ATTACKER) or Stack()).fighters for a in (area, ORIGIN[area]))
    lost_d = dfd.fighters - sum((st.get(a, DEFENDER) or Stack()).fighters for a in (area, RETREAT[area]))
    return how, lost_a, lost_d, any(isinstance(e, Retreated) for e in ctx.events)


@pytest.mark.parametrize("area,att,dfd,plan", PLANNED)
def test_seeded_engine_battles_with_retreat_plans_agree_with_the_odds(area, att, dfd, plan):
    o = battle_odds(RS, att, dfd, area=area, plan=plan)
    exact = {"attacker_takes": o.attacker_takes - o.defender_retreats, "defender_retreats": o.defender_retreats,
             "defender_holds": o.defender_holds - o.attacker_retreats, "attacker_retreats": o.attacker_retreats,
             "both_gone": o.both_gone}
    seen = dict.fromkeys(exact, 0)
    losses = [0, 0]
    retreats = 0
    for seed in range(SEEDED):
        how, lost_a, lost_d, retreated = _fight(area, att, dfd, plan, seed)
        retreats += retreated
        seen[how] += 1
        losses[0] += lost_a
        losses[1] += lost_d
    for how, p in exact.items():
        sigma = sqrt(float(p * (1 - p)) / SEEDED)
        assert abs(seen[how] / SEEDED - float(p)) <= 4.5 * sigma + 1e-9, (how, seen, {k: float(v) for k, v in exact.items()})
    # the expected losses: within 4.5 standard deviations too (a side loses at most all its pieces)
    for got, mean, most in ((losses[0], o.attacker_losses, att.fighters), (losses[1], o.defender_losses, dfd.fighters)):
        assert abs(got / SEEDED - float(mean)) <= 4.5 * most / 2 / sqrt(SEEDED), (got / SEEDED, float(mean))
    assert retreats and (o.attacker_retreats or o.defender_retreats or dfd.fort), retreats    # the plan is played


def test_a_wound_asked_must_be_one_the_side_can_carry():
    with pytest.raises(odds.PbemError, match="defender cannot have a wounded piece"):
        battle_odds(RS, Side(2), Side(2, wounded="cavalry"), area=CLEAR)
    with pytest.raises(odds.PbemError, match="attacker cannot have a wounded piece"):
        battle_odds(load("classic"), Side(2, wounded="armies"), Side(2))


def test_a_round_that_kills_nothing_moves_a_wound_only_on_in_the_models_order():
    """[Allocation Of Hits] — the order the odds pass the states in (DuelBattleModel.wound_order): with
    no piece eliminated, a side's wound stays or goes to a piece hit earlier (a 6 on the cavalry)."""
    model = RS.rules.battle
    rank = {w: i for i, w in enumerate(model.wound_order)}
    needs = model.needs(RS, CLEAR, True)
    for cav, armies, forts in itertools.product(range(3), range(3), range(2)):
        left = {"cavalry": cav, "roman_armies": 0, "armies": armies, "forts": forts}
        have = {"cavalry": cav, "armies": armies, "forts": forts}
        for wound in (None, *(k for k in WOUNDED if have[k])):
            for soft, hard in itertools.product(range(6), range(6)):
                killed, after = model.hits_taken(needs, left, wound, soft, hard)
                if not killed:
                    assert rank[after] >= rank[wound], (left, wound, soft, hard, after)
