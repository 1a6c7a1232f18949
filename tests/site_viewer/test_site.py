"""Issue 21 — the archive site: pages, privacy, links inside the folder, incremental refresh, the
cron job's `site_dir`, the commands."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from click.testing import CliRunner

from pbem.cli import cli
from pbem.site import build_site
from pbem.store.game import Game

from .conftest import DEMO_TURNS, copy_demo


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href", "srcset", "action", "data", "poster") and v is not None:
                self.links.append(v)


def links_of(page: Path) -> list[str]:
    p = _Links()
    p.feed(page.read_text(encoding="utf-8"))
    return p.links


def test_site_of_the_demo_has_an_index_and_a_page_per_game(demo_site):
    games, site = demo_site
    index = (site / "index.html").read_text()
    assert 'href="demo/index.html"' in index
    assert "Britannia" in index and "alice" in index and "next: the Welsh (bob), round 2" in index
    page = (site / "demo" / "index.html").read_text()
    assert page.count('<section class="turn') == len(DEMO_TURNS)
    assert sorted(p.name for p in (site / "demo" / "maps").iterdir()) == [f"{e:06d}.png" for e in DEMO_TURNS]
    assert (site / "demo" / "vp.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Round 1: the Romans" in page


def test_battles_show_every_die_with_its_verification_label(demo_site):
    games, site = demo_site
    turn = Game.open(games / "demo").entry(4)          # the Romans' first turn: battles
    page = (site / "demo" / "index.html").read_text()
    dice = turn.get("dice")
    assert dice
    for label, face in dice.items():
        assert f"<code>{label}</code></td><td>{face}</td>" in page
        assert f'title="{label}">{face}</span>' in page


def test_every_reference_stays_inside_the_site_folder(demo_site):
    """Opens from file:// with no server and no network: relative links to files that are there."""
    _, site = demo_site
    root = site.resolve()
    pages = list(site.rglob("*.html"))
    assert len(pages) == 2
    for page in pages:
        text = page.read_text()
        assert "<link" not in text and "@import" not in text and "url(" not in text
        for link in links_of(page):
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, link
            if not parts.path:
                assert parts.fragment, link           # an anchor on the same page
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.is_relative_to(root) and target.is_file(), link


def test_no_secret_token_or_address_appears(demo_site):
    games, site = demo_site
    game = Game.open(games / "demo")
    secret = (games / "demo" / "secret").read_text().strip()
    private = [secret, game.settings["moderator"]["token"], game.settings["moderator"]["address"]]
    for p in game.players():
        private += [str(p["token"]), str(p["address"])]
    for f in site.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".json"):
            text = f.read_text()
            for word in private:
                assert not re.search(rf"\b{re.escape(word)}\b", text), (f, word)
            assert "TOKEN" not in text.upper().replace("TOKENS", "")


def test_a_game_in_progress_shows_only_what_was_mailed(tmp_path):
    """Orders sent for the next turn are not shown (nor any orders text); quiet round starts, which
    get no mail, get no page."""
    games = copy_demo(tmp_path)
    game = Game.open(games / "demo")
    game.record_orders("welsh", "bob", "GAME demo\nPASS\n# plan: xyzzy hold Powys\n", mail_id="<x@y>")
    report = build_site(games, tmp_path / "site", render_maps=False)
    assert not report.errors
    for f in (tmp_path / "site").rglob("*"):
        if f.is_file() and f.suffix in (".html", ".json"):
            assert "xyzzy" not in f.read_text()
    data = json.loads((tmp_path / "site" / "demo" / "site.json").read_text())
    assert [t["entry"] for t in data["turns"]] == DEMO_TURNS


def test_regenerating_draws_only_the_new_turns(demo_site, tmp_path):
    from pbem.service.job import run_job

    games0, site0 = demo_site
    games, site = tmp_path / "games", tmp_path / "site"
    shutil.copytree(games0, games)
    shutil.copytree(site0, site)
    before = {p.name: p.stat().st_mtime_ns for p in (site / "demo" / "maps").iterdir()}
    again = build_site(games, site)
    assert (again.rendered, again.copied, again.kept) == (0, 0, len(DEMO_TURNS))
    # three nations play (the demo's waiting mails); the turn mails' reports are kept in the outbox
    run_job(games, now=datetime(2026, 11, 3, tzinfo=UTC), render_map=False)
    new = [e.id for e in Game.open(games / "demo").entries("turn") if e.id > DEMO_TURNS[-1]]
    assert len(new) == 3
    more = build_site(games, site)
    assert (more.rendered, more.kept) == (3, len(DEMO_TURNS))
    after = {p.name: p.stat().st_mtime_ns for p in (site / "demo" / "maps").iterdir()}
    assert {k: after[k] for k in before} == before
    assert sorted(after) == sorted(list(before) + [f"{e:06d}.png" for e in new])
    page = (site / "demo" / "index.html").read_text()
    assert "report as in the turn mail" in page and "the Caledonians" in page


def test_a_rolled_back_turn_leaves_the_site(tmp_path):
    from pbem.service.moderator import rollback

    games = copy_demo(tmp_path)
    build_site(games, tmp_path / "site", render_maps=False)
    rollback(Game.open(games / "demo"), "moderator@localhost", "test", 17)
    build_site(games, tmp_path / "site", render_maps=False)
    data = json.loads((tmp_path / "site" / "demo" / "site.json").read_text())
    assert [t["entry"] for t in data["turns"]] == DEMO_TURNS[:6]


def test_the_cron_job_refreshes_site_dir(tmp_path):
    from pbem.service.job import run_job

    games = copy_demo(tmp_path)
    (games / "pbem.yaml").write_text("site_dir: ../public\n")
    report = run_job(games, now=datetime(2026, 11, 3, tzinfo=UTC), render_map=False)
    assert not report.errors, report.errors
    data = json.loads((tmp_path / "public" / "demo" / "site.json").read_text())
    assert len(data["turns"]) == len(DEMO_TURNS) + 3
    assert all(t["source"] == "turn mail" for t in data["turns"][-3:])
    assert (tmp_path / "public" / "index.html").is_file()


def test_pbem_site_and_export_html_commands(demo_site, tmp_path):
    games = copy_demo(tmp_path)
    r = CliRunner().invoke(cli, ["site", str(games), "--out", str(tmp_path / "site"), "--no-map"])
    assert r.exit_code == 0, r.output
    assert "1 game(s)" in r.output and (tmp_path / "site" / "demo" / "index.html").is_file()
    shutil.copytree(demo_site[1] / "demo", tmp_path / "one" / "demo")     # its maps are drawn already
    r = CliRunner().invoke(cli, ["export", "demo", "--dir", str(games), "--html", str(tmp_path / "one")])
    assert r.exit_code == 0, r.output
    assert "0 maps rendered" in r.output and f"{len(DEMO_TURNS)} unchanged" in r.output
    assert 'href="demo/index.html"' in (tmp_path / "one" / "index.html").read_text()
    r = CliRunner().invoke(cli, ["export", "demo", "--dir", str(games)])
    assert r.exit_code == 2 and "--html" in r.output
    r = CliRunner().invoke(cli, ["site", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x")])
    assert r.exit_code == 1 and "pbem:" in r.output and "Traceback" not in r.output


def test_index_row_of_a_finished_game_names_the_winner():
    from types import SimpleNamespace

    from pbem.data.loader import load_ruleset
    from pbem.site.build import _summary

    rs = load_ruleset("classic")
    game = SimpleNamespace(id="g", paused=False, path=Path("games/g"))
    players = [{"name": "ann", "colour": "red", "nations": ["saxons"]}, {"name": "bo", "colour": "blue", "nations": ["angles"]}]
    turn = {"round": 16, "label": "Round 16: the Normans", "finished": True, "next": "",
            "players": {"ann": 180, "bo": 175}, "nations": {"saxons": 180, "angles": 175}}
    row = _summary(game, rs, [turn], players)
    assert (row["status"], row["winner"], row["round"]) == ("finished", "Winner: ann", 16)
    assert [p["name"] for p in row["players"]] == ["ann", "bo"]
    row = _summary(game, rs, [{**turn, "players": {"ann": 175, "bo": 175}, "nations": {"saxons": 175, "angles": 175}}],
                   players)
    assert row["winner"] == "Tie: ann, bo"
    assert _summary(game, rs, [], players)["status"] == "not started"


def test_index_row_of_a_duel_partners_game_names_both_partners():
    """[Number of Players] of Duel: four players as two sides; the side with the most points wins."""
    from types import SimpleNamespace

    from pbem.data.loader import load_ruleset
    from pbem.site.build import _summary

    rs = load_ruleset("duel")
    game = SimpleNamespace(id="d", paused=False, path=Path("games/d"))
    players = [{"name": seat, "colour": "", "nations": list(nations)} for seat, nations in rs.players_table(4).items()]
    vp = {"welsh": 40, "danes": 15, "saxons": 30, "scots": 30}
    turn = {"round": 7, "label": "Round 7", "finished": True, "next": "", "nations": vp,
            "players": {p["name"]: sum(vp.get(n, 0) for n in p["nations"]) for p in players}}
    row = _summary(game, rs, [turn], players)
    assert row["winner"] == "Winners (partners): anglo_saxon_1, anglo_saxon_2"


def test_maps_left_out_once_are_drawn_by_the_next_refresh_with_maps(tmp_path, monkeypatch):
    import pbem.service.advance as advance

    games = copy_demo(tmp_path)
    first = build_site(games, tmp_path / "site", render_maps=False)
    assert first.rendered == 0 and not (tmp_path / "site" / "demo" / "maps").exists()
    monkeypatch.setattr(advance, "map_png", lambda rs, state, title, events: b"\x89PNG fake")
    second = build_site(games, tmp_path / "site")
    # the maps may be drawn in worker processes (pbem.site.maps): counted by the files they wrote
    drawn = [p for p in (tmp_path / "site" / "demo" / "maps").iterdir() if p.read_bytes() == b"\x89PNG fake"]
    assert second.rendered == len(DEMO_TURNS) == len(drawn)
    data = json.loads((tmp_path / "site" / "demo" / "site.json").read_text())
    assert all(t["map"] for t in data["turns"])
    assert build_site(games, tmp_path / "site").rendered == 0


def test_a_new_game_and_a_damaged_one_next_to_the_demo(tmp_path):
    """A game without turns gets a page that says so; a damaged game is named in the errors and the
    others are built all the same."""
    from pbem.store.game import create_game

    games = copy_demo(tmp_path)
    create_game(games, "fresh", players=4, secret=b"a test secret for the site tests")
    (games / "broken").mkdir()
    (games / "broken" / "game.yaml").write_text("format: 1\nid: [unclosed\n")
    report = build_site(games, tmp_path / "site", render_maps=False)
    assert sorted(report.games) == ["demo", "fresh"]
    assert len(report.errors) == 1 and report.errors[0].startswith("broken:")
    assert "No turn has been played yet" in (tmp_path / "site" / "fresh" / "index.html").read_text()
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'href="fresh/index.html"' in index and "not started" in index and 'href="demo/index.html"' in index


def test_a_deleted_map_is_drawn_again(tmp_path, monkeypatch):
    import pbem.service.advance as advance

    games = copy_demo(tmp_path)
    monkeypatch.setattr(advance, "map_png", lambda rs, state, title, events: b"\x89PNG fake")
    assert build_site(games, tmp_path / "site").rendered == len(DEMO_TURNS)
    (tmp_path / "site" / "demo" / "maps" / f"{DEMO_TURNS[2]:06d}.png").unlink()
    again = build_site(games, tmp_path / "site")
    assert (again.rendered, again.kept) == (1, len(DEMO_TURNS) - 1)
    assert (tmp_path / "site" / "demo" / "maps" / f"{DEMO_TURNS[2]:06d}.png").is_file()
