"""Issue 27 item 12: headers sent 8-bit (raw UTF-8, no encoded words), a mail past the parse limit,
and moderator replies in plain sentences."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from pbem.mail.message import MAX_PARSE, read_message
from pbem.service import moderator
from pbem.store.game import create_game

from .conftest import ALICE, make_mail
from .helpers import Setup


def orders(token: str) -> str:
    return f"NATION Saxons\nTOKEN {token}\nPASS\n"


def test_a_raw_utf8_from_is_read_and_answered_at_the_right_address(tmp_path):
    mail = read_message(make_mail("Jörg Müller <jörg@example.org>", "[demo-1] x", "hi"))
    assert (mail.from_addr, mail.from_name) == ("jörg@example.org", "Jörg Müller")
    mail = read_message(make_mail("Jörg Müller <alice@example.org>", "[demo-1] x", "hi"))
    assert (mail.from_addr, mail.from_name) == ("alice@example.org", "Jörg Müller")
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail("Jörg <jörg@example.org>", "[demo-1] orders", orders("nope")), 1000)
    s.drop("2.eml", make_mail("Ann <ann@köln.example>", "[demo-1] orders", orders("nope")), 1001)
    s.drop("3.eml", make_mail("Jörg Müller <alice@example.org>", "[demo-1] orders", orders(ALICE[1])), 1002)
    s.run()
    to = {str(m["To"]) for m in s.sent()}     # alice is also told of the two mails naming her Saxons
    assert to == {"jörg@example.org", "ann@xn--kln-sna.example", ALICE[0]}
    assert len(s.handler.calls) == 1, "the 8-bit display name does not stop the sender"
    raw = sorted((s.outbox).glob("*.eml"))
    assert any(b"To: j\xc3\xb6rg@example.org" in p.read_bytes() for p in raw), "written as it is (SMTPUTF8)"


def test_an_encoded_display_name_still_cannot_become_the_address():
    mail = read_message(make_mail("=?utf-8?q?alice=40example.org?= Jörg <eve@evil.example>", "x", "hi"))
    assert mail.from_addr == "eve@evil.example"


def test_an_8bit_subject_with_encoded_words_is_decoded(tmp_path):
    mail = read_message(make_mail(ALICE[0], "[demo-1] Grüße =?utf-8?q?aus_K=C3=B6ln?= =?utf-8?q?!?=", "hi"))
    assert mail.subject == "[demo-1] Grüße aus Köln!"
    s = Setup(tmp_path)
    s.drop("1.eml", make_mail(ALICE[0], "Grüße =?utf-8?q?K=C3=B6ln?= [demo-1]", orders(ALICE[1])), 1000)
    s.run()
    (reply,) = s.sent()
    assert str(reply["Subject"]) == "Re: [demo-1] Grüße Köln"


def test_a_mail_past_the_parse_limit_is_answered_too_large(tmp_path):
    data = base64.encodebytes(b"\x00" * (MAX_PARSE // 4 * 3 + 1024 * 1024)).decode()
    body = (f"--b\r\nContent-Type: text/plain\r\n\r\n{orders(ALICE[1])}\r\n--b\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n{data}\r\n--b--\r\n")
    raw = make_mail(ALICE[0], "[demo-1] big", body, extra="MIME-Version: 1.0\r\n").replace(
        b"Content-Type: text/plain; charset=utf-8", b'Content-Type: multipart/mixed; boundary="b"', 1)
    raw = raw.replace(b"--b\r\nContent-Type: text/plain\r\n\r\nNATION Saxons\nTOKEN", b"--b\r\nContent-Type: text/plain"
                      b"\r\n\r\nNATION Saxons\n", 1) + b""   # the token is not in the part that is read
    assert len(raw) > MAX_PARSE
    s = Setup(tmp_path)
    s.drop("1.eml", raw, 1000)
    s.run()
    (reply,) = s.sent()
    text = reply.get_content()
    assert "too large" in text and f"{MAX_PARSE // 2**20} MiB" in text and "TOKEN" not in text
    assert s.handler.calls == [] and (s.archive / "quarantine").exists()


def test_moderator_replies_to_unreadable_commands_are_plain_sentences(tmp_path):
    g = create_game(tmp_path, "t1", players=4, secret=b"plain moderator sentences", time="2026-12-01T12:00:00+00:00")
    text = "\n".join(["EXTEND", "EXTEND soon", "ROLLBACK", "ROLLBACK ²", "ROLLBACK " + "9" * 5000, "REPLACE",
                      "DEADLINE", "OBSERVER", "EXTEND 1e999"])
    out = moderator.from_mail(g, text, who="mod", mail_id="m1", now=datetime(2026, 12, 1, 13, tzinfo=UTC))
    for python in ("index out of range", "could not convert", "invalid literal", "Exceeds the limit", "base 10"):
        assert python not in out, out
    assert "ROLLBACK: not understood; write it as ROLLBACK <entry number>" in out
    assert len(out.splitlines()) == 9
