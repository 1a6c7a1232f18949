"""Issue 28 item 5 — three places where a message or the prompt restated a rule and told the players
something the engine does not do: the prompt's leader entry (rule 9.0; ffg2 difference 39), the
stacking reply's numbers (rule 5.2, 5.22) and the Danish withdrawal's report line (rule 10.6; ffg2
difference 44). Each now takes the engine's own rule or the ruleset's numbers."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.events import DanesWithdrew
from pbem.rules.legal import check_turn
from pbem.rules.preview import turn_start
from pbem.rules.turn import new_game_state


def _arthur_alone(rs):
    """ffg2 round 7, the Romano-British turn, no Romano-British piece on the board (the case
    tests/cases/ffg2/39-arthur-enters-an-empty-area.yaml)."""
    state = new_game_state(rs)
    state.areas.clear()
    state.stack("york", "angles").armies = 2
    state.stack("essex", "saxons").armies = 1
    state.round, state.next_nation = 7, "romano_british"
    return state


def test_prompt_lists_every_entry_area_the_engine_accepts_for_arthur():
    """ffg2 difference 39 — with no Romano-British army on the board Arthur may enter any empty area
    south of Cumbria, Pennines and Bernicia: the prompt lists them all (it listed only the one the
    default puts him in), and `pbem check` accepts each one listed."""
    rs = load("ffg2")
    state = _arthur_alone(rs)
    start = turn_start(rs, state, "romano_british")
    (arthur,) = start.leaders
    south = [a for a in rs.constants_list("south_of_york") if not state.nations_in(a)]
    assert set(arthur.choices) == set(south) and len(arthur.choices) > 1
    for area in arthur.choices:
        sec = parse_message(f"LEADER Arthur IN {rs.display(area)}", rs,
                            default_nation="romano_british").section("romano_british")
        assert not check_turn(rs, state, sec).problems, area


def test_prompt_leader_choices_are_the_areas_held_before_the_leader_enters():
    """Rule 9.0 — a leader enters in an area with the nation's pieces: as before for the classic rules."""
    rs = load("classic")
    state = new_game_state(rs)
    for r in range(1, 17):
        entering = [(n, ld) for n, ld in rs.round_info(r).leaders]
        if entering:
            break
    nation, leader = entering[0]
    state.areas.clear()
    state.stack("kent", nation).armies = 2
    state.stack("essex", nation).armies = 1
    state.round, state.next_nation = r, nation
    start = turn_start(rs, state, nation)
    ld = next(x for x in start.leaders if x.leader == leader)
    assert set(ld.choices) <= {"kent", "essex"} | {a for a, st in state.areas.items() if nation in st}


def _stacking_reply(rs, state, nation, text):
    sec = parse_message(text, rs, default_nation=nation).section(nation)
    return [p.message for p in check_turn(rs, state, sec).problems]


def test_stacking_reply_gives_the_roman_hiland_limit():
    """Rule 5.22 — the Romans have no limit in a clear area but at most 4 in a hiland: a Roman move
    that puts 5 in a hiland is told 4, not the "2 in a hiland" of the other nations (5.2)."""
    rs = load("classic")
    state = new_game_state(rs)
    state.areas.clear()
    hiland = next(a for a in sorted(rs.areas) if rs.hiland(a) and any(
        rs.is_land(b) and not rs.hiland(b) for b in rs.neighbours(a)))
    clear = next(b for b in sorted(rs.neighbours(hiland)) if rs.is_land(b) and not rs.hiland(b))
    state.stack(hiland, "romans").armies = 4
    state.stack(clear, "romans").armies = 1
    state.round, state.next_nation = 2, "romans"
    msgs = _stacking_reply(rs, state, "romans", f"1 {rs.display(clear)} -> {rs.display(hiland)}")
    assert msgs, "5 Romans in a hiland break rule 5.22"
    text = " ".join(msgs)
    assert "4 in a hiland" in text and "2 in a hiland" not in text and "3 in a clear" not in text


def test_stacking_reply_numbers_come_from_the_ruleset():
    """Rule 5.2 — the other nations are told the ruleset's own limits (3 clear, 2 hiland in classic)."""
    rs = load("classic")
    msg = _stacking_message(rs, "jutes")
    assert f"{rs.const.stack_clear} in a clear area" in msg and f"{rs.const.stack_hiland} in a hiland" in msg


def _stacking_message(rs, nation):
    from pbem.rules.stacking import limits_text

    return limits_text(rs, nation)


def test_danes_withdrawal_line_says_whether_cnut_leaves():
    """Rule 10.6 — Canute leaves with the four armies; ffg2 difference 44 — Cnut stays: the report line
    says which (it always said "and Canute")."""
    ev = DanesWithdrew(round=14, turn="danes", removed={"york": 2, "lindsey": 2}, lines=[])
    classic, ffg2 = load("classic"), load("ffg2")
    canute = classic.display(classic.role("canute"))
    assert ev.describe(classic) == f"Danes withdraw 2 from York, 2 from Lindsey and {canute}"
    text = ev.describe(ffg2)
    assert text.startswith("Danes withdraw 2 from York, 2 from Lindsey") and "Canute" not in text \
        and ffg2.display(ffg2.role("canute")) not in text
