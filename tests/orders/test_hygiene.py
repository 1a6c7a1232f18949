"""Mail-text hygiene: what people paste into mails still reads, and line numbers stay the original ones."""

from __future__ import annotations

import pytest

from pbem.orders.hygiene import clean_lines, normalize
from pbem.orders.parser import parse_message
from pbem.rules.orders import Move, Pass

MOVE = Move(count=3, kind="armies", path=("essex", "suffolk"))


def orders(rs, text):
    pm = parse_message(text, rs, default_nation="saxons")
    assert pm.problems == [], [p.describe() for p in pm.problems]
    return [(o.line, o) for s in pm.sections for o in s.orders]


@pytest.mark.parametrize("text", [
    "3 Essex -> Suffolk",
    "3\u00a0Essex\u00a0->\u00a0Suffolk",            # non-breaking spaces
    "3\u2003Essex\u2009->\u202fSuffolk",             # em space, thin space, narrow nbsp
    "3\tEssex\t->\tSuffolk",
    "3 Essex → Suffolk",
    "3 Essex ⇒ Suffolk",
    "3 Essex ➔ Suffolk",
    "3 Essex=>Suffolk",
    "3 Essex –> Suffolk",                             # en dash arrow
    "3 Essex —> Suffolk",                             # em dash arrow
    "3 Essex - > Suffolk",
    "3 Es\u200bsex -> Suf\u200dfolk\ufeff",           # zero-width characters
    "\ufeff3 Essex -> Suffolk",                       # byte-order mark
    "３ Ｅｓｓｅｘ －＞ Ｓｕｆｆｏｌｋ",                 # full-width forms
    "3 Essex -&gt; Suffolk",                          # an HTML entity left over
    "<div>3 Essex -> Suffolk</div>",                 # stray tags
    "<p style=\"x\">3 <b>Essex</b> -&gt; Suffolk<br></p>",
    "3 Essex -> Suffolk.",
    "3 “Essex” -> ‘Suffolk’",                        # smart quotes
])
def test_cleaned_move(rs, text):
    assert orders(rs, text) == [(1, MOVE)]


def test_dashes_in_names(rs):
    assert orders(rs, "VOTE Romano\u2013British") == [(1, orders(rs, "VOTE Romano-British")[0][1])]
    assert orders(rs, "VOTE Romano\u2014British")[0][1].nation == "romano_british"


def test_windows_and_mac_line_endings_keep_numbers(rs):
    got = orders(rs, "PASS\r\n\r\n3 Essex -> Suffolk\r\n")
    assert [ln for ln, _ in got] == [1, 3]
    got = orders(rs, "PASS\r\r3 Essex -> Suffolk\r")
    assert [ln for ln, _ in got] == [1, 3]


def test_other_unicode_line_breaks_do_not_shift_numbers(rs):
    got = orders(rs, "PASS\u2028\n3 Essex -> Suffolk\x0c\n")
    assert [ln for ln, _ in got] == [1, 2]


def test_quoted_lines_ignored(rs):
    text = "PASS\n> 3 Essex -> Nowhere\n  >> rubbish\n&gt; also quoted\nOn Mon, 1 Jan 2024, GM <gm@x> wrote:\n3 Essex -> Suffolk\n"
    assert orders(rs, text) == [(1, Pass()), (6, MOVE)]


@pytest.mark.parametrize("sig", ["-- ", "--", "-- \r", "--\u00a0", " -- "])
def test_signature_ends_the_orders(rs, sig):
    text = f"3 Essex -> Suffolk\n{sig}\nJohn Smith\n3 Nowhere -> Else\n"
    assert orders(rs, text) == [(1, MOVE)]


@pytest.mark.parametrize("marker", ["-----Original Message-----", "________________________________",
                                    "Begin forwarded message:"])
def test_mail_program_quote_markers(rs, marker):
    assert orders(rs, f"3 Essex -> Suffolk\n\n{marker}\nFrom: GM\nrubbish here\n") == [(1, MOVE)]


def test_separator_lines_are_not_signatures(rs):
    assert orders(rs, "---\nPASS\n=====\n* * *\n3 Essex -> Suffolk\n") == [(2, Pass()), (5, MOVE)]


def test_comments_and_blank_lines(rs):
    text = "# my orders\n\n   \nPASS   # nothing to do\n#3 Essex -> Nowhere\n"
    assert orders(rs, text) == [(4, Pass())]


def test_bytes_are_read_as_utf8(rs):
    assert orders(rs, "3 Essex → Suffolk\n".encode()) == [(1, MOVE)]
    assert orders(rs, b"\xef\xbb\xbfPASS\r\n") == [(1, Pass())]


def test_clean_lines_one_per_original_line():
    text = "a\r\nb\rc\nd\u2028e\n"
    lines = clean_lines(text)
    assert [ln.number for ln in lines] == [1, 2, 3, 4, 5]
    assert [ln.original for ln in lines] == ["a", "b", "c", "d\u2028e", ""]


def test_normalize_examples():
    assert normalize("3\u00a0Essex → Kent") == "3 Essex -> Kent"
    assert normalize("a\u200bb") == "ab"
    assert normalize("x\u2014y") == "x-y"
    assert normalize("“q”") == '"q"'
