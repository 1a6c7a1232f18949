"""Issue 34 item 3: the players' guide in Russian (docs/PLAYERS.ru.md) is made from the examples of the
English one (pbem.guide), so the two cannot drift: it is the file `python -m pbem.guide` writes, it
uses every example of the English guide, and every example of both guides is read by the order parser
without a problem, the Russian one as the same orders as the English one."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import guide
from pbem.orders.canonical import canonical_lines
from pbem.orders.parser import parse_message

REPO = Path(__file__).resolve().parents[1]
ENGLISH = (REPO / "docs" / "PLAYERS.md").read_text(encoding="utf-8")
BLOCKS, LINES = guide.examples(ENGLISH)
RU_BLOCKS, RU_LINES = guide.examples((REPO / "docs" / "PLAYERS.ru.md").read_text(encoding="utf-8"))


def test_the_russian_guide_is_the_one_made_from_the_english_examples():
    assert (REPO / "docs" / "PLAYERS.ru.md").read_text(encoding="utf-8") == guide.build(), (
        "docs/PLAYERS.ru.md is out of date: run `python -m pbem.guide`")


def test_the_russian_guide_uses_every_example_of_the_english_one():
    blocks, lines = guide.used()
    assert blocks == set(range(1, len(BLOCKS) + 1))
    assert lines == set(LINES)
    assert len(RU_BLOCKS) == len(BLOCKS) and len(RU_LINES) == len(LINES)


def test_an_example_the_english_guide_no_longer_has_stops_the_build():
    with pytest.raises(Exception, match="no example `PLACE Wessex`"):
        guide.build("@@`PLACE Wessex`@@", ENGLISH)
    with pytest.raises(Exception, match="no example block 99"):
        guide.build("@@block 99@@", ENGLISH)


def read(text: str):
    """What the parser makes of an example: header, settings and each nation's canonical orders."""
    rs = guide._ruleset()
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("From:")) + "\n"
    pm = parse_message(text, rs, default_nation="saxons")
    problems = [(ln.line, ln.text, ln.problems) for ln in pm.lines if ln.problems] + list(pm.problems)
    return problems, (pm.game, pm.token, [type(x).__name__ + repr(vars(x).get("zone", vars(x).get("start")))
                                          for x in pm.player_lines],
                      [(s.nation, canonical_lines(s, rs)) for s in pm.sections])


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_every_example_block_of_both_guides_reads_as_the_same_orders(i):
    problems, en = read(BLOCKS[i])
    assert not problems, problems
    ru_problems, ru = read(RU_BLOCKS[i])
    assert not ru_problems, (RU_BLOCKS[i], ru_problems)
    assert ru == en
    assert any(c.isalpha() and ord(c) > 0x400 for c in RU_BLOCKS[i]) or "TIMEZONE" in BLOCKS[i]


@pytest.mark.parametrize("i", range(len(LINES)))
def test_every_example_line_of_both_guides_reads_as_the_same_order(i):
    problems, en = read(LINES[i])
    assert not problems, (LINES[i], problems)
    ru_problems, ru = read(RU_LINES[i])
    assert not ru_problems, (RU_LINES[i], ru_problems)
    assert ru == en and RU_LINES[i] != LINES[i]
