"""Players' languages (issue 34 item 1, the groundwork): catalogs, plural forms, the reply's fixed
phrases, a player's language in game.yaml, `pbem new --lang` and `pbem status`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from pbem import i18n
from pbem.cli import cli
from pbem.data.loader import load
from pbem.orders.check import check_orders
from pbem.orders.reply import render_reply
from pbem.store.game import Game
from pbem.store.yamlio import SaveError

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("n, armies", [(1, "1 армия"), (2, "2 армии"), (4, "4 армии"), (5, "5 армий"),
                                       (11, "11 армий"), (12, "12 армий"), (21, "21 армия"), (22, "22 армии"),
                                       (25, "25 армий"), (101, "101 армия"), (111, "111 армий")])
def test_russian_plural_forms(n, armies):
    assert i18n.count("ru", n, *i18n.PIECES["armies"]) == armies
    assert i18n.count("en", n, *i18n.PIECES["armies"]) == f"{n} arm{'y' if n == 1 else 'ies'}"


def test_pybabel_extract_finds_every_string_and_the_russian_catalog_translates_each(tmp_path):
    pot = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-c", "from babel.messages.frontend import main; main()", "-q", "extract",
                    "-F", "babel.cfg", "-k", "_N:1,2", "-o", str(pot), "."], cwd=REPO, check=True)
    with pot.open("rb") as f:
        found = [m for m in read_po(f) if m.id]
    assert len(found) >= 14
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in found}
    assert "Deadline:" in ids and "%(num)d army" in ids           # the templates and the Python code
    with i18n.catalog_path("ru").open("rb") as f:
        ru = read_po(f, locale="ru")
    missing = []
    for m in found:
        t = ru.get(m.id)
        strings = t.string if t is not None else ""
        if t is None or not all(strings if isinstance(strings, tuple) else (strings,)):
            missing.append(m.id)
    assert not missing, f"not translated in pbem/locale/ru: {missing}"


def test_the_reply_fixed_phrases_in_russian_and_english_unchanged():
    rs = load("classic")
    ok = check_orders("НАРОД Саксы\nПАС\n", rs, nation="saxons")
    bad = check_orders("NATION Saxons\nPASS\n3 Йорх -> Лотиан\nРАЗМЕСТИТ Йорк\n", rs, nation="saxons")
    en, ru = render_reply(ok, rs, deadline="2026-12-03 18:00 UTC"), render_reply(ok, rs, deadline="x", language="ru")
    assert "All 1 order line(s) are OK" in en and "Deadline: 2026-12-03 18:00 UTC" in en
    assert "1 строка приказов в порядке" in ru and "Срок: x" in ru and "order line" not in ru
    ru_bad = render_reply(bad, rs, language="ru")
    assert "Не принято: 2 строки" in ru_bad and "требуют исправления" in ru_bad
    assert "Может быть, Йорк (York)?" in ru_bad and "нет области или моря с названием «Йорх»" in ru_bad
    assert "Did you mean" not in ru_bad


def test_a_players_language_from_pbem_new_to_status(tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["new", "g1", "--dir", str(tmp_path), "--ruleset", "ffg2", "--player", "ann=ann@x.org",
                             "--lang", "ru", "--player", "bob=bob@x.org"])
    assert r.exit_code == 0, r.output
    assert "ann <ann@x.org> (yellow, language ru)" in r.output
    game = Game.open(tmp_path / "g1")
    assert [i18n.player_language(p) for p in game.players()] == ["ru", "en", "en", "en"]
    assert "language" not in game.players()[1]          # English is not written
    r = runner.invoke(cli, ["status", "g1", "--dir", str(tmp_path)])
    assert r.exit_code == 0 and "languages: ann ru (the others English)" in r.output, r.output
    r = runner.invoke(cli, ["new", "g2", "--dir", str(tmp_path), "--player", "ann=ann@x.org", "--lang", "ann=fr"])
    assert r.exit_code != 0 and "unknown language 'fr'" in r.output


def test_an_unknown_language_in_game_yaml_is_a_hand_edit_error(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["new", "g1", "--dir", str(tmp_path), "--player", "ann=ann@x.org"]).exit_code == 0
    path = tmp_path / "g1" / "game.yaml"
    path.write_text(path.read_text().replace("    address: ann@x.org\n", "    address: ann@x.org\n    language: rus\n", 1))
    with pytest.raises(SaveError) as e:
        Game.open(tmp_path / "g1")
    assert "players[0].language" in str(e.value) and "'ru'" in str(e.value)


def test_lang_with_a_position_file(tmp_path):
    position = REPO / "tests" / "position" / "round9.yaml"
    r = CliRunner().invoke(cli, ["new", "moved", "--dir", str(tmp_path), "--position", str(position),
                                 "--player", "ann=ann@x.org", "--lang", "ru"])
    assert r.exit_code == 0, r.output
    assert i18n.player_language(Game.open(tmp_path / "moved").players()[0]) == "ru"


def test_every_event_with_a_line_in_the_report_has_one_in_the_catalog():
    from pbem.report.localize import EVENT_TEXTS
    from pbem.rules.events import KINDS, Event

    described = {k for k, cls in KINDS.items() if cls.describe is not Event.describe}
    assert described <= set(EVENT_TEXTS), sorted(described - set(EVENT_TEXTS))


def test_a_language_line_by_mail_is_answered_and_kept_in_game_yaml(tmp_path):
    from datetime import UTC, datetime

    from pbem.service.inbox import take_orders

    runner = CliRunner()
    assert runner.invoke(cli, ["new", "g1", "--dir", str(tmp_path), "--ruleset", "ffg2",
                               "--player", "ann=ann@x.org", "--player", "bob=bob@x.org"]).exit_code == 0
    game = Game.open(tmp_path / "g1")
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    reply = take_orders(game, "ann", "ЯЗЫК русский\nНАРОД Римляне\nПАС\n", mail_id="m1", received=now)
    assert reply.startswith("Язык: русский.") and "Римляне (Romans): принято" in reply, reply
    assert "Your orders" not in reply and "Игра g1: ваши приказы" in reply
    assert Game.open(tmp_path / "g1").player("ann")["language"] == "ru"
    reply = take_orders(Game.open(tmp_path / "g1"), "ann", "LANGUAGE klingon\n", mail_id="m2", received=now)
    assert "строка 1: LANGUAGE klingon: НЕ принято: unknown language 'klingon'" in reply, reply
    reply = take_orders(Game.open(tmp_path / "g1"), "ann", "LANGUAGE en\nNATION Romans\nPASS\n", mail_id="m3",
                        received=now)
    assert reply.startswith("Language set to English") and "language" not in Game.open(tmp_path / "g1").player("ann")


def test_the_report_facts_in_russian_keep_the_numbers_and_name_areas_both_ways():
    from pbem.report import build_report, report_text
    from pbem.report.localize import localize
    from pbem.rules.events import Moved, Placed

    rs = load("ffg2")
    game_settings = {"id": "g", "players": [{"name": "ann", "nations": ["romans"]}]}
    from pbem.rules.turn import new_game_state

    state = new_game_state(rs, "g")
    events = [Placed(nation="romans", areas=["york"], lines=[1]),
              Moved(nation="romans", kind="armies", count=3, path=["kent", "essex"], leader=None, raiders=0,
                    cycle=1, line=2)]
    report = build_report(rs, state, events, game_settings, played="romans", round_played=1)
    ru = localize(report, rs, "ru")
    assert ru["events"] == ["Римляне (Romans): новые армии размещены: Йорк (York)",
                            "Римляне (Romans): 3 армии Кент (Kent) -> Эссекс (Essex)"]
    assert ru["title"].startswith("[g] Раунд 1 (") and ru["title"].endswith("ход сделали Римляне (Romans)")
    text = report_text(ru, "ru")
    assert "ЧТО ПРОИЗОШЛО" in text and "WHAT HAPPENED" not in text
    assert localize(report, rs, "en") is report


def test_the_russian_catalog_has_the_placeholders_of_each_message_and_nothing_obsolete(tmp_path):
    """Babel's own checks (a `%(name)s` lost or mistyped in a translation fails at run time), and no
    translation of a string the code no longer has."""
    with i18n.catalog_path("ru").open("rb") as f:
        ru = read_po(f, locale="ru")
    problems = [(m.id, [str(e) for e in errors]) for m, errors in ru.check()]
    assert not problems, problems
    pot = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-c", "from babel.messages.frontend import main; main()", "-q", "extract",
                    "-F", "babel.cfg", "-k", "_N:1,2", "-o", str(pot), "."], cwd=REPO, check=True)
    with pot.open("rb") as f:
        found = {m.id for m in read_po(f) if m.id}
    assert not [m.id for m in ru if m.id and m.id not in found]
