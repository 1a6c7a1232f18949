"""Issue 28 item 4 — an order language per rules family: the forms a family accepts (keyword, typed
order, parse, canonical print) are registered once (pbem.rules.orders.OrderForm; the generic ones in
pbem.orders.forms, classic's BRITTANY and ALLOW in pbem/rules/rulesets/classic_orders.py) and listed by
the family (`Rules.order_forms`); the parser, the canonical read-back, the reply's list of forms, the
prompt and the players' guide all follow that list."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem.data.folders import is_package, known_rulesets
from pbem.data.loader import load_ruleset
from pbem.errors import OrderError
from pbem.orders.canonical import canonical
from pbem.orders.language import (
    GUIDE_END,
    GUIDE_START,
    example,
    guide_lines,
    guide_section,
    language,
    prompt_words,
)
from pbem.orders.parser import parse_line, parse_message
from pbem.rules.orders import BASE_LANGUAGE, Order, OrderForm, Stay, register_form, unregister_form
from pbem.rules.rulesets.base import FAMILIES
from pbem.rules.rulesets.classic import ClassicRules

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", params=["classic", "ffg2"])
def any_rs(request):
    return load_ruleset(request.param)


# --- every form's example parses and prints back canonically -------------------------------------
def test_every_form_of_each_ruleset_has_an_example_that_reads_and_prints_back_canonically(any_rs):
    rs = any_rs
    for form in language(rs).forms:
        text = example(form, rs)
        assert text is not None, f"{form.keyword}: the example names something the ruleset lacks"
        order = parse_line(text, rs, line=1)
        assert isinstance(order, form.order_type), (form.keyword, text, order)
        assert canonical(order, rs) == text, f"{form.keyword}: the example is not written canonically"
        assert parse_line(canonical(order, rs), rs) == order


def test_the_plain_engine_s_forms_read_and_print_back_in_the_tiny_ruleset():
    """The made-up tiny ruleset (tests/data/tiny, `family: base`): its forms are the base list; every
    example it has the names for (it has no sea) reads and prints back canonically."""
    from pbem.data.loader import load_from_tables
    from pbem.store.yamlio import load_plain

    tiny = REPO / "tests" / "data" / "tiny"
    rs = load_from_tables({n: load_plain(tiny / f"{n}.yaml")
                           for n in ("ruleset", "map", "nations", "timeline", "victory_points")}, "tiny")
    assert tuple(rs.rules.order_forms) == BASE_LANGUAGE
    shown = 0
    for form in language(rs).forms:
        text = example(form, rs)
        if text is None:
            continue
        shown += 1
        assert canonical(parse_line(text, rs), rs) == text
    assert shown == len(BASE_LANGUAGE) - 1     # STAY needs a sea


def test_the_classic_family_adds_brittany_and_allow_to_the_base_forms():
    """Optional rule 16.251 (BRITTANY) and rule 11.1 (ALLOW) are the classic family's own forms; ffg2
    inherits them; the plain engine (`family: base`) has the generic forms only."""
    for ruleset in ("classic", "ffg2"):
        words = tuple(load_ruleset(ruleset).rules.order_forms)
        assert words == BASE_LANGUAGE.adding("BRITTANY", after="DISBAND").adding("ALLOW", after="SUBMIT")
    assert "BRITTANY" not in BASE_LANGUAGE and "ALLOW" not in BASE_LANGUAGE


def test_a_family_without_a_form_answers_its_keyword_with_the_forms_it_has():
    """The plain engine has no ALLOW (rule 11.1 is a classic rule): the line is refused by the parser
    with its line, its text and the forms of the ruleset."""
    base = dataclasses.replace(load_ruleset("classic"), family="base")
    pm = parse_message("PASS\nALLOW Welsh\n", base, default_nation="romans")
    (p,) = pm.problems
    assert (p.kind, p.line, p.text) == ("syntax", 2, "ALLOW Welsh")
    assert p.message == f"ALLOW is not an order of this game's rules ({base.name})"
    assert p.hint == language(base).hint and "ALLOW" not in p.hint and "SUBMIT TO <nation>" in p.hint
    with pytest.raises(OrderError) as e:
        parse_line("allow Welsh", base)
    assert "ALLOW is not an order" in e.value.problems[0].message
    # the same line in a classic game is an order
    assert parse_line("ALLOW Welsh", load_ruleset("classic")).nation == "welsh"


# --- a made-up family: adds a form, drops one -------------------------------------------------------
@dataclass(frozen=True)
class Rally(Order):
    """RALLY A — the made-up order of the made-up family (the armies in A gather: a test's rule)."""

    area: str


def _parse_rally(reader, rest: str) -> Order:
    if not rest:
        raise reader.syntax("which area?", "RALLY")
    return Rally(area=reader.names.place(rest))


@pytest.fixture
def made_up():
    """A family registered in the test: the classic forms without STAY, with RALLY after PASS."""
    form = register_form(OrderForm("RALLY", Rally, "RALLY A", "RALLY {area}", _parse_rally,
                                   lambda o, rs: f"RALLY {rs.display(o.area)}", meaning="the armies in A gather",
                                   translations={"ru": ("сбор",)}))

    class MadeUpRules(ClassicRules):
        name = "made_up_forms"
        order_forms = ClassicRules.order_forms.without("STAY").adding("RALLY", after="PASS")

    try:
        yield dataclasses.replace(load_ruleset("classic"), family=MadeUpRules.name), form
    finally:
        FAMILIES.pop(MadeUpRules.name, None)
        unregister_form("RALLY")


def test_a_made_up_family_adds_a_form_and_drops_one_and_the_parser_follows(made_up):
    rs, form = made_up
    pm = parse_message("RALLY Essex\nSTAY 2 North Sea\nrally\nRALY Kent\n", rs, default_nation="saxons")
    assert pm.sections[0].orders == [Rally(area="essex")]
    stay, empty, typo = pm.problems
    assert (stay.line, stay.text, stay.message) == (2, "STAY 2 North Sea", f"STAY is not an order of this game's rules ({rs.name})")
    assert "RALLY A" in stay.hint and "STAY N <sea>" not in stay.hint
    assert (empty.line, empty.message, empty.hint) == (3, "which area?", "Write it as: RALLY A.")
    assert typo.line == 4 and typo.hint == "Did you mean RALLY? Write it as: RALLY A."
    # the classic family keeps STAY and does not know RALLY
    classic = load_ruleset("classic")
    assert parse_line("STAY 2 North Sea", classic) == Stay(count=2, sea="north_sea")
    (p,) = parse_message("RALLY Essex", classic, default_nation="saxons").problems
    assert p.message == f"RALLY is not an order of this game's rules ({classic.name})" and "RALLY" not in p.hint


def test_a_made_up_form_is_read_in_russian_too(made_up):
    """The Russian keywords are each form's own (OrderForm.translations, pbem.orders.russian)."""
    rs, _ = made_up
    assert parse_line("СБОР Эссекс", rs) == Rally(area="essex")
    (p,) = parse_message("СБОРР Эссекс", rs, default_nation="saxons").problems
    assert p.hint == "Did you mean СБОР (RALLY)? Write it as: RALLY A."
    (p,) = parse_message("ОСТАТЬСЯ 2 в Северном море", rs, default_nation="saxons").problems
    assert p.message.startswith("STAY is not an order of this game's rules")


def test_a_made_up_family_reads_back_and_lists_its_forms(made_up):
    """The canonical read-back, the reply's list of forms, the prompt's words and the guide's list come
    from the same forms."""
    rs, form = made_up
    order = parse_line("rally  essex", rs)
    assert canonical(order, rs) == "RALLY Essex"
    assert canonical(parse_line(example(form, rs), rs), rs) == example(form, rs) == "RALLY Alban"
    lang = language(rs)
    assert "RALLY A" in lang.grammar and "STAY N <sea>" not in lang.grammar
    assert lang.grammar.index("RALLY A") == lang.grammar.index("PASS") + 1
    assert "- `RALLY A`: the armies in A gather." in guide_lines(rs)
    assert not any("STAY" in ln for ln in guide_lines(rs))
    words = prompt_words(rs).split(", ")
    assert "RALLY" in words and "STAY" not in words
    section = guide_section([load_ruleset("classic"), rs])
    assert "Ruleset `classic`:" in section and "STAY N <sea>" in section and "RALLY A" in section


def test_the_reply_lists_the_forms_of_the_game_s_ruleset(made_up):
    from pbem.orders.check import check_orders
    from pbem.orders.reply import render_reply

    rs, _ = made_up
    text = render_reply(check_orders("Essex Kent Sussex\n", rs, nation="saxons"), rs)
    assert "  RALLY A\n" in text and "STAY N <sea>" not in text


def test_a_family_listing_a_form_nobody_registered_is_an_error_that_says_which():
    from pbem.errors import PbemError

    class NoSuchForm(ClassicRules):
        name = "lists_a_missing_form"
        order_forms = ClassicRules.order_forms.adding("ERUPT")

    try:
        rs = dataclasses.replace(load_ruleset("classic"), family=NoSuchForm.name)
        with pytest.raises(PbemError, match="order forms nobody registered: ERUPT"):
            language(rs)
    finally:
        FAMILIES.pop(NoSuchForm.name, None)


# --- the guide and the prompt list each ruleset's forms -----------------------------------------------
def test_the_players_guide_lists_the_forms_of_every_ruleset():
    """docs/PLAYERS.md carries the lists pbem.orders.language.guide_section makes from the registered forms
    (after changing a family's forms: `with_guide_section` writes them anew)."""
    guide = (REPO / "docs" / "PLAYERS.md").read_text(encoding="utf-8")
    shipped = GUIDE_START + guide.split(GUIDE_START, 1)[1].split(GUIDE_END, 1)[0] + GUIDE_END
    assert shipped == guide_section([load_ruleset(r) for r in known_rulesets() if is_package(r)])


def test_the_prompt_names_the_order_words_of_the_ruleset(any_rs):
    from pbem.report.prompt import prompt_text
    from pbem.rules.turn import new_game_state, start_round

    state, _ = start_round(any_rs, new_game_state(any_rs, "g"))
    text = prompt_text("g", any_rs, state, [state.next_nation], what="your orders", deadline="soon")
    assert f"Order words: {prompt_words(any_rs)}." in " ".join(text.split())
    second = "" if any_rs.id == "duel" else ", SECOND MOVEMENT"   # Duel has no major invasions
    assert prompt_words(any_rs).replace(", LOSE, REMOVE, ARRIVE", "").replace(", WITHHOLD", "").startswith(
        "PLACE, LEADER, moves (N A -> B [-> C ...]), STAY" + second)


def test_language_is_a_player_form_of_every_ruleset_with_its_russian_keyword():
    """Issue 34: LANGUAGE <code> is a player's setting like TIMEZONE (a registered OrderForm of the base
    language, kind "player"), read in Russian as ЯЗЫК; its read-back is the canonical line."""
    from pbem.orders.russian import first_words
    from pbem.rules.orders import LanguageLine, form_named

    form = form_named("LANGUAGE")
    assert form.kind == "player" and "LANGUAGE" in BASE_LANGUAGE
    assert first_words()["язык"] == "LANGUAGE"
    for r in known_rulesets():
        if is_package(r):
            rs = load_ruleset(r)
            pm = parse_message("ЯЗЫК ru\nLANGUAGE en\n", rs)
            assert pm.player_lines == [LanguageLine(language="ru"), LanguageLine(language="en")]
            assert canonical(LanguageLine(language="ru"), rs) == "LANGUAGE ru"
