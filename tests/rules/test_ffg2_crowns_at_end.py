"""FFG 56 — under ffg2 the Bretwalda (rounds 8-10) and the King (rounds 11-14) are judged at the END of
the round, as step 2 of the round's end after the holdings (FFG rulebook, Russian edition, the end of
the round); classic 12.1 keeps them at the start of the next round. Played here through flow.step, as
the service and the bots play them."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.dice import HmacDice
from pbem.rules.events import BretwaldaVote, King, RoundEnded, RoundStarted
from pbem.rules.flow import step, votes_owed
from pbem.rules.state import GameState, Stack
from pbem.rules.turn import CROWNS_OWED, close_round, end_round

FFG = load("ffg2")


def position(rnd: int, areas: dict[str, dict[str, int]]) -> GameState:
    st = GameState(ruleset="ffg2", game="t", round=rnd)
    for area, nations in areas.items():
        for nation, n in nations.items():
            st.areas.setdefault(area, {})[nation] = Stack(armies=n)
    return st


def votes(text: str) -> dict:
    return {s.nation: s for s in parse_message(text, FFG).sections}


def test_bretwalda_owed_at_the_end_of_round_8_then_round_9_starts():
    st, events = end_round(FFG, position(8, {"essex": {"saxons": 1}, "kent": {"saxons": 1}, "york": {"angles": 1}}))
    assert st.round == 8 and st.next_nation is None and st.extras == {CROWNS_OWED: 8}
    assert not any(isinstance(e, RoundEnded) for e in events)
    assert votes_owed(FFG, st)
    assert GameState.from_dict(st.to_dict()).extras == {CROWNS_OWED: 8}   # saved and read back
    s = step(FFG, st, votes("NATION Angles\nVOTE Saxons\n"), HmacDice(b"k"))
    kinds = [type(e) for e in s.events]
    assert kinds.index(BretwaldaVote) < kinds.index(RoundEnded) < kinds.index(RoundStarted)
    vote = next(e for e in s.events if isinstance(e, BretwaldaVote))
    assert (vote.round, vote.winner) == (8, "saxons")
    assert s.state.round == 9 and s.state.bretwalda == "saxons" and s.state.extras == {}
    assert [e["reason"] for e in s.state.ledger] == ["Bretwalda (end of turn 8), PROVISIONAL value"]
    assert not votes_owed(FFG, s.state)   # none at the start of round 9


def test_canute_stays_king_beside_the_king_of_the_end_of_round_14():
    areas = {a: {"saxons": 1} for a in ("essex", "kent", "sussex", "wessex")}
    st = position(14, areas)
    st.kings = ["angles"]                 # the King of the end of round 13
    st.next_nation = "danes"
    st.score("danes", 8, "Canute King of England (turn 14)", "king")   # 12.4, in the Danish turn
    st.kings.append("danes")
    st.next_nation = None
    st.extras[CROWNS_OWED] = 14
    new, events = close_round(FFG, st)
    assert sorted(new.kings) == ["danes", "saxons"]
    assert any(isinstance(e, King) and e.round == 14 and e.nation == "saxons" for e in events)


def test_classic_keeps_the_crowns_at_the_start_of_the_round():
    rs = load("classic")
    st = GameState(ruleset="classic", game="t", round=8)
    st, _ = end_round(rs, st)
    assert st.round == 9 and st.extras == {} and votes_owed(rs, st)


def test_the_report_says_the_end_of_the_round_is_next():
    from pbem.report.facts import build_report, next_options

    st, events = end_round(FFG, position(8, {"essex": {"saxons": 1}, "kent": {"saxons": 1}, "york": {"angles": 1}}))
    report = build_report(FFG, st, events, {"id": "t"}, played="angles", round_played=8)
    assert report["next"]["line"].startswith("the end of round 8: its Bretwalda or King")
    assert next_options(FFG, st)[0].startswith("Bretwalda vote owed by:")
