"""The Duel Britannia family (seed 003): its data derived from board.yaml/aid.yaml, the Phase I
maintenance table, Phase V scoring, the Roman withdrawal. [Section] names a section of the Duel
rulebook chapter."""

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pbem.data import duel_build, loader
from pbem.rules import turn
from pbem.rules.rulesets.duel import DuelRules, maintenance_change

DUEL = Path(duel_build.__file__).with_name("duel")


@pytest.fixture(scope="module")
def rs():
    return loader.load("duel")


def test_the_family_plays_duel_and_the_data_says_provisional(rs):
    assert isinstance(rs.rules, DuelRules)
    assert "PROVISIONAL" in rs.name
    assert rs.const.max_rounds == 7   # [A Game Round]
    assert set(rs.control[2]) == {"brython_viking", "anglo_saxon"}   # [Game Setup]
    assert len(rs.control[4]) == 4   # [Number of Players]


def test_loader_files_are_what_the_tool_derives_from_board_and_aid():
    board, aid = duel_build._load(DUEL)
    docs = duel_build.build(board, aid)
    for stem, doc in docs.items():
        shipped = YAML(typ="safe").load((DUEL / f"{stem}.yaml").read_text(encoding="utf-8"))
        if stem == "ruleset":
            shipped = {k: v for k, v in shipped.items() if k in doc}
        assert shipped == YAML(typ="safe").load(_dump(doc)), stem


def _dump(doc):
    import io
    buf = io.StringIO()
    YAML().dump(doc, buf)
    return buf.getvalue()


@pytest.mark.parametrize("calc, change", [(4, 3), (9, 3), (3, 2), (2, 2), (1, 1), (0, 1), (-1, 1),
                                          (-2, -1), (-3, -1), (-4, -2), (-5, -2), (-6, -3), (-20, -3)])
def test_phase_i_table(calc, change):
    """[Phase I] the six rows; "minus 1 ... you still gain an army", "minus 2 ... you lose an army"."""
    assert maintenance_change(calc) == change


def test_phase_i_populations(rs):
    """[Phase I] Kent and Essex 3, Connacht 0; 1 difficult, 2 clear otherwise."""
    pop = rs.extras["duel_population"]
    assert pop["kent"] == pop["essex"] == 3 and pop["connacht"] == 0
    for a, v in pop.items():
        if a not in ("kent", "essex", "connacht"):
            assert v == (1 if rs.hiland(a) else 2), a


def _play(rs, state, nation):
    from pbem.rules.dice import NeutralDice  # noqa: PLC0415
    return turn.play_nation_turn(rs, state, nation, {}, NeutralDice(), strict=False)


def test_maintenance_and_scoring_for_the_picts(rs):
    """Picts round 1: 4 areas of Scotland, 1+1+1+2 = 5 points - 4 armies = 1: gain 1 ([Phase I]);
    Phase V: Dunedin held (+2), Mar and Dalriada next to it held (+1 each) ([Phase V])."""
    state = turn.new_game_state(rs)
    res = _play(rs, state, "picts")
    kinds = [e.KIND for e in res.events]
    m = next(e for e in res.events if e.KIND == "duel_maintenance")
    assert (m.points, m.armies, m.change, m.gained) == (5, 4, 1, 1)
    assert res.state.units_of("picts") == 5
    assert "scored" in kinds
    assert res.state.vp.get("picts", 0) >= 2


def test_roman_withdrawal_after_the_saxons_in_round_1(rs):
    """[Withdrawal of the Romans]: Wales and Devon to the Welsh, the five northern areas to Rheged,
    the rest to the Romano-British."""
    state = turn.new_game_state(rs)
    res = _play(rs, state, "saxons")
    st = res.state
    assert st.units_of("romans") == 0
    assert "welsh" in st.areas["devon"] and "rheged" in st.areas["hwicce"]
    assert "romano_british" in st.areas["kent"]


def test_a_side_keeps_at_most_one_wounded_piece():
    """[Allocation Of Hits] — "a side can never have more than one wounded army at a time"; two hits
    eliminate; the cavalry takes the 6s first and shields the rest while it stands ([Cavalry])."""
    from pbem.rules.rulesets.duel_battle import WOUNDED, split_hits  # noqa: PLC0415
    for hits in range(0, 9):
        for sixes in range(0, hits + 1):
            for cav in (0, 1):
                for armies in range(0, 4):
                    for fort in (0, 1):
                        for wounded in (None, *WOUNDED):
                            out = split_hits(hits, sixes, cav, armies, fort, wounded)
                            assert sum(1 for k in WOUNDED.values() if out.get(k)) <= 1
                            assert out.get("cavalry", 0) <= cav and out.get("armies", 0) <= armies
                            dealt = 2 * sum(out.get(k, 0) for k in ("cavalry", "armies", "forts"))
                            assert dealt <= hits + (wounded is not None)


def test_dyfed_example_hits():
    """[Examples Of Battle] — three hits on two Welsh armies: one eliminated, one wounded."""
    from pbem.rules.rulesets.duel_battle import split_hits  # noqa: PLC0415
    assert split_hits(3, 1, 0, 2, 0, None) == {"armies": 1, "wounded_armies": 1}


def test_bot_games_end_with_no_wound_left(rs):
    """[Allocation Of Hits] — hits "do not carry over to later in the game": no counter survives a step;
    a whole 7-round game between the bots ends, every invariant kept."""
    from pbem.bots.selfplay import play_bot_game  # noqa: PLC0415
    r = play_bot_game(rs, 11, players=2, check=True)
    assert r.state.finished and r.state.round == 7
    assert not r.violations
    assert all(not s.counters for stacks in r.state.areas.values() for s in stacks.values())
