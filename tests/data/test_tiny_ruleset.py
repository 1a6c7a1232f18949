"""Issue 15 item 4 — the proof of the ruleset seam: a made-up ruleset of three areas and two nations
(tests/data/tiny, `family: base`: none of the classic special rules) loads through the same loader as
classic and ffg2 and plays nation turns and a game turn through the generic engine."""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.data.loader import load_from_tables
from pbem.orders.parser import parse_message
from pbem.rules.dice import HmacDice
from pbem.rules.ruleset import Constants
from pbem.rules.rulesets.base import Rules
from pbem.rules.turn import end_round, new_game_state, play_nation_turn, start_round
from pbem.store.yamlio import load_plain

TINY = Path(__file__).parent / "tiny"
DICE = HmacDice(b"tiny ruleset secret, 24 bytes")


@pytest.fixture(scope="module")
def rs():
    tables = {n: load_plain(TINY / f"{n}.yaml")
              for n in ("ruleset", "map", "nations", "timeline", "victory_points")}
    return load_from_tables(tables, "tiny")


def test_tiny_ruleset_loads_with_the_plain_rules_and_generic_constants(rs):
    assert set(rs.areas) == {"hill", "vale", "wood"} and set(rs.nations) == {"reds", "blues"}
    assert type(rs.rules) is Rules and type(rs.const) is Constants and rs.const.max_rounds == 3
    assert rs.role("empire") is None and dict(rs.control[2]) == {"red": ("reds",), "blue": ("blues",)}


def test_tiny_ruleset_plays_a_nation_turn_through_the_generic_engine(rs):
    """Rule 4 — population, movement, battle, end of turn: 3 Reds in Vale attack the Blue army in Wood."""
    state, events = start_round(rs, new_game_state(rs, "tiny"))
    assert state.next_nation == "reds"
    orders = {"reds": parse_message("2 Vale -> Wood", rs, default_nation="reds").section("reds")}
    r = play_nation_turn(rs, state, "reds", orders, DICE)
    assert r.accepted, r.problems
    kinds = [type(e).__name__ if not isinstance(e, dict) else e["type"] for e in r.events]
    assert any("attle" in k for k in kinds), kinds
    assert r.state.units_of("reds") + r.state.units_of("blues") < 5   # somebody lost an army
    after = play_nation_turn(rs, r.state, "blues", {}, DICE)
    assert after.accepted
    ended, _ = end_round(rs, after.state)   # 14.2: holdings scored at the end of round 1
    assert ended.round == 2 and sum(ended.vp.values()) > 0


def test_a_ruleset_naming_an_unknown_family_is_a_data_error(rs):
    from pbem.errors import DataError

    tables = {n: load_plain(TINY / f"{n}.yaml")
              for n in ("ruleset", "map", "nations", "timeline", "victory_points")}
    tables["ruleset"]["family"] = "martian"
    with pytest.raises(DataError, match="unknown rules family 'martian'") as e:
        load_from_tables(tables, "tiny")
    assert e.value.file == "pbem/data/tiny/ruleset.yaml" and e.value.key == "family"


CASES = sorted((TINY / "cases").glob("*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_tiny_cases_pass_with_the_ruleset_found_by_its_folder(path, monkeypatch, tmp_path):
    """docs/RULESETS.md — a ruleset outside the package (PBEM_RULESETS names tests/data) plays its own
    conformance cases (`rules: tiny`) as classic and ffg2 do theirs."""
    from pbem.cases import load_case, run_case
    from pbem.data import folders, loader

    monkeypatch.setenv(folders.ENV, str(TINY.parent))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    loader.clear_caches()
    try:
        result = run_case(load_case(path))
        assert result.passed, result.line()
    finally:
        loader.clear_caches()
