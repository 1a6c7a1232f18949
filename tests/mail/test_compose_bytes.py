"""Issue 27 item 11: the same mail gets the same bytes (no random MIME boundary), so two identical
runs with the same --now write identical mails."""

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
