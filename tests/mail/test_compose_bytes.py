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
