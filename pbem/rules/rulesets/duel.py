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
- Phase III, movement: the generic movement with the Duel answers of duel_movement.DuelMovement
  (difficult terrain, overruns, boats, sea movement, straits).
- Fortifications (`holds_forts`, `set_up`, `place_burh`, `place_fortresses`): the 8 Roman forts of
  [Setting Up Round 1], which remain and pass to the Romans' heirs at the withdrawal; Dumbarton,
  Bamburgh and the Saxon burhs as the aid places them (its doubts D9-D11); each rolls two dice and
  takes two hits ([Battle Dice], DuelBattleModel); the Saxon Shore forts' points (aid doubt D6).

The data (ruleset.yaml `duel`, derived from board.yaml and aid.yaml by pbem.data.duel_build) is read by
DuelSchema into rs.extras. What the family does not play yet is listed in ruleset.yaml `doubts` (S1-S8),
shown by `pbem rules show duel`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from pbem.errors import OrderProblem
from pbem.records import record
from pbem.rules import accounting, battle, endturn, movement, population, scoring
from pbem.rules.context import Kill, NationTurn, TurnContext
from pbem.rules.events import BattleRound, Event, Names, event
from pbem.rules.kingship import crowned_by_leader
from pbem.rules.orders import Move, Place
from pbem.rules.ruleset import Constants, Ruleset
from pbem.rules.rulesets import duel_arrivals as arrivals_rules
from pbem.rules.rulesets import duel_retreat
from pbem.rules.rulesets.base import Rules
from pbem.rules.rulesets.duel_battle import DuelBattleModel
from pbem.rules.rulesets.duel_movement import DuelMovement
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


@record(kw_only=True)
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


@event("duel_victors_retreated")
class DuelVictorsRetreated(Event):
    """[Retreat Options] — the victorious attacker's VICTORS order: pieces gone from `area` (area -> how
    many) and the parts refused (area -> why; those pieces stay)."""

    area: str
    nation: str
    to: dict[str, int]
    refused: dict[str, str]
    lines: list[int]

    def describe(self, names: Names) -> str | None:
        went = ", ".join(f"{n} to {names.display(a)}" for a, n in self.to.items())
        stay = "; ".join(f"not to {names.display(a)}: {why}" for a, why in self.refused.items())
        return (f"{names.display(self.nation)}, victorious in {names.display(self.area)}, retreat "
                + (went or "nowhere") + (f" ({stay})" if stay else ""))


@event("duel_leader_driven_off")
class DuelLeaderDrivenOff(Event):
    """[Major Differences], [Leaders] — a leader who cannot die (Arthur) is left alone in battle: the
    enemy scores the kill, he leaves the board until the aid brings him again."""

    area: str
    nation: str
    leader: str
    by: str

    def describe(self, names: Names) -> str | None:
        return (f"{names.display(self.leader)} ({names.display(self.nation)}) falls in {names.display(self.area)} "
                "but never dies: he leaves the board until his next appearance")


@event("duel_romans_withdrawn")
class DuelRomansWithdrawn(Event):
    """[Withdrawal of the Romans] — the Roman pieces become those of the nations named (area -> nation)."""

    to: dict[str, str]

    def describe(self, names: Names) -> str | None:
        return "the Romans withdraw: " + ", ".join(f"{names.display(a)} to the {names.display(n)}"
                                                    for a, n in sorted(self.to.items()))


@event("duel_forts_remain")
class DuelFortsRemain(Event):
    """[Withdrawal of the Romans] "surviving forts remain": each passes to the nation replacing the
    Romans in its area (doubt D8): area -> forts, area -> the nation."""

    forts: dict[str, int]
    to: dict[str, str]

    def describe(self, names: Names) -> str | None:
        return "the surviving forts remain: " + ", ".join(
            f"{n} in {names.display(a)} to the {names.display(self.to[a])}" for a, n in sorted(self.forts.items()))


@event("duel_fortified")
class DuelFortified(Event):
    """[Game Components], [Phase I] — a fortification placed: a fortress the aid names (Dumbarton,
    Bamburgh: `name`, doubts D10, D11) or a burh (`name` None, doubt D9)."""

    nation: str
    area: str
    name: str | None = None

    def describe(self, names: Names) -> str | None:
        what = self.name or "a burh"
        return f"{names.display(self.nation)} place {what} in {names.display(self.area)}"


class DuelSchema(Schema):
    """ruleset.yaml `duel`: populations, the set-up forts (nation -> area -> forts), the fortresses and
    burhs of the aid, the Saxon Shore forts, scoring centres, scoring-only neighbours, raid rounds, the
    withdrawal, the nations with no turn (all derived from board.yaml and aid.yaml)."""

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
        forts: dict[str, dict[str, int]] = {}
        for nid, where in rc.mapping(d, "forts", "duel", required=False).items():
            rc.one(nid, f"duel.forts.{nid}", nations, "nation")
            rc.ids(list(where or {}), f"duel.forts.{nid}", areas, "area")
            forts[nid] = {a: rc.integer(n, f"duel.forts.{nid}.{a}", minimum=1) for a, n in (where or {}).items()}
        fortresses: dict[str, dict[str, Any]] = {}
        for fid, f in rc.mapping(d, "fortresses", "duel", required=False).items():
            where = f"duel.fortresses.{fid}"
            fortresses[str(fid)] = {
                "name": str(rc.get(f, "name", where)),
                "nation": rc.one(rc.get(f, "nation", where), f"{where}.nation", nations, "nation"),
                "area": rc.one(rc.get(f, "area", where), f"{where}.area", areas, "area"),
                "rounds": frozenset(rc.rounds_list(rc.get(f, "rounds", where), f"{where}.rounds", board.max_rounds))}
        burhs: dict[str, dict[str, Any]] = {}
        for nid, b in rc.mapping(d, "burhs", "duel", required=False).items():
            where = f"duel.burhs.{nid}"
            rc.one(nid, where, nations, "nation")
            burhs[nid] = {"rounds": frozenset(rc.rounds_list(rc.get(b, "rounds", where), f"{where}.rounds", board.max_rounds)),
                          "region": rc.one(rc.get(b, "region", where), f"{where}.region", board.regions, "region")}
        shore = rc.mapping(d, "saxon_shore", "duel", required=False)
        saxon_shore = {"areas": frozenset(rc.ids(shore.get("areas") or [], "duel.saxon_shore.areas", areas, "area")),
                       "points": rc.integer(shore.get("points", 0), "duel.saxon_shore.points", minimum=0)}
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
        kings = {rc.one(n, f"duel.kings.{n}", nations, "nation"):
                 (rc.one(rc.get(k, "leader", f"duel.kings.{n}"), f"duel.kings.{n}.leader", board.leaders, "leader"),
                  rc.integer(rc.get(k, "round", f"duel.kings.{n}"), f"duel.kings.{n}.round", minimum=1),
                  rc.integer(rc.get(k, "points", f"duel.kings.{n}"), f"duel.kings.{n}.points", minimum=0))
                 for n, k in rc.mapping(d, "kings", "duel", required=False).items()}
        seat_colours = {str(seat): str(c) for seat, c in rc.mapping(d, "seat_colours", "duel", required=False).items()}
        return {
            "duel_seat_colours": seat_colours,
            "duel_kings": kings,
            "duel_population": dict(pop),
            "duel_forts": forts,
            "duel_fortresses": fortresses,
            "duel_burhs": burhs,
            "duel_saxon_shore": saxon_shore,
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
            "duel_undying": frozenset(rc.ids(rc.seq(d, "undying", "duel", required=False) or [], "duel.undying",
                                             board.leaders, "leader")),
            "duel_sea_choices": sea_choices,
            "duel_leader_armies": leader_armies,
            "duel_erupt_in": erupt_in,
            "duel_no_score": frozenset(rc.ids(rc.seq(d, "no_score_area", "duel"), "duel.no_score_area", areas, "area")),
        }


class DuelRules(DuelMovement, Rules):
    """Duel Britannia: the maintenance economy, scoring every nation turn, the Roman withdrawal; its
    movement rules are DuelMovement's (duel_movement.py)."""

    name = "duel"
    constants_class = DuelConstants
    schema = DuelSchema
    battle = DuelBattleModel()
    # Duel has no Bretwalda or King to vote for and no submission: VOTE and SUBMIT are not its orders
    # ... and the side hit allocates its hits by HITS (fort and armies; it replaces LOSSES, whose CAVALRY
    # LAST Duel's cavalry never has: [Cavalry]); VICTORS: the victorious attacker's retreat; DISBAND
    # neither: Duel has no overpopulation ([Major Differences]); LOSE chooses Phase I's losses; no
    # SECOND MOVEMENT: Duel has no major invasions (every nation moves once, [Phase III: Movement])
    order_forms = (Rules.order_forms.adding("LOSE", "REMOVE", "ARRIVE", after="PLACE")
                   .adding("WITHHOLD", after="LEADER").adding("VICTORS", after="ATTACK")
                   .adding("HITS", after="LOSSES").without("VOTE", "SUBMIT", "LOSSES", "DISBAND", "SECOND"))
    RULE_REFS: ClassVar[Mapping[str, str]] = MappingProxyType({"come_ashore": "[Intruders]"})   # lost_at_sea
    # the family's own refusals, in a player's language ([Retreat Options], Phases I and II)
    refusal_phrases = duel_retreat.REFUSAL_PHRASES + arrivals_rules.REFUSALS

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
        **dict.fromkeys(("8.2", "8.3", "8.4"), "[Retreat Options]"),
        "9.0": "[Phase II]",            # leaders appear with the aid's arrivals
        "9.1": "[Phase III: Movement]",  # "each army or leader can move up to two land areas"
        "9.2": "[Leaders]",             # leaders in battle
        "10.5": "[Withdrawal of the Romans]",
        **dict.fromkeys(("14.1", "14.2", "14.3", "14.4"), "[Phase V]"),
    })
    UNMAPPED_CITATION: ClassVar[Mapping[str, str]] = MappingProxyType({
        "en": "the classic game's {word} {sections} (Duel is silent)",
        "ru": "{word} {sections} классической игры (в Duel не сказано)",
        "bare": "classic {sections}"})

    def invariants(self, rs: Ruleset, before: GameState, step: object) -> list[str]:
        """Duel's own checks after a step (`pbem selfplay --check`): [Allocation Of Hits And Elimination
        Of Armies] a side never has more than one wounded piece in a battle round, and hits "do not carry
        over to later in the game" (no wound is left on the board after a step); [Phase I] the
        maintenance count: the change is the table's for the increase points minus the armies, the
        points are those of the land areas the nation's armies held at the start of its turn (Arthur's
        cavalry's too if it stays), and only that change is made (a gain never above it, a loss never
        above it, never both)."""
        out: list[str] = []
        events = getattr(step, "events", ())
        for ev in events:
            if isinstance(ev, BattleRound):
                for nation, losses in ev.losses.items():
                    wounded = sum(v for k, v in (losses or {}).items() if str(k).startswith("wounded_"))
                    if wounded > 1:
                        out.append(f"battle: the {nation} have {wounded} wounded pieces in {ev.area} ([Allocation Of Hits])")
        for area, stacks in step.state.areas.items():
            for nation, stack in stacks.items():
                if self.battle.wounded(stack):
                    out.append(f"battle: a wounded {nation} piece is left in {area} after the step ([Allocation Of Hits])")
        value = rs.extras["duel_population"]
        for ev in events:
            if not isinstance(ev, DuelMaintenance):
                continue
            # the areas the nation's armies held at the start of its turn count; its cavalry's alone count
            # unless the cavalry left with Arthur at the start of Phase I ([Phase I], [Cavalry])
            mine = {a: st[ev.nation] for a, st in before.areas.items() if ev.nation in st and rs.is_land(a)}
            least = sum(value[a] for a, s in mine.items() if s.armies)
            most = sum(value[a] for a, s in mine.items() if s.units)
            if not least <= ev.points <= most:
                out.append(f"population: the {ev.nation} counted {ev.points} increase points, their areas hold "
                           f"{least}-{most} ([Phase I])")
            if ev.change != maintenance_change(ev.points - ev.armies):
                out.append(f"population: {ev.points} points - {ev.armies} armies gave {ev.change:+d} ([Phase I])")
            lost = sum(ev.lost.values())
            if not (0 <= ev.gained <= max(ev.change, 0) and 0 <= lost <= max(-ev.change, 0)):
                out.append(f"population: the {ev.nation} gained {ev.gained} and lost {lost} for {ev.change:+d} ([Phase I])")
        return out

    def seat_colour(self, rs: Ruleset, seat: str) -> str | None:
        """[Game Setup] — the Brython-Viking side plays purple and black, the Anglo-Saxon red and blue:
        a seat of the control tables in its colour (ruleset.yaml `duel.seat_colours`)."""
        return rs.extras.get("duel_seat_colours", {}).get(seat)

    def partners(self, rs: Ruleset, holdings: Mapping[str, Collection[str]]) -> list[list[str]]:
        """[Number of Players] — with four players, "two play on one side ... and two play against them":
        the players whose nations all belong to one side of the two-player table win or lose together,
        their points added ([Goal]: the most victory points in total); anyone else stands alone."""
        sides = rs.players_table(2).values() if 2 in rs.control else ()
        groups: dict[int, list[str]] = {}
        alone: list[list[str]] = []
        for player, nations in holdings.items():
            side = next((i for i, side in enumerate(sides) if nations and set(nations) <= set(side)), None)
            if side is None:
                alone.append([player])
            else:
                groups.setdefault(side, []).append(player)
        return [*groups.values(), *alone]

    def citation_table(self, rs: Ruleset) -> Mapping[str, str]:
        """The Duel rule book's sections for the generic rules' numbers ("rule 8.0" -> "[Battle Dice]")."""
        return self.CITATIONS

    def hit_numbers(self, rs: Ruleset, area: str, defending: bool) -> tuple[int, int]:
        """[Battle Dice] — a 5 or 6 hits; only a 6 against a defender in difficult terrain (the cavalry,
        hit only by 6s, is the hard target)."""
        if defending and rs.hiland(area):
            return rs.const.hit_hard, rs.const.hit_hard
        return rs.const.hit, rs.const.hit_hard

    # --- fortifications ---------------------------------------------------------------------------
    def holds_forts(self, rs: Ruleset, nation: str) -> bool:
        """[Game Components], [Withdrawal of the Romans] — the nations with fort counters (nations.yaml
        forces `forts`: the Romans, their heirs of the forts, the nations of Dumbarton and Bamburgh)
        hold forts, several a stack (two in Kent and in Essex); the Saxons' burhs are burhs."""
        return rs.nations[nation].max_forts > 0

    def set_up(self, rs: Ruleset, state: GameState) -> None:
        """[Setting Up Round 1] — the 8 Roman forts: 2 in Essex and 2 in Kent, 1 in Wessex, E Anglia,
        Strathclyde and Northumbria (ruleset.yaml duel.forts, nation -> area -> forts)."""
        for nation, where in rs.extras["duel_forts"].items():
            for area, n in where.items():
                self.add_forts(state, area, nation, n)

    @staticmethod
    def add_forts(state: GameState, area: str, nation: str, n: int) -> None:
        """`n` forts more in the nation's stack (Stack.fort, a count), the area among those ever fortified."""
        st = state.stack(area, nation)
        total = int(st.fort) + n
        st.fort = True if total == 1 else total
        state.forts_built.add(area)

    @staticmethod
    def fortified_areas(rs: Ruleset, state: GameState, nation: str) -> list[str]:
        """The land areas where the nation has a fortification (forts, burhs)."""
        return [a for a, st in state.areas.items() if nation in st and st[nation].fortifications and rs.is_land(a)]

    def place_burh(self, ctx: TurnContext) -> None:
        """[Game Components] (2 red forts), [Phase I] (burhs) — doubt D9: in Phase II of the Saxon turns
        of the aid's burh rounds the Saxons place one burh in an area of England they occupy (at most
        the nation's burh counters, never rebuilt). The area has no order form yet (doubt S2): by default
        the biggest stack of the nation without a burh, then the area of most increase points, then by id."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        rule = rs.extras["duel_burhs"].get(nation)
        if rule is None or state.round not in rule["rounds"]:
            return
        placed = state.extras.get("duel_burhs_placed", {}).get(nation, 0)
        if placed >= rs.nations[nation].max_burhs:
            return
        value = rs.extras["duel_population"]
        options = [a for a in population.placement_areas(ctx, nation)
                   if rs.areas[a].region == rule["region"] and not state.areas[a][nation].burhs]
        if not options:
            return
        area = min(options, key=lambda a: (-state.areas[a][nation].units, -value[a], a))
        state.areas[area][nation].burhs += 1
        state.extras.setdefault("duel_burhs_placed", {})[nation] = placed + 1
        ctx.emit("duel_fortified", nation=nation, area=area, name=None)

    def place_fortresses(self, ctx: TurnContext) -> None:
        """Doubts D10, D11 — at the end of the nation's Phase IV, a fortress of the aid (Dumbarton for
        Rheged in round 2, Bamburgh for the North Angles the first round from 2 on) is placed in its
        area if the nation holds it then (its armies there, no other nation's pieces); once a game."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        for fid, f in sorted(rs.extras["duel_fortresses"].items()):
            if f["nation"] != nation or state.round not in f["rounds"] or fid in state.extras.get("duel_fortresses", ()):
                continue
            area = f["area"]
            st = state.get(area, nation)
            if st is None or not st.units or state.occupants(area) != [nation]:
                continue
            self.add_forts(state, area, nation, 1)
            state.extras["duel_fortresses"] = sorted({*state.extras.get("duel_fortresses", ()), fid})
            ctx.emit("duel_fortified", nation=nation, area=area, name=f["name"])

    def saxon_shore_kills(self, ctx: TurnContext) -> None:
        """Doubt D6 (destroying) — +2 VP (duel.saxon_shore.points) to the nation that eliminates a Saxon
        Shore fort: a fort in one of the Saxon Shore areas (only Roman forts stand there), any round."""
        rs, state = ctx.rs, ctx.state
        shore = rs.extras["duel_saxon_shore"]
        for k in ctx.kills:
            if k.kind != "roman_forts" or k.area not in shore["areas"] or not shore["points"]:
                continue
            if not scoring.may_score(state, k.killer):
                continue
            state.score(k.killer, shore["points"], f"destroyed a Saxon Shore fort of the {rs.display(k.victim)} in "
                        f"{rs.display(k.area)}", "kill", ctx.nation)
            ctx.emit("scored", nation=k.killer, points=shore["points"], kind="kill", area=k.area, victim=k.victim)

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
        self.place_burh(ctx)
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

    def leader_entry_choices(self, ctx: TurnContext, leader: str) -> list[str]:
        """[Phase II] — a leader not appearing at sea "and any accompanying armies, are placed with any
        existing army or fortification of the nation on land": an area with the nation's armies (a sea
        too, where the aid brings the leader with armies at sea) or a land area with only its
        fortification; else, the nation holding no area, where it erupts (`leader_entry_areas`)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        places = [a for a, st in state.areas.items() if nation in st
                  and (st[nation].units or (st[nation].fortifications and rs.is_land(a)))]
        return places or self.leader_entry_areas(ctx, leader)

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

    def leader_falls(self, ctx: TurnContext, area: str, nation: str, leader: str, killer: str) -> None:
        """[Leaders], [Major Differences] — a leader left alone in battle is killed; Arthur (ruleset.yaml
        duel.undying, the aid's "cannot die") never dies: the kill is scored as any leader's (+2 VP for
        the enemy, [Phase V: Scoring]) and he leaves the board until the aid brings him again."""
        if leader not in ctx.rs.extras["duel_undying"]:
            super().leader_falls(ctx, area, nation, leader, killer)
            return
        st = ctx.state.get(area, nation)
        if st and leader in st.leaders:
            st.leaders.remove(leader)
        ctx.kills.append(Kill(killer=killer, victim=nation, kind="leaders", area=area, leader=leader))
        ctx.emit("duel_leader_driven_off", area=area, nation=nation, leader=leader, by=killer)

    def movement_cycles(self, t: NationTurn) -> None:
        """[Phase III], [Phase IV] — the generic cycles of movement and battle; then the VICTORS orders
        are checked against the battles the turn has ([Retreat Options]; the same check on arrival and
        at the deadline), unless a move was refused (the battles are then not those planned)."""
        before = len(t.problems)
        super().movement_cycles(t)
        moves = {o.line for o in t.ctx.own().of(Move)}
        if t.seen is not None and not any(p.line in moves for p in t.problems[before:]):
            t.problems += duel_retreat.victors_problems(t.ctx, t.seen.battles)
            t.refuse_on_problems()

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
        nation had no army or fortification appears with at least one."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        n = rs.extras["duel_leader_armies"].get(leader, 0)
        if not state.units_of(nation) and not self.fortified_areas(rs, state, nation):
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
        """The end of Phase IV: a fortress the aid names is placed (`place_fortresses`); [Phase V] after
        combat, retreats and raider withdrawal: raiders go back, the turn's points (`phase_v`, the
        leaders killed by the victory-point cards, the Saxon Shore forts destroyed), then the Roman
        withdrawal when this was the nation it follows; no overpopulation in Duel."""
        ctx = t.ctx
        self.place_fortresses(ctx)
        raided = self.raided_areas(ctx)
        all_back = endturn.withdraw_raiders(ctx)
        ctx.state.raided_from.pop(ctx.nation, None)
        scoring.score_kills(ctx, all_back)
        self.saxon_shore_kills(ctx)
        self.phase_v(ctx, raided)
        self.kingship(ctx)
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

    def kingship(self, ctx: TurnContext) -> None:
        """[Major Differences] "the Danish attempt to become king with Cnut, and the Saxon response",
        PROVISIONAL (the rules are not in the chapter; doubts D12, D13 of the aid): at the end of the
        nation's turn of its king's round (ruleset.yaml `duel.kings`), with that leader on the board and
        at least twice as many areas of England held alone as any other nation (classic 12.4's test,
        `crowned_by_leader`), the nation is King of England: +4 VP. Cnut and Edmund Ironside may both be
        King."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        entry = rs.extras.get("duel_kings", {}).get(nation)
        if not entry or state.round != entry[1] or not scoring.may_score(state, nation):
            return
        leader, _round, points = entry
        if crowned_by_leader(rs, state, nation, leader):
            state.kings.append(nation)
            state.score(nation, points, f"{rs.display(leader)} King of England (PROVISIONAL: doubt S8)", "king", nation)
            ctx.emit("king", nation=nation)

    def centres(self, rs: Ruleset, nation: str, rnd: int) -> list[str]:
        """[Army Limits and Scoring Centres] — the nation's scoring centres in round `rnd` (the aid's)."""
        return [c for c, rounds in rs.extras["duel_centres"].get(nation, ()) if rnd in rounds]

    def scoring_centres(self, rs: Ruleset) -> Mapping[str, tuple[tuple[str, frozenset[int]], ...]]:
        """[Army Limits and Scoring Centres] — every centre of the aid, for the map: place -> (nation,
        rounds) in the order of play (a Viking centre is a sea, [Phase V])."""
        out: dict[str, list[tuple[str, frozenset[int]]]] = {}
        for nation in rs.order_of_play:
            for place, rounds in rs.extras["duel_centres"].get(nation, ()):
                out.setdefault(place, []).append((nation, rounds))
        return {place: tuple(pairs) for place, pairs in out.items()}

    def round_scoring(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """[Phase V] — Duel scores at the end of every nation turn (`phase_v`), never at a round's end."""

    def roman_withdrawal(self, ctx: TurnContext) -> None:
        """[Withdrawal of the Romans] — after the Saxon turn of round 1, the Roman armies become those of
        the nation the aid names for their area; "surviving forts remain": each passes to that nation
        (doubt D8), after the Romans score the Saxon Shore forts still standing (doubt D6)."""
        rs, state = ctx.rs, ctx.state
        w = rs.extras["duel_withdrawal"]
        if ctx.nation != w["after"] or state.round != w["round"]:
            return
        self.saxon_shore_kept(ctx)
        to: dict[str, str] = {}
        removed: dict[str, int] = {}
        forts: dict[str, int] = {}
        fort_heirs: dict[str, str] = {}
        for roman in sorted(rs.extras["duel_no_turn"]):
            for area in sorted(state.areas):
                st = state.areas[area].get(roman)
                heir = w["to"].get(area)
                if st is None or heir is None:
                    continue
                if st.fort:
                    forts[area], fort_heirs[area] = int(st.fort), heir
                    self.add_forts(state, area, heir, int(st.fort))
                if st.armies:
                    state.stack(area, heir).armies += st.armies
                    removed[area] = st.armies
                    to[area] = heir
                del state.areas[area][roman]
        state.prune()
        if forts:
            ctx.emit("duel_forts_remain", forts=forts, to=fort_heirs)
        if to:
            ctx.emit("duel_romans_withdrawn", to=to)
            # the units' record: the Roman armies go, each heir's come in their areas
            ctx.emit("legions_withdrawn", nation=sorted(rs.extras["duel_no_turn"])[0], removed=removed)
            for heir in sorted(set(to.values())):
                areas = [a for a in sorted(to) if to[a] == heir]
                ctx.emit("reinforced", nation=heir, armies=sum(removed[a] for a in areas), areas=areas)

    def saxon_shore_kept(self, ctx: TurnContext) -> None:
        """Doubt D6 (preserving) — at the withdrawal the Brython-Viking player scores +2 VP for each
        Saxon Shore fort still on the board, booked to the Romans (the nation with no turn)."""
        rs, state = ctx.rs, ctx.state
        shore = rs.extras["duel_saxon_shore"]
        for roman in sorted(rs.extras["duel_no_turn"]):
            for area in sorted(shore["areas"]):
                st = state.get(area, roman)
                pts = shore["points"] * int(st.fort) if st else 0
                if pts and scoring.may_score(state, roman):
                    state.score(roman, pts, f"the Saxon Shore forts kept in {rs.display(area)}", "hold", ctx.nation)
                    ctx.emit("scored", nation=roman, points=pts, kind="hold", area=area)

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
