"""Issue 30 item 4: the prompt says everything the turn allows: the Romans' round-1 major invasion has
a SECOND MOVEMENT (both rulesets); a nation without one is not told of it."""

from __future__ import annotations

import pytest

from pbem.data.loader import load
from pbem.report.prompt import turn_lines
from pbem.rules.dice import HmacDice
from pbem.rules.flow import step
from pbem.rules.turn import new_game_state


@pytest.mark.parametrize("ruleset", ["classic", "ffg2"])
def test_the_round_1_roman_prompt_tells_of_the_second_movement(ruleset):
    rs = load(ruleset)
    state = step(rs, new_game_state(rs, "p"), {}, HmacDice(b"prompt test")).state   # round 1 starts
    assert state.next_nation == "romans"
    text = "\n".join(turn_lines(rs, state, "romans"))
    assert "Major invasion" in text and "SECOND MOVEMENT" in text
    assert "SECOND MOVEMENT" not in "\n".join(turn_lines(rs, state, "belgae"))
