"""Rules 4.1-7.3 (issue 33: the moving nation's turn played once per mail, not once per question):
the validation play keeps where it stood at the end of the first movement, and that is exactly what
`legal.first_movement` (the play stopped there, without dice) gives: the same position, events and
problems, for legal orders, refused ones and a major invasion's two movements alike."""

import pytest

from pbem.data.loader import load
from pbem.orders.check import check_orders
from pbem.rules import legal
from pbem.rules.turn import new_game_state, start_round

ORDERS = {
    "classic": [
        "NATION Romans\nPASS\n",
        "NATION Romans\n4 English Channel -> Kent\n4 English Channel -> Sussex\n",
        "NATION Romans\n4 English Channel -> Kent -> Essex -> Suffolk -> Norfolk\n",     # too far: a problem
        "NATION Romans\n4 English Channel -> Kent\nSECOND MOVEMENT\n4 Kent -> Essex\n",
    ],
    "ffg2": [
        "NATION Romans\n4 Channel -> Kent\nSTAY 2 English Channel\n",
        "NATION Romans\n4 Channel -> Kent\nSTAY 2 English Channel\nSECOND MOVEMENT\n2 English Channel -> Sussex\n",
        "NATION Romans\n4 Channel -> Kent -> Essex -> Suffolk -> Norfolk\n",     # too far: a problem
    ],
}


@pytest.mark.parametrize("ruleset,text", [(r, t) for r, texts in ORDERS.items() for t in texts])
def test_the_kept_first_movement_is_the_play_stopped_there(ruleset, text):
    rs = load(ruleset)
    state, _ = start_round(rs, new_game_state(rs, "g"))
    result = check_orders(text, rs, state, nation=state.next_nation)
    section = result.parsed.section(state.next_nation)
    if section is None:
        pytest.skip("no orders read")
    kept = result.checks[section.nation].first
    assert kept is not None, "the validation play of the nation to move keeps its first movement"
    played = legal.first_movement(rs, state, section.nation, section)
    assert kept.state.to_dict() == played.state.to_dict()
    assert kept.events == played.events
    assert kept.problems == played.problems


def test_only_the_nation_to_move_keeps_it_and_a_strict_turn_cannot():
    from pbem.rules.turn import play_nation_turn

    rs = load("classic")
    state, _ = start_round(rs, new_game_state(rs, "g"))
    later = check_orders("NATION Saxons\nPASS\n", rs, state, nation="saxons")
    assert later.checks["saxons"].first is None
    with pytest.raises(ValueError):
        play_nation_turn(rs, state, "romans", {}, legal._NoDice(), keep=("after_movement",))
