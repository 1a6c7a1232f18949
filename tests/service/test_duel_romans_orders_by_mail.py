"""[A Game Round]: the Romans have no nation turn, and "for purposes of retreat from battle, they are
controlled by the Brython-Viking player": that player's mail may carry their DEFEND (and HITS) standing
orders under NATION Romans, taken as any of its nations' (the retreat itself:
tests/cases/duel/retreat-romans-by-the-brython-viking-side.yaml)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jobkit import body, mails

from pbem.service.job import run_job
from pbem.store.game import Game, create_game


def test_the_brython_viking_player_sends_the_romans_retreats(tmp_path):
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(tmp_path, "d1", ruleset="duel", players=2, player_specs=[("ann", "ann@x.org"), ("bob", "bob@x.org")],
                       secret=b"the romans retreat by mail", time=t.isoformat())
    g = Game.open(game.path)
    assert g.player_of("romans") == g.player_of("welsh")      # the Brython-Viking side
    p = g.player(g.player_of("romans"))
    inbox = game.path / "inbox"
    inbox.mkdir(exist_ok=True)
    (inbox / "1.eml").write_text(f"From: {p['address']}\nSubject: [d1] orders\nMessage-ID: <m1@x.org>\n\n"
                                 f"TOKEN {p['token']}\nNATION Romans\nDEFEND Kent: RETREAT TO Essex AFTER ROUND 1\n"
                                 "HITS ALL: FORT FIRST\n")
    report = run_job(tmp_path, now=t + timedelta(hours=1), render_map=False)
    assert not report.errors, report.errors
    replies = [body(m) for m in mails(game.path / "outbox") if p["address"] in str(m["To"]) and "Romans:" in body(m)]
    assert replies and "Romans: taken (2 lines OK)" in replies[0], replies
