"""The rules family: the sequence of play as overridable methods, and the named points where a
ruleset may differ (issue 15 item 4, issue 28 item 1).

`Rules` plays a game turn as the generic engine knows it (rule 4): `round_start`, then each nation's
`nation_turn` in the order of play (its `population_phase` with the `arrivals`, its `movement_cycles`
of movement and `battle_phase`, its `end_of_turn`), then `round_end`. pbem.rules.turn only drives
these methods and records what they did; a family replaces a whole phase by overriding one method
(a family with another economy overrides `population_phase`; one that scores after every nation turn
overrides `end_of_turn`), or one step of it by overriding a smaller hook. The same methods adjudicate
and validate (pbem.rules.legal: neutral dice, `strict`).

ruleset.yaml `family:` names the family; each subclass registers itself in FAMILIES (the registry of
pbem.rules.ruleset, which the loader reads). `Rules` itself is the plain engine, none of the special
rules of any edition: every hook does nothing, or the plain rule it names. ClassicRules (classic.py)
plays the Avalon Hill rules; Ffg2Rules (ffg2.py) the Fantasy Flight 2nd edition on top.

A hook reads its numbers from the ruleset's data (constants, roles, features, extras): the class says
*which* rule runs at that point, the data says with which values. Rules keep no state of their own
(one instance per ruleset, shared); ruleset-only game state lives in `GameState.extras`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import ClassVar

from pbem.errors import OrderProblem
from pbem.rules import accounting, battle, endturn, movement, population, scoring
from pbem.rules.battle_model import BattleModel
from pbem.rules.citations import cite_sections
from pbem.rules.context import ROUND_CLOSE_OWED, MoveRecord, NationTurn, TurnContext
from pbem.rules.events import Event, RomansLeft, make
from pbem.rules.movement import PlannedMove, kill_leader
from pbem.rules.orders import (
    BASE_LANGUAGE,
    ClearDefend,
    Move,
    OrderLanguage,
    Stay,
    order_to_dict,
    standing_key,
)
from pbem.rules.ruleset import FAMILIES, Constants, Ruleset
from pbem.rules.rulesets.schema import Schema
from pbem.rules.state import GameState
from pbem.rules.submission import way_out


class Rules:
    """A ruleset's answers at the named points of the sequence of play; the plain engine's defaults."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        FAMILIES[cls.name] = cls   # `family: <name>` in ruleset.yaml plays this class

    name = "base"   # ruleset.yaml `family: base`: the plain engine, none of the special rules
    constants_class: type[Constants] = Constants
    """the typed ruleset.yaml `constants` of this ruleset (rs.const)"""
    battle: BattleModel = BattleModel()
    """Rule 8 — the family's battle model (pbem.rules.battle_model): dice, hits, losses, retreats"""
    order_forms: OrderLanguage = BASE_LANGUAGE
    """the forms of the order language this family's rulesets accept (pbem.rules.orders.OrderForm,
    by keyword; the generic forms in pbem.orders.forms): a family adds its own or drops some"""
    schema: type[Schema] = Schema
    """the data sections this family owns and their checks (pbem/rules/rulesets/schema.py; none)"""
    refusal_phrases: tuple[tuple[str, str], ...] = ()
    """the refusals this family writes itself, with its own citations, as (pattern, message) pairs:
    a player's language renders them (pbem.orders.phrases.rules_text; the message marked `_()` for the
    catalog, its groups the names and numbers of the refusal)"""

    # --- the sequence of play: the game turn (rule 4.0) ---------------------------------------------
    def round_start(self, rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list[Event]) -> None:
        """Rule 4.0 — the beginning of a game turn (here: only its record). `ballots`: the VOTE orders
        of every nation, for a family that judges votes now."""
        events.append(make("round_started", round=state.round))

    def round_end(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rule 4.0 — the end of a game turn: its scoring (`round_scoring`), then the end of the game
        after the last turn (`game_end`), else the next turn is to start (`next_round`)."""
        self.round_scoring(rs, state, events)
        if state.round == rs.const.max_rounds:
            self.game_end(rs, state, events)
            return
        state.next_nation = None
        self.next_round(rs, state, events)

    def round_scoring(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rule 14.2 — the holdings of the victory-point cards in the scoring turns."""
        scoring.score_holdings(rs, state, events)

    def game_end(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rule 14.1 — the last game turn is over: the game ends."""
        state.finished = True
        state.next_nation = None
        events.append(make("game_over", round=state.round, vp=dict(state.vp)))

    def next_round(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rule 4.0 — the game turn is over: the next one is to start."""
        state.round += 1
        self.round_ended(state)
        state.next_nation = None
        events.append(make("round_ended", round=state.round - 1))

    def close_round(self, rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list[Event]) -> None:
        """The closing step of a round that `round_end` left open (GameState.extras ROUND_CLOSE_OWED):
        here nothing more than the next round (a family whose round ends with votes judges them first)."""
        del state.extras[ROUND_CLOSE_OWED]
        self.next_round(rs, state, events)

    def votes_owed(self, rs: Ruleset, state: GameState) -> bool:
        """Is the next step one that takes the nations' VOTE orders? (Here never.)"""
        return False

    def crowns_at_end(self, rs: Ruleset) -> bool:
        """Are the crowns of a round (Bretwalda, King) judged at its end, not at its start? (No.)"""
        return False

    def crown_time(self, rs: Ruleset, rnd: int) -> str:
        """When the crowns of round `rnd` are judged, for the ledger: at its start (rule 12.1)."""
        return f"turn {rnd}"

    # --- the sequence of play: a nation's turn (rules 4.1-4.5) --------------------------------------
    def nation_turn(self, t: NationTurn) -> None:
        """Rules 4.1-4.5 — one nation's turn: what its orders settle first (`turn_begins`), the
        population phase, what happens before the movement (`before_movement`), the movement and battle
        cycles, the end of the turn. `t` says where the turn starts and stops and whether a problem
        refuses it (it raises TurnStopped for either); its context `t.ctx` is changed in place."""
        self.turn_begins(t)
        if t.plays("population"):
            self.population_phase(t)
            t.refuse_on_problems()
            t.stop_after("after_population")
        self.before_movement(t)
        t.refuse_on_problems()
        self.movement_cycles(t)
        t.stop_after("after_battles")
        self.end_of_turn(t)

    def turn_begins(self, t: NationTurn) -> None:
        """The orders that hold from the start of the turn: standing orders (DEFEND, LOSSES) are kept
        until changed."""
        ctx = t.ctx
        for nation, no in ctx.orders.items():
            keep = ctx.state.standing.setdefault(nation, {})
            for o in no.standing_orders():
                if isinstance(o, ClearDefend):
                    keep.pop(f"defend:{o.area}", None)
                else:
                    keep[standing_key(o)] = order_to_dict(o)
            if not keep:
                ctx.state.standing.pop(nation, None)

    def population_phase(self, t: NationTurn) -> None:
        """Rule 4.1 — leaders leave (9.0), reinforcements (`roman_reinforcements`, 10.3), the arrivals
        (`arrivals`: placed before the increase is counted), the population increase (10.1-10.2),
        leaders enter (9.0). Problems are added to `t.problems`."""
        ctx = t.ctx
        population.leaders_leave(ctx)
        self.roman_reinforcements(ctx)
        t.problems += self.arrivals(t)
        t.problems += population.increase(ctx)
        t.stop_after("before_leaders")   # the prompt asks where the arriving leaders may enter (9.0)
        t.problems += population.leaders_enter(ctx)

    def arrivals(self, t: NationTurn) -> list[OrderProblem]:
        """Rules 4.2, 7.0 — the nation's invaders and raiders of this round appear in their seas."""
        return population.arrivals(t.ctx)

    def before_movement(self, t: NationTurn) -> None:
        """What is settled after the population phase and before the movement (nothing here)."""

    def movement_cycles(self, t: NationTurn) -> None:
        """Rule 7.3 — one cycle of movement and battle, two in a major invasion: for each, the
        `movement_phase` (when the turn plays it), then the `battle_phase`; then the battles' orders
        are judged (pbem.rules.accounting) unless a move was refused."""
        ctx, rs = t.ctx, t.ctx.rs
        t.seen = accounting.Seen()
        accounting.observe(ctx, t.seen, battles=False)
        own = ctx.own()
        n_cycles = self.cycles(rs, ctx.state, ctx.nation)
        moves, stays = own.of(Move), own.of(Stay)
        if self.stays_in_first_movement(rs):
            stays = [dataclasses.replace(s, cycle=1) for s in stays]
        if n_cycles == 1 and any(o.cycle == 2 for o in moves + stays):
            bad = next(o for o in sorted(moves + stays, key=lambda o: o.line or 0) if o.cycle == 2)
            t.move_problems.append(OrderProblem("not-now", bad.line, bad.text,
                                                f"the {rs.nations[ctx.nation].name} have no major invasion this turn (rule 7.3)"))
            t.refuse_on_problems()
            moves = [m for m in moves if m.cycle == 1]
            stays = [s for s in stays if s.cycle == 1]
        for c in range(1, n_cycles + 1):
            ctx.cycle = c
            if t.plays("movement"):
                self.movement_phase(t, [m for m in moves if m.cycle == c], [s for s in stays if s.cycle == c])
                t.stop_after("after_movement")
            accounting.observe(ctx, t.seen)
            self.battle_phase(t)
        refused_moves = bool(t.move_problems)
        t.problems += t.move_problems
        t.move_problems = []
        if not refused_moves:
            # with refused moves the battles are not those the player planned: judged again on correction
            t.problems += accounting.battle_phase_problems(ctx, t.seen)
            t.refuse_on_problems()

    def cycles(self, rs: Ruleset, state: GameState, nation: str) -> int:
        """Rule 7.3 — a major invasion gives two cycles of movement and battle."""
        return 2 if nation in rs.round_info(state.round).major_invasions else 1

    def stays_in_first_movement(self, rs: Ruleset) -> bool:
        """Rule 7.3 — is every STAY judged in the first movement? (No: a STAY after SECOND MOVEMENT
        belongs to the second.)"""
        return False

    def movement_phase(self, t: NationTurn, moves: list[Move], stays: list[Stay]) -> None:
        """Rules 5, 7 — plan the cycle's moves (refused moves go to `t.move_problems`; a stacking
        problem stops the whole movement), carry them out, then `after_movement`."""
        ctx = t.ctx
        planned, cycle_problems = movement.plan_cycle(ctx, moves, stays)
        if cycle_problems:
            t.move_problems += cycle_problems
            t.refuse_on_problems()
            bad_lines = {p.line for p in cycle_problems}
            planned = [p for p in planned if p.order.line not in bad_lines]
            if any(p.kind == "stacking" for p in cycle_problems):
                planned = []
        movement.execute_cycle(ctx, planned)
        self.after_movement(ctx)

    def battle_phase(self, t: NationTurn) -> None:
        """Rule 8 — every battle of this cycle, in the order the rules give (pbem.rules.battle)."""
        battle.fight_all(t.ctx)

    def end_of_turn(self, t: NationTurn) -> None:
        """Rules 7.13, 4.5, 6.0 — raider withdrawal, the turn's victory points, the family's own steps
        (`after_nation_turn`), overpopulation last (on what stays on the board); then every order the
        turn did not use is reported (pbem.rules.accounting)."""
        ctx = t.ctx
        held = self.captures_held_at_withdrawal(ctx)
        all_back = endturn.withdraw_raiders(ctx)
        ctx.state.raided_from.pop(ctx.nation, None)
        if held is not None:
            ctx.entered = held
        scoring.score_captures(ctx)
        scoring.score_kills(ctx, all_back)
        self.after_nation_turn(ctx)
        endturn.overpopulation(ctx)
        accounting.account(ctx, {p.line for p in t.problems})

    # --- records of the ruleset in GameState.extras ------------------------------------------------
    def permitted_subjects(self, state: GameState) -> Collection[str]:
        """Rule 11.1 — the subject nations the overlord allowed to increase this game turn (none)."""
        return ()

    def permit_subject(self, state: GameState, nation: str) -> None:
        """Rule 11.1 — ALLOW <nation>: the permission holds for the rest of the game turn (not kept here)."""

    def nation_submitted(self, rs: Ruleset, state: GameState, nation: str, to: str) -> None:
        """Rule 11.1 — `nation` has just submitted to `to` (nothing more to remember here)."""

    def round_ended(self, state: GameState) -> None:
        """Rule 4.0 — the end of a game turn: records that last one game turn are cleared (none)."""

    # --- population phase (rule 10) ------------------------------------------------------------
    def roman_reinforcements(self, ctx: TurnContext) -> None:
        """Rule 10.3 — reinforcements at the start of a nation's turn, before the increase (none)."""

    def may_increase(self, ctx: TurnContext, nation: str) -> bool:
        """Rules 2.24, 11.1 — the nation increases its population unless its counters say never, or it
        is a subject the overlord has not allowed (`subject_may_increase`)."""
        if not ctx.rs.nations[nation].increases_population:
            return False
        return nation not in ctx.state.subjects or self.subject_may_increase(ctx, nation)

    def subject_may_increase(self, ctx: TurnContext, nation: str) -> bool:
        """Rule 11.1 — a subject nation increases only with its overlord's permission this game turn."""
        return nation in self.permitted_subjects(ctx.state)

    def one_new_army_per_area(self, rs: Ruleset) -> bool:
        """Rule 10.2 — never a second new army in one area? (No: a second one where no other can go.)"""
        return False

    def population_count(self, ctx: TurnContext, value: float) -> float:
        """Rule 10.1 — the population points the occupied areas give this turn (as counted)."""
        return value

    def arrival_shortfall(self, ctx: TurnContext, short: int) -> None:
        """Rule 10.1 — `short` armies of the Turn Record Chart could not arrive (no counter free)."""

    def armies_not_raised(self, ctx: TurnContext, spare: int) -> int:
        """Rule 10.1 — `spare` new armies had no piece or no room; what the ruleset builds instead
        (returns how many of them were built; none here)."""
        return 0

    def army_piece_limit(self, rs: Ruleset, nation: str, rnd: int) -> int:
        """Rule 10.1 — how many armies (infantry) the nation may have on the board: its counter mix."""
        return rs.nations[nation].max_armies

    def leader_arrives(self, ctx: TurnContext, leader: str, area: str) -> None:
        """Rule 9.0 — a leader of the Turn Record Chart has just entered in `area` (nothing more)."""

    def leader_entry_areas(self, ctx: TurnContext, leader: str) -> list[str]:
        """Rule 9.0 — where a leader enters when its nation has no piece on the board (nowhere)."""
        return []

    def reinforcements_enter_with_leader(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rule 10.5 — do the reinforcements "placed as Increase Population" come with a leader instead?"""
        return False

    # --- movement and battle (rules 5, 7, 8, 9) ---------------------------------------------------
    def raid_turn(self, rs: Ruleset, rnd: int, nation: str) -> bool:
        """Rule 7.1 — the nation raids in round `rnd`: it has raiders arriving then (timeline.yaml)."""
        return any(a.nation == nation and a.raider for a in rs.round_info(rnd).arrivals)

    def must_come_ashore(self, ctx: TurnContext) -> bool:
        """Rule 7.2 — must the nation's armies at sea land in this movement phase? (No: 7.22 lets them stay.)"""
        return False

    def after_movement(self, ctx: TurnContext) -> None:
        """Rule 15.1 — the end of a movement phase, before battles (nothing more here)."""

    def stack_limit(self, rs: Ruleset, nation: str, area: str) -> int | None:
        """Rule 5.2 — the plain stacking limit for one land area (None: no limit)."""
        return rs.const.stack_hiland if rs.hiland(area) else rs.const.stack_clear

    def excess_stacking_removed(self, rs: Ruleset) -> bool:
        """Rule 15.1 — a nation already over the stacking limits when its movement starts (pieces that
        entered ignoring them) may leave them so, its excess removed after the movement (hook
        after_movement)? No: such a movement is refused as any other break of 5.2."""
        return False

    def shielded_from_successor(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rule 10.5 — the successor nation may not attack `nation` (no such limit here)."""
        return False

    def successor_shield_reason(self, rs: Ruleset, nation: str) -> str:
        """Rule 10.5 — the reply when the successor attacks a nation `shielded_from_successor`."""
        return f"the {rs.nations[rs.role('successor')].name} may not attack the {rs.nations[nation].name} (rule 10.5)"

    def hit_numbers(self, rs: Ruleset, area: str, defending: bool) -> tuple[int, int]:
        """Rule 8.0 — the die rolls that kill (ordinary armies, hard targets) in a battle in `area`."""
        return rs.const.hit, rs.const.hit_hard

    def battle_begins(self, ctx: TurnContext, defender: str) -> None:
        """Rule 8.0 — the nation to move attacks `defender` (nothing to remember here)."""

    def retreat_barred_origins(self, ctx: TurnContext, area: str, origins: list[str]) -> list[str]:
        """Rule 8.2 — the areas the defender may not retreat into because attackers came from them:
        `origins`, where the attacker's groups that stopped in the battle area entered from."""
        return origins

    def sea_retreat_barred(self, ctx: TurnContext) -> str | None:
        """Rule 7.22 — why the nation's attackers who came from the sea may not retreat to it, as the
        reason a `retreat_refused` gives (None: they may, invaders on the turn of landing and raiders)."""
        return None

    def leader_escape(self, ctx: TurnContext, area: str, nation: str, leader: str) -> str | None:
        """Rule 9.2 — a leader left alone with enemy armies dies; returns where it escaped to (never)."""
        return None

    def leader_falls(self, ctx: TurnContext, area: str, nation: str, leader: str, killer: str) -> None:
        """Rule 9.2 — `leader`, left alone in battle, falls to `killer`: he is eliminated."""
        kill_leader(ctx, area, nation, leader, killer=killer)

    # --- end of the nation turn (rules 7.13, 10.6, 12.4) ---------------------------------------------
    def captures_held_at_withdrawal(self, ctx: TurnContext) -> set[str] | None:
        """Rule 14.3 — the areas whose capture points the turn scores, when they are those the nation
        holds as the raider withdrawal begins (None: the areas it entered during the turn)."""
        return None

    def raider_route(self, ctx: TurnContext, route: list[str]) -> list[str]:
        """Rule 8.4 — the way raiders go back to sea after combat: `route`, the way they came, fighting
        where another nation holds an area of it."""
        return route

    def raiders_may_settle(self, ctx: TurnContext) -> bool:
        """Rule 7.13 — may the nation's raiders settle (SETTLE) this turn?"""
        return True

    def captures_in_other_turn(self, ctx: TurnContext) -> None:
        """Rule 4.5 — captures score in the capturing nation's own turn only: the empty areas other
        nations entered in this turn (ctx.entered_by_others) score nothing."""

    def after_nation_turn(self, ctx: TurnContext) -> None:
        """Rule 4.5 — the ruleset's own steps after the turn's points, before overpopulation (none)."""

    # --- the game turn (rules 4.0, 10.5, 10.7, 14) -------------------------------------------------
    def has_reinforcements(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rule 4.0 — reinforcements the nation gets this turn even with nothing on the board."""
        return False

    def subject_scores_half(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rule 11.1 — a subject nation scores nothing; True when it scores half its holdings instead."""
        return False

    def limit_holdings(self, rs: Ruleset, state: GameState, nation: str, held: dict[str, int],
                       half: bool) -> tuple[dict[str, int], int]:
        """Rule 14.2 — the holding points to score (area -> points) and how many were dropped."""
        return held, 0

    def subjects_that_attacked_successor(self, rs: Ruleset, state: GameState) -> frozenset[str]:
        """Rule 14.3 — nations whose armies a victory-point card's special kill line counts (none)."""
        return frozenset()

    def limes_held(self, rs: Ruleset, state: GameState, area: str, holder: str | None, subject_of: str | None) -> bool:
        """Rule 14.4 — does the empire score its Limes table for `area`? `holder`: the sole occupant;
        `subject_of`: the overlord the holder's area submits to. Here: the empire holds it, or a subject."""
        empire = rs.role("empire")
        return holder == empire or (holder is not None and subject_of == empire)


    # --- ffg-out (issue 28 item 5): what the generic rules ask a family, and the words it replies in ---
    RULE_REFS: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """topic -> this family's rule reference for it, where it replaces the generic rule's number"""

    def rule_ref(self, topic: str, generic: str) -> str:
        """The rule a message cites for `topic`: the family's own reference, else the `generic` one."""
        return self.RULE_REFS.get(topic, generic)

    def cite(self, rs: Ruleset, text: str, *, bare: bool = False) -> str:
        """`text` (a reply, prompt or report line) with its rule citations in this family's numbering.
        The generic rules' messages cite the classic sections; a family with its own numbering
        rewrites them here, at display (logged event texts keep their bytes). `bare`: also the bare
        sections `pbem rules show` writes in parentheses ("(14.2)"). Classic: as written."""
        table = self.citation_table(rs)
        return cite_sections(text, table, self.UNMAPPED_CITATION, bare=bare) if table else text

    UNMAPPED_CITATION: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """how `cite` writes a generic section the family's table does not map, by the text's language
    ("en", "ru") and for `bare` sections ("bare"); {word} is the text's own word, {sections} the numbers."""

    def citation_table(self, rs: Ruleset) -> Mapping[str, str]:
        """The generic rules' section -> this family's citation of the rule (empty: cite as written)."""
        return {}

    def road_cost(self, rs: Ruleset, state: GameState, nation: str, path: Sequence[str]) -> int:
        """Rule 5.12 — the moves a path costs: one per step (no roads)."""
        return len(path) - 1

    def stay_at_sea_refusal(self, rs: Ruleset, nation: str) -> tuple[str, str]:
        """Rule 7.2 — the reply (message, hint) to a STAY refused because `must_come_ashore`."""
        return (f"the {rs.nations[nation].name} must come ashore in this movement (rule 7.2)",
                "land them: armies still at sea after this movement are lost")

    def movement_problems(self, ctx: TurnContext, planned: Sequence[PlannedMove]) -> list[OrderProblem]:
        """Rule 5 — the family's own checks of one movement phase's planned moves, after rule 5.3's and
        before the stacking limits' (none here)."""
        return []

    def stops_in_hiland(self, rs: Ruleset, kind: str, escorted: bool) -> bool:
        """Rules 5.12, 9.1 — must a group of `kind` (armies, cavalry, leader) stop on entering a hiland?
        Yes, but a leader and the armies escorting it (moving on its path) need not (9.1)."""
        return not (kind == "leader" or escorted)

    def overrun_barred(self, ctx: TurnContext, area: str) -> str | None:
        """Rule 5.3 — why no group may move on through `area`, held by another nation, whatever the
        numbers stopping there (None: the two-to-one count of rule 5.3 alone decides)."""
        return None

    def attacker_retreat_area(self, ctx: TurnContext, group: MoveRecord) -> str:
        """Rule 8.3 — where an attacking `group` retreats to: the area it entered the battle area from."""
        return group.came_from

    def attack_barred(self, ctx: TurnContext, move: Move, defender: str) -> OrderProblem | None:
        """Rule 11.1 — a further reason the nation to move may not end `move` among `defender`'s armies
        (none here: rules 10.5, 11.1 and 11.2 are the generic checks)."""
        return None

    def captures_scored_by(self, rs: Ruleset, state: GameState, nation: str) -> str | None:
        """Rule 14.3 — the nation that scores `nation`'s captures instead of it (None: the nation itself)."""
        return None

    def overlord_way_out(self, ctx: TurnContext, area: str, overlord: str, subject: str) -> str | None:
        """Rule 11.1 — where the overlord's armies in `area` go when `subject` submits (None: nowhere;
        the reading of pbem.rules.submission.way_out)."""
        return way_out(ctx, area, overlord)

    def stranded_overlord_lost(self, rs: Ruleset) -> bool:
        """Rule 11.1 — are the overlord's armies with nowhere to go lost? (No: they stay, and do not fight.)"""
        return False

    def settle_refusal(self, ctx: TurnContext) -> str:
        """Rule 7.13 — why a SETTLE had no effect when `raiders_may_settle` says no."""
        return (f"the {ctx.rs.nations[ctx.nation].name} may not settle in round {ctx.state.round}: every raider "
                "goes back to sea (rule 7.13)")

    def leaders_withdrawn(self, rs: Ruleset) -> tuple[str, ...]:
        """Rule 10.6 — the leaders who leave the board with the withdrawing nation's armies (none here)."""
        return ()

    def leader_entry_choices(self, ctx: TurnContext, leader: str) -> list[str]:
        """Rule 9.0 — where an arriving leader may enter (LEADER <name> IN <area>): an area with the
        nation's pieces (the leader's Turn Record Chart condition met), else `leader_entry_areas`. The
        one rule the engine (population.leaders_enter) and the prompt (preview.turn_start) use."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        places = [a for a, st in state.areas.items() if nation in st and st[nation].units]
        ld = rs.leaders.get(leader)
        if ld is not None and ld.place_in is not None:
            # 9.0 "special conditions (noted on the Turn Record Chart) must be met": only there, if held
            places = [a for a in places if a == ld.place_in]
        return places or self.leader_entry_areas(ctx, leader)

    def overlord_turn_note(self, rs: Ruleset, nation: str, to: str) -> str:
        """Rule 11.1 — why a SUBMIT TO `to` had no effect in the nation's own turn, when the ruleset lets
        it submit to `to` only during `to`'s turn (ruleset.yaml submission.in_overlord_turn)."""
        return (f"the {rs.nations[nation].name} may submit to the {rs.display(to)} only during the "
                f"{rs.display(to)}' turn (rule 11.1): a SUBMIT sent before that turn is read then")

    def optional_rules_before_movement(self, ctx: TurnContext) -> list[OrderProblem]:
        """The family's optional rules at the start of the movement (none here)."""
        return []

    def optional_rules_after_movement(self, ctx: TurnContext) -> None:
        """The family's optional rules after a movement phase (none here)."""

    def raiders_home_on_land(self, ctx: TurnContext) -> bool:
        """Rule 7.13 — do the nation's raiders go home to the land area they started the turn in, not to a
        sea? (No.)"""
        return False

    def set_up(self, rs: Ruleset, state: GameState) -> None:
        """Rule 3.0 — the family's pieces placed at the start besides each nation's starting armies
        (nations.yaml `start`, placed by pbem.rules.turn.new_game_state). None here."""

    def holds_forts(self, rs: Ruleset, nation: str) -> bool:
        """Rule 10.4 — may the nation's stacks hold forts (Stack.fort)? Only the empire's, one a stack."""
        return nation == rs.role("empire")

    def builds_fort(self, rs: Ruleset, state: GameState, nation: str, area: str) -> bool:
        """Rule 10.4 — does the nation build a fort in `area` as it occupies it? (No forts here.)"""
        return False

    def overlord_submission_open(self, rs: Ruleset, state: GameState) -> bool:
        """Rule 11.2 — may the overlord's subject still submit to it this game turn? (No end here.)"""
        return True

    def withdrawal_round(self, rs: Ruleset) -> int | None:
        """Rule 10.6 — the game turn at whose end the withdrawing nation leaves (None: no withdrawal)."""
        return None

    def successor_increase_from(self, rs: Ruleset) -> int | None:
        """Rule 10.5 — the first game turn the successor nation increases population (None: as any nation)."""
        return None

    def has_nation_turn(self, rs: Ruleset, nation: str) -> bool:
        """Rule 4.0 — does the nation play turns of its own in the order of play? (Every nation here.)"""
        return True

    def nations_brought_in(self, rs: Ruleset, events: Sequence[Event]) -> set[str]:
        """Rule 10.5 — the nations a step's events brought onto the board before the timeline brings them
        (the successor replacing the empire: RomansLeft), for the checks of pbem.bots.conservation."""
        if any(isinstance(ev, RomansLeft) for ev in events):
            return {rs.role("successor")}
        return set()

    def invariants(self, rs: Ruleset, before: GameState, step: object) -> list[str]:
        """What must hold after a step of play (flow.Step) beyond the generic checks of pbem.bots.invariants,
        as the family's rules say: one line per violation (none here)."""
        return []

    def seat_colour(self, rs: Ruleset, seat: str) -> str | None:
        """Rule 13.0 — the player colour a seat of the control tables plays: its name is the colour here
        (None: the seat names its colour itself)."""
        return None

    def partners(self, rs: Ruleset, holdings: Mapping[str, Collection[str]]) -> list[list[str]]:
        """Rule 14.1 — who wins together, given each player's nations: here every player alone."""
        return [[p] for p in holdings]

    def population_prompt(self, rs: Ruleset, state: GameState, nation: str) -> list[str] | None:
        """Rule 10 — the prompt's lines on the nation's population phase, when the family writes its own
        (None: the generic line of rule 10.1's new armies)."""
        return None

    def arrival_note(self, rs: Ruleset, raiders: bool) -> str:
        """Rule 7.2 — what the prompt adds to an arrival at sea (nothing here: 7.22 lets invaders stay)."""
        return ""

    def scoring_centres(self, rs: Ruleset) -> Mapping[str, tuple[tuple[str, frozenset[int]], ...]]:
        """The places the map marks as scoring centres: area or sea -> (nation, the rounds it scores
        there) pairs. None here: the victory points table scores areas held (rule 12.0)."""
        return {}


FAMILIES[Rules.name] = Rules   # `family: base`: the plain engine (the subclasses register themselves)
