"""Issue 8 — the store with the real engine (pbem.rules.turn) through the default adjudicator."""

from __future__ import annotations

import pytest

pytest.importorskip("pbem.rules.turn")

from pbem.service.play import play_turn  # noqa: E402
from pbem.store.dicecheck import verify_dice  # noqa: E402
from pbem.store.game import create_game  # noqa: E402
from pbem.store.replay import replay  # noqa: E402


def test_engine_turns_log_and_replay(tmp_path):
    g = create_game(tmp_path, "eng", secret=bytes(range(32)))
    assert g.entry(1)["start"] == "pbem.rules.turn.new_game_state"
    play_turn(g, step="start_round")
    assert g.state.next_nation == "romans"
    g.record_orders("romans", "purple", "NATION Romans\n8 English Channel -> Kent\n7 English Channel -> Sussex\n")
    e = play_turn(g)
    assert e["nation"] == "romans" and e["dice"] and all(lb.startswith("eng/r1/romans/") for lb in e["dice"])
    assert g.state.next_nation not in (None, "romans")
    for _ in range(2):
        play_turn(g)
    r = replay(g.path)
    assert r.ok, r.summary()
    assert r.checked_dice == len(e["dice"])
    assert verify_dice(g).ok
