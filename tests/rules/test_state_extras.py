"""Issue 15 item 4 — ruleset-specific state lives in GameState.extras, owned by the ruleset's hooks; the
saved position keeps its layout (the legacy records at their old places), so archived games replay."""
from __future__ import annotations

from pbem.data.loader import load
from pbem.rules.state import GameState
from pbem.rules.turn import new_game_state

OLD_KEYS = ["ruleset", "game", "round", "next_nation", "areas", "population", "vp", "ledger", "forts_built",
            "captured", "raided_from", "subjects", "roman_permission", "bretwalda", "kings", "dead_leaders",
            "leader_killed_by", "standing", "danes_withdraw_shortfall", "finished"]


def test_saved_position_keeps_the_layout_of_the_fields_it_replaced():
    state = new_game_state(load("classic"))
    assert list(state.to_dict()) == OLD_KEYS
    assert state.to_dict()["roman_permission"] == [] and state.to_dict()["danes_withdraw_shortfall"] == 0
    state.extras.update(roman_permission={"welsh", "belgae"}, danes_withdraw_shortfall=2,
                        attacked_romano_british={"saxons"})
    d = state.to_dict()
    assert list(d) == [*OLD_KEYS, "attacked_romano_british"]   # FFG 41: written once someone attacked
    assert d["roman_permission"] == ["belgae", "welsh"] and d["danes_withdraw_shortfall"] == 2
    back = GameState.from_dict(d)
    assert back == state and back.extras["roman_permission"] == {"belgae", "welsh"}


def test_an_untouched_record_and_an_absent_one_are_the_same_position():
    d = new_game_state(load("classic")).to_dict()
    assert GameState.from_dict(d).extras == {}
    assert GameState.from_dict(d) == GameState.from_dict(GameState.from_dict(d).to_dict())


def test_a_new_record_of_a_ruleset_travels_in_the_extras_block():
    state = GameState()
    state.extras["tolls_paid"] = {"picts"}
    d = state.to_dict()
    assert d["extras"] == {"tolls_paid": ["picts"]}
    assert GameState.from_dict(d).extras == {"tolls_paid": ["picts"]}   # the hooks read their own types


def test_rule_11_1_permission_is_the_classic_hooks_record_for_one_game_turn():
    from pbem.rules.turn import end_round

    rs = load("classic")
    state = new_game_state(rs)
    rs.rules.permit_subject(state, "welsh")
    assert "welsh" in rs.rules.permitted_subjects(state)
    after, _ = end_round(rs, state)
    assert not rs.rules.permitted_subjects(after) and "roman_permission" not in after.extras
