"""Issue 19 — what a player needs to write orders right the first time: mails in, replies and
prompts out (greetings ignored, the grammar once, ODDS answered, paths to write, what the turn
brings, the players' guide attached to every prompt)."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import timedelta

import jobkit
import pytest
from jobkit import PLAYERS, REPO, T0, body, mails, new_game

from pbem.service.job import run_job
from pbem.store.game import Game


@pytest.fixture
def game(tmp_path):
    return new_game(tmp_path, b"ux test secret for the players")


def send(game: Game, player: str, text: str, n: int) -> None:
    jobkit.send(game, player, text, n, id_prefix="ux")


def replies_to(game: Game, addr: str) -> list[str]:
    return [body(m) for m in mails(game.path / "outbox") if m["To"] == addr and "Re:" in str(m["Subject"])]


def test_greetings_and_sign_offs_are_ignored_and_said_so(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "Hi, here are my orders!\nNATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex\n"
                      "cheers\nAnn\n\nSent from my iPhone", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae", "the orders were taken and played"
    text = replies_to(g, "ann@x.org")[0]
    assert "Not read as orders" in text
    for chat in ("Hi, here are my orders!", "cheers", "Ann", "Sent from my iPhone"):
        assert f'"{chat}"' in text
    assert "ERROR" not in text and "Romans: taken (2 lines OK)" in text


def test_the_grammar_is_shown_once_per_reply(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\nwe go 4 now\nand 3 later too\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    text = replies_to(Game.open(game.path), "ann@x.org")[0]
    assert text.count("this line is not an order") == 2
    assert text.count("SUBMIT TO <nation>") == 1, "the forms of an order line are listed once"
    assert "The forms of an order line" in text


def test_odds_lines_are_answered_not_read_as_orders(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\nODDS 1 VS 1\nODDS 4 LEADER VS 1 IN Kent\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    text = replies_to(Game.open(game.path), "ann@x.org")[0]
    assert "BATTLE ODDS" in text
    assert re.search(r"attacker takes the area\s+40\.0 %", text) and re.search(r"both eliminated\s+20\.0 %", text)
    assert "ERROR" not in text


def test_prompt_says_what_the_turn_brings_and_attaches_the_guide(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    out = mails(Game.open(game.path).path / "outbox")
    rome = [m for m in out if m["To"] == "ann@x.org" and "your orders for the Romans" in str(m["Subject"])][0]
    belgae = [m for m in out if m["To"] == "di@x.org" and "your orders for the Belgae" in str(m["Subject"])][0]
    for m in (rome, belgae):
        names = [p.get_filename() for p in m.iter_attachments()]
        assert "PLAYERS.md" in names, "every prompt carries the players' guide"
        assert "Players' guide" in body(m)
    assert "New armies: none (the Romans do not increase population" in body(rome)
    b = body(belgae)
    assert re.search(r"New armies: \d+ \(population count", b) and "PLACE them in:" in b
    assert "Leader arriving: Boudicca" in b, "the arriving leader is named"
    # farther destinations come with the path to write
    assert re.search(r"1 army in Essex: .*Essex -> Suffolk -> Norfolk", b)


def test_a_move_to_a_reachable_area_that_is_not_next_door_gets_the_path(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    send(game, "di", "NATION Belgae\n1 Essex -> Norfolk", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    text = replies_to(Game.open(game.path), "di@x.org")[0]
    assert "not-adjacent" in text and "write: 1 Essex -> Suffolk -> Norfolk" in text


def test_place_without_new_armies_and_overpopulation_are_warned(rs_classic):
    from pbem.orders.check import check_orders
    from pbem.orders.reply import order_warnings
    from pbem.rules.state import GameState, Stack

    st = GameState(game="w", round=2, next_nation="welsh")
    st.areas = {"powys": {"welsh": Stack(1)}, "gwent": {"welsh": Stack(1)}, "dyfed": {"welsh": Stack(1)}}
    result = check_orders("PLACE Powys\n", rs_classic, st, nation="welsh")
    notes = order_warnings(result, rs_classic, st, "welsh")
    assert result.ok and any("no new armies this turn" in n and "PLACE Powys" in n for n in notes), notes

    st = GameState(game="w", round=2, next_nation="brigantes")
    st.areas = {"york": {"brigantes": Stack(2)}, "cheshire": {"brigantes": Stack(1)}, "march": {"brigantes": Stack(1)}}
    result = check_orders("1 Cheshire -> York\n1 March -> York\n", rs_classic, st, nation="brigantes")
    notes = order_warnings(result, rs_classic, st, "brigantes")
    assert result.ok and any("overpopulation (rule 6.0)" in n and "York" in n for n in notes), notes


@pytest.fixture(scope="module")
def rs_classic():
    from pbem.data.loader import load

    return load("classic")


def test_dice_recipe_in_the_players_guide_checks_a_logged_die(tmp_path):
    """Section 8 of docs/PLAYERS.md runs as written, without pbem, on the demo game's logged dice."""
    guide = (REPO / "docs" / "PLAYERS.md").read_text()
    code = guide.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 10
    script = tmp_path / "dice.py"
    script.write_text(code)
    demo = REPO / "games" / "demo"
    secret = (demo / "secret").read_text().strip()
    commitment = re.search(r"commitment:\s*([0-9a-f]{64})", (demo / "game.yaml").read_text())[1]
    logged = re.findall(r"label: (\S+)\n\s+face: (\d)", "".join(p.read_text() for p in sorted((demo / "log").glob("*turn.yaml"))))
    assert logged
    labels = [lab for lab, _ in logged[:5]]
    out = subprocess.run([sys.executable, "-I", str(script), secret, commitment, *labels], capture_output=True,
                         text=True, check=True).stdout
    for lab, face in logged[:5]:
        assert f"{lab} {face}" in out
    assert "commitment OK" in out
    bad = subprocess.run([sys.executable, "-I", str(script), secret, "0" * 64], capture_output=True, text=True)
    assert bad.returncode != 0


def test_docs_ship_in_the_repository_and_point_nowhere_outside():
    for name in ("README.md", "docs/PLAYERS.md", "docs/MODERATORS.md", "docs/ARCHITECTURE.md", "docs/CASES.md"):
        text = (REPO / name).read_text()
        assert "../shared" not in text and "shared/spec" not in text and "/work/" not in text, name
    readme = (REPO / "README.md").read_text()
    assert "python3 -m venv" in readme and "3.11" in readme
    assert "docs/PLAYERS.md" in readme and "docs/MODERATORS.md" in readme
    guide = (REPO / "docs" / "PLAYERS.md").read_text()
    for form in ("PLACE", "LEADER", "STAY", "SECOND MOVEMENT", "BATTLES", "ATTACK", "WITHDRAW", "SETTLE",
                 "DISBAND", "VOTE", "SUBMIT TO", "ALLOW", "PASS", "DEFEND", "CLEAR DEFEND", "LOSSES", "ODDS"):
        assert form in guide, form
    for t in (REPO / "templates").glob("*.j2"):
        assert "shared" not in t.read_text(), t


def test_rules_show_explains_its_sources():
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "rules", "show"], capture_output=True, text=True,
                         cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout
    legend = out.split("Sources named in the doubts:", 1)[1]
    for tag in ("seed 001", "FFG", "Fantasy Flight Games", "A, B, C", "Avalon Hill"):
        assert tag in legend, tag


def test_battle_report_explains_each_die_and_names_the_dice_labels():
    """Rule 8.0 / 9.2 / 10.4 in the report: what a die needed, hits, who lost what; the label pattern
    is right even when the attacker's name starts with 'b' (the Belgae)."""
    from pbem.report.facts import label_pattern

    assert label_pattern("g/r1/belgae/hwicce/b1/belgae/d0") == "g/r1/belgae/hwicce/b<round>/<side>/d<die>"
    assert label_pattern("g/r9/saxons/bernicia/c2/b3/britons/d4") == "g/r9/saxons/bernicia/c2/b<round>/<side>/d<die>"
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "report", str(REPO / "games" / "demo"), "--round", "1",
                          "--nation", "romans"], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout
    assert "A die kills an army on 5 or 6" in out
    assert re.search(r"Romans roll [1-6 ]+, kills on 6 \(defenders in hiland\): \d hits?, the Welsh lose", out)
    assert "kills on 6 (Roman armies)" in out
    assert "dice labels: demo/r1/romans/devon/b<round>/<side>/d<die>" in out


def test_each_nation_of_a_mail_is_answered_on_its_own(game, tmp_path):
    """A mail with orders for a nation of the player and one that is not: the first is taken (and
    played), the second refused, and the reply says exactly that, per nation."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex\nNATION Belgae\n1 Essex -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae", "the Romans' orders were taken and played"
    text = replies_to(g, "ann@x.org")[0]
    assert "Romans: taken (2 lines OK)." in text
    assert "Belgae: NOT taken: you do not control the Belgae." in text
    assert "Send the corrected orders for the whole turn again" not in text
    # the same Romans' orders again: the reply says they wait for the next round
    send(game, "ann", "NATION Romans\n2 Kent -> Essex", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    text = replies_to(Game.open(game.path), "ann@x.org")[-1]
    assert "The Romans have already played round 1: these orders wait for their turn in round 2." in text


def test_a_plain_txt_order_file_in_the_documented_form_is_answered_and_played(game, tmp_path):
    """docs/PLAYERS.md section 1: a UTF-8 .txt file whose first line is `From: <address>`."""
    run_job(tmp_path, now=T0, render_map=False)
    p = game.player("ann")
    (game.path / "inbox" / "romans.txt").write_text(
        f"From: {p['address']}\nGAME t1\nNATION Romans\nTOKEN {p['token']}\n4 Channel -> Kent\n4 Channel -> Sussex\n")
    r = run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    assert r.mails_in == 1 and r.replies == 1
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae"
    assert "Romans: taken (2 lines OK)" in replies_to(g, "ann@x.org")[0]


def test_every_player_is_mailed_the_start_of_the_game_once(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=True)
    run_job(tmp_path, now=T0 + timedelta(minutes=5), render_map=False)
    out = mails(game.path / "outbox")
    welcome = [m for m in out if "the game starts" in str(m["Subject"])]
    assert sorted(m["To"] for m in welcome) == sorted(a for _, a in PLAYERS), "one each, once"
    g = Game.open(game.path)
    di = next(m for m in welcome if m["To"] == "di@x.org")
    text = body(di)
    assert f"TOKEN {g.player('di')['token']}" in text and "Belgae" in text
    assert g.settings["dice"]["commitment"] in text
    assert "Deadline: 2026-12-" in text and "First to move: the Romans (ann)" in text
    assert {"map.png", "PLAYERS.md"} <= {p.get_filename() for p in di.iter_attachments()}


def test_extend_then_pause_and_resume_keeps_the_extension(game, tmp_path):
    """Item 9: EXTEND 24, then a pause of 4 hours: the deadline moves by 24 + 4 hours."""
    from pbem.store.clock import current_deadline, decision_key

    run_job(tmp_path, now=T0, render_map=False)
    g = Game.open(game.path)
    before = current_deadline(g).due
    key = decision_key(g)
    g.append("moderator", {"action": "extend", "who": "m", "why": "holiday", "hours": 24, "decision": key},
             time=(T0 + timedelta(hours=1)).isoformat())
    g.append("moderator", {"action": "pause", "who": "m", "why": "x"}, time=(T0 + timedelta(hours=2)).isoformat())
    g.append("moderator", {"action": "resume", "who": "m", "why": "x"}, time=(T0 + timedelta(hours=6)).isoformat())
    assert current_deadline(Game.open(game.path)).due == before + timedelta(hours=28)


def test_report_of_a_past_turn_lists_only_that_turns_points():
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "report", str(REPO / "games" / "demo")], capture_output=True,
                         text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout
    assert "captured Cornwall" not in out, "the latest entry (a round start) gained no points"
    out = subprocess.run([sys.executable, "-m", "pbem.cli", "report", str(REPO / "games" / "demo"), "--round", "1",
                          "--nation", "belgae"], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout
    assert "Romans +2: captured Wessex" not in out


def test_a_line_dropped_at_the_deadline_is_named_in_the_report(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n2 Channel -> Essex", 1)   # Essex is not on the Channel
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "romans", "waiting for a correction"
    run_job(tmp_path, now=T0 + timedelta(days=30), render_map=False)    # the deadline passes
    report = [body(m) for m in mails(g.path / "outbox") if "the Romans have played" in str(m["Subject"])][0]
    assert re.search(r'Romans: order line \d+ not carried out: "2 English Channel -> Essex"', report), report


def test_after_a_rollback_the_player_is_asked_again_and_may_confirm(game, tmp_path):
    """Item 8: a rollback does not re-play the stored orders at once (no duplicate report); the player
    is asked again with the old orders as a draft; CONFIRM plays them."""
    from pbem.service import moderator

    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    g = Game.open(game.path)
    romans_turn = [e for e in g.entries("turn") if e.get("nation") == "romans"][-1]
    moderator.rollback(g, "mod", "wrong adjudication", romans_turn.id)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "romans", "the Romans' turn is not re-played at once"
    out = mails(g.path / "outbox")
    assert len([m for m in out if "the Romans have played" in str(m["Subject"])]) == 1, "no duplicate report"
    again = [m for m in out if m["To"] == "ann@x.org" and "your orders again" in str(m["Subject"])]
    assert again and "4 English Channel -> Kent" in body(again[0]) and "CONFIRM" in body(again[0])
    send(game, "ann", "NATION Romans\nCONFIRM", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=3), render_map=False)
    g = Game.open(game.path)
    assert g.state.next_nation == "belgae" and g.state.get("kent", "romans")
    assert "your orders from before the rollback are confirmed" in replies_to(g, "ann@x.org")[-1]


def test_preview_before_the_deadline_counts_no_missed_deadline(game, tmp_path):
    """Item 9: the moderator's preview plays a nation without orders early; that is not an NMR."""
    from pbem.service.advance import preview
    from pbem.store.clock import nmr_counts

    run_job(tmp_path, now=T0, render_map=False)
    g = Game.open(game.path)
    text = preview(g, "mod", "look ahead", now=T0 + timedelta(hours=1))   # before the deadline, whatever today is
    assert "PREVIEW" in text and "Missed deadlines" not in text
    assert nmr_counts(Game.open(game.path)) == {}
