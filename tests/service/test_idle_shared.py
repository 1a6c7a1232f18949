"""Issue 33 item 1 — the idle fast path with the site's mailbox (GAMES_DIR/pbem.yaml `mail:`): the
mailbox is polled once, a waiting game is not opened unless the mailbox routed mail to it, and each
game's idle note stands on its own whatever another game's fault."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.service.job import run_job
from pbem.store.game import create_game

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SITE_MAIL = "from: pbem@example.org\nmail:\n  - {type: folder, inbox: inbox, outbox: outbox}\n"


def _games(root, ids=("g1", "g2", "g3"), site: str = SITE_MAIL):
    (root / "pbem.yaml").write_text(site)
    for gid in ids:
        create_game(root, gid, secret=b"shared idle test " + gid.encode(), time=T0.isoformat())
    run_job(root, now=T0, render_map=False)          # round 1 starts, the Romans are prompted
    run_job(root, now=T0 + timedelta(minutes=5), render_map=False)   # nothing to do: noted idle
    return root


@pytest.fixture
def opened(games_opened):
    return games_opened


def test_a_shared_mailbox_leaves_waiting_games_unopened(tmp_path, opened):
    games = _games(tmp_path)
    assert (games / ".pbem-idle" / "g1.json").is_file()
    opened.clear()
    again = run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert opened == []
    assert "g2: nothing to do (waiting for purple (Romans))" in again.lines()


def test_mail_routed_by_its_subject_tag_opens_only_its_game(tmp_path, opened):
    games = _games(tmp_path)
    (games / "inbox").mkdir(exist_ok=True)
    (games / "inbox" / "001.eml").write_bytes(b"From: stranger@example.org\nSubject: [g2] orders\nMessage-ID: <m1@example.org>\n\nhello\n")
    opened.clear()
    report = run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert report.mails_in == 1
    assert opened and set(opened) == {"g2"}
    opened.clear()
    run_job(games, now=T0 + timedelta(minutes=15), render_map=False)   # g2 noted idle again
    opened.clear()
    run_job(games, now=T0 + timedelta(minutes=20), render_map=False)
    assert opened == []


def test_a_note_for_folder_mail_does_not_hold_once_the_site_has_a_mailbox(tmp_path, opened):
    games = _games(tmp_path, site="{}\n")
    (games / "pbem.yaml").write_text(SITE_MAIL)
    opened.clear()
    run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert {"g1", "g2", "g3"} <= set(opened)


def test_one_faulty_game_does_not_stop_the_notes_of_the_others(tmp_path):
    games = _games(tmp_path, site="{}\n")
    for note in (games / ".pbem-idle").glob("*.json"):
        note.unlink()
    (games / "g3" / "game.yaml").write_text("{not: [valid yaml\n")
    report = run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert any(e.startswith("g3:") for e in report.errors)
    assert (games / ".pbem-idle" / "g1.json").is_file() and (games / ".pbem-idle" / "g2.json").is_file()
    assert not (games / ".pbem-idle" / "g3.json").exists()


def test_mail_in_one_games_folder_does_not_stop_the_notes_of_the_others(tmp_path, opened):
    games = _games(tmp_path, site="{}\n")
    for note in (games / ".pbem-idle").glob("*.json"):
        note.unlink()
    (games / "g1" / "inbox" / "001.txt").write_text("From: nobody@example.org\nhello\n")
    run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert (games / ".pbem-idle" / "g2.json").is_file() and (games / ".pbem-idle" / "g3.json").is_file()
