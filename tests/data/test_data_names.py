"""Issue 3, issue 15 item 6 — the one name resolver (pbem.orders.names) shared by the CLI, the ruleset
loader, cases and the orders parser."""

import pytest

from pbem.data.loader import load
from pbem.errors import OrderProblem, PbemError
from pbem.orders import names
from pbem.orders.names import (
    KINDS,
    AmbiguousName,
    NameProblem,
    UnknownName,
    match,
    normalize,
    suggestions,
)

RS = load("classic")


def resolve(rs, text, kinds=KINDS):
    """Every kind of name unless told (the parser asks for areas and seas)."""
    return names.resolve(rs, text, kinds)


@pytest.mark.parametrize("text", ["south_mercia", "South Mercia", "SOUTH MERCIA", "  south   mercia ",
                                  "S. Mercia", "S Mercia", "s.mercia", "South-Mercia"])
def test_orders_md_forms_of_a_name(text):
    assert resolve(RS, text) == "south_mercia"


def test_every_id_and_display_name_resolves_to_itself():
    for table in (RS.areas, RS.seas, RS.nations, RS.leaders):
        for ident, thing in table.items():
            assert resolve(RS, ident) == ident
            assert resolve(RS, thing.name) == ident
            for alias in thing.aliases:
                assert resolve(RS, alias) == ident


def test_rule_text_spellings():
    assert resolve(RS, "Clywd") == "clwyd"                # 2.11
    assert resolve(RS, "N. Mercia") == "north_mercia"     # 8.4
    assert resolve(RS, "Sweyn/Canute") == "cnut"          # 10.6
    assert resolve(RS, "Sweyn") == "cnut"
    assert resolve(RS, "Harald of Norway") == "harald_hardrada"   # 10.71
    assert resolve(RS, "Romano British") == "romano_british"


def test_unambiguous_prefix_of_four_letters():
    assert resolve(RS, "Sout") == "south_mercia"
    assert resolve(RS, "Wess") == "wessex"
    assert resolve(RS, "Norw") == "norwegians"
    assert resolve(RS, "Dalr") == "dalriada"


def test_prefix_shorter_than_four_letters_is_not_enough():
    with pytest.raises(UnknownName) as e:
        resolve(RS, "Yor")
    assert "York" in e.value.candidates and "Did you mean York?" in str(e.value)


def test_ambiguous_prefix_names_the_candidates():
    with pytest.raises(AmbiguousName) as e:
        resolve(RS, "Nort")
    err = e.value
    assert set(err.candidates) == {"North Mercia", "North Sea"}
    assert "North Mercia" in str(err) and "North Sea" in str(err)
    assert err.kind == "ambiguous-name"


def test_exact_name_wins_over_a_longer_prefix_match():
    assert resolve(RS, "Irish") == "irish"          # the nation, not the Irish Sea
    assert resolve(RS, "Harold") == "harold"        # not Harald
    assert resolve(RS, "Harald") == "harald_hardrada"


def test_kinds_restrict_the_search():
    assert resolve(RS, "Irish", kinds=("area", "sea")) == "irish_sea"
    assert resolve(RS, "Nort", kinds=("area",)) == "north_mercia"
    assert resolve(RS, "Nort", kinds=("sea",)) == "north_sea"
    with pytest.raises(UnknownName) as e:
        resolve(RS, "York", kinds=("nation",))
    assert "nation" in str(e.value)
    with pytest.raises(ValueError):
        resolve(RS, "York", kinds=("city",))


def test_unknown_name_says_did_you_mean():
    with pytest.raises(UnknownName) as e:
        resolve(RS, "Esex")
    err = e.value
    assert isinstance(err, PbemError) and isinstance(err, NameProblem)
    assert err.kind == "unknown-name" and err.candidates[0] == "Essex"
    assert err.hint.startswith("Did you mean Essex") and "Esex" in err.message


def test_a_word_of_a_longer_name_is_ambiguous_and_names_them():
    with pytest.raises(AmbiguousName) as e:
        resolve(RS, "Mercia")
    assert set(e.value.candidates) == {"North Mercia", "South Mercia"}


def test_nothing_close():
    with pytest.raises(UnknownName) as e:
        resolve(RS, "Constantinople")
    assert e.value.candidates == ()


def test_empty_name():
    with pytest.raises(UnknownName):
        resolve(RS, "  ")


def test_errors_become_order_problems():
    """The orders parser turns a lookup error into an OrderProblem of the same ORDERS.md kind."""
    for text, kind in (("Esex", "unknown-name"), ("Nort", "ambiguous-name")):
        with pytest.raises(NameProblem) as e:
            resolve(RS, text, kinds=("area", "sea"))
        p = OrderProblem(e.value.kind, 3, f"1 {text} -> Kent", e.value.message, e.value.hint)
        assert p.describe().startswith(f'line 3: "1 {text} -> Kent": {kind}: ')


def test_match_and_suggestions():
    assert match(RS, "Nort", ("area", "sea")) == [("area", "north_mercia"), ("sea", "north_sea")]
    assert match(RS, "zzzz") == []
    assert suggestions(RS, "Wesex")[0] == "Wessex"


def test_normalize():
    assert normalize("S. Mercia") == "s mercia"
    assert normalize("Romano-British") == normalize("romano_british") == "romano british"
    assert normalize("Sweyn/Canute") == "sweyn canute"
