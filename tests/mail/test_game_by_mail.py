"""Issue 11 end to end: a whole game (16 rounds; Duel Britannia 7, issue 29) played by mail through a real IMAP server (Dovecot)
and a real SMTP server (aiosmtpd), orders written by the bots as mail; the archive replays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from imapclient import IMAPClient

from pbem.bots import bot_orders
from pbem.rules.flow import votes_owed
from pbem.rules.legal import vote_options
from pbem.service.job import run_job
from pbem.store.dicecheck import verify_dice
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

PLAYERS = [("ann", "ann@example.org"), ("bob", "bob@example.org"), ("cy", "cy@example.org"), ("di", "di@example.org")]


def _deliver(dovecot, raw: bytes) -> None:
    with IMAPClient(dovecot.host, port=dovecot.port, ssl=False) as c:
        c.login(dovecot.user, dovecot.password)
        c.append("INBOX", raw)


def _mail(game: Game, nation: str, text: str, n: int) -> bytes:
    player = game.player(game.player_of(nation))
    return (f"From: {player['address']}\r\nTo: pbem@example.org\r\nSubject: [{game.id}] {nation}\r\n"
            f"Message-ID: <e2e-{n}@example.org>\r\n\r\nTOKEN {player['token']}\r\n{text}").replace("\n", "\r\n").replace(
        "\r\r\n", "\r\n").encode()


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["classic", "ffg2", "duel"])
def test_whole_game_by_imap_and_smtp(dovecot, smtp, tmp_path, ruleset):
    games = tmp_path / "games"
    games.mkdir()
    (games / "pbem.yaml").write_text(
        "from: pbem@example.org\nmail:\n"
        f"  - {{type: imap, host: {dovecot.host}, port: {dovecot.port}, security: none, username: {dovecot.user}, "
        f"password: {dovecot.password}, folder: INBOX, processed_folder: Processed}}\n"
        f"  - {{type: smtp, host: {smtp.host}, port: {smtp.port}, security: none}}\n")
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(games, f"e2e-{ruleset}", ruleset=ruleset, players=4, player_specs=PLAYERS,
                       secret=b"end to end secret, sixteen rounds", time=t.isoformat())
    n = 0
    for _ in range(400):
        g = Game.open(game.path)
        state = g.state
        if state.finished:
            break
        rs = g.ruleset()
        if state.next_nation is not None:
            n += 1
            _deliver(dovecot, _mail(g, state.next_nation, bot_orders(rs, state, state.next_nation, seed=n), n))
        elif votes_owed(rs, state):
            for nation in vote_options(rs, state):
                n += 1
                _deliver(dovecot, _mail(g, nation, f"NATION {rs.display(nation)}\nVOTE {rs.display(nation)}\n", n))
        t += timedelta(hours=1)
        report = run_job(games, now=t, render_map=False)
        assert not report.errors, report.errors
    g = Game.open(game.path)
    assert g.state.finished and g.state.round == g.ruleset().const.max_rounds and g.state.ruleset == ruleset
    sent = smtp.messages
    name = " ".join(g.ruleset().name.split()[:2])   # the turn mails and prompts name the rules
    assert all(name in " ".join(raw.decode(errors="replace").split()) for _, _, raw in sent if b"have played" in raw)
    assert any("game over" in raw.decode(errors="replace") for _, _, raw in sent)
    turn_mails = [rcpts for _, rcpts, raw in sent if b"have played" in raw]
    assert turn_mails and all(sorted(r) == sorted(a for _, a in PLAYERS) for r in turn_mails)
    assert replay(g.path).ok
    assert verify_dice(g).ok
