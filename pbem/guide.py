"""The players' guide in Russian, docs/PLAYERS.ru.md, made from the examples of the English one (issue 34).

docs/PLAYERS.md is the guide; its order examples are its fenced blocks of order lines and the
`code` of the first column of its order tables (EXAMPLES). docs/PLAYERS.ru.md.in is the Russian text
around them: where it says `@@block N@@` the N-th example block of the English guide goes, written
as a Russian player writes it (Russian order words and names, `in_russian`), and `@@`PLACE Essex`@@`
an example of a table, the same way. An example the English guide no longer has stops the build
(`build` raises), and tests/test_guides.py checks that the Russian guide is the one `build` makes,
that it uses every example of the English one, and that every example of both guides is read by the
order parser as the same orders. `python -m pbem.guide` writes docs/PLAYERS.ru.md.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pbem.errors import PbemError

DOCS = Path(__file__).resolve().parent.parent / "docs"
ENGLISH = "PLAYERS.md"
RUSSIAN = "PLAYERS.ru.md"
SOURCE = "PLAYERS.ru.md.in"
RULESET = "classic"        # the guide's names (Saxons, Essex, Aelle) are those of the classic board

_FENCE = re.compile(r"^```[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_ROW = re.compile(r"^\| (`[^|]*`(?: / `[^|]*`)*) \|", re.MULTILINE)
_SPAN = re.compile(r"`([^`]+)`")
_REF_BLOCK = re.compile(r"@@block (\d+)@@")
_REF_LINE = re.compile(r"@@`([^`]+)`@@")
_ORDER_START = re.compile(r"^(GAME|NATION|TOKEN|TIMEZONE|AWAY|LANGUAGE|PLACE|From:|ИГРА|НАРОД|ТОКЕН|ЯЗЫК)(?=\s)")

# the words inside an order line (after its first word) a Russian player writes (pbem.orders.russian)
INNER = (("IF OUTNUMBERED", "ЕСЛИ МЕНЬШЕ"), ("AFTER ROUND", "ПОСЛЕ РАУНДА"), ("RAIDERS FIRST", "НАБЕГИ ПЕРВЫМИ"),
         ("SETTLERS FIRST", "ПОСЕЛЕНЦЫ ПЕРВЫМИ"), ("CAVALRY LAST", "КОННИЦА ПОСЛЕДНЕЙ"), ("RETREAT", "ОТСТУПИТЬ"),
         ("FIGHT", "БИТЬСЯ"), ("HOLD", "ДЕРЖАТЬ"), ("REST", "ОСТАЛЬНЫЕ"), ("MOVEMENT", "ДВИЖЕНИЕ"),
         ("DEFEND", "ЗАЩИТУ"), ("ALL", "ВСЕ"), ("TO", "в"), ("IN", "в"), ("cavalry", "конница"),
         ("armies", "армии"))
FIRST = {"GAME": "ИГРА", "NATION": "НАРОД", "TOKEN": "ТОКЕН", "LANGUAGE": "ЯЗЫК", "PLACE": "РАЗМЕСТИТЬ",
         "LEADER": "ВОЖДЬ", "STAY": "ОСТАТЬСЯ", "SECOND": "ВТОРОЕ", "BATTLES": "БИТВЫ", "ATTACK": "АТАКА",
         "WITHDRAW": "ОТКАТ", "SETTLE": "ОСЕСТЬ", "DISBAND": "РАСПУСТИТЬ", "BRITTANY": "БРЕТАНЬ", "VOTE": "ГОЛОС",
         "SUBMIT": "ПОКОРИТЬСЯ", "ALLOW": "РАЗРЕШИТЬ", "PASS": "ПАС", "DEFEND": "ЗАЩИТА", "CLEAR": "ОТМЕНИТЬ",
         "LOSSES": "ПОТЕРИ"}
"""The Russian first word of each order (the first of each form's `translations["ru"]`); TIMEZONE and AWAY
have none and stay as they are."""


def examples(guide: str) -> tuple[list[str], list[str]]:
    """The order examples of a guide: its fenced blocks of order lines, and the lines of its tables
    (a line with `...` in it is a pattern, not an example)."""
    blocks = [b for b in _FENCE.findall(guide) if b.strip() and _ORDER_START.match(b.strip())]
    lines = [s for cell in _ROW.findall(guide) for s in _SPAN.findall(cell) if "..." not in s]
    return blocks, lines


def _ruleset():
    from pbem.data.loader import load

    return load(RULESET)


def in_russian(line: str, rs=None) -> str:
    """An English order line as a Russian player writes it: the Russian order words and names."""
    from pbem import i18n

    rs = rs or _ruleset()
    words = line.split(maxsplit=1)
    if not words or words[0] in ("From:", "TIMEZONE", "AWAY"):    # no Russian words for these
        return line
    first, rest = words[0], words[1] if len(words) > 1 else ""
    if first.upper() == "SUBMIT":         # ПОКОРИТЬСЯ <народ>: the Russian verb needs no "to"
        rest = re.sub(r"^TO(\s+|$)", "", rest)
    if first.upper() in FIRST:
        first = FIRST[first.upper()]
    for english, russian in INNER:
        rest = re.sub(rf"(?<![\w]){re.escape(english)}(?![\w])", russian, rest)
    return i18n.order_line("ru", rs, f"{first} {rest}".rstrip())


def _block(text: str, rs) -> str:
    return "\n".join(in_russian(ln, rs) for ln in text.splitlines()) + ("\n" if text.endswith("\n") else "")


def build(source: str | None = None, english: str | None = None) -> str:
    """docs/PLAYERS.ru.md as made from docs/PLAYERS.ru.md.in and the examples of docs/PLAYERS.md."""
    source = (DOCS / SOURCE).read_text(encoding="utf-8") if source is None else source
    english = (DOCS / ENGLISH).read_text(encoding="utf-8") if english is None else english
    blocks, lines = examples(english)
    rs = _ruleset()

    def block(m: re.Match) -> str:
        n = int(m.group(1))
        if not 1 <= n <= len(blocks):
            raise PbemError(f"{SOURCE}: the English guide has no example block {n}", hint=f"it has {len(blocks)}")
        return "```\n" + _block(blocks[n - 1], rs) + "```"

    def line(m: re.Match) -> str:
        if m.group(1) not in lines:
            raise PbemError(f"{SOURCE}: the English guide has no example `{m.group(1)}`",
                            hint="write the example as the English guide's table has it")
        return f"`{in_russian(m.group(1), rs)}`"

    head = ("<!-- Made by `python -m pbem.guide` from docs/PLAYERS.ru.md.in and the examples of "
            "docs/PLAYERS.md: edit those. -->\n")
    return head + _REF_LINE.sub(line, _REF_BLOCK.sub(block, source))


def used(source: str | None = None) -> tuple[set[int], set[str]]:
    """The example blocks (numbers) and table lines the Russian source refers to."""
    source = (DOCS / SOURCE).read_text(encoding="utf-8") if source is None else source
    return {int(n) for n in _REF_BLOCK.findall(source)}, set(_REF_LINE.findall(source))


def main() -> int:
    (DOCS / RUSSIAN).write_text(build(), encoding="utf-8")
    print(f"wrote {DOCS / RUSSIAN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
