"""The retention policy (issue 33): old sent-mail copies go, received mail is compressed once done,
the log, the state, the turn reports and anything still owed stay; `pbem prune` and `status --disk`."""

import gzip
import os
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.errors import GameError
from pbem.service.job import run_job
from pbem.store.game import Game, create_game
from pbem.store.replay import replay
from pbem.store.retention import Policy, disk_usage, prune_game

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _game_with_mail(tmp_path):
    games = tmp_path / "games"
    game = create_game(games, "g1", players=4, secret=b"retention test secret 0123456789", time=T0.isoformat())
    run_job(games, now=T0, render_map=False)                 # the welcome mails and the first prompt
    nation = Game.open(game.path).state.next_nation
    p = game.player(game.player_of(nation))
    (game.path / "inbox" / "orders.eml").write_bytes(
        (f"From: {p['address']}\r\nSubject: [g1] orders\r\nMessage-ID: <r1@example.org>\r\n\r\n"
         f"TOKEN {p['token']}\r\nPASS\r\n").encode())
    run_job(games, now=T0 + timedelta(hours=1), render_map=False)
    return games, game.path


def _age_everything(path, days):
    old = (T0 - timedelta(days=days)).timestamp()
    for root, _dirs, files in os.walk(path):
        for name in files:
            os.utime(os.path.join(root, name), (old, old))


def test_prune_removes_old_sent_mail_and_compresses_done_received_mail(tmp_path):
    games, gdir = _game_with_mail(tmp_path)
    sent = sorted((gdir / "outbox").glob("*.eml"))
    received = sorted((gdir / "mail").glob("*.eml"))
    assert sent and received
    raw = received[0].read_bytes()
    reports = sorted((gdir / "outbox" / "reports").rglob("*")) if (gdir / "outbox" / "reports").is_dir() else []
    log_files = sorted((gdir / "log").iterdir())
    _age_everything(gdir, 40)
    report = prune_game(gdir, Policy(days=30), T0)
    assert not list((gdir / "outbox").glob("*.eml"))
    assert sorted((gdir / "outbox" / "reports").rglob("*")) == reports if reports else True
    assert sorted((gdir / "log").iterdir()) == log_files
    assert not list((gdir / "mail").glob("*.eml")) and list((gdir / "mail").glob("*.eml.gz"))
    assert gzip.decompress((gdir / "mail" / (received[0].name + ".gz")).read_bytes()) == raw
    assert report.freed > 0 and len(report.removed) == len(sent)
    assert replay(gdir).ok                                   # the record replay needs is all there
    run_job(games, now=T0 + timedelta(hours=2), render_map=False)   # and the game goes on


def test_young_files_and_unfinished_mail_are_kept(tmp_path):
    games, gdir = _game_with_mail(tmp_path)
    before = sorted(p.name for p in (gdir / "outbox").glob("*.eml"))
    assert prune_game(gdir, Policy(days=30), T0).freed == 0     # all younger than 30 days
    assert sorted(p.name for p in (gdir / "outbox").glob("*.eml")) == before
    # a mail the intake has not finished with is never touched, however old
    ledger = gdir / "mail" / "ledger.jsonl"
    lines = ledger.read_text().splitlines()
    ledger.write_text("\n".join(line for line in lines if '"replied"' not in line) + "\n")
    _age_everything(gdir, 400)
    prune_game(gdir, Policy(days=30, outbox="keep"), T0)
    assert list((gdir / "mail").glob("*.eml")) and sorted(p.name for p in (gdir / "outbox").glob("*.eml")) == before


def test_dry_run_changes_nothing(tmp_path):
    games, gdir = _game_with_mail(tmp_path)
    _age_everything(gdir, 40)
    snapshot = sorted(str(p) for p in gdir.rglob("*"))
    report = prune_game(gdir, Policy(), T0, dry_run=True)
    assert report.removed and sorted(str(p) for p in gdir.rglob("*")) == snapshot


def test_compress_policy_keeps_sent_mail_compressed(tmp_path):
    games, gdir = _game_with_mail(tmp_path)
    _age_everything(gdir, 40)
    prune_game(gdir, Policy(outbox="compress"), T0)
    assert not list((gdir / "outbox").glob("*.eml")) and list((gdir / "outbox").glob("*.eml.gz"))


@pytest.mark.parametrize("data,word", [({"dayz": 3}, "retention.dayz"), ({"days": -1}, "retention.days"),
                                       ({"outbox": "shred"}, "retention.outbox"), ([1], "mapping")])
def test_policy_mistakes_are_refused(data, word):
    with pytest.raises(GameError) as e:
        Policy.from_settings(data)
    assert word in str(e.value)


def test_commands(tmp_path):
    games, gdir = _game_with_mail(tmp_path)
    (games / "pbem.yaml").write_text("retention: {days: 10, outbox: delete, mail: keep}\n")
    _age_everything(gdir, 20)
    out = CliRunner().invoke(cli, ["prune", str(games), "--now", T0.isoformat(), "--dry-run"])
    assert out.exit_code == 0, out.output
    assert "would free" in out.output and "older than 10 days, outbox delete, mail keep" in out.output
    assert list((gdir / "outbox").glob("*.eml"))
    out = CliRunner().invoke(cli, ["prune", str(games), "--now", T0.isoformat()])
    assert out.exit_code == 0 and not list((gdir / "outbox").glob("*.eml"))
    assert list((gdir / "mail").glob("*.eml"))                  # mail: keep
    out = CliRunner().invoke(cli, ["status", "g1", "--dir", str(games), "--disk"])
    assert out.exit_code == 0 and "log" in out.output and "total" in out.output
    assert disk_usage(gdir).total > 0
