"""The site's turns that no turn mail has (an archived or imported game, or `--no-map` earlier): their
report made and their map drawn in worker processes, one per CPU (issue 33), while the build walks
on through the log. Each map is written by its worker, so the build's own memory does not grow
with the number of maps, and a worker draws every map on one reused matplotlib Figure over the
static layer drawn once before the workers start (pbem.render.map). A few turns, or one CPU: done
here, in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.store.replaymany import cpus

# Imported inside the functions that use them, for start-up time (modules each adds to importing
# maps alone, measured): pbem.render +356, pbem.service.advance +241, pbem.store.game +137,
# multiprocessing +18, pbem.store.fs +15, concurrent.futures +10.

PARALLEL_FROM = 4   # fewer turns than this are done in this process (a pool costs more than it saves)


@dataclass(frozen=True)
class TurnJob:
    """One turn's work: its report (`report` = build_report's keyword arguments beside the ruleset,
    the position and the events; None when the turn mail's report is used) and its map (`path`: the
    file to write, None for none; `title`: the map's title when the report is not made here)."""
    game_dir: Path
    state: Any
    events: Any
    report: dict[str, Any] | None
    path: Path | None
    title: str = ""


def do_turn(job: TurnJob, rs: Any = None) -> tuple[dict[str, Any] | None, str | None]:
    """(the report's facts, its text) when the job asks for the report, else (None, None); the map
    written when it asks for one."""
    if rs is None:
        rs = _ruleset(job.game_dir)
    facts = text = None
    if job.report is not None:
        from pbem.report import build_report, report_text

        facts = build_report(rs, job.state, job.events, **job.report)
        text = report_text(facts, rs=rs)
    if job.path is not None:
        from pbem.service.advance import map_png
        from pbem.store.fs import atomic_write

        atomic_write(job.path, map_png(rs, job.state, facts["title"] if facts else job.title, job.events))
    return facts, text


_RULESETS: dict[Path, Any] = {}


def _ruleset(game_dir: Path) -> Any:
    """The game's rules (its ruleset with game.yaml's overrides), once per worker."""
    if game_dir not in _RULESETS:
        from pbem.store.game import Game

        _RULESETS[game_dir] = Game.open(game_dir, editable=False).ruleset()
    return _RULESETS[game_dir]


class Turns:
    """Where a build's turn jobs are done: `submit(job, done)` calls `done(facts, text)` with the
    job's result, at once (here) or by `finish()` (from the workers, in the order submitted)."""

    def __init__(self, game_dir: Path, rs: Any, expected: int, *, maps: bool) -> None:
        self.game_dir, self.rs = game_dir, rs
        self.pending: list[tuple[Future, Callable[..., None]]] = []
        workers = min(cpus(), expected)
        self.pool = self._pool(workers, maps) if workers >= 2 and expected >= PARALLEL_FROM else None

    def _pool(self, workers: int, maps: bool) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        import pbem.report  # noqa: F401 - loaded once here, not once per forked worker

        _RULESETS.setdefault(self.game_dir, self.rs)     # a forked worker has it already
        if maps:     # matplotlib and the static layer: drawn once here, inherited by every worker
            from pbem.render.map import warm_up

            warm_up(self.rs)
        context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        return ProcessPoolExecutor(max_workers=workers, mp_context=context)

    def submit(self, job: TurnJob, done: Callable[..., None]) -> None:
        if self.pool is None:
            done(*do_turn(job, self.rs))
        else:
            self.pending.append((self.pool.submit(do_turn, job), done))

    def finish(self) -> None:
        """Wait for every job submitted, calling each one's `done`; the first failure is raised."""
        pending, self.pending = self.pending, []
        for future, done in pending:
            done(*future.result())

    def __enter__(self) -> Turns:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:     # after a failure: the jobs not started are dropped
            self.pool.shutdown(cancel_futures=True)
