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
    assert len(syncs) > 2 and sum(syncs) == 14 and max(syncs) <= 4
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
