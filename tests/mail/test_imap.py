"""ImapTransport against a real Dovecot on 127.0.0.1 (fixture in conftest.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from pbem.errors import MailError
from pbem.mail.imap import KEYWORD, ImapTransport
from pbem.mail.transport import make_transports

from .conftest import make_mail

pytestmark = pytest.mark.mail

T0 = datetime(2024, 6, 3, 10, 0, tzinfo=UTC)


def _transport(dovecot, folder, tmp_path, **extra) -> ImapTransport:
    t = make_transports(dovecot.config(folder, **extra), tmp_path).incoming[0]
    assert isinstance(t, ImapTransport)
    return t


def test_fetch_orders_by_internaldate_not_uid(dovecot, tmp_path):
    folder = dovecot.new_folder()
    # appended (UID order) 1, 2, 3 -- but received (INTERNALDATE) 3, 1, 2
    dovecot.append(folder, make_mail("a@x.example", "one", "1"), T0 + timedelta(minutes=5))
    dovecot.append(folder, make_mail("a@x.example", "two", "2"), T0 + timedelta(minutes=9))
    dovecot.append(folder, make_mail("a@x.example", "three", "3"), T0)
    t = _transport(dovecot, folder, tmp_path)
    try:
        got = t.fetch()
        assert [m.raw.rsplit(b"\n", 1)[-1] for m in got] == [b"3", b"1", b"2"]
        assert got[0].received == T0 and got[0].transport == t.name
        assert all(m.key.endswith((":1", ":2", ":3")) for m in got)
        # fetching does not mark anything read and returns the same again
        assert [m.key for m in t.fetch()] == [m.key for m in got]
        with dovecot.client() as c:
            c.select_folder(folder)
            assert c.search(["SEEN"]) == []
    finally:
        t.close()


def test_ack_with_flags_and_checkpoint(dovecot, tmp_path):
    folder = dovecot.new_folder()
    for i in range(3):
        dovecot.append(folder, make_mail("a@x.example", f"m{i}", str(i)), T0 + timedelta(minutes=i))
    t = _transport(dovecot, folder, tmp_path)
    try:
        m0, m1, m2 = t.fetch()
        t.ack(m1)  # out of order: the checkpoint must not skip m0
        cp = json.loads(t.checkpoint.read_text())
        assert cp["last_uid"] == 0
        assert [m.key for m in t.fetch()] == [m0.key, m2.key]
        t.ack(m0)
        t.ack(m2)
        t.ack(m2)  # idempotent
        assert json.loads(t.checkpoint.read_text())["last_uid"] == 3
        assert t.fetch() == []
        with dovecot.client() as c:
            c.select_folder(folder)
            assert c.search(["SEEN"]) == [1, 2, 3] and c.search(["KEYWORD", KEYWORD]) == [1, 2, 3]
    finally:
        t.close()
    # a new connection (next cron run) starts from the checkpoint
    dovecot.append(folder, make_mail("a@x.example", "m3", "3"), T0)
    t2 = _transport(dovecot, folder, tmp_path)
    try:
        assert [m.key.split(":")[1] for m in t2.fetch()] == ["4"]
    finally:
        t2.close()


def test_ack_moves_to_processed_folder(dovecot, tmp_path):
    folder = dovecot.new_folder()
    done = folder + "-done"
    dovecot.append(folder, make_mail("a@x.example", "m", "x"), T0)
    dovecot.append(folder, make_mail("a@x.example", "n", "y"), T0)
    t = _transport(dovecot, folder, tmp_path, processed_folder=done)
    try:
        first, second = t.fetch()
        t.ack(first)
        t.ack(first)  # already moved: no error
        assert [m.key for m in t.fetch()] == [second.key]
    finally:
        t.close()
    with dovecot.client() as c:
        assert c.select_folder(done)[b"EXISTS"] == 1
        assert c.select_folder(folder)[b"EXISTS"] == 1


def test_uidvalidity_change_reads_folder_again(dovecot, tmp_path):
    folder = dovecot.new_folder()
    raw = make_mail("a@x.example", "m", "x")
    dovecot.append(folder, raw, T0)
    t = _transport(dovecot, folder, tmp_path)
    try:
        (m,) = t.fetch()
        t.ack(m)
        assert t.fetch() == []
        old_validity = json.loads(t.checkpoint.read_text())["uidvalidity"]
        with dovecot.client() as c:  # the folder is recreated: new UIDVALIDITY, UIDs start again
            c.delete_folder(folder)
            c.create_folder(folder)
        dovecot.append(folder, raw, T0)
        dovecot.append(folder, make_mail("a@x.example", "n", "y"), T0 + timedelta(seconds=1))
        got = t.fetch()
        assert [g.raw for g in got][0] == m.raw and len(got) == 2
        new_validity = json.loads(t.checkpoint.read_text())["uidvalidity"]
        assert new_validity != old_validity and got[0].key == f"{new_validity}:1"
        t.ack(m)  # a stale key (old UIDVALIDITY) is not applied to the new folder
        assert len(t.fetch()) == 2
    finally:
        t.close()


def test_bad_password_and_missing_folder(dovecot, tmp_path):
    t = _transport(dovecot, "INBOX", tmp_path, password="wrong")
    with pytest.raises(MailError, match="log in"):
        t.fetch()
    t = _transport(dovecot, "no-such-folder", tmp_path)
    try:
        with pytest.raises(MailError, match="fetch failed"):
            t.fetch()
    finally:
        t.close()


def test_password_from_env(dovecot, tmp_path, monkeypatch):
    folder = dovecot.new_folder()
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", dovecot.password)
    cfg = dovecot.config(folder)
    del cfg["password"]
    t = make_transports(cfg, tmp_path).incoming[0]
    try:
        assert t.fetch() == []
    finally:
        t.close()


class _FakeClient:
    """Unit-test stand-in for IMAPClient on a server without MOVE (only what _move uses)."""

    def __init__(self, caps):
        self.caps, self.calls, self.folders = caps, [], set()

    def folder_exists(self, name):
        return name in self.folders

    def create_folder(self, name):
        self.calls.append(("create", name))
        self.folders.add(name)

    def has_capability(self, cap):
        return cap in self.caps

    def __getattr__(self, name):
        return lambda *args: self.calls.append((name, *args))


def test_move_without_move_capability():
    t = ImapTransport("h", processed_folder="Done")
    client = _FakeClient({"UIDPLUS"})
    t._move(client, 7)
    assert client.calls == [("create", "Done"), ("copy", [7], "Done"), ("delete_messages", [7]),
                            ("uid_expunge", [7])]
    client = _FakeClient({"MOVE"})
    client.folders.add("Done")
    t._move(client, 8)
    assert client.calls == [("move", [8], "Done")]


def test_since_skips_old_mail(dovecot, tmp_path):
    folder = dovecot.new_folder()
    dovecot.append_many(folder, [(make_mail("a@x.example", "old", "o"), T0 - timedelta(days=30)),
                                 (make_mail("a@x.example", "new", "n"), T0)])
    t = _transport(dovecot, folder, tmp_path, since="2024-06-01")
    try:
        assert [m.raw.rsplit(b"\n", 1)[-1] for m in t.fetch()] == [b"n"]
    finally:
        t.close()
    with pytest.raises(MailError, match="not a date"):
        _transport(dovecot, folder, tmp_path, since="last week")
