"""End to end over real servers: Dovecot in, intake, aiosmtpd out."""

from __future__ import annotations

import email
from datetime import UTC, datetime, timedelta
from email import policy

import pytest

from pbem.mail.imap import KEYWORD
from pbem.mail.intake import Intake
from pbem.mail.transport import make_transports

from .conftest import ALICE, BOB, CAROL, PBEM, FakeHandler, directory, make_mail

pytestmark = pytest.mark.mail

T0 = datetime(2024, 6, 3, 9, 0, tzinfo=UTC)


def _run(dovecot, smtp, folder, base, handler):
    tr = make_transports([dovecot.config(folder), smtp.config()], base)
    try:
        return Intake(tr.incoming, tr.outgoing, directory(), handler, archive_dir=base / "mail",
                      from_addr=PBEM).run_once()
    finally:
        tr.close()


def test_imap_to_smtp_with_uidvalidity_change(dovecot, smtp, tmp_path):
    folder = dovecot.new_folder()
    mails = [
        (make_mail(BOB[0], "[demo-1] second", f"TOKEN {BOB[1]}\nPASS\n", mid="<b@mua>"), T0 + timedelta(minutes=2)),
        (make_mail(ALICE[0], "[demo-1] first", f"TOKEN {ALICE[1]}\nPASS\n", mid="<a@mua>"), T0),
        (make_mail(CAROL[0], "orders", f"GAME north-2\nTOKEN {CAROL[1]}\n", mid="<c@mua>"), T0 + timedelta(minutes=1)),
    ]
    dovecot.append_many(folder, mails)
    handler = FakeHandler()
    report = _run(dovecot, smtp, folder, tmp_path, handler)
    assert (report.applied, report.replies_sent, report.acked) == (3, 3, 3)
    assert [p for _, p, _ in handler.calls] == ["alice", "carol", "bob"]  # INTERNALDATE order
    replies = [email.message_from_bytes(raw, policy=policy.default) for _, _, raw in smtp.messages]
    assert [(r["To"], r["In-Reply-To"], r["Subject"]) for r in replies] == [
        (ALICE[0], "<a@mua>", "Re: [demo-1] first"),
        (CAROL[0], "<c@mua>", "Re: [north-2] orders"),
        (BOB[0], "<b@mua>", "Re: [demo-1] second"),
    ]
    with dovecot.client() as c:
        c.select_folder(folder)
        assert c.search(["KEYWORD", KEYWORD]) == [1, 2, 3]
    assert _run(dovecot, smtp, folder, tmp_path, handler).fetched == 0

    # the mailbox is rebuilt (new UIDVALIDITY) and holds the old mails again plus a new one
    with dovecot.client() as c:
        c.delete_folder(folder)
        c.create_folder(folder)
    dovecot.append_many(folder, [*mails, (make_mail(ALICE[0], "[demo-1] third", f"TOKEN {ALICE[1]}\n"), T0)])
    report = _run(dovecot, smtp, folder, tmp_path, handler)
    assert (report.fetched, report.new, report.applied, report.acked) == (4, 1, 1, 4)
    assert len(handler.calls) == 4 and len(smtp.messages) == 4
    with dovecot.client() as c:
        c.select_folder(folder)
        assert c.search(["UNKEYWORD", KEYWORD]) == []
