"""Phase IV of Duel Britannia beyond the dice: [Retreat Options], [Leaders], Arthur who never dies, the
side hit's HITS order (pbem.rules.rulesets.duel_retreat, duel_battle, duel_orders). The conformance
cases (tests/cases/duel/) pin the positions; these tests look at what a case cannot show."""

from __future__ import annotations

from pathlib import Path

from pbem.cases import load_case
from pbem.data.loader import load
from pbem.orders.parser import parse_message
from pbem.rules.orders import order_from_dict, order_to_dict
from pbem.rules.rulesets.duel_orders import Hits, Victors
from pbem.rules.rulesets.duel_retreat import WOUNDED_STAYS, retreating_part
from pbem.rules.state import Stack
from pbem.rules.turn import play_nation_turn

CASES = Path(__file__).resolve().parents[1] / "cases" / "duel"


def _play(name: str):
    case = load_case(CASES / name)
    orders, problems = case.orders()
    assert not problems
    return play_nation_turn(case.rs, case.setup(), str(case.nation), orders, case.dice(),
                            start=case.data["start"], stop=case.data["stop"])


def test_arthur_never_dies_yet_the_kill_scores():
    """[Major Differences] Arthur "cannot die": left alone he leaves the board, not the game (he is no dead
    leader, so the aid brings him again), and the Saxons score the +2 of [Phase V: Scoring]."""
    tr = _play("arthur-never-dies.yaml")
    assert "arthur_romano_british" not in tr.state.dead_leaders
    assert "arthur_romano_british" not in tr.state.leaders_on_board()
    kinds = [e.KIND for e in tr.events]
    assert "duel_leader_driven_off" in kinds and "leader_killed" not in kinds
    assert tr.state.vp.get("saxons") == 2


def test_a_leader_alone_dies_even_with_no_enemy_left():
    """[Leaders] — both sides destroyed: Cerdic dies all the same (the generic rule 9.2 wants an enemy army)."""
    tr = _play("leader-alone-killed-no-enemy-left.yaml")
    assert "cerdic" in tr.state.dead_leaders
    assert any(e.KIND == "leader_killed" and e.by == "welsh" for e in tr.events)


def test_the_wounded_piece_stays_unless_every_piece_goes():
    """[Retreat Options] "a piece that has already been hit cannot retreat unless all pieces retreat"."""
    stack = Stack(armies=1, cavalry=1)
    part, why = retreating_part(stack, 1, "cavalry")
    assert (part.armies, part.cavalry, why) == (1, 0, "")
    part, why = retreating_part(Stack(armies=2), 2, "armies")
    assert (part.armies, why) == (2, "")                 # all go: the wounded with them
    part, why = retreating_part(Stack(cavalry=1, armies=1), 1, "armies")
    assert (part.armies, part.cavalry, why) == (0, 1, "")
    part, why = retreating_part(Stack(armies=2), 1, "armies")
    assert (part.armies, why) == (1, "")
    part, why = retreating_part(Stack(cavalry=2), 1, "cavalry")
    assert (part.cavalry, why) == (1, "")
    part, why = retreating_part(Stack(armies=1, cavalry=1), 1, None)
    assert (part.armies, why) == (1, "")
    part, why = retreating_part(Stack(armies=1, fort=True), 0, "armies")
    assert part.units == 0
    tr = _play("retreat-wounded-attacker-stays.yaml")
    assert any(e.KIND == "retreat_refused" and e.reason == WOUNDED_STAYS for e in tr.events)


def test_hits_and_victors_lines_read_print_and_save():
    """HITS is a standing order (kept between turns, saved and read back); VICTORS an order of the turn."""
    rs = load("duel")
    msg = parse_message("HITS ALL: FORT FIRST, SETTLERS FIRST\nVICTORS Dyfed: RETREAT 1 TO Powys, REST TO Hwicce\n", rs,
                        default_nation="saxons")
    assert msg.ok, msg.problems
    hits, victors = msg.sections[0].orders
    assert isinstance(hits, Hits) and hits.fort_first and hits.preference == "settlers_first"
    assert order_from_dict(order_to_dict(hits)) == hits
    assert isinstance(victors, Victors) and victors.parts() == [(1, "powys"), (None, "hwicce")]
    assert msg.sections[0].standing_orders() == [hits]


def test_a_victors_order_of_a_battle_lost_says_why_it_did_nothing():
    tr = _play("retreat-victors-battle-lost.yaml")
    unused = [e for e in tr.events if e.KIND == "order_unused"]
    assert [e.reason for e in unused] == ["the Saxons did not win the battle in Dyfed ([Retreat Options])"]


def test_hits_refuses_what_duel_does_not_have():
    """[Cavalry] "any 6 rolled by the enemy must be applied to the cavalry until it is eliminated": Duel has
    no CAVALRY LAST, so HITS refuses it; the classic LOSSES order is not Duel's (HITS takes its place)."""
    rs = load("duel")
    for line, said in (("HITS Wessex: CAVALRY LAST", "is not FORT FIRST, FORT LAST, RAIDERS FIRST or SETTLERS FIRST"),
                       ("HITS Wessex: FORT FIRST, FORT LAST", "two choices for the fort"),
                       ("LOSSES Hwicce: SETTLERS FIRST", "HITS")):
        msg = parse_message(line + "\n", rs, default_nation="saxons")
        assert [p.kind for p in msg.problems] == ["syntax"], (line, msg.problems)
        assert said in msg.problems[0].describe(), msg.problems[0].describe()
    classic = parse_message("LOSSES Essex: CAVALRY LAST\n", load("classic"), default_nation="saxons")
    assert classic.ok
