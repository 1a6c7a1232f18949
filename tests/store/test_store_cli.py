"""Issue 8 — the store commands through the CLI."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.store.game import Game


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)

    return invoke


@pytest.fixture
def tiny_start(monkeypatch):
    """`pbem new` with the data's start position (independent of the engine under construction)."""
    import pbem.store.game as game

    monkeypatch.setattr(game, "start_position",
                        lambda rs, gid: (game.ruleset_start_state(rs, gid), "ruleset start (test)"))


def test_new_prints_commitment_and_tokens(run, tmp_path, tiny_start):
    r = run("new", "demo", "--dir", tmp_path, "--player", "alice=alice@example.org", "--player", "bob=bob@example.org")
    assert r.exit_code == 0, r.output
    g = Game.open(tmp_path / "demo")
    assert g.commitment in r.output
    for p in g.players():
        assert f"token {p['token']}" in r.output
    assert re.search(r"alice <alice@example.org> \(purple\): token [0-9a-f]{6} — Romans, Romano-British", r.output)
    assert "bob <bob@example.org> (green)" in r.output
    assert g.state.get("english_channel", "romans").armies == 15


@pytest.mark.parametrize("args,msg", [
    (["--player", "alice"], "NAME=ADDRESS"),
    (["--players", "9"], "no control table for 9 players"),
    (["--ruleset", "deluxe"], "unknown ruleset"),
])
def test_new_bad_input_is_a_message_not_a_traceback(run, tmp_path, tiny_start, args, msg):
    r = run("new", "demo", "--dir", tmp_path, *args)
    assert r.exit_code == 1 and msg in r.output and "Traceback" not in r.output


def test_new_twice_and_bad_id(run, tmp_path, tiny_start):
    assert run("new", "demo", "--dir", tmp_path).exit_code == 0
    r = run("new", "demo", "--dir", tmp_path)
    assert r.exit_code == 1 and "exists already" in r.output
    r = run("new", "../up", "--dir", tmp_path)
    assert r.exit_code == 1 and "bad game id" in r.output


def test_status(run, played):
    games = played.path.parent
    r = run("status", "t1", "--dir", games)
    assert r.exit_code == 0, r.output
    assert "game t1 (classic), round 3" in r.output and "alice:" in r.output and "deadline:" in r.output
    r = run("status", played.path, "--json")
    assert r.exit_code == 0 and '"round": 3' in r.output
    r = run("status", "nope", "--dir", games)
    assert r.exit_code == 1 and "no game 'nope'" in r.output


def test_replay_ok_and_divergent(run, played, fake_engine):
    r = run("replay", played.path, "-q")
    assert r.exit_code == 0, r.output
    assert "replay matches the log" in r.output
    r = run("replay", played.path)      # with the progress bar (on stderr)
    assert r.exit_code == 0
    p = played.path / "log" / "000004-turn.yaml"
    p.write_text(p.read_text().replace("count: 4", "count: 5").replace("\"count\": 4", "\"count\": 5"))
    r = run("replay", played.path, "-q")
    assert r.exit_code == 1
    assert "replay diverges at log/000004-turn.yaml (round 1, romans, event 0)" in r.output
    assert "count: 5 -> 4" in r.output


def test_export_import_replay_verify(run, played, tmp_path, fake_engine):
    arc = tmp_path / "t1.tar.gz"
    r = run("export", "t1", "--dir", played.path.parent, "--to", arc)
    assert r.exit_code == 0 and "exported t1" in r.output
    r = run("replay", arc, "-q")
    assert r.exit_code == 0 and "logged dice" in r.output
    r = run("verify-dice", arc)
    assert r.exit_code == 1 and "sealed" in r.output
    r = run("import", arc, "--dir", tmp_path / "elsewhere")
    assert r.exit_code == 0 and "imported t1" in r.output and "replayed, not played on" in r.output
    r = run("import", arc, "--dir", tmp_path / "elsewhere")
    assert r.exit_code == 1 and "exists already" in r.output
    r = run("import", tmp_path / "missing.tar.gz")
    assert r.exit_code == 1 and "no archive" in r.output


def test_reveal_and_verify(run, played, tmp_path):
    games = played.path.parent
    r = run("reveal", "t1", "--dir", games)
    assert r.exit_code == 1 and "not finished" in r.output
    r = run("reveal", "t1", "--dir", games, "--force", "--who", "mod@example.org")
    assert r.exit_code == 0 and "logged as entry" in r.output
    secret = Game.open(played.path).settings["dice"]["revealed_secret"]
    assert secret in r.output
    r = run("verify-dice", "t1", "--dir", games)
    assert r.exit_code == 0 and "every logged die matches" in r.output
    turn = next(e for e in played.entries("turn") if e.get("dice"))
    label, face = next(iter(turn["dice"].items()))
    p = played.path / turn.file
    p.write_text(p.read_text().replace(f"{label}: {face}", f"{label}: {7 - face}"))
    r = run("verify-dice", played.path)
    assert r.exit_code == 1
    assert f"{turn.file}: die {label}: logged {7 - face}, recomputed {face}" in r.output


def test_damaged_game_is_a_message(run, played):
    p = played.path / "game.yaml"
    p.write_text(p.read_text().replace("format: 1", "format: 3"))
    for cmd in (["status"], ["replay"], ["verify-dice"], ["reveal"], ["export", "--to", played.path / "x.tgz"]):
        r = run(cmd[0], played.path, *cmd[1:])
        assert r.exit_code == 1, (cmd, r.output)
        assert "game.yaml: format: unknown format version 3" in r.output and "Traceback" not in r.output


def test_commands_are_registered(run):
    r = run("--help")
    for name in ("new", "status", "replay", "export", "import", "reveal", "verify-dice"):
        assert re.search(rf"^\s+{name}\s", r.output, re.M), name
