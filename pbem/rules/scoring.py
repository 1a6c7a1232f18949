"""Rule 14 — victory points: captures and kills in the nation's turn (4.5), holdings at the end of the
scoring rounds (14.2), the Roman Limes (14.4). Every point goes through GameState.score with its reason.

Submitted areas (11.1, 11.2) count for the overlord: every area of a nation subject to the empire,
but of the 11.2 subject (role overlord_subject) only the areas in the regions and areas the ruleset's
submission.to_angles lists ("areas in England (except ...) ... cannot submit").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.rules.context import TurnContext
from pbem.rules.events import make
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState


def may_score(state: GameState, nation: str) -> bool:
    """Rule 11.1 — a subject nation cannot receive any victory points."""
    return nation not in state.subjects


def submitted_area(rs: Ruleset, state: GameState, nation: str, area: str) -> str | None:
    """Rules 11.1, 11.2 — the overlord of `nation` if its holding of `area` is under submission.

    To the empire every area of the subject submits (11.1). To the 11.2 overlord only the subject's areas
    in the listed regions and areas do (submission.to_angles: count_in, plus); the others "cannot submit"
    (11.2), so there the two nations are as free as before.
    """
    over = state.subjects.get(nation)
    if over is None:
        return None
    if over == rs.role("overlord"):
        rule = rs.submission["to_angles"].get(nation)
        if rule is None or not (rs.region(area) in rule["count_in"] or area in rule["plus"]):
            return None
    return over


def score_captures(ctx: TurnContext) -> None:
    """Rule 14.3 — capture points for areas occupied during the turn, once per area per game (scored by
    `capture_scorer`), then those the ruleset counts in another nation's turn (Rules.captures_in_other_turn)."""
    score_capture_areas(ctx, ctx.nation, ctx.entered)
    ctx.rs.rules.captures_in_other_turn(ctx)


def capture_scorer(rs: Ruleset, state: GameState, nation: str) -> tuple[str, str]:
    """Rule 14.3 — who scores the captures of `nation` and how the ledger says it: the nation itself, or
    the nation the ruleset has score them instead (Rules.captures_scored_by), "the <nation> captured ..."."""
    scorer = rs.rules.captures_scored_by(rs, state, nation)
    if scorer is not None:
        return scorer, f"the {rs.nations[nation].name} "
    return nation, ""


def score_capture_areas(ctx: TurnContext, nation: str, areas) -> None:
    """Rule 14.3 — `nation` occupied `areas` during this turn: the capture points of its card for this
    round, once per area per game."""
    rs, state = ctx.rs, ctx.state
    nation, by = capture_scorer(rs, state, nation)
    card = rs.vp.get(nation)
    if not card or not may_score(state, nation):
        return
    taken = state.captured.setdefault(nation, set())
    for rounds, table in card.capture:
        if rounds and state.round not in rounds:
            continue
        for area in sorted(areas):
            if area in table and area not in taken:
                taken.add(area)
                state.score(nation, table[area], f"{by}captured {rs.display(area)}", "capture", ctx.nation)
                ctx.emit("scored", nation=nation, points=table[area], kind="capture", area=area)


UNIT_WORDS = {"armies": "an army", "roman_armies": "an army", "cavalry": "a cavalry unit", "roman_forts": "a fort",
              "burhs": "a burh"}


def kill_points(rs: Ruleset, killer: str, kill, rnd: int, own_turn: bool = True,
                attacking_subjects: frozenset[str] = frozenset()) -> int:
    """Rule 14.3 — the best kill line of the killer's card for this kill. `own_turn` says whether the kill
    was made in the killer's own nation turn (lines a card marks own-turn-only need it); a `cavalry` line
    counts cavalry only. A line for the armies of attacking subjects (`of_attacking_subjects`) scores
    only for the nations in `attacking_subjects` (Rules.subjects_that_attacked_successor)."""
    card = rs.vp.get(killer)
    if not card:
        return 0
    best = 0
    for rule in card.kills:
        if not rule.applies(rnd, own_turn):
            continue
        if rule.of_attacking_subjects:
            if kill.kind in ("armies", "cavalry") and kill.victim in attacking_subjects:
                best = max(best, rule.points)
            continue
        if rule.kind == "leaders" and kill.kind == "leaders" and kill.leader in rule.leaders:
            best = max(best, rule.points)
        elif rule.kind == "roman_forts" and kill.kind == "roman_forts":
            best = max(best, rule.points)
        elif (rule.kind == "armies" and kill.kind in ("armies", "cavalry", "roman_armies")
              or rule.kind == "cavalry" and kill.kind == "cavalry"):
            if (rule.of is None and kill.victim != killer) or (rule.of is not None and kill.victim in rule.of):
                best = max(best, rule.points)
    return best


def score_kills(ctx: TurnContext, raiders_all_back: bool) -> None:
    """Rules 14.3, 7.12-7.14 — points for destroying the pieces a card lists. Raiders' points count only
    if every surviving raider returned to sea; eliminated raiders do not cancel them (7.14)."""
    rs, state = ctx.rs, ctx.state
    for k in ctx.kills:
        if not may_score(state, k.killer):
            continue
        at_once = rs.scoring.get("kill_points_at_once")   # scoring.kill_points_at_once: 7.13 never cancels them
        if k.by_raiders and k.killer == ctx.nation and not raiders_all_back and not at_once:
            ctx.emit("raid_points_lost", nation=k.killer, area=k.area, kind=k.kind)
            continue
        bonus = (rs.scoring.get("leader_kill_bonus") or {}).get(k.leader or "")
        if bonus and k.killer in bonus["by"] and state.round in bonus["rounds"] and may_score(state, bonus["to"]):
            # scoring.leader_kill_bonus: another nation (`to`) scores when this leader falls to one of `by`
            state.score(bonus["to"], bonus["points"], f"{rs.display(k.leader)} eliminated", "kill", ctx.nation)
            ctx.emit("scored", nation=bonus["to"], points=bonus["points"], kind="kill", area=k.area, victim=k.victim)
        attackers = rs.rules.subjects_that_attacked_successor(rs, state)   # the card's special kill line
        pts = kill_points(rs, k.killer, k, state.round, own_turn=k.killer == ctx.nation, attacking_subjects=attackers)
        if pts:
            what = rs.display(k.leader) if k.leader else f"{UNIT_WORDS.get(k.kind, k.kind)} of the {rs.display(k.victim)}"
            state.score(k.killer, pts, f"destroyed {what} in {rs.display(k.area)}", "kill", ctx.nation)
            ctx.emit("scored", nation=k.killer, points=pts, kind="kill", area=k.area, victim=k.victim)


def sole_occupant(state: GameState, area: str) -> str | None:
    """Rule 14.3 — holding means being sole occupant; two opposing leaders alone control nothing (9.2)."""
    present = state.nations_in(area)
    if len(present) != 1:
        return None
    return present[0]


def scoring_occasion(rs: Ruleset, rnd: int) -> int | None:
    rounds = list(rs.scoring["hold_rounds"])
    return rounds.index(rnd) + 1 if rnd in rounds else None


def score_holdings(rs: Ruleset, state: GameState, events: list) -> None:
    """Rule 14.2 — at the end of turns 4, 7, 10, 13 and 16 each nation scores the areas it holds.

    Rule 11.2: the overlord also scores the areas its subject holds under submission (submitted_area).
    """
    occ = scoring_occasion(rs, state.round)
    if occ is None:
        return
    for nation in rs.order_of_play:
        card = rs.vp.get(nation)
        half = rs.rules.subject_scores_half(rs, state, nation)   # 11.1, or half as the ruleset says
        if not card or occ not in card.hold or not (may_score(state, nation) or half):
            continue
        table = card.hold[occ]
        held = {}
        for area in sorted(table):
            holder = sole_occupant(state, area)
            if holder == nation or (holder and submitted_area(rs, state, holder, area) == nation):
                held[area] = table[area]
        held, dropped = rs.rules.limit_holdings(rs, state, nation, held, half)   # the ruleset's score limits
        if dropped:
            events.append(make("score_limited", round=state.round, nation=nation, points=dropped))
        for area, pts in held.items():
            state.score(nation, pts, f"held {rs.display(area)} (scoring turn {state.round})", "hold", None)
            events.append(make("scored", round=state.round, nation=nation, points=pts,
                           kind="hold", area=area))


def score_limes(rs: Ruleset, state: GameState, events: list) -> None:
    """Rule 14.4 (text truncated in seed 001; doubt 18) and 11.1 — at the end of turn 5 the empire
    score their Limes table for each area they solely occupy or a nation subject to them occupies."""
    if state.round != rs.scoring["limes_round"]:
        return
    rome = rs.role("empire")
    card = rs.vp.get(rome) if rome else None
    if not card:
        return
    for area in sorted(card.limes):
        holder = sole_occupant(state, area)
        subject_of = submitted_area(rs, state, holder, area) if holder else None
        if rs.rules.limes_held(rs, state, area, holder, subject_of):   # 14.4, as the ruleset judges it
            state.score(rome, card.limes[area], f"Limes: {rs.display(area)}", "limes", None)
            events.append(make("scored", round=state.round, nation=rome,
                           points=card.limes[area], kind="limes", area=area))


def player_totals(rs: Ruleset, vp: dict[str, int], players: int) -> dict[str, int]:
    """Rule 14.1 — "victory points are tallied by nation, then added together for each player" (the
    players of the control table, 13.0, by colour)."""
    return {colour: sum(vp.get(n, 0) for n in nations) for colour, nations in rs.players_table(players).items()}


def group_totals(rs: Ruleset, vp: Mapping[str, int], holdings: Mapping[str, Sequence[str]]) -> dict[tuple[str, ...], int]:
    """Rule 14.1 — the points of each group that wins or loses together (`Rules.partners`: every
    player alone, or partners whose points are added, as Duel's four-player game), its players sorted."""
    groups = [tuple(sorted(g)) for g in rs.rules.partners(rs, holdings)]
    return {g: sum(vp.get(n, 0) for p in g for n in holdings[p]) for g in groups}


def winning_groups(rs: Ruleset, vp: Mapping[str, int],
                   holdings: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    """Rule 14.1 — the player(s) with the most points win, by group (`group_totals`); every group tied
    at the top is listed."""
    totals = group_totals(rs, vp, holdings)
    best = max(totals.values(), default=0)
    return sorted(g for g, v in totals.items() if v == best)


def winners(rs: Ruleset, vp: dict[str, int], players: int) -> list[str]:
    """Rule 14.1 — the players of the control table (13.0) who win: every player of every group tied at
    the top (`winning_groups`)."""
    return sorted(p for g in winning_groups(rs, vp, rs.players_table(players)) for p in g)
