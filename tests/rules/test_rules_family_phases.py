"""Issue 28 item 1 — the sequence of play is the rules family's: a family replaces a whole phase by
overriding one method of `Rules`, and the generic engine (pbem.rules.turn, pbem.rules.flow) plays it.

The family here is made up for the test (`test_phases`, a subclass of the plain `Rules`, registered by
subclassing as every family is) and plays the made-up tiny ruleset (tests/data/tiny). It replaces:
- `population_phase` by a maintenance economy (as a two-player Britannia has one): a nation gains one
  army per land area it occupies beyond its armies on land, or loses those over that number;
- `end_of_turn` by scoring at the end of every nation turn: 1 point per land area held alone.
Everything else (movement, battles, the round's start and end) is the generic engine's.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.data.loader import load_from_tables
from pbem.orders.parser import parse_message
from pbem.rules import accounting, population
from pbem.rules.context import NationTurn
from pbem.rules.dice import HmacDice
from pbem.rules.flow import step
from pbem.rules.legal import validate
from pbem.rules.ruleset import FAMILIES
from pbem.rules.rulesets.base import Rules
from pbem.rules.scoring import sole_occupant
from pbem.rules.turn import new_game_state, play_nation_turn, start_round
from pbem.store.yamlio import load_plain

TINY = Path(__file__).resolve().parents[1] / "data" / "tiny"
DICE = HmacDice(b"family phases test secret, 24 bytes")


class MaintenanceRules(Rules):
    """A made-up family: a maintenance economy for the population phase, scoring after every turn."""

    name = "test_phases"

    def population_phase(self, t: NationTurn) -> None:
        """Maintenance: land areas occupied minus armies on land; more areas, new armies (placed as
        the generic placement does); fewer, the excess removed from the largest stack."""
        ctx = t.ctx
        rs, state, nation = ctx.rs, ctx.state, ctx.nation
        land = [a for a in state.areas_of(nation) if rs.is_land(a) and state.areas[a][nation].armies]
        armies = sum(state.areas[a][nation].armies for a in land)
        change = len(land) - armies
        if change > 0:
            t.problems += population.place_new_armies(ctx, nation, min(change, population.free_armies(ctx, nation)), [])
        removed: dict[str, int] = {}
        for _ in range(-change):
            area = max(land, key=lambda a: (state.areas[a][nation].armies, a))
            state.areas[area][nation].armies -= 1
            removed[area] = removed.get(area, 0) + 1
        if removed:
            state.prune()
            ctx.emit("overpopulation", nation=nation, removed=removed, lines=[])

    def end_of_turn(self, t: NationTurn) -> None:
        """Scoring at the end of every nation turn: 1 point per land area held alone."""
        ctx = t.ctx
        held = [a for a in ctx.rs.areas if sole_occupant(ctx.state, a) == ctx.nation]
        ctx.state.score(ctx.nation, len(held), "areas held at the end of its turn", "hold", ctx.nation)
        accounting.account(ctx, {p.line for p in t.problems})


@pytest.fixture(scope="module")
def rs():
    tables = {n: load_plain(TINY / f"{n}.yaml") for n in ("ruleset", "map", "nations", "timeline", "victory_points")}
    tables["ruleset"]["family"] = "test_phases"
    return load_from_tables(tables, "tiny")


def _kinds(events) -> list[str]:
    return [e["type"] if isinstance(e, dict) else e.to_dict()["type"] for e in events]


def test_a_family_registers_itself_by_subclassing_rules(rs):
    assert FAMILIES["test_phases"] is MaintenanceRules
    assert type(rs.rules) is MaintenanceRules


def test_the_engine_plays_the_familys_population_phase_and_end_of_turn(rs):
    """Reds start with 3 armies in Vale (one area): maintenance takes 2 away; at the end of the turn
    they hold Vale alone: 1 point, scored in their own turn (no holdings of a scoring round yet)."""
    state, _ = start_round(rs, new_game_state(rs, "tiny"))
    assert state.next_nation == "reds" and state.stack("vale", "reds").armies == 3
    r = play_nation_turn(rs, state, "reds", {}, DICE)
    assert r.accepted, r.problems
    kinds = _kinds(r.events)
    assert "population" not in kinds   # the generic increase (10.1) is not played
    assert r.state.stack("vale", "reds").armies == 1
    assert r.state.vp == {"reds": 1}
    assert [(e["nation"], e["points"], e["turn"]) for e in r.state.ledger] == [("reds", 1, "reds")]


def test_the_familys_phases_run_around_the_generic_movement(rs):
    """Movement stays the generic engine's: after the maintenance the one Red army left moves from Vale
    to Hill; the end of turn scores the one area held then (Hill)."""
    state, _ = start_round(rs, new_game_state(rs, "tiny"))
    orders = {"reds": parse_message("1 Vale -> Hill", rs, default_nation="reds").section("reds")}
    r = play_nation_turn(rs, state, "reds", orders, DICE)
    assert r.accepted, r.problems
    assert r.state.get("vale", "reds") is None and r.state.stack("hill", "reds").armies == 1
    assert r.state.vp == {"reds": 1}


def test_validation_and_the_step_driver_play_the_same_family_code(rs):
    """The validator (neutral dice) and flow.step run the family's phases as the adjudication does:
    after the maintenance only one Red army is left in Vale, so moving three is refused, one is not."""
    state, _ = start_round(rs, new_game_state(rs, "tiny"))
    three = parse_message("3 Vale -> Hill", rs, default_nation="reds").section("reds")
    one = parse_message("1 Vale -> Hill", rs, default_nation="reds").section("reds")
    assert validate(rs, state, three) and not validate(rs, state, one)
    s = step(rs, state, {}, DICE)
    assert s.kind == "nation_turn" and s.nation == "reds"
    assert s.state.vp == {"reds": 1} and s.state.stack("vale", "reds").armies == 1
    s2 = step(rs, s.state, {}, DICE)   # the Blues: one army in Wood, one area: no change, 1 point;
    assert s2.nation == "blues"         # then the generic round end: the holdings of round 1 (14.2)
    assert [(e["nation"], e["points"], e["turn"]) for e in s2.state.ledger] == [
        ("reds", 1, "reds"), ("blues", 1, "blues"), ("reds", 1, None), ("blues", 1, None)]
    assert s2.state.round == 2 and s2.state.vp == {"reds": 2, "blues": 2}
