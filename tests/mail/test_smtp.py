"""SmtpTransport against a real aiosmtpd server on 127.0.0.1; build_mail / reply threading headers."""

from __future__ import annotations

import email
import socket
from email import policy

import pytest

from pbem.errors import MailError
from pbem.mail.compose import build_mail, reply_subject, thread_references
from pbem.mail.message import read_message
from pbem.mail.smtp import SmtpTransport
from pbem.mail.transport import PermanentMailError, make_transports

from .conftest import SMTP_PASSWORD, SMTP_USER, free_port

pytestmark = pytest.mark.mail

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))


def _parse(raw: bytes):
    return email.message_from_bytes(raw, policy=policy.default)


def test_send_plain_text_first_then_png(smtp, tmp_path):
    out = make_transports(smtp.config(), tmp_path).outgoing
    msg = build_mail(["alice@example.org", "bob@example.net"], "[demo-1] Turn 3 report", "Héllo\nline 2",
                     from_addr="Britannia PBEM <pbem@adjudicator.example>",
                     attachments=[("map.png", PNG, "image/png")], auto_submitted="auto-generated")
    out.send(msg)
    ((mail_from, rcpts, raw),) = smtp.messages
    assert mail_from == "pbem@adjudicator.example"
    assert rcpts == ["alice@example.org", "bob@example.net"]
    got = _parse(raw)
    parts = list(got.iter_parts())
    assert parts[0].get_content_type() == "text/plain" and parts[0].get_content().replace("\r\n", "\n") == "Héllo\nline 2\n"
    assert parts[1].get_content_type() == "image/png" and parts[1].get_filename() == "map.png"
    assert parts[1].get_content() == PNG
    assert got["Auto-Submitted"] == "auto-generated"
    assert got["Message-ID"].endswith("@adjudicator.example>")


def test_threading_headers():
    msg = build_mail("alice@example.org", reply_subject("RE: Fwd: [demo-1] my orders", "demo-1"), "OK",
                     from_addr="pbem@x.example", in_reply_to="<orig@mua>",
                     references=thread_references(["<a@x>", "junk id", "<b@x>"], "<orig@mua>"))
    assert msg["Subject"] == "Re: [demo-1] my orders"
    assert msg["In-Reply-To"] == "<orig@mua>"
    assert msg["References"] == "<a@x> <b@x> <orig@mua>"
    assert reply_subject("", "demo-1") == "Re: [demo-1]"
    assert reply_subject("Re: Re: hi", None) == "Re: hi"
    assert reply_subject("orders [DEMO-1]", "demo-1") == "Re: [demo-1] orders"


def test_no_header_injection():
    msg = build_mail("a@x.example\r\nBcc: victim@x.example", "x\r\nBcc: victim@x.example", "t",
                     from_addr="pbem@x.example", in_reply_to="<a@b>\r\nBcc: v@x")
    raw = bytes(msg)
    assert b"\nBcc:" not in raw and msg["In-Reply-To"] is None
    assert read_message(raw).subject == "x Bcc: victim@x.example"


def test_auth_and_refused_recipients(smtp, tmp_path):
    """Issue 27 item 8: what fails for every recipient (a rejected login, every address refused) is
    the transport's fault and is retried (MailError, not permanent); a refusal of one address among
    others is permanent for that address only (the others got the mail)."""
    out = make_transports(smtp.config(username=SMTP_USER, password=SMTP_PASSWORD), tmp_path).outgoing
    out.send(build_mail("alice@example.org", "s", "t", from_addr="pbem@x.example"))
    assert len(smtp.messages) == 1
    bad = make_transports(smtp.config(username=SMTP_USER, password="nope"), tmp_path).outgoing
    with pytest.raises(MailError) as info:
        bad.send(build_mail("alice@example.org", "s", "t", from_addr="pbem@x.example"))
    assert not isinstance(info.value, PermanentMailError)
    smtp.capture.refuse.add("gone@example.org")
    with pytest.raises(MailError, match="every recipient") as info:
        out.send(build_mail("gone@example.org", "s", "t", from_addr="pbem@x.example"))
    assert not isinstance(info.value, PermanentMailError)
    with pytest.raises(PermanentMailError, match=r"gone@example.org \(550\)"):
        out.send(build_mail(["alice@example.org", "gone@example.org"], "two", "t", from_addr="pbem@x.example"))
    assert [rcpts for _, rcpts, _ in smtp.messages] == [["alice@example.org"], ["alice@example.org"]]


def test_every_recipient_refused_keeps_the_replies_owed(smtp, tmp_path):
    """A relay that refuses every recipient (5xx) for a whole run: the replies stay owed and go out
    on the next run, once the server takes mail again (issue 27 item 8; they were dropped for good)."""
    from pbem.mail.intake import Intake

    from .conftest import ALICE, BOB, PBEM, FakeHandler, directory, make_mail

    inbox = tmp_path / "in"
    inbox.mkdir()
    for i, (who, tok) in enumerate((ALICE, BOB)):
        (inbox / f"{i}.eml").write_bytes(make_mail(who, "[demo-1] orders", f"TOKEN {tok}\nPASS\n", mid=f"<r{i}@mua>"))
    config = [{"type": "folder", "inbox": "in", "outbox": None}, smtp.config()]

    def run():
        tr = make_transports(config, tmp_path)
        try:
            return Intake(tr.incoming, tr.outgoing, directory(), FakeHandler(), archive_dir=tmp_path / "mail",
                          from_addr=PBEM).run_once()
        finally:
            tr.close()

    smtp.capture.refuse.update({ALICE[0], BOB[0]})
    first = run()
    assert first.replies_sent == 0 and smtp.messages == [] and first.errors
    smtp.capture.refuse.clear()
    second = run()
    assert second.replies_sent == 2
    assert sorted(r for _, rcpts, _ in smtp.messages for r in rcpts) == sorted([ALICE[0], BOB[0]])


def test_connection_refused_is_transient(tmp_path):
    out = make_transports({"type": "smtp", "host": "127.0.0.1", "port": free_port(), "security": "none",
                           "timeout": 2}, tmp_path).outgoing
    with pytest.raises(MailError) as info:
        out.send(build_mail("a@x.example", "s", "t", from_addr="pbem@x.example"))
    assert not isinstance(info.value, PermanentMailError)


def test_connection_is_kept_and_replaced_when_stale(smtp, tmp_path):
    out = make_transports(smtp.config(), tmp_path).outgoing
    try:
        out.send(build_mail("a@x.example", "one", "t", from_addr="pbem@x.example"))
        kept = out._server
        out.send(build_mail("a@x.example", "two", "t", from_addr="pbem@x.example"))
        assert out._server is kept
        kept.sock.shutdown(socket.SHUT_RDWR)  # the connection dropped while idle
        out.send(build_mail("a@x.example", "three", "t", from_addr="pbem@x.example"))
        assert out._server is not kept
    finally:
        out.close()
    assert [_parse(raw)["Subject"] for _, _, raw in smtp.messages] == ["one", "two", "three"]


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    import shutil
    import subprocess

    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem"), "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    return d / "cert.pem", d / "key.pem"


@pytest.mark.parametrize("security", ["starttls", "ssl"])
def test_tls(tls_files, security):
    import ssl

    from aiosmtpd.controller import Controller

    from .conftest import _Capture

    cert, key = tls_files
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    capture, port = _Capture(), free_port()
    kw = {"tls_context": server_ctx, "require_starttls": True} if security == "starttls" else {"ssl_context": server_ctx}
    controller = Controller(capture, hostname="127.0.0.1", port=port, **kw)
    controller.start()
    try:
        trusting = ssl.create_default_context(cafile=str(cert))
        out = SmtpTransport("127.0.0.1", port=port, security=security, ssl_context=trusting)
        out.send(build_mail("a@x.example", "over tls", "t", from_addr="pbem@x.example"))
        out.close()
        assert len(capture.messages) == 1
        strict = SmtpTransport("127.0.0.1", port=port, security=security, timeout=5)
        with pytest.raises(MailError):  # certificates are verified by default
            strict.send(build_mail("a@x.example", "s", "t", from_addr="pbem@x.example"))
    finally:
        controller.stop()
