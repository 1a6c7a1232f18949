"""Issue 27 item 11: the same mail gets the same bytes (no random MIME boundary), so two identical
runs with the same --now write identical mails."""

import re
from datetime import UTC, datetime

from pbem.mail.compose import build_mail

WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _mail(text="the orders read back", data=b"\x89PNG map"):
    return build_mail("ann@example.org", "[g1] your orders", text, from_addr="pbem@example.org", date=WHEN,
                      message_id="<fixed.1@example.org>", attachments=[("map.png", data, "image/png"),
                                                                     ("guide.md", b"# guide", "text/markdown")])


def test_the_same_mail_gets_the_same_bytes():
    assert _mail().as_bytes() == _mail().as_bytes()


def test_another_content_gets_another_boundary():
    assert _mail().get_boundary() != _mail(data=b"\x89PNG other map").get_boundary()
    assert _mail().get_boundary() != _mail(text="other text").get_boundary()
    assert _mail().get_boundary() not in _mail().get_body(("plain",)).get_content()


def test_a_subject_of_70_to_77_characters_is_not_read_back_with_a_leading_space():
    """Issue 30 item 7, found again in the new-user run (docs/NEW-USER-RUN.md): "[cl] the position
    changed: please correct your orders for the Caledonians" (76 characters) was written
    "Subject:\\n [cl] ..." and read back " [cl] ..." in the players' mail programs. Every length of
    subject reads back as it was given."""
    import email
    from email import policy

    for n in range(60, 120):
        subject = ("[cl] the position changed: please correct your orders for the Caledonians " * 2)[:n].strip()
        for attachments in ((), [("guide.md", b"# guide", "text/markdown")]):
            raw = build_mail("bob@example.org", subject, "body line\n" + "x" * 90 + "\n", from_addr="pbem@example.org",
                             date=WHEN, message_id="<fixed.2@example.org>", attachments=attachments).as_bytes()
            back = email.message_from_bytes(raw, policy=policy.default)
            assert back["Subject"] == subject, (n, raw[:300])
            assert back.get_body(("plain",)).get_content() == "body line\n" + "x" * 90 + "\n"


def test_a_plain_reply_written_directly_is_the_mail_build_mail_writes():
    """Issue 33: mail_bytes writes a plain reply (one address, ASCII header lines that need no folding,
    no attachment) without the email package's message objects; byte for byte what build_mail's
    message writes, for any input (the others go to build_mail itself)."""
    from datetime import timedelta, timezone

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pbem.mail.compose import _plain_mail_bytes, mail_bytes

    atom = st.text("abcxyzABC019.-_+=!#'", min_size=1, max_size=12)
    address = st.one_of(st.sampled_from(["ann@example.org", "di@x.org", "pbem-t1@localhost", "a.b@c.d.e",
                                         "Ann Smith <ann@example.org>", "a..b@x.org", ".a@x.org", "jörg@köln.example",
                                         "Jörg <j@x.org>", '"A B" <a@b.c>', "a@b@c", "<a@b.c>", "ann@-x.org"]),
                        st.builds(lambda a, b: f"{a}@{b}.org", atom, atom),
                        st.builds(lambda n, a: f"{n} <{a}@x.org>", atom, atom))
    msg_id = st.one_of(st.none(), st.sampled_from(["<m1@x.org>", "<a.b.c@d.e>", "<x@y>", "<=?q?@x>", "<a b@c>",
                                                   "<ü@x.org>", "no-brackets@x"]),
                       st.builds(lambda a, b: f"<{a}@{b}>", atom, atom))
    text = st.one_of(st.text(max_size=300), st.text("ab Пр\n\t=.", max_size=400),
                     st.builds(lambda n, w: (w * n)[:2000], st.integers(1, 200), st.sampled_from(["x", "Привет ", "a=b ", "line\n"])))
    zone = st.sampled_from([UTC, timezone(timedelta(hours=3)), timezone(timedelta(hours=-5, minutes=-30))])
    when = st.builds(lambda s, z: (WHEN + timedelta(seconds=s)).astimezone(z), st.integers(0, 10 ** 8), zone)

    @settings(max_examples=400, deadline=None)
    @given(address, st.text(max_size=90) | st.sampled_from(["Re: [t1] orders", "[t1] =?utf-8?q?x?=", "x" * 70]),
           text, address, msg_id, st.lists(msg_id.filter(bool), max_size=4),
           msg_id.filter(lambda m: bool(m and re.match(r"^<[^<>\s]{1,500}>$", m))), when,   # else a random one
           st.sampled_from([None, "auto-replied", "auto-generated"]))
    def check(to, subject, body, frm, irt, refs, mid, date, auto):
        kw = dict(from_addr=frm, in_reply_to=irt, references=refs, message_id=mid, date=date, auto_submitted=auto)
        assert _outcome(lambda: mail_bytes(to, subject, body, **kw)) == _outcome(lambda: bytes(build_mail(to, subject, body, **kw)))

    check()

    word = st.text("abcxyzABC019_+=!#'", min_size=1, max_size=10)
    plain_addr = st.one_of(st.builds(lambda a, b: f"{a}@{b}.org", word, word),
                           st.builds(lambda n, a: f"{n} <{a}@x.org>", word, word))
    plain_id = st.builds(lambda a, b: f"<{a}@{b}>", word, word)
    taken = []

    @settings(max_examples=300, deadline=None)
    @given(plain_addr, st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=60), text, plain_addr,
           st.none() | plain_id, st.lists(plain_id, max_size=3), plain_id, when,
           st.sampled_from([None, "auto-replied"]))
    def check_plain(to, subject, body, frm, irt, refs, mid, date, auto):
        kw = dict(from_addr=frm, in_reply_to=irt, references=refs, message_id=mid, date=date, auto_submitted=auto)
        taken.append(_plain_mail_bytes(to, subject, body, frm, irt, refs, mid, date, auto) is not None)
        assert _outcome(lambda: mail_bytes(to, subject, body, **kw)) == _outcome(lambda: bytes(build_mail(to, subject, body, **kw)))

    check_plain()
    assert sum(taken) > len(taken) // 4       # many of these take the plain path
    # the plain path is the one a burst's replies take
    assert _plain_mail_bytes("ann@example.org", "Re: [t1] orders", "OK\n" + "x" * 100, "pbem-t1@localhost",
                             "<m1@x.org>", ["<m1@x.org>"], "<abc.0@localhost>", WHEN, "auto-replied") is not None


def _outcome(make):
    """The bytes made, or the kind of error (build_mail refuses some ids: mail_bytes must refuse them too)."""
    try:
        return make()
    except Exception as e:  # noqa: BLE001 - compared, not hidden
        return type(e)


def test_the_headers_of_a_written_mail_are_read_as_the_parser_reads_them():
    """written_headers (the outbox's look at a reply) against compat32's own parse, for any header block."""
    from email import policy
    from email.parser import BytesParser

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pbem.mail.compose import written_headers

    name = st.sampled_from([b"From", b"To", b"Subject", b"Message-ID", b"X a", b"", b"Re:x", b"\xc3\xa9"])
    value = st.binary(max_size=30) | st.sampled_from([b" Re: [t1] orders", b"  <a@b>", b"\tx", b" =?utf-8?q?x?="])
    line = st.one_of(st.builds(lambda n, v: n + b":" + v, name, value), st.sampled_from([b" folded", b"\tmore", b"From x"]))

    @settings(max_examples=400, deadline=None)
    @given(st.lists(line, min_size=1, max_size=6), st.binary(max_size=20))
    def check(lines, body):
        data = b"\n".join(lines) + b"\n\n" + body
        ours, theirs = written_headers(data), BytesParser(policy=policy.compat32).parsebytes(data, headersonly=True)
        assert ours.items() == theirs.items()
        for key in ("Message-ID", "Subject", "To"):
            assert ours.get(key) == theirs.get(key)

    check()
    reply = mail_bytes_sample()
    assert written_headers(reply).items() == BytesParser(policy=policy.compat32).parsebytes(reply, headersonly=True).items()


def mail_bytes_sample() -> bytes:
    from pbem.mail.compose import mail_bytes

    return mail_bytes("ann@example.org", "Re: [t1] orders", "OK\n", from_addr="pbem@example.org", date=WHEN,
                      message_id="<fixed.3@example.org>", in_reply_to="<m1@x.org>", references=["<m1@x.org>"],
                      auto_submitted="auto-replied")
