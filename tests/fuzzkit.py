"""Hostile text for the fuzz tests of every text entry point (issue 27), and their budget.

Every fuzz test asks `fuzz(n)` for its settings: n examples in the default run, scaled so that all of
them together run about PBEM_FUZZ_EXAMPLES examples when that is set (the long run:
`PBEM_FUZZ_EXAMPLES=100000 pytest tests/orders/test_fuzz.py tests/mail/test_fuzz_mail.py
tests/position/test_fuzz_position.py`). The per-example deadline is a generous hang guard, not a
speed test.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

DEFAULT_TOTAL = 8500
"""The examples of the default run, all fuzz tests of the entry points together (the sum of their n)."""

DEADLINE = timedelta(seconds=10)


def examples(n: int) -> int:
    total = int(os.environ.get("PBEM_FUZZ_EXAMPLES") or 0)
    return max(1, round(n * total / DEFAULT_TOTAL)) if total else n


def fuzz(n: int, deadline: timedelta = DEADLINE):
    return settings(max_examples=examples(n), deadline=deadline, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture,
                                           HealthCheck.large_base_example])


NASTY_DIGITS = ["²", "³", "¹", "₁", "①", "٣", "߀", "⁰", "Ⅳ", "½", "𝟘", "٠١", "0x1f", "1e9", "1_000", "-0",
                "+3", "3.5", "nan", "inf", "-1", "0", "99", "100", "999999999999999999999"]
HUGE = st.integers(4301, 6000).map(lambda n: "9" * n)
JUNK = ["\x00", "\ud800", "\udcff", "\u200b", "\ufeff", "\u202e", "\u00a0", "\t", "\r", "\x1b[0m", "\x7f",
        "\U0001F600", "Ｋｅｎｔ", "ﬁ", "İ", "ß", "=?utf-8?b?S2VudA==?=", "&amp;", "<b>", "%s", "{0}", "\\",
        "'", '"', "`", "$(x)", "../..", "x" * 3000, "(" * 2000, "[" * 2000, "{" * 2000, "->" * 500]
PUNCT = ["->", "→", "to", ",", ":", ";", ".", "#", ">", "--", "-", "=>", "and", "x", "×", "(", ")", "ALL",
         "IF", "OUTNUMBERED", "AFTER", "ROUND", "ROUNDS", "RETREAT", "TO", "HOLD", "FIGHT", "REST",
         "RAIDERS", "FIRST", "SETTLERS", "CAVALRY", "LAST", "cav", "army", "armies", "IN", "VS", "FORT",
         "LEADER", "MOVEMENT"]
NAMES = ["Kent", "Essex", "Channel", "North Sea", "Sussex", "York", "Mercia", "South Mercia", "Powys", "Romans",
         "Saxons", "Belgae", "Jutes", "Arthur", "Boudicca", "Caesar", "Hiland", "Irish Sea", "Frisian Sea"]


def words(extra: list[str] = ()) -> st.SearchStrategy[str]:
    """One word of a hostile line: a name, a keyword, a nasty number, junk, or any text."""
    return st.one_of(
        st.sampled_from(NAMES + PUNCT + list(extra)),
        st.sampled_from(NASTY_DIGITS),
        st.sampled_from(JUNK),
        HUGE,
        st.integers(-10**30, 10**30).map(str),
        st.text(max_size=12),
    )


def line(head: str | st.SearchStrategy[str] = "", extra: list[str] = ()) -> st.SearchStrategy[str]:
    """`head` followed by up to 8 hostile words."""
    heads = head if isinstance(head, st.SearchStrategy) else st.just(head)
    return st.tuples(heads, st.lists(words(extra), max_size=8)).map(lambda t: " ".join([t[0], *t[1]]).strip())


def lines(head: str | st.SearchStrategy[str] = "", extra: list[str] = (), max_size: int = 6):
    return st.lists(line(head, extra), min_size=1, max_size=max_size).map("\n".join)
