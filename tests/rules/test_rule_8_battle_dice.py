"""Rules 8.0 and 8.4 — every round of every battle rolls its own dice: a raider fighting its way back
through York (8.4) after the battle there must not reuse the labels (and so the faces) of that battle."""

from __future__ import annotations

from pbem.rules.dice import HmacDice
from pbem.rules.events import BattleRound
from pbem.rules.orders import Move, NationOrders
from pbem.rules.turn import play_nation_turn


def _labels(events):
    out = []
    for ev in events:
        if isinstance(ev, BattleRound):
            for dice in ev.dice.values():
                out += [d["label"] for d in dice]
    return out


def test_rule_8_4_withdrawal_battle_rolls_new_dice(rs, board):
    st = board(5, {"frisian_sea": {"angles": {"armies": 3, "raiders": 3}},
                   "york": {"romans": {"fort": True}}, "north_mercia": {"romans": {"fort": True}}},
               forts_built={"york", "north_mercia"})
    orders = {"angles": NationOrders("angles", [Move(2, "armies", ("frisian_sea", "york")),
                                                Move(1, "armies", ("frisian_sea", "york", "north_mercia"))])}
    for seed in range(40):
        res = play_nation_turn(rs, st, "angles", orders, HmacDice(bytes([seed])))
        labels = _labels(res.events)
        assert len(labels) == len(set(labels)), seed


def test_rule_8_0_each_round_its_own_label(rs, board):
    st = board(8, {"alban": {"picts": 4}, "dalriada": {"scots": 3}})
    orders = {"picts": NationOrders("picts", [Move(4, "armies", ("alban", "dalriada"))])}
    res = play_nation_turn(rs, st, "picts", orders, HmacDice(b"x"), stop="after_battles")
    labels = _labels(res.events)
    assert labels and len(labels) == len(set(labels))
