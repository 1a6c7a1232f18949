"""Rules of the Fantasy Flight 2nd edition (ruleset `ffg2`) that the classic code has no place for.

Each function runs only when the ruleset's data asks for it (ruleset.yaml `features`, constants or
extras tables), so the classic ruleset never reaches them. "FFG n" cites the numbered differences
shown by `pbem rules show ffg2`; "doubt n" the numbered readings there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from pbem.errors import OrderProblem
from pbem.i18n import _
from pbem.records import record
from pbem.rules import kingship, movement
from pbem.rules.battle_model import BattleModel
from pbem.rules.context import ROUND_CLOSE_OWED, NationTurn, TurnContext
from pbem.rules.events import Event, make
from pbem.rules.movement import PlannedMove, problem, units_after_moves
from pbem.rules.orders import Move
from pbem.rules.population import free_armies, pieces_in_play
from pbem.rules.ruleset import Ruleset
from pbem.rules.rulesets.classic import ClassicConstants, ClassicRules, reinforce_at_sea, remove_armies
from pbem.rules.scoring import capture_scorer, score_capture_areas, sole_occupant
from pbem.rules.stacking import can_add, land_counts, normal_limit, over_limit
from pbem.rules.state import GameState
from pbem.rules.submission import revolt

ATTACKED_SUCCESSOR = "attacked_romano_british"   # GameState.extras: who attacked the R-B (FFG 41, 52)
SUBMITTED_TO_EMPIRE = "submitted_to_rome"        # GameState.extras: who ever submitted to Rome (FFG 41)


def roman_reinforcements(ctx: TurnContext) -> bool:
    """FFG 31 — in rounds 2-5 the Romans get reinforcements by the table keyed to their armies on the
    board (at sea included), placed in the English Channel. False when the ruleset has no table."""
    table = ctx.rs.extras.get("roman_reinforcements")
    if not ctx.rs.feature("roman_reinforcement_table") or table is None:
        return False
    rome, sea = ctx.rs.role("empire"), ctx.rs.role("empire_sea")
    if ctx.nation != rome:
        return True
    rows = table.get(ctx.state.round)
    if not rows:
        return True
    have, _ = pieces_in_play(ctx, rome)
    n = next((k for lo, hi, k in rows if lo <= have <= hi), 0)
    n = min(n, free_armies(ctx, rome))
    if n:
        ctx.state.stack(sea, rome).armies += n
        ctx.emit("reinforced", nation=rome, sea=sea, armies=n)
    return True


def legion_withdrawal(ctx: TurnContext) -> None:
    """FFG 32 — at the end of the Roman turn of round 2 the Romans cut down to 12 armies."""
    rule, rome = ctx.rs.const.roman_legion_withdrawal, ctx.rs.role("empire")
    if not ctx.rs.feature("legion_withdrawal") or not rule or ctx.nation != rome or ctx.state.round != rule.round:
        return
    have, _ = pieces_in_play(ctx, rome)
    if have > rule.keep:
        removed = remove_armies(ctx, rome, have - rule.keep)
        ctx.emit("legions_withdrawn", nation=rome, removed=removed)


def leader_brings_armies(ctx: TurnContext, leader: str, area: str) -> None:
    """FFG 34 — Boudicca's revolt: she enters with 1 extra army in the Belgae area where she appears,
    ignoring stacking (nations.yaml `arrives_with: {armies: 1}`). FFG 39 — Arthur's 2 cavalry enter
    with him, in his area, ignoring stacking (`arrives_with: {cavalry: 2}`)."""
    n = ctx.rs.extras.get("leader_armies", {}).get(leader, 0) if ctx.rs.feature("leaders_bring_armies") else 0
    if n:
        n = min(n, free_armies(ctx, ctx.nation))
    if n:
        ctx.state.stack(area, ctx.nation).armies += n
        ctx.emit("revolt", nation=ctx.nation, leader=leader, area=area, armies=n)
    cav = leader_cavalry(ctx.rs, leader)
    if cav:
        cav = min(cav, max(0, ctx.rs.nations[ctx.nation].max_cavalry - pieces_in_play(ctx, ctx.nation)[1]))
    if cav:
        ctx.state.stack(area, ctx.nation).cavalry += cav
        ctx.emit("reinforced", nation=ctx.nation, cavalry=cav, areas=[area] * cav)


def leader_cavalry(rs: Ruleset, leader: str) -> int:
    """FFG 39 — the cavalry that enter with this leader (Arthur: 2), when the ruleset asks for it."""
    return rs.extras.get("leader_cavalry", {}).get(leader, 0) if rs.feature("leaders_bring_cavalry") else 0


def cavalry_enter_with_leader(rs: Ruleset, state: GameState, nation: str) -> bool:
    """FFG 39 — the nation's reinforcement cavalry of this round enter with its leader (Arthur), not
    "placed as Increase Population" as classic 10.5 has them."""
    return any(nat == nation and leader_cavalry(rs, leader) for nat, leader in rs.round_info(state.round).leaders)


def leader_entry_areas(ctx: TurnContext, leader: str) -> list[str]:
    """FFG 39 — with no army of his nation on the board, Arthur and his cavalry enter together an empty
    area south of Cumbria, Pennines and Bernicia (ruleset.yaml `south_of_york`); other leaders never
    enter alone (rule 9.0)."""
    if not leader_cavalry(ctx.rs, leader):
        return []
    return [a for a in ctx.rs.constants_list("south_of_york") if not ctx.state.nations_in(a)]


def build_burhs(ctx: TurnContext, spare: int) -> int:
    """FFG 27, doubt 5 — in rounds 12 and 13 a new Saxon infantry that cannot be raised (no room under
    the stacking limits or one per area, or no counter free) is built as a burh instead, in a Saxon
    land area without one (the largest Saxon stack first), up to the 8 burh counters. Returns how many."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    nat = rs.nations[nation]
    if spare <= 0 or not nat.max_burhs or state.round not in rs.const.burhs_rounds:
        return 0
    have = sum(s.burhs for st in state.areas.values() for k, s in st.items() if k == nation)
    areas = sorted((a for a in state.areas_of(nation) if rs.is_land(a) and not state.areas[a][nation].burhs
                    and state.areas[a][nation].units),
                   key=lambda a: (-state.areas[a][nation].units, a))
    built = []
    for area in areas:
        if len(built) >= spare or have + len(built) >= nat.max_burhs:
            break
        state.areas[area][nation].burhs += 1
        built.append(area)
    if built:
        ctx.emit("burhs_built", nation=nation, areas=built)
    return len(built)


def raid_turn(rs: Ruleset, rnd: int, nation: str) -> bool:
    """FFG 17 — the nation raids in round `rnd`: it has raiders arriving then (timeline.yaml arrivals)."""
    return any(a.nation == nation and a.raider for a in rs.round_info(rnd).arrivals)


def must_come_ashore(ctx: TurnContext) -> bool:
    """FFG 18 — after this movement phase the nation's armies may not be at sea: they may stay there only
    in a raid turn or in the first half of a major invasion (feature invaders_must_land)."""
    rs, nation = ctx.rs, ctx.nation
    if not rs.feature("invaders_must_land") or raid_turn(rs, ctx.state.round, nation):
        return False
    return nation not in rs.round_info(ctx.state.round).major_invasions or ctx.cycle == 2


def invaders_left_at_sea(ctx: TurnContext) -> None:
    """FFG 18, doubt 22 — armies (and leaders) still at sea at the end of a movement phase that had to
    bring them ashore are lost: the FFG text says they must land and gives them no way to stay
    (pbem.rules.movement.invaders_left_at_sea, with Ffg2Rules.must_come_ashore)."""
    movement.invaders_left_at_sea(ctx)


def must_return_to_sea(ctx: TurnContext) -> bool:
    """FFG 43 — in round 11 every Danish raider must go back to sea (no SETTLE)."""
    rnd = ctx.rs.const.danes_return_to_sea_round
    return bool(ctx.rs.feature("danes_must_return_to_sea")) and ctx.nation == ctx.rs.role("withdrawing") and ctx.state.round == rnd


def captures_held_at_withdrawal(ctx: TurnContext) -> set[str] | None:
    """FFG 43, doubt 23 — the Danish card of round 11 pays 2 for every area the Danes hold (sole
    occupant) when their Raider Withdrawal begins, not for the areas entered during the turn (feature
    `danes_capture_at_withdrawal`); once per area per game as every capture (FFG 51)."""
    if not (ctx.rs.feature("danes_capture_at_withdrawal") and must_return_to_sea(ctx)):
        return None
    state = ctx.state
    return {a for a, stacks in state.areas.items()
            if ctx.nation in stacks and ctx.rs.is_land(a) and sole_occupant(state, a) == ctx.nation}


def remove_overstacked(ctx: TurnContext) -> None:
    """FFG 39 (and 34), doubt 25 — units that entered ignoring stacking (Arthur's cavalry, Boudicca's
    army) may move on; what is still over the limits at the end of the movement phase (15.1) is
    removed: one unit at a time from the breaking area nearest its limit (then by name), ordinary
    armies before cavalry, until the stacks are within the limits (feature `overstacked_removed`).
    Moves that themselves bring units into a breaking area are refused as ever (movement.py)."""
    if not ctx.rs.feature("overstacked_removed"):
        return
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    counts = land_counts(rs, state, nation)
    removed: dict[str, int] = {}
    while bad := over_limit(rs, nation, counts):
        area = min(bad, key=lambda a: (counts[a] - (normal_limit(rs, nation, a) or 0), a))
        s = state.areas[area][nation]
        if s.armies:
            s.armies -= 1
            s.raiders = min(s.raiders, s.armies)
        else:
            s.cavalry -= 1
        counts[area] -= 1
        removed[area] = removed.get(area, 0) + 1
    if removed:
        ctx.emit("overstacked", nation=nation, removed=removed)


def rb_cavalry_become_infantry(rs: Ruleset, state: GameState, events: list) -> None:
    """FFG 40 — at the start of round 8 (Arthur leaves) the Romano-British cavalry become infantry;
    the cavalry counters may serve as infantry beyond the usual 8 (so the converted armies are kept
    even when 8 infantry are already on the board: see `army_piece_limit`, doubt 21)."""
    if state.round != rs.feature("rb_cavalry_become_infantry"):
        return
    changed, successor = 0, rs.role("successor")
    for st in state.areas.values():
        s = st.get(successor)
        if s and s.cavalry:
            changed += s.cavalry
            s.armies += s.cavalry
            s.cavalry = 0
    if changed:
        events.append(make("cavalry_became_infantry", round=state.round, nation=successor,
                       units=changed))


def army_piece_limit(rs: Ruleset, nation: str, rnd: int) -> int:
    """FFG 40, doubt 21 — how many armies (infantry) the nation may have on the board in round `rnd`.

    The counter mix (max_armies), except for the Romano-British from the conversion round on: their
    cavalry counters then serve as infantry beyond the usual 8, so up to max_armies + max_cavalry may
    stand on the board. Population increase still raises them only while fewer than max_armies are on
    the board (doubt 21: FFG 11, cavalry is never raised from population), so the armies beyond the
    usual number are only the converted cavalry."""
    nat = rs.nations[nation]
    since = rs.feature("rb_cavalry_become_infantry")
    if since and nation == rs.role("successor") and rnd >= since:
        return nat.max_armies + max(nat.max_cavalry, 0)
    return nat.max_armies


def turn16_saxons(rs: Ruleset, state: GameState, events: list) -> None:
    """FFG 45, doubt 13 (PROVISIONAL) — round 16: while Harold lives the Saxons get one infantry per 2
    English areas they hold, placed in the Frisian Sea."""
    per = rs.feature("turn16_saxons_per_english_areas")
    harold = rs.role("rival")
    if not per or harold in state.dead_leaders:
        return
    saxons = rs.nation_of_leader(harold)
    held = sum(1 for a in rs.english_areas() if sole_occupant(state, a) == saxons)
    reinforce_at_sea(rs, state, events, saxons, "frisian_sea", held // per)   # the sea: no role names it yet


def capped_holdings(rs: Ruleset, nation: str, points: dict[str, int]) -> tuple[dict[str, int], int]:
    """FFG 54, doubt 15 — score limits on a scoring round's holding points: Welsh points outside Wales,
    Saxon points in Wales and Angle points in Scotland are at most half the nation's points in its base
    region (halves down). Returns the area points to score (the capped part dropped from the last
    areas) and how many points were dropped."""
    rule = (rs.scoring.get("score_limits") or {}).get(nation)
    if not rule:
        return points, 0
    base = sum(p for a, p in points.items() if rs.region(a) in rule["base"])
    return _points_within(points, base // 2, lambda area: rs.region(area) in rule["capped"])


def _points_within(points: dict[str, int], budget: int, counted=lambda area: True) -> tuple[dict[str, int], int]:
    """Area points scored when the `counted` areas together may give at most `budget` points: taken in
    area order, what is over the budget dropped from the last areas (the others score in full). Returns
    the area points to score and how many points were dropped."""
    out, dropped, taken = {}, 0, 0
    for area in sorted(points):
        p = points[area]
        if counted(area):
            take = max(0, min(p, budget - taken))
            taken += take
            dropped += p - take
            if take:
                out[area] = take
        else:
            out[area] = p
    return out, dropped


def subject_half_holdings(rs: Ruleset, state: GameState, nation: str) -> bool:
    """FFG 36 — a nation subject to Rome scores half its holding points (the others of its card
    stay barred as classic 11.1)."""
    return bool(rs.feature("subject_half_holdings")) and state.subjects.get(nation) == rs.role("empire")


def halved_holdings(points: dict[str, int]) -> tuple[dict[str, int], int]:
    """FFG 36 — half the holding points, halves up; the other half is dropped from the last areas.
    Returns the area points to score and how many points were dropped."""
    return _points_within(points, (sum(points.values()) + 1) // 2)


def leader_escape(ctx: TurnContext, area: str, nation: str, leader: str) -> str | None:
    """FFG 23 — when a leader's last army in a battle is lost, the leader first retreats to an adjacent
    land area holding its own armies (the largest such stack, then by name), else it dies. Moves it
    and returns where, or None (feature `leader_escapes` off, or nowhere to go)."""
    rs, state = ctx.rs, ctx.state
    if not rs.feature("leader_escapes"):
        return None
    havens = [a for a in sorted(rs.neighbours(area))
              if rs.is_land(a) and (s := state.get(a, nation)) and s.fighters]
    if not havens:
        return None
    to = max(havens, key=lambda a: state.areas[a][nation].units)
    state.get(area, nation).leaders.remove(leader)
    state.stack(to, nation).leaders.append(leader)
    ctx.emit("leader_escaped", area=area, nation=nation, leader=leader, to=to)
    return to


def overrun_origins(ctx: TurnContext, area: str) -> list[str]:
    """FFG 29 — the areas from which the attacker's armies of this movement entered the battle area on
    their way through it (they overran it without stopping: rule 5.3); empty without the feature
    `retreat_barred_by_overrunners`."""
    if not ctx.rs.feature("retreat_barred_by_overrunners"):
        return []
    return [m.path[i - 1] for m in ctx.moves
            if m.nation == ctx.nation and m.kind != "leader" and m.cycle == ctx.cycle and not m.withdrawal
            for i in range(1, len(m.path) - 1) if m.path[i] == area]


def captures_in_other_turn(ctx: TurnContext) -> None:
    """FFG 51 — a land is captured when only that nation's units are in it at any moment of the round:
    the empty areas other nations entered in this turn (a defender's retreat) score their capture points
    as in their own turn (feature `captures_in_any_turn`). The empire's capture points (Roman card,
    rounds 1-3) are earned in its own turn only, so it is left out, a subject's captures for it too."""
    if not ctx.rs.feature("captures_in_any_turn"):
        return
    empire = ctx.rs.role("empire")
    for nation in sorted(ctx.entered_by_others):
        if nation != ctx.nation and capture_scorer(ctx.rs, ctx.state, nation)[0] != empire:
            score_capture_areas(ctx, nation, ctx.entered_by_others[nation])


def note_attack_on_romano_british(ctx: TurnContext, defender: str) -> None:
    """FFG 41, 52 — remember the nations that attacked the Romano-British (the R-B may then attack them
    before round 8, and score their card line for such a nation's armies if it had submitted to Rome)."""
    if defender == ctx.rs.role("successor") and ctx.rs.feature("rb_attack_limit_until"):
        ctx.state.extras.setdefault(ATTACKED_SUCCESSOR, set()).add(ctx.nation)


def note_submission_to_empire(rs: Ruleset, state: GameState, nation: str, to: str) -> None:
    """FFG 41 — remember every nation that submits to Rome (the Romano-British may not attack it before
    round 8, even after the subjection ended with the Roman departure or a revolt). A sorted list: the
    saved position reads it back as it was written."""
    if to == rs.role("empire") and rs.feature("rb_attack_limit_until") and rs.feature("rb_attack_limit_by_submission"):
        state.extras[SUBMITTED_TO_EMPIRE] = sorted({*state.extras.get(SUBMITTED_TO_EMPIRE, ()), nation})


def submitted_to_empire(rs: Ruleset, state: GameState, nation: str) -> bool:
    """FFG 41, doubt 24 — the nation submitted to Rome at some time in this game (or is subject to it)."""
    return nation in state.extras.get(SUBMITTED_TO_EMPIRE, ()) or state.subjects.get(nation) == rs.role("empire")


def attacked_romano_british_first(state: GameState, nation: str) -> bool:
    """FFG 41 — the nation attacked the Romano-British, so the round-8 limit no longer shields it."""
    return nation in state.extras.get(ATTACKED_SUCCESSOR, ())


def subjects_that_attacked_successor(rs: Ruleset, state: GameState) -> frozenset[str]:
    """FFG 52 — the nations subject to Rome that attacked the Romano-British (their card line)."""
    return frozenset(n for n in state.extras.get(ATTACKED_SUCCESSOR, ()) if state.subjects.get(n) == rs.role("empire"))


# --- ffg-out (issue 28 item 5): FFG behaviour the generic movement, submission, scoring and messages ask for ---
def road_cost(rs: Ruleset, state: GameState, nation: str, path) -> int:
    """FFG 16 — Roman roads: a step between two road areas (an intact Roman fort, or land of a nation
    subject to Rome without a destroyed fort) costs nothing; any other step costs one move."""
    if nation != rs.role("empire") or not rs.feature("roman_roads"):
        return len(path) - 1

    def road(a: str) -> bool:
        if not rs.is_land(a):
            return False
        st = state.get(a, nation)
        if st and st.fort:
            return True
        destroyed = a in state.forts_built
        return not destroyed and any(state.subjects.get(n) == nation for n in state.nations_in(a))

    return sum(1 for a, b in zip(path, path[1:]) if not (road(a) and road(b)))



def leaders_never_alone(ctx: TurnContext, planned: list[PlannedMove]) -> list[OrderProblem]:
    """FFG 23 — a leader may never be in an area without its nation's armies: moving alone (not on its
    escort's path) it may pass only through areas its nation's units hold at the start of the movement,
    and it may not end the movement (nor be left by its armies) in an area without them. A leader that
    is already alone and does not move is left as it is (feature leader_never_alone)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if not rs.feature("leader_never_alone"):
        return []
    units, after, out_of, moved = units_after_moves(state, nation, planned)
    problems = []
    for leader, area in state.leaders_on_board(nation).items():
        m = moved.get(leader)
        if m is not None:
            escorted = any(p.order.kind != "leader" and p.order.path == m.path for p in planned)
            through = [a for a in m.path[1:-1] if not units.get(a)]
            if through and not escorted:
                problems.append(problem("not-now", m, f"{rs.display(leader)} may not pass alone through "
                                         f"{rs.display(through[0])}: no {rs.nations[nation].name} units there (FFG 23)"))
            elif after.get(m.path[-1], 0) <= 0:
                problems.append(problem("not-now", m, f"{rs.display(leader)} may not end the move in "
                                         f"{rs.display(m.path[-1])} without {rs.nations[nation].name} armies (FFG 23)",
                                         "move the leader with its armies or to an area they hold"))
        elif units.get(area) and after.get(area, 0) <= 0:
            problems.append(problem("not-now", out_of[area], f"{rs.display(leader)} would be left alone in "
                                     f"{rs.display(area)}: a leader may not be without its nation's armies (FFG 23)",
                                     f"move {rs.display(leader)} too, or keep a unit in {rs.display(area)}"))
    return problems


def subject_may_not_vacate(ctx: TurnContext, planned: list[PlannedMove]) -> list[OrderProblem]:
    """FFG 36 — a nation subject to Rome may not leave empty, at the end of its movement, a land area its
    armies held at the start of it, unless the Romans allow it (ALLOW <nation>: the same permission as
    full growth, for the game turn; feature subject_may_not_vacate)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if not rs.feature("subject_may_not_vacate") or state.subjects.get(nation) != rs.role("empire") \
            or nation in rs.rules.permitted_subjects(state):
        return []
    units, after, out_of, _ = units_after_moves(state, nation, planned)
    problems = []
    for area, m in out_of.items():
        if rs.is_land(area) and area in units and after[area] <= 0:
            problems.append(problem("not-now", m, f"the {rs.nations[nation].name} are subject to the "
                                     f"{rs.display(rs.role('empire'))}: they may not leave {rs.display(area)} empty "
                                     "without the Romans' ALLOW (FFG 36)", f"keep one unit in {rs.display(area)}"))
    return problems


def way_out_of_subject_area(ctx: TurnContext, area: str, nation: str, subject: str) -> str | None:
    """FFG 36 — Roman armies in an area of a nation that submits withdraw at once: to a bordering area
    the Romans hold, else a bordering empty area; else to a Roman area, else an empty one, bordering any
    area of the subject; else they are lost. Within each step the area they came from first, then by
    name; always within the Roman stacking limit (4 in difficult terrain)."""
    rs, state = ctx.rs, ctx.state
    count = state.get(area, nation).units
    came = [m.came_from for m in reversed(ctx.moves) if m.nation == nation and m.dest == area and not m.withdrawal]

    def neighbours(a: str) -> set[str]:
        return {b for b in rs.areas[a].land | rs.areas[a].straits if rs.is_land(b)}

    near = neighbours(area)
    around = set().union(*(neighbours(a) for a in state.areas_of(subject) if rs.is_land(a))) - {area}
    for pool in (near, around):
        for wanted in ([nation], []):
            fits = [b for b in pool if state.occupants(b) == wanted and can_add(rs, state, nation, b, count, leaving=area)]
            for b in [c for c in came if c in fits] + sorted(fits):
                return b
    return None


def subjects_at_peace(ctx: TurnContext, m: Move, defender: str) -> OrderProblem | None:
    """FFG 36 — nations subject to Rome may not attack one another (feature subjects_at_peace)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    over = state.subjects.get(nation)
    if rs.feature("subjects_at_peace") and over == rs.role("empire") and state.subjects.get(defender) == over:
        return problem("not-now", m, f"the {rs.nations[defender].name} are subject to the {rs.display(over)} as you "
                                     "are: you may not attack them (FFG 36)")
    return None


class Ffg2Answers:
    """FFG 16, 18, 23, 35, 36, 43, 44 — the Ffg2Rules methods of the generic rules' questions (road cost,
    movement checks, submission, captures) and the replies that cite the FFG rules, mixed into Ffg2Rules."""

    RULE_REFS: ClassVar[Mapping[str, str]] = MappingProxyType({
        "overlord_stranded": "FFG 36",   # lost_leaving_subject_area
        "come_ashore": "FFG 18",         # lost_at_sea
    })

    UNMAPPED_CITATION: ClassVar[Mapping[str, str]] = MappingProxyType({
        "en": "shared classic {word} {sections}", "ru": "{word} {sections} (общие с классическими)",
        "bare": "classic {sections}"})
    """Issue 30 item 5 — a classic section the FFG rules share unchanged is cited so."""

    def citation_table(self, rs: Ruleset) -> Mapping[str, str]:
        """Classic section -> the FFG difference that replaces it (ruleset.yaml `citations`)."""
        return rs.extras.get("citations") or {}

    def road_cost(self, rs: Ruleset, state: GameState, nation: str, path) -> int:
        """FFG 16 — Roman roads."""
        return road_cost(rs, state, nation, path)

    def stay_at_sea_refusal(self, rs: Ruleset, nation: str) -> tuple[str, str]:
        """FFG 18 — armies may stay at sea only in a raid turn or the first half of a major invasion."""
        return (f"the {rs.nations[nation].name} may stay at sea only in a raid turn "
                "or the first half of a major invasion (FFG 18)",
                "land them: armies still at sea after this movement are lost")

    def movement_problems(self, ctx: TurnContext, planned) -> list[OrderProblem]:
        """FFG 36 (a subject of Rome may not leave its areas empty), then FFG 23 (a leader never alone)."""
        return subject_may_not_vacate(ctx, planned) + leaders_never_alone(ctx, planned)

    def attack_barred(self, ctx: TurnContext, move: Move, defender: str) -> OrderProblem | None:
        """FFG 36 — subjects of Rome are at peace with one another."""
        return subjects_at_peace(ctx, move, defender)

    def captures_scored_by(self, rs: Ruleset, state: GameState, nation: str) -> str | None:
        """FFG 36 — the captures of a nation subject to Rome go to the Romans, by the Roman card, as if
        Roman armies took the areas (feature subject_captures_for_rome)."""
        empire = rs.role("empire")
        if rs.feature("subject_captures_for_rome") and state.subjects.get(nation) == empire:
            return empire
        return None

    def overlord_way_out(self, ctx: TurnContext, area: str, overlord: str, subject: str) -> str | None:
        """FFG 36 — where the Roman armies caught in a subject's area go (feature subject_withdrawal_ffg)."""
        if ctx.rs.feature("subject_withdrawal_ffg"):
            return way_out_of_subject_area(ctx, area, overlord, subject)
        return super().overlord_way_out(ctx, area, overlord, subject)

    def stranded_overlord_lost(self, rs: Ruleset) -> bool:
        """FFG 36 — nowhere to go: the armies are lost (feature subject_withdrawal_ffg)."""
        return bool(rs.feature("subject_withdrawal_ffg")) or super().stranded_overlord_lost(rs)

    def settle_refusal(self, ctx: TurnContext) -> str:
        """FFG 43 — in round 11 every Danish raider goes back to sea."""
        return (f"the {ctx.rs.nations[ctx.nation].name} may not settle in round {ctx.state.round}: every raider "
                "goes back to sea (FFG 43)")

    def overlord_turn_note(self, rs: Ruleset, nation: str, to: str) -> str:
        """FFG 35 — submission to Rome only during the Roman turn."""
        return (f"the {rs.nations[nation].name} may submit to the {rs.display(to)} only during the "
                f"{rs.display(to)}' turn (FFG 35): a SUBMIT sent before that turn is read then")

    def leaders_withdrawn(self, rs: Ruleset) -> tuple[str, ...]:
        """FFG 44, doubt 12 — Cnut stays (feature danes_withdrawal_exact); else rule 10.6."""
        return () if rs.feature("danes_withdrawal_exact") else super().leaders_withdrawn(rs)

    def arrival_note(self, rs: Ruleset, raiders: bool) -> str:
        """FFG 18 — invaders must be ashore after the movement (feature invaders_must_land)."""
        if raiders or not rs.feature("invaders_must_land"):
            return ""
        return (" (they must be ashore after the movement, the second one in a major invasion: armies "
                "left at sea are lost, FFG 18)")


@record
class LegionWithdrawal:
    """FFG 32 — at the end of the Roman turn of `round` the Romans cut down to `keep` armies."""

    round: int
    keep: int


@record(kw_only=True)
class Ffg2Constants(ClassicConstants):
    """ruleset.yaml `constants` of the FFG 2nd edition beyond the classic ones."""

    roman_legion_withdrawal: LegionWithdrawal   # FFG 32
    danes_return_to_sea_round: int              # FFG 43
    burhs_rounds: tuple[int, ...]               # FFG 27


class Ffg2Rules(Ffg2Answers, ClassicRules):
    """The FFG 2nd edition: the classic rules with the differences above, each run only when the
    ruleset's data asks for it (ruleset.yaml `features`, constants, extras tables)."""

    name = "ffg2"
    constants_class = Ffg2Constants
    refusal_phrases = (   # FFG 18, 23, 36, 41: this family's own refusals, in a player's language
        (r'^the (?P<nation>.+) are subject to the (?P<b>.+) as you are: you may not attack them \(FFG 36\)$',
         _('the %(nation)s are subject to the %(b)s as you are: you may not attack them (FFG 36)')),
        (r"^the (?P<nation>.+) are subject to the (?P<b>.+): they may not leave (?P<area>.+) empty without the (?P<a>.+)' ALLOW \(FFG 36\)$",
         _("the %(nation)s are subject to the %(b)s: they may not leave %(area)s empty without the %(a)s' ALLOW (FFG 36)")),
        (r'^(?P<leader>.+) may not pass alone through (?P<area>.+): no (?P<nation>.+) units there \(FFG 23\)$',
         _('%(leader)s may not pass alone through %(area)s: no %(nation)s units there (FFG 23)')),
        (r"^(?P<leader>.+) would be left alone in (?P<area>.+): a leader may not be without its nation's armies \(FFG 23\)$",
         _("%(leader)s would be left alone in %(area)s: a leader may not be without its nation's armies (FFG 23)")),
        (r'^(?P<leader>.+) may not end the move in (?P<area>.+) without (?P<nation>.+) armies \(FFG 23\)$',
         _('%(leader)s may not end the move in %(area)s without %(nation)s armies (FFG 23)')),
        (r"^the (?P<nation>.+) may stay at sea only in a raid turn or the first half of a major invasion \(FFG 18\)$",
         _('the %(nation)s may stay at sea only in a raid turn or the first half of a major invasion (FFG 18)')),
        (r"^the (?P<nation>.+) may not attack the (?P<b>.+): they submitted to (?P<a>.+) \(FFG 41: not before round (?P<round>\d+), unless they attacked the (?P<rest>.+) first\)$",
         _('the %(nation)s may not attack the %(b)s: they submitted to %(a)s (FFG 41: not before round %(round)s, unless they attacked the %(rest)s first)')),
    )

    def roman_reinforcements(self, ctx: TurnContext) -> None:
        """FFG 31 — in the Roman reinforcement rounds the table replaces rule 10.3."""
        rs = ctx.rs
        if (ctx.nation == rs.role("empire") and ctx.state.round in rs.const.roman_reinforce_rounds
                and roman_reinforcements(ctx)):
            return
        super().roman_reinforcements(ctx)

    def population_count(self, ctx: TurnContext, value: float) -> float:
        """FFG 36 — a subject of Rome (allowed to increase by feature `subject_half_population`) gets
        half its points, halves up, unless the Romans allowed it the whole count."""
        state, nation = ctx.state, ctx.nation
        if nation in state.subjects and nation not in self.permitted_subjects(state):
            return math.ceil(value / 2)
        return value

    def armies_not_raised(self, ctx: TurnContext, spare: int) -> int:
        """FFG 27, doubt 5 — in rounds 12 and 13 the Saxon infantry not raised is built as burhs."""
        return build_burhs(ctx, spare)

    def army_piece_limit(self, rs: Ruleset, nation: str, rnd: int) -> int:
        """FFG 40, doubt 21 — the R-B cavalry counters serve as infantry from the conversion round on."""
        return army_piece_limit(rs, nation, rnd)

    def leader_arrives(self, ctx: TurnContext, leader: str, area: str) -> None:
        """FFG 34 — Boudicca enters with 1 extra army (nations.yaml `arrives_with`)."""
        leader_brings_armies(ctx, leader, area)

    def leader_entry_areas(self, ctx: TurnContext, leader: str) -> list[str]:
        """FFG 39 — Arthur (and his cavalry) may enter an empty area south of York."""
        return leader_entry_areas(ctx, leader)

    def reinforcements_enter_with_leader(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """FFG 39 — the Romano-British reinforcement cavalry enter with Arthur."""
        return cavalry_enter_with_leader(rs, state, nation)

    def raid_turn(self, rs: Ruleset, rnd: int, nation: str) -> bool:
        """FFG 17 — the nation raids in round `rnd` (raiders arriving then)."""
        return raid_turn(rs, rnd, nation)

    def must_come_ashore(self, ctx: TurnContext) -> bool:
        """FFG 18 — armies may stay at sea only in a raid turn or the first half of a major invasion."""
        return must_come_ashore(ctx)

    def after_movement(self, ctx: TurnContext) -> None:
        """FFG 18, doubt 22 — armies still at sea that had to land are lost; FFG 39, doubt 25 — what is
        still over the stacking limits is removed; then the classic steps (16.251, 11.1)."""
        invaders_left_at_sea(ctx)
        remove_overstacked(ctx)
        super().after_movement(ctx)

    def excess_stacking_removed(self, rs: Ruleset) -> bool:
        """FFG 39, doubt 25 — a nation over the limits by an entry ignoring stacking is not refused its
        movement: the excess is removed after it (feature `overstacked_removed`)."""
        return bool(rs.feature("overstacked_removed"))

    def nation_submitted(self, rs: Ruleset, state: GameState, nation: str, to: str) -> None:
        """FFG 41 — the position remembers who submitted to Rome."""
        note_submission_to_empire(rs, state, nation, to)

    def shielded_from_successor(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """FFG 41, doubt 24 — before round 8 the Romano-British may not attack a nation that submitted to
        Rome (not the fixed list of rule 10.5), unless it attacked them first."""
        until = rs.feature("rb_attack_limit_until")
        if not until:
            return super().shielded_from_successor(rs, state, nation)
        # data version 1: the AH 10.5 list (Brigantes, Welsh) instead of the record of submissions
        by_submission = rs.feature("rb_attack_limit_by_submission")
        return ((submitted_to_empire(rs, state, nation) if by_submission else super().shielded_from_successor(rs, state, nation))
                and state.round < until and not attacked_romano_british_first(state, nation))

    def retreat_barred_origins(self, ctx: TurnContext, area: str, origins: list[str]) -> list[str]:
        """FFG 29 — nor into an area from which attacking armies overran through the battle area."""
        return origins + overrun_origins(ctx, area)

    def successor_shield_reason(self, rs: Ruleset, nation: str) -> str:
        """FFG 41 — the reply names the nation and why it is shielded (data version 1: the AH 10.5 reply)."""
        if not rs.feature("rb_attack_limit_by_submission"):
            return super().successor_shield_reason(rs, nation)
        return (f"the Romano-British may not attack the {rs.nations[nation].name}: they submitted to Rome "
                f"(FFG 41: not before round {rs.feature('rb_attack_limit_until')}, unless they attacked the Romano-British first)")

    def battle_begins(self, ctx: TurnContext, defender: str) -> None:
        """FFG 41, 52 — remember the nations that attacked the Romano-British."""
        note_attack_on_romano_british(ctx, defender)

    def leader_escape(self, ctx: TurnContext, area: str, nation: str, leader: str) -> str | None:
        """FFG 23 — a leader whose last army is lost first retreats to an adjacent area of its own."""
        return leader_escape(ctx, area, nation, leader)

    def captures_held_at_withdrawal(self, ctx: TurnContext) -> set[str] | None:
        """FFG 43 — Danes, round 11: 2 for every area held as the Raider Withdrawal begins."""
        return captures_held_at_withdrawal(ctx)

    def raiders_may_settle(self, ctx: TurnContext) -> bool:
        """FFG 43 — in round 11 every Danish raider must go back to sea (no SETTLE)."""
        return not must_return_to_sea(ctx)

    def captures_in_other_turn(self, ctx: TurnContext) -> None:
        """FFG 51 — an empty area entered in another nation's turn is captured too."""
        captures_in_other_turn(ctx)

    def after_nation_turn(self, ctx: TurnContext) -> None:
        """FFG 32 (legion withdrawal, end of the Roman turn 2), then the classic turn-14 steps."""
        legion_withdrawal(ctx)
        super().after_nation_turn(ctx)

    def danes_withdrawal(self, ctx: TurnContext, exact: bool = False) -> None:
        """FFG 44, doubt 12 (feature `danes_withdrawal_exact`): 4 armies, no shortfall, Cnut stays."""
        super().danes_withdrawal(ctx, exact or bool(ctx.rs.feature("danes_withdrawal_exact")))

    def round_start_conversions(self, rs: Ruleset, state: GameState, events: list) -> None:
        """FFG 40 — at the start of round 8 the Romano-British cavalry become infantry."""
        rb_cavalry_become_infantry(rs, state, events)

    def turn16_arrivals(self, rs: Ruleset, state: GameState, events: list) -> None:
        """Rule 10.7, then FFG 45 (the Saxons' turn-16 infantry)."""
        super().turn16_arrivals(rs, state, events)
        if state.round == rs.const.max_rounds:
            turn16_saxons(rs, state, events)

    def subject_scores_half(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """FFG 36 — a nation subject to Rome scores half its holding points."""
        return subject_half_holdings(rs, state, nation)

    def limit_holdings(self, rs: Ruleset, state: GameState, nation: str, held: dict[str, int],
                       half: bool) -> tuple[dict[str, int], int]:
        """FFG 54 score limits, then FFG 36 (a subject of Rome scores half)."""
        held, dropped = capped_holdings(rs, nation, held)
        if half:
            held, halved = halved_holdings(held)
            dropped += halved
        return held, dropped

    def subjects_that_attacked_successor(self, rs: Ruleset, state: GameState) -> frozenset[str]:
        """FFG 52 — the subjects of Rome that attacked the Romano-British (their card line)."""
        return subjects_that_attacked_successor(rs, state)

    def limes_held(self, rs: Ruleset, state: GameState, area: str, holder: str | None, subject_of: str | None) -> bool:
        """FFG 37 (feature `limes_by_forts`) — an intact Roman fort, or a subject nation, in the area."""
        if not rs.feature("limes_by_forts"):
            return super().limes_held(rs, state, area, holder, subject_of)
        empire = rs.role("empire")
        st = state.get(area, empire)
        return bool(st and st.fort) or (holder is not None and subject_of == empire)

    # --- sequence of play (issue 28 item 1: the FFG steps of the nation turn and the round) -----------
    def departure_areas(self, rs: Ruleset) -> tuple[str, ...] | None:
        """FFG 38 — at the Roman departure only the areas south of York and Cheshire (ruleset.yaml
        `rb_departure_areas`) are replaced, each surviving fort there first; data without the list:
        every area, as classic 10.5."""
        return tuple(rs.constants_list("rb_departure_areas")) or None

    def population_phase(self, t: NationTurn) -> None:
        """FFG 34 — the Belgae revolt before the population increase; then the classic phase; then
        FFG 17 — who is a raider this turn (`raid_turn_raiders`)."""
        revolt(t.ctx)
        super().population_phase(t)
        raid_turn_raiders(t.ctx)

    def subject_may_increase(self, ctx: TurnContext, nation: str) -> bool:
        """FFG 36 (feature `subject_half_population`) — a subject of Rome always increases, at half its
        points (`population_count`) unless allowed the whole count."""
        return bool(ctx.rs.feature("subject_half_population")) or super().subject_may_increase(ctx, nation)

    def one_new_army_per_area(self, rs: Ruleset) -> bool:
        """FFG 10, doubt 4 (feature `one_new_army_per_area`) — never a second new infantry in one area
        (Arthur's cavalry may)."""
        return bool(rs.feature("one_new_army_per_area"))

    def raider_route(self, ctx: TurnContext, route: list[str]) -> list[str]:
        """FFG 17 (feature `raiders_withdraw_freely`) — raiders go straight back to their sea, whatever
        lies between."""
        return route[-1:] if ctx.rs.feature("raiders_withdraw_freely") else route

    def crowns_at_end(self, rs: Ruleset) -> bool:
        """FFG 56 — the crowns of a round are judged at its end, as step 2 of the round's end (after
        the holdings; ruleset.yaml `scoring.crowns_at_end`). Data version 1 judged the crowns of the
        end of round N at the start of round N+1 (`crowns_played_next_round`): the classic 12.1 way."""
        return bool(rs.scoring.get("crowns_at_end")) and not rs.scoring.get("crowns_played_next_round")

    def crown_time(self, rs: Ruleset, rnd: int) -> str:
        """FFG 56 — the crowns of round `rnd` are those of its end (data version 1: the start of round
        `rnd` stood for the end of the one before)."""
        if rs.scoring.get("crowns_played_next_round"):
            return f"end of turn {rnd - 1}"
        return f"end of turn {rnd}" if self.crowns_at_end(rs) else super().crown_time(rs, rnd)

    def votes_owed(self, rs: Ruleset, state: GameState) -> bool:
        """FFG 56 — the votes are owed at step 2 of the end of a round with a Bretwalda vote."""
        if self.crowns_at_end(rs) and state.extras.get(ROUND_CLOSE_OWED) != state.round:
            return False
        return super().votes_owed(rs, state)

    def round_end(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """FFG 56 — at the end of a crown round the round stays open after the holdings, its crowns owed
        (ROUND_CLOSE_OWED): `close_round` plays them with the votes, then ends it."""
        if (not self.crowns_at_end(rs) or state.round == rs.const.max_rounds
                or not kingship.crown_round(rs, state.round)):
            super().round_end(rs, state, events)
            return
        self.round_scoring(rs, state, events)
        state.next_nation = None
        state.extras[ROUND_CLOSE_OWED] = state.round

    def close_round(self, rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list[Event]) -> None:
        """FFG 56 — step 2 of the end of a crown round: Bretwalda (with the VOTE orders) or King, then
        the round is over."""
        del state.extras[ROUND_CLOSE_OWED]
        self.king_army(rs, state, crowns_at_round_end(rs, state, ballots, events), events)
        self.next_round(rs, state, events)


# --- battle model (FFG 23, 25, 27) --------------------------------------------------------------------
class Ffg2BattleModel(BattleModel):
    """The battle model of the FFG 2nd edition: the plain one (pbem.rules.battle_model) with faster
    Roman and cavalry dice (FFG 25) and the leader's bonus on burhs (FFG 23, 27)."""

    def fast_gain(self, rs: Ruleset) -> int:
        """FFG 25 (constant `hit_fast`): a cavalry unit's or a Roman army's die hits ordinary targets
        on 4-6, one lower than an ordinary army's 5-6 (0 without the constant)."""
        return rs.const.hit - rs.const.hit_fast if rs.const.hit_fast is not None else 0

    def fast_pieces(self, rs: Ruleset, roman: bool) -> frozenset[str]:
        """FFG 25 — the fast dice: every cavalry unit's, and the Roman armies' (the Romans fight as cavalry)."""
        return _CAVALRY_AND_ARMIES if roman else _CAVALRY

    def bonus_pieces(self, rs: Ruleset) -> frozenset[str]:
        """FFG 23, 27 (feature `leader_bonus_on_burhs`) — a leader's +1 reaches its nation's burhs too."""
        base = super().bonus_pieces(rs)
        return base | {"burhs"} if rs.feature("leader_bonus_on_burhs") else base


_CAVALRY = frozenset({"cavalry"})
_CAVALRY_AND_ARMIES = frozenset({"cavalry", "armies"})
Ffg2Rules.battle = Ffg2BattleModel()    # set here, after the class, so this section stays one block


# --- data schema (issue 28 item 3: the sections of the ruleset files only the FFG rules read) ---

import re as _re  # noqa: E402  (appended section)
from collections.abc import Mapping as _Mapping  # noqa: E402

from pbem.rules.rulesets.classic import ClassicSchema  # noqa: E402
from pbem.rules.rulesets.schema import Board  # noqa: E402

SUBJECTS_ATTACKING = "subject_nations_that_attacked_romano_british"   # the Romano-British card (FFG 41)
_EXCEPT_OWN_TURN = _re.compile(r"^the \w+ turn of round (\d+)$")   # "the Belgae turn of round 1"



class Ffg2Schema(ClassicSchema):
    """The classic sections, and: `rb_departure_areas` (FFG 38), submission per-nation rounds, points
    to Rome and revolt round (FFG 34), the Roman reinforcement table (FFG 31), leaders that bring
    armies (FFG 34) or cavalry (FFG 39), kill lines limited to the killer's own turn (FFG 52)."""

    list_keys = {**ClassicSchema.list_keys, "rb_departure_areas": "area"}   # FFG 38
    kill_of = {SUBJECTS_ATTACKING: "of_attacking_subjects"}   # FFG 41: the Romano-British card

    def submission(self, board: Board) -> dict:
        """Rules 11.1, 11.2 and FFG 34: per-nation rounds, points to Rome, the revolt round."""
        sub = super().submission(board)
        rc, nations = board.readers["ruleset"], board.nations
        for key in ("rounds", "points", "revolt"):
            for nid, v in rc.mapping(sub, key, "submission", required=False).items():
                rc.one(nid, f"submission.{key}", nations, "nation")
                for i, r in enumerate(v if key == "rounds" else [v]):
                    rc.integer(r, f"submission.{key}.{nid}" + (f".{i}" if key == "rounds" else ""), minimum=1)
        return sub

    def kill_line(self, board: Board, kind: str, line: _Mapping, where: str) -> dict:
        """FFG 52 — `own_turn_only: true` (kills in the killer's own turn only) and `except: 'the <nation>
        turn of round N'` (not in the killer's own turn of round N)."""
        reader = board.readers["victory_points"]
        out: dict = {"own_turn_only": bool(line.get("own_turn_only", False))}
        if "except" in line:
            m = _EXCEPT_OWN_TURN.match(str(line["except"]))
            if not m:
                raise reader.fail(f"{where}.except", "must read 'the <nation> turn of round N'")
            out["not_own_turn_rounds"] = reader.round_set([int(m.group(1))], f"{where}.except", board.max_rounds)
        return out

    def extras(self, board: Board) -> dict:
        """timeline.yaml `roman_reinforcements.table` (FFG 31) as {round: ((low, high, armies), ...)};
        the leaders that enter with armies (nations.yaml `arrives_with: {armies: N}` without a sea:
        Boudicca, FFG 34) as {leader: armies}, and with cavalry (`arrives_with: {cavalry: N}`: Arthur,
        FFG 39) as {leader: cavalry}."""
        tc, t = board.readers["timeline"], board.tables
        out: dict = {}
        rr = t["timeline"].get("roman_reinforcements")
        if isinstance(rr, _Mapping) and "table" in rr:
            rounds: dict[int, list] = {}
            for key, row in tc.mapping(rr, "table", "roman_reinforcements").items():
                where = f"roman_reinforcements.table.{key}"
                lo, _, hi = str(key).rstrip("+").partition("-")
                try:
                    low, high = int(lo), (10 ** 6 if str(key).endswith("+") else int(hi or lo))
                except ValueError:
                    raise tc.fail(where, "must be N or N-M (Roman armies)") from None
                if not isinstance(row, list):
                    raise tc.fail(where, "must list the reinforcements per round")
                for i, n in enumerate(row):
                    rounds.setdefault(2 + i, []).append((low, high, tc.integer(n, f"{where}.{i}", minimum=0)))
            out["roman_reinforcements"] = {r: tuple(v) for r, v in rounds.items()}
        armies, cavalry = {}, {}
        for n in (t["nations"].get("nations") or {}).values():
            for ld in (n.get("leaders") or []) if isinstance(n, _Mapping) else []:
                w = ld.get("arrives_with") if isinstance(ld, _Mapping) else None
                if isinstance(w, _Mapping) and w.get("armies") and "sea" not in w:
                    armies[ld["id"]] = int(w["armies"])
                if isinstance(w, _Mapping) and w.get("cavalry") and "sea" not in w:
                    cavalry[ld["id"]] = int(w["cavalry"])
        out["leader_armies"] = armies
        out["leader_cavalry"] = cavalry
        cites = board.tables["ruleset"].get("citations") or {}
        if not isinstance(cites, _Mapping):
            raise tc.fail("citations", "must map classic sections to the FFG rule that cites them")
        out["citations"] = {str(k): str(v) for k, v in cites.items()}
        return out


Ffg2Rules.schema = Ffg2Schema

def crowns_at_round_end(rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list) -> str | None:
    """FFG 56 — step 2 of the end of a crown round (after the holdings): a King (rounds 11-14), else a
    Bretwalda vote (rounds 8-10). The crowns judged at the end of the last crown round give way; a
    King crowned in a nation's turn of this round (Canute, 12.4) stays beside the new one.

    Returns the King's nation (who gets an extra army placed as population increase) or None."""
    state.bretwalda = None
    state.kings = [k for k in state.kings if any(e["kind"] == "king" and e["round"] == state.round and e["turn"]
                                                 and e["nation"] == k for e in state.ledger)]
    return kingship.judge(rs, state, ballots, events)


def raid_turn_raiders(ctx: TurnContext) -> None:
    """FFG 17 — raiding is a property of the nation turn (feature raid_turn_raiders): in a round in
    which the nation raids (it has raiders arriving, timeline.yaml), every army of it at sea at the start
    of its turn is a raider; in any other round none is, and an army that starts the turn on land never
    is (so armies left at sea by an earlier raid are invaders in a later non-raid round)."""
    rs, state, nation = ctx.rs, ctx.state, ctx.nation
    if not rs.feature("raid_turn_raiders"):
        return
    raiding = rs.rules.raid_turn(rs, state.round, nation)
    for area, st in state.areas.items():
        if nation in st:
            s = st[nation]
            s.raiders = s.armies if raiding and rs.is_sea(area) else 0
