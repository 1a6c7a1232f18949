"""Timing of the map picture: `python -m pbem.render.bench [--width 1600] [--runs 7]`.

`render_seconds()` renders the classic start position (37 land stacks and 15 Romans at sea) and
returns the best time of a few runs after one warm-up run (the warm-up builds the cached static layer
and the counter sprites, as the first picture of a long-running process would). Goal: < 0.3 s.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from pbem.rules.events import Battle, BattleEnd, Event, Moved


def start_state() -> Any:
    """The classic start position (rule 3.0)."""
    from pbem.data.loader import load
    from pbem.rules.turn import new_game_state

    return new_game_state(load("classic"), "bench")


def _ruleset() -> Any:
    from pbem.data.loader import load

    return load("classic")


def render_seconds(width_px: int = 1600, runs: int = 5, ruleset: Any = None, state: Any = None,
                   clock: Any = time.perf_counter) -> float:
    """Best seconds of `runs` renders (after one warm-up render), wall-clock unless another `clock`
    is given (time.process_time: the CPU time)."""
    from pbem.render.map import render_map

    ruleset = ruleset if ruleset is not None else _ruleset()
    state = state if state is not None else start_state()
    events = _landing_events(ruleset)
    kw = dict(title="Benchmark - round 1 (43-80) - Romans", events=events, width_px=width_px)
    render_map(ruleset, state, **kw)
    best = float("inf")
    for _ in range(max(1, runs)):
        t0 = clock()
        render_map(ruleset, state, **kw)
        best = min(best, clock() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"render_map: {render_seconds(args.width, args.runs):.3f} s (best of {args.runs}, width {args.width})")


if __name__ == "__main__":
    main()


def _landing_events(ruleset: Any) -> list[Event]:
    """A landing from the sea and its battle to draw: the first nation of the order of play lands from
    its start sea in a held area it may land in (the last by name), against the nation that starts there
    (classic: the Romans from the English Channel into Kent, against the Belgae). A first nation that
    starts on land only attacks from its first start area into a neighbour another nation holds."""
    nation = ruleset.order_of_play[0]
    held = {a: n for n in reversed(ruleset.order_of_play) for a in ruleset.nations[n].start if n != nation}
    sea = next((a for a in ruleset.nations[nation].start if ruleset.is_sea(a)), None)
    if sea is not None:
        origin = sea
        area = max(a for a in ruleset.neighbours(sea) if a in held and ruleset.nations[nation].landing.allows(a, sea))
    else:
        origin, area = next(((a, b) for a in ruleset.nations[nation].start for b in sorted(ruleset.neighbours(a))
                             if b in held), (None, None))
        if origin is None:
            return []
    defender = held[area]
    return [
        Moved(nation=nation, kind="armies", count=4 if sea else 1, path=[origin, area], leader=None, raiders=0,
              cycle=1, line=1),
        Battle(area=area, attacker=nation, defender=defender, cycle=1, lines=[]),
        BattleEnd(area=area, attacker=nation, defender=defender, rounds=1, outcome=f"{nation} won", winner=nation),
    ]
