"""`pbem selfplay` (bot games to the end, optionally fuzz-checked) and `pbem bench` (timings)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import click

from pbem.errors import PbemError


def _ruleset(ruleset_id: str):
    from pbem.data.loader import load

    return load(ruleset_id)


@click.command()
@click.option("--players", type=int, default=4, show_default=True, help="Players (the ruleset's control table).")
@click.option("--games", type=int, default=10, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Seed of the first game; game i uses seed+i (dice and bots), so one game is replayed alone "
                   "with --games 1 --seed <its seed>.")
@click.option("--bot", default="greedy", show_default=True,
              help="random | greedy, or one per player in control-table order (greedy,random,random,random).")
@click.option("--check", is_flag=True, help="Check the invariants after every step (fuzzing); exit 1 on a "
                                            "violation or a bot line the parser, validator or engine refused.")
@click.option("--dump-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("selfplay-failures"),
              show_default=True, help="Where a failing game is written (seed-<n>/repro.yaml).")
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="Games played in parallel processes.")
@click.option("--ruleset", "ruleset_id", default="classic", show_default=True)
@click.option("--position", "position", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Play on from this position (docs/POSITIONS.md) instead of the start of the game.")
def selfplay(players: int, games: int, seed: int, bot: str, check: bool, dump_dir: Path, jobs: int,
             ruleset_id: str, position: str | None) -> None:
    """Bots play whole games (their orders are written as text and parsed back); prints the winners by
    player, the score spread and the timing."""
    from pbem.bots.selfplay import Stats, bot_kinds, play_many

    rs = _ruleset(ruleset_id)
    start = None
    if position:
        from pbem.position.file import read_position_file

        pos = read_position_file(position, ruleset=rs)
        for w in pos.warnings:
            click.echo(f"warning: {w}", err=True)
        if pos.start == "end_of_round":
            from pbem.rules.turn import end_round

            start, _ = end_round(rs, pos.state)
        else:
            start = pos.state
    if players not in rs.control:
        raise click.BadParameter(f"no control table for {players} players (have {sorted(rs.control)})",
                                 param_hint="--players")
    try:
        kinds = bot_kinds(rs, players, bot)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--bot") from None
    if games < 1:
        raise click.BadParameter("at least one game", param_hint="--games")
    seeds = list(range(seed, seed + games))
    table = rs.players_table(players)
    wins = dict.fromkeys(table, 0)
    ties = 0
    scores: dict[str, list[int]] = {p: [] for p in table}
    margins: list[int] = []
    totals = Stats()
    failed = []
    t0 = time.perf_counter()
    kw = {"bot": bot, "players": players, "check": check, "dump_dir": dump_dir if check else None, "start": start}
    with click.progressbar(length=games, label=f"{games} game(s)", file=sys.stderr,
                           show_pos=True, show_eta=True) as bar:
        for res in play_many(rs, seeds, jobs=max(1, jobs), **kw):
            bar.update(1)
            totals.add(res.stats)
            if res.winner is None:
                ties += 1
            else:
                for p in res.winner:
                    wins[p] += 1
            for p, v in res.by_player.items():
                scores[p].append(v)
            ranked = sorted(res.by_player.values(), reverse=True)
            margins.append(ranked[0] - ranked[1] if len(ranked) > 1 else ranked[0])
            if res.violations:
                failed.append(res)
    wall = time.perf_counter() - t0

    click.echo(f"Self-play: {games} game(s), {players} players, seeds {seeds[0]}..{seeds[-1]}, ruleset {rs.id}")
    click.echo("")
    click.echo("Winners by player:")
    wp = max(len(p) for p in table)
    click.echo(f"  {'player'.ljust(wp)}  {'bot'.ljust(6)}  {'wins':>5}  {'win %':>6}  {'mean VP':>7}  {'min':>4}  {'max':>4}  nations")
    for p, nations in table.items():
        v = scores[p]
        click.echo(f"  {p.ljust(wp)}  {kinds[p].ljust(6)}  {wins[p]:>5}  {100 * wins[p] / games:>5.1f}%  "
                   f"{statistics.fmean(v):>7.1f}  {min(v):>4}  {max(v):>4}  {', '.join(rs.display(n) for n in nations)}")
    if ties:
        click.echo(f"  ties for first place: {ties}")
    click.echo("")
    allv = [x for v in scores.values() for x in v]
    click.echo(f"Score spread: winner's lead over the second {statistics.fmean(margins):.1f} VP on average "
               f"(median {statistics.median(margins):.0f}, max {max(margins)}); player scores "
               f"{min(allv)}..{max(allv)}, standard deviation {statistics.pstdev(allv):.1f}")
    per = totals.steps / games
    click.echo(f"Timing: {wall:.2f} s in all, {wall / games:.3f} s a game with {max(1, jobs)} job(s). Per game: "
               f"engine {totals.engine / games:.3f} s ({per:.0f} steps), bots {totals.bots / games:.3f} s, "
               f"parse {totals.parse / games:.3f} s ({totals.mails / games:.0f} mails), validate "
               f"{totals.validate / games:.3f} s" + (f", checks {totals.check / games:.3f} s" if check else ""))
    click.echo(f"Bot lines refused (bugs): parser {len(totals.parse_problems)}, validate {len(totals.dropped)}, "
               f"engine {len(totals.engine_problems)}; second-movement lines the battles made impossible: "
               f"{totals.second_movement_dropped}")
    for what, items in (("parser", totals.parse_problems), ("validate", totals.dropped),
                        ("engine", totals.engine_problems)):
        for it in items[:10]:
            click.echo(f"  {what}: seed {it.get('seed')} round {it.get('round')} {it.get('nation')}: "
                       f"{it.get('line')!r}: {it.get('kind')}: {it.get('message')}")
    if check:
        if failed:
            click.echo(f"Invariants: {len(failed)} game(s) broke them:")
            for res in sorted(failed, key=lambda r: r.seed):
                click.echo(f"  seed {res.seed}: {res.violations[0]}" + (f" (+{len(res.violations) - 1} more)"
                                                                         if len(res.violations) > 1 else ""))
                if res.dump:
                    click.echo(f"    reproduction case: {res.dump / 'repro.yaml'}")
        else:
            click.echo("Invariants: checked after every step, no violation.")
        if failed or totals.bugs:
            raise SystemExit(1)


@click.command()
@click.option("--size", type=click.Choice(["tiny", "small", "full"]), default="full", show_default=True,
              help="How much to measure (tiny: a smoke test of a few seconds).")
@click.option("--games", type=int, default=None, help="Bot games timed for the engine (overrides the size).")
@click.option("--mails", type=int, default=None, help="Order mails parsed (overrides the size).")
@click.option("--folder", type=int, default=None, help="Messages in the polled folder (overrides the size).")
@click.option("--replay", type=int, default=None, help="Archived games replayed (overrides the size; 0 skips).")
@click.option("--archive-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep the archived games here and reuse them next time (archiving is slow).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--write", "write", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the figures as Markdown (e.g. BENCHMARKS.md).")
def bench(size: str, games: int | None, mails: int | None, folder: int | None, replay: int | None,
          archive_dir: Path | None, seed: int, write: Path | None) -> None:
    """Time the engine, the parser and (when there) the renderer, the mail folder and the store's
    replay on this machine; prints a table."""
    from pbem.bots.bench import benchmarks_md, run_bench

    rs = _ruleset("classic")
    try:
        report = run_bench(rs, size, seed=seed, archive_dir=archive_dir,
                           progress=lambda msg: click.echo(f"... {msg}", err=True),
                           games=games, mails=mails, folder=folder, replay=replay)
    except OSError as e:
        raise PbemError(f"bench: {e}") from e
    m = report.machine
    click.echo(f"Machine: {m['nproc']} CPU(s), {m['cpu']}, Python {m['python']}")
    click.echo(report.table())
    if write:
        previous = write.read_text(encoding="utf-8") if write.exists() else ""
        write.write_text(benchmarks_md(report, previous), encoding="utf-8")
        click.echo(f"written: {write}")


@click.command()
@click.option("--games", type=int, default=1, show_default=True, help="Games simulated per way of playing.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--ruleset", "ruleset_id", default="classic", show_default=True)
@click.option("--players", type=int, default=4, show_default=True)
@click.option("--style", type=click.Choice(["asked", "ahead", "both"]), default="both", show_default=True,
              help="asked: each nation's orders when it is asked; ahead: a player's orders for all their "
                   "nations still to come in the round in one mail.")
@click.option("--mean-hours", type=float, default=8.0, show_default=True, help="Mean answer delay while awake.")
@click.option("--miss", type=float, default=0.05, show_default=True, help="Chance a request is overlooked "
              "(half of them are answered after the reminder).")
@click.option("--turn-hours", type=float, default=72.0, show_default=True, help="The game's turn deadline.")
def pace(games: int, seed: int, ruleset_id: str, players: int, style: str, mean_hours: float, miss: float,
         turn_hours: float) -> None:
    """Simulate whole games by mail on a simulated clock and print the calendar days per game and the
    mails per player (simulated players answer after a realistic delay, sleep at night in their own
    time zones and now and then miss a deadline; every mail goes through the real `pbem run`)."""
    from pbem.bots.pace import STYLES, PaceSettings, assumptions, simulate_game, summary_line

    rs = _ruleset(ruleset_id)
    if players not in rs.control:
        raise click.BadParameter(f"{rs.id} has no table for {players} players", param_hint="--players")
    if games < 1 or not 0 <= miss < 1 or mean_hours <= 0 or turn_hours <= 0:
        raise click.BadParameter("--games >= 1, 0 <= --miss < 1, positive hours")
    for st in (STYLES if style == "both" else (style,)):
        s = PaceSettings(players=players, ruleset=rs.id, style=st, mean_hours=mean_hours, miss=miss,
                         turn_hours=turn_hours, reminder_hours=min(24.0, turn_hours / 3))
        with click.progressbar(length=games, label=f"{st}: {games} game(s)", file=sys.stderr) as bar:
            results = []
            for i in range(games):
                results.append(simulate_game(s, seed + i))
                bar.update(1)
        click.echo(summary_line(results))
    click.echo("Assumptions: " + assumptions(s))
