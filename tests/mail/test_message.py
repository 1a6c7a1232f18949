"""read_message / game_tag / html_to_text: hostile input never raises (issue 9)."""

from __future__ import annotations

import base64
import hashlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.htmltext import html_to_text
from pbem.mail.message import MAX_BODY, game_tag, game_tags, read_message


def test_plain_message_fields():
    raw = (b"From: Alice Smith <ALICE@Example.ORG>\r\nSubject: =?utf-8?q?Re:_[demo-1]_Caf=C3=A9?=\r\n"
           b"Date: Mon, 3 Jun 2024 10:00:00 +0000\r\nMessage-ID: <abc@mua>\r\nIn-Reply-To: <r1@x>\r\n"
           b"References: <r0@x>\r\n  <r1@x>\r\nAuthentication-Results: mx; dkim=pass\r\n"
           b"DKIM-Signature: v=1; d=example.org\r\n\r\nGAME demo-1\r\nTOKEN 8f2c41\r\n")
    m = read_message(raw)
    assert m.from_addr == "alice@example.org" and m.from_name == "Alice Smith"
    assert m.subject == "Re: [demo-1] Café"
    assert m.message_id == "<abc@mua>" and not m.message_id_synthesized
    assert m.in_reply_to == "<r1@x>" and m.references == ("<r0@x>", "<r1@x>")
    assert m.date.startswith("Mon, 3 Jun 2024")
    assert "dkim=pass" in m.authentication_results and "d=example.org" in m.dkim_signature
    assert m.text == "GAME demo-1\nTOKEN 8f2c41\n"
    assert m.sha256 == hashlib.sha256(raw).hexdigest() and m.size == len(raw)
    assert not m.truncated and not m.html_converted and m.attachments == ()


def test_missing_headers_synthesize_message_id():
    m = read_message(b"just a body")
    assert m.from_addr == "" and m.subject == "" and m.message_id_synthesized
    assert m.message_id == f"<{m.sha256}@pbem.invalid>"
    assert "missing Message-ID" in m.problems


def test_garbage_message_id_is_replaced():
    m = read_message(b"Message-ID: a b\r\n c\r\nFrom: x@y.z\r\n\r\nhi")
    assert m.message_id_synthesized and m.message_id.endswith("@pbem.invalid>")
    assert read_message(b"Message-ID: bare@id.example\r\n\r\n").message_id == "<bare@id.example>"


def test_html_only_is_converted():
    raw = (b"From: a@b.c\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
           b"<html><head><style>p {}</style></head><body><p>NATION Saxons<br>TOKEN 8f2c41</p>"
           b"<div>3 Essex -&gt; Kent &amp; x</div><script>TOKEN evil</script></body></html>")
    m = read_message(raw)
    assert m.html_converted
    assert m.text.splitlines() == ["NATION Saxons", "TOKEN 8f2c41", "", "3 Essex -> Kent & x"]


def test_plain_preferred_over_html_and_attachments_listed():
    png = base64.encodebytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50).decode()
    raw = ("From: a@b.c\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n"
           "--B\r\nContent-Type: multipart/alternative; boundary=A\r\n\r\n"
           "--A\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n"
           "--A\r\nContent-Type: text/plain\r\n\r\nplain text\r\n--A--\r\n"
           "--B\r\nContent-Type: image/png\r\nContent-Disposition: attachment; filename=map.png\r\n"
           f"Content-Transfer-Encoding: base64\r\n\r\n{png}\r\n--B--\r\n").encode()
    m = read_message(raw)
    assert m.text.strip() == "plain text" and not m.html_converted
    assert m.attachments == ("map.png",)


def test_charsets():
    def body(data: bytes, charset: str | None) -> str:
        ct = f"Content-Type: text/plain; charset={charset}\r\n" if charset else ""
        return read_message(b"From: a@b.c\r\n" + ct.encode() + b"\r\n" + data).text

    assert body("Æthelred".encode("iso-8859-1"), "iso-8859-1") == "Æthelred"
    assert body("Привет".encode("koi8-r"), "koi8-r") == "Привет"
    assert body("Æthelred".encode(), "x-unknown") == "Æthelred"          # unknown -> utf-8
    assert body("Æthelred".encode("latin-1"), "x-unknown") == "Æthelred"  # ... -> latin-1
    assert body("Æthelred".encode("latin-1"), "utf-8") == "Æthelred"      # mislabelled
    assert body("Æthelred".encode("latin-1"), None) == "Æthelred"         # 8-bit, no charset
    m = read_message(b"Content-Type: text/plain; charset=x-unknown\r\n\r\nx")
    assert any("unknown charset" in p for p in m.problems)


def test_8bit_headers_and_encoded_words():
    m = read_message("From: Jörg <J@X.de>\r\nSubject: [demo-1] é\r\n\r\nx".encode("latin-1"))
    assert m.from_addr == "j@x.de" and m.subject == "[demo-1] é"
    m = read_message(b"Subject: =?x-bogus?q?caf=E9?= =?utf-8?q?a=0D=0ABcc:_x?=\r\n\r\n")
    assert "\n" not in m.subject and "\r" not in m.subject


def test_huge_body_is_truncated():
    m = read_message(b"From: a@b.c\r\n\r\n" + b"x" * (MAX_BODY + 10))
    assert m.truncated and len(m.text) == MAX_BODY


def test_control_characters_removed_and_newlines_normalised():
    m = read_message(b"From: a@b.c\r\n\r\nPA\x00SS\r\nline\rthree\x07\n")
    assert m.text == "PASS\nline\nthree\n"


def test_auto_submitted_detection():
    assert read_message(b"From: a@b.c\r\nAuto-Submitted: auto-replied\r\n\r\n").auto_submitted
    assert read_message(b"From: a@b.c\r\nAuto-Submitted: no\r\n\r\n").auto_submitted == ""
    assert read_message(b"From: MAILER-DAEMON@mx.example\r\n\r\n").auto_submitted
    assert read_message(b"From: a@b.c\r\nPrecedence: bulk\r\n\r\n").auto_submitted


def test_game_tag():
    assert game_tag("Re: [demo-1] orders") == "demo-1"
    assert game_tag("[ demo-1 ]") == "demo-1"
    assert game_tags("[SPAM] [demo-1] x") == ["SPAM", "demo-1"]
    assert game_tag("no tag") is None and game_tag("") is None and game_tag("[../x]") is None


def test_html_to_text_quotes_and_pre():
    assert html_to_text("<blockquote>TOKEN x<br>y</blockquote>after") == "> TOKEN x\n> y\nafter"
    assert html_to_text("<pre>A\n  B</pre>") == "A\nB"
    assert html_to_text("&#99999999; &bogus; <") is not None


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=3000))
def test_never_raises_on_random_bytes(raw):
    m = read_message(raw)
    assert m.sha256 == hashlib.sha256(raw).hexdigest()
    assert isinstance(m.text, str)


_header = st.sampled_from([
    b"From: ", b"Subject: ", b"Content-Type: ", b"Content-Transfer-Encoding: ", b"Message-ID: ",
    b"Content-Disposition: ", b"MIME-Version: ", b"--B", b"--B--", b"\r\n", b"\n", b"\r",
    b"multipart/mixed; boundary=B", b"text/html", b"text/plain; charset=", b"base64", b"quoted-printable",
    b"=?utf-8?q?x=0A?=", b"=?bogus?b?!!?=", b"<p>", b"&amp;", b"\xff\xfe", b"\x00", b"a@b.c", b"<x@y>",
    b"attachment; filename*=utf-8''%E2%98", b"x-uuencode", b"message/rfc822",
])


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_header, max_size=60))
def test_never_raises_on_mime_shaped_junk(parts):
    m = read_message(b"".join(parts))
    assert isinstance(m.text, str) and isinstance(m.subject, str)


def test_headers_only_and_utf7_surrogates():
    raw = b"From: A@B.c\r\nSubject: [demo-1]\r\nContent-Type: text/plain; charset=utf-7\r\n\r\n+2D3- TOKEN x\r\n"
    head = read_message(raw, body=False)
    assert (head.from_addr, head.subject, head.text) == ("a@b.c", "[demo-1]", "")
    full = read_message(raw)
    full.text.encode("utf-8")  # a lone surrogate from UTF-7 must not survive
    assert "TOKEN x" in full.text
