"""Replay many games in one process (`pbem replay A B ...`, `pbem replay FOLDER`): after an upgrade a
moderator checks every archived game in one go.

A source is a game directory, a game id under the games folder, a game archive (.tar.gz), or a
folder holding game directories and/or archives (not recursively). Each game is replayed with
pbem.store.replay.replay, one after another or in `jobs` worker processes; results come back in
the order of the sources. A game that cannot be opened is a failure too (`error`), never a crash.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pbem.errors import GameError, PbemError

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# replaymany alone, measured): pbem.store.replay +178, pbem.store.archive +142, pbem.store.game +137,
# pbem.rules.turn +28, concurrent.futures +10.

SETTINGS = "game.yaml"


@dataclass
class GameResult:
    source: str
    game: str = ""
    ok: bool = False
    summary: str = ""          # ReplayReport.summary(), or the error
    entries: int = 0
    steps: int = 0
    error: str = ""

    def line(self) -> str:
        """One line for the list of games."""
        if self.error:
            return f"ERROR    {self.source}: {self.error}"
        head = self.summary.splitlines()[0] if self.summary else self.game
        return f"{'ok' if self.ok else 'DIVERGES':8} {head}"

    def details(self) -> list[str]:
        """The notes and the divergence of a game that did not match (empty when it matched)."""
        if self.ok or self.error:
            return []
        return self.summary.splitlines()[1:]


def _is_archive(p: Path) -> bool:
    from pbem.store.archive import is_archive

    return is_archive(p)


def expand_sources(sources: list[str], games_dir: str | Path = "games") -> list[str]:
    """Every game the sources name: a folder that is not itself a game stands for the games and
    archives in it (sorted by name)."""
    out: list[str] = []
    for src in sources:
        p = Path(src)
        if p.is_dir() and not (p / SETTINGS).is_file():
            found = [q for q in sorted(p.iterdir()) if not q.name.startswith(".")
                     and ((q / SETTINGS).is_file() or (q.is_file() and _is_archive(q)))]
            if not found:
                raise GameError(f"{p} holds no game directory and no game archive")
            out += [str(q) for q in found]
        else:
            out.append(src)
    return out


def replay_one(source: str, games_dir: str | Path = "games", *, use_secret: bool = True,
               check_start: bool = False, fresh: bool = False) -> GameResult:
    """Replay one source; every problem ends up in the result."""
    from pbem.store.archive import open_source
    from pbem.store.game import Game
    from pbem.store.replay import replay

    res = GameResult(source)
    start = None
    try:
        if check_start:
            from pbem.rules.turn import new_game_state as start
        with open_source(source, games_dir) as path:
            report = replay(Game.open(path, editable=False), start=start, use_secret=use_secret, fresh=fresh)
    except PbemError as e:
        res.error = str(e)
        return res
    except Exception as e:  # noqa: BLE001 - one damaged game must not stop the others
        res.error = f"{type(e).__name__}: {e}"
        return res
    res.game, res.ok, res.summary = report.game, report.ok, report.summary()
    res.entries, res.steps = report.entries, report.steps
    return res


def cpus() -> int:
    """The CPUs this process may run on (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _warm_up(source: str, games_dir: str | Path) -> None:
    """Import the engine and load the first game's ruleset before the workers start: forked workers
    inherit them instead of each doing it (~0.35 s a worker)."""
    import pbem.store.replay  # noqa: F401 - imported for the workers

    try:
        from pbem.store.game import Game

        if Path(source).is_dir():
            Game.open(source, editable=False).ruleset()
    except Exception:  # noqa: BLE001 - only a warm-up: the worker reports whatever is wrong
        pass


def _worker(args: tuple[str, str, bool, bool, bool]) -> GameResult:
    source, games_dir, use_secret, check_start, fresh = args
    return replay_one(source, games_dir, use_secret=use_secret, check_start=check_start, fresh=fresh)


def replay_many(sources: list[str], games_dir: str | Path = "games", *, jobs: int = 0, use_secret: bool = True,
                check_start: bool = False, fresh: bool = False) -> Iterator[GameResult]:
    """Results in the order of `sources` (already expanded), as they are done. `jobs` 0: one process
    per CPU this process may use."""
    work = [(s, str(games_dir), use_secret, check_start, fresh) for s in sources]
    if jobs <= 0:
        jobs = cpus()
    if jobs <= 1 or len(work) <= 1:
        for w in work:
            yield _worker(w)
        return
    from concurrent.futures import ProcessPoolExecutor

    _warm_up(sources[0], games_dir)
    with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
        yield from pool.map(_worker, work, chunksize=1)
