"""Issue 22 — moving a running game over: `pbem new --position`, `pbem export --position`, the game
played on from the typed position (bots to the end), replayed and its dice verified from it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.bots import bot_orders
from pbem.cli import cli
from pbem.position.file import read_position
from pbem.position.game import export_position, new_from_position
from pbem.rules.flow import votes_owed
from pbem.rules.legal import vote_options
from pbem.service.play import play_turn
from pbem.store.dicecheck import verify_dice
from pbem.store.game import Game, create_game
from pbem.store.replay import replay

ROUND9 = Path(__file__).parent / "round9.yaml"
SECRET = bytes(range(32))


def bots_play(game: Game, steps: int | None = None) -> None:
    """Every nation played by the greedy bot through the store (each step a logged `turn` entry)."""
    rs = game.ruleset()
    n = 0
    while not game.state.finished and (steps is None or n < steps):
        st = game.state
        if st.next_nation is None:
            voters = sorted(vote_options(rs, st)) if votes_owed(rs, st) else []
            play_turn(game, step="start_round",
                      orders={v: bot_orders(rs, st, v, seed=f"{game.id}/{st.round}") for v in voters})
        else:
            nation = st.next_nation
            play_turn(game, nation, orders={nation: bot_orders(rs, st, nation, seed=f"{game.id}/{st.round}")})
        n += 1


def collect(sent: list):
    """A `send` that keeps each mail as a modern EmailMessage (the runner may hand over stored bytes)."""
    import email
    from email import policy

    return lambda m: sent.append(email.message_from_bytes(bytes(m), policy=policy.default))


def same_position(a, b) -> bool:
    da, db = a.to_dict(), b.to_dict()
    for d in (da, db):
        d.pop("game")
        d.pop("ledger")
    return da == db


def test_round9_position_played_to_the_end_by_bots_replays_and_verifies(tmp_path):
    game, pos = new_from_position(tmp_path, "moved", ROUND9, secret=SECRET)
    created = game.entry(1)
    assert created["start"] == "position round9.yaml"
    assert created["position"] == ROUND9.read_text(encoding="utf-8")
    assert game.state.round == 9 and game.state.next_nation == "picts"
    assert game.state.vp["brigantes"] == 42 and sum(e["points"] for e in game.state.ledger) == sum(game.state.vp.values())
    bots_play(game)
    assert game.state.finished and game.state.round == 16
    turns = [e for e in game.entries() if e.kind == "turn"]
    assert turns[0]["round"] == 9 and turns[0]["nation"] == "picts"
    report = replay(game.path)
    assert report.ok, report.summary()
    dice = verify_dice(game)
    assert dice.ok, dice.summary()


def test_round_trip_export_then_new_gives_the_same_position(tmp_path):
    game, _ = new_from_position(tmp_path, "first", ROUND9, secret=SECRET)
    text = export_position(game)
    again = read_position(text, label="export.yaml", game="first")
    assert again.state.to_dict() == game.state.to_dict()   # the ledger too: one "imported" entry per nation
    (tmp_path / "export.yaml").write_text(text, encoding="utf-8")
    second, _ = new_from_position(tmp_path, "second", tmp_path / "export.yaml", secret=SECRET)
    assert same_position(second.state, game.state)
    assert export_position(second).replace("second", "first") == text


def test_round_trip_of_a_game_played_from_the_start(tmp_path):
    """Any game's position (scores, saved counts, forts built, leaders, raiders at sea ...) survives the trip."""
    game = create_game(tmp_path, "orig", secret=SECRET)
    for steps in (25, 40):   # round 2-3, then further on
        bots_play(game, steps)
        path = tmp_path / f"at{steps}.yaml"
        path.write_text(export_position(game), encoding="utf-8")
        moved, _ = new_from_position(tmp_path, f"moved{steps}", path, secret=SECRET)
        assert same_position(moved.state, game.state)
        assert sum(moved.state.vp.values()) == sum(game.state.vp.values())


def test_end_of_round_due_is_played_first_and_replays(tmp_path):
    text = ROUND9.read_text(encoding="utf-8").replace("nation: Picts\nstart: nation_turn", "start: end_of_round")
    path = tmp_path / "end.yaml"
    path.write_text(text, encoding="utf-8")
    game, pos = new_from_position(tmp_path, "closing", path, secret=SECRET)
    assert pos.start == "end_of_round"
    assert game.entry(2)["step"] == "end_round" and game.state.round == 10 and game.state.next_nation is None
    assert replay(game.path).ok


def test_round_start_position(tmp_path):
    text = ROUND9.read_text(encoding="utf-8").replace("nation: Picts\nstart: nation_turn", "start: round_start")
    path = tmp_path / "start.yaml"
    path.write_text(text, encoding="utf-8")
    game, _ = new_from_position(tmp_path, "opening", path, secret=SECRET)
    assert game.state.round == 9 and game.state.next_nation is None
    assert votes_owed(game.ruleset(), game.state)   # round 9: the Bretwalda vote (12.1)
    bots_play(game, 3)
    assert replay(game.path).ok


def test_first_mail_shows_the_imported_position_once(tmp_path):
    from pbem.service.advance import advance

    game, _ = new_from_position(tmp_path, "mailed", ROUND9, secret=SECRET,
                                player_specs=[("ann", "ann@example.org"), ("ben", "ben@example.org")])
    sent = []
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    advance(game, now, collect(sent), outbox=tmp_path / "out", render_map=True)
    first = sent[0]
    assert "the imported position" in first["Subject"]
    assert "ann@example.org" in first["To"] and "ben@example.org" in first["To"]
    body = first.get_body(("plain",)).get_content()
    assert "THE POSITION AS IMPORTED (round 9, the Picts to move)" in body
    assert "Strathclyde: {Picts: 2}" in body and "Brigantes 42" in body
    names = [p.get_filename() for p in first.iter_attachments()]
    assert names[:2] == ["map.png", "position.yaml"]
    welcome = [m for m in sent if "the game starts" in m["Subject"]]
    assert sorted(m["To"] for m in welcome) == sorted(p["address"] for p in game.players())   # each their token
    ann = next(m for m in welcome if m["To"] == "ann@example.org").get_body(("plain",)).get_content()
    assert "continues here by mail, from round 9" in ann and game.player("ann")["token"] in ann
    n = len(sent)
    advance(Game.open(game.path), now, collect(sent), outbox=tmp_path / "out", render_map=False)
    assert not any("the imported position" in m["Subject"] for m in sent[n:])


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_cli_new_and_export_position(tmp_path, run):
    r = run("new", "cli", "--position", ROUND9, "--dir", tmp_path)
    assert r.exit_code == 0, r.output
    assert "round 9, the Picts to move" in r.output
    r = run("export", "cli", "--position", tmp_path / "out.yaml", "--dir", tmp_path)
    assert r.exit_code == 0, r.output
    assert "round: 9" in (tmp_path / "out.yaml").read_text(encoding="utf-8")
    r = run("export", "cli", "--position", "-", "--dir", tmp_path)
    assert r.output.startswith("# A Britannia position")
    r = CliRunner().invoke(cli, ["export", "cli", "--dir", str(tmp_path)])
    assert r.exit_code != 0 and "--position FILE" in r.output


def test_cli_new_refuses_a_bad_position_naming_the_line(tmp_path, run):
    bad = tmp_path / "bad.yaml"
    text = ROUND9.read_text(encoding="utf-8").replace("Kent: {Saxons: 1}", "Kent: {Romans: 1}")
    bad.write_text(text, encoding="utf-8")
    line = text.splitlines().index("  Kent: {Romans: 1}") + 1
    r = run("new", "bad", "--position", bad, "--dir", tmp_path / "games")
    assert r.exit_code == 1
    assert f"{bad}:{line}: setup.Kent.Romans: the Romans leave at the start of round 6" in r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "games" / "bad").exists()


def test_cli_new_prints_warnings(tmp_path, run):
    odd = tmp_path / "odd.yaml"
    odd.write_text(ROUND9.read_text(encoding="utf-8").replace("vp: {Angles: 18,", "vp: {Angles: -2,"), encoding="utf-8")
    r = run("new", "odd", "--position", odd, "--dir", tmp_path / "games")
    assert r.exit_code == 0
    assert "warning:" in r.output and "-2 victory points" in r.output


def test_round_trip_keeps_every_record():
    """Standing orders, subjects, permissions, Kings, dead leaders and the Danish shortfall survive."""
    from pbem.data.loader import load
    from pbem.position.write import position_text

    rs = load("classic")
    state = read_position(ROUND9.read_text(encoding="utf-8"), label="r9").state
    state.standing = {"welsh": {"defend:gwent": {"type": "defend", "area": "gwent", "mode": "hold", "text": "DEFEND Gwent: HOLD"}}}
    state.subjects = {"belgae": "romano_british"}
    state.extras["roman_permission"] = {"belgae"}   # the classic hooks' records (GameState.extras)
    state.kings = ["saxons"]
    state.bretwalda = "brigantes"
    state.raided_from = {"scots": "irish_sea"}
    state.captured["saxons"] = {"kent"}
    state.extras["danes_withdraw_shortfall"] = 2
    back = read_position(position_text(rs, state), label="again", game=state.game).state
    assert back.to_dict() == state.to_dict()


def test_replay_check_start_reads_the_typed_position_again(tmp_path):
    """`pbem replay --check-start` of a moved game compares its start with the position text it was made
    from (not the rule-book start); a start edited afterwards (hash made to match) is caught."""
    from pbem.rules.turn import new_game_state
    from pbem.store.hashing import state_hash
    from pbem.store.yamlio import dump_yaml, load_plain

    game, _ = new_from_position(tmp_path, "checked", ROUND9, secret=SECRET)
    bots_play(game, 3)
    report = replay(game.path, start=new_game_state)
    assert report.ok, report.summary()
    assert any("typed-in position" in n for n in report.notes)
    path = game.path / "log" / "000001-created.yaml"
    data = load_plain(path)
    data["state"]["vp"]["picts"] = 99
    data["state_hash"] = state_hash(data["state"])
    path.write_text(dump_yaml(data), encoding="utf-8")
    report = replay(Game.open(game.path).path, start=new_game_state)
    assert not report.ok
    assert "not the typed-in position" in report.summary()


def test_moderator_corrects_the_imported_position(tmp_path, run):
    """A player finds a mistake in the imported position: `pbem moderate GAME position FILE` replaces it
    (a moderator entry replay adopts), and everyone is mailed the corrected position to confirm."""
    from pbem.service.advance import advance

    games = tmp_path / "games"
    new_from_position(games, "fixed", ROUND9, secret=SECRET)
    sent = []
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    advance(Game.open(games / "fixed"), now, collect(sent), render_map=False)
    assert sum("the imported position" in m["Subject"] for m in sent) == 1
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(ROUND9.read_text(encoding="utf-8").replace("Strathclyde: {Picts: 2}", "Strathclyde: {Picts: 3}"),
                     encoding="utf-8")
    r = run("moderate", "fixed", "position", fixed, "--dir", games, "--why", "Strathclyde had 3 Picts")
    assert r.exit_code == 0, r.output
    game = Game.open(games / "fixed")
    assert game.state.get("strathclyde", "picts").armies == 3
    entry = game.entries("moderator")[-1]
    assert entry["action"] == "position" and entry["why"] == "Strathclyde had 3 Picts"
    advance(game, now, collect(sent), render_map=False)
    again = [m for m in sent if "the imported position" in m["Subject"]]
    assert len(again) == 2
    body = again[1].get_body(("plain",)).get_content()
    assert "corrected the position" in body and "Strathclyde: {Picts: 3}" in body
    bots_play(game, 2)
    assert replay(game.path).ok
    bad = tmp_path / "bad.yaml"
    bad.write_text("round: 9\nnation: Picts\nsetup: {Alban: {Picts: -1}}\n", encoding="utf-8")
    r = run("moderate", "fixed", "position", bad, "--dir", games)
    assert r.exit_code == 1 and "armies cannot be negative" in r.output


def test_selfplay_from_a_typed_position_checks_every_step(run):
    """`pbem selfplay --position FILE --check`: bots play from round 9 to the end, the invariants hold."""
    r = run("selfplay", "--games", "2", "--position", ROUND9, "--check")
    assert r.exit_code == 0, r.output
    assert "Invariants: checked after every step, no violation." in r.output
    assert "parser 0, validate 0, engine 0" in r.output


def test_cli_dry_run_checks_and_creates_nothing(tmp_path, run):
    r = run("new", "dry", "--position", ROUND9, "--dry-run", "--dir", tmp_path)
    assert r.exit_code == 0, r.output
    assert "a valid position: round 9, the Picts to move" in r.output and "nothing created" in r.output
    assert not (tmp_path / "dry").exists()
