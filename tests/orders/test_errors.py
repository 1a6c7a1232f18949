"""Bad lines: every one is reported, with its kind, line, quoted text, what is wrong and a hint."""

from __future__ import annotations

import pytest

from pbem.orders.names import AmbiguousName, UnknownName, resolve
from pbem.orders.parser import parse_message
from pbem.rules.orders import Pass


def problems(rs, text, nation="saxons"):
    return parse_message(text, rs, default_nation=nation).problems


def test_every_bad_line_is_reported(rs):
    text = "\n".join([
        "PASS",                      # 1 ok
        "3 Esex -> Kent",            # 2 unknown
        "PLAEC Kent",                # 3 syntax (typo of a keyword)
        "2 Mercia -> Kent",          # 4 ambiguous
        "ATTACK Kent: CHARGE",       # 5 syntax
        "# fine",                    # 6
        "3 Essex ->",                # 7 syntax
        "VOTE Essex",                # 8 unknown (an area, not a nation)
    ])
    ps = problems(rs, text)
    assert [(p.line, p.kind) for p in ps] == [
        (2, "unknown-name"), (3, "syntax"), (4, "ambiguous-name"), (5, "syntax"), (7, "syntax"), (8, "unknown-name")]
    assert all(p.text and p.message and p.hint for p in ps)
    assert ps[0].text == "3 Esex -> Kent"


def test_two_bad_names_on_one_line(rs):
    ps = problems(rs, "3 Esex -> Knt")
    assert [(p.line, p.kind) for p in ps] == [(1, "unknown-name"), (1, "unknown-name")]
    assert "Essex" in ps[0].hint and "Kent" in ps[1].hint


@pytest.mark.parametrize("text,names", [
    ("2 Mercia -> Essex", ["North Mercia", "South Mercia"]),
    ("2 Merc -> Essex", ["North Mercia", "South Mercia"]),
    ("2 Nort -> Essex", ["North Mercia", "North Sea"]),
    ("WITHDRAW Mercia", ["North Mercia", "South Mercia"]),
])
def test_ambiguous_names_name_the_candidates(rs, text, names):
    (p,) = problems(rs, text)
    assert p.kind == "ambiguous-name" and p.line == 1
    for n in names:
        assert n in p.message and n in p.hint


@pytest.mark.parametrize("text,suggestion", [
    ("3 Esex -> Kent", "Essex"),
    ("3 Essex -> Sufolk", "Suffolk"),
    ("1 Sussex -> Downland -> Souht Mercia", "South Mercia"),
    ("Egbrt Sussex -> Downlands", "Egbert"),
    ("Egbert Susex -> Downlands", "Sussex"),
    ("VOTE Saxxons", "Saxons"),
    ("SUBMIT TO Romanz", "Romans"),
    ("STAY 1 Atlantik Ocean", "Atlantic Ocean"),
    ("LEADER Alfrd IN Wessex", "Alfred"),
    ("NATION Saxns", "Saxons"),
    ("DEFEND Kent: RETREAT TO Esex", "Essex"),
])
def test_typo_did_you_mean(rs, text, suggestion):
    ps = problems(rs, text)
    assert ps and ps[0].kind == "unknown-name" and ps[0].line == 1
    assert any(suggestion in p.hint for p in ps), [p.hint for p in ps]
    assert any("Did you mean" in p.hint for p in ps)


@pytest.mark.parametrize("text,form_word", [
    ("3 Essex ->", "->"),
    ("3 Essex", "->"),
    ("-> Kent", "->"),
    ("3 Essex -> -> Kent", "->"),
    ("0 Essex -> Kent", "->"),
    ("99999 Essex -> Kent", "->"),
    ("3a Essex -> Kent", "->"),
    ("PLACE", "PLACE"),
    ("PLACE Essex,, Kent", "PLACE"),
    ("LEADER Egbert Sussex", "LEADER"),
    ("STAY Atlantic Ocean", "STAY"),
    ("SECOND", "SECOND MOVEMENT"),
    ("ATTACK Kent", "ATTACK"),
    ("ATTACK Kent: RETREAT AFTER ROUND", "ATTACK"),
    ("ATTACK Kent: RETREAT AFTER ROUND 0", "ATTACK"),
    ("DEFEND Kent: RUN", "DEFEND"),
    ("DEFEND Kent: RETREAT TO", "DEFEND"),
    ("DEFEND Kent: RETREAT REST TO Essex, 2 TO Sussex", "DEFEND"),
    ("DEFEND Kent: RETREAT 2 TO Essex, Sussex", "DEFEND"),
    ("DEFEND Kent: RETREAT TO Essex IF OUTNUMBERED IF OUTNUMBERED", "DEFEND"),
    ("CLEAR Kent", "CLEAR DEFEND"),
    ("LOSSES Kent: ARMIES FIRST", "LOSSES"),
    ("PASS now", "PASS"),
    ("GAME", "GAME"),
    ("TOKEN a b", "TOKEN"),
    ("we attack at dawn, 3 of us", "PLACE"),
    ("VOTE", "VOTE"),
    ("SUBMIT TO", "SUBMIT"),
])
def test_syntax_errors_give_the_accepted_forms(rs, text, form_word):
    ps = problems(rs, text)
    assert ps, text
    p = ps[0]
    assert p.kind == "syntax" and p.line == 1 and p.text == text
    assert form_word in p.hint


def test_keyword_typo_suggests_keyword(rs):
    (p,) = problems(rs, "DISBNAD York")
    assert "DISBAND" in p.hint


def test_unknown_nation_line_skips_its_orders(rs):
    pm = parse_message("NATION Saxxons\nPASS\n3 Essex -> Kent\nNATION Jutes\nPASS\n", rs)
    assert [(p.line, p.kind) for p in pm.problems] == [(1, "unknown-name"), (2, "syntax"), (3, "syntax")]
    assert "line 1" in pm.problems[1].message
    assert [s.nation for s in pm.sections] == ["jutes"]


def test_orders_without_any_nation(rs):
    pm = parse_message("PASS\n", rs)
    (p,) = pm.problems
    assert p.kind == "syntax" and p.line == 1 and "NATION" in p.hint
    assert pm.sections == []


def test_second_game_line(rs):
    pm = parse_message("GAME a\nGAME b\nPASS\n", rs, default_nation="saxons")
    assert [(p.line, p.kind) for p in pm.problems] == [(2, "syntax")]
    assert pm.game == "a"


def test_kind_mismatch_says_what_it_is(rs):
    (p,) = problems(rs, "STAY 1 Essex")
    assert p.kind == "unknown-name" and "Essex is an area" in p.message


def test_line_numbers_count_ignored_lines(rs):
    text = "> quoted\n\n# comment\n3 Esex -> Kent\n-- \n3 Esex -> Kent\n"
    assert [p.line for p in problems(rs, text)] == [4]


def test_good_lines_survive_bad_ones(rs):
    pm = parse_message("3 Esex -> Kent\nPASS\n", rs, default_nation="saxons")
    assert pm.section("saxons").orders == [Pass()]


def test_resolver_api(rs):
    assert resolve(rs, "S. Mercia") == "south_mercia"
    assert resolve(rs, "harald", "leader") == "harald_hardrada"
    with pytest.raises(AmbiguousName) as e:
        resolve(rs, "Mercia")
    assert e.value.candidates == ("North Mercia", "South Mercia")
    with pytest.raises(UnknownName) as e:
        resolve(rs, "Esex")
    assert "Essex" in e.value.candidates
    assert resolve(rs, "Mar") == "mar" and resolve(rs, "Marc") == "march"


def test_forts_never_move(rs):
    (p,) = problems(rs, "1 fort Kent -> Essex")
    assert p.kind == "syntax" and "never move" in p.message


def test_leader_with_a_number(rs):
    (p,) = problems(rs, "1 Egbert Sussex -> Downlands")
    assert p.kind == "syntax" and "Egbert Sussex ->" in p.hint


def test_parse_line(rs):
    from pbem.errors import OrderError
    from pbem.orders.parser import parse_line
    from pbem.rules.orders import Defend

    assert parse_line("DEFEND Kent: HOLD", rs) == Defend(area="kent", hold=True)
    with pytest.raises(OrderError) as e:
        parse_line("DEFEND Kent: HOL", rs, line=3)
    assert e.value.kind == "syntax" and e.value.line == 3
    with pytest.raises(OrderError):
        parse_line("PASS\nPASS", rs)
