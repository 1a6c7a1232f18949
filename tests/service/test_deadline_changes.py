"""Issue 32 item 1 — deadlines that cannot surprise anyone: a past deadline is refused (or meant, with
--past, and mailed); every deadline change is mailed to the players it moves, one mail each; a
replaced player's successor gets their token; a --position game's clock starts at its first run and
its welcome goes out; `pbem moderate --now` dates its entry on the run's clock."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pytest
from jobkit import REPO, T0, body, mails, new_game

from pbem.service import moderator
from pbem.service.job import run_job
from pbem.store.game import Game


@pytest.fixture
def game(tmp_path):
    g = new_game(tmp_path, b"test secret for the deadline tests")
    run_job(tmp_path, now=T0, render_map=False)     # round 1 starts; ann is asked for the Romans
    return g


def cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


def moved(game, player: str | None = None) -> list:
    return [m for m in mails(game.path / "outbox") if "deadline" in body(m) and "your deadline has changed" in body(m)
            and (player is None or m["To"] == game.player(player)["address"])]


def test_a_past_deadline_is_refused(game, tmp_path):
    r = cli("moderate", "t1", "deadline", "2026-11-30T10:00Z", "--dir", str(tmp_path), "--now", "2026-12-01T13:00Z",
            cwd=tmp_path)
    assert r.returncode == 1, r.stdout
    assert "is in the past" in r.stderr and "--past" in r.stderr and "Traceback" not in r.stderr
    assert not [e for e in Game.open(game.path).entries("moderator") if e.get("action") == "deadline"]


def test_a_past_deadline_by_mail_is_refused_too(game):
    text = moderator.from_mail(Game.open(game.path), "DEADLINE 2026-11-30T10:00Z", who="mod", mail_id="x1",
                               now=T0 + timedelta(hours=1))
    assert "is in the past" in text and "PAST" in text


def test_a_past_deadline_with_past_is_set_and_mailed_to_the_player(game, tmp_path):
    r = cli("moderate", "t1", "deadline", "2026-12-01T12:30Z", "--past", "--dir", str(tmp_path),
            "--now", "2026-12-01T13:00Z", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "in the past" in r.stdout
    run_job(tmp_path, now=T0 + timedelta(hours=1, minutes=5), render_map=False)
    mailed = moved(game, "ann")
    assert len(mailed) == 1 and "2026-12-01 12:30 UTC" in body(mailed[0])


def test_moderate_now_dates_the_entry(game, tmp_path):
    r = cli("moderate", "t1", "extend", "24", "--dir", str(tmp_path), "--now", "2026-12-02T09:00Z", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert Game.open(game.path).entries("moderator")[-1].time == "2026-12-02T09:00:00Z"


def test_extend_is_mailed_once_to_the_player_whose_deadline_moved(game, tmp_path):
    cli("moderate", "t1", "extend", "24", "--dir", str(tmp_path), "--now", "2026-12-01T13:00Z", cwd=tmp_path)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    run_job(tmp_path, now=T0 + timedelta(hours=3), render_map=False)
    assert len(moved(game, "ann")) == 1, "one mail, not one per run"
    assert "2026-12-05 12:00 UTC" in body(moved(game, "ann")[0]) and "extended the deadline by 24 hours" in body(
        moved(game, "ann")[0])
    assert [m["To"] for m in moved(game)] == ["ann@x.org"], "players whose deadline did not move are not mailed"


def test_extend_by_mail_is_mailed(game, tmp_path):
    g = Game.open(game.path)
    mod = g.settings["moderator"]
    (g.path / "inbox" / "900.eml").write_text(f"From: {mod['address']}\nSubject: [t1] moderator\n"
                                               f"Message-ID: <mod1@x.org>\n\nTOKEN {mod['token']}\nEXTEND 12 # flu\n")
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    m = moved(game, "ann")
    assert len(m) == 1 and "(flu)" in body(m[0]) and "2026-12-05 00:00 UTC" in body(m[0])


def test_pause_and_resume_are_mailed(game, tmp_path):
    cli("moderate", "t1", "pause", "--dir", str(tmp_path), "--now", "2026-12-01T13:00Z", cwd=tmp_path)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    paused = moved(game, "ann")
    assert len(paused) == 1 and "The game is paused" in body(paused[0])
    cli("moderate", "t1", "resume", "--dir", str(tmp_path), "--now", "2026-12-02T13:00Z", cwd=tmp_path)
    run_job(tmp_path, now=T0 + timedelta(hours=25), render_map=False)
    both = moved(game, "ann")
    assert len(both) == 2 and "2026-12-05 12:00 UTC" in body(both[1]), "72 h from 12:00 plus the day paused"


def test_rollback_is_mailed_to_the_player_asked_again(game, tmp_path):
    from jobkit import send

    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    romans = [e for e in Game.open(game.path).entries("turn") if e.get("nation") == "romans"][0]
    cli("moderate", "t1", "rollback", str(romans.id), "--dir", str(tmp_path), "--now", "2026-12-01T14:00Z", cwd=tmp_path)
    run_job(tmp_path, now=T0 + timedelta(hours=2, minutes=10), render_map=False)
    m = moved(game, "ann")
    assert len(m) == 1 and "rolled the game back" in body(m[0]) and "2026-12-04 14:00 UTC" in body(m[0])
    # new-user run (docs/NEW-USER-RUN.md): it said "to before round 1 romans", the log's ids
    assert "rolled the game back to before the turn of the Romans in round 1" in body(m[0]), body(m[0])


def test_replace_mails_the_new_player_their_token_and_nations(game, tmp_path):
    r = cli("moderate", "t1", "replace", "ann", "eve@x.org", "--dir", str(tmp_path), "--now", "2026-12-01T13:00Z",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    token = Game.open(game.path).player("ann")["token"]
    to_eve = [m for m in mails(game.path / "outbox") if m["To"] == "eve@x.org"]
    welcome = [m for m in to_eve if "you now play" in str(m["Subject"])]
    assert len(welcome) == 1 and f"TOKEN {token}" in body(welcome[0]) and "Romans" in body(welcome[0])
    assert [m for m in to_eve if "your deadline has changed" in body(m) and "2026-12-04 13:00 UTC" in body(m)], \
        "the new player's deadline starts at the handover"


def test_a_position_game_starts_its_clock_at_its_first_run(tmp_path):
    from jobkit import PLAYERS

    from pbem.position.game import new_from_position

    created = T0
    g, _ = new_from_position(tmp_path, "p1", REPO / "tests" / "position" / "round9.yaml", players=4,
                             player_specs=PLAYERS, secret=b"test secret for the position clock", time=created.isoformat())
    first = created + timedelta(hours=100)
    r = run_job(tmp_path, now=first, render_map=False)
    g = Game.open(g.path)
    assert not g.entries("turn") or not any(e.get("nation") for e in g.entries("turn")), r.games[0].steps
    welcomes = [m for m in mails(g.path / "outbox") if "the game starts" in str(m["Subject"])]
    assert len(welcomes) == 4
    from pbem.store.clock import current_deadline

    assert current_deadline(g).due == first + timedelta(hours=72)
