"""What a burst of mail saves (issue 33), shown to keep every guarantee: the files written without an
fsync each are made durable in groups, a reply is sent from the bytes just written, the ledger's
lines come from orjson (and the standard encoder where orjson refuses a value)."""

from __future__ import annotations

import json

from pbem.mail import intake as intake_mod
from pbem.mail.ledger import Ledger, _line

from .conftest import ALICE, make_mail
from .helpers import Setup


def _orders(n: int) -> bytes:
    return make_mail(ALICE[0], "[demo-1] orders", f"NATION Saxons\nTOKEN {ALICE[1]}\nPASS {n}\n", mid=f"<b{n}@mua>")


def test_the_unsynced_files_are_made_durable_in_groups_and_the_run_is_the_same(tmp_path, monkeypatch):
    grouped, whole = Setup(tmp_path / "grouped"), Setup(tmp_path / "whole")
    for s in (grouped, whole):
        for n in range(7):
            s.drop(f"{n}.eml", _orders(n), 1000 + n)
    syncs: list[int] = []
    real = intake_mod.make_durable

    def counting(files, dirs):
        syncs.append(len(files))
        real(files, dirs)

    monkeypatch.setattr(intake_mod, "make_durable", counting)
    report = whole.run()
    assert syncs == [14]           # 7 archive copies and 7 replies, at the end of the run
    syncs.clear()
    monkeypatch.setattr(intake_mod, "SYNC_EVERY", 4)
    assert grouped.run() == report
    # the 4th reply is the 4th new file (the archive copies of a folder's mails are links): a sync
    # then, of everything waiting, and one at the end for the three replies after it
    assert syncs == [7 + 4, 3]
    assert [m.get_content() for m in grouped.sent()] == [m.get_content() for m in whole.sent()]
    assert [e["event"] for e in grouped.ledger()] == [e["event"] for e in whole.ledger()]


def test_a_reply_is_sent_from_its_bytes_and_is_the_file_it_was_written_to(tmp_path):
    s = Setup(tmp_path)
    s.drop("a.eml", _orders(1), 1000)
    s.run()
    ((applied,),) = [[e for e in s.ledger() if e["event"] == "applied"]]
    (name,) = applied["replies"]
    (sent,) = s.outbox.glob("*.eml")
    assert sent.read_bytes() == (s.archive / "replies" / name).read_bytes()
    assert sent.stat().st_ino == (s.archive / "replies" / name).stat().st_ino   # one file, two names


def test_a_reply_written_by_a_run_that_stopped_is_sent_from_its_file(tmp_path):
    s = Setup(tmp_path)
    s.drop("a.eml", _orders(1), 1000)

    def stop_after_applied(point, sha):
        if point == "applied":
            raise KeyboardInterrupt

    s.fault = stop_after_applied
    try:
        s.run()
    except KeyboardInterrupt:
        pass
    assert s.sent() == []
    s.fault = None
    report = s.run()
    assert report.replies_sent == 1 and "NATION Saxons" in s.sent()[0].get_content()


def test_ledger_lines_read_back_whatever_orjson_refuses(tmp_path):
    odd = {"event": "stored", "sha256": "a" * 64, "key": "new/caf\udcc3.eml", "seq": 2 ** 70, "subject": "Grüße"}
    line = _line(odd)
    assert line.endswith(b"\n") and json.loads(line) == odd           # the standard encoder's line
    plain = {"event": "stored", "sha256": "b" * 64, "subject": "Grüße", "seq": 3}
    assert json.loads(_line(plain)) == plain and b"\n" not in _line(plain)[:-1]
    led = Ledger(tmp_path / "ledger.jsonl")
    with led:
        led.append("stored", "c" * 64, durable=False, key="caf\udcc3.eml", subject="Grüße", message_id="<x@y>")
        led.append("reading", "c" * 64, durable=False)
        led.append("read", "c" * 64, hold=True)
        led.sync()
    again = Ledger(tmp_path / "ledger.jsonl")
    again.load()
    entry = again.entries["c" * 64]
    assert entry.key == "caf\udcc3.eml" and entry.info["subject"] == "Grüße" and not entry.reading


def _as_read_head(raw: bytes) -> tuple[str, str, str]:
    import hashlib

    from pbem.mail.intake import read_head

    mail = read_head(raw, hashlib.sha256(raw).hexdigest(), len(raw))
    return mail.message_id, mail.from_addr, mail.subject


def test_the_stored_line_reads_every_corpus_mail_as_its_headers_are_read():
    """head_summary (the intake's `stored` line) against read_head over the hostile-mail corpus: 8-bit
    and encoded headers, two From lines, no Message-ID, broken structure."""
    import hashlib
    from pathlib import Path

    from pbem.mail.intake import _header_block
    from pbem.mail.message import head_summary

    corpus = sorted((Path(__file__).resolve().parents[1] / "data" / "mail_corpus").glob("*.eml"))
    assert len(corpus) >= 100
    for path in corpus:
        raw = path.read_bytes()
        assert head_summary(_header_block(raw), hashlib.sha256(raw).hexdigest()) == _as_read_head(raw), path.name


def test_the_stored_line_reads_any_header_bytes_as_read_head_does():
    import hashlib

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pbem.mail.intake import _header_block
    from pbem.mail.message import head_summary

    names = st.sampled_from([b"From", b"from", b"Subject", b"Message-ID", b"Message-Id", b"To", b"X-A", b"Subject "])
    value = st.binary(max_size=40) | st.sampled_from([b"=?utf-8?q?J=C3=B6rg?= <j@x.org>", b"<a@b>", b"a@b",
                                                       b"Ann <ann@x.org>, Bob <bob@y.org>", b"\xc3\xa9t\xc3\xa9",
                                                       b"=?koi8-r?b?8NLJ18XU?=", b"<x@y>\r\n <z@w>"])
    header = st.tuples(names, value).map(lambda nv: nv[0] + b": " + nv[1])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(header, max_size=6), st.sampled_from([b"\r\n", b"\n"]), st.binary(max_size=30))
    def check(headers, eol, body):
        raw = eol.join(headers) + eol + eol + body
        assert head_summary(_header_block(raw), hashlib.sha256(raw).hexdigest()) == _as_read_head(raw)

    check()
