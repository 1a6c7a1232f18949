"""Seeded self-play games run to the end with every invariant checked after every step."""

from __future__ import annotations

import pytest

from pbem.bots import invariants
from pbem.bots.selfplay import play_bot_game, replay_dump

# a few games by default (under ~20 s); `pbem selfplay --games 10000 --check` is the nightly run
GAMES = [("random", 11), ("random", 12), ("greedy", 13), ("greedy,random,random,greedy", 14)]


@pytest.mark.parametrize("bot,seed", GAMES)
def test_selfplay_invariants(rs, tmp_path, bot, seed):
    res = play_bot_game(rs, seed, bot=bot, check=True, dump_dir=tmp_path)
    assert res.violations == [], f"see {res.dump}"
    assert res.state.finished and res.state.round == 16
    assert not res.stats.parse_problems, res.stats.parse_problems
    assert not res.stats.dropped, res.stats.dropped
    assert not res.stats.engine_problems, res.stats.engine_problems
    assert sum(res.by_player.values()) == sum(res.state.vp.values())
    assert res.stats.steps > 150 and res.stats.mails > 150


def test_same_seed_same_game(rs):
    a = play_bot_game(rs, 21, bot="random")
    b = play_bot_game(rs, 21, bot="random")
    assert a.state.to_dict() == b.state.to_dict()
    c = play_bot_game(rs, 22, bot="random")
    assert c.state.to_dict() != a.state.to_dict()


def test_failure_dumps_a_reproduction_case(rs, tmp_path, monkeypatch):
    calls = {"n": 0}
    real = invariants.after_step

    def after_step(rs_, before, step):
        calls["n"] += 1
        out = real(rs_, before, step)
        if step.kind == "nation_turn" and step.round == 2 and step.nation == "welsh":
            out.append("planted violation")
        return out

    monkeypatch.setattr(invariants, "after_step", after_step)
    res = play_bot_game(rs, 31, bot="greedy", check=True, dump_dir=tmp_path)
    assert any("planted violation" in v for v in res.violations)
    assert "round 2, nation_turn of the welsh" in res.violations[0]
    repro = tmp_path / "seed-31" / "repro.yaml"
    assert res.dump == repro.parent and repro.exists()
    text = repro.read_text()
    assert "pbem selfplay --games 1 --seed 31 --bot greedy" in text and "state_before:" in text
    # the dumped order texts and dice lead to the dumped position
    from ruamel.yaml import YAML

    data = YAML(typ="safe", pure=True).load(text)
    assert data["orders"][-1]["nation"] == "welsh"
    assert replay_dump(rs, repro).to_dict() == data["state_after"]
    # the hint replays the same ruleset (issue 31: it used to leave out --ruleset, so ffg2 failures
    # were replayed as classic games)
    assert data["reproduce"] == f"pbem selfplay --games 1 --seed 31 --bot greedy --players 4 --ruleset {rs.id} --check"


def test_rule_10_5_romans_leave_within_stacking(rs):
    """Found by self-play (seed 1045): the Romano-British replacing the Romans respect stacking (5.2)."""
    res = play_bot_game(rs, 1045, bot="random", check=True)
    assert not [v for v in res.violations if "romano_british" in v and "stacking" in v], res.violations
