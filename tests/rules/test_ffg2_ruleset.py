"""The ffg2 ruleset (Fantasy Flight 2nd edition): data-only differences, the summary, overrides.

Each test names the numbered difference it pins ("FFG n" = difference n of `pbem rules show ffg2`);
the engine differences are pinned by the conformance cases in tests/cases/ffg2.
"""

from pathlib import Path

from click.testing import CliRunner

from pbem.cases import case_files, load_case
from pbem.cli import cli
from pbem.data.loader import load, tables_for
from pbem.rules.events import OrderUnused
from pbem.rules.turn import new_game_state

RS = load("ffg2")
CASES = Path(__file__).parent.parent / "cases" / "ffg2"


def show(*args):
    r = CliRunner().invoke(cli, ["rules", "show", "ffg2", *args])
    assert r.exit_code == 0, r.output
    assert all(len(line) <= 72 for line in r.output.splitlines())
    return " ".join(r.output.split())


def test_ffg_1_rules_show_cumbria_lists_lothian():
    assert "Land neighbours: Cheshire, Galloway, Lothian, Pennines" in show("--area", "Cumbria")


def test_ffg_1_2_map_changes_only():
    classic = load("classic")
    assert "lothian" in RS.areas["cumbria"].land and "lothian" not in classic.areas["cumbria"].land
    assert "irish_sea" in RS.areas["skye"].seas and "irish_sea" not in classic.areas["skye"].seas
    assert "pennines" not in RS.areas["galloway"].land   # still no Galloway-Pennines border


def test_ffg_4_order_of_play_is_the_nation_list():
    order = list(RS.order_of_play)
    assert order.index("saxons") + 1 == order.index("jutes")
    assert order.index("caledonians") < order.index("picts")


def test_ffg_5_yellow_replaces_purple():
    assert RS.nations["romans"].colour == "yellow"
    assert set(RS.control[4]) == {"yellow", "green", "red", "blue"}


def test_ffg_6_provisional_tables_overridable():
    out = show()
    assert "3 players (doubt 1: provisional)" in out and "5 players (doubt 1: provisional)" in out
    table = {"a": ["romans", "romano_british", "belgae", "welsh", "brigantes", "caledonians"],
             "b": ["picts", "irish", "scots", "norsemen", "dubliners", "danes"],
             "c": ["norwegians", "saxons", "jutes", "angles", "normans"]}
    rs = load("ffg2", {"ruleset.control.3": table})
    assert rs.control[3]["a"][0] == "romans"


def test_ffg_17_provisional_awards_shown_and_overridable():
    out = show()
    assert "Bretwalda: 4 points (PROVISIONAL); vote at the end of turns 8-10" in out
    assert "King: 8 points (PROVISIONAL)" in out
    rs = load("ffg2", {"ruleset.scoring.awards.king": 6})
    assert rs.scoring["awards"]["king"] == 6


def test_ffg_7_counter_mix():
    assert RS.nations["romans"].max_armies == 16 and RS.nations["saxons"].max_armies == 20
    assert RS.nations["normans"].max_cavalry == 4 and RS.nations["romans"].max_forts == 24


def test_ffg_8_only_the_romans_never_increase():
    assert [n for n, v in RS.nations.items() if not v.increases_population] == ["romans"]


def test_ffg_14_difficult_terrain_same_17_areas():
    assert sum(a.hiland for a in RS.areas.values()) == 17 and RS.hiland("lindsey") and RS.hiland("clwyd")


def test_ffg_20_21_48_turn_track():
    assert RS.round_info(15).major_invasions == {"norwegians", "normans"}
    assert "danes" not in RS.round_info(14).major_invasions
    normans = [a for a in RS.round_info(15).arrivals if a.nation == "normans"]
    assert (normans[0].armies, normans[0].cavalry) == (6, 4)
    assert "jutes" in RS.round_info(8).boats and "jutes" not in RS.round_info(9).boats


def test_ffg_30_sixteen_romans():
    state = new_game_state(RS)
    assert state.areas["english_channel"]["romans"].armies == 16


def test_ffg_49_53_scoring_rounds_and_norse_captures():
    assert list(RS.scoring["hold_rounds"]) == [5, 7, 10, 13, 16]
    assert any(11 in rounds for rounds, _ in RS.vp["norsemen"].capture)


def test_every_difference_and_doubt_is_shown():
    raw = tables_for(RS)["ruleset"]
    assert [d["n"] for d in raw["differences"]] == list(range(1, 57))
    assert {d["n"] for d in RS.doubts} >= set(range(1, 20))
    out = show()
    for d in raw["differences"]:
        assert f"{d['n']} [{d['status']}] {d['topic']}" in out


def test_every_engine_difference_has_a_case():
    """Differences the engine plays (done or partly) are each cited by a case in tests/cases/ffg2 (the
    data-only ones are pinned above)."""
    cited = set()
    for path in case_files([str(CASES)]):
        cite = load_case(path).data["cite"]
        for word in cite.replace(",", " ").split("difference")[1:]:
            for tok in word.replace("s ", " ").split():
                if tok.isdigit():
                    cited.add(int(tok))
                elif tok != "and":
                    break
    raw = tables_for(RS)["ruleset"]
    played = {d["n"] for d in raw["differences"] if d["status"] in ("done", "partly")}
    pinned_here = {8, 30}
    assert played - cited - pinned_here == set()


def test_classic_unchanged():
    classic = load("classic")
    assert classic.order_of_play.index("jutes") < classic.order_of_play.index("saxons")
    # none of the FFG features; stays_by_movement (7.3) is the switch classic data version 1 turns off
    assert set(classic.features) == {"stays_by_movement"} and "hit_fast" not in classic.constants


def test_ffg_1_2_map_picture_draws_the_ffg_borders():
    from pbem.render.geometry import load_geometry

    def points(geo, area):
        return {tuple(p) for poly in geo.areas[area].polygons for ring in poly for p in ring}

    ffg, classic = load_geometry(ruleset_id="ffg2"), load_geometry()
    shared = points(ffg, "cumbria") & points(ffg, "lothian")
    assert {(17.0, 56.0), (29.0, 44.0)} <= shared                       # a border, not a point
    assert points(classic, "cumbria") & points(classic, "lothian") == {(23.0, 50.0)}
    assert tuple(ffg.sea_borders[0][0]) in points(ffg, "skye")          # the Irish | Icelandic line meets Skye


def test_ffg_25_odds_use_the_ffg_hit_numbers():
    """One Roman army (hits on 4, hit only on 6) against one ordinary army in clear terrain: per round
    5/12 only the Roman hits, 1/12 only the defender, 1/12 both, so 5/7, 1/7 and 1/7."""
    from fractions import Fraction

    from pbem.rules.odds import Side, battle_odds

    o = battle_odds(RS, Side(1, 0, False, True, False, 0, "raiders_first"), Side(1, 0, False, False, False, 0, "raiders_first"))
    assert (o.attacker_takes, o.defender_holds, o.both_gone) == (Fraction(5, 7), Fraction(1, 7), Fraction(1, 7))


def test_ffg_40_doubt_21_rb_cavalry_counters_serve_as_infantry_beyond_eight():
    """FFG 40 — from round 8 the Romano-British cavalry counters serve as infantry beyond the usual 8
    (the piece-limit invariant allows 10); before round 8 the limit is the 8 infantry counters."""
    from pbem.bots.invariants import pieces

    state = new_game_state(RS)
    state.areas.clear()
    for area, n in (("kent", 3), ("sussex", 3), ("wessex", 3)):
        state.stack(area, "romano_british").armies = n
    state.round = 7
    assert any("romano_british have 9 armies (max 8)" in v for v in pieces(RS, state))
    state.round = 8
    assert not [v for v in pieces(RS, state) if "romano_british" in v]
    assert "21" in [str(d["n"]) for d in RS.doubts]


def test_ffg_40_doubt_21_prompt_counts_the_rb_armies_in_play():
    """FFG 40, doubt 21 — after the round-8 conversion leaves the Romano-British 10 infantry, their prompt
    says 10 are in play (the population code's own count), not "all 8"; a nation at its counter mix
    still reads "all N are in play", and one short of room says so."""
    from pbem.report.prompt import turn_lines
    from pbem.rules.preview import turn_start

    state = new_game_state(RS)
    state.areas.clear()
    for area in ("kent", "sussex", "wessex", "essex", "downlands"):
        state.stack(area, "romano_british").armies = 2
    state.round, state.next_nation = 9, "romano_british"
    start = turn_start(RS, state, "romano_british")
    assert (start.new_armies, start.armies_in_play, start.armies_free) == (0, 10, 0)
    line = next(ln for ln in turn_lines(RS, state, "romano_british") if ln.startswith("New armies"))
    assert "10 Romano-British armies are in play" in line and "fewer than 8" in line
    assert "all 8" not in line
    state.stack("sussex", "romano_british").armies = 0
    state.stack("downlands", "romano_british").armies = 0
    state.prune()
    state.stack("wessex", "romano_british").armies = 4    # 8 in play, count 6 from 3 clear areas
    line = next(ln for ln in turn_lines(RS, state, "romano_british") if ln.startswith("New armies"))
    assert "all 8 are in play" in line


def test_ffg_35_submit_in_own_turn_has_no_effect_and_says_why():
    """FFG 35 — submission to Rome only in the Roman turn: a Pict SUBMIT in the Picts' own turn (3 areas,
    Romans on the board) is not refused (it may have been sent for the Roman turn) but has no effect,
    and the turn report says why."""
    from pbem.orders.parser import parse_message
    from pbem.rules.dice import ScriptedDice
    from pbem.rules.state import GameState, Stack
    from pbem.rules.turn import play_nation_turn

    st = GameState(game="f-35", round=3, next_nation="picts")
    st.areas = {a: {"picts": Stack(armies=1)} for a in ("alban", "mar", "moray")}
    st.areas["lothian"] = {"romans": Stack(armies=3)}
    no = parse_message("SUBMIT TO Romans\n", RS, default_nation="picts").section("picts")
    res = play_nation_turn(RS, st, "picts", {"picts": no}, ScriptedDice({}), strict=False)
    assert not res.problems and "picts" not in res.state.subjects
    unused = [ev for ev in res.events if isinstance(ev, OrderUnused)]
    assert len(unused) == 1 and "only during the Romans' turn (FFG 35)" in unused[0].reason


def test_ffg_43_settle_in_round_11_is_unused_because_raiders_must_go_back():
    """FFG 43 — in round 11 a Danish SETTLE has no effect; the turn report says the real reason (every
    raider goes back to sea), not that no raiders were left."""
    from pbem.orders.parser import parse_message
    from pbem.rules.dice import ScriptedDice
    from pbem.rules.state import GameState, Stack
    from pbem.rules.turn import play_nation_turn

    st = GameState(game="f-43", round=11, next_nation="danes")
    st.areas = {"north_sea": {"danes": Stack(armies=2, raiders=2)}}
    st.raided_from = {"danes": "north_sea"}
    no = parse_message("2 North Sea -> York\nSETTLE York\n", RS, default_nation="danes").section("danes")
    res = play_nation_turn(RS, st, "danes", {"danes": no}, ScriptedDice({}), strict=False)
    assert not res.problems
    unused = [ev for ev in res.events if isinstance(ev, OrderUnused)]
    assert [ev.line for ev in unused] == [2]
    assert "every raider goes back to sea (FFG 43)" in unused[0].reason
