"""The Duel Britannia rules family (seed 003, the Duel rulebook chapter of the 2020 PSC box).

[Section] names a section of that chapter. What differs from the generic engine, as phases:
- Phase I, the maintenance economy (`population_phase`, `maintenance`): the increase points of the
  occupied land areas minus the armies not at sea, read on the six-row table from gain 3 to lose 3,
  the loser choosing which armies go (LOSE); then Phase II, the arrivals of the aid (`arrivals`: room
  made at sea by REMOVE, two-sea arrivals divided by ARRIVE, the sea status of raiders, intruders and
  invaders), the leaders (eruption, or not: WITHHOLD). The choices' rules: duel_arrivals.py.
- Phase V, scoring at the end of every nation turn (`end_of_turn`, `phase_v`): the scoring centres,
  the land areas adjacent to them, the areas raided, the enemy leaders killed.
- [Withdrawal of the Romans] after the Saxon turn of round 1 (`roman_withdrawal`); the Romans have no
  nation turn of their own ([A Game Round]).

The data (ruleset.yaml `duel`, derived from board.yaml and aid.yaml by pbem.data.duel_build) is read by
DuelSchema into rs.extras. What the family does not play yet is listed in ruleset.yaml `doubts` (S1-S8),
shown by `pbem rules show duel`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from pbem.errors import OrderProblem
from pbem.rules import accounting, battle, endturn, movement, population, scoring
from pbem.rules.context import NationTurn, TurnContext
from pbem.rules.events import Event, Names, event
from pbem.rules.orders import Place
from pbem.rules.ruleset import Constants, Ruleset
from pbem.rules.rulesets import duel_arrivals as arrivals_rules
from pbem.rules.rulesets.base import Rules
from pbem.rules.rulesets.duel_battle import DuelBattleModel
from pbem.rules.rulesets.duel_orders import ArriveIn
from pbem.rules.rulesets.schema import Board, Schema
from pbem.rules.stacking import can_add
from pbem.rules.state import GameState

# [Phase I] the population-change table: (lowest calculation of the row, armies gained (<0: lost))
MAINTENANCE_TABLE: tuple[tuple[int, int], ...] = ((4, 3), (2, 2), (-1, 1), (-3, -1), (-5, -2))
MAINTENANCE_WORST = -3   # -6 or worse: lose 3 armies


def maintenance_change(calculation: int) -> int:
    """[Phase I] — the armies gained (positive) or lost (negative) for a calculation (increase points of
    the occupied areas minus the armies not at sea): 4 or better +3, 2..3 +2, 1..-1 +1, -2..-3 -1,
    -4..-5 -2, -6 or worse -3. Never zero: "there is no circumstance where you neither gain nor lose"."""
    for lowest, change in MAINTENANCE_TABLE:
        if calculation >= lowest:
            return change
    return MAINTENANCE_WORST


@dataclass(frozen=True, kw_only=True)
class DuelConstants(Constants):
    """ruleset.yaml `constants` of the Duel family: the common ones, the clear overstack required."""

    big_stack_clear: int | None   # [Stacking Limits] the one overstack: 4 in difficult, 5 in clear terrain


@event("duel_maintenance")
class DuelMaintenance(Event):
    """[Phase I] — the maintenance count: increase points, armies, the table's change and what it did."""

    nation: str
    points: int
    armies: int
    change: int
    gained: int
    lost: dict[str, int]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        what = (f"gains {self.gained}" if self.change > 0 else
                "loses " + ", ".join(f"{n} in {names.display(a)}" for a, n in sorted(self.lost.items())))
        return (f"{names.display(self.nation)}: increase points {self.points} - armies {self.armies} = "
                f"{self.points - self.armies}: {what} (Phase I)")


@event("duel_arrived_split")
class DuelArrivedSplit(Event):
    """[Appearance At Sea] — an arrival with two seas divided between them (sea -> armies; ARRIVE lines)."""

    nation: str
    seas: dict[str, int]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        return f"{names.display(self.nation)} appear divided: " + ", ".join(
            f"{n} in the {names.display(s)}" for s, n in self.seas.items())


@event("duel_romans_withdrawn")
class DuelRomansWithdrawn(Event):
    """[Withdrawal of the Romans] — the Roman pieces become those of the nations named (area -> nation)."""

    to: dict[str, str]

    def describe(self, names: Names) -> str | None:
        return "the Romans withdraw: " + ", ".join(f"{names.display(a)} to the {names.display(n)}"
                                                    for a, n in sorted(self.to.items()))


class DuelSchema(Schema):
    """ruleset.yaml `duel`: populations, Roman forts, scoring centres, scoring-only neighbours, raid
    rounds, the withdrawal, the nations with no turn (all derived from board.yaml and aid.yaml)."""

    def extras(self, board: Board) -> dict[str, Any]:
        rc = board.readers["ruleset"]
        d = rc.mapping(board.ruleset, "duel", "")
        areas, nations = board.areas, board.nations
        pop = rc.mapping(d, "population", "duel")
        for a in areas:
            if a not in pop:
                raise rc.fail(f"duel.population.{a}", "missing: every land area has an increase value ([Phase I])")
            rc.integer(pop[a], f"duel.population.{a}", minimum=0)
        rc.ids(list(pop), "duel.population", areas, "area")
        forts = rc.mapping(d, "forts", "duel", required=False)
        rc.ids(list(forts), "duel.forts", areas, "area")
        centres: dict[str, tuple[tuple[str, frozenset[int]], ...]] = {}
        for nid, cs in rc.mapping(d, "centres", "duel").items():
            rc.one(nid, f"duel.centres.{nid}", nations, "nation")
            rows = []
            for i, c in enumerate(cs or []):
                where = f"duel.centres.{nid}.{i}"
                place = rc.one(rc.get(c, "where", where), f"{where}.where", {**areas, **board.seas}, "area or sea")
                rows.append((place, frozenset(rc.rounds_list(rc.get(c, "rounds", where), f"{where}.rounds", board.max_rounds))))
            centres[nid] = tuple(rows)
        pairs = [tuple(rc.ids(p, f"duel.scoring_adjacent.{i}", areas, "area"))
                 for i, p in enumerate(rc.seq(d, "scoring_adjacent", "duel"))]
        raiders, intruders, must_withdraw = ({int(r): frozenset(rc.ids(ns, f"duel.{key}.{r}", nations, "nation"))
                                              for r, ns in rc.mapping(d, key, "duel", required=False).items()}
                                             for key in ("raiders", "intruders", "must_withdraw"))
        w = rc.mapping(d, "withdrawal", "duel")
        withdrawal_to: dict[str, str] = {}
        for nid, lst in rc.mapping(w, "to", "duel.withdrawal").items():
            rc.one(nid, f"duel.withdrawal.to.{nid}", nations, "nation")
            for a in rc.ids(lst, f"duel.withdrawal.to.{nid}", areas, "area"):
                withdrawal_to[a] = nid
        cavalry_leaders = frozenset(rc.ids(rc.seq(d, "leader_cavalry", "duel"), "duel.leader_cavalry",
                                           board.leaders, "leader"))
        leader_armies = {rc.one(lid, f"duel.leader_armies.{lid}", board.leaders, "leader"):
                         rc.integer(n, f"duel.leader_armies.{lid}", minimum=1)
                         for lid, n in rc.mapping(d, "leader_armies", "duel", required=False).items()}
        erupt_in = {rc.one(lid, f"duel.erupt_in.{lid}", board.leaders, "leader"):
                    tuple(rc.ids(v, f"duel.erupt_in.{lid}", areas, "area"))
                    for lid, v in rc.mapping(d, "erupt_in", "duel", required=False).items()}
        sea_choices = {int(r): {rc.one(n, f"duel.sea_choices.{r}.{n}", nations, "nation"):
                                tuple(rc.ids(v, f"duel.sea_choices.{r}.{n}", board.seas, "sea"))
                                for n, v in (by_nation or {}).items()}
                       for r, by_nation in rc.mapping(d, "sea_choices", "duel", required=False).items()}
        barred = {rc.one(n, f"duel.strait_barred.{n}", nations, "nation"):
                   frozenset(rc.ids(rs_, f"duel.strait_barred.{n}", board.regions, "region"))
                   for n, rs_ in rc.mapping(d, "strait_barred", "duel", required=False).items()}
        no_raid = {rc.one(n, f"duel.no_raid_points.{n}", nations, "nation"): str(region)
                   for n, region in rc.mapping(d, "no_raid_points", "duel", required=False).items()}
        return {
            "duel_population": dict(pop),
            "duel_forts": {a: int(n) for a, n in forts.items()},
            "duel_centres": centres,
            "duel_scoring_adjacent": tuple(pairs),
            "duel_raiders": raiders,
            "duel_intruders": intruders,
            "duel_must_withdraw": must_withdraw,
            "duel_withdrawal": {"after": rc.one(rc.get(w, "after", "duel.withdrawal"), "duel.withdrawal.after", nations, "nation"),
                                "round": rc.integer(rc.get(w, "round", "duel.withdrawal"), "duel.withdrawal.round", minimum=1),
                                "to": withdrawal_to},
            "duel_no_turn": frozenset(rc.ids(rc.seq(d, "no_turn", "duel"), "duel.no_turn", nations, "nation")),
            "duel_no_raid_points": no_raid,
            "duel_strait_barred": barred,
            "duel_leader_cavalry": cavalry_leaders,
            "duel_sea_choices": sea_choices,
            "duel_leader_armies": leader_armies,
            "duel_erupt_in": erupt_in,
            "duel_no_score": frozenset(rc.ids(rc.seq(d, "no_score_area", "duel"), "duel.no_score_area", areas, "area")),
        }


class DuelRules(Rules):
    """Duel Britannia: the maintenance economy, scoring every nation turn, the Roman withdrawal."""

    name = "duel"
    constants_class = DuelConstants
    schema = DuelSchema
    battle = DuelBattleModel()
    # Duel has no Bretwalda or King to vote for and no submission: VOTE and SUBMIT are not its orders
    # DISBAND neither: Duel has no overpopulation ([Major Differences]); LOSE chooses Phase I's losses
    order_forms = (Rules.order_forms.adding("LOSE", "REMOVE", "ARRIVE", after="PLACE")
                   .adding("WITHHOLD", after="LEADER").without("VOTE", "SUBMIT", "DISBAND"))
    RULE_REFS: ClassVar[Mapping[str, str]] = MappingProxyType({"come_ashore": "[Intruders]"})   # lost_at_sea
    refusal_phrases = arrivals_rules.REFUSALS   # the family's own refusals, in a player's language

    CITATIONS: ClassVar[Mapping[str, str]] = MappingProxyType({
        # the generic rules' sections -> the Duel rule book's section that states the rule (issue 30 item 5)
        "3.0": "[Game Setup]",
        "13.0": "[Number of Players]",
        **dict.fromkeys(("4.0", "4.1", "4.2", "4.4", "4.5"), "[A Game Round]"),
        **dict.fromkeys(("5.0", "5.1", "5.11", "5.12", "5.13", "5.3"), "[Phase III]"),
        "5.15": "[Straits]",
        **dict.fromkeys(("5.2", "5.21", "5.22"), "[Stacking Limits]"),
        **dict.fromkeys(("5.4", "5.5"), "[Boats]"),
        **dict.fromkeys(("6.0", "10.1", "10.2"), "[Phase I]"),
        **dict.fromkeys(("7.0", "7.1", "7.11", "7.12", "7.13", "7.2", "7.21", "7.22", "7.4", "7.5"),
                        "[Raiding and Intruding]"),
        **dict.fromkeys(("8.0", "8.1"), "[Battle Dice]"),
        **dict.fromkeys(("8.2", "8.3", "8.4"), "[Retreats]"),
        **dict.fromkeys(("9.0", "9.1", "9.2"), "[Leaders in Battle]"),
        "10.5": "[Withdrawal of the Romans]",
        **dict.fromkeys(("14.1", "14.2", "14.3", "14.4"), "[Phase V]"),
    })
    UNMAPPED_CITATION: ClassVar[Mapping[str, str]] = MappingProxyType({
        "en": "the classic game's {word} {sections} (Duel is silent)",
        "ru": "{word} {sections} классической игры (в Duel не сказано)",
        "bare": "classic {sections}"})

    def citation_table(self, rs: Ruleset) -> Mapping[str, str]:
        """The Duel rule book's sections for the generic rules' numbers ("rule 8.0" -> "[Battle Dice]")."""
        return self.CITATIONS

    def hit_numbers(self, rs: Ruleset, area: str, defending: bool) -> tuple[int, int]:
        """[Battle Dice] — a 5 or 6 hits; only a 6 against a defender in difficult terrain (the cavalry,
        hit only by 6s, is the hard target)."""
        if defending and rs.hiland(area):
            return rs.const.hit_hard, rs.const.hit_hard
        return rs.const.hit, rs.const.hit_hard

    # --- a nation turn -----------------------------------------------------------------------------
    def has_nation_turn(self, rs: Ruleset, nation: str) -> bool:
        """[A Game Round] — the Romans are on no aid: they have no nation turn (they only fight back)."""
        return nation not in rs.extras["duel_no_turn"]

    def nation_turn(self, t: NationTurn) -> None:
        """[A Game Round] — the Romans have no nation turn (`has_nation_turn`): were one played, it
        does nothing."""
        if t.ctx.nation in t.ctx.rs.extras["duel_no_turn"]:
            accounting.account(t.ctx, set())
            return
        super().nation_turn(t)

    def population_phase(self, t: NationTurn) -> None:
        """[Phase I] the leader on the board since the last round is removed; the maintenance economy;
        [Phase II] the arrivals of the aid; the arriving leaders."""
        ctx = t.ctx
        self.leaders_leave(ctx)
        t.problems += self.maintenance(ctx)
        t.problems += self.arrivals(t)
        t.stop_after("before_leaders")
        before = len(ctx.events)
        t.problems += arrivals_rules.withhold_leaders(ctx)
        t.problems += population.leaders_enter(ctx)
        self.eruptions(ctx, [e.area for e in ctx.events[before:] if e.KIND == "leader_entered"])

    def eruptions(self, ctx: TurnContext, areas: list[str]) -> None:
        """[Eruption] — a leader (and his armies) appearing in an occupied land area fights the occupant
        at once, before anything else (the battle model's battle; no retreat to anywhere it came from)."""
        for area in areas:
            own = ctx.state.get(area, ctx.nation)
            if ctx.rs.is_land(area) and own and own.units and any(n != ctx.nation for n in ctx.state.occupants(area)):
                battle.fight(ctx, area)

    def leader_entry_areas(self, ctx: TurnContext, leader: str) -> list[str]:
        """[Eruption] — a leader whose nation has no area appears in an area it could score for this
        round (its card's row), or, for a leader the aid names areas for, only there; vacant areas
        first (an occupied one means a battle at once), then by id; nowhere when a WITHHOLD line keeps
        him off ("you may choose not to have the leader (and necessarily the army) appear")."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        if arrivals_rules.withheld(ctx, leader):
            return []
        places = rs.extras["duel_erupt_in"].get(leader)
        if places is None:
            card = rs.vp.get(nation)
            row = card.hold.get(rs.hold_occasion(state.round), {}) if card else {}
            places = tuple(a for a in row if rs.is_land(a))
        return sorted(places, key=lambda a: (bool(state.occupants(a)), a))

    def arrivals(self, t: NationTurn) -> list[OrderProblem]:
        """[Phase II], [Appearance At Sea] — armies REMOVEd from the board make room for those due at sea
        beyond the army limit; the aid's arrivals appear in their seas; where the aid offers two seas,
        ARRIVE N <sea> puts N of them in the second (the rest stay in the first); then every army of
        the nation at sea is a raider, an intruder or an invader by the turn ([Raiders])."""
        problems = arrivals_rules.make_room_at_sea(t.ctx)
        problems += self.divided_arrivals(t)
        arrivals_rules.set_sea_status(t.ctx)
        return problems

    def divided_arrivals(self, t: NationTurn) -> list[OrderProblem]:
        """[Appearance At Sea] — the aid's arrivals in their seas, those of a two-sea choice divided by
        the ARRIVE lines."""
        ctx = t.ctx
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        before = len(ctx.events)
        problems = population.arrivals(ctx)
        orders = ctx.own().of(ArriveIn)
        if not orders:
            return problems
        choices = rs.extras["duel_sea_choices"].get(state.round, {}).get(nation, ())
        arrived = next((e for e in ctx.events[before:] if e.KIND == "arrived" and choices and e.sea == choices[0]), None)
        split: dict[str, int] = {}
        left = arrived.armies if arrived else 0
        used: list[int] = []
        for o in orders:
            if o.sea not in choices[1:] or arrived is None:
                where = " or ".join(rs.display(s) for s in choices) if choices else "no choice of seas"
                problems.append(OrderProblem("not-now", o.line, o.text,
                                             f"no arrival of the {rs.nations[nation].name} this turn may appear in "
                                             f"the {rs.display(o.sea)} ([Appearance At Sea]: {where})"))
                continue
            k = min(o.count, left)
            left -= k
            split[o.sea] = split.get(o.sea, 0) + k
            used.append(o.line)
        if split:
            first = state.stack(choices[0], nation)
            for sea, k in split.items():
                first.armies -= k
                st = state.stack(sea, nation)
                st.armies += k
                if arrived.raiders:
                    first.raiders -= k
                    st.raiders += k
            state.prune()
            ctx.emit("duel_arrived_split", nation=nation, seas={choices[0]: left, **split}, lines=used)
        return problems

    def leaders_leave(self, ctx: TurnContext) -> None:
        """[Phase I] "if the nation has a leader on the board at the start of its nation turn (having
        been in play in the previous round) it is removed"; a leader who brought the cavalry takes it
        with him ([Cavalry]: one cavalry piece, passed on with Arthur to the next nation)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        riders = set(state.leaders_on_board(nation)) & rs.extras["duel_leader_cavalry"]
        population.leaders_leave(ctx)
        gone = riders - set(state.leaders_on_board(nation))
        if not gone:
            return
        removed: dict[str, int] = {}
        for area, stacks in state.areas.items():
            st = stacks.get(nation)
            if st is not None and st.cavalry:
                removed[area] = st.cavalry
                st.cavalry = 0
        state.prune()
        if removed:
            ctx.emit("legions_withdrawn", nation=nation, removed=removed)

    def leader_arrives(self, ctx: TurnContext, leader: str, area: str) -> None:
        """[Unit List], [Cavalry] — Arthur enters with the nation's one cavalry army (if it has one free)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        self.leader_armies_arrive(ctx, leader, area)
        if leader not in rs.extras["duel_leader_cavalry"]:
            return
        on_board = sum(s[nation].cavalry for s in state.areas.values() if nation in s)
        if on_board >= rs.nations[nation].max_cavalry:
            return
        state.stack(area, nation).cavalry += 1
        ctx.emit("reinforced", nation=nation, cavalry=1, areas=[area])

    def leader_armies_arrive(self, ctx: TurnContext, leader: str, area: str) -> None:
        """[Phase II] — the armies the aid gives with a leader on land are placed with him, as many as
        the army limit and the stacking limits leave ("those armies simply aren't available"; the ones
        the leader's area has no room for go to another land area of the nation); [Eruption] a leader whose
        nation had no army appears with at least one."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        n = rs.extras["duel_leader_armies"].get(leader, 0)
        if not state.units_of(nation):
            n = max(n, 1)
        n = min(n, population.free_armies(ctx, nation))
        placed: list[str] = []
        for _ in range(n):
            # with the leader while stacking allows, else in another land area of the nation with room
            others = sorted(a for a in population.placement_areas(ctx, nation) if a != area)
            where = next((a for a in [area, *others] if can_add(rs, state, nation, a, 1)), None)
            if where is None:
                break   # no room: "those armies simply aren't available"
            state.stack(where, nation).armies += 1
            placed.append(where)
        for where in dict.fromkeys(placed):
            ctx.emit("reinforced", nation=nation, armies=placed.count(where), areas=[where])

    def maintenance(self, ctx: TurnContext) -> list[OrderProblem]:
        """[Phase I] — count the increase points of the land areas the nation occupies and subtract its
        armies not at sea (forts and leaders count for neither); the table gives the change. Gains are
        placed in occupied land areas (PLACE, else by default), up to the army limit; an only-Connacht
        nation gains nothing. Losses: the loser's choice (LOSE, else from the biggest stack)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        value = rs.extras["duel_population"]
        occupied = population.placement_areas(ctx, nation)
        if not occupied:
            return []
        points = sum(value[a] for a in occupied)
        armies = sum(state.areas[a][nation].units for a in occupied)
        change = maintenance_change(points - armies)
        gained, lost, lines = 0, {}, []
        problems: list[OrderProblem] = []
        if change > 0 and any(value[a] for a in occupied):
            new = min(change, population.free_armies(ctx, nation))
            before = state.units_of(nation)
            problems = population.place_new_armies(ctx, nation, new, ctx.own().of(Place))
            gained = state.units_of(nation) - before
        elif change < 0:
            lost, lines, problems = arrivals_rules.phase_one_losses(ctx, occupied, -change)
            # the units' record of the removal (the generic event of armies taken off by a family's rule)
            ctx.emit("legions_withdrawn", nation=nation, removed=lost)
        if change > 0:
            arrivals_rules.unused_losses(ctx, f"the {rs.nations[nation].name} lose no army this turn: the "
                                              f"population change is +{change} ([Phase I])")
        ctx.emit("duel_maintenance", nation=nation, points=points, armies=armies, change=change,
                 gained=gained, lost=lost, lines=lines)
        return problems

    def end_of_turn(self, t: NationTurn) -> None:
        """[Phase V] after combat, retreats and raider withdrawal: raiders go back, the turn's points
        (`phase_v`, the leaders killed by the victory-point cards), then the Roman withdrawal when this
        was the nation it follows; no overpopulation in Duel."""
        ctx = t.ctx
        raided = self.raided_areas(ctx)
        all_back = endturn.withdraw_raiders(ctx)
        ctx.state.raided_from.pop(ctx.nation, None)
        scoring.score_kills(ctx, all_back)
        self.phase_v(ctx, raided)
        self.roman_withdrawal(ctx)
        accounting.account(ctx, {p.line for p in t.problems})

    def raided_areas(self, ctx: TurnContext) -> list[str]:
        """[Phase V] the land areas the nation's raiders entered this turn (a raid round of the aid),
        never areas of the region the nation may not score raids in (the Irish in Ireland)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        if nation not in rs.extras["duel_raiders"].get(state.round, ()):
            return []
        barred = rs.extras["duel_no_raid_points"].get(nation)
        return sorted(a for a in ctx.entered if rs.is_land(a) and rs.areas[a].region != barred)

    def phase_v(self, ctx: TurnContext, raided: list[str]) -> None:
        """[Phase V] — the nation's card for this round (victory_points.yaml `hold`, the one statement
        of the Phase V table, derived by pbem.data.duel_build): +2 VP for the scoring centre occupied
        (+1 each with two centres), +1 per land area occupied adjacent to a centre (straits and the
        scoring-only pairs count, a centre only as a centre, each area once, Connacht never); then
        +2 per area raided (once per area per nation per game, none where a raider stayed). The ledger books centres and adjacent areas as
        holdings ("hold") and raids as captures ("capture"), the kinds every report and check knows."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        if not scoring.may_score(state, nation):
            return
        held = {a for a, st in state.areas.items() if nation in st and rs.is_land(a)
                and (st[nation].units or st[nation].fort or st[nation].burhs)}
        card = rs.vp.get(nation)
        table = card.hold.get(rs.hold_occasion(state.round), {}) if card else {}
        for a in sorted(held & set(table)):
            pts = table[a]
            what = "its scoring centre" if a in self.centres(rs, nation, state.round) else "an area next to its scoring centre"
            state.score(nation, pts, f"holds {what} {rs.display(a)}", "hold", nation)
            ctx.emit("scored", nation=nation, points=pts, kind="hold", area=a)
        done = state.extras.setdefault("duel_raided", {}).setdefault(nation, [])
        for a in raided:
            if a in done or (nation in state.areas.get(a, {}) and state.areas[a][nation].units):
                continue
            done.append(a)
            state.score(nation, 2, f"raided {rs.display(a)}", "capture", nation)
            ctx.emit("scored", nation=nation, points=2, kind="capture", area=a)
        if not done:
            del state.extras["duel_raided"][nation]
            if not state.extras["duel_raided"]:
                del state.extras["duel_raided"]

    def centres(self, rs: Ruleset, nation: str, rnd: int) -> list[str]:
        """[Army Limits and Scoring Centres] — the nation's scoring centres in round `rnd` (the aid's)."""
        return [c for c, rounds in rs.extras["duel_centres"].get(nation, ()) if rnd in rounds]

    def round_scoring(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """[Phase V] — Duel scores at the end of every nation turn (`phase_v`), never at a round's end."""

    def roman_withdrawal(self, ctx: TurnContext) -> None:
        """[Withdrawal of the Romans] — after the Saxon turn of round 1, the Roman armies become those of
        the nation the aid names for their area (the forts are not on the board yet: doubt S2)."""
        rs, state = ctx.rs, ctx.state
        w = rs.extras["duel_withdrawal"]
        if ctx.nation != w["after"] or state.round != w["round"]:
            return
        to: dict[str, str] = {}
        removed: dict[str, int] = {}
        for roman in sorted(rs.extras["duel_no_turn"]):
            for area in sorted(state.areas):
                st = state.areas[area].get(roman)
                heir = w["to"].get(area)
                if st is None or heir is None:
                    continue
                state.stack(area, heir).armies += st.armies
                removed[area] = st.armies
                del state.areas[area][roman]
                to[area] = heir
        state.prune()
        if to:
            ctx.emit("duel_romans_withdrawn", to=to)
            # the units' record: the Roman armies go, each heir's come in their areas
            ctx.emit("legions_withdrawn", nation=sorted(rs.extras["duel_no_turn"])[0], removed=removed)
            for heir in sorted(set(to.values())):
                areas = [a for a in sorted(to) if to[a] == heir]
                ctx.emit("reinforced", nation=heir, armies=sum(removed[a] for a in areas), areas=areas)

    def movement_problems(self, ctx: TurnContext, planned) -> list[OrderProblem]:
        """[Straits] — a strait takes the whole move (the generic rule 5.15 check); the Welsh may not
        use the straits to Ireland (ruleset.yaml duel.strait_barred: nation -> regions)."""
        rs, nation = ctx.rs, ctx.nation
        barred = rs.extras["duel_strait_barred"].get(nation, frozenset())
        out: list[OrderProblem] = []
        for p in planned if barred else ():
            path = p.order.path
            for a, b in zip(path, path[1:], strict=False):
                if rs.is_land(a) and rs.is_land(b) and rs.strait(a, b) and (
                        rs.areas[a].region in barred or rs.areas[b].region in barred):
                    out.append(OrderProblem("strait", p.order.line, p.order.text,
                                            f"the {rs.nations[nation].name} may not cross the strait between "
                                            f"{rs.display(a)} and {rs.display(b)} ([Straits])"))
                    break
        return out

    def nations_brought_in(self, rs: Ruleset, events) -> set[str]:
        """[Withdrawal of the Romans] — the heirs of the Romans are on the board from the withdrawal."""
        return {n for ev in events if isinstance(ev, DuelRomansWithdrawn) for n in ev.to.values()}

    # --- the generic points the family answers otherwise -------------------------------------------
    def has_reinforcements(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """[A Game Round] — the nations the Romans' withdrawal creates play from the round after it."""
        return False

    def population_prompt(self, rs: Ruleset, state: GameState, nation: str) -> list[str] | None:
        """[Phase I], [Phase II] — the prompt's lines on the maintenance and the arrivals, with the
        choices they leave (LOSE, REMOVE, WITHHOLD) and what the armies at sea are this turn."""
        return arrivals_rules.prompt_lines(rs, state, nation)

    # --- [Raiders], [Intruders]: the armies at sea (duel_arrivals.py) --------------------------------
    def must_come_ashore(self, ctx: TurnContext) -> bool:
        """[Intruders] — in a turn neither of raiders nor of intruders the armies at sea must land."""
        return arrivals_rules.must_come_ashore(ctx)

    def stay_at_sea_refusal(self, rs: Ruleset, nation: str) -> tuple[str, str]:
        """[Intruders] — the reply to a STAY at sea of invaders."""
        return (f"the {rs.nations[nation].name} are invaders this turn: their armies at sea must land and stay on "
                "land (or die) ([Intruders])", arrivals_rules.LAND_THEM)

    def after_movement(self, ctx: TurnContext) -> None:
        """[Intruders] — invaders still at sea after the movement die ("must land ... (or die)")."""
        movement.invaders_left_at_sea(ctx)

    def sea_retreat_barred(self, ctx: TurnContext) -> str | None:
        """[Intruders] — "the non-intruder invaders cannot withdraw/retreat to sea"."""
        return arrivals_rules.SEA_RETREAT_BARRED if arrivals_rules.must_come_ashore(ctx) else None

    def raiders_may_settle(self, ctx: TurnContext) -> bool:
        """[Raiders] — raiders may stay in the area they raided (scoring no raid points for it), unless
        the aid says they must withdraw (the Jutes of round 1, [Raiding and Intruding])."""
        return arrivals_rules.may_stay_ashore(ctx)

    def settle_refusal(self, ctx: TurnContext) -> str:
        """[Raiding and Intruding] — why a SETTLE had no effect for raiders who must withdraw."""
        return (f"the {ctx.rs.nations[ctx.nation].name} must withdraw to sea after their raid this turn "
                "([Raiding and Intruding])")
