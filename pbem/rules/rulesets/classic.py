"""The classic Avalon Hill rules (ruleset `classic`) at the named points of the sequence of play.

Rule numbers are seed 001's. The nations, leaders, seas and areas that play a part here are
ruleset.yaml `roles` (empire, successor, withdrawing, canute, hardrada, conqueror ...), the numbers
ruleset.yaml `constants`: the same code plays any ruleset that keeps these rules with other values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from pbem.errors import OrderProblem
from pbem.i18n import _
from pbem.records import record
from pbem.rules import kingship, population, scoring
from pbem.rules.context import NationTurn, TurnContext
from pbem.rules.events import Event, make
from pbem.rules.orders import Allow, Disband, Submit
from pbem.rules.ruleset import Constants, Ruleset
from pbem.rules.rulesets import (
    classic_optional,
    classic_orders,  # noqa: F401  (registers BRITTANY, ALLOW)
)
from pbem.rules.rulesets.base import Rules
from pbem.rules.stacking import can_add
from pbem.rules.state import GameState
from pbem.rules.submission import can_submit, in_overlord_turn_only, submit, waiting_submissions


@record
class DanesWithdrawal:
    """Rule 10.6 — in `round` the Danes withdraw `armies` armies (less the shortfall of the
    `planned_invasion` armies that could not arrive)."""

    round: int
    armies: int
    planned_invasion: int


@record(kw_only=True)
class ClassicConstants(Constants):
    """ruleset.yaml `constants` of the classic rules beyond the generic ones (rule numbers of seed 001)."""

    roman_stack_hiland: int                  # 5.22 Romans: at most this many in a hiland
    roman_reinforce_rounds: tuple[int, ...]  # 10.3 turns of the Roman reinforcement
    roman_reinforce_to: int                  # 10.3 brought up to this many armies
    roman_forts_last_round: int              # 10.4 last turn a fort is built
    roman_departure_round: int               # 10.5 the Romans leave at the start of this turn
    romano_british_max: int                  # 10.5 Roman armies replaced, at most
    romano_british_increase_from: int        # 10.5 first turn of Romano-British increase
    romano_british_reinforcement_round: int  # 10.5 turn of the reinforcements placed as increase
    danes_withdrawal: DanesWithdrawal        # 10.6
    angle_submission_ends: int               # 11.2 the Brigantes' submission to the Angles ends


def remove_armies(ctx: TurnContext, nation: str, n: int) -> dict[str, int]:
    """Take `n` of the nation's armies off the board: where its DISBAND orders say first (never the last
    unit of a land area), else from its largest stack. Returns {area: removed}."""
    rs, state = ctx.rs, ctx.state
    removed: dict[str, int] = {}
    prefs = [a for o in ctx.own().of(Disband) for a in o.areas]
    while n > 0:
        areas = [a for a in state.areas_of(nation) if state.areas[a][nation].armies]
        if not areas:
            break
        chosen = [a for a in prefs if a in areas and (rs.is_sea(a) or state.areas[a][nation].units > 1)]
        area = chosen[0] if chosen else max(areas, key=lambda a: (state.areas[a][nation].armies, a))
        st = state.areas[area][nation]
        st.armies -= 1
        st.raiders = min(st.raiders, st.armies)
        removed[area] = removed.get(area, 0) + 1
        n -= 1
    state.prune()
    return removed


def reinforce_at_sea(rs: Ruleset, state: GameState, events: list, nation: str, sea: str, n: int) -> None:
    """Rule 10.7 — up to `n` new armies for `nation` in `sea`: no more than its counter mix has left
    off the board (10.1)."""
    n = min(n, rs.nations[nation].max_armies - sum(s.armies for st in state.areas.values() for k, s in st.items() if k == nation))
    if n > 0:
        state.stack(sea, nation).armies += n
        events.append(make("reinforced", nation=nation, sea=sea, armies=n))


PERMISSION = "roman_permission"          # GameState.extras: subjects allowed to increase this game turn (11.1)
SHORTFALL = "danes_withdraw_shortfall"   # GameState.extras: Danes who could not invade in turn 14 (10.6)


class ClassicRules(Rules):
    """The classic rules: Roman reinforcement, forts' stacking and hit numbers, the Roman departure,
    the Romano-British peace, the Danish turn-14 withdrawal and Canute, the turn-16 arrivals, Limes."""

    name = "classic"
    constants_class = ClassicConstants
    order_forms = Rules.order_forms.adding("BRITTANY", after="DISBAND").adding("ALLOW", after="SUBMIT")
    """the generic forms, BRITTANY (optional rule 16.251) and ALLOW (rule 11.1): classic_orders.py"""

    # --- the sequence of play (rule 4): the classic steps around the generic ones ---------------
    def round_start(self, rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list[Event]) -> None:
        """The beginning of a game turn: Roman departure (10.5, turn 6), end of subjection (11.2), King
        or Bretwalda (12.1-12.3, unless the family judges the crowns at the round's end), pieces
        changing kind (`round_start_conversions`), turn-16 reinforcements (10.7)."""
        super().round_start(rs, state, ballots, events)
        rnd = state.round
        self.roman_departure(rs, state, events)
        subject = rs.role("overlord_subject")
        if subject and rnd == rs.const.angle_submission_ends and state.subjects.get(subject) == rs.role("overlord"):
            del state.subjects[subject]
            events.append(make("subjection_ended", round=rnd, nation=subject))
        if not self.crowns_at_end(rs):
            self.king_army(rs, state, kingship.round_start(rs, state, ballots, events), events)
        self.round_start_conversions(rs, state, events)
        self.turn16_arrivals(rs, state, events)

    def king_army(self, rs: Ruleset, state: GameState, king: str | None, events: list[Event]) -> None:
        """Rule 12.3 — the new King gets an extra army, placed as population increase."""
        if king:
            ctx = TurnContext(rs, state, king, {}, None)  # type: ignore[arg-type]
            population.place_new_armies(ctx, king, 1 if population.free_armies(ctx, king) else 0, [])
            events += ctx.events

    def votes_owed(self, rs: Ruleset, state: GameState) -> bool:
        """Rule 12.1 — the next step is the start of a round with a Bretwalda vote (or a King round
        with one too, unless `no_bretwalda_in_king_rounds`)."""
        sc = rs.scoring
        return (state.round in sc["bretwalda_rounds"]
                or (state.round in sc["king_rounds"] and not sc.get("no_bretwalda_in_king_rounds")))

    def round_scoring(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rules 14.2, 14.4 — the holdings, then the Roman Limes."""
        super().round_scoring(rs, state, events)
        scoring.score_limes(rs, state, events)

    def game_end(self, rs: Ruleset, state: GameState, events: list[Event]) -> None:
        """Rule 12.5 — the turn-16 King, then the game ends (14.1)."""
        kingship.king_turn16(rs, state, events)
        super().game_end(rs, state, events)

    def turn_begins(self, t: NationTurn) -> None:
        """Standing orders, then rule 11.1 — each turn the Roman player may allow subject nations to
        increase population (ALLOW <nation> in the Romans' orders; it holds for the rest of the game
        turn)."""
        super().turn_begins(t)
        ctx = t.ctx
        for o in ctx.own().of(Allow):
            if ctx.nation != ctx.rs.role("empire") or ctx.state.subjects.get(o.nation) != ctx.nation:
                t.problems.append(OrderProblem("not-now", o.line, o.text,
                                               "only the Romans may allow a nation subject to them to increase (rule 11.1)"))
                continue
            self.permit_subject(ctx.state, o.nation)
            ctx.emit("allowed", nation=o.nation, line=o.line)

    def before_movement(self, t: NationTurn) -> None:
        """Rules 11.1, 11.2 — the nation's own SUBMIT TO, at the start of its turn; then, before the
        movement, the optional rules 16.1 (Pict raiders) and 16.251 (Brittany)."""
        t.problems += self.submissions(t.ctx)
        t.refuse_on_problems()
        if t.plays("movement"):
            t.problems += self.optional_rules_before_movement(t.ctx)   # 16.1, 16.251 (optional)

    def submissions(self, ctx: TurnContext) -> list[OrderProblem]:
        """Rules 11.1, 11.2 — the nation's own SUBMIT TO Romans/Angles, at the start of its turn, when
        under the area threshold (a SUBMIT sent earlier may already have taken effect in another
        nation's turn, rules/submission.py)."""
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        problems: list[OrderProblem] = []
        for o in ctx.own().of(Submit):
            if state.subjects.get(nation) == o.to or in_overlord_turn_only(rs, o.to):
                continue   # already subject, or judged in the overlord's turn (the report says why)
            if not can_submit(rs, state, nation, o.to):
                problems.append(OrderProblem("not-now", o.line, o.text,
                                             f"the {rs.nations[nation].name} may not submit to the {rs.display(o.to)} now (rules 11.1, 11.2)",
                                             _("to Rome: Welsh under 5 areas, Brigantes under 4, Picts under 3, while Roman armies are on the board; "
                                               "Brigantes to the Angles: under 3 areas in Scotland and Galloway, before turn 12")))
                continue
            submit(ctx, nation, o.to, "start of its turn", o.line)
        return problems

    def stays_in_first_movement(self, rs: Ruleset) -> bool:
        """Rule 7.3 — data version 1 judged every STAY in the first movement (feature
        `stays_by_movement` off); now a STAY after SECOND MOVEMENT belongs to the second."""
        return not rs.feature("stays_by_movement")

    def after_movement(self, ctx: TurnContext) -> None:
        """The end of a movement phase: 16.251 (optional) the Brittany roll after the movement of
        turn 7; 11.1 the submissions that wait for the end of a movement phase."""
        self.optional_rules_after_movement(ctx)
        waiting_submissions(ctx, "after a movement phase")

    def may_increase(self, ctx: TurnContext, nation: str) -> bool:
        """Rules 2.24, 11.1, and 10.5 — the Romano-British increase only from turn 7."""
        rs = ctx.rs
        if nation == rs.role("successor") and ctx.state.round < rs.const.romano_british_increase_from:
            return False
        return super().may_increase(ctx, nation)

    def round_start_conversions(self, rs: Ruleset, state: GameState, events: list) -> None:
        """Pieces that change kind at the start of a game turn (none in the classic rules)."""

    # --- records in GameState.extras ------------------------------------------------------------
    def permitted_subjects(self, state: GameState) -> Collection[str]:
        """Rule 11.1 — the subjects the Romans allowed (ALLOW) to increase this game turn."""
        return state.extras.get(PERMISSION, ())

    def permit_subject(self, state: GameState, nation: str) -> None:
        """Rule 11.1 — "each turn the Roman player may allow" a subject to increase: for this game turn."""
        state.extras.setdefault(PERMISSION, set()).add(nation)

    def round_ended(self, state: GameState) -> None:
        """Rule 11.1 — the Roman permissions last one game turn."""
        state.extras.pop(PERMISSION, None)

    # --- population phase ------------------------------------------------------------------------
    def roman_reinforcements(self, ctx: TurnContext) -> None:
        """Rule 10.3 — at the beginning of turns 4 and 5 the Romans are brought up to 10 armies in the
        Channel."""
        rs, state = ctx.rs, ctx.state
        rome, sea = rs.role("empire"), rs.role("empire_sea")
        if ctx.nation != rome or state.round not in rs.const.roman_reinforce_rounds:
            return
        have, _ = population.pieces_in_play(ctx, rome)
        n = max(0, rs.const.roman_reinforce_to - have)
        if n:
            state.stack(sea, rome).armies += n
            ctx.emit("reinforced", nation=rome, sea=sea, armies=n)

    def arrival_shortfall(self, ctx: TurnContext, short: int) -> None:
        """Rule 10.6 — if fewer than six Danes can invade in turn 14, the shortfall is subtracted from
        the four armies to be withdrawn at the end of that turn."""
        rs, state = ctx.rs, ctx.state
        if short > 0 and ctx.nation == rs.role("withdrawing") and state.round == rs.const.danes_withdrawal.round:
            state.extras[SHORTFALL] = state.extras.get(SHORTFALL, 0) + short

    # --- movement and battle ---------------------------------------------------------------------
    def stack_limit(self, rs: Ruleset, nation: str, area: str) -> int | None:
        """Rule 5.2 — 3 in a clear area, 2 in a hiland; 5.22: the Romans none, but 4 in a hiland."""
        if nation == rs.role("empire"):
            return rs.const.roman_stack_hiland if rs.hiland(area) else None
        return rs.const.stack_hiland if rs.hiland(area) else rs.const.stack_clear

    def shielded_from_successor(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rule 10.5 — the Romano-British may never attack the Brigantes or the Welsh (`successor_peace`)."""
        return nation in (rs.role("successor_peace") or ())

    def successor_shield_reason(self, rs: Ruleset, nation: str) -> str:
        """Rule 10.5 — the reply, as the adjudicator has always given it."""
        return _("the Romano-British cannot attack the Brigantes or the Welsh (rule 10.5)")   # marked for the catalog

    def hit_numbers(self, rs: Ruleset, area: str, defending: bool) -> tuple[int, int]:
        """Rule 8.0 — 5 or 6 kills an army, only a 6 when it defends in a hiland; cavalry, Roman armies
        (10.4) and forts only on a 6."""
        hard = rs.const.hit_hard
        return (hard if defending and rs.hiland(area) else rs.const.hit), hard

    # --- end of the nation turn ------------------------------------------------------------------
    def after_nation_turn(self, ctx: TurnContext) -> None:
        """Rules 12.4, 10.6 — end of the Danish turn 14: Canute may be King (judged on the position the
        Danes made), then four armies (less the invasion shortfall) and Canute leave. Overpopulation (6.0)
        is counted afterwards on what stays (our reading: the rules give no order for these steps)."""
        rs, state = ctx.rs, ctx.state
        if ctx.nation != rs.role("withdrawing") or state.round != rs.const.danes_withdrawal.round:
            return
        kingship.canute(rs, state, ctx.events)
        self.danes_withdrawal(ctx)
        state.extras.pop(SHORTFALL, None)

    def danes_withdrawal(self, ctx: TurnContext, exact: bool = False) -> None:
        """Rule 10.6 — four armies (less the invasion shortfall) and Canute leave; DISBAND orders say
        where from, as for 6.0. `exact`: always the four, and Canute stays (a family that reads it so)."""
        rs, state = ctx.rs, ctx.state
        n = max(0, rs.const.danes_withdrawal.armies - (0 if exact else state.extras.get(SHORTFALL, 0)))
        removed = remove_armies(ctx, ctx.nation, n)
        lines = [o.line for o in ctx.own().of(Disband)]
        for leader, area in state.leaders_on_board(ctx.nation).items():
            if leader == rs.role("canute") and not exact:
                state.areas[area][ctx.nation].leaders.remove(leader)
        state.prune()
        ctx.emit("danes_withdrew", removed=removed, lines=lines)

    # --- the game turn ---------------------------------------------------------------------------
    def has_reinforcements(self, rs: Ruleset, state: GameState, nation: str) -> bool:
        """Rules 10.3, 10.5 — the Romans are reinforced in turns 4-5 even with none left; the
        Romano-British get their turn-7 reinforcements."""
        if nation == rs.role("successor") and state.round == rs.const.romano_british_reinforcement_round:
            return True
        return nation == rs.role("empire") and state.round in rs.const.roman_reinforce_rounds

    def roman_departure(self, rs: Ruleset, state: GameState, events: list) -> None:
        """Rule 10.5 — at the start of turn 6 each surviving Roman army (up to 8) becomes a
        Romano-British army; forts go (10.4).

        Our reading where the rule is silent: the Romano-British are ordinary armies, so the replacement
        respects their stacking limits (5.2; 5.21 by analogy): each Roman area gets as many as 5.2 allows,
        the largest Roman stacks first (so the one larger group goes where the Romans were strongest);
        armies that fit nowhere the Romans stood are not replaced, like those beyond eight.
        """
        if state.round != rs.const.roman_departure_round:
            return
        rome, successor = rs.role("empire"), rs.role("successor")
        budget = rs.const.romano_british_max
        roman = {a: st[rome].armies for a, st in state.areas.items() if rome in st and rs.is_land(a)}
        allowed = self.departure_areas(rs)   # None: every Roman area (10.5)
        forts = sorted((a for a, st in state.areas.items() if rome in st and st[rome].fort and a in allowed),
                       key=lambda a: (-roman.get(a, 0), a)) if allowed else []
        if allowed:
            roman = {a: n for a, n in roman.items() if a in allowed}
        for area in [a for a, st in state.areas.items() if rome in st]:
            del state.areas[area][rome]
        state.prune()
        replaced: dict[str, int] = {}
        for area in forts:   # where the family names the areas: each surviving fort first, then the armies
            if budget > 0 and can_add(rs, state, successor, area):
                state.stack(area, successor).armies += 1
                replaced[area] = replaced.get(area, 0) + 1
                budget -= 1
        for area in sorted(roman, key=lambda a: (-roman[a], a)):
            for _unit in range(roman[area]):
                if budget <= 0 or not can_add(rs, state, successor, area):
                    break
                state.stack(area, successor).armies += 1
                replaced[area] = replaced.get(area, 0) + 1
                budget -= 1
        state.subjects = {k: v for k, v in state.subjects.items() if v != rome}
        state.prune()
        events.append(make("romans_left", round=state.round, replaced=dict(sorted(replaced.items())),
                           not_replaced=max(0, sum(roman.values()) + len(forts) - sum(replaced.values()))))

    def departure_areas(self, rs: Ruleset) -> tuple[str, ...] | None:
        """Rule 10.5 — the areas where Roman armies (and forts) are replaced at the departure: None,
        every area the Romans stood in."""
        return None

    def turn16_arrivals(self, rs: Ruleset, state: GameState, events: list) -> None:
        """Rule 10.7 — Harald: one army per area his forces occupy; William: one each for Essex, Wessex,
        Hwicce, South Mercia held, three if the Normans killed Harold; none if the leader is dead.
        (The leaders, seas and areas are ruleset.yaml `roles`: hardrada, conqueror, rival, ...)"""
        if state.round != rs.const.max_rounds:
            return
        harald = rs.role("hardrada")
        if harald and harald not in state.dead_leaders:
            nation = rs.nation_of_leader(harald)
            reinforce_at_sea(rs, state, events, nation, rs.role("hardrada_sea"),
                             len([a for a in state.areas_of(nation) if rs.is_land(a)]))
        william = rs.role("conqueror")
        if william and william not in state.dead_leaders:
            nation = rs.nation_of_leader(william)
            n = sum(1 for a in rs.role("conqueror_hold") or () if scoring.sole_occupant(state, a) == nation)
            if state.leader_killed_by.get(rs.role("rival")) == nation:
                n += 3
            reinforce_at_sea(rs, state, events, nation, rs.role("conqueror_sea"), n)

    # --- ffg-out (issue 28 item 5) ----------------------------------------------------------------
    def leaders_withdrawn(self, rs: Ruleset) -> tuple[str, ...]:
        """Rule 10.6 — Canute leaves with the Danish armies (as `danes_withdrawal` plays it)."""
        return (rs.role("canute"),)

    def optional_rules_before_movement(self, ctx: TurnContext) -> list[OrderProblem]:
        """16.1 (optional): every Pict army a raider in turns 4-5; 16.251 (optional): BRITTANY orders."""
        classic_optional.pict_raiders(ctx)
        return classic_optional.brittany(ctx)

    def optional_rules_after_movement(self, ctx: TurnContext) -> None:
        """16.251 (optional): the Brittany roll after the movement of the last Brittany turn."""
        classic_optional.brittany_roll(ctx)

    def raiders_home_on_land(self, ctx: TurnContext) -> bool:
        """16.1 (optional) — the Pict raiders go home to the land area they started the turn in."""
        return classic_optional.raiders_home_on_land(ctx)

    def builds_fort(self, rs: Ruleset, state: GameState, nation: str, area: str) -> bool:
        """Rule 10.4 — the Romans build a fort in each area they occupy up to the last fort turn, once."""
        return (nation == rs.role("empire") and state.round <= rs.const.roman_forts_last_round
                and area not in state.forts_built)

    def overlord_submission_open(self, rs: Ruleset, state: GameState) -> bool:
        """Rule 11.2 — the Brigantes' submission to the Angles is possible only before it ends."""
        return state.round < rs.const.angle_submission_ends

    def withdrawal_round(self, rs: Ruleset) -> int | None:
        """Rule 10.6 — the Danes leave at the end of their turn 14."""
        return rs.const.danes_withdrawal.round

    def successor_increase_from(self, rs: Ruleset) -> int | None:
        """Rule 10.5 — the Romano-British increase from turn 6 on."""
        return rs.const.romano_british_increase_from

# --- data schema (issue 28 item 3: the sections of the ruleset files only the classic rules read) ---

from pbem.rules.rulesets.schema import Board, Schema  # noqa: E402  (appended section)


class ClassicSchema(Schema):
    """ruleset.yaml `scoring` (Bretwalda and King 12.1-12.5, the Limes 14.4, the data overrides of the
    victory-point cards), `submission` (11.1, 11.2), `south_of_york` (10.5); the readings of the classic
    reference files (the Avalon Hill columns `ah` of colours and counter mix, doubts of seed 001)."""

    list_keys = {"south_of_york": "area"}   # 10.5: where the Romano-British reinforcements enter
    colour_key = "ah"                       # nations.yaml colour_4p.ah: the Avalon Hill colour sets (13.0)
    forces_keys = ("ah", "ffg_a", "ffg_timeline_a", "b_cap")   # nations.yaml forces.<kind>.<source>
    round_notes_keys = ("ah", "special")
    leader_place_keys = ("where_b", "where")   # Oswiu only in Bernicia, Offa only in North Mercia (B)

    def leader_doubt(self, board_ruleset, leader, nation_name, place_name) -> str:
        """Rule 9.0 — seed 001 has no Turn Record Chart: a leader's round from the reference data is a
        doubt unless the leader's sources name seed 001 (a ruleset whose source is not seed 001 reads
        its board and has none)."""
        proven = "S001" in str(leader.get("sources", "")) or "seed 001" not in str(board_ruleset.get("source", ""))
        doubt = "" if proven else "round from A and B (FFG data), not in seed 001"
        if place_name and not proven:
            doubt += f"; placed only in {place_name}, if the {nation_name} hold it (B)"
        return doubt

    def scoring(self, board: Board, sc: dict) -> None:
        """Rules 12.1-12.5 and 14.4 — the Bretwalda and King rounds and awards, the King of turn 16,
        the Limes round; `overrides`: facts of seed 001 that the reference cards contradict."""
        rc, nations, leaders, max_rounds = board.readers["ruleset"], board.nations, board.leaders, board.max_rounds
        written = rc.mapping(board.ruleset, "scoring", "")
        rc.get(written, "hold_rounds", "scoring")   # 14.2: the classic rules score holdings
        limes = rc.integer(rc.get(sc, "limes_round", "scoring"), "scoring.limes_round", minimum=1)
        if limes > max_rounds:
            raise rc.fail("scoring.limes_round", "after the last turn")
        for k, v in rc.mapping(sc, "awards", "scoring").items():
            rc.integer(v, f"scoring.awards.{k}", minimum=1)
        for k in ("bretwalda", "king"):
            if k not in sc["awards"]:
                raise rc.fail(f"scoring.awards.{k}", "missing")
        for nid, v in rc.mapping(sc, "king_turn16", "scoring").items():
            rc.one(nid, "scoring.king_turn16", nations, "nation")
            rc.integer(v, f"scoring.king_turn16.{nid}", minimum=1)
        for nid, lid in rc.mapping(sc, "king_turn16_leaders", "scoring").items():
            where = f"scoring.king_turn16_leaders.{nid}"
            rc.one(nid, "scoring.king_turn16_leaders", nations, "nation")
            rc.one(lid, where, leaders, "leader")
            if leaders[lid].nation != nid:
                raise rc.fail(where, f"{lid} is a leader of the {leaders[lid].nation}, not the {nid}")
        for k in ("bretwalda_rounds", "king_rounds"):
            rc.rounds_list(rc.get(sc, k, "scoring"), f"scoring.{k}", max_rounds)
        over = rc.mapping(sc, "overrides", "scoring", required=False)
        for nid, v in rc.mapping(over, "roman_fort_kill", "scoring.overrides", required=False).items():
            rc.one(nid, "scoring.overrides.roman_fort_kill", nations, "nation")
            rc.integer(v, f"scoring.overrides.roman_fort_kill.{nid}", minimum=1)
        for nid, v in rc.mapping(over, "capture_rounds", "scoring.overrides", required=False).items():
            rc.one(nid, "scoring.overrides.capture_rounds", nations, "nation")
            rc.rounds_list(v, f"scoring.overrides.capture_rounds.{nid}", max_rounds)
        for nid in over.get("army_kills_of_any_other") or []:
            rc.one(nid, "scoring.overrides.army_kills_of_any_other", nations, "nation")

    def cards(self, board: Board, cards: dict) -> dict:
        """ruleset.yaml scoring.overrides applied to the cards, where seed 001 states what the reference
        cards contradict: `capture_rounds` (a nation's capture rounds, 14.2, doubt 16),
        `army_kills_of_any_other` (army kills of any other nation, doubt 21), `roman_fort_kill` (the
        points for a Roman fort, 8.4 example)."""
        over = board.ruleset.get("scoring", {}).get("overrides") or {}
        for nid, rounds in (over.get("capture_rounds") or {}).items():
            if nid in cards:
                card, rounds = cards[nid], frozenset(rounds)
                cards[nid] = dataclasses.replace(card, capture=tuple((rounds, t) for _, t in card.capture))
        for nid in over.get("army_kills_of_any_other") or []:
            if nid in cards:
                cards[nid] = dataclasses.replace(cards[nid], kills=tuple(
                    dataclasses.replace(k, of=None) if k.kind in ("armies", "cavalry") and k.of is not None else k
                    for k in cards[nid].kills))
        for nid, pts in (over.get("roman_fort_kill") or {}).items():
            if nid in cards:
                cards[nid] = dataclasses.replace(cards[nid], kills=tuple(
                    dataclasses.replace(k, points=int(pts)) if k.kind == "roman_forts" else k for k in cards[nid].kills))
        return cards

    def submission(self, board: Board) -> dict:
        """Rules 11.1, 11.2 — `to_romans` (nation: fewer areas than this), `to_angles` (nation:
        fewer_than, count_in regions, plus areas)."""
        rc, nations, areas = board.readers["ruleset"], board.nations, board.areas
        sub = rc.mapping(board.ruleset, "submission", "")
        for nid, v in rc.mapping(sub, "to_romans", "submission").items():
            rc.one(nid, "submission.to_romans", nations, "nation")
            rc.integer(v, f"submission.to_romans.{nid}", minimum=1)
        for nid, v in rc.mapping(sub, "to_angles", "submission", required=False).items():
            where = f"submission.to_angles.{nid}"
            rc.one(nid, "submission.to_angles", nations, "nation")
            rc.integer(rc.get(v, "fewer_than", where), f"{where}.fewer_than", minimum=1)
            rc.ids(rc.seq(v, "count_in", where), f"{where}.count_in", board.regions, "region")
            rc.ids(rc.seq(v, "plus", where), f"{where}.plus", areas, "area")
        return dict(sub)


ClassicRules.schema = ClassicSchema
