"""Rule 8 — exact battle odds (pbem.rules.odds) checked against brute-force enumeration.

Two independent checks:
- every face of every die of a round enumerated (6^dice outcomes), the kills taken from the engine's
  own `battle.casualties`, the rounds chained as a Markov chain (a round without losses repeats);
- the engine's whole battle (`battle.fight`, retreats included) run once for every sequence of faces
  up to a depth: the odds must lie between what the enumerated branches give and that plus the
  probability of the branches not followed to their end.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache

import pytest

from pbem.rules import battle
from pbem.rules.context import MoveRecord, TurnContext
from pbem.rules.events import BattleEnd
from pbem.rules.odds import Plan, Side, battle_odds
from pbem.rules.orders import Attack, Defend, NationOrders
from pbem.rules.state import GameState, Stack

CLEAR = "essex"
ORIGIN = "kent"
RETREAT = "suffolk"


def _stack(side: Side, leader: str | None) -> Stack:
    return Stack(armies=side.armies, cavalry=side.cavalry, fort=side.fort, burhs=side.burhs,
                 leaders=[leader] if side.leader and leader else [])


def _position(att: Side, dfd: Side, area: str) -> tuple[GameState, str, str]:
    a_nation = "romans" if att.roman else "belgae"
    d_nation = "romans" if dfd.roman else "welsh"
    st = GameState(game="odds", round=3)
    st.areas[area] = {a_nation: _stack(att, "arthur" if not att.roman else None),
                      d_nation: _stack(dfd, "boudicca")}
    return st, a_nation, d_nation


def _ctx(rs, st, nation, orders=None, dice=None):
    return TurnContext(rs, st, nation, orders or {}, dice)


def brute_force_rounds(rs, att: Side, dfd: Side, area: str) -> tuple[Fraction, Fraction, Fraction]:
    """Every face of every die, kills from battle.casualties; only 'fight' / 'hold' plans."""
    st, an, dn = _position(att, dfd, area)
    ctx = _ctx(rs, st, an)

    @cache
    def solve(a: tuple, d: tuple) -> tuple[Fraction, Fraction, Fraction]:
        sa = Stack(armies=a[0], cavalry=a[1], leaders=["x"] if a[2] else [])
        sd = Stack(armies=d[0], cavalry=d[1], fort=d[3], burhs=d[4], leaders=["y"] if d[2] else [])
        n = sa.fighters + sd.fighters
        total = [Fraction(0)] * 3
        stay = Fraction(0)
        p = Fraction(1, 6 ** n)
        for faces in itertools.product(range(1, 7), repeat=n):
            fa, fd = list(faces[:sa.fighters]), list(faces[sa.fighters:])
            kill_d = battle.casualties(ctx, area, fa, sa, an, sd, dn, defending=True)
            kill_a = battle.casualties(ctx, area, fd, sd, dn, sa, an, defending=False)
            a2 = (a[0] - kill_a.get("armies", 0) - kill_a.get("roman_armies", 0), a[1] - kill_a.get("cavalry", 0), a[2])
            forts = kill_d.get("forts", 0)
            fort = d[3] and not forts
            burhs = d[4] - (forts - (1 if d[3] and forts else 0))
            d2 = (d[0] - kill_d.get("armies", 0) - kill_d.get("roman_armies", 0), d[1] - kill_d.get("cavalry", 0),
                  d[2], fort, burhs)
            a_alive = a2[0] + a2[1] > 0
            d_alive = d2[0] + d2[1] + int(d2[3]) + d2[4] > 0
            if not a_alive or not d_alive:
                total[0 if a_alive else 1 if d_alive else 2] += p
            elif (a2, d2) == (a, d):
                stay += p
            else:
                rest = solve(a2, d2)
                for i in range(3):
                    total[i] += p * rest[i]
        return tuple(x / (1 - stay) for x in total)

    return solve((att.armies, att.cavalry, att.leader), (dfd.armies, dfd.cavalry, dfd.leader, dfd.fort, dfd.burhs))


class _Branch(Exception):
    def __init__(self, count: int):
        self.count = count


class _PrefixDice:
    """Gives the faces of a fixed prefix of rolls; asks for a branch when it runs out."""

    def __init__(self, prefix):
        self.prefix = list(prefix)

    def faces(self, req):
        if not self.prefix:
            raise _Branch(req.count)
        faces = self.prefix.pop(0)
        assert len(faces) == req.count
        return list(faces)


def brute_force_engine(rs, att: Side, dfd: Side, area: str, plan: Plan, depth: int):
    """battle.fight run for every sequence of faces up to `depth` rolls: (takes, holds, both, unknown)."""
    out = {"takes": Fraction(0), "holds": Fraction(0), "both": Fraction(0), "open": Fraction(0)}
    defend = {"hold": Defend(area, hold=True),
              "retreat": Defend(area, hold=False, to=RETREAT, after_round=plan.defend_after),
              "retreat_if_outnumbered": Defend(area, hold=False, to=RETREAT, if_outnumbered=True,
                                               after_round=plan.defend_after)}[plan.defend]

    def run(prefix, p):
        st, an, dn = _position(att, dfd, area)
        orders = {an: NationOrders(an, [Attack(area, plan.attack, plan.attack_after)]),
                  dn: NationOrders(dn, [defend])}
        ctx = _ctx(rs, st, an, orders, _PrefixDice(prefix))
        ctx.moves = [MoveRecord(an, "armies", att.units, 0, (ORIGIN, area), 1)]
        try:
            battle.fight(ctx, area)
        except _Branch as b:
            if len(prefix) >= depth:
                out["open"] += p
                return
            for faces in itertools.product(range(1, 7), repeat=b.count):
                run(prefix + [faces], p / 6 ** b.count)
            return
        end = [e for e in ctx.events if isinstance(e, BattleEnd)][-1]
        key = ("takes" if end.winner == an else "holds" if end.winner == dn or end.outcome == "attacker retreated"
               else "both")
        out[key] += p

    run([], Fraction(1))
    return out


def test_rule_8_odds_example_one_army_against_one(rs):
    """The README example: 1 against 1 on clear terrain, both hit on 5-6: 40 / 40 / 20 %."""
    o = battle_odds(rs, Side(1), Side(1))
    assert (o.attacker_takes, o.defender_holds, o.both_gone) == (Fraction(2, 5), Fraction(2, 5), Fraction(1, 5))
    assert o.as_percent()["attacker_takes"] == 40.0


@pytest.mark.parametrize("att,dfd,area", [
    (Side(2), Side(1), CLEAR),
    (Side(2), Side(2), CLEAR),
    (Side(3, leader=True), Side(1), CLEAR),
    (Side(2), Side(2), "powys"),                     # hiland: the attacker needs 6s
    (Side(1, cavalry=1), Side(2, leader=True), CLEAR),
    (Side(3), Side(1, roman=True, fort=True), CLEAR),  # 10.4: the fort falls after the Roman army
    (Side(2, roman=True), Side(1, cavalry=1), CLEAR),
])
def test_rule_8_odds_equal_brute_force_over_every_face(rs, att, dfd, area):
    o = battle_odds(rs, att, dfd, hiland=rs.hiland(area))
    takes, holds, both = brute_force_rounds(rs, att, dfd, area)
    assert (o.attacker_takes, o.defender_holds, o.both_gone) == (takes, holds, both)
    assert o.attacker_takes + o.defender_holds + o.both_gone == 1


@pytest.mark.parametrize("att,dfd,plan,depth", [
    (Side(1), Side(1), Plan(), 4),
    (Side(1), Side(2), Plan(attack="retreat_if_outnumbered"), 4),
    (Side(2), Side(1), Plan(attack="retreat_after", attack_after=1), 4),
    (Side(1), Side(2), Plan(defend="retreat", defend_after=2), 4),
    (Side(1), Side(2), Plan(defend="retreat_if_outnumbered"), 4),
])
def test_rule_8_odds_within_the_engine_battle_enumerated(rs, att, dfd, plan, depth):
    assert not rs.hiland(CLEAR)
    o = battle_odds(rs, att, dfd, plan=plan)
    bf = brute_force_engine(rs, att, dfd, CLEAR, plan, depth)
    for exact, key in ((o.attacker_takes, "takes"), (o.defender_holds, "holds"), (o.both_gone, "both")):
        assert bf[key] <= exact <= bf[key] + bf["open"], key
    assert bf["open"] < Fraction(1, 5)


def test_rule_8_odds_retreats_are_counted(rs):
    o = battle_odds(rs, Side(1), Side(3), plan=Plan(attack="retreat_if_outnumbered"))
    assert o.attacker_retreats == Fraction(8, 27)     # it survives the 3 dice of round 1, then leaves
    assert o.defender_holds >= o.attacker_retreats
    o = battle_odds(rs, Side(3), Side(1), plan=Plan(defend="retreat"))
    # the defender leaves after the first round if it still stands
    assert o.defender_retreats > 0 and o.attacker_takes >= o.defender_retreats


def test_rule_8_odds_too_big_a_battle_is_a_clear_error_not_a_stall(rs):
    from pbem.errors import PbemError

    with pytest.raises(PbemError, match="too big to compute exactly"):
        battle_odds(rs, Side(12, 6, leader=True), Side(10, 6, leader=True), plan=Plan(defend="retreat", defend_after=5))
