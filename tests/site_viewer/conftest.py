"""The demo game's site, built once per test session (drawing maps is the slow part)."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from pbem.site import build_site

REPO = Path(__file__).resolve().parents[2]
DEMO_TURNS = [4, 6, 8, 10, 12, 14, 17, 19]     # the demo's mailed turn entries (2 and 15: quiet round starts)


def copy_demo(dest: Path) -> Path:
    """A copy of the bundled demo game in dest/games/demo (the repository's copy stays untouched).

    The demo as committed (git HEAD): README's first command, `pbem run games`, plays the working
    copy on, and these tests compare with the committed turns. Outside a git checkout: the working copy."""
    games = dest / "games"
    games.mkdir(parents=True, exist_ok=True)
    try:
        data = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD", "games/demo"],
                              capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        data = b""
    if data:
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            tf.extractall(dest, filter="data")
    else:
        shutil.copytree(REPO / "games" / "demo", games / "demo",
                        ignore=shutil.ignore_patterns(".lock", ".log-index.json*"))
    return games


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory) -> tuple[Path, Path]:
    """(games dir, site dir) of the demo with its site built, maps included."""
    root = tmp_path_factory.mktemp("demo-site")
    games = copy_demo(root)
    report = build_site(games, root / "site")
    assert not report.errors, report.errors
    return games, root / "site"
