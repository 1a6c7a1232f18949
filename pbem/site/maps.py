"""The maps of the site's turns that no turn mail has (an archived or imported game, or `--no-map`
earlier): drawn in worker processes, one per CPU (issue 33), each map written by its worker, so
the build's own memory does not grow with the number of maps (a matplotlib Figure lives and dies in
its worker). A few maps, or one CPU: drawn here, with a collection after each map (a Figure's
reference cycles otherwise wait for a full collection).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.store.replaymany import cpus

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# maps alone, measured): pbem.render +356, pbem.service.advance +241, pbem.store.game +137,
# multiprocessing +18, pbem.store.fs +15, concurrent.futures +10.

PARALLEL_FROM = 4   # fewer maps than this are drawn in this process (a pool costs more than it saves)


@dataclass(frozen=True)
class MapJob:
    game_dir: Path
    path: Path
    state: Any
    title: str
    events: Any


def _draw(job: MapJob, rs: Any = None) -> None:
    from pbem.service.advance import map_png
    from pbem.store.fs import atomic_write

    if rs is None:
        rs = _ruleset(job.game_dir)
    atomic_write(job.path, map_png(rs, job.state, job.title, job.events))


_RULESETS: dict[Path, Any] = {}


def _ruleset(game_dir: Path) -> Any:
    """The game's rules (its ruleset with game.yaml's overrides), once per worker."""
    if game_dir not in _RULESETS:
        from pbem.store.game import Game

        _RULESETS[game_dir] = Game.open(game_dir, editable=False).ruleset()
    return _RULESETS[game_dir]


def draw_maps(jobs: list[MapJob], rs: Any) -> None:
    """Draw every job's map into its file."""
    workers = min(cpus(), len(jobs))
    if workers < 2 or len(jobs) < PARALLEL_FROM:
        for job in jobs:
            _draw(job, rs)
            gc.collect()
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import pbem.render  # noqa: F401 - matplotlib loaded once here, not once per forked worker

    for job in jobs:
        _RULESETS.setdefault(job.game_dir, rs)    # a forked worker has it already
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for _ in pool.map(_draw, jobs, chunksize=max(1, len(jobs) // (workers * 4))):
            pass
