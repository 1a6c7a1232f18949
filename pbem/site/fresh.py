"""Which games of the site are already up to date, known from a few stat calls (issue 33).

A game's pages are made from its folder only: game.yaml (players, pause, revealed secret), the log
(each entry a file of log/, so a new entry changes the folder), notices.json (which turns were
mailed), state.yaml and the turn mails' copies (outbox/reports). After a game's pages are written,
OUT/.refresh.json keeps, per game, the stat of those sources (taken before the pages were made, so
a change during the build makes the next refresh look again), the stat of what was written (site.json,
the page, the maps folder: a deleted file is drawn again) and the index row. A refresh builds only
the games whose stats differ; a finished game is never opened again unless its folder changes.

Only a cache: deleting OUT/.refresh.json makes the next refresh look at every game again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from pbem import __version__
from pbem.store.fs import atomic_write, stat_key

CACHE = ".refresh.json"
SOURCES = ("game.yaml", "state.yaml", "notices.json", "log", "outbox", "outbox/reports")
WRITTEN = ("site.json", "index.html", "maps", "vp.png")


def source_key(game_dir: Path, render_maps: bool) -> list[Any]:
    """The stat of everything a game's pages are made from (and how they were asked for)."""
    return [__version__, render_maps, *(stat_key(game_dir / name) for name in SOURCES)]


def written_key(dest: Path) -> list[Any]:
    """The stat of the game's own files on the site."""
    return [stat_key(dest / name) for name in WRITTEN]


def load(out: Path) -> dict[str, dict[str, Any]]:
    """{game id: {"source", "written", "summary"}} as the last refresh left it ({} when unreadable)."""
    try:
        data = orjson.loads((out / CACHE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("pbem") != __version__ or not isinstance(data.get("games"), dict):
        return {}
    return data["games"]


def save(out: Path, games: dict[str, dict[str, Any]]) -> None:
    try:
        atomic_write(out / CACHE, orjson.dumps({"pbem": __version__, "games": games}))
    except OSError:
        pass     # only a cache: the next refresh looks at every game


def unchanged(cache: dict[str, dict[str, Any]], game_dir: Path, dest: Path, render_maps: bool) -> bool:
    """The game's pages were made from its folder as it is now, and are still there as written."""
    hit = cache.get(game_dir.name)
    return (isinstance(hit, dict) and hit.get("source") == source_key(game_dir, render_maps)
            and hit.get("written") == written_key(dest))


def up_to_date(games_dir: Path, out: Path, dirs: list[Path], render_maps: bool) -> bool:
    """Every game in `dirs` unchanged since the last refresh, and the index there: nothing to do."""
    cache = load(out)
    return bool(cache) and (out / "index.html").is_file() and \
        all(unchanged(cache, d, out / d.name, render_maps) for d in dirs)
