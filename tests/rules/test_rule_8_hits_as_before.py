"""Rule 8.0 — the faster allocate_hits and RollRequest give what the first versions gave.

allocate_hits now counts the dice by (number, fast flag) and takes the lowest that kill, as many of one
number at a time as the kind has pieces (allocate_pool); the first version listed the usable dice and
took min() of them for every kill. The reference below is that
first version, word for word: both must agree on every round of dice (FFG 25 fast dice, LOSSES
CAVALRY LAST, Roman targets, forts)."""

from __future__ import annotations

import random

import pytest

from pbem.rules.battle import KIND_ORDER, allocate_hits
from pbem.rules.dice import RollRequest


def _reference(mods, left, need, hard, pref="raiders_first", fast=None, fast_gain=0):
    killed = dict.fromkeys(KIND_ORDER, 0)
    flags = list(fast or ()) + [False] * (len(mods) - len(fast or ()))
    pool = sorted(zip(mods, flags, strict=False), reverse=True)

    def spend(kind, allow_hard):
        slow = need[kind]
        quick = slow if slow >= hard else slow - fast_gain
        while left[kind] - killed[kind] > 0:
            usable = [d for d in pool if d[0] >= (quick if d[1] else slow) and (allow_hard or d[0] < hard)]
            if not usable:
                return
            pool.remove(min(usable))
            killed[kind] += 1
    spend("armies", allow_hard=False)
    hard_order = ["roman_armies", "armies", "cavalry"] if pref == "cavalry_last" else ["roman_armies", "cavalry", "armies"]
    for kind in hard_order:
        spend(kind, allow_hard=True)
    if killed["roman_armies"] == left["roman_armies"]:
        spend("forts", allow_hard=True)
    return {k: v for k, v in killed.items() if v}


@pytest.mark.parametrize("seed", range(5))
def test_allocate_hits_gives_the_hits_of_the_first_version(seed):
    rng = random.Random(seed)
    for _ in range(4000):
        n = rng.randint(0, 10)
        mods = [rng.randint(1, 8) for _ in range(n)]
        roman = rng.random() < 0.3
        armies = rng.randint(0, 6)
        left = {"cavalry": rng.randint(0, 3), "roman_armies": armies if roman else 0,
                "armies": 0 if roman else armies, "forts": rng.randint(0, 2)}
        soft = rng.choice([5, 6])
        need = {"cavalry": 6, "roman_armies": 6, "armies": soft, "forts": soft}
        pref = rng.choice(["raiders_first", "cavalry_last"])
        fast = [rng.random() < 0.4 for _ in range(rng.randint(0, n))] if rng.random() < 0.5 else None
        gain = rng.choice([0, 1])
        assert allocate_hits(mods, dict(left), need, 6, pref, fast, gain) == _reference(mods, dict(left), need, 6, pref,
                                                                                        fast, gain)


def test_roll_request_is_built_as_the_dataclass_was():
    by_position = RollRequest("g", 3, "angles", "york", 2, 1, "welsh", 4)
    by_name = RollRequest(game="g", round=3, nation="angles", area="york", cycle=2, battle_round=1, side="welsh",
                          count=4, targets=())
    assert by_position == by_name and hash(by_position) == hash(by_name)
    assert by_position.targets == ()
    assert by_position.label(0) == "g/r3/angles/york/c2/b1/welsh/d0"
    with pytest.raises(AttributeError):
        by_position.count = 5   # still frozen
    with pytest.raises(TypeError):
        RollRequest("g", 3)     # the same required parameters


def test_allocate_pool_counts_the_dice_by_number_as_allocate_hits_lists_them():
    """The odds' transition (BattleModel.hits_taken) hands the dice over counted, not listed: where
    soft and hard hits need the same number (a hiland defender's attackers, 8.0), both counts are dice
    of that number."""
    from pbem.rules.battle_model import BattleModel, DieNeeds, allocate_pool

    left = {"cavalry": 2, "roman_armies": 0, "armies": 5, "forts": 1}
    need = {"cavalry": 6, "roman_armies": 6, "armies": 6, "forts": 6}
    got, wound = BattleModel().hits_taken(DieNeeds(6, 6, 6), dict(left), None, 3, 2)
    assert wound is None
    assert got == allocate_hits([6] * 5, dict(left), need, 6) == {"cavalry": 2, "armies": 3}
    rng = random.Random(7)
    for _ in range(3000):
        mods = [rng.randint(1, 8) for _ in range(rng.randint(0, 9))]
        fast = [rng.random() < 0.5 for _ in mods]
        pool: dict = {}
        for die in zip(mods, fast):
            pool[die] = pool.get(die, 0) + 1
        left = {"cavalry": rng.randint(0, 3), "roman_armies": rng.randint(0, 2), "armies": rng.randint(0, 5),
                "forts": rng.randint(0, 2)}
        need = {"cavalry": 6, "roman_armies": 6, "armies": rng.choice([5, 6]), "forts": 5}
        pref = rng.choice(["raiders_first", "cavalry_last"])
        assert allocate_pool(pool, dict(left), need, 6, pref, 1) == _reference(mods, dict(left), need, 6, pref, fast, 1)
