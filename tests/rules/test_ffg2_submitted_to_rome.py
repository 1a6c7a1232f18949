"""FFG 41, doubt 24 — the Romano-British may not attack, before round 8, a nation that submitted to
Rome at some time of the game (not the fixed list of classic 10.5): the position records the
submissions to Rome (GameState.extras, written only when there is one)."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.rules.context import TurnContext
from pbem.rules.movement import check_attack_rules
from pbem.rules.orders import Move
from pbem.rules.rulesets.ffg2 import SUBMITTED_TO_EMPIRE
from pbem.rules.state import GameState, Stack
from pbem.rules.submission import submit

FFG = load("ffg2")


def ctx_for(state: GameState, nation: str) -> TurnContext:
    return TurnContext(FFG, state, nation, {}, None)  # type: ignore[arg-type]


def test_a_submission_to_rome_is_recorded_and_saved():
    st = GameState(ruleset="ffg2", game="t", round=3)
    st.areas["alban"] = {"picts": Stack(armies=1)}
    assert "extras" not in st.to_dict()
    submit(ctx_for(st, "romans"), "picts", "romans", "test")
    assert st.extras[SUBMITTED_TO_EMPIRE] == ["picts"]
    back = GameState.from_dict(st.to_dict())
    assert back.extras[SUBMITTED_TO_EMPIRE] == ["picts"]
    submit(ctx_for(back, "romans"), "welsh", "romans", "test")
    assert back.extras[SUBMITTED_TO_EMPIRE] == ["picts", "welsh"]


def test_rb_may_not_attack_a_former_subject_in_round_7():
    st = GameState(ruleset="ffg2", game="t", round=7)
    st.areas["hwicce"] = {"romano_british": Stack(armies=2)}
    st.areas["gwent"] = {"brigantes": Stack(armies=1)}
    move = Move(count=2, kind="armies", path=("hwicce", "gwent"))
    assert check_attack_rules(ctx_for(st, "romano_british"), move) == []   # never submitted: fair game
    st.extras[SUBMITTED_TO_EMPIRE] = ["brigantes"]    # submitted once; the subjection has ended
    problems = check_attack_rules(ctx_for(st, "romano_british"), move)
    assert [p.kind for p in problems] == ["not-now"] and "submitted to Rome" in problems[0].message
    st.round = 8
    assert check_attack_rules(ctx_for(st, "romano_british"), move) == []


def test_classic_keeps_the_fixed_list_of_10_5():
    rs = load("classic")
    st = GameState(ruleset="classic", game="t", round=7)
    st.areas["hwicce"] = {"romano_british": Stack(armies=2)}
    st.areas["gwent"] = {"welsh": Stack(armies=1)}
    ctx = TurnContext(rs, st, "romano_british", {}, None)  # type: ignore[arg-type]
    problems = check_attack_rules(ctx, Move(count=2, kind="armies", path=("hwicce", "gwent")))
    assert [p.message for p in problems] == ["the Romano-British cannot attack the Brigantes or the Welsh (rule 10.5)"]
