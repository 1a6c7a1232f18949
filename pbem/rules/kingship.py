"""Rule 12 — Bretwalda and King (12.1-12.5)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from pbem.rules.events import make
from pbem.rules.ruleset import Ruleset
from pbem.rules.scoring import may_score, sole_occupant
from pbem.rules.state import GameState


def english_areas_held(rs: Ruleset, state: GameState) -> Counter:
    """Areas of England each nation occupies alone (leaders count: 9.0 'hold it to qualify')."""
    held: Counter = Counter()
    for area in rs.english_areas():
        holder = sole_occupant(state, area)
        if holder:
            held[holder] += 1
    return held


def votes_by_nation(rs: Ruleset, state: GameState) -> Counter:
    """Rule 12.2 — one vote per English area occupied; the overlord's subject's vote area (roles
    `overlord_subject`, `overlord_vote_area`) votes with the overlord while the subject submits to it."""
    votes = english_areas_held(rs, state)
    subject, overlord = rs.role("overlord_subject"), rs.role("overlord")
    if (subject and state.subjects.get(subject) == overlord
            and sole_occupant(state, rs.role("overlord_vote_area")) == subject):
        votes[subject] -= 1
        votes[overlord] += 1
    return +votes


def king_candidate(rs: Ruleset, state: GameState) -> str | None:
    """Rule 12.3 — at least four English areas and at least twice as many as any other nation."""
    held = english_areas_held(rs, state)
    for nation, n in held.most_common():
        others = max((m for k, m in held.items() if k != nation), default=0)
        if n >= 4 and n >= 2 * others:
            return nation
        break
    return None


def elect(rs: Ruleset, state: GameState, ballots: Mapping[str, str]) -> tuple[str | None, dict]:
    """Rule 12.2 — each voting nation casts its votes for one nation (abstention not allowed: a nation
    without a ballot votes for itself); a majority of the votes cast elects the Bretwalda."""
    votes = votes_by_nation(rs, state)
    tally: Counter = Counter()
    for voter, n in votes.items():
        choice = ballots.get(voter, voter)
        tally[choice] += n
    cast = sum(tally.values())
    if not cast:
        return None, {}
    winner, top = tally.most_common(1)[0]
    return (winner if top * 2 > cast else None), dict(tally)


def provisional(rs: Ruleset, key: str) -> str:
    """A value ruleset.yaml marks as provisional (`scoring.provisional`: no reachable source states
    it) is marked wherever it is scored, until a game overrides it."""
    marked = key in (rs.scoring.get("provisional") or ()) and f"ruleset.scoring.{key}" not in rs.overrides
    return ", PROVISIONAL value" if marked else ""


def crowns_at_end(rs: Ruleset) -> bool:
    """Are the crowns of a round judged at its end (the family's `crowns_at_end`), not at its start
    as rule 12.1 has them?"""
    return rs.rules.crowns_at_end(rs)


def crown_round(rs: Ruleset, rnd: int) -> bool:
    """Rules 12.1, 12.3 — a round whose crowns (Bretwalda or King) are judged."""
    sc = rs.scoring
    return rnd in sc["bretwalda_rounds"] or rnd in sc["king_rounds"]


def crown_time(rs: Ruleset, rnd: int) -> str:
    """When the crowns of round `rnd` are judged, for the ledger (the family's `crown_time`)."""
    return rs.rules.crown_time(rs, rnd)


def round_start(rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list) -> str | None:
    """Rules 12.1, 12.3 — the beginning of turns 9-15: a King (12-15), else a Bretwalda vote; the
    crowns of the last such turn give way.

    Returns the King's nation (who gets an extra army placed as population increase) or None.
    """
    state.bretwalda = None
    state.kings = []
    return judge(rs, state, ballots, events)


def judge(rs: Ruleset, state: GameState, ballots: Mapping[str, str], events: list) -> str | None:
    """Rules 12.2, 12.3 — the King test of a King round, else (or also, 12.1) the Bretwalda vote, on
    the position as it stands. Returns the King's nation or None."""
    rnd = state.round
    sc = rs.scoring
    if rnd in sc["king_rounds"]:
        king = king_candidate(rs, state)
        if king:
            state.kings.append(king)
            if may_score(state, king):
                state.score(king, sc["awards"]["king"], f"King of England ({crown_time(rs, rnd)}){provisional(rs, 'awards.king')}", "king", None)
            events.append(make("king", round=rnd, nation=king))
            return king
    if rnd in sc["bretwalda_rounds"] or (rnd in sc["king_rounds"] and not sc.get("no_bretwalda_in_king_rounds")):
        winner, tally = elect(rs, state, ballots)
        events.append(make("bretwalda_vote", round=rnd, tally=tally, winner=winner))
        if winner:
            state.bretwalda = winner
            if may_score(state, winner):
                state.score(winner, sc["awards"]["bretwalda"], f"Bretwalda ({crown_time(rs, rnd)}){provisional(rs, 'awards.bretwalda')}", "bretwalda", None)
    return None


def crowned_by_leader(rs: Ruleset, state: GameState, nation: str, leader: str) -> bool:
    """Rule 12.4 (Canute's test) — the nation holds twice as many English areas as any other nation
    (and some), and its leader lives and is on the board."""
    held = english_areas_held(rs, state)
    own = held.get(nation, 0)
    others = max((n for k, n in held.items() if k != nation), default=0)
    return bool(own) and own >= 2 * others and leader not in state.dead_leaders \
        and leader in state.leaders_on_board(nation)


def canute(rs: Ruleset, state: GameState, events: list) -> None:
    """Rule 12.4 — end of the withdrawing nation's turn 14: Canute (role `canute`) King if his nation
    holds twice as many English areas as any other nation and he lives; 4 points, no extra army."""
    cnut = rs.role("canute")   # ruleset.yaml roles: the leader, and through him his nation
    if not cnut:
        return
    nation = rs.nation_of_leader(cnut)
    if crowned_by_leader(rs, state, nation, cnut):
        state.kings.append(nation)
        state.score(nation, rs.scoring["awards"]["canute_king"], f"Canute King of England (turn 14){provisional(rs, 'awards.canute_king')}", "king", nation)
        events.append(make("king", round=state.round, nation=nation, canute=True))


def king_turn16(rs: Ruleset, state: GameState, events: list) -> None:
    """Rule 12.5 — end of turn 16: only Harold, William and Harald (if alive) may be King."""
    eligible = {n: ld for n, ld in rs.scoring["king_turn16_leaders"].items() if ld not in state.dead_leaders}
    held = english_areas_held(rs, state)
    king = None
    if len(eligible) == 1:
        (n, _), = eligible.items()
        if not any(held.get(o, 0) >= 2 * max(held.get(n, 0), 1) for o in held if o not in rs.scoring["king_turn16_leaders"]):
            king = n
    else:
        for n in eligible:
            others = max((m for k, m in held.items() if k != n), default=0)
            if held.get(n, 0) >= 4 and held.get(n, 0) >= 2 * others:
                king = n
    if king:
        pts = rs.scoring["king_turn16"][king]
        state.kings.append(king)
        state.score(king, pts, f"King of England at the end of the game (12.5){provisional(rs, 'king_turn16')}", "king", None)
        events.append(make("king", round=16, nation=king))
