"""Issue 29 (doubt S6): the ODDS lines of a Duel Britannia player's mail are answered with the Duel
battle's exact odds ([Battle Dice]: two dice a piece, two hits eliminate, one wounded piece a side;
[Defender In Difficult Terrain]; [Leaders]; [Cavalry]), the numbers `pbem odds` gives for the duel
ruleset, not the one-hit-a-kill odds of the classic game; and asking them changes nothing in the log."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from jobkit import body, mails

from pbem.data.loader import load
from pbem.orders.odds import answer_odds
from pbem.service.job import run_job
from pbem.store.game import Game, create_game

PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org")]
ASKED = ("ODDS 1 VS 1",                                             # 40.3 / 40.3 / 19.5 (classic: 40 / 40 / 20)
         "ODDS 3 LEADER VS 2 CAV 1 IN Powys DEFEND RETREAT IF OUTNUMBERED",
         "ODDS 2 CAV 1 VS 3 ATTACK RETREAT AFTER ROUND 2")
PERCENT = re.compile(r"\d+\.\d %")


def test_a_duel_players_odds_lines_are_answered_with_the_duel_odds(tmp_path):
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(tmp_path, "d1", ruleset="duel", players=2, player_specs=PLAYERS,
                       secret=b"a duel by mail, dice on the record", time=t.isoformat())
    run_job(tmp_path, now=t, render_map=False)
    before = [e.kind for e in Game.open(game.path).entries()]
    token = Game.open(game.path).player("ann")["token"]
    (game.path / "inbox").mkdir(exist_ok=True)
    (game.path / "inbox" / "001.eml").write_text("From: ann@x.org\nSubject: [d1] odds\nMessage-ID: <o1@x.org>\n\n"
                                                 f"TOKEN {token}\n" + "\n".join(ASKED) + "\n")
    report = run_job(tmp_path, now=t + timedelta(hours=1), render_map=False)
    assert not report.errors, report.errors
    replies = [body(m) for m in mails(game.path / "outbox") if "ann@x.org" in str(m["To"]) and "ODDS 1 VS 1" in body(m)]
    assert len(replies) == 1
    reply = replies[0]
    duel, classic = load("duel"), load("classic")
    expected = [p for text in ASKED for ln in answer_odds(text, duel) for p in PERCENT.findall(ln)]
    assert PERCENT.findall(reply) == expected != []
    assert "40.3 %" in reply and PERCENT.findall("\n".join(answer_odds("ODDS 1 VS 1", classic)))[:2] == ["40.0 %"] * 2
    assert "ODDS:" not in reply                     # every line computed: none refused
    # an ODDS line asks; it plays nothing
    kinds = [e.kind for e in Game.open(game.path).entries()]
    assert [k for k in kinds if k not in ("mail", "reply", "received")] == [k for k in before
                                                                           if k not in ("mail", "reply", "received")]
