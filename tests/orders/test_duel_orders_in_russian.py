"""Issue 29 / 34 — the Duel order forms read in Russian as the players' guide (docs/PLAYERS.ru.md)
writes them: Phases I-II (ПОТЕРЯТЬ, УБРАТЬ, УДЕРЖАТЬ, ПРИБЫТЬ) and the battles (ПОБЕДИТЕЛИ, ПОПАДАНИЯ)."""
from __future__ import annotations

import pytest

from pbem.data.loader import load_ruleset
from pbem.orders.parser import parse_message
from pbem.rules.rulesets.duel_orders import ArriveIn, LoseArmies, RemoveForArrivals, WithholdLeader

RS = load_ruleset("duel")


@pytest.mark.parametrize("russian, english", [
    ("ПОТЕРЯТЬ Devon, Kent", "LOSE Devon, Kent"),
    ("УБРАТЬ Kent", "REMOVE Kent"),
    ("УДЕРЖАТЬ Fergus Mor Mac Erc", "WITHHOLD Fergus Mor Mac Erc"),
    ("ПРИБЫТЬ 2 North Sea", "ARRIVE 2 North Sea"),
    ("ПОБЕДИТЕЛИ Dyfed: ОТСТУПИТЬ 1 в Powys, ОСТАЛЬНЫЕ в Hwicce", "VICTORS Dyfed: RETREAT 1 TO Powys, REST TO Hwicce"),
    ("ПОПАДАНИЯ Dyfed: ФОРТ ПЕРВЫМ", "HITS Dyfed: FORT FIRST"),
    ("ПОПАДАНИЯ ВСЕ: ФОРТ ПОСЛЕДНИМ, ПОСЕЛЕНЦЫ ПЕРВЫМИ", "HITS ALL: FORT LAST, SETTLERS FIRST"),
])
def test_a_duel_order_in_russian_reads_as_in_english(russian, english):
    ru = parse_message(f"NATION Saxons\n{russian}\n", RS)
    en = parse_message(f"NATION Saxons\n{english}\n", RS)
    assert not ru.problems and not en.problems, (ru.problems, en.problems)
    assert ru.sections[0].orders == en.sections[0].orders and ru.sections[0].orders


def test_the_phase_forms_are_duels_own():
    orders = parse_message("NATION Saxons\nLOSE Devon\nREMOVE Kent\nWITHHOLD Cerdic\nARRIVE 1 North Sea\n", RS)
    kinds = [type(o) for o in orders.sections[0].orders]
    assert kinds == [LoseArmies, RemoveForArrivals, WithholdLeader, ArriveIn]


def test_duel_names_read_in_russian_in_their_cases():
    """The Duel board's Russian names (pbem/data/duel/names.ru.yaml), declined: the same orders."""
    ru = parse_message("НАРОД Саксы\n2 Уэссекс -> Хвикке -> Элмет\nПОТЕРЯТЬ Восточной Англии, Кенте\n"
                       "ВОЖДЬ Кердик в Уэссексе\n", RS)
    en = parse_message("NATION Saxons\n2 Wessex -> Hwicce -> Elmet\nLOSE E Anglia, Kent\nLEADER Cerdic IN Wessex\n", RS)
    assert not ru.problems, ru.problems
    assert ru.sections[0].nation == "saxons" and ru.sections[0].orders == en.sections[0].orders
