"""Nothing a mail can contain makes the parser raise; every problem names a line of the text."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.data.loader import load
from pbem.errors import ORDER_ERROR_KINDS
from pbem.orders.check import check_orders
from pbem.orders.hygiene import split_lines
from pbem.orders.parser import parse_message
from pbem.orders.reply import render_reply

from .test_forms import EXTRA_FORMS, SPEC_FORMS

RS = load("classic")
FORMS = [t for t, _ in SPEC_FORMS + EXTRA_FORMS]
VOCAB = sorted({w for t in FORMS for w in t.split()} | {"->", ":", ",", "#", ">", "--", "", "0", "-1", "999999",
                                                        "\u00a0", "→", "<b>", "&gt;", "\u200b", "Mercia", "ALL"})


def _check(text) -> None:
    pm = parse_message(text, RS, default_nation="saxons")
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    n = len(split_lines(text))
    for p in pm.problems:
        assert p.kind in ORDER_ERROR_KINDS
        assert 1 <= p.line <= n, (p, n)
        assert p.message
    for s in pm.sections:
        for o in s.orders:
            assert 1 <= o.line <= n
    # the whole reply path does not raise either
    result = check_orders(text, RS, nation="saxons")
    assert isinstance(render_reply(result, RS, missing=["x"], deadline="soon"), str)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes(data):
    _check(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_random_unicode(text):
    _check(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(VOCAB), max_size=12).map(" ".join))
def test_random_order_words(text):
    _check(text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FORMS), st.text(max_size=30)), max_size=15),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_random_messages(lines, eol):
    _check(eol.join(lines))


def _mutations(form: str):
    toks = form.split()
    rnd = random.Random(form)
    subs = ["", "Esex", "Mercia", "->", "0", "99999", "#", ">", "ALL", ":", "PASS", "x" * 80, "\u200b", "NATION"]
    for i in range(len(toks)):
        for sub in subs:
            yield " ".join(toks[:i] + [sub] + toks[i + 1:])
        yield " ".join(toks[:i] + toks[i + 1:] + [toks[i]])            # moved to the end
        yield " ".join(toks[:i] + [toks[i][::-1]] + toks[i + 1:])      # reversed
        yield " ".join(toks[:i] + [toks[i] + rnd.choice("aez,:-")] + toks[i + 1:])


def test_every_form_with_one_token_mutated():
    seen = 0
    for form in FORMS:
        for text in _mutations(form):
            pm = parse_message(text, RS, default_nation="saxons")
            for p in pm.problems:
                assert p.line == 1 and p.kind in ORDER_ERROR_KINDS and p.message, (text, p)
            seen += 1
    assert seen > 1000


def test_one_megabyte_body():
    rnd = random.Random(7)
    lines = FORMS + ["> quoted " * 5, "3 Esex -> Knt", "hello, this is my turn", "", "# comment",
                     "PLAEC Kent", "2 Mercia -> Essex"]
    parts, size = [], 0
    while size < 1_000_000:
        line = rnd.choice(lines)
        parts.append(line)
        size += len(line) + 2
    text = "\r\n".join(parts)
    assert len(text) >= 1_000_000
    _check(text)


def test_one_megabyte_line():
    _check("3 Essex -> " * 100_000)
    _check("x" * 1_000_000)


# --- issue 27: every order keyword's line, with nasty numbers, junk and huge input ---------------------
from fuzzkit import JUNK, NAMES, NASTY_DIGITS, fuzz, line, lines, words  # noqa: E402

from pbem.errors import PbemError  # noqa: E402
from pbem.orders import names  # noqa: E402
from pbem.orders.hygiene import clean_lines  # noqa: E402
from pbem.orders.parser import KEYWORDS  # noqa: E402
from pbem.service.inbox import split_confirm  # noqa: E402

# every keyword of the parser (GAME, NATION, TOKEN, PLACE ... LOSSES), aliases and CONFIRM; moves start
# with a count, a leader or `cavalry`. ODDS lines are fuzzed with the odds module (tests/rules).
HEADS = sorted(set(KEYWORDS) | {"BATTLE", "CONFIRM", "CLEAR DEFEND", "SECOND MOVEMENT", "STAY 2", "DEFEND ALL:",
                               "LOSSES ALL:", "ATTACK Kent:", "DEFEND Kent: RETREAT TO", "SUBMIT TO",
                               "LEADER Arthur IN", "GAME:", "NATION:", "TOKEN:"})
MOVE_HEADS = ["3", "1", "2 cavalry", "cavalry", "Arthur", "LEADER Arthur", "3x", "2 armies", *NASTY_DIGITS]
NATIONS = ["romans", "saxons", "belgae", "welsh"]


def _check_any(text, nation: str = "romans") -> None:
    """Parsed, checked against the start position and answered: a result or a PbemError."""
    try:
        text, _ = split_confirm(text)
        _check_for(text, nation)
    except PbemError:
        pass


def _check_for(text, nation: str) -> None:
    pm = parse_message(text, RS, default_nation=nation)
    for p in pm.problems:
        assert p.kind in ORDER_ERROR_KINDS and p.message
    result = check_orders(text, RS, nation=nation)
    assert isinstance(render_reply(result, RS, missing=["x"], deadline="soon"), str)


@fuzz(3000)
@given(line(st.sampled_from(HEADS + [h.lower() for h in HEADS])), st.sampled_from(NATIONS))
def test_every_keyword_line_with_hostile_arguments(text, nation):
    _check_any(text, nation)


@fuzz(700)
@given(line(st.sampled_from(MOVE_HEADS)), st.sampled_from(NATIONS))
def test_move_lines_with_hostile_counts_and_names(text, nation):
    _check_any(text, nation)


@fuzz(700)
@given(st.lists(st.one_of(line(st.sampled_from(HEADS)), line(st.sampled_from(MOVE_HEADS)),
                          st.sampled_from(FORMS), st.sampled_from(JUNK)), max_size=10),
       st.sampled_from(["\n", "\r\n", "\r", "\x00\n", "\u2028"]))
def test_hostile_messages_of_many_keyword_lines(parts, eol):
    _check_any(eol.join(parts), "saxons")


@fuzz(1200)
@given(st.one_of(line(), st.text(max_size=60), st.sampled_from(NAMES + JUNK + NASTY_DIGITS)),
       st.sampled_from([names.PLACE, ("nation",), ("leader",), names.KINDS]))
def test_name_resolution_of_any_text(text, kinds):
    try:
        names.resolve(RS, text, kinds)
    except PbemError:
        pass


@fuzz(500)
@given(st.one_of(lines(max_size=8), st.binary(max_size=300), st.lists(words(), max_size=30).map("".join)))
def test_mail_clean_up_of_any_text(text):
    for ln in clean_lines(text):
        assert isinstance(ln.text, str)


def test_the_nasty_inputs_of_issue_27_one_by_one():
    """The named cases: unicode digits, a 4301+ digit number, deep nesting, NULs, surrogates, long lines."""
    big = "9" * 5000
    for head in HEADS + MOVE_HEADS:
        for arg in [*NASTY_DIGITS, big, "(" * 5000, "\x00", "\ud800", "x" * 100_000, f"{big} Kent -> Essex"]:
            _check_any(f"{head} {arg}")
