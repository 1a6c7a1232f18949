"""Issue 28 item 2 — a third family plugs its own battles into the engine through the battle model alone.

A made-up model in the manner of Duel Britannia (issue 29: two dice per army, 5-6 hits, two hits kill,
at most one wounded army per side, hits that persist within a battle and heal after it) is written
here as a BattleModel subclass: the generic engine (battle.fight) plays it unchanged; the hit that has
not killed lives in the stack's open `counters` (saved only when there is one) and is gone after the
battle. And the files of the battle model state no edition's rule (no feature switch, no FFG citation).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from pbem.data.loader import load
from pbem.rules import battle
from pbem.rules.battle_model import BattleModel, DiceGroup
from pbem.rules.context import TurnContext
from pbem.rules.state import GameState, Stack

WOUNDED = "hits"     # the counter: hits taken that have not killed yet


class TwoHitModel(BattleModel):
    """Two dice per army, a 5 or 6 hits, two hits kill; one wounded army per side at most."""

    def dice_groups(self, rs, *, armies=0, cavalry=0, fort=False, burhs=0, leader=False, roman=False):
        return (DiceGroup("armies", 2 * armies, 0, False),) if armies else ()

    def casualties(self, ctx, area, faces, roller, roller_nation, target, target_nation, defending):
        hits = sum(f >= 5 for f in faces) + target.counters.get(WOUNDED, 0)
        kills = min(hits // 2, target.armies)
        wounded = 0 if kills == target.armies else hits - 2 * kills
        return {"armies": kills, WOUNDED: wounded} if wounded else ({"armies": kills} if kills else {})

    def apply_losses(self, ctx, area, nation, stack, loss, killer, by_raiders):
        loss = dict(loss)
        wounded = loss.pop(WOUNDED, 0)
        if wounded:
            stack.counters[WOUNDED] = wounded
        else:
            stack.counters.pop(WOUNDED, None)
        super().apply_losses(ctx, area, nation, stack, loss, killer, by_raiders)

    def battle_over(self, ctx, area):
        for s in ctx.state.areas.get(area, {}).values():    # the hits heal after the battle
            s.counters.pop(WOUNDED, None)


class _FirstDieHits:
    """Every roll: the first die a 5, the others 1s (one hit a side a round)."""

    def __init__(self):
        self.counts = []

    def faces(self, req):
        self.counts.append(req.count)
        return [5] + [1] * (req.count - 1)


def _ruleset_with(model: BattleModel):
    rs = copy.copy(load("classic"))
    rules = copy.copy(rs.rules)
    rules.battle = model           # this instance only: the family's class attribute in a real family
    rs.__dict__["rules"] = rules
    return rs


def test_a_family_with_two_hit_armies_plays_through_the_generic_engine():
    rs = _ruleset_with(TwoHitModel())
    area = next(a for a in sorted(rs.areas) if rs.is_land(a) and not rs.hiland(a))
    state = GameState(game="duel", round=2)
    state.areas[area] = {"welsh": Stack(armies=2), "picts": Stack(armies=1)}
    dice = _FirstDieHits()
    seen: list[dict] = []

    class Watch(TurnContext):
        def emit(self, type_, **data):
            if type_ == "battle_round":
                seen.append({n: s.to_dict() for n, s in self.state.areas[area].items()})
            return super().emit(type_, **data)

    ctx = Watch(rs, state, "welsh", {}, dice)
    battle.fight(ctx, area)
    # two dice per army (the model's dice_count), not one per piece
    assert dice.counts[:2] == [4, 2]
    # round 1: each side takes one hit, kept as a counter and saved with the stack; round 2: the Picts die
    assert seen[0] == {"welsh": {"armies": 2, "counters": {"hits": 1}}, "picts": {"armies": 1, "counters": {"hits": 1}}}
    assert state.areas[area] == {"welsh": Stack(armies=1)}      # the hit healed after the battle
    assert state.to_dict()["areas"][area] == {"welsh": 1}


def test_the_battle_model_files_state_no_edition_rule():
    root = Path(__file__).resolve().parents[2]
    for rel in ("pbem/rules/battle.py", "pbem/rules/battle_model.py", "pbem/rules/odds.py", "pbem/rules/dice.py",
                "pbem/rules/state.py", "pbem/report/facts.py", "pbem/orders/odds.py"):
        text = (root / rel).read_text()
        assert "rs.feature(" not in text and ".feature(" not in text, rel
        assert not re.search(r"\bFFG\s*\d", text), rel
