"""Issue 33 — a reply's headers are parsed once per distinct value (pbem.mail.compose's policy): the
mails are byte for byte those of email.policy.default, whatever the headers (non-ASCII subjects and
addresses, long subjects, attachments), built once or many times."""
from __future__ import annotations

import email.policy
from datetime import UTC, datetime

import pytest

from pbem.mail import compose

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CASES = [
    dict(to="ann@x.org", subject="Re: [t1] orders", text="read\n"),
    dict(to="jörg@köln.example", subject="Re: [t1] приказы для саксов", text="прочитано\n"),
    dict(to=["a@x.org", "b@x.org"], subject="[t1] round 3 " + "long words " * 12, text="x" * 3000),
    dict(to="ann@x.org", subject="Re: [t1] =?utf-8?b?S2VudA==?= <b>", text="map\n",
         attachments=[("map.png", b"\x89PNG fake", "image/png")]),
]


def _build(case, n):
    return bytes(compose.build_mail(case["to"], case["subject"], case["text"], from_addr="pbem@x.org",
                                    in_reply_to=f"<m{n}@x.org>", references=[f"<m{n}@x.org>"],
                                    message_id=f"<r{n}@pbem.x.org>", date=NOW, auto_submitted="auto-replied",
                                    attachments=case.get("attachments", ())))


@pytest.mark.parametrize("case", CASES)
def test_reused_headers_give_the_default_policys_bytes(case, monkeypatch):
    ours = [_build(case, n) for n in range(3)] + [_build(case, 0)]
    monkeypatch.setattr(compose, "DEFAULT", email.policy.default)
    monkeypatch.setattr(compose, "SMTPUTF8", email.policy.default.clone(utf8=True))
    plain = [_build(case, n) for n in range(3)] + [_build(case, 0)]
    assert ours == plain


@pytest.mark.parametrize("breaks", ["\n", "\r", "\x0b", "\x1c", "\x85", "\u2028"])
def test_a_header_of_two_lines_is_refused_as_by_the_default_policy(breaks):
    """The reused headers take only what email.policy.default would take: a value with any line break
    (str.splitlines's) is refused by the same ValueError."""
    value = f"one{breaks}two"
    with pytest.raises(ValueError):
        email.policy.default.header_store_parse("Subject", value)
    with pytest.raises(ValueError):
        compose.DEFAULT.header_store_parse("Subject", value)


def test_headers_folded_once_give_the_default_policys_bytes_for_any_subject():
    """The folded headers are kept per header, value and line rules (issue 33): whatever the subject
    (any length, any script, encoded-word look-alikes), and built after others, the bytes are the
    default policy's."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    words = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=0, max_size=40)

    @settings(max_examples=150, deadline=None)
    @given(st.lists(words, min_size=1, max_size=12), st.sampled_from(["ann@x.org", "jörg@köln.example"]))
    def check(parts, to):
        case = dict(to=to, subject=" ".join(parts), text="x\n")
        try:
            ours = _build(case, 1)
        except ValueError:
            return
        saved = compose.DEFAULT, compose.SMTPUTF8
        compose.DEFAULT, compose.SMTPUTF8 = email.policy.default, email.policy.default.clone(utf8=True)
        try:
            assert _build(case, 1) == ours
        finally:
            compose.DEFAULT, compose.SMTPUTF8 = saved

    check()
