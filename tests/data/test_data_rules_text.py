"""Issue 3 — every fact the rules text (seed 001) states about the classic data is a test here.

Test names carry the rule number. Where a count or list is NOT stated by the rules text (it rests on a
doubt of ruleset.yaml) the test says so in its docstring.
"""

import pytest

from pbem.data.loader import load

RS = load("classic")

WALES = {"clwyd", "cornwall", "devon", "dyfed", "gwent", "gwynedd", "powys"}
SCOTLAND = {"alban", "caithness", "dalriada", "dunedin", "hebrides", "mar", "moray", "orkneys", "skye",
            "strathclyde"}


def region(name):
    return {a for a, v in RS.areas.items() if v.region == name}


def adjacent(a, b):
    return b in RS.areas[a].land


def one_sea_between(a, b):
    """Rule 5.4: a boat move from a to b goes through exactly one sea, which borders both ends."""
    return RS.areas[a].seas & RS.areas[b].seas


# --- 1.0 / 2.1 / 2.11 / 2.12: the board ----------------------------------------------------------

def test_rule_1_0_sixteen_turns_45_to_1085():
    assert RS.const.max_rounds == 16 == len(RS.rounds)
    assert RS.rounds[16].years[1] == 1085


def test_rule_2_1_thirty_seven_land_areas_six_seas():
    assert len(RS.areas) == 37
    assert len(RS.seas) == 6


def test_rule_2_1_seventeen_hiland_areas():
    """17 is not in the rules text: sources A and B, with Lindsey and Clwyd read as hiland (doubt 2)."""
    assert sum(a.hiland for a in RS.areas.values()) == 17
    assert RS.areas["lindsey"].hiland and RS.areas["clwyd"].hiland
    assert any(d["n"] == 2 and d["status"] == "open" for d in RS.doubts)


def test_rule_2_11_wales():
    assert region("wales") == WALES


def test_rule_2_11_scotland():
    assert region("scotland") == SCOTLAND


def test_rule_2_11_england_is_the_remaining_twenty():
    assert region("england") == set(RS.areas) - WALES - SCOTLAND
    assert len(region("england")) == 20
    assert set(RS.english_areas()) == region("england")


def test_rule_2_11_clywd_as_spelled_in_the_rules():
    from pbem.orders.names import resolve

    assert resolve(RS, "Clywd") == "clwyd"
    assert "Clywd" in RS.areas["clwyd"].aliases


def test_rule_2_12_island_clusters_reach_the_mainland_only_by_strait():
    assert RS.areas["hebrides"].land == frozenset() and RS.areas["hebrides"].straits == {"skye"}
    assert RS.areas["orkneys"].land == frozenset() and RS.areas["orkneys"].straits == {"caithness"}


def test_rule_2_21_nationality_codes_one_or_two_letters_unique():
    codes = [n.code for n in RS.nations.values()]
    assert all(1 <= len(c) <= 2 and c.isalpha() and c.isupper() for c in codes)
    assert len(set(codes)) == len(codes) == 17


def test_rule_2_24_romans_norwegians_normans_never_increase():
    never = {n for n, v in RS.nations.items() if not v.increases_population}
    assert never == {"romans", "norwegians", "normans"}


# --- 3.0 / 4.0: start and order of play ----------------------------------------------------------

def test_rule_3_0_fifteen_romans_in_the_english_channel():
    assert dict(RS.nations["romans"].start) == {"english_channel": 15}
    assert not [a for a in RS.rounds[1].arrivals if a.nation == "romans"]   # no FFG 16 on top


def test_rule_3_0_one_army_in_each_starting_area():
    for nid, n in RS.nations.items():
        if nid != "romans":
            assert all(count == 1 for count in n.start.values()), nid
            assert all(place in RS.areas for place in n.start), nid


def test_rule_4_0_romans_romano_british_belgae_welsh_play_first():
    assert RS.order_of_play[:4] == ("romans", "romano_british", "belgae", "welsh")
    assert [RS.nations[n].order for n in RS.order_of_play] == list(range(17))


def test_rule_4_0_no_nation_after_the_picts_takes_part_in_turn_1():
    picts = RS.order_of_play.index("picts")
    in_turn_1 = {n for n, v in RS.nations.items() if v.start} | {a.nation for a in RS.rounds[1].arrivals}
    assert not in_turn_1 & set(RS.order_of_play[picts + 1:])
    assert "romano_british" not in in_turn_1
    assert set(RS.order_of_play[:picts + 1]) - {"romano_british"} <= in_turn_1
    assert RS.order_of_play.index("caledonians") < picts   # doubt 4: settled by this rule


# --- 5.x: movement -------------------------------------------------------------------------------

def test_rule_5_1_distances():
    assert RS.const.move == 2 and RS.const.move_fast == 3


def test_rule_5_12_example_essex_suffolk_norfolk():
    assert adjacent("essex", "suffolk") and adjacent("suffolk", "norfolk")
    assert not RS.hiland("suffolk")


def test_rule_5_14_four_corners():
    assert not adjacent("lothian", "cumbria") and not adjacent("cumbria", "lothian")
    assert not adjacent("galloway", "pennines") and not adjacent("pennines", "galloway")
    for a, b in [("galloway", "lothian"), ("galloway", "cumbria"), ("lothian", "pennines"), ("cumbria", "pennines")]:
        assert adjacent(a, b), (a, b)   # the four do meet around the point


def test_rule_5_15_four_straits():
    pairs = {frozenset((a, b)) for a, v in RS.areas.items() for b in v.straits}
    assert pairs == {frozenset(p) for p in [("hebrides", "skye"), ("orkneys", "caithness"),
                                             ("dyfed", "devon"), ("gwent", "devon")]}
    for p in pairs:
        a, b = sorted(p)
        assert RS.strait(a, b) and RS.strait(b, a)
        assert not adjacent(a, b)   # a strait is not an ordinary border
        assert b not in RS.neighbours(a)


def test_rule_5_15_no_cornwall_dyfed_link():
    """Doubt 3 (part settled by 5.15): the crossing there is the Dyfed-Devon strait."""
    assert not adjacent("cornwall", "dyfed") and not RS.strait("cornwall", "dyfed")


def test_rule_5_16_dalriada_borders_only_the_irish_sea():
    assert RS.areas["dalriada"].seas == {"irish_sea"}


def test_rule_5_16_skye_borders_only_the_icelandic_sea():
    assert RS.areas["skye"].seas == {"icelandic_sea"}
    assert "skye" not in RS.seas["irish_sea"].coast


def test_rule_5_16_hwicce_is_coastal():
    assert RS.areas["hwicce"].coastal


def test_rule_5_2_stacking_limits():
    assert (RS.const.stack_clear, RS.const.stack_hiland, RS.const.big_stack_hiland) == (3, 2, 4)
    assert RS.const.roman_stack_hiland == 4   # 5.22


def test_rule_5_3_example_borders():
    assert adjacent("essex", "suffolk") and adjacent("south_mercia", "suffolk") and adjacent("suffolk", "norfolk")


@pytest.mark.parametrize("a, b", [("kent", "york"), ("kent", "cornwall"), ("cheshire", "cornwall"),
                                  ("cheshire", "dalriada"), ("mar", "york"), ("mar", "hebrides")])
def test_rule_5_4_boat_examples_cross_exactly_one_sea(a, b):
    assert one_sea_between(a, b), f"no sea borders both {a} and {b}"
    assert not adjacent(a, b)


# --- 6.0 / 7.x: overpopulation, invasions --------------------------------------------------------

def test_rule_6_0_overpopulation_exemptions():
    ex = RS.overpopulation_exempt
    assert ex["romans"] == "all"
    assert {n: list(v) for n, v in ex.items() if n != "romans"} == {"jutes": [4, 5], "angles": [4, 5], "saxons": [4, 5]}
    assert RS.const.overpop_factor == 2


@pytest.mark.parametrize("nation, sea", [("romans", "english_channel"), ("normans", "english_channel"),
                                         ("norwegians", "north_sea")])
def test_rule_7_41_7_46_7_49_land_from_one_sea_never_to_another(nation, sea):
    n = RS.nations[nation]
    assert n.landing.from_seas == {sea}
    assert not n.sea_moves
    assert n.landing.areas == RS.seas[sea].coast
    assert not n.landing.allows("york" if sea != "north_sea" else "kent")


def test_rule_7_42_irish():
    irish = RS.nations["irish"].landing
    assert irish.allows("cumbria") and irish.allows("devon")   # "can land in the named areas"
    assert irish.allows("cornwall") and irish.allows("cheshire")
    assert not irish.allows("wessex")      # east of Devon on the south coast
    assert not irish.allows("galloway")    # north of Cumbria on the west coast
    assert not irish.allows("york")        # 15.3: no rounding the horn


def test_rule_7_43_scots():
    scots = RS.nations["scots"].landing
    for ok in ("galloway", "caithness", "orkneys", "strathclyde", "dalriada", "skye", "hebrides"):
        assert scots.allows(ok), ok
    assert not scots.allows("cumbria")     # south of Galloway
    assert not scots.allows("dunedin")     # east of Caithness


def test_rule_7_44_dubliners():
    dub = RS.nations["dubliners"].landing
    assert dub.allows("skye") and dub.allows("avalon")
    assert not dub.allows("devon") and not dub.allows("cornwall")   # south of Avalon
    assert not dub.allows("york") and not dub.allows("essex")       # east coast (15.3: no rounding the horn)


@pytest.mark.parametrize("nation", ["jutes", "saxons", "angles"])
def test_rule_7_45_7_47_7_48_jutes_saxons_angles(nation):
    land = RS.nations[nation].landing
    assert land.allows("cornwall") and land.allows("mar")    # the named areas
    assert land.allows("kent") and land.allows("york") and land.allows("devon")
    assert not land.allows("avalon")     # north of Cornwall on the west coast
    assert not land.allows("moray")      # north of Mar on the east coast


def test_rule_7_4_every_landing_area_is_coastal():
    for n in RS.nations.values():
        for a in n.landing.areas or ():
            assert RS.areas[a].coastal, (n.id, a)


# --- 8.x: battle examples ------------------------------------------------------------------------

def test_rule_8_0_constants_and_example():
    assert RS.const.hit == 5 and RS.const.hit_hard == 6
    assert RS.hiland("dalriada")   # "three Scots armies are in Dalriada (hilands)"


def test_rule_8_2_example_north_mercia():
    assert RS.areas["north_mercia"].land == {"lindsey", "york", "suffolk", "march", "hwicce", "south_mercia"}
    assert adjacent("suffolk", "south_mercia") and adjacent("march", "powys") and adjacent("hwicce", "powys")


def test_rule_8_3_example_kent_and_sussex_border_essex():
    assert adjacent("kent", "essex") and adjacent("sussex", "essex")


def test_rule_8_4_example_angle_raiders_turn_5():
    angles = [a for a in RS.rounds[5].arrivals if a.nation == "angles"]
    assert [(a.armies, a.sea, a.raider) for a in angles] == [(3, "frisian_sea", True)]
    assert "frisian_sea" in RS.areas["york"].seas and adjacent("york", "north_mercia")
    assert RS.nations["angles"].landing.allows("york", "frisian_sea")
    fort = [k for k in RS.vp["angles"].kills if k.kind == "roman_forts"]
    assert [k.points for k in fort] == [3]    # "the three victory points awarded for eliminating the fort"


# --- 9.0: leaders --------------------------------------------------------------------------------

def test_rule_9_0_leaders_named_in_the_rules():
    L = RS.leaders
    assert (L["arthur"].nation, L["arthur"].round) == ("romano_british", 7)
    assert (L["cnut"].nation, L["cnut"].round) == ("danes", 14) and "Sweyn/Canute" in L["cnut"].aliases
    for lid, nation in [("harold", "saxons"), ("harald_hardrada", "norwegians"), ("william", "normans")]:
        assert L[lid].nation == nation and L[lid].round == 15 and L[lid].stays_until_end
    assert {lid for lid, ld in L.items() if ld.stays_until_end} == {"harold", "harald_hardrada", "william"}
    for lid in ("arthur", "cnut", "harold", "harald_hardrada", "william"):
        assert not L[lid].doubt, lid


def test_rule_9_0_other_leaders_carry_a_doubt():
    """Doubt 6: every leader the rules text does not name comes from A/B (FFG data)."""
    named = {"arthur", "cnut", "harold", "harald_hardrada", "william"}
    for lid, ld in RS.leaders.items():
        if lid not in named:
            assert "seed 001" in ld.doubt, lid
    assert RS.leaders["oswiu"].place_in == "bernicia" and RS.leaders["offa"].place_in == "north_mercia"


def test_rule_9_0_leaders_enter_in_their_turn():
    for r, info in RS.rounds.items():
        for nation, lid in info.leaders:
            assert RS.leaders[lid].round == r and RS.leaders[lid].nation == nation
    assert sorted(lid for info in RS.rounds.values() for _, lid in info.leaders) == sorted(RS.leaders)


# --- 10.x: forces --------------------------------------------------------------------------------

def test_rule_10_1_population_constants():
    assert RS.const.pop_per_army == 3 and RS.const.pop_clear == 1 and RS.const.pop_hiland == 0.5
    assert RS.const.pop_max_saved_without_army == 2.5


def test_rule_10_3_10_4_romans():
    assert list(RS.const.roman_reinforce_rounds) == [4, 5] and RS.const.roman_reinforce_to == 10
    assert RS.const.roman_forts_last_round == 4 and RS.const.roman_departure_round == 6


def test_rule_10_5_romano_british():
    assert RS.const.romano_british_max == 8 == RS.nations["romano_british"].max_armies
    assert RS.const.romano_british_increase_from == 7
    rb = [a for a in RS.rounds[7].arrivals if a.nation == "romano_british"]
    assert len(rb) == 1 and rb[0].sea is None and rb[0].kind == "reinforcement"
    assert rb[0].armies + rb[0].cavalry == 2   # "both units" (doubt 15: that they are cavalry is A/S000)


def test_rule_10_6_six_danes_in_turn_14():
    danes = [a for a in RS.rounds[14].arrivals if a.nation == "danes"]
    assert sum(a.armies for a in danes) == 6 and not any(a.raider for a in danes)
    assert dict(RS.constants["danes_withdrawal"]) == {"round": 14, "armies": 4, "planned_invasion": 6}
    assert (RS.const.danes_withdrawal.round, RS.const.danes_withdrawal.armies) == (14, 4)
    assert ("danes", "cnut") in RS.rounds[14].leaders


def test_rule_10_7_turn_16_reinforcement_seas():
    assert RS.nations["norwegians"].landing.from_seas == {"north_sea"}          # 10.71
    assert RS.nations["normans"].landing.from_seas == {"english_channel"}       # 10.72
    assert RS.nations["normans"].max_cavalry > 0


# --- 11.x, 12.x, 13.0, 14.x: submission, kingship, control, scoring ------------------------------

def test_rule_11_1_submission_thresholds_5_4_3():
    assert dict(RS.submission["to_romans"]) == {"welsh": 5, "brigantes": 4, "picts": 3}


def test_rule_11_2_brigantes_submit_to_the_angles():
    rule = RS.submission["to_angles"]["brigantes"]
    assert rule["fewer_than"] == 3 and list(rule["count_in"]) == ["scotland"] and list(rule["plus"]) == ["galloway"]
    assert RS.const.angle_submission_ends == 12


def test_rule_12_2_12_3_12_4_awards():
    aw = RS.scoring["awards"]
    assert (aw["bretwalda"], aw["king"], aw["canute_king"]) == (2, 4, 4)
    assert list(RS.scoring["bretwalda_rounds"]) == [9, 10, 11]
    assert list(RS.scoring["king_rounds"]) == [12, 13, 14, 15]


def test_rule_12_5_king_in_turn_16():
    assert dict(RS.scoring["king_turn16"]) == {"saxons": 4, "normans": 5, "norwegians": 5}
    assert dict(RS.scoring["king_turn16_leaders"]) == {"saxons": "harold", "normans": "william",
                                                       "norwegians": "harald_hardrada"}


def test_rule_13_0_control_table_for_4_players():
    table = RS.players_table(4)
    assert {frozenset(v) for v in table.values()} == {
        frozenset({"romans", "romano_british", "scots", "dubliners", "norwegians"}),
        frozenset({"welsh", "caledonians", "jutes", "danes"}),
        frozenset({"brigantes", "irish", "norsemen", "saxons"}),
        frozenset({"belgae", "picts", "angles", "normans"}),
    }


@pytest.mark.parametrize("players", [3, 4, 5])
def test_rule_13_0_every_nation_has_one_player(players):
    listed = [n for ns in RS.players_table(players).values() for n in ns]
    assert sorted(listed) == sorted(RS.nations) and len(RS.players_table(players)) == players


def test_rule_13_0_tables_for_3_and_5_players_are_marked_provisional():
    doubt = next(d for d in RS.doubts if d["n"] == 8)
    assert doubt["status"] == "open" and set(doubt["refs"]) == {"ruleset.control.3", "ruleset.control.5"}


def test_rule_14_2_scoring_turns_4_7_10_13_16():
    assert list(RS.scoring["hold_rounds"]) == [4, 7, 10, 13, 16]
    assert [RS.hold_occasion(r) for r in (4, 5, 7, 10, 13, 16)] == [1, None, 2, 3, 4, 5]
    for card in RS.vp.values():
        assert set(card.hold) <= {1, 2, 3, 4, 5}


def test_rule_14_2_norse_capture_turns_12_to_16():
    (rounds, table), = RS.vp["norsemen"].capture
    assert rounds == set(range(12, 17)) and table
    assert RS.vp["norsemen"].hold.keys() == {4, 5}   # "holding it both at the end of Turn 13 and at game end"


def test_rule_14_2_roman_capture_turns_1_to_3():
    (rounds, table), = RS.vp["romans"].capture
    assert rounds == {1, 2, 3} and table


def test_rule_14_4_limes_at_the_end_of_turn_5():
    assert RS.scoring["limes_round"] == 5 and RS.vp["romans"].limes


# --- the turn record chart (timeline) ------------------------------------------------------------

def test_timeline_arrivals_are_sane():
    for r, info in RS.rounds.items():
        assert info.years[0] <= info.years[1]
        for a in info.arrivals:
            n = RS.nations[a.nation]
            assert a.armies <= n.max_armies and a.cavalry <= n.max_cavalry and a.armies + a.cavalry > 0
            if a.sea is None:
                assert a.kind == "reinforcement"
                continue
            # the sea an arrival appears in borders somewhere the nation may land (7.4)
            landable = [x for x in RS.seas[a.sea].coast if n.landing.allows(x, a.sea)]
            assert landable, (r, a)
        assert info.major_invasions <= set(RS.nations) and info.boats <= set(RS.nations)


def test_timeline_years_run_in_order():
    ends = [RS.rounds[r].years for r in range(1, 17)]
    assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:]))


def test_turn_15_invasions_of_harald_and_william():
    arr = {a.nation: a for a in RS.rounds[15].arrivals}
    assert arr["norwegians"].sea == "north_sea" and arr["normans"].sea == "english_channel"
    assert {"norwegians", "normans"} <= RS.rounds[15].major_invasions


def test_rule_10_5_south_of_and_including_york():
    """P3: Wales read as south of York (10.5 names only York)."""
    south = set(RS.constants_list("south_of_york"))
    assert "york" in south and "cheshire" in south and "cornwall" in south
    assert not south & (region("scotland") | {"bernicia", "lothian", "galloway", "cumbria", "pennines"})
    assert any(d["n"] == "P3" and d["status"] == "open" for d in RS.doubts)


def test_every_reference_doubt_was_checked_against_the_rules_text():
    """shared/reference/README.md doubts 1-24 each carry a status; settled/partly ones cite the rule."""
    import re

    assert [d["n"] for d in RS.doubts if isinstance(d["n"], int)] == list(range(1, 25))
    by_status = {}
    for d in RS.doubts:
        by_status.setdefault(d["status"], set()).add(d["n"])
        if d["status"] != "open":
            assert re.search(r"\b\d+\.\d+\b", d["resolution"]), d["n"]
        assert d.get("short") and d["refs"], d["n"]
    assert by_status["settled"] == {9, 16, 22, 24}
    assert by_status["partly"] == {3, 4, 5, 6, 7, 10, 15}


def test_ffg2_cards_print_cavalry_kill_lines_and_whose_turn():
    """Issue 31 — the Saxon, Jute and Angle cards' line for Romano-British cavalry is a cavalry line
    (it printed as "2 per leader none (any turn)"), and FFG 52's own-turn-only lines say so."""
    from click.testing import CliRunner

    from pbem.cli import cli

    for nation in ("Saxons", "Jutes", "Angles"):
        out = " ".join(CliRunner().invoke(cli, ["rules", "show", "ffg2", "--nation", nation]).output.split())
        assert "per leader none" not in out
        assert "Kill: 2 per cavalry unit of Romano-British (any turn, in its own turn only)" in out
