"""Which games of the site are already up to date, known from a few stat calls (issue 33).

A game's pages are made from its folder only: game.yaml (players, pause, revealed secret), the log
(each entry a file of log/, so a new entry changes the folder), notices.json (which turns were
mailed), state.yaml and the turn mails' copies (outbox/reports). After a game's pages are written,
the refresh cache keeps, per game, the stat of those sources (taken before the pages were made, so
a change during the build makes the next refresh look again), the stat of what was written (the
game's folder on the site and its maps folder: a page, chart or map deleted is made again) and the
index row. A refresh builds only the games whose stats differ; a finished game is never opened
again unless its folder changes.

The stats are kept as digests in OUT/.refresh.json (all that a run with nothing new reads: one short
string per stat list, quick to parse for a thousand games), the index rows in OUT/.summaries.json.
Only a cache: deleting OUT/.refresh.json makes the next refresh look at every game again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from pbem import __version__
from pbem.store.fs import atomic_write, stat_key

try:    # hashlib's blake2b without importing hashlib (and OpenSSL with it: ~15 ms of an idle run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

CACHE = ".refresh.json"         # {game id: [source digest, written digest]}: all an idle run reads
SUMMARIES = ".summaries.json"   # {game id: its index row}: read only by a refresh that builds
SOURCES = ("game.yaml", "state.yaml", "notices.json", "log", "outbox", "outbox/reports")
WRITTEN = (".", "maps")   # the game's folder of the site (a file written or deleted there) and its maps


def _digest(stats: list[Any]) -> str:
    """A short, exact-enough name of a list of stats (an idle run parses 1 000 of them)."""
    return blake2b(orjson.dumps(stats), digest_size=12).hexdigest()


def source_key(game_dir: Path, render_maps: bool) -> str:
    """The stat of everything a game's pages are made from (and how they were asked for)."""
    folder = os.fspath(game_dir)
    return _digest([__version__, render_maps, *(stat_key(f"{folder}/{name}") for name in SOURCES)])


def written_key(dest: Path) -> str:
    """The stat of the game's own files on the site."""
    folder = os.fspath(dest)
    return _digest([stat_key(f"{folder}/{name}") for name in WRITTEN])


def _read(path: Path) -> dict[str, Any]:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("pbem") != __version__ or not isinstance(data.get("games"), dict):
        return {}
    return data["games"]


def load(out: Path, *, summaries: bool = True) -> dict[str, dict[str, Any]]:
    """{game id: {"source", "written", "summary"}} as the last refresh left it ({} when unreadable;
    no "summary" unless asked for, and then only the games that have one)."""
    rows = {}
    for gid, keys in _read(out / CACHE).items():
        if isinstance(keys, list) and len(keys) == 2:
            rows[gid] = {"source": keys[0], "written": keys[1]}
    if summaries:     # a game whose row is lost is looked at again (its turns are kept from site.json)
        found = _read(out / SUMMARIES)
        rows = {gid: {**row, "summary": found[gid]} for gid, row in rows.items() if isinstance(found.get(gid), dict)}
    return rows


def save(out: Path, games: dict[str, dict[str, Any]]) -> None:
    """Write the cache (the summaries first: a refresh killed in between finds keys without a
    summary, and reads that game's site.json)."""
    keys = {gid: [g.get("source"), g.get("written")] for gid, g in games.items()}
    summaries = {gid: g.get("summary") for gid, g in games.items()}
    try:
        for name, rows in ((SUMMARIES, summaries), (CACHE, keys)):
            text = orjson.dumps({"pbem": __version__, "games": rows})
            try:
                if (out / name).read_bytes() == text:
                    continue
            except OSError:
                pass
            atomic_write(out / name, text)
    except OSError:
        pass     # only a cache: the next refresh looks at every game


def unchanged(cache: dict[str, dict[str, Any]], game_dir: Path, dest: Path, render_maps: bool) -> bool:
    """The game's pages were made from its folder as it is now, and are still there as written."""
    hit = cache.get(game_dir.name)
    return (isinstance(hit, dict) and hit.get("source") == source_key(game_dir, render_maps)
            and hit.get("written") == written_key(dest))


def up_to_date(games_dir: Path, out: Path, dirs: list[Path], render_maps: bool) -> bool:
    """Every game in `dirs` unchanged since the last refresh, and the index there: nothing to do."""
    cache = load(out, summaries=False)
    return bool(cache) and (out / "index.html").is_file() and \
        all(unchanged(cache, d, out / d.name, render_maps) for d in dirs)
