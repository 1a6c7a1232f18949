"""Issue 34: a whole ffg2 game by mail, two players writing and reading Russian and two English, gives
the same adjudication as the same game all in English: the same orders logged (canonical form), the
same events and state hashes after every step. Language never changes an adjudication; it changes
only what the players read (their mails here are in Russian, the English players' in English)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from jobkit import body, mails

from pbem import i18n
from pbem.bots import bot_orders
from pbem.orders import russian
from pbem.rules.flow import votes_owed
from pbem.rules.legal import vote_options
from pbem.service.job import run_job
from pbem.store.game import Game, create_game

PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]
RUSSIAN = {"ann": "ru", "cy": "ru"}          # cy chooses Russian by mail (LANGUAGE ru), ann at `pbem new`
KEYWORD = {e: words[0].upper() for e, words in russian.WORDS.items() if e in set(russian.first_words().values())}


def in_russian(text: str, rs) -> str:
    """The bot's English orders as a Russian player writes them: Russian order words and the Russian
    names of nations, leaders and areas (names.ru.yaml), the rest (numbers, arrows) as it is."""
    local = {rs.display(i): i18n.local_name("ru", rs, i) for i in rs.local_names.get("ru", {})}
    names = sorted((n for n in local if local[n]), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")
    out = []
    for line in text.splitlines():
        words = line.split(maxsplit=1)
        if words and words[0].upper() in KEYWORD and words[0].upper() not in ("TOKEN", "GAME"):
            line = KEYWORD[words[0].upper()] + (" " + words[1] if len(words) > 1 else "")
        out.append(pattern.sub(lambda m: local[m.group(1)], line))
    return "\n".join(out)


def play(games: Path, languages: dict[str, str]) -> Game:
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(games, "lang", ruleset="ffg2", players=4, player_specs=PLAYERS,
                       secret=b"the same dice in every language", time=t.isoformat(),
                       languages={p: lang for p, lang in languages.items() if p != "cy"})
    inbox = game.path / "inbox"
    inbox.mkdir(exist_ok=True)
    n = 0
    for _ in range(400):
        g = Game.open(game.path)
        state = g.state
        if state.finished:
            break
        rs = g.ruleset()
        todo = []
        if state.next_nation is not None:
            todo.append((state.next_nation, bot_orders(rs, state, state.next_nation, seed=n + 1)))
        elif votes_owed(rs, state):
            todo += [(nation, f"NATION {rs.display(nation)}\nVOTE {rs.display(nation)}\n") for nation in vote_options(rs, state)]
        for nation, text in todo:
            n += 1
            player = g.player_of(nation)
            p = g.player(player)
            head = f"TOKEN {p['token']}\n"
            if languages.get(player) == "ru":
                text = in_russian(text, rs)
                if player == "cy" and n < 12:
                    head += "ЯЗЫК русский\n"
            (inbox / f"{n:04d}.eml").write_text(f"From: {p['address']}\nSubject: [lang] orders\n"
                                                f"Message-ID: <m{n}@x.org>\n\n{head}{text}\n")
        t += timedelta(hours=1)
        report = run_job(games, now=t, render_map=False)
        assert not report.errors, report.errors
    return Game.open(game.path)


def adjudication(game: Game) -> list[tuple]:
    """What language must not change: every entry's kind, the orders as logged (canonical), their
    problems, the events and the state hash after it."""
    out = []
    for e in game.entries():
        if e.kind == "created":
            continue
        out.append((e.kind, e.get("nation"), e.get("text"), e.get("problems"), e.get("events"), e.get("state_hash")))
    return out


@pytest.mark.slow
def test_a_game_with_russian_and_english_players_is_adjudicated_as_the_same_game_in_english(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "mixed").mkdir()
    english = play(tmp_path / "en", {})
    mixed = play(tmp_path / "mixed", RUSSIAN)
    assert english.state.finished and mixed.state.finished
    assert adjudication(mixed) == adjudication(english)
    assert [i18n.player_language(p) for p in mixed.players()] == ["ru", "en", "ru", "en"]
    sent = mails(mixed.path / "outbox")
    to_ann, to_bob = sent_bodies(sent, "ann@x.org"), sent_bodies(sent, "bob@x.org")
    assert any("Раунд" in b and "ЧТО ПРОИЗОШЛО" in b for b in to_ann), "ann's turn reports are in Russian"
    assert any("WHAT HAPPENED" in b for b in to_bob) and not any("ЧТО ПРОИЗОШЛО" in b for b in to_bob)
    assert any("Язык: русский" in b for b in sent_bodies(sent, "cy@x.org")), "cy's LANGUAGE line is answered"
    assert any("игра окончена" in str(m["Subject"]) for m in sent if "ann@x.org" in str(m["To"]))
    assert any("game over" in str(m["Subject"]) for m in sent if "bob@x.org" in str(m["To"]))


def sent_bodies(sent, addr: str) -> list[str]:
    return [body(m) for m in sent if addr in str(m["To"]).split(", ")]


def test_the_intake_answers_a_russian_player_in_russian_and_a_stranger_in_english(tmp_path):
    t = datetime(2026, 12, 1, tzinfo=UTC)
    game = create_game(tmp_path, "lang", ruleset="ffg2", players=4, player_specs=PLAYERS, secret=b"sixteen bytes or more",
                       time=t.isoformat(), languages={"ann": "ru"})
    inbox = game.path / "inbox"
    inbox.mkdir(exist_ok=True)
    run_job(tmp_path, now=t, render_map=False)
    for n, sender in ((1, "ann@x.org"), (2, "eve@x.org")):
        (inbox / f"{n:03d}.eml").write_text(f"From: {sender}\nSubject: [lang] orders\nMessage-ID: <w{n}@x.org>\n\n"
                                            "TOKEN wrong\nНАРОД Римляне\nПАС\n")
    run_job(tmp_path, now=t + timedelta(hours=1), render_map=False)
    sent = mails(game.path / "outbox")
    to_ann = [b for b in sent_bodies(sent, "ann@x.org") if "TOKEN" in b and "не принято" in b]
    assert to_ann and "не совпадает с токеном" in to_ann[0], sent_bodies(sent, "ann@x.org")
    to_eve = sent_bodies(sent, "eve@x.org")
    assert to_eve and "was not accepted (error kind: auth)" in to_eve[0]
