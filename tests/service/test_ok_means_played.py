"""Issue 30 item 3: what the reply calls OK is what is played, or the reply says why not; `pbem check`
prints the very reply a mail gets."""

from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner
from jobkit import T0, body, mails, new_game, send

from pbem.cli import cli
from pbem.service.inbox import take_orders
from pbem.service.job import run_job


@pytest.fixture
def game(tmp_path):
    g = new_game(tmp_path, b"test secret for the ok-means-played tests")
    run_job(tmp_path, now=T0, render_map=False)      # round 1 starts: the Romans move
    return g


def reply(game, player, text):
    return take_orders(game, player, text, mail_id="x", received=T0, record=False)


def test_confirm_is_not_answered_no_order_lines_were_found(game):
    out = reply(game, "ann", "NATION Romans\nCONFIRM\n")
    assert "CONFIRM" in out and "No order lines were found" not in out


def test_a_refused_nations_lines_are_not_shown_ok(game):
    out = reply(game, "ann", "NATION Belgae\n1 Essex -> Kent\nNATION Romans\n4 Channel -> Kent\n")
    assert "NOT taken" in out
    assert " OK     1 Essex" not in out and "ERROR  \"1 Essex -> Kent\"" in out


def test_a_nation_section_whose_only_line_is_refused_names_its_nation(game):
    out = reply(game, "ann", "NATION Romans\n4 Channel -> Kentt\n")
    assert "do not say which nation" not in out
    assert "Romans: nothing taken" in out


def test_contradictory_votes_say_which_one_counts(game):
    out = reply(game, "ann", "NATION Romans\nVOTE Romans\nVOTE Scots\n")
    assert "the VOTE on line 3 replaces it" in out


def test_pbem_check_prints_the_reply_the_run_sends(game, tmp_path):
    text = "NATION Romans\n# plan\n4 Channel -> Kent\n2 Channel -> Kent -> Essex -> Norfolk\n3 Channel -> Devonn"
    send(game, "ann", text, 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    sent = [m for m in mails(game.path / "outbox") if m["To"] == "ann@x.org" and "Re:" in str(m["Subject"])]
    token = game.player("ann")["token"]
    (tmp_path / "orders.txt").write_text(f"TOKEN {token}\n{text}\n")
    # the game as it was when the mail came: the check of the same text against it
    checked = CliRunner().invoke(cli, ["check", "--game", str(game.path), "--nation", "romans",
                                        str(tmp_path / "orders.txt")])
    assert checked.exit_code == 1
    assert "taken, but 2 problems" in checked.output and "Not accepted" not in checked.output
    assert body(sent[0]).startswith(checked.output.rstrip("\n")), (body(sent[0]), checked.output)


def test_a_stacking_error_says_the_movement_it_cancels_is_not_played(game, tmp_path):
    """Rule 5.2: orders breaking the stacking limits at the end of movement lose that whole movement;
    the reply must not promise that the correct lines are played."""
    send(game, "ann", "NATION Romans\n4 Channel -> Devon", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    out = reply(game, "di", "NATION Belgae\n1 Essex -> Kent\n1 Sussex -> Kent\n1 Wessex -> Sussex -> Kent\n"
                            "1 Norfolk -> Suffolk\n1 Lindsey -> Norfolk -> Suffolk\n1 South Mercia -> Essex -> Suffolk\n")
    assert "stacking" in out and "except the 5 marked \"no effect\"" in out
    assert "the correct lines are played and the others dropped" not in out


def test_ffg2_stay_at_sea_in_the_major_invasion_warns_what_is_lost(tmp_path):
    """FFG 18: invaders must come ashore. A STAY in the Romans' first movement is legal, but armies
    still at sea after the second movement are lost: the reply says so and what to write."""
    from jobkit import PLAYERS

    from pbem.store.game import Game, create_game

    g = create_game(tmp_path, "f1", ruleset="ffg2", players=4, player_specs=PLAYERS,
                    secret=b"ffg2 secret for the stay tests", time=T0.isoformat())
    (g.path / "inbox").mkdir(exist_ok=True)
    run_job(tmp_path, now=T0, render_map=False)
    out = reply(Game.open(g.path), "ann", "NATION Romans\n4 Channel -> Kent\nSTAY 2 English Channel\n")
    assert "line   3  OK     STAY 2 English Channel" in out
    assert "are lost: invaders must come ashore (FFG 18)" in out and "after a line SECOND MOVEMENT" in out


def test_the_lost_at_sea_warning_reuses_the_validation_play():
    """FFG 18 (issue 33: the moving nation's turn played once per question is played once per mail):
    the warnings of check_orders' result, built from the events its validation play kept, are the
    warnings of the turn played afresh."""
    from pbem.data.loader import load
    from pbem.orders.check import check_orders
    from pbem.orders.reply import lost_at_sea_warnings, order_warnings
    from pbem.rules.turn import new_game_state, start_round

    rs = load("ffg2")
    state, _ = start_round(rs, new_game_state(rs, "f1"))
    result = check_orders("NATION Romans\n4 Channel -> Kent\nSTAY 2 English Channel\n", rs, state, nation="romans")
    assert result.checks["romans"].events, "the validation play keeps its events"
    afresh = lost_at_sea_warnings(rs, state, "romans", result.parsed.section("romans"))
    assert any("invaders must come ashore (FFG 18)" in w for w in afresh)
    assert set(afresh) <= set(order_warnings(result, rs, state, "romans"))

def test_a_refused_line_still_played_in_part_says_so(game):
    """Rule 4.4: a BATTLES line naming an area without a battle is refused, yet at the deadline it
    still orders the battles it names that are fought: the reply must not call it dropped."""
    out = reply(game, "ann", "NATION Romans\n2 Channel -> Wessex\n2 Channel -> Kent\n"
                             "BATTLES Wessex, Cornwall, Kent\n")
    assert 'ERROR  "BATTLES Wessex, Cornwall, Kent"' in out
    assert "still carried out where the rules allow it" in out and "still carried out in part" in out


@pytest.mark.parametrize("record", [False, True])
def test_the_moving_nations_orders_are_played_once_per_mail(game, monkeypatch, record):
    """Issue 33: validation, the decisions still owed, the warnings and the odds of the planned
    battles all come from the one validation play of the moving nation's orders (rule 4: its turn),
    whether the mail is taken or only checked (`pbem check`), and say the same either way (that the
    kept plays are the separate ones: tests/rules/test_first_movement_kept.py, test_decisions_pending)."""
    from pbem.rules import legal, turn

    text = "NATION Romans\n4 English Channel -> Kent\n4 English Channel -> Sussex\n"
    before = take_orders(game, "ann", text, mail_id="m0", received=T0, record=False)
    plays = []
    monkeypatch.setattr(legal, "play_nation_turn", lambda *a, **k: plays.append(k.get("stop")) or turn.play_nation_turn(*a, **k))
    out = take_orders(game, "ann", text, mail_id="m1", received=T0, record=record)
    assert plays == [None], "one play: check_orders' (it keeps the first movement for the rest)"
    assert out.split("Log:")[0] == before.split("Log:")[0]
