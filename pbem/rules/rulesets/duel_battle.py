"""The Duel Britannia battle model ([Battle Dice], [Allocation of Hits], [Retreats], [Cavalry]).

- two dice per army, cavalry unit or fortification still alive ([Battle Dice]);
- a 5 or 6 hits; only a 6 against a defender in difficult terrain; a leader adds one to the dice of
  the armies and cavalry with it ([Leaders]) -- `DuelRules.hit_numbers` and `leader_bonus`;
- two hits eliminate a piece; a side keeps at most one wounded piece, its hit held in the stack's
  counters (`WOUNDED_*`) until the battle is over, then healed (`battle_over`);
- [Allocation Of Hits And Elimination Of Armies] the side hit allocates its hits (its HITS standing
  order, pbem.rules.rulesets.duel_orders): the cavalry takes the 6s first whatever it says (it is hit
  only by 6s, and "lower rolls hit nothing until the cavalry is eliminated": [Cavalry]), then the armies
  and the fortification in the order chosen (by default the armies first, the fortification last);
- [Leaders] a leader left without armies or fortifications of his nation by the losses is killed,
  "even if there are no opposing armies remaining" (`leader_killer`);
- [Retreat Options] the retreats: pbem.rules.rulesets.duel_retreat.
- the exact odds (pbem.rules.odds: `pbem odds`, ODDS lines) walk the same rules: `hits_taken` (the
  allocation, used by `casualties` too) moves a side's pieces and wound, `wound_order` orders the
  wounds, `pieces_left`, `side_wounds` and `round_ends` bound the work before it is done (the odds
  follow the default allocation, not a HITS order).
"""

from __future__ import annotations

from pbem.rules.battle_model import BattleModel, DiceGroup, attacker_groups, standing_orders
from pbem.rules.context import TurnContext
from pbem.rules.rulesets import duel_retreat
from pbem.rules.rulesets.duel_orders import Hits
from pbem.rules.state import Stack

DICE_PER_PIECE = 2      # [Battle Dice]
HITS_TO_KILL = 2        # [Battle Dice] two hits eliminate
WOUNDED = {"cavalry": "wounded_cavalry", "armies": "wounded_armies", "forts": "wounded_fort"}
"""Stack.counters key of the side's one wounded piece, by kind of piece (value 1)."""
WOUND_ORDER = (None, "forts", "armies", "cavalry")
"""A side's wound (its wounded piece's kind), in the order a round that kills none of its pieces can
move it (`split_hits`): the armies are hit only once the cavalry is gone and the fortification only once
the armies are, so without a kill a wound goes only to a piece hit earlier (a fort's or an army's wound
is lost when a 6 wounds the cavalry) or stays."""


def wounded_kind(stack: Stack) -> str | None:
    """The kind of the stack's wounded piece (at most one), None when none is wounded."""
    return next((k for k, key in WOUNDED.items() if stack.counters.get(key)), None)


class DuelBattleModel(BattleModel):
    """[Battle Dice]: two dice a piece, two hits a kill, one wounded piece a side within a battle."""

    def dice_groups(self, rs, *, armies=0, cavalry=0, fort=False, burhs=0, leader=False, roman=False):
        """[Battle Dice] — two dice per army, cavalry and fortification still alive; the leader's +1
        on the armies' and cavalry's dice ([Leaders])."""
        bonus = self.leader_bonus(rs, leader)
        fast = self.fast_pieces(rs, roman)
        counts = {"cavalry": cavalry, "armies": armies, "fort": int(fort), "burhs": burhs}
        return tuple(DiceGroup(p, DICE_PER_PIECE * counts[p], bonus if p in ("armies", "cavalry") else 0, p in fast)
                     for p in ("cavalry", "armies", "fort", "burhs") if counts[p])

    def fast_pieces(self, rs, roman: bool) -> frozenset[str]:
        """[Cavalry] — the cavalry's dice are rolled apart and hit on a 4 in normal terrain."""
        return frozenset({"cavalry"})

    def fast_gain(self, rs) -> int:
        """[Cavalry] — "it hits in normal terrain on a 4, 5, or 6": one below the armies' 5; against
        difficult terrain it needs the 6 as any army (DieNeeds: no gain where soft = hard)."""
        return 1

    hits_to_kill = HITS_TO_KILL
    wound_order = WOUND_ORDER

    def casualties(self, ctx: TurnContext, area, faces, roller, roller_nation, target, target_nation, defending):
        """[Battle Dice], [Allocation of Hits], [Cavalry in Battle] — one round's hits on the target,
        with the hit its wounded piece already has: {kind: eliminated, WOUNDED[kind]: 1}."""
        rs = ctx.rs
        needs = self.needs(rs, area, defending)
        if isinstance(faces, dict):     # case dice aimed by target: pooled, as the model aims itself
            faces = [f for fs in faces.values() for f in fs]
        mods, fast = self.modified(rs, list(faces), roller, roller_nation)
        sixes = sum(m >= needs.hard for m in mods)
        hits = sum(m >= (needs.fast if f else needs.soft) for m, f in zip(mods, fast, strict=True))
        pref = "fort_first" if fort_first(ctx, target_nation, area) else "raiders_first"   # the HITS order
        killed, wound = self.hits_taken(needs, self.left(rs, target, target_nation), wounded_kind(target),
                                        hits - sixes, sixes, pref)
        return {**killed, WOUNDED[wound]: 1} if wound else killed

    def hits_taken(self, needs, left, wounded, soft, hard, pref="raiders_first"):
        """[Allocation of Hits] — the round's hits on a side (`soft` hits and `hard` ones: the 6s, which
        alone hit cavalry) by the side's allocation (`split_hits`; `pref` "fort_first" when its HITS order
        puts the fortification before the armies; the odds use the default): (pieces eliminated, the side's
        wound after). The engine's casualties and the odds (odds.py) both come here. Where only a 6 hits
        ([Defender in Difficult Terrain]) every hit is a 6 (the odds may count them all as `soft`)."""
        sixes = soft + hard if needs.soft >= needs.hard else hard
        out = split_hits(soft + hard, sixes, left["cavalry"], left["armies"] + left["roman_armies"], left["forts"],
                         wounded, fort_first=pref == "fort_first")
        return out, next((kind for kind, key in WOUNDED.items() if out.pop(key, 0)), None)

    def wounded(self, stack: Stack) -> str | None:
        """The kind of the stack's wounded piece ([Allocation of Hits]), None when none is."""
        return wounded_kind(stack)

    def pieces_left(self, pieces):
        """[Allocation of Hits] by default the kinds of piece are hit in turn (cavalry, armies,
        fortification: the order of `pieces`): a side is left with some of one kind and all of the
        kinds after it."""
        return [(0,) * i + (k,) + tuple(pieces[i + 1:]) for i, n in enumerate(pieces) for k in range(n, 0, -1)]

    def side_wounds(self, pieces):
        """[Allocation of Hits] — a side carries no wound or one on a kind of piece it has."""
        return 1 + sum(1 for c in pieces if c)

    def round_ends(self, pieces, kills):
        """The default allocation takes the pieces in one order (cavalry, armies, fortification): so
        many kills, one way; and the wound after on one kind or none."""
        return (min(kills, sum(pieces)) + 1) * self.side_wounds(pieces)

    def apply_losses(self, ctx: TurnContext, area, nation, stack, loss, killer, by_raiders):
        """The round's losses off the stack; its wounded piece (if any) recorded in its counters."""
        loss = dict(loss)
        for key in WOUNDED.values():
            stack.counters.pop(key, None)
        for key in WOUNDED.values():
            if loss.pop(key, 0):
                stack.counters[key] = 1
        super().apply_losses(ctx, area, nation, stack, loss, killer, by_raiders)

    def battle_over(self, ctx: TurnContext, area):
        """[Battle Dice] — the wounded heal after the battle."""
        for s in ctx.state.areas.get(area, {}).values():
            for key in WOUNDED.values():
                s.counters.pop(key, None)

    def leader_killer(self, ctx: TurnContext, area, nation, stack, pair):
        """[Leaders] "a leader is immediately killed in battle if combat losses leave the leader without
        other armies or forts of their nation in the area, even if there are no opposing armies
        remaining": killed by the other side of the battle."""
        if nation not in pair or stack.fighters:
            return None
        return pair[1] if nation == pair[0] else pair[0]

    # --- [Retreat Options] (pbem.rules.rulesets.duel_retreat) ------------------------------------------
    def defender_retreat_problem(self, ctx: TurnContext, area, defender, target, count):
        """[Retreat Options] — an area of the defender's own or a vacant one the attackers did not come
        from, one area, never into an unresolved battle, stacking applies."""
        return duel_retreat.defender_retreat_problem(ctx, area, defender, target, count)

    def retreating_part(self, ctx: TurnContext, area, nation, stack, count):
        """[Retreat Options] — the piece already hit retreats only if all retreat."""
        return duel_retreat.retreating_part(stack, count, wounded_kind(stack))

    def retreat_attacker(self, ctx: TurnContext, area):
        """[Retreat Options] — the attackers to where they attacked from (the generic rule 8.3 drive);
        when not every piece can go, the one already hit stays (set apart while the others go)."""
        st = ctx.state.get(area, ctx.nation)
        kind = wounded_kind(st) if st else None
        if kind not in ("armies", "cavalry") or duel_retreat.all_attackers_can_go(ctx, area):
            return super().retreat_attacker(ctx, area)
        raider = int(kind == "armies" and st.raiders == st.armies)
        setattr(st, kind, getattr(st, kind) - 1)
        st.raiders -= raider
        went = super().retreat_attacker(ctx, area)
        back = ctx.state.stack(area, ctx.nation)
        setattr(back, kind, getattr(back, kind) + 1)
        back.raiders += raider
        back.counters[WOUNDED[kind]] = 1
        origin = next((m.came_from for m in attacker_groups(ctx, area) if (m.kind == "cavalry") == (kind == "cavalry")), area)
        ctx.emit("retreat_refused", area=area, nation=ctx.nation, to=origin, reason=duel_retreat.WOUNDED_STAYS)
        return went

    def victors_retreat(self, ctx: TurnContext, area):
        """[Retreat Options] — the victorious attacker's VICTORS order."""
        st = ctx.state.get(area, ctx.nation)
        duel_retreat.victors_retreat(ctx, area, wounded_kind(st) if st else None)


def fort_first(ctx: TurnContext, nation: str, area: str) -> bool:
    """[Allocation Of Hits And Elimination Of Armies] — does the nation's HITS order for `area` (else
    its HITS ALL) put the fortification before the armies?"""
    return next((o.fort_first for o in standing_orders(ctx, nation, Hits) if o.area in (area, "all")), False)


def split_hits(hits: int, sixes: int, cavalry: int, armies: int, forts: int, wounded: str | None, *,
               fort_first: bool = False) -> dict[str, int]:
    """[Allocation Of Hits And Elimination Of Armies]: the cavalry takes the sixes first (only 6s hit it,
    and while it stands the other hits hit nothing: [Cavalry]), then the armies take the hits left and
    the fortification last (`fort_first`: the fortification before the armies, the side's HITS order);
    a piece falls at two hits, counting the hit the side's wounded piece already has; one piece at most
    is left wounded (a second odd hit is lost)."""
    out: dict[str, int] = {}
    left_wounded = None
    rest = (("forts", forts, None), ("armies", armies, None)) if fort_first else \
        (("armies", armies, None), ("forts", forts, None))
    plan = (("cavalry", cavalry, sixes), *rest)
    spare = hits
    for kind, count, cap in plan:
        if not count or spare <= 0:
            continue
        given = min(spare, cap if cap is not None else spare, HITS_TO_KILL * count - (wounded == kind))
        spare -= given
        total = given + (wounded == kind)
        killed = min(total // HITS_TO_KILL, count)
        if kind == "cavalry" and killed < count:
            spare = 0   # [Cavalry] "lower rolls hit nothing until the cavalry is eliminated"
        if killed:
            out[kind] = killed
        if total - HITS_TO_KILL * killed and killed < count and left_wounded is None:
            left_wounded = kind
    counts = {"cavalry": cavalry, "armies": armies, "forts": forts}
    if left_wounded is None and wounded is not None and counts[wounded] > out.get(wounded, 0) and wounded not in out:
        left_wounded = wounded     # no new hit on it: it stays wounded
    if left_wounded is not None:
        out[WOUNDED[left_wounded]] = 1
    return out
