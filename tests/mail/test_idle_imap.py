"""Issue 33 item 1 with a real mailbox (Dovecot over IMAP, an SMTP server on loopback): an idle run
over games waiting for orders polls the mailbox once and opens no game; a mail tagged for one game
opens that game alone."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pbem.store.game as store_game
from pbem.service.job import run_job
from pbem.store.game import create_game

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_an_imap_mailbox_leaves_waiting_games_unopened(dovecot, smtp, tmp_path, monkeypatch):
    folder = dovecot.new_folder()
    games = tmp_path / "games"
    games.mkdir()
    site = {"from": "pbem@example.org",
            "mail": [dovecot.config(folder), {"type": "smtp", "host": smtp.host, "port": smtp.port, "security": "none"}]}
    (games / "pbem.yaml").write_text(json.dumps(site))
    for gid in ("g1", "g2", "g3"):
        create_game(games, gid, secret=b"imap idle test " + gid.encode(), time=T0.isoformat())
    run_job(games, now=T0, render_map=False)                          # the prompts go out
    run_job(games, now=T0 + timedelta(minutes=5), render_map=False)   # nothing to do: noted idle
    opened: list[str] = []
    real_open = store_game.Game.open.__func__
    monkeypatch.setattr(store_game.Game, "open",
                        classmethod(lambda cls, p, *a, **k: opened.append(p.name) or real_open(cls, p, *a, **k)))
    idle = run_job(games, now=T0 + timedelta(minutes=10), render_map=False)
    assert opened == [] and not idle.errors, idle.errors
    dovecot.append(folder, b"From: stranger@example.org\r\nSubject: [g3] orders\r\nMessage-ID: <i1@example.org>\r\n"
                           b"\r\nhello\r\n")
    woken = run_job(games, now=T0 + timedelta(minutes=15), render_map=False)
    assert woken.mails_in == 1 and opened and set(opened) == {"g3"}
