"""Issue 19, items 6 and 7 — a moderator's slip is a clear error (exit 1, `pbem: ...`), never a silent
success and never a traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pbem(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.fixture
def games(tmp_path):
    dst = tmp_path / "games"
    shutil.copytree(REPO / "games" / "demo", dst / "demo", ignore=shutil.ignore_patterns(".lock", ".log-index.json*"))
    return dst


def _refused(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    for w in words:
        assert w in r.stderr + r.stdout, (w, r.stderr)


def test_run_given_a_game_folder_says_so(games):
    _refused(pbem("run", str(games / "demo"), "--no-map", cwd=games.parent), "is a game's folder",
             f"pbem run {games} --game demo")


def test_run_with_a_mistyped_game_says_so(games):
    _refused(pbem("run", str(games), "--game", "dmeo", "--no-map", cwd=games.parent), "no game 'dmeo'",
             "did you mean demo?")


def test_run_now_without_a_zone_is_refused(games):
    _refused(pbem("run", str(games), "--now", "2026-12-10T00:00:00", cwd=games.parent), "has no time zone")


def test_render_into_a_missing_folder_is_refused(games):
    _refused(pbem("render", str(games / "demo"), "--out", "nodir/x.png", cwd=games.parent), "does not exist")


@pytest.mark.parametrize("edit,words", [
    (("  nmr: hold", "  nmr: skip"), ("options.nmr", "'skip' is not one of: hold, bot")),
    (("      - welsh\n", "      - welsh\n      - romans\n"), ("romans is also given to 'alice'",)),
    (("id: demo", "id: demo2"), ("id", "is not the name of the game's folder",)),
])
def test_game_yaml_mistakes_are_errors(games, edit, words):
    path = games / "demo" / "game.yaml"
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1))
    _refused(pbem("run", str(games), "--no-map", cwd=games.parent), *words)
    _refused(pbem("status", str(games / "demo"), cwd=games.parent), *words)
