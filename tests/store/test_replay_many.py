"""Issue 20 — `pbem replay` of many games in one process: a line per game, exit 1 if any diverges."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from pbem.cli import cli
from pbem.store.archive import export_game


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_replay_a_folder_of_games_and_archives(played, tmp_path, fake_engine):
    folder = tmp_path / "archived"
    folder.mkdir()
    shutil.copytree(played.path, folder / "t1")
    export_game(played, folder / "t1-exported.tar.gz")
    (folder / "notes.txt").write_text("not a game\n")
    r = run("replay", folder)
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith(("ok", "DIVERGES", "ERROR"))]
    assert len(lines) == 2 and all(ln.startswith("ok       game t1: ") for ln in lines)
    assert "2 games replayed" in r.output and "2 match, 0 diverge or fail" in r.output


def test_one_divergent_game_among_many_exits_1(played, tmp_path, fake_engine):
    good, bad = tmp_path / "good" / "t1", tmp_path / "bad" / "t1"
    shutil.copytree(played.path, good)
    shutil.copytree(played.path, bad)
    p = bad / "log" / "000004-turn.yaml"
    p.write_text(p.read_text().replace('"count": 4', '"count": 5').replace("count: 4", "count: 5"))
    r = run("replay", good, bad, tmp_path / "missing", "-q")
    assert r.exit_code == 1
    out = r.output.splitlines()
    assert out[0].startswith("ok       game t1")
    assert out[1].startswith("DIVERGES game t1")
    assert any("replay diverges at log/000004-turn.yaml" in ln for ln in out)
    assert any(ln.startswith("ERROR    ") and "missing" in ln for ln in out)
    assert "3 games replayed" in r.output and "1 match, 2 diverge or fail" in r.output
    assert "Traceback" not in r.output


def test_one_game_keeps_the_full_report(played, fake_engine):
    r = run("replay", played.path, "-q")
    assert r.exit_code == 0 and "replay matches the log" in r.output


def test_a_folder_is_replayed_by_one_process_per_cpu_by_default(played, tmp_path, fake_engine, monkeypatch):
    """`pbem replay FOLDER` uses every CPU it may (-j 0, the default); -j 1 gives the same lines."""
    from pbem.store import replaymany

    for k in range(3):
        shutil.copytree(played.path, tmp_path / "many" / str(k) / "t1")
    sources = [str(tmp_path / "many" / str(k) / "t1") for k in range(3)]
    pools = []
    real = replaymany.cpus
    monkeypatch.setattr(replaymany, "cpus", lambda: pools.append(real()) or 2)
    by_default = [r.line() for r in replaymany.replay_many(sources)]
    assert pools and pools[0] >= 1
    assert by_default == [r.line() for r in replaymany.replay_many(sources, jobs=1)]
    assert all(line.startswith("ok       game t1") for line in by_default)


def test_the_bench_replays_distinct_copies_of_its_archived_games(played, tmp_path, fake_engine):
    """Issue 20's replay benchmark reads n game folders (copies named after the game, each with its
    own log index, rebuilt as a `pbem run` would), not one folder n times over."""
    from pbem.bots.bench import DONE, game_copies
    from pbem.store.replaymany import replay_many

    copies = game_copies([played.path], 3, tmp_path / "copies")
    assert len({str(p) for p in copies}) == 3 and all(p.name == played.path.name for p in copies)
    assert all((p / ".log-index.jsonl").is_file() and (p / DONE).is_file() for p in copies)
    assert all(r.ok for r in replay_many([str(p) for p in copies], jobs=1))
    assert game_copies([played.path], 3, tmp_path / "copies") == copies     # kept for the next run
