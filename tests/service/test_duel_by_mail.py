"""Issue 29: a whole 7-round game of Duel Britannia played by mail, end to end: `pbem new --ruleset
duel --players 2`, the two players' orders mailed turn after turn (written by the bots) into the
folder mailbox, `pbem run` answering every mail, adjudicating in the Duel order of play, mailing the
turn reports and prompts, to the game-over mail; the log replays exactly. The board and aid are
provisional ([The Game Board], [Unit List]): the start mail and every turn report say so."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from jobkit import body, mails

from pbem.bots import bot_orders
from pbem.cli import cli
from pbem.service.job import run_job
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org")]


def play_by_mail(games: Path) -> Game:
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(games, "d1", ruleset="duel", players=2, player_specs=PLAYERS,
                       secret=b"a duel by mail, dice on the record", time=t.isoformat())
    inbox = game.path / "inbox"
    inbox.mkdir(exist_ok=True)
    n = 0
    for _ in range(300):
        g = Game.open(game.path)
        state = g.state
        if state.finished:
            break
        if state.next_nation is not None:   # else the run starts the round (Duel owes no votes)
            rs = g.ruleset()
            n += 1
            p = g.player(g.player_of(state.next_nation))
            text = bot_orders(rs, state, state.next_nation, seed=n)
            (inbox / f"{n:04d}.eml").write_text(f"From: {p['address']}\nSubject: [d1] orders\n"
                                                f"Message-ID: <m{n}@x.org>\n\nTOKEN {p['token']}\n{text}\n")
        t += timedelta(hours=1)
        report = run_job(games, now=t, render_map=False)
        assert not report.errors, report.errors
    return Game.open(game.path)


@pytest.mark.slow
def test_a_whole_duel_game_by_mail(tmp_path):
    game = play_by_mail(tmp_path)
    state = game.state
    assert state.finished, f"the game ends after round 7 ([A Game Round]); stopped in round {state.round}"
    assert state.round == 7
    assert replay(game).ok
    sent = mails(game.path / "outbox")
    for addr in ("ann@x.org", "bob@x.org"):
        subjects = [str(m["Subject"]) for m in sent if addr in str(m["To"])]
        assert any("game over" in s for s in subjects), subjects[-3:]
    turn_mails = [m for m in sent if "round" in str(m["Subject"]).lower() and "orders" not in str(m["Subject"]).lower()]
    assert turn_mails and all("PROVISIONAL" in body(m) for m in turn_mails[:5])
    replies = [m for m in sent if str(m["Subject"]).lower().startswith("re:")]
    assert len(replies) >= 50, "every orders mail is answered"


@pytest.mark.parametrize("players", ["2", "4"])
def test_pbem_new_starts_a_duel_game_for_two_or_four(tmp_path, players):
    specs = [a for i in range(int(players)) for a in ("--player", f"p{i}=p{i}@x.org")]
    r = CliRunner().invoke(cli, ["new", "d1", "--dir", str(tmp_path), "--ruleset", "duel", "--players", players, *specs])
    assert r.exit_code == 0, r.output
    game = Game.open(tmp_path / "d1")
    assert len(game.players()) == int(players)
    assert {game.player_of(n) for n in game.ruleset().nations if game.player_of(n)} == {f"p{i}" for i in range(int(players))}
