"""FFG 18 / rule 7.3: a STAY belongs to the movement it is written in (SECOND MOVEMENT above it: the
second), is read back there, and is judged against that movement's position."""

from __future__ import annotations

from pbem.data.loader import load
from pbem.orders.canonical import canonical_lines
from pbem.orders.parser import parse_message
from pbem.rules.orders import Stay

RS = load("ffg2")


def test_stay_after_second_movement_is_of_the_second_movement():
    pm = parse_message("NATION Romans\nSTAY 1 English Channel\nSECOND MOVEMENT\nSTAY 2 English Channel\n", RS)
    assert [(s.count, s.cycle) for s in pm.sections[0].of(Stay)] == [(1, 1), (2, 2)]


def test_read_back_puts_second_movement_before_a_second_cycle_stay():
    assert canonical_lines([Stay(count=2, sea="english_channel", cycle=2)], RS) == [
        "SECOND MOVEMENT", "STAY 2 English Channel"]
