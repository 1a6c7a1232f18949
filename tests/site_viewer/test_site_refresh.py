"""Issue 33 item 2 — the site refreshed per changed game only: a game whose folder did not change
is not opened again (a finished game's page is never rebuilt unless its log changed), and the cron
job with `site_dir:` does nothing but a few stat calls when no game changed."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson

from pbem.site import build_site
from pbem.store.game import Game, create_game

from .conftest import DEMO_TURNS, copy_demo


def test_an_unchanged_game_is_not_opened_and_a_changed_one_alone_is_rebuilt(tmp_path, games_opened):
    games = copy_demo(tmp_path)
    create_game(games, "other", secret=b"site refresh test, other game", time="2026-11-01T00:00:00+00:00")
    site = tmp_path / "site"
    first = build_site(games, site, render_maps=False)
    assert not first.errors and sorted(first.games) == ["demo", "other"]
    page = site / "demo" / "index.html"
    stamp = page.stat().st_mtime_ns
    opened = games_opened
    opened.clear()
    again = build_site(games, site, render_maps=False)
    assert opened == [] and sorted(again.games) == ["demo", "other"]
    assert again.kept == len(DEMO_TURNS) and page.stat().st_mtime_ns == stamp
    Game.open(games / "other").record_orders("romans", "alice", "GAME other\nPASS\n", mail_id="<r@x>")
    opened.clear()
    build_site(games, site, render_maps=False)
    assert opened == ["other"]
    index = (site / "index.html").read_text()
    assert "demo/index.html" in index and "other/index.html" in index


def test_site_json_is_valid_json_read_back_by_the_next_refresh(tmp_path):
    games = copy_demo(tmp_path)
    build_site(games, tmp_path / "site", render_maps=False)
    data = orjson.loads((tmp_path / "site" / "demo" / "site.json").read_bytes())
    assert [t["entry"] for t in data["turns"]] == DEMO_TURNS
    (tmp_path / "site" / ".refresh.json").unlink()      # only a cache: the pages are kept from site.json
    again = build_site(games, tmp_path / "site", render_maps=False)
    assert again.kept == len(DEMO_TURNS)


def test_the_cron_job_leaves_an_unchanged_site_alone(tmp_path, games_opened):
    from pbem.service.job import run_job

    games = copy_demo(tmp_path)
    (games / "pbem.yaml").write_text("site_dir: ../public\n")
    now = datetime(2026, 11, 3, tzinfo=UTC)
    run_job(games, now=now, render_map=False)
    run_job(games, now=now, render_map=False)
    opened = games_opened
    opened.clear()
    report = run_job(games, now=now, render_map=False)
    assert not report.errors, report.errors
    assert opened == []          # neither the run (idle notes) nor the site (pbem.site.fresh) opened it


def test_the_cache_an_idle_run_reads_holds_one_digest_pair_a_game(tmp_path):
    """An idle `pbem run` with site_dir reads only .refresh.json: two short digests per game; the
    index rows are in .summaries.json, read by a refresh that builds (and made again when lost)."""
    games = copy_demo(tmp_path)
    site = tmp_path / "site"
    build_site(games, site, render_maps=False)
    keys = orjson.loads((site / ".refresh.json").read_bytes())["games"]
    assert list(keys) == ["demo"] and all(len(k) == 24 for k in keys["demo"])
    assert orjson.loads((site / ".summaries.json").read_bytes())["games"]["demo"]["turns"] == len(DEMO_TURNS)
    (site / ".summaries.json").unlink()
    again = build_site(games, site, render_maps=False)
    assert again.kept == len(DEMO_TURNS) and "demo/index.html" in (site / "index.html").read_text()
