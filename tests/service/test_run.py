"""Issue 11 — the cron job: turn flow, deadlines, prompts, NMR, moderator actions, the demo game."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import timedelta

import pytest
from jobkit import PLAYERS, REPO, T0, body, mails, new_game, send

from pbem.service.job import run_job
from pbem.store.game import Game
from pbem.store.replay import replay


@pytest.fixture
def game(tmp_path):
    return new_game(tmp_path, b"test secret for the job tests")


def test_orders_by_mail_are_answered_and_adjudicated(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)           # round 1 starts; the Romans are prompted
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    r = run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    assert r.mails_in == 1 and r.replies == 1
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae" and g.state.get("kent", "romans")
    out = mails(g.path / "outbox")
    assert any("as read" in body(m) and m["To"] == "ann@x.org" for m in out)
    turn = [m for m in out if "the Romans have played" in str(m["Subject"])]
    assert turn and set(turn[0]["To"].addresses[i].addr_spec for i in range(4)) == {a for _, a in PLAYERS}
    assert any(m["To"] == "di@x.org" and "Belgae" in str(m["Subject"]) for m in out), "the Belgae are prompted"


def test_orders_with_errors_wait_for_a_correction(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n2 Channel -> Devonn", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "romans", "orders with an error are not adjudicated before the deadline"
    reply = [m for m in mails(g.path / "outbox") if m["To"] == "ann@x.org" and "Re:" in str(m["Subject"])][0]
    assert "Did you mean Devon?" in body(reply)


def test_bad_token_is_refused_and_nothing_recorded(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1, token="000000")
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert not g.entries("orders") and g.state.next_nation == "romans"


def test_nmr_at_the_deadline_holds_and_prompts_once(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    prompts = [m for m in mails(game.path / "outbox") if "your orders for the Romans" in str(m["Subject"])]
    assert len(prompts) == 1, "a rerun does not prompt twice"
    run_job(tmp_path, now=T0 + timedelta(hours=61), render_map=False)
    reminders = [m for m in mails(game.path / "outbox") if "Reminder" in str(m["Subject"])]
    assert len(reminders) == 1
    r = run_job(tmp_path, now=T0 + timedelta(hours=73), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation != "romans" or g.state.round > 1
    assert any("no orders at the deadline" in s for s in r.games[0].steps)
    assert g.state.get("english_channel", "romans").armies == 15, "NMR: hold everything"


def test_moderator_pause_by_mail_and_rollback(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    romans_turn = [e for e in g.entries("turn") if e.get("nation") == "romans"][0]
    mod = g.settings["moderator"]
    raw = (f"From: {mod['address']}\nSubject: [t1] moderator\nMessage-ID: <mod1@x.org>\n\n"
           f"TOKEN {mod['token']}\nPAUSE # holiday\n")
    (g.path / "inbox" / "900.eml").write_text(raw)
    r = run_job(tmp_path, now=T0 + timedelta(hours=200), render_map=False)
    assert r.games[0].note == "paused"
    g = Game.open(game.path)
    assert g.paused and g.state.next_nation == "belgae"
    from pbem.service import moderator

    moderator.rollback(g, "mod", "wrong orders", romans_turn.id)
    g = Game.open(game.path)
    assert g.state.next_nation == "romans" and not g.state.get("kent", "romans")
    assert [e.get("action") for e in g.entries("moderator")][-1] == "rollback"
    assert replay(g.path).ok, "the log with a rollback replays"


def test_busy_game_is_skipped(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    g = Game.open(game.path)
    code = (f"import time; from pbem.store.game import Game; g = Game.open({str(game.path)!r});\n"
            "with g.lock():\n    print('locked', flush=True); time.sleep(20)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        r = run_job(tmp_path, now=T0 + timedelta(hours=100), render_map=False)
        assert "busy" in r.games[0].note
    finally:
        proc.kill()
        proc.wait()
    assert Game.open(g.path).state.next_nation == "romans"


def test_readme_main_command_on_a_copy_of_the_demo(tmp_path):
    """The README's first command, verbatim (after the install step), on a copy of games/."""
    shutil.copytree(REPO / "games", tmp_path / "games", ignore=shutil.ignore_patterns("*.lock", ".log-index.json*"))
    readme = (REPO / "README.md").read_text()
    assert "pbem run games" in readme
    done = subprocess.run([sys.executable, "-m", "pbem", "run", "games"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "games" / "demo" / "outbox"
    sent = mails(out)
    assert sum("Re:" in str(m["Subject"]) for m in sent) == 3, "each waiting order mail is answered"
    assert any(m.get_content_type() == "multipart/mixed" and any(p.get_filename() == "map.png" for p in m.iter_attachments())
               for m in sent), "turn mails carry the map"
    reports = sorted((out / "reports").glob("*/report.txt"))
    assert len(reports) == 3 and all((p.parent / "map.png").stat().st_size > 10_000 for p in reports)
    assert replay(tmp_path / "games" / "demo").ok


def test_demo_game_replays():
    shutil_ok = (REPO / "games" / "demo" / "game.yaml").is_file()
    assert shutil_ok
    assert replay(REPO / "games" / "demo").ok


def test_wait_mode_asks_the_defender_before_the_battle(game, tmp_path):
    """ORDERS.md: a decision without a standing order waits for the player when the settings say so."""
    g = Game.open(game.path)
    g.settings["options"]["decisions"] = "wait"
    g.settings["deadlines"]["decision_hours"] = 24
    g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "romans", "the Romans wait for the Belgae's retreat decision"
    asked = [m for m in mails(g.path / "outbox") if "retreat decision" in str(m["Subject"])]
    assert len(asked) == 1 and asked[0]["To"] == "di@x.org"
    assert "DEFEND Kent: HOLD" in body(asked[0]) and "RETREAT TO" in body(asked[0])
    send(game, "di", "NATION Belgae\nDEFEND Kent: HOLD", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    assert Game.open(game.path).state.next_nation != "romans", "answered: the turn is played"


def test_wait_mode_default_applies_at_the_decision_deadline(game, tmp_path):
    g = Game.open(game.path)
    g.settings["options"]["decisions"] = "wait"
    g.settings["deadlines"]["decision_hours"] = 24
    g.save_settings()
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    assert Game.open(game.path).state.next_nation == "romans"
    run_job(tmp_path, now=T0 + timedelta(hours=26), render_map=False)
    assert Game.open(game.path).state.next_nation != "romans"


def test_nmr_is_counted_per_player_in_the_report(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    run_job(tmp_path, now=T0 + timedelta(hours=73), render_map=False)
    texts = [body(m) for m in mails(game.path / "outbox") if "have played" in str(m["Subject"])]
    assert texts and "Missed deadlines so far (NMR, turns played for the player): ann 1" in texts[0]
    # issue 30 item 7: with the scores (a count per player over the game), not under NEXT
    scores, nxt = texts[0].index("\nSCORES\n"), texts[0].index("\nNEXT: ")
    assert scores < texts[0].index("Missed deadlines") < nxt


def test_orders_for_a_later_nation_are_checked_when_its_turn_comes(game, tmp_path):
    """Orders sent early are not judged against a position their turn will not start from; when the
    turn comes they are checked, and the player is asked to correct what the rules refuse."""
    run_job(tmp_path, now=T0, render_map=False)
    # the Belgae (after the Romans) send orders early: Kent will be Roman by then
    send(game, "di", "NATION Belgae\n1 Essex -> Kent -> Sussex", 1)
    r = run_job(tmp_path, now=T0 + timedelta(minutes=5), render_map=False)
    first = [m for m in mails(game.path / "outbox") if m["To"] == "di@x.org" and "Re:" in str(m["Subject"])][0]
    assert "ERROR" not in body(first), "not judged before the Belgae's turn"
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 2)
    run_job(tmp_path, now=T0 + timedelta(minutes=10), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae", "the Belgae's orders wait for a correction"
    ask = [m for m in mails(g.path / "outbox") if "please correct" in str(m["Subject"])]
    assert len(ask) == 1 and ask[0]["To"] == "di@x.org" and "enemy-stop" in body(ask[0])
    assert r.replies == 1


def test_moderator_mail_read_twice_acts_once(game, tmp_path):
    """A rerun after a crash inside the handler reads the same mail again: nothing happens twice, and
    the answer is the one the first reading gave (issue 27 item 11: it was "done already")."""
    from pbem.service import moderator

    g = Game.open(game.path)
    before = moderator.current_deadline(g).due
    text = "EXTEND 24 # holiday\n"
    first = moderator.from_mail(g, text, who="mod@x.org", mail_id="abc123", now=T0)
    answer = moderator.from_mail(Game.open(game.path), text, who="mod@x.org", mail_id="abc123", now=T0)
    assert answer == first and "Deadline extended by 24 hours" in answer
    assert moderator.current_deadline(Game.open(game.path)).due - before == timedelta(hours=24)


def test_first_turn_mail_publishes_the_dice_commitment(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    first = [m for m in mails(g.path / "outbox") if "have played" in str(m["Subject"])][0]
    assert g.commitment in body(first)


def test_turn_entry_records_the_orders_entries_it_used(game, tmp_path):
    """Issue 15 — a turn entry names the orders entries its orders came from."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    [orders] = [e for e in g.entries("orders") if e.get("nation") == "romans"]
    [turn] = [e for e in g.entries("turn") if e.get("nation") == "romans"]
    assert turn["orders"]["romans"]["entries"] == [orders.id]
    assert replay(g.path).ok


def test_orders_for_a_later_nation_are_checked_against_todays_position(game, tmp_path):
    """Issue 15 — the Belgae write before the Romans have moved: checked now, and the reply says so."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "di", "NATION Belgae\nWITHDRAW Essex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    reply = [body(m) for m in mails(game.path / "outbox") if m["To"] == "di@x.org" and "as read" in body(m)]
    assert reply and "not-your-unit" in reply[0] and "checked against today's position" in reply[0].lower()
