"""FolderTransport (the embedded default) and make_transports."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from pbem.errors import MailError
from pbem.mail.compose import build_mail
from pbem.mail.folder import FolderTransport
from pbem.mail.imap import ImapTransport
from pbem.mail.message import read_message
from pbem.mail.smtp import SmtpTransport
from pbem.mail.transport import make_transports

from .conftest import make_mail


def _put(path, data: bytes, mtime: float):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))


def test_fetch_eml_and_txt_in_mtime_order(tmp_path):
    inbox = tmp_path / "inbox"
    _put(inbox / "b.eml", make_mail("alice@example.org", "[demo-1] x", "TOKEN 1\n"), 2000)
    _put(inbox / "a.txt", b"From: Bob@Example.net\nGAME demo-1\nTOKEN b0b0b0\nPASS\n", 1000)
    _put(inbox / "c.txt", "NATION Saxons\nCafé\n".encode("latin-1"), 3000)
    _put(inbox / "d.txt", "\ufeffFrom: carol@example.org\r\nGAME x\r\n".encode(), 4000)
    _put(inbox / "ignored.dat", b"x", 10)
    _put(inbox / ".hidden.eml", b"x", 10)
    t = FolderTransport(inbox, tmp_path / "outbox")
    got = t.fetch()
    assert [m.key for m in got] == ["a.txt", "b.eml", "c.txt", "d.txt"]
    assert got[0].received == datetime.fromtimestamp(1000, UTC) and got[0].transport == t.name
    first = read_message(got[0].raw)
    assert first.from_addr == "bob@example.net" and first.subject == ""
    assert first.text == "GAME demo-1\nTOKEN b0b0b0\nPASS\n"
    third = read_message(got[2].raw)
    assert third.from_addr == "" and third.text == "NATION Saxons\nCafé\n"
    fourth = read_message(got[3].raw)  # a byte-order mark does not hide the From line
    assert fourth.from_addr == "carol@example.org" and fourth.text == "GAME x\n"
    # the same file gives the same bytes (same sha256) on every fetch
    assert [m.raw for m in t.fetch()] == [m.raw for m in got]


def test_same_orders_in_two_files_are_two_messages(tmp_path):
    inbox = tmp_path / "inbox"
    _put(inbox / "turn1.txt", b"PASS\n", 1000)
    _put(inbox / "turn2.txt", b"PASS\n", 2000)
    a, b = FolderTransport(inbox).fetch()
    assert read_message(a.raw).sha256 != read_message(b.raw).sha256


def test_ack_moves_to_processed_and_is_idempotent(tmp_path):
    inbox = tmp_path / "inbox"
    _put(inbox / "m.eml", b"From: a@b.c\r\n\r\nx", 1000)
    t = FolderTransport(inbox)
    (m,) = t.fetch()
    t.ack(m)
    t.ack(m)
    assert t.fetch() == [] and (inbox / "processed" / "m.eml").exists()
    _put(inbox / "m.eml", b"From: a@b.c\r\n\r\ny", 1000)  # same name again
    (m2,) = t.fetch()
    t.ack(m2)
    assert sorted(p.name for p in (inbox / "processed").iterdir()) == ["m.eml", "m.eml.1"]


def test_maildir(tmp_path):
    md = tmp_path / "Maildir"
    for d in ("cur", "new", "tmp"):
        (md / d).mkdir(parents=True)
    _put(md / "new" / "1717.M1.host", b"From: a@b.c\r\nSubject: [demo-1]\r\n\r\nnew", 2000)
    _put(md / "cur" / "1716.M2.host:2,S", b"From: a@b.c\r\n\r\nold", 1000)
    _put(md / "tmp" / "1718.M3.host", b"partial", 3000)
    t = FolderTransport(md)
    got = t.fetch()
    assert [m.key for m in got] == ["cur/1716.M2.host:2,S", "new/1717.M1.host"]
    for m in got:
        t.ack(m)
    assert t.fetch() == []
    assert sorted(p.name for p in (md / "processed").iterdir()) == ["cur_1716.M2.host", "new_1717.M1.host"]


def test_outbox_names_are_unique_and_atomic(tmp_path):
    t = FolderTransport(None, tmp_path / "outbox")
    for _ in range(5):
        t.send(build_mail("alice@example.org", "Re: [demo-1] Orders, turn 3!", "OK",
                          from_addr="pbem@x.example"))
    names = sorted(p.name for p in (tmp_path / "outbox").iterdir())
    assert len(names) == 5 and all(n.endswith("-re-demo-1-orders-turn-3.eml") for n in names)
    assert not [n for n in names if n.startswith(".")]  # no temp files left
    msg = read_message((tmp_path / "outbox" / names[0]).read_bytes())
    assert msg.subject == "Re: [demo-1] Orders, turn 3!" and msg.text == "OK\n"


def test_send_without_outbox_fails(tmp_path):
    with pytest.raises(MailError):
        FolderTransport(tmp_path / "in").send(EmailMessage())


def test_make_transports(tmp_path):
    t = make_transports({"type": "folder"}, tmp_path)
    assert len(t.incoming) == 1 and t.outgoing is t.incoming[0]
    assert t.incoming[0].inbox == tmp_path / "inbox" and t.outgoing.outbox == tmp_path / "outbox"
    t = make_transports([
        {"type": "folder", "inbox": "/abs/in", "outbox": None},
        {"type": "imap", "host": "imap.example", "username": "u", "password": "p", "processed_folder": "Done"},
        {"type": "smtp", "host": "smtp.example", "ssl": True},
    ], tmp_path)
    folder, imap = t.incoming
    assert str(folder.inbox) == "/abs/in" and folder.outbox is None
    assert isinstance(imap, ImapTransport) and imap.port == 993 and imap.processed_folder == "Done"
    assert imap.checkpoint.parent == tmp_path
    assert isinstance(t.outgoing, SmtpTransport) and t.outgoing.port == 465 and t.outgoing.security == "ssl"


def test_make_transports_errors(tmp_path, monkeypatch):
    with pytest.raises(MailError, match="unknown type"):
        make_transports({"type": "pigeon"}, tmp_path)
    with pytest.raises(MailError, match="more than one outgoing"):
        make_transports([{"type": "folder"}, {"type": "smtp", "host": "h"}], tmp_path)
    with pytest.raises(MailError, match="host"):
        make_transports({"type": "imap"}, tmp_path)
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "from-env")
    t = make_transports({"type": "imap", "host": "h", "security": "starttls"}, tmp_path)
    assert t.incoming[0].password == "from-env" and t.incoming[0].port == 143


def test_an_order_file_may_name_its_sender_as_a_mail_does(tmp_path):
    """Found in the new-user run (docs/NEW-USER-RUN.md): a `.txt` order file starting
    `From: Bob <bob@x.org>` (as a mail's From header is written) was read as having no sender, set
    aside and never answered. The display name is dropped, the address kept; the old forms read as
    before (the same bytes)."""
    from pbem.mail.folder import order_file_to_mail

    when = datetime(2026, 12, 1, tzinfo=UTC)
    plain = order_file_to_mail(b"From: bob@x.org\nPASS\n", "a.txt", when)
    for first in (b"From: Bob <bob@x.org>", b'from: "Bob B." <bob@x.org>', b"From: <bob@x.org>",
                  b"From:bob@x.org  "):
        assert order_file_to_mail(first + b"\nPASS\n", "a.txt", when) == plain, first
    assert read_message(plain).from_addr == "bob@x.org"
    none = order_file_to_mail(b"From: Bob\nPASS\n", "a.txt", when)   # no address: no sender
    assert b"From: \r\n" in none and b"From: Bob" in none.split(b"\r\n\r\n", 1)[1]
