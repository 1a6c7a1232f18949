"""Issue 32 items 2 and 3 — time zones (every deadline a player reads in their zone with UTC beside
it; reminders in their day) and absences (AWAY by mail: deadlines pushed, or the bot plays, the
moderator told, `pbem status` shows it), each with the clock set by --now."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from jobkit import REPO, T0, body, mails, new_game, send

from pbem.service.job import run_job
from pbem.store.clock import current_deadline, remind_time, zone_named
from pbem.store.game import Game
from pbem.store.yamlio import SaveError


@pytest.fixture
def game(tmp_path):
    return new_game(tmp_path, b"test secret for the zone tests")


def set_zone(game, player: str, zone: str) -> None:
    g = Game.open(game.path)
    g.player(player)["timezone"] = zone
    g.save_settings()


def to(game, player: str, words: str) -> list:
    return [m for m in mails(game.path / "outbox") if m["To"] == game.player(player)["address"]
            and words in str(m["Subject"]) + body(m)]


def test_the_prompt_gives_the_deadline_in_the_players_zone(game, tmp_path):
    set_zone(game, "ann", "Europe/Moscow")
    run_job(tmp_path, now=T0, render_map=False)
    prompt = to(game, "ann", "your orders for the Romans")[0]
    assert "Deadline: 2026-12-04 15:00 Moscow time (12:00 UTC)" in body(prompt)
    welcome = to(game, "ann", "the game starts")[0]
    assert "2026-12-04 15:00 Moscow time (12:00 UTC)" in body(welcome)
    assert "2026-12-04 12:00 UTC" in body(to(game, "bob", "the game starts")[0]), "no zone: UTC alone"


def test_the_reply_and_the_turn_mail_use_the_zone(game, tmp_path):
    set_zone(game, "ann", "America/New_York")
    set_zone(game, "di", "Asia/Tokyo")
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    reply = [m for m in to(game, "ann", "Re:")][0]
    assert "New York time" in body(reply)
    turn = [m for m in mails(game.path / "outbox") if "the Romans have played" in str(m["Subject"])][0]
    assert "Deadline: 2026-12-04 22:00 Tokyo time (13:00 UTC)" in body(turn), "in the zone of the Belgae's player"


def test_timezone_by_mail_and_a_wrong_name_gets_a_did_you_mean(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "TIMEZONE Europe/Moscw", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    assert "did you mean Europe/Moscow?" in body(to(game, "ann", "Re:")[0])
    assert "timezone" not in Game.open(game.path).player("ann")
    send(game, "ann", "TIMEZONE Europe/Moscow", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    assert Game.open(game.path).player("ann")["timezone"] == "Europe/Moscow"
    assert "Moscow time (12:00 UTC)" in body(to(game, "ann", "Re:")[-1])


def test_a_wrong_zone_in_game_yaml_is_refused(game):
    path = game.path / "game.yaml"
    path.write_text(path.read_text().replace("    address: ann@x.org", "    address: ann@x.org\n    timezone: Europe/Moscw"))
    with pytest.raises(SaveError, match="did you mean Europe/Moscow"):
        Game.open(game.path)


def test_a_reminder_in_the_players_night_comes_the_morning_before(game, tmp_path):
    """The deadline is 2026-12-04 12:00 UTC; 12 h before is 00:00 UTC, 09:00 in Tokyo (kept), 03:00
    in Moscow (moved to 08:00 Moscow time the day before)."""
    set_zone(game, "ann", "Europe/Moscow")
    run_job(tmp_path, now=T0, render_map=False)
    d = current_deadline(Game.open(game.path))
    assert remind_time(d, zone_named("Asia/Tokyo")) == d.remind_at
    assert remind_time(d, zone_named("Europe/Moscow")) == datetime(2026, 12, 3, 5, 0, tzinfo=UTC)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)   # nothing to do: the game is noted idle
    run_job(tmp_path, now=datetime(2026, 12, 3, 5, 10, tzinfo=UTC), render_map=False)
    assert len(to(game, "ann", "Reminder")) == 1, "the idle note wakes the game for the moved reminder"


def test_a_players_consecutive_nations_are_asked_in_one_prompt(game, tmp_path):
    g = Game.open(game.path)
    for p in g.settings["players"]:     # di plays the Belgae and the Welsh, who move one after the other
        p["nations"] = ["picts" if n == "welsh" else "welsh" if n == "picts" else n for n in p["nations"]]
    g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    asked = [m for m in to(game, "di", "your orders for the") if "Re:" not in str(m["Subject"])]
    assert [str(m["Subject"]) for m in asked] == ["[t1] your orders for the Belgae, Welsh"]


def absent(game, tmp_path, policy: str | None = None, line: str = "AWAY 2026-12-02 TO 2026-12-05") -> None:
    if policy:
        g = Game.open(game.path)
        g.settings.setdefault("options", {})["away"] = policy
        g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", line, 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)


def test_away_pushes_the_deadline_and_the_moderator_is_told(game, tmp_path):
    absent(game, tmp_path)
    assert "Absence taken: 4 day(s)" in body(to(game, "ann", "Re:")[0])
    g = Game.open(game.path)
    assert current_deadline(g).due == datetime(2026, 12, 8, 12, tzinfo=UTC), \
        "the 4 days away (Dec 2 00:00 to Dec 6 00:00) are added to the deadline, as a pause would be"
    told = [m for m in mails(g.path / "outbox") if m["To"] == g.settings["moderator"]["address"]]
    assert len(told) == 1 and "ann will be away 4 day(s)" in body(told[0])
    r = run_job(tmp_path, now=datetime(2026, 12, 5, 12, tzinfo=UTC), render_map=False)
    assert Game.open(game.path).state.next_nation == "romans", r.games[0].steps


def test_away_with_the_bot_policy_plays_the_nation_marked_in_the_turn_mail(game, tmp_path):
    absent(game, tmp_path, "bot")
    r = run_job(tmp_path, now=datetime(2026, 12, 2, 9, tzinfo=UTC), render_map=False)
    assert Game.open(game.path).state.next_nation != "romans", r.games[0].steps
    turn = [m for m in mails(game.path / "outbox") if "the Romans have played" in str(m["Subject"])][0]
    assert "played by their standing orders and the bot: their player ann is away" in body(turn)


def test_away_beyond_the_yearly_limit_is_refused(game, tmp_path):
    absent(game, tmp_path, line="AWAY 2026-12-02 TO 2027-01-20")
    assert "NOT taken" in body(to(game, "ann", "Re:")[0]) and "more than this game's 30" in body(to(game, "ann", "Re:")[0])
    assert not [e for e in Game.open(game.path).entries("moderator") if e.get("action") == "away"]


def test_status_shows_the_absence(game, tmp_path):
    absent(game, tmp_path)
    r = subprocess.run([sys.executable, "-m", "pbem.cli", "status", str(game.path), "--now", "2026-12-03T10:00Z"],
                       capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert "absences: ann away now: 2026-12-02 to 2026-12-05 (push)" in r.stdout


def test_the_away_settings_are_known_keys_with_checked_values(game):
    path = game.path / "game.yaml"
    text = path.read_text()
    assert "reminder_hours: 12" in text and "nmr: hold" in text
    path.write_text(text.replace("reminder_hours: 12", "reminder_hours: 12\n  away_days: 10")
                    .replace("nmr: hold", "nmr: hold\n  away: bot"))
    g = Game.open(game.path)
    assert g.settings["options"]["away"] == "bot"
    path.write_text(path.read_text().replace("away: bot", "away: skip"))
    with pytest.raises(SaveError, match="'skip' is not one of: push, bot"):
        Game.open(game.path)


def test_a_wrong_zone_is_read_back_as_an_error_not_ok(game, tmp_path):
    """Found in the new-user run (docs/NEW-USER-RUN.md): `TIMEZONE Europe/Mosow` was answered
    "NOT taken" at the top of the reply and read back `OK` in the lines below it; `pbem check`
    (the reply the mail gets) said nothing wrong. The line is an ERROR with its did-you-mean, in the
    reply and in `pbem check` alike."""
    from click.testing import CliRunner

    from pbem.cli import cli

    run_job(tmp_path, now=T0, render_map=False)
    text = "NATION Belgae\nPASS\nTIMEZONE Europe/Mosow\n"
    (tmp_path / "o.txt").write_text(f"TOKEN {game.player('di')['token']}\n{text}")
    check = CliRunner().invoke(cli, ["check", "--game", str(game.path), "--nation", "belgae", str(tmp_path / "o.txt")])
    send(game, "di", text.rstrip("\n"), 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    answer = body(to(game, "di", "Re:")[0])
    assert 'line   4  ERROR  "TIMEZONE Europe/Mosow"' in answer and "did you mean Europe/Moscow?" in answer, answer
    assert "OK     TIMEZONE" not in answer
    assert answer.startswith(check.output.rstrip("\n")), (answer, check.output)
