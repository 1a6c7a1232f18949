"""Issue 30 item 1: one mail gets one reply; a correction mail only when the position changed since it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from jobkit import T0, body, mails, new_game, send

from pbem.service.job import run_job


@pytest.fixture
def game(tmp_path):
    return new_game(tmp_path, b"test secret for the one-reply tests")


def to(game, addr):
    return [m for m in mails(game.path / "outbox") if m["To"] == addr]


def test_a_mail_with_an_error_in_the_own_turn_gets_one_reply(game, tmp_path):
    """Sent during the Romans' own turn: the reply judged it against this very position, so no second
    "please correct" mail contradicts it (it said "taken, but 1 problem")."""
    run_job(tmp_path, now=T0, render_map=False)
    before = len(to(game, "ann@x.org"))
    send(game, "ann", "NATION Romans\n# my plan\n4 Channel -> Kent\n2 Channel -> Kent -> Essex -> Norfolk", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    new = to(game, "ann@x.org")[before:]
    assert len(new) == 1, [str(m["Subject"]) for m in new]
    assert "Re:" in str(new[0]["Subject"]) and "line   5  ERROR" in body(new[0])
    assert "taken, but 1 problem" in body(new[0])


def test_the_reminder_repeats_what_is_still_wrong_with_the_mails_line_numbers(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n# my plan\n4 Channel -> Kent\n2 Channel -> Kent -> Essex -> Norfolk", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    run_job(tmp_path, now=T0 + timedelta(hours=61), render_map=False)
    rem = [m for m in to(game, "ann@x.org") if "Reminder" in str(m["Subject"])]
    assert len(rem) == 1
    text = body(rem[0])
    assert "our reply" in text and "line 5" in text and "Norfolk" in text, text
    # new-user run (docs/NEW-USER-RUN.md): the reply said some OK lines do nothing; the reminder promised
    # every correct line played
    assert 'the correct lines are played (those our reply marked "no effect" do nothing)' in text, text


def test_early_orders_refused_at_their_turn_get_one_mail_saying_the_position_changed(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "di", "NATION Belgae\n# early\n\n1 Essex -> Kent -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(minutes=5), render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 2)
    run_job(tmp_path, now=T0 + timedelta(minutes=10), render_map=False)
    run_job(tmp_path, now=T0 + timedelta(minutes=20), render_map=False)
    ask = [m for m in to(game, "di@x.org") if "correct" in str(m["Subject"])]
    assert len(ask) == 1
    text = body(ask[0])
    assert "position has changed since our reply" in text
    assert "line   5  ERROR" in text, text


def test_the_turn_report_names_the_lines_as_the_mail_does(game, tmp_path):
    """Issue 30 item 2: the reply said line 6 (TOKEN is line 1 of the mail); the report did say
    "order line 2" (the line of the logged canonical orders, standing orders moved to the end)."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n# plan\n\n4 Channel -> Kent\nPLACE Kent\nDEFEND ALL: HOLD\n4 Channel -> Sussex", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    replied = [m for m in to(game, "ann@x.org") if "Re:" in str(m["Subject"])]
    assert 'line   6  ERROR  "PLACE Kent"' in body(replied[0])
    run_job(tmp_path, now=T0 + timedelta(hours=73), render_map=False)
    report = [m for m in mails(game.path / "outbox") if "have played" in str(m["Subject"])]
    assert 'order line 6 not carried out: "PLACE Kent"' in body(report[0])


def test_a_turn_played_without_orders_says_so_in_the_report(game, tmp_path):
    """Issue 30 item 7: a turn the no-orders rule played is not shown as the player's."""
    run_job(tmp_path, now=T0, render_map=False)
    run_job(tmp_path, now=T0 + timedelta(hours=73), render_map=False)
    report = [m for m in mails(game.path / "outbox") if "the Romans have played" in str(m["Subject"])]
    assert "No orders came for the Romans: they held" in body(report[0])


def test_a_turn_played_from_the_players_orders_does_not_say_so(game, tmp_path):
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    report = [m for m in mails(game.path / "outbox") if "the Romans have played" in str(m["Subject"])]
    assert "No orders came" not in body(report[0])


def test_early_orders_refused_then_as_now_get_the_prompt_not_a_position_changed_mail(game, tmp_path):
    """Found in the new-user run (docs/NEW-USER-RUN.md): the Caledonians' early `1 Mar -> Dunedin` was
    refused by the reply (no Caledonian army in Mar); at their turn a second mail said "the position
    has changed since our reply", though nothing it judged had, answered "Not accepted" where the
    reply had said "taken, but 1 problem", and stood for the prompt without the turn's moves. When
    the rules refuse now just what the reply refused, the reply said it: the turn's prompt follows,
    repeating what is still wrong with the mail's line numbers."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "di", "NATION Belgae\n# early\n\n1 Lindsey -> Suffolk -> Essex -> Kent", 1)
    run_job(tmp_path, now=T0 + timedelta(minutes=5), render_map=False)
    (reply,) = [m for m in to(game, "di@x.org") if "Re:" in str(m["Subject"])]
    assert "line   5  ERROR" in body(reply) and "taken, but 1 problem" in body(reply)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent", 2)
    run_job(tmp_path, now=T0 + timedelta(minutes=10), render_map=False)
    run_job(tmp_path, now=T0 + timedelta(minutes=20), render_map=False)
    later = [m for m in to(game, "di@x.org") if "Re:" not in str(m["Subject"]) and "game starts" not in str(m["Subject"])]
    assert not [m for m in later if "position changed" in str(m["Subject"])], [str(m["Subject"]) for m in later]
    (prompt,) = [m for m in later if "for the Belgae" in str(m["Subject"])]
    text = body(prompt)
    assert "as our reply to your mail said" in text and 'line 5 "1 Lindsey -> Suffolk -> Essex -> Kent"' in text, text
    assert "This turn (Belgae)" in text and "Not accepted" not in text


def test_a_mail_of_standing_orders_with_a_typo_keeps_the_turn_orders_waiting(game, tmp_path):
    """Found in the new-user run (docs/NEW-USER-RUN.md): a mail of DEFEND and LOSSES lines, one of
    them with a misspelt area, replaced the moves waiting from the mail before (its unreadable line
    counted as turn orders to correct), so the turn would have moved nothing, though the guide says
    standing orders are kept apart from the turn's and neither reply said the moves were gone."""
    run_job(tmp_path, now=T0, render_map=False)
    send(game, "ann", "NATION Romans\n4 Channel -> Kent\n2 Channel -> Kent -> Essex -> Norfolk", 1)
    run_job(tmp_path, now=T0 + timedelta(hours=1), render_map=False)
    send(game, "ann", "NATION Romans\nDEFEND Kentt: HOLD\nLOSSES ALL: CAVALRY LAST", 2)
    run_job(tmp_path, now=T0 + timedelta(hours=2), render_map=False)
    second = [m for m in to(game, "ann@x.org") if "Re:" in str(m["Subject"])][-1]
    assert "line   3  ERROR  \"DEFEND Kentt: HOLD\"" in body(second)
    run_job(tmp_path, now=T0 + timedelta(hours=73), render_map=False)
    report = [m for m in mails(game.path / "outbox") if "the Romans have played" in str(m["Subject"])]
    assert "Romans: 4 armies English Channel -> Kent" in body(report[0]), body(report[0])
