"""`pbem bench`: how fast the parts are on this machine (never asserted by the tests).

Rows: engine time of a 16-round 4-player bot game (the orders made beforehand, only flow.step timed),
a whole self-play game (bots included), parsing order mails written by bots, and, when the other
modules offer them, the map render (pbem.render.bench), polling a mail folder (pbem.mail.folder's
FolderTransport), replay + verify of archived games (pbem.store) and the exact battle odds (pbem.rules.odds,
the first exact search timed beside it). A part that is missing is reported as skipped with the reason.

Issue 33's rows (a thousand games on one small server; `small` and `full` only): an idle `pbem run`
over waiting games with the site's mailbox, with and without `site_dir`; a burst of order mails into
one game; the peak RSS of a run taking big mails; the site of an archived game (every map drawn).
Each runs the command in fresh processes; with PBEM_BENCH_BASELINE=<checkout of an older pbem> the
same command is timed with that code too, on a copy of the same folder, and shown beside it.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pbem.bots.selfplay import BotGame, Stats
from pbem.data.loader import load as load_ruleset
from pbem.orders.parser import parse_message
from pbem.rules.dice import HmacDice
from pbem.rules.flow import step as flow_step
from pbem.rules.flow import votes_owed
from pbem.rules.legal import vote_options
from pbem.rules.orders import NationOrders
from pbem.rules.ruleset import Ruleset
from pbem.rules.turn import new_game_state
from pbem.store.replaymany import cpus

SIZES = {
    # games timed for the engine, mails parsed, folder size, archived games replayed (distinct ones
    # archived through the store, each up to `replay_rounds` rounds)
    "tiny": {"games": 1, "mails": 20, "folder": 20, "replay": 1, "archive": 1, "replay_rounds": 1, "idle": 3,
             "pace": 0, "shared": 0, "burst": 0, "big_mails": (), "site_rounds": 0},
    "small": {"games": 3, "mails": 200, "folder": 200, "replay": 10, "archive": 2, "replay_rounds": 16, "idle": 20,
              "pace": 1, "shared": 100, "burst": 100, "big_mails": (40,), "site_rounds": 2},
    "full": {"games": 10, "mails": 1000, "folder": 1000, "replay": 100, "archive": 10, "replay_rounds": 16,
             "idle": 100, "pace": 2, "shared": 1000, "burst": 1000, "big_mails": (40, 100), "site_rounds": 16},
}


@dataclass
class Row:
    name: str
    result: str            # the figure, readable ("0.128 s per game")
    detail: str = ""       # how it was measured
    seconds: float | None = None
    skipped: bool = False
    cpu: float | None = None   # CPU time (user+sys) of the same measurement: the honest figure on a shared machine

    @property
    def cpu_text(self) -> str:
        return "-" if self.cpu is None else _fmt(self.cpu)


@dataclass
class BenchReport:
    size: str
    rows: list[Row] = field(default_factory=list)
    machine: dict[str, str] = field(default_factory=dict)

    def table(self) -> str:
        w0 = max(len(r.name) for r in self.rows)
        w1 = max(len(r.result) for r in self.rows)
        w2 = max(len(r.cpu_text) for r in self.rows)
        out = [f"{'benchmark'.ljust(w0)}  {'result (wall)'.ljust(w1)}  {'CPU'.ljust(w2)}  how",
               f"{'-' * w0}  {'-' * w1}  {'-' * w2}  {'-' * 3}"]
        out += [f"{r.name.ljust(w0)}  {r.result.ljust(w1)}  {r.cpu_text.ljust(w2)}  {r.detail}" for r in self.rows]
        return "\n".join(out)

    def markdown(self) -> str:
        lines = ["| benchmark | result (wall time) | CPU time | how |", "|---|---|---|---|"]
        lines += [f"| {r.name} | {r.result} | {r.cpu_text} | {r.detail} |" for r in self.rows]
        return "\n".join(lines)


def machine() -> dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {"nproc": str(os.cpu_count() or "?"), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "load": load}


# --- games with their orders made beforehand -------------------------------------------------------------
@dataclass
class RecordedGame:
    game_id: str
    secret: bytes
    orders: list[dict[str, NationOrders]]     # what orders_for returned, step by step
    texts: list[tuple[str, str]]              # (nation, text) of every order mail
    selfplay_seconds: float
    stats: Stats
    selfplay_cpu: float = 0.0                 # CPU seconds of the same game


def record_games(rs: Ruleset, n: int, seed: int = 1, bot: str = "greedy") -> list[RecordedGame]:
    out = []
    for i in range(n):
        g = BotGame(rs, seed + i, bot=bot, keep_texts=True)
        seq: list[dict[str, NationOrders]] = []
        inner = g.orders_for

        def orders_for(state, inner=inner, seq=seq):
            o = inner(state)
            seq.append(o)
            return o

        g.orders_for = orders_for          # type: ignore[method-assign]
        c0 = time.process_time()
        res = g.play()
        cpu = time.process_time() - c0
        texts = [(rec["nation"], rec["text"]) for rec in g.records]
        out.append(RecordedGame(g.game_id, g.secret, seq, texts, res.seconds, res.stats, cpu))
    return out


def engine_time(rs: Ruleset, game: RecordedGame) -> tuple[float, float]:
    """Wall and CPU seconds in flow.step for the whole game (orders given). Each step hands its state
    over (`consume`, as the live play and the replay do): nothing here uses a position again."""
    state = new_game_state(rs, game.game_id)
    dice = HmacDice(game.secret)
    t0, c0 = time.perf_counter(), time.process_time()
    for orders in game.orders:
        state = flow_step(rs, state, orders, dice, consume=True).state
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    if not state.finished:
        raise RuntimeError(f"{game.game_id}: the replayed game did not finish")
    return took, cpu


def best_of(runs: int, measure: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    """The best wall time and the best CPU time of `runs` measurements (each its own minimum: on a
    shared machine the least disturbed run of each clock is the closest to the code's own cost)."""
    got = [measure() for _ in range(runs)]
    return min(w for w, _ in got), min(c for _, c in got)


def _fmt(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


# --- the rows ----------------------------------------------------------------------------------------
def bench_engine(rs: Ruleset, games: list[RecordedGame], *, selfplay_row: bool = True) -> list[Row]:
    both = [best_of(5, lambda g=g: engine_time(rs, g)) for g in games]
    times = [w for w, _ in both]
    cpus = [c for _, c in both]
    median = statistics.median(times)
    steps = statistics.fmean(len(g.orders) for g in games)
    label = "engine: 16-round 4-player bot game" + ("" if rs.id == "classic" else f" ({rs.id})")
    rows = [Row(label, f"{_fmt(median)} per game (median)",
                f"flow.step only (each step handed its state, as live play and replay do), orders made beforehand by "
                f"greedy bots; {len(games)} game(s), best of 5 runs each "
                f"(the machine is shared); min {_fmt(min(times))}, mean {_fmt(statistics.fmean(times))}, max "
                f"{_fmt(max(times))}; CPU min {_fmt(min(cpus))}, max {_fmt(max(cpus))}; {steps:.0f} steps a game; "
                f"goal < 100 ms", median, cpu=statistics.median(cpus))]
    if not selfplay_row:
        return rows
    sp = [g.selfplay_seconds for g in games]
    st = Stats()
    for g in games:
        st.add(g.stats)
    k = len(games)
    rows.append(Row("self-play: whole greedy game", f"{_fmt(statistics.fmean(sp))} per game",
                    f"bots {_fmt(st.bots / k)}, parse {_fmt(st.parse / k)}, validate {_fmt(st.validate / k)}, "
                    f"engine {_fmt(st.engine / k)} a game (wall)", statistics.fmean(sp),
                    cpu=statistics.fmean(g.selfplay_cpu for g in games)))
    return rows


def order_mails(games: list[RecordedGame], n: int) -> list[tuple[str, str]]:
    """n order mails (nation, text) written by bots, with GAME and TOKEN lines as players send them."""
    pool = [(nat, f"GAME {g.game_id}\nTOKEN 8f2c41\n{text}") for g in games for nat, text in g.texts]
    if not pool:
        return []
    return [pool[i % len(pool)] for i in range(n)]


def bench_parse(rs: Ruleset, mails: list[tuple[str, str]]) -> Row:
    lines = sum(t.count("\n") for _, t in mails)

    def once() -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        for nation, text in mails:
            parse_message(text, rs, default_nation=nation)
        return time.perf_counter() - t0, time.process_time() - c0

    best, cpu = best_of(3, once)
    rate = len(mails) / best if best else float("inf")
    return Row(f"parse {len(mails)} order mails", f"{_fmt(best)} ({rate:,.0f} mails/s)",
               f"parse_message on bot-written mails ({lines} lines, {lines / max(len(mails), 1):.1f} a mail); best of 3",
               best, cpu=cpu)


def bench_render(rs: Ruleset, runs: int = 5) -> Row:
    name = "map render"
    from pbem.render.bench import render_seconds

    got = render_seconds(runs=runs, ruleset=rs)
    cpu = render_seconds(runs=runs, ruleset=rs, clock=time.process_time)
    return Row(name, f"{_fmt(float(got))}",
               f"pbem.render.bench.render_seconds(): the start position, best of {runs} after a warm-up; goal < 300 ms",
               float(got), cpu=float(cpu))


def bench_folder(rs: Ruleset, mails: list[tuple[str, str]], n: int) -> Row:
    name = f"poll a {n}-message folder"
    from pbem.mail.folder import FolderTransport
    from pbem.mail.message import read_message

    if not mails:
        return Row(name, "skipped", "no mails", skipped=True)
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        inbox = Path(tmp) / "inbox"
        inbox.mkdir()
        for i in range(n):
            nation, text = mails[i % len(mails)]
            (inbox / f"{i:05d}-{nation}.txt").write_text(f"From: player{i % 4}@example.org\n{text}", encoding="utf-8")
        transport = FolderTransport(inbox)
        t0, c0 = time.perf_counter(), time.process_time()
        got = transport.fetch()
        fetch, fetch_cpu = time.perf_counter() - t0, time.process_time() - c0
        detail = f"FolderTransport.fetch() of {len(got)} .txt order files"
        total = fetch
        if read_message is not None:
            try:
                t1 = time.perf_counter()
                for inc in got:
                    read_message(inc.raw)
                total += time.perf_counter() - t1
                detail += f"; + read_message of each: {_fmt(total)} in all"
            except Exception as e:  # noqa: BLE001 - another module's API may differ; the fetch figure stands
                detail += f"; read_message skipped ({type(e).__name__})"
    return Row(name, f"{_fmt(fetch)}", detail, fetch, cpu=fetch_cpu)


DONE = ".bench-archived"
STEP_TIMES: list[tuple[float, float, float]] = []   # (seconds, of them in fsync, CPU seconds) of each play_turn


class _FsyncClock:
    """Counts the seconds spent in os.fsync while installed (the disk's share of a store step)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._real = None

    def __enter__(self) -> _FsyncClock:
        self._real = real = os.fsync

        def fsync(fd):
            t0 = time.perf_counter()
            try:
                return real(fd)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        os.fsync = fsync
        return self

    def __exit__(self, *exc) -> None:
        os.fsync = self._real


FSYNC = _FsyncClock()


def archive_games(rs: Ruleset, folder: Path, games: list[RecordedGame], players: int = 4,
                  max_round: int = 16) -> list[Path]:
    """Play the recorded games again through the store (create_game, record_orders, play_turn), so
    they are archived as real games are (up to the end of round `max_round`). Returns the game folders;
    a folder already there (an archive dir kept between runs) is used as it is."""
    from pbem.service.play import play_turn as _play_turn
    from pbem.store.game import create_game

    def play_turn(*args, **kw):
        t0, c0 = time.perf_counter(), time.process_time()
        f0 = FSYNC.seconds
        try:
            return _play_turn(*args, **kw)
        finally:
            STEP_TIMES.append((time.perf_counter() - t0, FSYNC.seconds - f0, time.process_time() - c0))

    out = []
    for g in games:
        gid = g.game_id if max_round >= 16 else f"{g.game_id}-r{max_round}"
        path = folder / gid
        if (path / DONE).exists():
            out.append(path)
            continue
        if path.exists():
            shutil.rmtree(path)        # an archive cut short (an earlier run stopped): made again
        game = create_game(folder, gid, players=players, secret=g.secret)
        texts = list(g.texts)
        state = game.state
        while not state.finished:
            if state.next_nation is None:      # the start of a round (flow.step plays a round's end with its last turn)
                if state.round > max_round:
                    break
                orders: dict[str, int] = {}
                if votes_owed(rs, state):
                    for _nation in sorted(vote_options(rs, state)):
                        nat, text = texts.pop(0)
                        orders[nat] = game.record_orders(nat, game.player_of(nat), text)
                play_turn(game, step="start_round", orders=orders)
            else:
                nation = state.next_nation
                nat, text = texts.pop(0)
                if nat != nation:
                    raise RuntimeError(f"{gid}: the archived game went another way ({nat} wrote, {nation} to move)")
                eid = game.record_orders(nat, game.player_of(nat), text)
                play_turn(game, nation, orders={nation: eid})
            state = game.state
        (path / DONE).write_text("archived by pbem bench\n", encoding="utf-8")
        out.append(path)
    return out


def bench_replay(rs: Ruleset, games: list[RecordedGame], n: int, archive_dir: Path | None, distinct: int,
                 rounds: int = 16, runs: int = 3) -> list[Row]:
    what = "archived games" if rounds >= 16 else f"archived games (first {rounds} round{'s' if rounds > 1 else ''})"
    name = f"replay + verify {n} {what}"
    if n <= 0:
        return [Row(name, "skipped", "not asked for", skipped=True)]
    from pbem.store.replaymany import replay_many

    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
            folder = Path(archive_dir) if archive_dir else Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            STEP_TIMES.clear()
            t0 = time.perf_counter()
            with FSYNC:
                dirs = archive_games(rs, folder, games[:max(1, distinct)], max_round=rounds)
            made = time.perf_counter() - t0
            if not dirs:
                return [Row(name, "skipped", "no game could be archived", skipped=True)]
            rows.append(bench_store_step(made, len(dirs)))
            sources = [str(p) for p in game_copies(dirs, n, folder / "copies")]
            results = {}
            for jobs in (0, 1):        # 0: `pbem replay FOLDER` as it runs by default (one process per CPU)
                best = cpu = float("inf")
                for _ in range(runs if jobs == 0 else 1):      # the headline gets the best of `runs`
                    t0, c0 = time.perf_counter(), _cpu_with_children()
                    res = list(replay_many(sources, jobs=jobs))
                    best = min(best, time.perf_counter() - t0)
                    cpu = min(cpu, _cpu_with_children() - c0)
                results[jobs] = (best, cpu, res)
    except Exception as e:  # noqa: BLE001 - another engineer's module: report, never fail the bench
        return rows + [Row(name, "skipped", f"pbem.store failed: {type(e).__name__}: {e}", skipped=True)]
    took, cpu, res = results[0]
    steps = sum(r.steps for r in res)
    bad = sum(not r.ok for r in res)
    took1, cpu1, res1 = results[1]
    bad += sum(not r.ok for r in res1)
    detail = (f"`pbem replay FOLDER` (pbem.store.replaymany; by default one process per CPU: {cpus()} here) of "
              f"{n} game folders, {steps} steps in all; best of {runs} runs; CPU of all processes; in one "
              f"process (-j 1, one run): {_fmt(took1)} wall, {_fmt(cpu1)} CPU ({_fmt(cpu1 / n)} a game); "
              f"{len(dirs)} distinct bot game(s) archived through the store (create_game, record_orders, "
              f"play_turn), each copied to {max(1, n // len(dirs))} folder(s) with its log index rebuilt as a "
              f"`pbem run` would; {bad} diverged{_first_problem(res + res1)}; goal < 10 s")
    rows.append(Row(name, f"{_fmt(took)} ({_fmt(took / n)} a game)", detail, took, cpu=cpu))
    return rows


def _first_problem(results: list) -> str:
    bad = next((r for r in results if not r.ok), None)
    return f" (the first: {bad.line()})" if bad is not None else ""


def game_copies(dirs: list[Path], n: int, folder: Path) -> list[Path]:
    """n game folders: copies of the archived games in turn (folder/<k>/<game id>: a game's folder
    is named after its id), so the replay reads n folders as it would n archived games. A copy's log
    index (a cache keyed by each file's inode and times) is rebuilt by reading its log once, as the
    first `pbem run` after an import does; copies kept from an earlier run are used as they are."""
    from pbem.store.game import Game

    out = []
    for i in range(n):
        src = dirs[i % len(dirs)]
        dst = folder / str(i // len(dirs)) / src.name
        if not (dst / DONE).exists():
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".log-index.jsonl", DONE))
            Game.open(dst).entries()
            (dst / DONE).write_text("copied by pbem bench\n", encoding="utf-8")
        out.append(dst)
    return out


def _cpu_with_children() -> float:
    """CPU seconds (user+sys) of this process and of its children waited for (replay -j N workers)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_store_step(made: float, games: int) -> Row:
    """One step through the store: play_turn = log the turn entry, adjudicate, save state.yaml."""
    name = "store: one step (play_turn)"
    if not STEP_TIMES:
        return Row(name, "skipped", "no step archived in this run (archive dir reused)", skipped=True)
    total = sorted(t for t, _, _ in STEP_TIMES)
    nofsync = sorted(t - f for t, f, _ in STEP_TIMES)
    disk = statistics.median(f for _, f, _ in STEP_TIMES)
    process = statistics.median(c for _, _, c in STEP_TIMES)
    per_fsync = FSYNC.seconds / FSYNC.calls if FSYNC.calls else 0.0
    return Row(name, f"{_fmt(statistics.median(total))} median",
               f"{len(total)} play_turn calls of {games} archived game(s) ({_fmt(made)} in all, with record_orders); "
               f"without the fsyncs: {_fmt(statistics.median(nofsync))} median, {_fmt(nofsync[0])} best; fsync: "
               f"{_fmt(disk)} a step ({FSYNC.calls} calls, {_fmt(per_fsync)} each on this disk); goal < 20 ms",
               statistics.median(total), cpu=process)


def bench_idle_run(n: int, runs: int = 5) -> Row:
    """`pbem run` in a fresh process on a folder of n games that wait for orders (after one run that
    prompted them): what cron pays every few minutes."""
    import resource
    import subprocess

    name = f"idle `pbem run` on {n} waiting games"
    if n <= 0:
        return Row(name, "skipped", "not asked for", skipped=True)
    from datetime import UTC, datetime

    from pbem.service.job import run_job
    from pbem.store.game import create_game

    with tempfile.TemporaryDirectory(prefix="pbem-bench-idle-") as tmp:
        games = Path(tmp) / "games"
        now = datetime.now(UTC).replace(microsecond=0)
        for i in range(n):
            create_game(games, f"g{i:03d}", secret=f"bench idle game {i:06d}".encode(), time=now.isoformat())
        run_job(games, now=now, render_map=False)          # the prompts go out; every game waits now
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")   # compiled modules, as an installed pbem has
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")

        def timed(args: list[str]) -> tuple[float, float]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        cmd = [sys.executable, "-m", "pbem.cli", "run", str(games), "-q", "--no-map"]
        timed(cmd)                                          # the run that notes them idle (and compiles)
        got = [timed(cmd) for _ in range(runs)]
        bare = min(timed([sys.executable, "-c", "pass"]) for _ in range(runs))
    wall = min(w for w, _ in got)
    cpu = min(c for _, c in got)
    return Row(name, f"{_fmt(wall)} wall (best of {runs})",
               f"a fresh `python -m pbem.cli run DIR -q` each time; CPU (user+sys) {_fmt(cpu)}; a bare "
               f"`python -c pass` took {_fmt(bare[0])} wall, {_fmt(bare[1])} CPU at the same time; goal < 0.3 s wall",
               wall, cpu=cpu)


BASELINE = "PBEM_BENCH_BASELINE"
"""Environment variable: a checkout of an older pbem. The rows of issue 33 then time the same command
with that code too, on a copy of the same folder, in the same minute ("old" in the row)."""


def _python_env(tmp: Path, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / f"pycache-{root.name}")   # compiled modules, as installed
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# A small process between the bench and the command it times: a child's peak RSS (ru_maxrss) counts
# the memory of the process it was forked from (Linux keeps the high-water mark across exec), so a
# child forked from the bench, grown by the rows before, would report the bench's size. The
# trampoline, a bare interpreter, forks the command and reports its wall, CPU and peak RSS on a pipe.
_TRAMPOLINE = """import os, sys, time
out = int(sys.argv[1])
os.set_inheritable(out, False)
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_pid, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
os.write(out, f"{wall} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}".encode())
"""


def _child_run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, int]:
    """Wall, CPU (user+sys) and peak RSS (KiB) of one child process (forked by `_TRAMPOLINE`, so its
    peak is its own: `args[0]` must be an executable's path)."""
    import subprocess

    read, write = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", _TRAMPOLINE, str(write), *args], env=env, cwd=cwd,
                                stdout=subprocess.DEVNULL, pass_fds=(write,))
        os.close(write)
        write = -1
        report = b""
        while chunk := os.read(read, 4096):
            report += chunk
        proc.wait()
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    if proc.returncode or not report:
        raise RuntimeError(f"{' '.join(args[:4])} ... the trampoline exited {proc.returncode}")
    wall, cpu, rss, code = report.decode().split()
    if int(code):
        raise RuntimeError(f"{' '.join(args[:4])} ... exited {code}")
    return float(wall), float(cpu), int(rss)


def _timed_runs(folder: Path, tmp: Path, root: Path, args: list[str], runs: int) -> tuple[float, float, int]:
    """Best wall and best CPU of `runs` fresh `python -m pbem.cli ARGS` over `folder`, after one
    warm-up run (it notes the games idle and compiles the modules); the highest peak RSS."""
    env = _python_env(tmp, root)
    cmd = [sys.executable, "-m", "pbem.cli", *args]
    _child_run(cmd, env, cwd=root)
    got = [_child_run(cmd, env, cwd=root) for _ in range(runs)]
    return min(w for w, _, _ in got), min(c for _, c, _ in got), max(m for _, _, m in got)


def _baseline() -> Path | None:
    path = os.environ.get(BASELINE)
    return Path(path).resolve() if path and (Path(path) / "pbem" / "cli.py").is_file() else None


def _old_beside(folder: Path, tmp: Path, args_of: Callable[[Path], list[str]], runs: int) -> str:
    """'; old code (DIR): X wall, Y CPU' measured now on a copy of `folder`, or ''."""
    old = _baseline()
    if old is None:
        return f"; set {BASELINE}=<checkout of an older pbem> for the old figure beside it"
    copy = tmp / "old-copy"
    shutil.copytree(folder, copy, symlinks=True)
    try:
        wall, cpu, rss = _timed_runs(copy, tmp, old, args_of(copy), runs)
    except Exception as e:  # noqa: BLE001 - the old code may not run this at all
        return f"; old code ({old}) failed: {type(e).__name__}: {e}"
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return f"; OLD code ({old.name}): {_fmt(wall)} wall, {_fmt(cpu)} CPU, peak {rss // 1024} MiB"


def _waiting_games(games: Path, n: int, config: str) -> None:
    """n games waiting for their first orders under one games folder with pbem.yaml `config`."""
    from datetime import UTC, datetime

    from pbem.service.job import run_job
    from pbem.store.game import create_game

    games.mkdir(parents=True)
    (games / "pbem.yaml").write_text(config, encoding="utf-8")
    now = datetime.now(UTC).replace(microsecond=0)
    for i in range(n):
        create_game(games, f"g{i:04d}", secret=f"bench idle game {i:06d}".encode(), time=now.isoformat())
    run_job(games, now=now, render_map=False)          # the prompts go out; every game waits now


SHARED_MAILBOX = "from: pbem@example.org\nmail:\n  - {type: folder, inbox: mailbox, outbox: outbox}\n"


def bench_idle_shared(n: int, runs: int = 3) -> list[Row]:
    """`pbem run` over n waiting games whose mail comes through the site's mailbox (pbem.yaml `mail:`,
    here a shared mail folder: the same path through the job as IMAP, without a server), then the
    same folder with `site_dir:` added (issue 33 items 1, 2)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="pbem-bench-shared-") as tmp:
        tmp_path = Path(tmp)
        games = tmp_path / "games"
        if n > 0:
            _waiting_games(games, n, SHARED_MAILBOX)
        for site in (False, True):
            name = f"idle `pbem run` on {n} waiting games, shared mailbox" + (", site_dir set" if site else "")
            if n <= 0:
                rows.append(Row(name, "skipped", "not asked for at this size", skipped=True))
                continue
            if site:   # inside the games folder, so that the old code's copy has its own
                (games / "pbem.yaml").write_text(SHARED_MAILBOX + "site_dir: site\n", encoding="utf-8")
            root = Path(__file__).resolve().parents[2]
            args_of = lambda folder: ["run", str(folder), "-q", "--no-map"]   # noqa: E731
            wall, cpu, _ = _timed_runs(games, tmp_path, root, args_of(games), runs)
            old = _old_beside(games, tmp_path, args_of, runs)
            rows.append(Row(name, f"{_fmt(wall)} wall (best of {runs})",
                            f"a fresh `python -m pbem.cli run DIR -q --no-map` each time after one warm-up run; "
                            f"CPU (user+sys) {_fmt(cpu)}{old}; goal < {0.4 if site else 0.3} s wall", wall, cpu=cpu))
    return rows


BURST_PLAYERS = [("ann", "ann@x.org"), ("bob", "bob@x.org"), ("cy", "cy@x.org"), ("di", "di@x.org")]


def _waiting_game(tmp_path: Path, secret: bytes):
    """A 4-player game in tmp_path/games whose first run is done (it waits for orders):
    (games folder, game, its inbox, the time of that run)."""
    from datetime import UTC, datetime

    from pbem.service.job import run_job
    from pbem.store.game import create_game

    games = tmp_path / "games"
    now = datetime.now(UTC).replace(microsecond=0)
    game = create_game(games, "t1", players=4, player_specs=BURST_PLAYERS, secret=secret, time=now.isoformat())
    run_job(games, now=now, render_map=False)
    inbox = game.path / "inbox"
    inbox.mkdir(exist_ok=True)
    return games, game, inbox, now


def _alternated_runs(saved: Path, tmp_path: Path, runs: int, *,
                     flush: bool = False) -> tuple[dict[str, list[tuple[float, float, int]]], str]:
    """`python -m pbem.cli run DIR -q --no-map` on a fresh copy of `saved` each time, `runs` times for the
    new code and, with a baseline, as often for the old code, alternated (`flush`: the disk flushed
    before each run): ({"new"/"OLD": [(wall, CPU, peak KiB)]}, why the old code failed or '').

    Each run's copy is kept until the caller's temporary folder goes, not removed before the next
    run: on ext4 the files a run creates right after thousands were deleted next to them cost the
    kernel far more (measured on a burst of 1 000 mails: 0.75-1.4 s of system time against 0.3-0.5 s
    with nothing deleted, the same code, alternated), which would charge the previous run's clean-up
    to the run timed."""
    roots = [("new", Path(__file__).resolve().parents[2])]
    if _baseline() is not None:
        roots.append(("OLD", _baseline()))
    got: dict[str, list[tuple[float, float, int]]] = {}
    failed = ""
    for k in range(runs):
        for label, root in roots:
            folder = tmp_path / f"{label}{k}"
            shutil.copytree(saved, folder, symlinks=True)
            if flush:
                os.sync()
            try:
                got.setdefault(label, []).append(_child_run(
                    [sys.executable, "-m", "pbem.cli", "run", str(folder), "-q", "--no-map"],
                    _python_env(tmp_path, root), cwd=root))
            except Exception as e:  # noqa: BLE001 - the old code may not run this at all
                if label == "new":
                    raise
                failed = f"; old code ({root}) failed: {type(e).__name__}: {e}"
    return got, failed


def bench_mail_burst(n: int, runs: int = 3) -> Row:
    """One `pbem run` taking n order mails into one game (its four players in turn, each a PASS with
    the player's token): the intake should be linear in the number of mails (issue 33 item 3). Each
    run on a fresh copy of the same folder, the disk flushed before it (the copy's own writes would
    otherwise be written out during the run); with a baseline, the old code's runs alternate with
    the new code's."""
    name = f"`pbem run` taking {n} order mails into one game"
    if n <= 0:
        return Row(name, "skipped", "not asked for at this size", skipped=True)
    with tempfile.TemporaryDirectory(prefix="pbem-bench-burst-") as tmp:
        tmp_path = Path(tmp)
        games, game, inbox, now = _waiting_game(tmp_path, b"burst bench secret, one game")
        for i in range(n):
            p = game.player(BURST_PLAYERS[i % 4][0])
            (inbox / f"{i:05d}.eml").write_text(
                f"From: {p['address']}\nSubject: [t1] orders\nMessage-ID: <m{i}@x.org>\n\nTOKEN {p['token']}\nPASS\n",
                encoding="utf-8")
        saved = tmp_path / "saved"
        shutil.copytree(games, saved, symlinks=True)    # `games` kept: see _alternated_runs
        got, failed = _alternated_runs(saved, tmp_path, runs, flush=True)
    wall, cpu = min(w for w, _, _ in got["new"]), min(c for _, c, _ in got["new"])
    if failed:
        old = failed
    elif "OLD" in got:
        old = (f"; OLD code ({_baseline().name}), alternated with the new: {_fmt(min(w for w, _, _ in got['OLD']))} "
               f"wall, {_fmt(min(c for _, c, _ in got['OLD']))} CPU")
    else:
        old = f"; set {BASELINE}=<checkout of an older pbem> for the old figure beside it"
    return Row(name, f"{_fmt(wall)} wall (best of {runs})",
               f"a fresh `python -m pbem.cli run DIR -q --no-map` on a copy of the same folder each time, the disk "
               f"flushed first; CPU (user+sys) {_fmt(cpu)}{old}; goal < 3 s wall at 1 000", wall, cpu=cpu)


def bench_big_mails(sizes_mb: tuple[int, ...], runs: int = 2) -> Row:
    """Peak RSS of one `pbem run` taking mails of these sizes (MB) into a waiting game: each a
    player's mail with a big text attachment, answered as too large (issue 33 item 4)."""
    name = "peak RSS of a `pbem run` taking mails of " + " + ".join(f"{m} MB" for m in sizes_mb)
    if not sizes_mb:
        return Row(name, "skipped", "not asked for at this size", skipped=True)
    import base64

    with tempfile.TemporaryDirectory(prefix="pbem-bench-big-") as tmp:
        tmp_path = Path(tmp)
        games, game, inbox, now = _waiting_game(tmp_path, b"big mail bench secret")
        p = game.player("ann")
        for i, mb in enumerate(sizes_mb):
            line = base64.b64encode(os.urandom(57)) + b"\n"
            with open(inbox / f"{i:03d}.eml", "wb") as fh:
                fh.write(f"From: {p['address']}\nSubject: [t1] orders\nMessage-ID: <big{i}@x.org>\nMIME-Version: 1.0\n"
                         f"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\n"
                         f"TOKEN {p['token']}\nPASS\n--b\nContent-Type: application/octet-stream\n"
                         f"Content-Transfer-Encoding: base64\n\n".encode())
                fh.write(line * (mb * 1000 * 1000 // len(line)))
                fh.write(b"--b--\n")
        saved = tmp_path / "saved"
        shutil.copytree(games, saved)
        got, failed = _alternated_runs(saved, tmp_path, runs)
        if failed:
            raise RuntimeError(failed.removeprefix("; "))
    peak = {label: max(m for _, _, m in runs_) / 1024 for label, runs_ in got.items()}
    wall, cpu = min(w for w, _, _ in got["new"]), min(c for _, c, _ in got["new"])
    old = (f"; OLD code ({_baseline().name}): peak {peak['OLD']:.0f} MiB, {_fmt(min(w for w, _, _ in got['OLD']))} wall"
           if "OLD" in peak else f"; set {BASELINE}=<checkout of an older pbem> for the old figure beside it")
    return Row(name, f"{peak['new']:.0f} MiB peak (highest of {runs})",
               f"ru_maxrss of a fresh `python -m pbem.cli run DIR -q --no-map`, {_fmt(wall)} wall, CPU {_fmt(cpu)}"
               f"{old}; goal < 150 MiB", wall, cpu=cpu)


def bench_site_of_archived(rs: Ruleset, games: list[RecordedGame], rounds: int) -> Row:
    """`pbem site` of one archived game of `rounds` rounds (no turn mail in its outbox, as an imported
    game: every map drawn), in a fresh process: wall, CPU with its map workers, peak RSS (issue 33 item 2)."""
    name = f"site of one archived {rounds}-round game (every map drawn)"
    if rounds <= 0 or not games:
        return Row(name, "skipped", "not asked for at this size", skipped=True)
    with tempfile.TemporaryDirectory(prefix="pbem-bench-site-") as tmp:
        tmp_path = Path(tmp)
        folder = tmp_path / "games"
        folder.mkdir()
        [game_dir] = archive_games(rs, folder, games[:1], max_round=rounds)
        roots = [("new", Path(__file__).resolve().parents[2])]
        if _baseline() is not None:
            roots.append(("OLD", _baseline()))
        got: dict[str, list[tuple[float, float, int]]] = {}
        for k in range(2):
            for label, root in roots:
                out = tmp_path / f"site-{label}{k}"
                got.setdefault(label, []).append(_child_run(
                    [sys.executable, "-m", "pbem.cli", "site", str(folder), "--out", str(out)],
                    _python_env(tmp_path, root), cwd=root))
                maps = len(list((out / game_dir.name / "maps").glob("*.png")))   # OUT kept: see _alternated_runs

    def figures(label: str) -> str:
        runs = got[label]
        return (f"{_fmt(min(w for w, _, _ in runs))} wall, {_fmt(min(c for _, c, _ in runs))} CPU "
                f"(with its workers), peak {max(m for _, _, m in runs) // 1024} MiB (its largest process)")

    old = f"; OLD code ({_baseline().name}): {figures('OLD')}" if "OLD" in got else \
        f"; set {BASELINE}=<checkout of an older pbem> for the old figure beside it"
    wall = min(w for w, _, _ in got["new"])
    return Row(name, f"{_fmt(wall)} wall (best of 2)",
               f"a fresh `python -m pbem.cli site DIR --out OUT` into an empty OUT, {maps} maps, {cpus()} CPU(s): "
               f"{figures('new')}{old}; goals < 8 s on 2 cores, < 150 MiB", wall,
               cpu=min(c for _, c, _ in got["new"]))


def bench_pace(rs: Ruleset, games: int, seed: int = 1) -> list[Row]:
    """Calendar days per whole game by mail, per way of playing (pbem.bots.pace, issue 32)."""
    from pbem.bots.pace import STYLES, PaceSettings, assumptions, simulate

    rows = []
    for style in STYLES:
        name = f"pace: a whole game by mail, orders sent {'when asked' if style == 'asked' else 'ahead for the round'}"
        if games < 1:
            rows.append(Row(name, "skipped", "not asked for at this size", skipped=True))
            continue
        s = PaceSettings(ruleset=rs.id, style=style)
        t0, c0 = time.perf_counter(), time.process_time()
        results = simulate(s, games, seed)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        days = statistics.fmean(r.days for r in results)
        sent = statistics.fmean(r.mails_sent for r in results)
        received = statistics.fmean(r.mails_received for r in results)
        nmr = statistics.fmean(r.nmr for r in results)
        rows.append(Row(name, f"{days:.1f} days a game, {sent:.0f} mails sent / {received:.0f} received per player",
                        f"{games} simulated {rs.id} game(s) through `pbem run` on a simulated clock, "
                        f"{nmr:.1f} missed deadlines a game; {assumptions(s)}; simulation took {_fmt(wall)}",
                        wall, cpu=cpu))
    return rows


def _old_odds():
    """The first exact odds search, kept word for word as the test oracle (issue 33: the old figure
    beside the new); None when the tests are not beside the package (an installed pbem)."""
    import importlib.util

    import pbem

    path = Path(pbem.__file__).resolve().parent.parent / "tests" / "rules" / "test_rule_8_odds_as_before.py"
    spec = importlib.util.spec_from_file_location("odds_as_before", path)
    if spec is None or spec.loader is None or not path.exists():
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:       # pytest not installed
        return None
    return module.old_battle_odds


def bench_odds(rs: Ruleset, runs: int = 15) -> list[Row]:
    """`pbem odds` (ODDS lines): the dynamic programme of rules.odds against the first exact search,
    the old one timed once in the same minute (it takes seconds, or refuses). Best of 15: a battle
    takes milliseconds, and a shared machine's speed can swing by half within seconds."""
    from pbem.errors import PbemError
    from pbem.rules.odds import Side, battle_odds, battle_work

    old = _old_odds()
    rows = []
    for name, att, dfd, hiland, goal in (
            ("20 v 17, a leader with the attackers, hiland", Side(20, leader=True), Side(17), True, "goal < 20 ms"),
            ("20 v 17, clear", Side(20), Side(17), False, "the largest the first search did"),
            ("30 v 30, clear", Side(30), Side(30), False, "goal well under 1 s")):
        def new(att=att, dfd=dfd, hiland=hiland) -> tuple[float, float]:
            t0, c0 = time.perf_counter(), time.process_time()
            battle_odds(rs, att, dfd, hiland=hiland)
            return time.perf_counter() - t0, time.process_time() - c0

        wall, cpu = best_of(runs, new)
        if old is None:
            before = "old search: not available (run from the repository: its tests hold it)"
        else:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                same = old(rs, att, dfd, hiland=hiland) == battle_odds(rs, att, dfd, hiland=hiland)
                outcome = "same fractions" if same else "DIFFERENT fractions"
            except PbemError as e:
                outcome = f"refused: {str(e).split(' (')[0]}"
            before = (f"old search (once): {_fmt(time.perf_counter() - t0)} wall, "
                      f"{_fmt(time.process_time() - c0)} CPU, {outcome}")
        rows.append(Row(f"odds: {name}", _fmt(wall),
                        f"rules.odds.battle_odds, exact fractions, a dynamic programme over the battle's states "
                        f"({battle_work(att, dfd)} steps), best of {runs}; {before}; {goal}", wall, cpu=cpu))
    return rows


def run_bench(rs: Ruleset, size: str = "full", *, seed: int = 1, archive_dir: Path | None = None,
              progress: Callable[[str], None] | None = None, **override: int) -> BenchReport:
    """Run every benchmark; `override` replaces figures of the size (games, mails, folder, replay, ...)."""
    cfg = {**SIZES[size], **{k: v for k, v in override.items() if v is not None}}
    say = progress or (lambda _msg: None)
    report = BenchReport(size, machine=machine())
    n_games = max(cfg["games"], cfg["archive"] if cfg["replay"] else 0, 1)
    say(f"playing {n_games} greedy bot game(s) to record their orders")
    games = record_games(rs, n_games, seed)
    say("timing the engine")
    report.rows += bench_engine(rs, games[: max(cfg["games"], 1)])
    for other in ("ffg2",):   # every other ruleset's engine too (issue 17: < 200 ms a game)
        if other != rs.id:
            say(f"timing the engine on {other} games")
            ors = load_ruleset(other)
            report.rows += bench_engine(ors, record_games(ors, max(cfg["games"], 1), seed), selfplay_row=False)
    say("parsing order mails")
    random_games = record_games(rs, 1, seed, bot="random")
    mails = order_mails(games + random_games, cfg["mails"])
    report.rows.append(bench_parse(rs, mails))
    say("map render")
    report.rows.append(bench_render(rs, 2 if size == "tiny" else 5))
    say("mail folder")
    report.rows.append(bench_folder(rs, mails, cfg["folder"]))
    say("replay of archived games (the store)")
    report.rows += bench_replay(rs, games, cfg["replay"], archive_dir, cfg["archive"], cfg["replay_rounds"])
    say("battle odds")
    report.rows += bench_odds(rs, 2 if size == "tiny" else 15)
    say("idle pbem run")
    try:
        report.rows.append(bench_idle_run(cfg["idle"]))
    except Exception as e:  # noqa: BLE001 - report, never fail the bench
        report.rows.append(Row(f"idle `pbem run` on {cfg['idle']} waiting games", "skipped",
                               f"{type(e).__name__}: {e}", skipped=True))
    say("idle pbem run with the site's mailbox (issue 33)")
    try:
        report.rows += bench_idle_shared(cfg["shared"])
    except Exception as e:  # noqa: BLE001 - report, never fail the bench
        report.rows.append(Row("idle `pbem run`, shared mailbox", "skipped", f"{type(e).__name__}: {e}", skipped=True))
    say("a burst of order mails into one game (issue 33)")
    try:
        report.rows.append(bench_mail_burst(cfg["burst"]))
    except Exception as e:  # noqa: BLE001 - report, never fail the bench
        report.rows.append(Row("order mails into one game", "skipped", f"{type(e).__name__}: {e}", skipped=True))
    say("memory of a run taking big mails (issue 33)")
    try:
        report.rows.append(bench_big_mails(cfg["big_mails"]))
    except Exception as e:  # noqa: BLE001 - report, never fail the bench
        report.rows.append(Row("peak RSS of a run taking big mails", "skipped", f"{type(e).__name__}: {e}",
                               skipped=True))
    say("site of an archived game (issue 33)")
    try:
        report.rows.append(bench_site_of_archived(rs, games, cfg["site_rounds"]))
    except Exception as e:  # noqa: BLE001 - report, never fail the bench
        report.rows.append(Row("site of one archived game", "skipped", f"{type(e).__name__}: {e}", skipped=True))
    say("pace of a game by mail (simulated players)")
    report.rows += bench_pace(rs, cfg["pace"], seed)
    return report


NOTES_MARK = "<!-- notes: kept by pbem bench --write -->"


def benchmarks_md(report: BenchReport, previous: str = "") -> str:
    """The Markdown page; whatever follows NOTES_MARK in the previous page is kept (hand-written notes)."""
    notes = previous.split(NOTES_MARK, 1)[1] if NOTES_MARK in previous else "\n"
    return _page(report) + NOTES_MARK + notes


def _page(report: BenchReport) -> str:
    m = report.machine
    return "\n".join([
        "# Benchmarks",
        "",
        "Latest figures of `pbem bench` (written by `pbem bench --write BENCHMARKS.md`). Benchmarks are",
        "never asserted by the test suite; rerun them on the machine that will host the games.",
        "",
        f"Machine: {m.get('nproc')} CPU(s), {m.get('cpu')}; Python {m.get('python')} ({m.get('platform')}); "
        f"load average {m.get('load', '?')} when the run started (the machine is shared: figures are best of N).",
        f"Size: `{report.size}`. Date: {time.strftime('%Y-%m-%d')}.",
        "",
        report.markdown(),
        "",
    ])


if __name__ == "__main__":  # pragma: no cover
    from pbem.data.loader import load

    r = run_bench(load("classic"), sys.argv[1] if len(sys.argv) > 1 else "tiny", progress=print)
    print(r.table())
