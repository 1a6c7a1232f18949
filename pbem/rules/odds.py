"""Rule 8 — the exact odds of a battle: who ends up holding the area, and the expected losses.

Pure (no I/O, no dice): the same battle rules the engine plays (battle.py), computed as an exact
probability over every possible roll, with fractions, not by sampling.

The battle model is the engine's own (`rs.rules.battle`, pbem.rules.battle_model): a side's dice and
each group's bonus and hit number (`dice_groups`, `needs`, `need`: a defender in a hiland hit only on
a 6, 8.0; the leader's +1, 9.2; a family's faster dice where it has them), the faces of the die
(`die_faces`), and which pieces a round's soft and hard hits kill, with the wound they leave where
the family keeps one (`hits_taken`: the plain model's `battle_model.allocate_hits`, what the engine's
casualties call; Duel's default allocation, what its casualties call).

How. A round's dice only matter by how many of them reach each hit number: a modified die is a miss,
a "soft" hit (good enough for an ordinary army: 5 or 6, rule 8.0) or a "hard" hit (a 6, needed against
hiland defenders, Roman armies and cavalry; 10.4 and doubt P1). The number of each is multinomial;
the engine's own allocation turns them into losses. Both sides roll at once, independently. After a
round the defender may retreat (8.2: DEFEND ... RETREAT TO, IF OUTNUMBERED, AFTER ROUND K), else the
attacker may (8.3: ATTACK ... RETREAT IF OUTNUMBERED / AFTER ROUND K); we assume the retreat is
possible (the engine refuses one whose way back is blocked).

The battle is a Markov chain over its states: the pieces each side has left, and the battle round as
long as a retreat plan still depends on it (AFTER ROUND K); where the family's pieces take more than
one hit (Duel Britannia: two, a side keeping one wounded piece within the battle), each side's wound
too: the battle model says how a round's hits move it (`hits_taken`, the engine's allocation) and in
what order (`wound_order`). Every round either kills a piece, moves the round counter on, moves a
wound on, lets a side retreat, or repeats the same state (no change): the states form a
chain with self-loops only, so one pass over the states in order (most pieces first) carries the
probability of reaching each one forward, a self-loop dividing what leaves a state by
1 - P(no change) (the geometric series). Iterative, no recursion; exact fractions throughout.

A fort or burh rolls like an army without the leader's +1 (9.2, 10.4; unless the model's `bonus_pieces`
name it) and falls only once no Roman army stands; a defender's retreat leaves its fort behind, and the battle
goes on against the fort.

Work limits (a mail must not stall the job, issues 27 and 33), all counted, never timed, so the same
question always gets the same answer: `battle_size` counts the states and `battle_work` the steps (pairs
of a state's round outcomes summed) before any work is done; a battle of more than MAX_STATES states or
MAX_WORK steps (about a second) is refused at once with OddsTooBig, naming the limit, and so is one that
needs more than an `OddsBudget` (per mail, per run: pbem.orders.odds) has left; a budget is charged the
steps spent. A side has at most MAX_PIECES pieces; AFTER ROUND K takes K up to MAX_ROUND.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from math import comb, gcd, lcm

from pbem.errors import PbemError
from pbem.records import record
from pbem.rules.battle import loss_preference, standing_orders
from pbem.rules.battle_model import BattleModel, DieNeeds
from pbem.rules.context import TurnContext
from pbem.rules.legal import _NoDice, first_movement
from pbem.rules.orders import Attack, Defend

MAX_PIECES = 60      # per side: far more than any stack of the game holds
MAX_ROUND = 99       # AFTER ROUND K: a retreat plan counted up to round 99
MAX_STATES = 20_000     # states of one battle (battle_size), refused before any work
MAX_WORK = 1_000_000    # steps of one battle (pairs of round outcomes summed): about a second at most

ATTACK_MODES = ("fight", "retreat_if_outnumbered", "retreat_after")
DEFEND_MODES = ("hold", "retreat", "retreat_if_outnumbered")
PLAIN = BattleModel()   # the battle model of battle_size and battle_work asked without one


class OddsTooBig(PbemError):
    """A battle whose exact odds cost more work than the limit allows (per line, mail or run)."""


@record
class Side:
    """One side of a battle: its pieces, whether a leader is with them (9.2: +1 on army/cavalry
    dice), whether its armies are Roman (they die only to a 6, 10.4), its LOSSES choice."""

    armies: int = 0
    cavalry: int = 0
    leader: bool = False
    roman: bool = False
    fort: int = False             # True: one fort (10.4); a count where the family allows several
    burhs: int = 0
    losses: str = "raiders_first"     # or "cavalry_last" (LOSSES order)
    wounded: str | None = None        # the kind of its wounded piece, where the family keeps wounds

    @property
    def units(self) -> int:
        return self.armies + self.cavalry

    @property
    def fighters(self) -> int:
        return self.armies + self.cavalry + int(self.fort) + self.burhs


@record
class Plan:
    """The standing orders for this battle: the attacker's ATTACK and the defender's DEFEND."""

    attack: str = "fight"                 # ATTACK_MODES
    attack_after: int | None = None       # RETREAT AFTER ROUND K
    defend: str = "hold"                  # DEFEND_MODES ("retreat": RETREAT TO B)
    defend_after: int | None = None       # ... AFTER ROUND K

    @property
    def rounds_counted(self) -> int:
        """The battle rounds that change what the plan does: after round K nothing depends on the round."""
        return max(self.attack_after or 1, self.defend_after or 1)


@record
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


def die_needs(rs, area: str, defending: bool) -> DieNeeds:
    """The hit numbers of one side's dice in `area` (`defending`: they roll against the defenders):
    the battle model's (`rs.rules.battle.needs`), as the engine's casualties take them."""
    return rs.rules.battle.needs(rs, area, defending)


def terrain_area(rs, hiland: bool) -> str:
    """A land area of the wanted terrain, for a battle asked by terrain only (ODDS ... HILAND)."""
    for area in sorted(rs.areas):
        if rs.hiland(area) == hiland:
            return area
    raise PbemError(f"this ruleset has no {'hiland' if hiland else 'clear'} area")


def _faces(need: int, hard: int, bonus: int, sides: int) -> tuple[int, int, int]:
    """How many of a die's `sides` faces miss, make a soft hit, make a hard hit, with `bonus` added."""
    hard_n = sum(1 for f in range(1, sides + 1) if f + bonus >= hard)
    soft_n = sum(1 for f in range(1, sides + 1) if need <= f + bonus < hard)
    return sides - hard_n - soft_n, soft_n, hard_n


def _roll_counts(n: int, faces: tuple[int, int, int], merged: bool = False) -> dict[tuple[int, int], int]:
    """(soft hits, hard hits) of n dice -> how many of the 6**n rolls give them; `merged`: every hit
    counted as soft."""
    f0, f1, f2 = faces
    if merged or not f2 or not f1:
        hit = f1 + f2
        key = (lambda k: (k, 0)) if merged or f1 else (lambda k: (0, k))
        return {key(k): comb(n, k) * hit ** k * f0 ** (n - k) for k in range(n + 1) if hit or not k}
    p0 = [f0 ** k for k in range(n + 1)]
    p1 = [f1 ** k for k in range(n + 1)]
    p2 = [f2 ** k for k in range(n + 1)]
    out: dict[tuple[int, int], int] = {}
    for s in range(n + 1):
        cs = comb(n, s) * p1[s]
        for h in range(n - s + 1):
            out[(s, h)] = cs * comb(n - s, h) * p2[h] * p0[n - s - h]
    return {k: c for k, c in out.items() if c}


def _together(a: dict[tuple[int, int], int], b: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """The (soft, hard) hits of two independent groups of dice together."""
    if len(a) == 1 and (0, 0) in a:
        return {k: v * a[(0, 0)] for k, v in b.items()}
    out: dict[tuple[int, int], int] = {}
    for (s1, h1), c1 in a.items():
        for (s2, h2), c2 in b.items():
            out[(s1 + s2, h1 + h2)] = out.get((s1 + s2, h1 + h2), 0) + c1 * c2
    return out


# Inside the solver a side is a plain tuple (hashing dataclasses cost more than the sums):
# (armies, cavalry, fort, burhs, leader, roman, losses, fighters, units, wounded)
ARMIES, CAVALRY, FORT, BURHS, LEADER, ROMAN, LOSSES, FIGHTERS, UNITS, WOUNDED = range(10)


def _pieces(armies: int, cavalry: int, fort: int, burhs: int, leader: bool, roman: bool, losses: str,
            wounded=None) -> tuple:
    """A side as the solver keeps it; its leader stays while any of its pieces fights (9.2: a leader
    alone is killed), its bonus reaching the dice the battle model says (`dice_groups`); `wounded`
    the wound it carries into the next round (the battle model's `wound_order`)."""
    units = armies + cavalry
    fighters = units + int(fort) + burhs
    return armies, cavalry, fort, burhs, leader and fighters > 0, roman, losses, fighters, units, wounded


def _of(side: Side) -> tuple:
    """The side as asked: a leader asked with no army or cavalry still counts in the first round."""
    return (side.armies, side.cavalry, side.fort, side.burhs, side.leader, side.roman, side.losses, side.fighters,
            side.units, side.wounded)


def _left(side: tuple) -> dict[str, int]:
    """The target's pieces by the kinds of battle.KIND_ORDER: cavalry, Roman armies, armies, forts."""
    roman = side[ROMAN]
    return {"cavalry": side[CAVALRY], "roman_armies": side[ARMIES] if roman else 0,
            "armies": 0 if roman else side[ARMIES], "forts": int(side[FORT]) + side[BURHS]}


class _Model:
    """The dice of one battle: for each roller and target, how many rolls kill what (cached). Each
    side met is kept once and named by its number (`sides`), so a state is three small numbers."""

    def __init__(self, rs, att: DieNeeds, dfd: DieNeeds):
        self.rs, self.needs = rs, (dfd, att)     # indexed by `attacking`
        self.battle = rs.rules.battle
        self.sides: list[tuple] = []
        self.ids: dict[tuple, int] = {}
        self.rolls: dict = {}
        self.kills_cache: dict = {}
        self.whole: dict = {}          # (roller, attacking, merged) -> its hits uncapped (_capped)
        self.tallies: dict = {}
        self.aims: dict = {}

    def side_id(self, side: tuple) -> int:
        i = self.ids.get(side)
        if i is None:
            i = self.ids[side] = len(self.sides)
            self.sides.append(side)
        return i

    def _hits(self, roller: tuple, attacking: bool, merged: bool) -> dict[tuple[int, int], int]:
        """(soft, hard) hits of the roller's dice -> how many of the 6**dice rolls give them;
        `merged`: every hit counted as soft (for a target whose every piece a soft hit kills)."""
        key = (roller[:6], attacking, merged)
        hit = self.rolls.get(key)
        if hit is not None:
            return hit
        rs, needs, battle = self.rs, self.needs[attacking], self.battle
        dice: dict[tuple[int, int], int] = {(0, 0): 1}
        # the model's dice, grouped by what a die of them needs against an ordinary target and its bonus
        groups: dict[tuple[int, int], int] = {}
        for g in battle.dice_groups(rs, armies=roller[ARMIES], cavalry=roller[CAVALRY], fort=roller[FORT],
                                    burhs=roller[BURHS], leader=roller[LEADER], roman=roller[ROMAN]):
            key = (battle.need(needs, g, "armies"), g.bonus)
            groups[key] = groups.get(key, 0) + g.count
        for (need, bonus), n in groups.items():
            dice = _together(dice, _roll_counts(n, _faces(need, needs.hard, bonus, battle.die_faces), merged))
        self.rolls[key] = dice
        return dice

    def _whole(self, roller: int, attacking: bool, merged: bool) -> tuple:
        """The hits of side `roller`'s dice, uncapped: their (soft, hard) counts in order, the largest
        count of either, the key the sides that roll alike share, and for `merged` hits the counts alone
        (by hits 0, 1, 2, ...) and the sums of the counts from each number of hits up (tails[k])."""
        got = self.whole.get((roller, attacking, merged))
        if got is None:
            side = self.sides[roller]
            whole_key = (side[:6], attacking, merged)     # the sides that roll alike share their hits
            got = self.rolls.get(whole_key + (None,))
            if got is None:
                whole = sorted(self._hits(side, attacking, merged).items())
                # merged: the keys are (0, 0), (1, 0), ... (n, 0) (each group's binomial has them all),
                # so a cap keeps the counts below it and the sum of the rest (tails[cap])
                most = max(max(s, h) for (s, h), _ in whole)
                counts = [c for _, c in whole] if merged else None
                tails = list(accumulate(reversed(counts)))[::-1] if merged else None
                got = self.rolls[whole_key + (None,)] = (whole, most, whole_key, counts, tails)
            self.whole[(roller, attacking, merged)] = got
        return got

    def _capped_counts(self, roller: int, attacking: bool, cap: int) -> list[int]:
        """Every hit counted as soft: how many rolls of side `roller`'s dice make 0, 1, 2, ... hits, the
        last of them `cap` or more."""
        _, most, _, counts, tails = self._whole(roller, attacking, True)
        return counts if most <= cap else counts[:cap] + [tails[cap]]

    def _capped(self, roller: int, attacking: bool, cap: int) -> list:
        """The (soft, hard) hits of side `roller`'s dice with each count capped at `cap` (kept per roller,
        and per cap where it cuts)."""
        whole, most, whole_key, _, _ = self._whole(roller, attacking, False)
        if most <= cap:
            return whole            # no count reaches the cap
        key = whole_key + (cap,)
        out = self.rolls.get(key)
        if out is None:
            capped: dict[tuple[int, int], int] = {}
            for (s, h), c in whole:
                k = (min(s, cap), min(h, cap))
                capped[k] = capped.get(k, 0) + c
            out = self.rolls[key] = list(capped.items())
        return out

    def kills(self, roller: int, target: int, attacking: bool) -> list[tuple[int, int, int]]:
        """What one round of the dice of side `roller` does to side `target`: (the target's side
        after it, pieces killed, how many of the 6**dice rolls, over their common factor), kills by
        the battle model's `hits_taken`. A kind of hit the roller has more of than the target can take
        (its pieces times `hits_to_kill`) never runs out, so its count is capped there (more of it kills
        no more)."""
        key = (roller, target, attacking)
        hit = self.kills_cache.get(key)
        if hit is not None:
            return hit
        how = self.aims.get((target, attacking))
        if how is None:
            how = self.aims[(target, attacking)] = self._aim(target, attacking)
        merged, ends = how
        cap = self.sides[target][FIGHTERS] * self.battle.hits_to_kill
        if merged:
            # every hit soft: the counts by hits 0, 1, 2, ... and the ends of so many hits (a list)
            counts = self._capped_counts(roller, attacking, cap)
            for k in range(len(ends), len(counts)):
                ends.append(self._end(target, attacking, (k, 0)))
            ways = zip(ends, counts)
        else:
            ways = []
            for sh, c in self._capped(roller, attacking, cap):
                end = ends.get(sh)
                if end is None:
                    end = ends[sh] = self._end(target, attacking, sh)
                ways.append((end, c))
        out: dict[tuple[int, int], int] = {}
        for end, c in ways:
            if end in out:
                out[end] += c
            else:
                out[end] = c
        # the counts divided by their common factor (a power of 2 and 3, at least): every
        # probability of the state is a ratio of them, and smaller counts make smaller sums
        g = gcd(*out.values())
        result = []
        alive = []          # (the target's side after, rolls) where some of its pieces still stand
        # all the rolls, the pieces they kill in all, the rolls that leave the target as it was, the
        # rolls that leave it standing
        rolls = killed = same = standing = 0
        sides = self.sides
        for (t, k), c in out.items():
            c //= g
            result.append((t, k, c))
            rolls += c
            if k:
                killed += k * c
            if t == target:
                same += c
            if sides[t][FIGHTERS]:
                alive.append((t, c))
                standing += c
        self.kills_cache[key] = result
        self.tallies[key] = (rolls, killed, same, alive, standing)
        return result

    def _end(self, target: int, attacking: bool, sh: tuple[int, int]) -> tuple[int, int]:
        """(the target's side after, pieces killed) for `sh` (soft, hard) hits, by the battle model's
        `hits_taken` (the plain model: battle_model.allocate_hits; a family's own, with its wounds)."""
        aim = self.sides[target]
        got, wounded = self.battle.hits_taken(self.needs[attacking], _left(aim), aim[WOUNDED], sh[0], sh[1],
                                              aim[LOSSES])
        if not got:
            return self.side_id(_after(aim, (0, 0, 0), wounded)), 0
        kill = got.get("cavalry", 0), got.get("armies", 0) + got.get("roman_armies", 0), got.get("forts", 0)
        return self.side_id(_after(aim, kill, wounded)), sum(kill)

    def _aim(self, target: int, attacking: bool) -> tuple[bool, list | dict]:
        """For dice aimed at side `target`: are hard hits worth no more than soft ones (every piece
        of it dies to a soft hit, 8.0), and the ends (`_end`) met so far: of 0, 1, 2, ... hits (a list)
        where they are, else of each (soft, hard) count."""
        needs = self.needs[attacking]
        left = _left(self.sides[target])
        need = {"cavalry": needs.hard, "roman_armies": needs.hard, "armies": needs.soft, "forts": needs.soft}
        merged = all(need[kind] <= needs.soft for kind, n in left.items() if n)
        return merged, ([] if merged else {})


def _after(side: tuple, kill: tuple, wounded=None) -> tuple:
    """The side once `kill` (cavalry, armies, forts) is taken off, `wounded` its wound then: the fort
    falls before the burhs; a leader with none of its pieces left is gone (9.2)."""
    cav, arm, forts = kill
    if not (cav or arm or forts) and wounded == side[WOUNDED] and (side[FIGHTERS] or not side[LEADER]):
        return side
    fort = side[FORT]
    if forts and fort:      # a count of forts where the family allows several (Stack.fort); one is True
        taken = min(forts, int(fort))
        left = int(fort) - taken
        fort, forts = (left if left > 1 else bool(left)), forts - taken
    return _pieces(side[ARMIES] - arm, side[CAVALRY] - cav, fort, side[BURHS] - forts, side[LEADER], side[ROMAN],
                   side[LOSSES], wounded)


def _check(side: Side, who: str) -> None:
    if min(side.armies, side.cavalry, side.burhs) < 0:
        raise PbemError(f"the {who} cannot have a negative number of pieces")
    if side.fighters > MAX_PIECES:
        raise OddsTooBig(f"the {who} has {side.fighters} pieces; the odds are computed for at most {MAX_PIECES}")


def _check_wound(side: Side, who: str, battle) -> None:
    """A wound asked is one the battle model keeps, on a kind of piece the side has."""
    if side.wounded is None:
        return
    have = {"armies": side.armies, "cavalry": side.cavalry, "forts": int(side.fort) + side.burhs}
    if side.wounded not in battle.wound_order or not have.get(side.wounded):
        raise PbemError(f"the {who} cannot have a wounded piece of that kind here")


def _check_plan(plan: Plan) -> None:
    if plan.attack not in ATTACK_MODES or plan.defend not in DEFEND_MODES:
        raise PbemError(f"unknown plan {plan.attack!r}/{plan.defend!r}")
    for k in (plan.attack_after, plan.defend_after):
        if k is not None and not 1 <= k <= MAX_ROUND:
            raise PbemError(f"AFTER ROUND {k}: the round is a number from 1 to {MAX_ROUND}")


def _kinds(side: Side) -> tuple[int, int, int]:
    """The side's pieces by how a round's hits take them: cavalry, armies, forts and burhs."""
    return side.cavalry, side.armies, int(side.fort) + side.burhs


def battle_size(attacker: Side, defender: Side, plan: Plan = Plan(), battle: BattleModel = PLAIN) -> int:
    """How many states the exact odds may visit: the pieces each side may be left with (in the plain
    model every count of each kind of piece: `battle.pieces_left`, and none), times the wounds it can
    carry (`battle.side_wounds`), times the battle rounds the plan counts (rounds 0..K). Known before
    any work is done."""
    a = (len(battle.pieces_left((attacker.cavalry, attacker.armies))) + 1) * battle.side_wounds(_kinds(attacker))
    d = ((len(battle.pieces_left((defender.cavalry, defender.armies, int(defender.fort), defender.burhs))) + 1)
         * battle.side_wounds(_kinds(defender)))
    return a * d * (plan.rounds_counted + 1)


def battle_work(attacker: Side, defender: Side, plan: Plan = Plan(), battle: BattleModel = PLAIN) -> int:
    """About how many steps (pairs of round outcomes) the exact odds spend, known before any work:
    for every state, the ends the attacker's dice can make of the defender times those the
    defender's can make of the attacker (`battle.round_ends`, killing at most one piece a die: a
    family whose pieces take more hits rolls as many more dice), once per wound each side can carry
    (`battle.side_wounds`); an upper bound, but for the start state counted once more, and a round
    counter the plan keeps. The states: the pieces each side may be left with (`battle.pieces_left`)."""
    a_subs = battle.pieces_left((attacker.cavalry, attacker.armies))
    d_subs = [(dc, da, df + db) for dc, da, df, db in
              battle.pieces_left((defender.cavalry, defender.armies, int(defender.fort), defender.burhs))]
    a_dice = [sum(p) for p in a_subs]
    d_dice = [sum(p) for p in d_subs]

    def ends_by_dice(subs, most: int) -> list[list[int]]:
        """For each side left (`subs`), the ends that 0..`most` enemy dice can make of it, once per
        wound it can carry (its wounds asked once)."""
        out = []
        for sub in subs:
            w = battle.side_wounds(sub)
            out.append([battle.round_ends(sub, n) * w for n in range(most + 1)])
        return out

    on_d = ends_by_dice(d_subs, attacker.units)
    on_a = ends_by_dice(a_subs, defender.fighters)
    total = 0
    for i, na in enumerate(a_dice):
        row = on_a[i]
        total += sum(on_d[j][na] * row[nd] for j, nd in enumerate(d_dice))
    return total * plan.rounds_counted


@dataclass
class OddsBudget:
    """Work the odds may still spend, in the solver's steps (one pair of a state's round outcomes
    summed): one budget per mail, one shared by every mail of a `pbem run`. `refusal` is the answer
    when a line would need more than is left."""

    left: int
    refusal: str

    def spend(self, work: int) -> None:
        self.left -= work


def battle_odds(rs, attacker: Side, defender: Side, *, hiland: bool = False, area: str | None = None,
                plan: Plan = Plan(), budgets: tuple[OddsBudget, ...] = ()) -> Odds:
    """Rule 8 — the exact odds of the attacker's battle against the defender in `area` (or in an
    area of the wanted terrain: `hiland`, 8.0: the attacker needs a 6 against defenders there).

    Refused with OddsTooBig before any work when the battle has more than MAX_STATES states, or
    would take more than MAX_WORK steps (`battle_work`) or more than a budget has left; stopped
    (OddsTooBig) should it spend more all the same. Every budget is charged the steps spent."""
    _check(attacker, "attacker")
    _check(defender, "defender")
    if attacker.units == 0 or defender.fighters == 0:
        raise PbemError("a battle needs attacking armies or cavalry and at least one defending piece")
    _check_plan(plan)
    battle = rs.rules.battle
    _check_wound(attacker, "attacker", battle)
    _check_wound(defender, "defender", battle)
    size = battle_size(attacker, defender, plan, battle)
    if size > MAX_STATES:
        raise OddsTooBig(f"this battle is too big to compute exactly here ({size} states; the limit is "
                         f"{MAX_STATES})", hint=TOO_BIG_HINT)
    work = battle_work(attacker, defender, plan, battle)
    if work > MAX_WORK:
        raise OddsTooBig(f"this battle is too big to compute exactly here (about {work} steps of work; the "
                         f"limit is {MAX_WORK})", hint=TOO_BIG_HINT)
    for b in budgets:
        if work > b.left:
            raise OddsTooBig(b.refusal)
    area = area or terrain_area(rs, hiland)
    att, dfd = die_needs(rs, area, True), die_needs(rs, area, False)
    spent = _Work(min([MAX_WORK] + [b.left for b in budgets]), budgets)
    try:
        result = _solve(_Model(rs, att, dfd), attacker, defender, plan, spent)
    finally:
        for b in budgets:
            b.spend(spent.spent)
    return Odds(*result, attacker_hits_on=att.soft, defender_hits_on=dfd.soft)


TOO_BIG_HINT = "try fewer pieces, fewer kinds of pieces, or an earlier AFTER ROUND"


@dataclass
class _Work:
    """The steps one battle may spend (the least of MAX_WORK and its budgets) and has spent."""

    limit: int
    budgets: tuple[OddsBudget, ...]
    spent: int = 0

    def add(self, steps: int) -> None:
        self.spent += steps
        if self.spent > self.limit:
            short = next((b for b in self.budgets if self.spent > b.left), None)
            if short is not None and short.left < MAX_WORK:
                raise OddsTooBig(short.refusal)
            raise OddsTooBig(f"this battle is too big to compute exactly here (more than {MAX_WORK} steps of "
                             "work)", hint=TOO_BIG_HINT)


_TAKES, _HOLDS, _BOTH, _ATT_RETREAT, _DEF_RETREAT = range(5)   # how a battle ends (the chain's sinks)
_SINKS = 8          # a state's key is at least this: (attacker side, defender side, round) in one int


def _key(a: int, d: int, rounds: int) -> int:
    """A state as one int (hashed faster than a tuple): sides by number, the round below 256."""
    return (a << 32 | d << 8 | rounds) + _SINKS


def _unkey(key: int) -> tuple[int, int, int]:
    key -= _SINKS
    return key >> 32, (key >> 8) & 0xFFFFFF, key & 0xFF


def _solve(model: _Model, attacker: Side, defender: Side, plan: Plan, work: _Work) -> tuple[Fraction, ...]:
    """(takes, holds, both, attacker retreats, defender retreats, attacker losses, defender losses).

    A state is (attacker's side, defender's side, battle round up to the plan's K), a side with its
    wound where the family keeps one. The probability of reaching each state is carried forward level
    by level: a level is the states with the same pieces in all, the same round and the same sum of
    wound ranks (`wound_order`), and every way out of a state (its next round's two independent
    rolls, counted in rolls of the 6**dice) leads to a later level (fewer pieces, the same pieces a
    round on, or a wound moved on) or repeats the state; so a battle passes each level at most once.
    Probabilities are kept as integers over one running denominator: the product of the levels' counts
    of rolls that change a state, each made common over its level by lcm. A level's ways out are over
    the denominator times its count (each state's numerator times the count over the state's own), so
    before they are summed everything else reached so far is moved onto it; sums of integers, one
    fraction reduced per result at the end.

    The numerators reached are kept in rows, one per (attacker's side, round), indexed by the
    defender's side (a list: cheaper to update than one dict of states, and a round without retreats
    adds one attacker outcome times every defender outcome along one row)."""
    cap = plan.rounds_counted
    a0, d0 = model.side_id(_of(attacker)), model.side_id(_of(defender))
    sides = model.sides
    top = sides[a0][FIGHTERS] + sides[d0][FIGHTERS]
    step = cap + 1
    # a family's wounds (battle model `wound_order`): a round that kills nothing may move a side's wound
    # on in that order, so the wounds order the states of the same pieces and round (`wide` levels each)
    rank = {w: i for i, w in enumerate(model.battle.wound_order)}
    wide = len(rank)
    lift: list[int] = []        # each side's part of a state's level: its wound's rank less its pieces'

    def lifts() -> None:
        lift.extend(rank[sd[WOUNDED]] - sd[FIGHTERS] * step * wide for sd in sides[len(lift):])

    # rows[attacker side << 8 | round][defender side]: the numerator (over the running denominator) of
    # what has reached the state so far, 0 if nothing has (or it has been passed); every row as long as
    # `sides` (made longer as sides are met). at_level[level]: the states that have reached it, as
    # (a, d, round, row)
    rows: dict[int, list[int]] = {}
    width = len(sides)

    def level(a: int, d: int, rounds: int) -> int:
        return (top * step + rounds) * wide + lift[a] + lift[d]

    def row_of(ar: int) -> list[int]:
        row = rows.get(ar)
        if row is None:
            row = rows[ar] = [0] * width
        return row

    lifts()
    start = row_of(a0 << 8)
    start[d0] = 1
    at_level: dict[int, list] = {level(a0, d0, 0): [(a0, d0, 0, start)]}     # 0 but for wounds asked
    whole = 1           # the running denominator: the product of the levels' common counts so far
    ends = [0] * 7      # the five sinks, then the two losses, over `whole`
    plain = plan.attack == "fight" and plan.defend == "hold"
    for i in range((top * step + cap + 1) * wide):
        states = at_level.pop(i, None)
        if not states:
            continue
        ways = [_ways_out(model, plan, cap, a, d, rounds) for a, d, rounds, _ in states]
        lifts()
        if len(sides) > width:      # sides first met this level: every row made as long
            width = len(sides)
            for row in rows.values():
                row.extend([0] * (width - len(row)))
        m = 1
        for moving, *_ in ways:
            m = lcm(m, moving)
        # this level's ways out are over whole * m: everything else reached so far moves onto it
        nums = []
        for (_, d, _, row), w in zip(states, ways):
            nums.append(row[d] * (m // w[0]))
            row[d] = 0
        if m != 1:
            whole *= m
            for waiting in at_level.values():
                for _, d, _, row in waiting:
                    row[d] *= m
            ends = [e * m for e in ends]
        for (a, d, rounds, _), num, (_, a_kills, d_kills, nexts, a_tally, d_tally) in zip(states, nums, ways):
            a_all, a_killed, _, a_on, a_on_total = a_tally
            d_all, d_killed, _, d_on, d_on_total = d_tally
            work.add(len(a_kills) * len(d_kills))
            # the pieces killed, over every roll (the rolls that change nothing kill none)
            ends[5] += num * a_killed * d_all
            ends[6] += num * d_killed * a_all
            if plain:
                # a round without retreats: the next state is the pieces left, a round on. The
                # rolls that leave a side with nothing end the battle (one such kill at most a side)
                nxt = min(rounds + 1, cap)
                base = i + (nxt - rounds) * wide - lift[a] - lift[d]      # level(a2, d2, nxt) less their lifts
                a_gone = a_all - a_on_total
                if d_on_total != d_all:         # the defender's side gone: taken, or no one left
                    x = num * (d_all - d_on_total)
                    ends[_TAKES] += x * a_on_total
                    ends[_BOTH] += x * a_gone
                if a_gone:
                    ends[_HOLDS] += num * a_gone * d_on_total
                for a2, ca in a_on:
                    y = num * ca
                    row = row_of(a2 << 8 | nxt)
                    at = base + lift[a2]
                    # both sides as they were and the same round: the same state again (not in `moving`)
                    for d2, cd in (d_on if a2 != a or nxt != rounds else [o for o in d_on if o[0] != d]):
                        v = row[d2]
                        if v:
                            row[d2] = v + y * cd
                        else:     # a state first reached: its level
                            row[d2] = y * cd
                            at_level.setdefault(at + lift[d2], []).append((a2, d2, nxt, row))
                continue
            for t, rolls in nexts.items():
                if t < _SINKS:
                    ends[t] += num * rolls
                    continue
                a2, d2, r2 = _unkey(t)
                row = row_of(a2 << 8 | r2)
                v = row[d2]
                if v:
                    row[d2] = v + num * rolls
                else:
                    row[d2] = num * rolls
                    at_level.setdefault(level(a2, d2, r2), []).append((a2, d2, r2, row))
    totals = [Fraction(e, whole) for e in ends]
    takes, holds, both, att_ret, def_ret, lost_a, lost_d = totals
    return takes + def_ret, holds + att_ret, both, att_ret, def_ret, lost_a, lost_d


def _ways_out(model: _Model, plan: Plan, cap: int, a: int, d: int, rounds: int):
    """One state's next round of dice (battle._fight_pair, the model's casualties): the rolls that change something, the
    kills of each side's dice, and (when a retreat plan is in play) {next state or sink: rolls}."""
    sides = model.sides
    br = rounds + 1
    nxt = min(br, cap)
    a_kills = model.kills(d, a, False)
    d_kills = model.kills(a, d, True)
    a_tally, d_tally = model.tallies[(d, a, False)], model.tallies[(a, d, True)]
    out: dict = {}
    stay = 0
    if plan.attack == "fight" and plan.defend == "hold":
        if nxt == rounds:     # the rolls that kill nothing on either side repeat the state
            stay = a_tally[2] * d_tally[2]
        return a_tally[0] * d_tally[0] - stay, a_kills, d_kills, out, a_tally, d_tally
    here = _key(a, d, rounds)
    for d2, _, cd in d_kills:
        d_alive = sides[d2][FIGHTERS] > 0
        for a2, _, ca in a_kills:
            c = cd * ca
            if not d_alive or not sides[a2][FIGHTERS]:
                t = _BOTH if not d_alive and not sides[a2][FIGHTERS] else _HOLDS if d_alive else _TAKES
            else:
                t = _where(model, plan, a2, d2, br, nxt)
                if t == here:
                    stay += c          # nothing changed: the same round again
                    continue
            out[t] = out.get(t, 0) + c
    return a_tally[0] * d_tally[0] - stay, a_kills, d_kills, out, a_tally, d_tally


def _where(model: _Model, plan: Plan, a: int, d: int, br: int, nxt: int):
    """The state (or the way the battle ends) after a round that left both sides standing."""
    sa, sd = model.sides[a], model.sides[d]
    if _defender_retreats(plan, sa, sd, br, model.battle):
        # the fort stays, and a wound on it (a wounded piece that leaves takes its wound out of the battle)
        kept = sd[WOUNDED] if sd[WOUNDED] == "forts" else None
        sd = _pieces(0, 0, sd[FORT], sd[BURHS], False, sd[ROMAN], sd[LOSSES], kept)
        if not sd[FIGHTERS]:
            return _DEF_RETREAT
        d = model.side_id(sd)
    elif _attacker_retreats(plan, sa, sd, br, model.battle):
        return _ATT_RETREAT
    return _key(a, d, nxt)


def _defender_retreats(plan: Plan, a: tuple, d: tuple, br: int, battle) -> bool:
    """The defender's plan after round `br`: the battle model's DEFEND condition (as the engine's)."""
    if plan.defend == "hold" or not d[UNITS]:
        return False
    return battle.defender_goes(br, plan.defend_after, plan.defend == "retreat_if_outnumbered", d[FIGHTERS],
                                a[FIGHTERS])


def _attacker_retreats(plan: Plan, a: tuple, d: tuple, br: int, battle) -> bool:
    """The attacker's plan after round `br`: the battle model's ATTACK condition (as the engine's)."""
    return battle.attacker_goes(br, plan.attack, plan.attack_after, a[FIGHTERS], d[FIGHTERS])


@record
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
    return Side(stack.armies, stack.cavalry, bool(stack.leaders), nation == rs.role("empire"), stack.fort, stack.burhs, losses,
                rs.rules.battle.wounded(stack))


def planned_battles(rs, state, nation: str, orders, *, first=None) -> list[PlannedBattle]:
    """Rule 8 — the battles `orders` (a NationOrders) lead to after the first movement, each with its
    exact odds as if it were fought alone (the battles of a turn do not change each other's pieces,
    except a defender retreating into another battle area; forts and burhs as they stand).
    Orders the rules refuse give no battles (the reply lists their problems); a battle whose defender
    has a split retreat order (RETREAT 2 TO B, REST TO C) is left out: the odds do not model parts.
    `first`: the orders' `legal.first_movement`, when the caller has played it already (read only here)."""
    result = first if first is not None else first_movement(rs, state, nation, orders)
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
            try:
                o = battle_odds(rs, a_side, d_side, area=area, plan=plan)
            except PbemError:
                continue    # too big to compute here: no odds for this battle
            out.append(PlannedBattle(area, nation, other, a_side, d_side, rs.hiland(area), plan, o))
    return out
