"""Issue 34: the ODDS lines of a Russian player's mail are answered in Russian (the probabilities, a
battle too big to compute, a malformed line, the run's budget spent: "not computed ... send it
again"), an English player's the same mail in English with the same numbers; the log the mails leave
is the same in both languages (ODDS answers change no adjudication)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from jobkit import body, mails

import pbem.orders.odds as odds_mod
from pbem.service.job import run_job
from pbem.store.game import Game, create_game

PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]
ASKED = ("ODDS 3 LEADER VS 2 CAV 1 IN York DEFEND RETREAT IF OUTNUMBERED",   # good: the odds
         "ODDS 60 VS 60",                                                  # too big: refused before any work
         "ODDS 3 FOO VS 2",                                                # malformed: an unknown word
         "ODDS 3 VS 2 IN Йорх")                                            # an unknown area: did-you-mean
ENGLISH_WORD = re.compile(r"\b(?!ODDS\b|VS\b|CAV\b|LEADER\b|ROMAN\b|FORT\b|BURHS\b|IN\b|HILAND\b|ATTACK\b|DEFEND\b"
                          r"|RETREAT\b|IF\b|OUTNUMBERED\b|AFTER\b|ROUND\b|FOO\b|York\b|Log\b|n\b|k\b)[A-Za-z]{2,}\b")


def _reply(tmp_path, language: str, run_work: int | None = None, monkeypatch=None) -> tuple[str, Game]:
    t = datetime(2026, 12, 1, tzinfo=UTC)
    games = tmp_path / language
    games.mkdir()
    game = create_game(games, "odds", ruleset="ffg2", players=4, player_specs=PLAYERS, secret=b"sixteen bytes or more",
                       time=t.isoformat(), languages={"ann": language})
    run_job(games, now=t, render_map=False)
    if run_work is not None:
        monkeypatch.setattr(odds_mod, "RUN_WORK", run_work)
    token = Game.open(game.path).player("ann")["token"]
    (game.path / "inbox").mkdir(exist_ok=True)
    (game.path / "inbox" / "001.eml").write_text("From: ann@x.org\nSubject: [odds] odds\nMessage-ID: <o1@x.org>\n\n"
                                                 f"TOKEN {token}\n" + "\n".join(ASKED) + "\n")
    run_job(games, now=t + timedelta(hours=1), render_map=False)
    replies = [body(m) for m in mails(game.path / "outbox") if "ann@x.org" in str(m["To"]) and "ODDS 60" in body(m)]
    assert len(replies) == 1, [body(m) for m in mails(game.path / "outbox")]
    return replies[0], Game.open(game.path)


def _answers(reply: str) -> str:
    """The reply's answers to the ODDS lines: from the first quoted ODDS line to the last answer."""
    lines = reply.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("> ODDS"))
    last = max(i for i, ln in enumerate(lines) if ln.startswith("ODDS: "))
    return "\n".join(lines[first:last + 1])


def test_a_russian_players_odds_lines_are_answered_in_russian_with_the_same_numbers(tmp_path):
    ru, ru_game = _reply(tmp_path, "ru")
    en, en_game = _reply(tmp_path, "en")
    answers = _answers(ru)
    assert "нападающие берут область" in answers and "Йорк (York)" in answers
    assert "эта битва слишком велика" in answers                       # ODDS 60 VS 60
    assert "неизвестное слово 'FOO'" in answers                        # ODDS 3 FOO VS 2
    assert "нет области с названием «Йорх»" in answers and "Йорк (York)?" in answers
    left = [w for ln in answers.splitlines() if not ln.startswith("> ") for w in ENGLISH_WORD.findall(ln)]
    assert not left, (left, answers)
    numbers = re.compile(r"\d+\.\d %")
    assert numbers.findall(answers) == numbers.findall(_answers(en)) != []
    assert "attacker takes the area" in en and "нападающие" not in en
    strip = lambda g: [(e.kind, e.get("text"), e.get("events"), e.get("state_hash")) for e in g.entries()  # noqa: E731
                       if e.kind != "created"]
    assert strip(ru_game) == strip(en_game)


def test_odds_not_computed_for_the_runs_budget_is_answered_in_russian(tmp_path, monkeypatch):
    ru, _ = _reply(tmp_path, "ru", run_work=10, monkeypatch=monkeypatch)
    answers = _answers(ru)
    assert "сейчас не посчитано" in answers and "пришлите эту строку снова" in answers
    assert not [w for ln in answers.splitlines() if not ln.startswith("> ") for w in ENGLISH_WORD.findall(ln)]
