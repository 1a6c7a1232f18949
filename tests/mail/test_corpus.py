"""The hostile-mail corpus (tests/data/mail_corpus, made by make_corpus.py): every mail is processed
without a traceback, and each is either replied to or quarantined, with the outcome the manifest says."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.mail.directory import GameContact, PlayerContact, StaticDirectory
from pbem.mail.intake import Intake
from pbem.mail.transport import make_transports

from . import make_corpus as mc
from .conftest import FakeHandler
from .helpers import Setup

CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail_corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
DOMAIN = mc.PBEM_ADDR.rpartition("@")[2]


def corpus_directory() -> StaticDirectory:
    games = []
    for gid, g in mc.GAMES.items():
        players = {name: PlayerContact(addr, tok, nations) for name, addr, tok, nations in g["players"]}
        games.append(GameContact(gid, players, g["moderator"]))
    return StaticDirectory(games)


def test_corpus_is_complete_and_up_to_date(tmp_path):
    files = sorted(p.name for p in CORPUS.glob("*.eml"))
    assert len(files) >= 100 and files == sorted(MANIFEST)
    mc.main(tmp_path)
    for name in files:
        assert (tmp_path / name).read_bytes() == (CORPUS / name).read_bytes(), f"{name}: run make_corpus.py"


def _check_outcomes(entries, sha_of: dict[str, str], replies_by_id: set[str], quarantine: Path, calls):
    """Each corpus mail reached its manifest outcome; replied or quarantined; handler once per applied."""
    wrong = {}
    for name, expect in MANIFEST.items():
        sha = sha_of[name]
        if expect.startswith("same:"):
            assert sha == sha_of[expect[5:]], name
            continue
        entry = entries[sha]
        assert entry.state == "replied", name
        outcome = "quarantined" if entry.outcome == "error" else entry.outcome
        if outcome != expect:
            wrong[name] = (expect, entry.outcome, entry.reason)
        if outcome in ("applied", "rejected"):
            assert f"<{sha[:32]}.0@{DOMAIN}>" in replies_by_id, f"{name}: no reply"
        else:
            assert (quarantine / f"{sha}.json").exists() and (quarantine / f"{sha}.eml").exists(), name
    assert not wrong, wrong
    applied = {sha_of[n] for n, e in MANIFEST.items() if e == "applied"}
    assert Counter(sha for _, _, sha in calls) == Counter({sha: 1 for sha in applied})


def test_corpus_through_folder_transport(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is test_crash's business
    s = Setup(tmp_path, directory_=corpus_directory())
    sha_of = {}
    for i, name in enumerate(sorted(MANIFEST)):
        raw = (CORPUS / name).read_bytes()
        s.drop(name, raw, 1_700_000_000 + i)
        sha_of[name] = hashlib.sha256(raw).hexdigest()
    intake = s.intake()
    intake.from_addr = mc.PBEM_ADDR
    intake.own_addr, intake.domain = mc.PBEM_ADDR, DOMAIN
    with caplog.at_level(logging.INFO, logger="pbem.mail"):
        report = intake.run_once()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], "errors logged"
    assert report.errors == [] and s.pending_files() == []
    assert report.fetched == len(MANIFEST)
    replies = {m["Message-ID"] for m in s.sent()}
    _check_outcomes(s.entries(), sha_of, replies, s.archive / "quarantine", s.handler.calls)
    # every quarantined mail has a log line saying why
    logged = " ".join(r.getMessage() for r in caplog.records)
    for p in (s.archive / "quarantine").glob("*.json"):
        assert f"mail {p.stem[:12]} quarantined" in logged
    # the replies about truncated mail say so
    huge = next(m for m in s.sent() if m["Message-ID"].startswith(f"<{sha_of['059-huge-valid-plain.eml'][:32]}."))
    assert "truncated" in huge.get_content()


@pytest.mark.mail
def test_corpus_through_imap_and_smtp(dovecot, smtp, tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not what this test is about
    folder = dovecot.new_folder()
    t0 = datetime(2024, 6, 3, tzinfo=UTC)
    uid_of, refused = {}, []
    with dovecot.client() as c:
        for i, name in enumerate(sorted(MANIFEST)):
            try:
                resp = c.append(folder, (CORPUS / name).read_bytes(), msg_time=t0 + timedelta(seconds=i))
            except Exception as exc:  # the server may refuse some junk (that never reaches a mailbox)
                refused.append((name, str(exc)))
                continue
            uid_of[name] = int(re.search(rb"APPENDUID \d+ (\d+)", resp).group(1))
    assert len(refused) <= 3, refused
    handler = FakeHandler()
    tr = make_transports([dovecot.config(folder, processed_folder=folder + "-done"), smtp.config()], tmp_path)
    intake = Intake(tr.incoming, tr.outgoing, corpus_directory(), handler, archive_dir=tmp_path / "mail",
                    from_addr=mc.PBEM_ADDR)
    try:
        with caplog.at_level(logging.WARNING, logger="pbem.mail"):
            report = intake.run_once()
    finally:
        tr.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert report.errors == [] and report.fetched == len(uid_of)
    intake.ledger.load()
    by_uid = {int(e.key.split(":")[1]): e for e in intake.ledger.entries.values()}
    outcomes = {}
    for name, uid in uid_of.items():
        entry = by_uid.get(uid)
        if entry is None:  # the exact duplicate: same bytes as an earlier mail, one ledger entry
            assert MANIFEST[name].startswith("same:"), name
            continue
        outcomes[name] = "quarantined" if entry.outcome == "error" else entry.outcome
    expected = {n: e for n, e in MANIFEST.items() if n in outcomes}
    for name, got in outcomes.items():
        # IMAP servers may not keep NUL bytes (Dovecot sends them as 0x80): such a mail can become
        # unreadable (rejected, still answered) -- but never lost or unanswered.
        if got != expected[name] and b"\x00" in (CORPUS / name).read_bytes():
            assert (expected[name], got) == ("applied", "rejected"), name
            expected[name] = got
    assert outcomes == expected
    replied = sum(1 for e in outcomes.values() if e in ("applied", "rejected"))
    assert len(smtp.messages) >= replied
    with dovecot.client() as c:
        assert c.select_folder(folder)[b"EXISTS"] == 0
