"""Rule 8 — the battle model: the one statement of how a battle's dice kill and where its sides retreat.

Everything that says what a die does is here, once, and is read by all who need it: the engine
(battle.py rolls and applies it), the exact odds (odds.py: `pbem odds`, ODDS lines, `pbem check`), the
report's dice text (report/facts.py) and the validator's retreat options (legal.py). A ruleset reaches
its model as `rs.rules.battle` (an instance of this class or of a family's subclass); a family that
plays battles differently overrides the methods below and touches no generic module.

The model, rule by rule (the plain rules; a family's subclass names its own):
- dice per piece (8.0, 10.4): one die per cavalry unit, army, fort and burh, rolled in that order
  (`PIECES`; the labels d0, d1, ... of dice.py follow it): `dice_groups`;
- hit numbers (8.0): `needs` — what a modified die needs to kill an ordinary army, fort or burh
  (`soft`), a hard target (cavalry, Roman armies, 10.4: `hard`), and what a die flagged "fast" needs
  against an ordinary target (`fast`; no die is fast in the plain model); the ruleset's hook
  `rs.rules.hit_numbers` says where the defender is hit only by `hard`;
- the leader's bonus (9.2): `leader_bonus`, on the pieces of `bonus_pieces` (armies and cavalry);
- how hits become losses (8.0, 10.4): `allocate_hits` (the roller aims to kill the most; forts last,
  only once no Roman army stands), `casualties` (one round's dice -> losses by kind) and
  `apply_losses` (which pieces go: the owner's LOSSES choice, raiders first by default);
  `hits_taken` (a round's soft and hard hits -> losses and the wound left: the odds' transition);
- damage that persists within a battle: `Stack.counters` holds a family's counters (e.g. hits that
  have not killed), `wounded` reads it and `wound_order` lists its values for the odds; the plain
  model keeps none, so its stacks stay as they were saved;
- retreats (8.1-8.4): `defender_retreat_problem`, `defender_retreats`, `attacker_retreats`,
  `retreat_attacker`.

Hit numbers (our reading, doubt P1 in ruleset.yaml): a modified 5 or 6 kills an ordinary army, fort or
burh; 6 is needed against defenders in a hiland (8.0), against Roman armies (10.4: "a die roll of 5
will not eliminate the fort unless any Roman armies present are eliminated by rolls of 6") and against
cavalry (seed 000's table).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from math import prod

from pbem.records import record
from pbem.rules.context import Kill, TurnContext
from pbem.rules.dice import RollRequest, ScriptError
from pbem.rules.orders import Attack, Defend, Losses
from pbem.rules.stacking import can_add
from pbem.rules.state import Stack

KIND_ORDER = ("cavalry", "roman_armies", "armies", "forts")
"""A target's pieces by how they are hit: cavalry and Roman armies need `hard`, armies and forts `soft`."""
HARD_KINDS = frozenset({"cavalry", "roman_armies"})
PIECES = ("cavalry", "armies", "fort", "burhs")
"""The pieces that roll, in the order of a side's dice (rule 8.0; a fort and a burh roll like an army)."""
_ARMIES_AND_CAVALRY = frozenset({"armies", "cavalry"})


@record
class DieNeeds:
    """Rule 8.0 — what one die needs in a battle area (a modified roll): `soft` kills an ordinary army
    (and a fort or burh), `hard` a hard target (cavalry, Roman armies); `fast` is what a fast die
    needs against an ordinary target (= soft where the ruleset has no fast dice)."""

    soft: int
    hard: int
    fast: int


@record
class DiceGroup:
    """The dice of one kind of a side's pieces: `count` dice, each with `bonus` added (9.2), `fast`
    (hitting ordinary targets lower, where the family has such dice)."""

    piece: str      # one of PIECES
    count: int
    bonus: int
    fast: bool


_STACK_DICE: dict[tuple, tuple] = {}
"""BattleModel.stack_dice's answers: (ruleset id, model, pieces) -> (the ruleset, its dice groups)."""


class BattleModel:
    """The plain battle rules (8.0-8.4, 9.2, 10.4). Stateless: one instance per family, shared."""

    die_faces = 6                       # a six-sided die (8.0)

    # --- dice and hit numbers --------------------------------------------------------------------
    def needs(self, rs, area: str, defending: bool) -> DieNeeds:
        """The hit numbers of one side's dice in `area` (`defending`: they roll against the defenders)."""
        soft, hard = rs.rules.hit_numbers(rs, area, defending)
        gain = self.fast_gain(rs)
        return DieNeeds(soft, hard, soft - gain if soft < hard else soft)

    def fast_gain(self, rs) -> int:
        """How much lower a fast die hits an ordinary target (none here)."""
        return 0

    def fast_pieces(self, rs, roman: bool) -> frozenset[str]:
        """The pieces whose dice are fast (`roman`: the side is the empire's). None here."""
        return frozenset()

    def bonus_pieces(self, rs) -> frozenset[str]:
        """Rule 9.2 — the pieces whose dice a leader's bonus reaches: armies and cavalry (not forts, 10.4)."""
        return _ARMIES_AND_CAVALRY

    def leader_bonus(self, rs, leader: bool) -> int:
        """Rule 9.2 — what a leader with the side adds to each die of `bonus_pieces`."""
        return rs.const.leader_bonus if leader else 0

    def dice_groups(self, rs, *, armies: int = 0, cavalry: int = 0, fort: bool = False, burhs: int = 0,
                    leader: bool = False, roman: bool = False) -> tuple[DiceGroup, ...]:
        """Rule 8.0 — a side's dice, group by kind of piece in the order they are rolled (PIECES)."""
        bonus = self.leader_bonus(rs, leader)
        fast = self.fast_pieces(rs, roman)
        with_bonus = self.bonus_pieces(rs)
        counts = {"cavalry": cavalry, "armies": armies, "fort": int(fort), "burhs": burhs}
        return tuple(DiceGroup(p, counts[p], bonus if p in with_bonus else 0, p in fast)
                     for p in PIECES if counts[p])

    def dice_count(self, rs, stack: Stack, nation: str) -> int:
        """How many dice the stack rolls in a round: its dice groups' (one per piece that fights, 8.0)."""
        return self._dice_of(rs, stack, nation)[2]

    def stack_dice(self, rs, stack: Stack, nation: str) -> tuple[DiceGroup, ...]:
        """The dice of `nation`'s `stack` (a leader with it adds its bonus)."""
        return self._dice_of(rs, stack, nation)[1]

    def _dice_of(self, rs, stack: Stack, nation: str) -> tuple:
        """(the ruleset, the stack's dice groups, how many dice, whether they are plain: no bonus, none
        fast), kept per loaded ruleset and pieces (`dice_groups` is a pure function of them; the engine
        asks twice a round)."""
        key = (id(rs), type(self), stack.armies, stack.cavalry, stack.fort, stack.burhs, bool(stack.leaders),
               nation == rs.role("empire"))
        hit = _STACK_DICE.get(key)
        if hit is None or hit[0] is not rs:     # the ruleset held with it: its id names no other
            if len(_STACK_DICE) > 4096:
                _STACK_DICE.clear()
            groups = self.dice_groups(rs, armies=key[2], cavalry=key[3], fort=key[4], burhs=key[5], leader=key[6],
                                      roman=key[7])
            hit = _STACK_DICE[key] = (rs, groups, sum(g.count for g in groups),
                                      not any(g.bonus or g.fast for g in groups))
        return hit

    def need(self, needs: DieNeeds, group: DiceGroup, kind: str) -> int:
        """The modified roll a die of `group` needs to kill a target piece of `kind` (KIND_ORDER): a fast
        die needs `fast` against an ordinary target; a target hit only by `hard` still needs it."""
        if kind in HARD_KINDS or needs.soft >= needs.hard:
            return needs.hard if kind in HARD_KINDS else needs.soft
        return needs.fast if group.fast else needs.soft

    def face_needed(self, need: int, bonus: int) -> int | None:
        """The least face of the die that, with `bonus` added, makes `need` (None: no face does)."""
        face = max(1, need - bonus)
        return face if face <= self.die_faces else None

    def target_kinds(self, rs, target: Stack, target_nation: str) -> list[str]:
        """The kinds of the target's pieces, as a roll request names them (dice.py)."""
        kinds = []
        if target.cavalry:
            kinds.append("cavalry")
        if target.armies:
            kinds.append("roman_armies" if target_nation == rs.role("empire") else "armies")
        if target.fort or target.burhs:
            kinds.append("forts")
        return kinds

    def left(self, rs, target: Stack, target_nation: str) -> dict[str, int]:
        """The target's pieces by KIND_ORDER (10.4: the empire's armies are Roman armies)."""
        roman = target_nation == rs.role("empire")
        return {"cavalry": target.cavalry, "roman_armies": target.armies if roman else 0,
                "armies": 0 if roman else target.armies, "forts": int(target.fort) + target.burhs}

    # --- a round of dice ---------------------------------------------------------------------------
    def roll(self, ctx: TurnContext, request: RollRequest):
        """The faces of one side's dice (one per piece, PIECES order), checked to be faces of the die."""
        faces = ctx.dice.faces(request)
        if isinstance(faces, list) and any(not (1 <= f <= self.die_faces) for f in faces):
            raise ScriptError(f"die faces must be 1-{self.die_faces}, got {faces}")
        return faces

    def modified(self, rs, faces: list[int], roller: Stack, roller_nation: str) -> tuple[list[int], list[bool]]:
        """Each die with its group's bonus added (9.2), and whether it is fast, in the order rolled."""
        _, groups, _, plain = self._dice_of(rs, roller, roller_nation)
        if plain:
            return faces, [False] * len(faces)     # the plain dice: nothing to add
        mods: list[int] = []
        fast: list[bool] = []
        i = 0
        for g in groups:
            for f in faces[i:i + g.count]:
                mods.append(f + g.bonus)
                fast.append(g.fast)
            i += g.count
        mods += faces[i:]
        fast += [False] * (len(faces) - i)
        return mods, fast

    def casualties(self, ctx: TurnContext, area: str, faces, roller: Stack, roller_nation: str, target: Stack,
                   target_nation: str, defending: bool) -> dict[str, int]:
        """How many of each kind of the target's pieces the roller's faces kill this round."""
        rs = ctx.rs
        needs = self.needs(rs, area, defending)
        left = self.left(rs, target, target_nation)
        need = {"cavalry": needs.hard, "roman_armies": needs.hard, "armies": needs.soft, "forts": needs.soft}
        if isinstance(faces, dict):
            return self.split_casualties(faces, self.leader_bonus(rs, bool(roller.leaders)), left, need)
        mods, fast = self.modified(rs, list(faces), roller, roller_nation)
        # LOSSES CAVALRY LAST only orders armies before cavalry: asked only of a target with both
        pref = loss_preference(ctx, target_nation, area) if target.cavalry and target.armies else "raiders_first"
        # a fast die needs `needs.fast` against an ordinary target, `fast_gain` below `soft`
        return allocate_hits(mods, left, need, needs.hard, pref, fast=fast, fast_gain=needs.soft - needs.fast)

    # --- a round's hits on one side: the transition the odds walk (odds.py) --------------------------
    hits_to_kill = 1
    """Hits that eliminate one piece (8.0: one, no piece is ever wounded; a family whose pieces take more
    says so, and the map then marks a wounded piece)."""
    wound_order: tuple = (None,)
    """The wounds a side can carry from round to round (a family's hit that has not killed, held in
    `Stack.counters`), None first: no wound. A round that kills none of a side's pieces moves its wound
    only later in this order (or leaves it), so the odds (odds.py) pass the battle's states in order.
    The plain model keeps none: a round changes a side only by killing."""

    def hits_taken(self, needs: DieNeeds, left: dict[str, int], wounded, soft: int, hard: int,
                   pref: str = "raiders_first") -> tuple[dict[str, int], object]:
        """Rule 8.0 — one round's hits on a target: `left` its pieces by KIND_ORDER, `wounded` its wound
        (one of `wound_order`), `soft` the dice that hit an ordinary army but not a hard target, `hard`
        those that hit a hard one too (a 6, 10.4); where every piece of the target falls to a soft hit (or
        soft and hard are one number) the odds may count all the hits as `soft`. Returns (pieces
        eliminated by kind, the wound after).
        Here: battle_model.allocate_hits (its counted form, allocate_pool), the roller aiming to kill the
        most; no wound is kept."""
        need = {"cavalry": needs.hard, "roman_armies": needs.hard, "armies": needs.soft, "forts": needs.soft}
        pool = {(needs.hard, False): hard}
        pool[(needs.soft, False)] = pool.get((needs.soft, False), 0) + soft    # one number: soft and hard dice alike
        return allocate_pool(pool, left, need, needs.hard, pref), None

    def wounded(self, stack: Stack):
        """The stack's wound now (one of `wound_order`): none in the plain model."""
        return None

    def pieces_left(self, pieces: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The counts (by kind, as `pieces` lists them) a side of `pieces` may be left with in a battle,
        some piece standing, for the odds' bounds (odds.battle_size, battle_work): here any count of
        each kind (the roller aims each die, `allocate_hits`)."""
        return [p for p in product(*(range(n + 1) for n in pieces)) if any(p)]

    def side_wounds(self, pieces: tuple[int, ...]) -> int:
        """How many wounds (`wound_order`, no wound counted) a side with `pieces` (counts by kind) may
        carry: here one, no wound."""
        return 1

    def round_ends(self, pieces: tuple[int, ...], kills: int) -> int:
        """At most how many different sides one round that kills at most `kills` pieces leaves of a side
        with `pieces` (counts by kind), for the odds' work bound (odds.battle_work): here any `kills`
        of them, each kind at most its count (the roller aims each die, `allocate_hits`)."""
        return kill_combinations(pieces, kills)

    def split_casualties(self, split, bonus: int, left: dict[str, int], need: dict[str, int]) -> dict[str, int]:
        """Case dice aimed explicitly: {vs-cavalry: [...], vs-armies: [...], vs-forts: [...]}."""
        killed = dict.fromkeys(KIND_ORDER, 0)
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

    def apply_losses(self, ctx: TurnContext, area: str, nation: str, stack: Stack, loss: dict[str, int], killer: str,
                     by_raiders: bool) -> None:
        """The losses of a round taken off the stack: cavalry, armies (raiders first unless the owner's
        LOSSES order says otherwise), the fort, then burhs; each kill recorded for the VP cards."""
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
                        stack.fort = stack.fort - 1 if stack.fort > 1 else False   # one fort is True (10.4)
                        kind_name = "roman_forts"
                    else:
                        stack.burhs -= 1
                        kind_name = "burhs"
                    ctx.kills.append(Kill(killer=killer, victim=nation, kind=kind_name, area=area, by_raiders=by_raiders))
                    continue
                ctx.kills.append(Kill(killer=killer, victim=nation, kind=kind, area=area, by_raiders=by_raiders))
        if loss:
            ctx.emit("eliminated", area=area, nation=nation, losses=dict(loss), by=killer)

    def battle_over(self, ctx: TurnContext, area: str) -> None:
        """After a battle in `area` (each pair of nations fought): what the family's counters kept
        within the battle ends here (the plain model keeps none)."""

    # --- retreats (8.1-8.4) --------------------------------------------------------------------------
    def defender_retreat_problem(self, ctx: TurnContext, area: str, defender: str, target: str, count: int) -> str:
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

    def defender_retreats(self, ctx: TurnContext, area: str, defender: str, br: int) -> bool:
        """Rules 8.1-8.2 — the defender's DEFEND order, when its condition holds after this round: all its
        units to one area, or a split retreat (parts in the order given; REST takes what is left; without
        REST the others stay and fight on). A part whose area 8.2 refuses stays; the others still go.
        Ordinary armies leave before cavalry; leaders go with the first part that leaves (a fort stays)."""
        state = ctx.state
        d = state.get(area, defender)
        a = state.get(area, ctx.nation)
        for o in standing_orders(ctx, defender, Defend):
            if o.area not in (area, "all"):
                continue
            parts = o.parts()
            if o.hold or not parts:
                return False
            if not self.defender_goes(br, o.after_round, o.if_outnumbered, d.fighters, a.fighters):
                return False
            moved = False
            for want, target in parts:
                d = state.get(area, defender)
                left = d.units if d else 0
                count = left if want is None else min(want, left)
                if not count:
                    break
                part, held = self.retreating_part(ctx, area, defender, d, count)
                count = part.units
                why = self.defender_retreat_problem(ctx, area, defender, target, count) if count else held
                if why or held:
                    ctx.emit("retreat_refused", area=area, nation=defender, to=target, reason=why or held)
                if why:
                    continue
                if not state.nations_in(target):   # an empty area entered in another nation's turn
                    ctx.entered_by_others.setdefault(defender, set()).add(target)
                move_units(ctx, area, target, defender, part, whole=not moved)
                ctx.emit("retreated", area=area, nation=defender, to=target, count=count, side="defender")
                moved = True
            return moved
        return False

    def attacker_retreats(self, ctx: TurnContext, area: str, br: int) -> bool:
        """Rules 8.3, 8.4, 7.22 — the attacker's ATTACK order, when its condition holds after this round:
        it goes back where it came from (raiders: towards their sea)."""
        o = _attack_order(ctx, area)
        if not o or o.mode == "fight":
            return False
        a = ctx.state.get(area, ctx.nation)
        d_units = sum(s.fighters for n, s in ctx.state.areas.get(area, {}).items() if n != ctx.nation)
        if not self.attacker_goes(br, o.mode, o.after_round, a.fighters, d_units):
            return False
        return self.retreat_attacker(ctx, area)

    def retreating_part(self, ctx: TurnContext, area: str, nation: str, stack: Stack, count: int) -> tuple[Stack, str]:
        """Rules 8.1-8.2 — the pieces of `stack` that make a retreating part of `count` units: ordinary
        armies before cavalry (raiders among them first), and why some stay that were ordered ('' here:
        none)."""
        return retreating_pieces(stack, count, stack.armies, stack.cavalry), ""

    def victors_retreat(self, ctx: TurnContext, area: str) -> None:
        """Rule 8 — after the battle in `area`, what the victorious attacker may still do (nothing in the
        plain rules: it stays where it won)."""

    def leader_killer(self, ctx: TurnContext, area: str, nation: str, stack: Stack, pair: tuple[str, str]) -> str | None:
        """Rule 9.2 — the nation that kills the leaders of `nation`'s `stack` after a round of dice between
        `pair` (attacker, defender): the first other nation with armies in the area when the stack has
        none left (None: the leaders live)."""
        if stack.fighters:
            return None
        st = ctx.state.areas.get(area, {})
        return next((o for o, s in st.items() if o != nation and s.fighters), None)

    def defender_goes(self, br: int, after_round: int | None, if_outnumbered: bool, own: int, enemy: int) -> bool:
        """Rule 8.1 — does a DEFEND ... RETREAT order (not HOLD) take effect after battle round `br`?
        AFTER ROUND K: from round K on; IF OUTNUMBERED: only while its pieces are fewer (`own` < `enemy`).
        The engine and the odds both ask here."""
        if after_round is not None and br < after_round:
            return False
        return not (if_outnumbered and own >= enemy)

    def attacker_goes(self, br: int, mode: str, after_round: int | None, own: int, enemy: int) -> bool:
        """Rule 8.1 — does the attacker's ATTACK order (`mode`: fight, retreat_after, retreat_if_outnumbered)
        take it back after battle round `br`? The engine and the odds both ask here."""
        if mode == "fight":
            return False
        if mode == "retreat_after" and br < (after_round or 1):
            return False
        return not (mode == "retreat_if_outnumbered" and own >= enemy)

    def retreat_attacker(self, ctx: TurnContext, area: str) -> bool:
        """Rule 8.3 — each surviving attacker goes back to the area its group entered from.

        Which group the survivors belong to is the owner's choice (8.3's example); the order language has
        no words for it, so our reading is: losses come off the groups listed LAST in the orders, the
        survivors fill the groups in the order of the move lines. A group whose origin holds another
        nation's army (8.3), or which would break the stacking limits there (5.21), stays and fights on.
        A group that came from the sea goes back to it: raiders (8.4) and, on the turn of landing,
        invaders (7.22), raiders to the sea where they began the turn, fighting their way through an
        occupied area of their route (8.4). Returns True if any unit retreated."""
        state, nation = ctx.state, ctx.nation
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
            target = ctx.rs.rules.attacker_retreat_area(ctx, m)
            raiders = min(a.raiders, take) if kind == "armies" else 0
            if raiders and raiders == take and m.raiders and not m.withdrawal:
                # 8.4 — raiders retreat only to the sea where they began the turn, back along their route;
                # an occupied area on the way must be entered and fought in (not refused as in 8.3)
                went.append(_raiders_retreat(ctx, area, m, take))
                continue
            why = self.attacker_retreat_problem(ctx, area, target, take)
            if why:
                ctx.emit("retreat_refused", area=area, nation=nation, to=target, reason=why)
                continue
            part = Stack(armies=take if kind == "armies" else 0, cavalry=take if kind == "cavalry" else 0)
            part.raiders = raiders
            move_units(ctx, area, target, nation, part, whole=False)
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

    def attacker_retreat_problem(self, ctx: TurnContext, area: str, target: str, count: int) -> str:
        """Rule 8.3 — why `count` attackers may not go back from `area` to `target`, the area their group
        entered from ('' if they may): another nation holds it, or the stacking limits (5.21). A sea: ''
        unless the family bars the retreat to sea (`Rules.sea_retreat_barred`, its reading of 7.22)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        if not rs.is_land(target):
            return rs.rules.sea_retreat_barred(ctx) or ""
        if any(n != nation for n in state.occupants(target)):
            return "held by another nation (8.3)"
        return "" if can_add(rs, state, nation, target, count, leaving=area) else "stacking limits (5.21)"

    # --- the model in words (the report's dice text) ---------------------------------------------------
    def die_text(self, rs, area: str, defending: bool, roller: tuple[DiceGroup, ...], target: set[str]) -> str:
        """What one die of the roller needs, in words ('kills on 5+ (6 against cavalry)'), from this model:
        `roller` its dice groups, `target` the kinds (KIND_ORDER) of the pieces it rolls against.
        The main figure is the need of the roller's first group of armies (else its first group) against
        the target's ordinary pieces (Roman armies where the target is the empire); the others as notes."""
        needs = self.needs(rs, area, defending)
        main = next((g for g in roller if g.piece == "armies"), roller[0] if roller else
                    DiceGroup("armies", 0, 0, False))
        bonus = max((g.bonus for g in roller), default=0)
        bonus_note = f"leader +{bonus} on {self._bonus_words(rs)} dice" if bonus else ""
        if "roman_armies" in target and needs.soft < needs.hard:
            # 10.4: Roman armies die only to `hard`; their fort only once they are gone
            text = (f"kills Roman armies on {self._on(needs.hard)}, the fort on "
                    f"{self._on(self.need(needs, main, 'forts'))} once they are gone" if "forts" in target
                    else f"kills on {self._on(needs.hard)} (Roman armies)")
            return text + (f" ({bonus_note})" if bonus else "")
        shown = self.need(needs, main, "armies")
        notes = []
        if defending and needs.soft >= needs.hard and rs.hiland(area):
            notes.append("defenders in hiland")     # 8.0: every die needs `hard` against them
        for g in roller:
            g_need = self.need(needs, g, "armies")
            if g is not main and g_need != shown:
                notes.append(f"the fort's die on {self._on(g_need)}" if g.piece == "fort"
                             else f"{g.piece if g.piece != 'burhs' else 'burh'} dice on {self._on(g_need)}")
        if needs.soft < needs.hard:
            hard_for = [w for w, k in (("Roman armies", "roman_armies"), ("cavalry", "cavalry")) if k in target]
            if hard_for:
                notes.append(f"{needs.hard} against {' and '.join(hard_for)}")
        if bonus:
            notes.append(bonus_note)
        return f"kills on {self._on(shown)}" + (f" ({'; '.join(notes)})" if notes else "")

    def faces_text(self, need: int, bonus: int = 0) -> str:
        """The faces of the die that reach `need` with `bonus` added, in words: '5 or 6' ('no face')."""
        first = self.face_needed(need, bonus)
        if first is None:
            return "no face"
        faces = [str(f) for f in range(first, self.die_faces + 1)]
        return ", ".join(faces[:-1]) + " or " + faces[-1] if len(faces) > 1 else faces[0]

    def legend(self, rs) -> str:
        """The battle rules in a few lines (the report's BATTLES heading), from this model's numbers."""
        land = [a for a in sorted(rs.areas) if rs.is_land(a)]
        clear = next((a for a in land if not rs.hiland(a)), land[0] if land else None)
        hill = next((a for a in land if rs.hiland(a)), None)
        if clear is None:
            return ""
        needs = self.needs(rs, clear, True)
        hill_hard = hill is not None and self.needs(rs, hill, True).soft >= needs.hard
        lines = [f"Each side rolls one die per army, cavalry, fort and burh at once. A die kills an army on "
                 f"{self.faces_text(needs.soft)};",
                 f"it takes a {needs.hard} against cavalry, against Roman armies"
                 + (", and for attackers against defenders in hiland." if hill_hard else ".")]
        fast = self.fast_pieces(rs, True)
        if needs.fast < needs.soft and fast:
            names = [w for p, w in (("cavalry", "cavalry"), ("armies", "Roman armies")) if p in fast]
            lines.append(f"The dice of {' and '.join(names)} kill an army on {self.faces_text(needs.fast)}.")
        bonus = self.leader_bonus(rs, True)
        lines.append((f"A leader adds {bonus} to each {self._bonus_words(rs)} die. " if bonus else "")
                     + "A fort falls only once no Roman army is left with it.")
        return "(" + "\n".join(lines) + ")"

    def _on(self, need: int) -> str:
        """'5+', or '6' for the die's top face."""
        return f"{need}+" if need < self.die_faces else f"{need}"

    def _bonus_words(self, rs) -> str:
        """'army and cavalry' (or 'army, cavalry and burh'): the pieces whose dice get the bonus."""
        names = [w for p, w in (("armies", "army"), ("cavalry", "cavalry"), ("fort", "fort"), ("burhs", "burh"))
                 if p in self.bonus_pieces(rs)]
        return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


@lru_cache(maxsize=1 << 14)
def kill_combinations(pieces: tuple[int, ...], kills: int) -> int:
    """The ways to take at most `kills` pieces off a side of `pieces` (by kind), each kind at most its count."""
    kinds = [c for c in pieces if c]
    if kills >= sum(kinds):
        return prod(c + 1 for c in kinds)
    if len(kinds) == 1:
        return kills + 1
    ways = [1] + [0] * kills            # ways[k]: kills of k pieces so far
    for count in kinds:
        ways = [sum(ways[k - j] for j in range(min(count, k) + 1)) for k in range(kills + 1)]
    return sum(ways)


def allocate_hits(mods: list[int], left: dict[str, int], need: dict[str, int], hard: int,
                  pref: str = "raiders_first", fast: list[bool] | None = None, fast_gain: int = 0) -> dict[str, int]:
    """Rule 8.0 — which of the target's pieces a round's modified dice `mods` kill (the roller aims
    to kill the most): soft dice (good enough only for what needs `need["armies"]`) go to ordinary
    armies first, then hard dice to Roman armies, cavalry and armies (LOSSES CAVALRY LAST: armies
    before cavalry), forts last and only once no Roman army stands (10.4). `left` counts the target's
    pieces by kind (cavalry, roman_armies, armies, forts). Also used by the odds calculator (odds.py).

    The dice flagged in `fast` hit ordinary targets `fast_gain` lower; a target hit only by `hard`
    (the empire's armies, cavalry, defenders in a hiland) still needs it."""
    flags = list(fast or ()) + [False] * (len(mods) - len(fast or ()))
    pool: dict[tuple[int, bool], int] = {}
    for die in zip(mods, flags, strict=False):
        pool[die] = pool.get(die, 0) + 1
    return allocate_pool(pool, left, need, hard, pref, fast_gain)


def allocate_pool(pool: dict[tuple[int, bool], int], left: dict[str, int], need: dict[str, int], hard: int,
                  pref: str = "raiders_first", fast_gain: int = 0) -> dict[str, int]:
    """allocate_hits over the dice counted by (modified die, fast flag): `pool` -> how many such dice.
    Each kill takes the lowest die that can make it (ascending by die, a slow die before a fast one of
    the same number), so the higher dice stay for the harder targets; the dice of one number are taken
    together, as many as the kind has pieces left."""
    killed = dict.fromkeys(KIND_ORDER, 0)
    dice = [[die, fast, n] for (die, fast), n in sorted(pool.items()) if n]
    # the kinds in the order the dice go to them: soft dice to ordinary armies first (no die good
    # enough for a hard target spent there), then the hard targets; forts after (10.4, below)
    order = (("armies", False), ("roman_armies", True)) + (
        (("armies", True), ("cavalry", True)) if pref == "cavalry_last" else (("cavalry", True), ("armies", True)))
    for kind, allow_hard in order + (("forts", True),):
        if kind == "forts" and killed["roman_armies"] != left["roman_armies"]:
            break       # 10.4 — forts fall only once no Roman army stands
        want = left[kind] - killed[kind]
        if want <= 0:
            continue
        # the modified die a kill of this kind needs: a fast die needs `fast_gain` less, not below hard
        slow = need[kind]
        quick = slow if slow >= hard else slow - fast_gain
        for group in dice:
            die, is_fast, n = group
            if n and die >= (quick if is_fast else slow) and (allow_hard or die < hard):
                take = min(n, want)
                group[2] -= take
                want -= take
                killed[kind] += take
                if not want:
                    break
    return {k: v for k, v in killed.items() if v}


def retreating_pieces(stack: Stack, count: int, armies: int, cavalry: int) -> Stack:
    """Rule 8.2 — `count` of the stack's pieces that may go (`armies`, `cavalry` of them), armies before
    cavalry, the raiders among the armies first."""
    take = min(count, armies)
    return Stack(armies=take, cavalry=min(count - take, cavalry), raiders=min(stack.raiders, take))


# --- the orders a battle reads ----------------------------------------------------------------------
def loss_preference(ctx: TurnContext, nation: str, area: str) -> str:
    """The owner's LOSSES choice for `area` (an order for the area before an ALL order)."""
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
    from pbem.rules.orders import order_from_dict

    found = []
    if sent:
        found += [o for o in sent.of(cls)]
    for d in (saved or {}).values():
        o = order_from_dict(d)
        if isinstance(o, cls) and not any(getattr(x, "area", None) == getattr(o, "area", None) for x in found):
            found.append(o)
    found.sort(key=lambda o: getattr(o, "area", "") == "all")
    return found


def _attack_order(ctx: TurnContext, area: str) -> Attack | None:
    found = None
    for o in ctx.own().of(Attack):
        if o.area == area:
            found = o
    return found


def attacker_groups(ctx: TurnContext, area: str) -> list:
    """Rule 8.3 — the attacker's groups that entered the battle area in this movement cycle."""
    return [m for m in ctx.moves if m.dest == area and m.nation == ctx.nation and m.kind != "leader"
            and m.cycle == ctx.cycle]


def attacker_origins(ctx: TurnContext, area: str) -> list[str]:
    """Rule 8.3 — the areas from which the attacker's groups entered the battle area."""
    return [m.came_from for m in attacker_groups(ctx, area)]


def _raiders_retreat(ctx: TurnContext, area: str, m, take: int) -> str:
    """Rule 8.4 — "Raiders may only withdraw to sea, and return to the sea area where they began the
    turn. If they have raided inland, they may only withdraw along the route they entered by. If the
    area through which they entered is occupied by opposing piece(s), they must retreat to this area
    and enter into battle. If they win ... they may then withdraw to sea." """
    from pbem.rules.endturn import raider_route_back, raiders_go_back  # endturn imports battle (8.4 fights)

    m.retreated += take
    route = raider_route_back(ctx, area, m)
    ctx.emit("retreated", area=area, nation=ctx.nation, to=route[-1], count=take, side="attacker", raiders=True)
    return raiders_go_back(ctx, area, take, route)


def move_units(ctx: TurnContext, src: str, dst: str, nation: str, part: Stack, whole: bool = True) -> None:
    """Rules 8.2, 8.3 — `part` of the nation's stack in `src` moves to `dst` (its leaders too if `whole`)."""
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
