"""Issue 28 (must show) — ten whole 16-round games of each ruleset, played by the bots through the store
with the code before the rules-family seam (commit e748f40, `tools/make_old_games.py FOLDER RULESET 201
10`) and exported with `pbem export`, replay byte-identically with today's code: every event, die and
state hash of their logs is re-derived and compared (store/replay.py). A change to the engine that moves
one event of one classic or ffg2 game fails here.
"""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli

ARCHIVED = sorted((Path(__file__).resolve().parents[1] / "data" / "archived_games").glob("*.tar.gz"))


def test_ten_archived_games_of_each_ruleset_are_there():
    assert sorted(p.name.split("-")[0] for p in ARCHIVED) == ["classic"] * 10 + ["ffg2"] * 10


def test_archived_games_replay_byte_identically():
    out = CliRunner().invoke(cli, ["replay", "-q", *map(str, ARCHIVED)])
    assert out.exit_code == 0, out.output
    assert f"{len(ARCHIVED)} match, 0 diverge or fail" in out.output, out.output
