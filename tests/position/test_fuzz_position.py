"""Issue 27: any position file (pbem new --position, moderate position) gives a position or a
PositionError (a PbemError naming the line), never another exception."""

from __future__ import annotations

from pathlib import Path

from fuzzkit import HUGE, JUNK, NASTY_DIGITS, fuzz
from hypothesis import given
from hypothesis import strategies as st

from pbem.data.loader import load
from pbem.errors import PbemError
from pbem.position.file import read_position

RS = load("classic")
ROUND9 = (Path(__file__).parent / "round9.yaml").read_text()
LINES = ROUND9.splitlines()

SCALARS = st.one_of(st.sampled_from(NASTY_DIGITS + JUNK), HUGE, st.integers(-10**40, 10**40).map(str),
                    st.sampled_from(["~", "null", "true", "[]", "{}", "[[[[[[[[", "*a", "&a x", "!!python/object:os.system",
                                     "!!binary AAAA", "1e400", ".nan", "-.inf", "0o17", "0x1f", "2026-12-01", "'", '"',
                                     "? x", "- - -", "{Saxons: " + "9" * 5000 + "}", "{Saxons: ²}", "{Saxons: -1}",
                                     "{Saxons: 1, Saxons: 2}", "{Arthur: 1}", "{Romans: {armies: 3, forts: 2}}"]),
                    st.text(max_size=20))


@st.composite
def edited(draw):
    """The round-9 position with a few lines changed: a value replaced, a line doubled or cut, junk added."""
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "key", "dup", "cut", "insert", "indent"]))
        key, sep, _ = lines[i].partition(":")
        if op == "value" and sep:
            lines[i] = f"{key}: {draw(SCALARS)}"
        elif op == "key":
            lines[i] = f"{draw(SCALARS)}: {lines[i].partition(':')[2]}"
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "cut":
            lines.pop(i)
        elif op == "insert":
            lines.insert(i, f"  {draw(SCALARS)}: {draw(SCALARS)}")
        else:
            lines[i] = " " * draw(st.integers(0, 5)) + lines[i].lstrip()
    return "\n".join(lines) + "\n"


def _read(text: str) -> None:
    try:
        read_position(text, ruleset=RS)
    except PbemError:
        pass


@fuzz(400)
@given(edited())
def test_any_edit_of_a_position_file(text):
    _read(text)


@fuzz(300)
@given(st.one_of(st.text(max_size=300), st.lists(SCALARS, max_size=12).map("\n".join),
                 st.lists(st.tuples(SCALARS, SCALARS), max_size=8).map(lambda kv: "\n".join(f"{k}: {v}" for k, v in kv))))
def test_any_text_as_a_position_file(text):
    _read(text)


def test_deep_nesting_and_huge_positions():
    for text in ["[" * 100_000, "{a: " * 5000 + "1" + "}" * 5000, "- " * 20_000 + "x", "a: &a [*a]\nb: *a\n",
                 ROUND9.replace("round: 9", "round: " + "9" * 5000), ROUND9.replace("Picts: 1", "Picts: ²"),
                 ROUND9 + "\x00\n", ROUND9.replace("Kent", "K\ud800nt"), "{a: 1}: 2\n",
                 ROUND9.replace("  Alban:", "  {a: 1}: 2\n  Alban:")]:
        _read(text)
