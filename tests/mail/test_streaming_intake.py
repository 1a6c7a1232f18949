"""Issue 33 item 4 — streaming intake: mails are taken one at a time, a big one is copied from its
file in chunks and never parsed past its headers when it is over the parse limit, so memory does not
grow with the mail sizes; it is still stored whole, answered as too large and kept in quarantine."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pbem.mail.intake as intake_mod
from pbem.mail.directory import GameContact, StaticDirectory
from pbem.mail.folder import STREAM_OVER, FolderTransport
from pbem.mail.intake import Intake
from pbem.mail.message import MAX_PARSE

GAME = GameContact("g1", {"ann": ("ann@x.org", "tok-ann")})


def _big_mail(path: Path, size: int) -> bytes:
    head = (b"From: ann@x.org\nSubject: [g1] orders\nMessage-ID: <big@x.org>\n\nTOKEN tok-ann\nPASS\n")
    line = b"A" * 75 + b"\n"
    data = head + line * ((size - len(head)) // len(line) + 1)
    path.write_bytes(data)
    return data


def _intake(tmp_path: Path, handled: list) -> tuple[Intake, FolderTransport]:
    folder = FolderTransport(tmp_path / "inbox", tmp_path / "outbox")
    return Intake([folder], folder, StaticDirectory([GAME]), lambda g, who, mail: handled.append(mail) or "ok",
                  archive_dir=tmp_path / "mail", from_addr="pbem@example.org"), folder


def test_a_mail_over_the_parse_limit_is_read_by_its_headers_only(tmp_path, monkeypatch):
    (tmp_path / "inbox").mkdir()
    data = _big_mail(tmp_path / "inbox" / "001.eml", MAX_PARSE + 1024 * 1024)
    parsed: list[int] = []
    real = intake_mod.read_message
    monkeypatch.setattr(intake_mod, "read_message", lambda raw, **kw: parsed.append(len(raw)) or real(raw, **kw))
    handled: list = []
    intake, folder = _intake(tmp_path, handled)
    report = intake.run_once()
    assert (report.new, report.quarantined, report.acked) == (1, 1, 1)
    assert handled == [] and parsed and max(parsed) <= intake_mod.HEAD_MAX + 2
    sha = hashlib.sha256(data).hexdigest()
    assert (tmp_path / "mail" / f"{sha}.eml").stat().st_size == len(data)
    assert hashlib.sha256((tmp_path / "mail" / "quarantine" / f"{sha}.eml").read_bytes()).hexdigest() == sha
    replies = list((tmp_path / "outbox").glob("*.eml"))
    assert len(replies) == 1 and b"[g1]" in replies[0].read_bytes()     # the sender is told (notices.too_large)


def test_a_big_file_is_handed_over_by_its_path_not_its_bytes(tmp_path):
    (tmp_path / "inbox").mkdir()
    data = _big_mail(tmp_path / "inbox" / "001.eml", STREAM_OVER + 1)
    (tmp_path / "inbox" / "002.eml").write_bytes(b"From: ann@x.org\nSubject: [g1] x\nMessage-ID: <s@x.org>\n\nTOKEN tok-ann\n")
    folder = FolderTransport(tmp_path / "inbox", tmp_path / "outbox")
    got = {inc.key: inc for inc in folder.fetch_each()}
    assert got["001.eml"].raw == b"" and got["001.eml"].path == tmp_path / "inbox" / "001.eml"
    assert got["002.eml"].raw.startswith(b"From:") and got["002.eml"].path is None
    handled: list = []
    intake, _ = _intake(tmp_path, handled)
    report = intake.run_once()
    assert report.applied == 2 and len(handled) == 2
    assert handled[0].sha256 == hashlib.sha256(data).hexdigest() and handled[0].size == len(data)
    assert intake.run_once().new == 0        # acked: moved to processed/


class _Killed(BaseException):
    """Stands for the run being killed (out of memory, a signal): nothing in pbem catches it."""


def test_a_mail_that_kills_the_run_while_it_is_read_counts_as_an_attempt(tmp_path, monkeypatch):
    import pytest

    from pbem.mail.intake import MAX_RUNS

    (tmp_path / "inbox").mkdir()
    (tmp_path / "inbox" / "001.eml").write_bytes(
        b"From: ann@x.org\nSubject: [g1] orders\nMessage-ID: <bomb@x.org>\n\nTOKEN tok-ann\nPASS\n")
    real = intake_mod.read_message

    def bomb(raw, **kw):
        if kw.get("body", True):
            raise _Killed()
        return real(raw, **kw)

    handled: list = []
    monkeypatch.setattr(intake_mod, "read_message", bomb)
    for _ in range(MAX_RUNS):
        intake, _folder = _intake(tmp_path, handled)
        with pytest.raises(_Killed):
            intake.run_once()
    intake, _folder = _intake(tmp_path, handled)
    report = intake.run_once()          # not read again: set aside by its headers, answered, acked
    assert handled == [] and report.quarantined == 1 and report.acked == 1
    assert report.set_aside and "stopped while reading it" in report.set_aside[0]
    assert len(list((tmp_path / "outbox").glob("*.eml"))) == 1
    assert not (tmp_path / "inbox" / "001.eml").exists()
