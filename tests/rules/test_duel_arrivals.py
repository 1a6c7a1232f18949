"""Duel Britannia's choices of Phases I and II (seed 003: [Phase I], [Appearance At Sea], [Eruption],
[Raiders], [Intruders]): the order forms LOSE, REMOVE and WITHHOLD, read and printed back, refused
where the rules refuse them, listed in the prompt with the choices they leave; DISBAND is no Duel
form (no overpopulation). The rules themselves are pinned by tests/cases/duel/ (population-lose-*,
arrival-remove*, arrival-limit, eruption-withhold*, raiders-*, intruders-*, invaders-*)."""

from __future__ import annotations

import pytest

from pbem.cases import load_case
from pbem.data.loader import load
from pbem.orders.canonical import canonical_lines
from pbem.orders.check import check_orders
from pbem.orders.parser import parse_message
from pbem.report.prompt import turn_lines
from pbem.rules.rulesets.duel_orders import LoseArmies, RemoveForArrivals, WithholdLeader
from pbem.rules.turn import play_nation_turn

CASES = "tests/cases/duel"


@pytest.fixture(scope="module")
def rs():
    return load("duel")


def _case(name: str):
    c = load_case(f"{CASES}/{name}.yaml")
    state = c.setup()
    state.next_nation = c.nation
    return c, state


def test_the_forms_read_and_print_back(rs):
    section = parse_message("NATION Danes\nLOSE 2 York, Lindsey\nREMOVE E Anglia\nWITHHOLD Cnut\n", rs).section("danes")
    lose, remove, withhold = section.orders
    assert lose == LoseArmies(areas=("york", "york", "lindsey"), line=lose.line, text=lose.text)
    assert isinstance(remove, RemoveForArrivals) and remove.areas == ("e_anglia",)
    assert isinstance(withhold, WithholdLeader) and withhold.leader == "cnut"
    assert canonical_lines(section.orders, rs) == ["LOSE York, York, Lindsey", "REMOVE E Anglia", "WITHHOLD Cnut"]


def test_disband_is_no_duel_form_and_the_reply_says_so(rs):
    """[Major Differences]: "there is no overpopulation rule in Duel Britannia"; the armies Phase I takes
    are chosen with LOSE."""
    c, state = _case("population-minus-two-loses")
    r = check_orders("NATION Welsh\nDISBAND Powys\n", rs, state, nation="welsh")
    assert [p.line for p in r.problems] == [2], r.problems
    assert "LOSE" in " ".join(p.hint for p in r.problems)


def test_validation_refuses_what_adjudication_refuses(rs):
    c, state = _case("population-minus-two-loses")
    r = check_orders("NATION Welsh\nLOSE Kent\n", rs, state, nation="welsh")
    assert [(p.line, p.message) for p in r.problems] == [(2, "the Welsh have no army in Kent to lose ([Phase I])")]
    assert not check_orders("NATION Welsh\nLOSE Devon\n", rs, state, nation="welsh").problems


def test_the_prompt_gives_the_population_change_and_the_choices():
    c, state = _case("population-minus-two-loses")
    lines = turn_lines(c.rs, state, "welsh")
    assert lines[0] == ("Phase I: increase points 4 - armies 6 = -2: the Welsh lose 1 army of their choice "
                        "(LOSE A[, B ...]; by default from Gwynedd) ([Phase I]).")
    assert not any(ln.startswith("New armies:") for ln in lines)
    c, state = _case("arrival-limit")
    lines = turn_lines(c.rs, state, "danes")
    assert any(ln.startswith("Arrivals at sea: 1 of the 3 due have no piece") and "REMOVE" in ln for ln in lines)
    assert any(ln.startswith("Armies at sea: intruders this turn") for ln in lines)
    c, state = _case("invaders-left-at-sea")
    assert any("invaders this turn: they must land" in ln for ln in turn_lines(c.rs, state, "danes"))


def test_an_erupting_leader_is_prompted_with_withhold_and_the_prompt_ends():
    """[Eruption]: the eruption's battle is fought in Phase II; the prompt (no dice) announces it
    unfought instead of rolling for ever."""
    c, state = _case("eruption-fergus")
    lines = turn_lines(c.rs, state, "scots")
    assert ("Fergus Mor Mac Erc erupts (the Scots have no area): WITHHOLD Fergus Mor Mac Erc keeps him and his "
            "armies off the board ([Eruption]).") in lines


def test_invaders_left_at_sea_are_lost_citing_intruders():
    c, state = _case("invaders-left-at-sea")
    orders, _ = c.orders()
    res = play_nation_turn(c.rs, state, "danes", orders, c.dice(), start="movement", stop="after_movement")
    lost = [e for e in res.events if e.KIND == "lost_at_sea"]
    assert [(e.sea, e.armies) for e in lost] == [("north_sea", 2)]
    assert lost[0].describe(c.rs).endswith("invaders must come ashore ([Intruders])")


def test_a_withheld_leader_is_recorded_and_no_battle_is_fought():
    c, state = _case("eruption-withhold")
    orders, _ = c.orders()
    res = play_nation_turn(c.rs, state, "scots", orders, c.dice(), start="population", stop="after_population")
    kinds = [e.KIND for e in res.events]
    assert "duel_leader_withheld" in kinds and "battle" not in kinds and "leader_entered" not in kinds


@pytest.mark.parametrize("name", ["population-minus-two-loses", "population-minus-one-gains", "population-only-connacht",
                                  "arrival-limit", "eruption-fergus", "invaders-left-at-sea", "raiders-must-withdraw",
                                  "raiders-stay"])
def test_the_duel_prompt_lines_read_in_russian(name):
    """Issue 34 for these lines: a Russian prompt has each of them in Russian (order words and the rule
    book's [Sections] kept)."""
    from pbem.report.localize import turn_line

    c, state = _case(name)
    lines = [ln for ln in turn_lines(c.rs, state, c.nation) if ln.startswith(("Phase I", "Arrivals at sea", "Armies at sea"))
             or " erupts " in ln]
    assert lines
    for ln in lines:
        assert turn_line("ru", c.rs, ln) != ln, ln


def test_the_forms_have_russian_keywords(rs):
    section = parse_message("NATION Welsh\nпотерять Devon\nубрать Powys\nудержать Cadwallon\n", rs).section("welsh")
    assert [type(o) for o in section.orders] == [LoseArmies, RemoveForArrivals, WithholdLeader]


@pytest.mark.parametrize("name", ["population-lose-choice", "arrival-remove", "eruption-withhold", "raiders-stay",
                                  "intruders-withdraw", "invaders-left-at-sea", "invaders-no-retreat"])
def test_the_units_each_choice_moves_are_the_ones_its_events_say(name):
    """The self-play check (pbem.bots.conservation, issue 31) on the choices the bots leave to the
    defaults: the armies lost, removed, withheld, staying, withdrawn or lost at sea are in the events."""
    from pbem.bots.conservation import units_explained
    from pbem.rules.flow import Step

    c, state = _case(name)
    orders, _ = c.orders()
    res = play_nation_turn(c.rs, state, c.nation, orders, c.dice(), start=c.data["start"], stop=c.data["stop"])
    step = Step("nation_turn", res.state, res.events, res.problems, c.nation, state.round)
    assert units_explained(c.rs, state, step) == []
