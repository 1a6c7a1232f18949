"""Stronger invariants for `pbem selfplay --check` (issue 31): what a step changes is what its events say.

- Units: a nation's armies and cavalry on the board (land and sea) change in a step exactly by what
  the step's events add and remove (arrivals, new armies, reinforcements, losses in battle, at sea,
  to overpopulation, withdrawals ...); a move only moves them.
- Victory points: a nation's score changes exactly by the ledger entries the step adds (rule 14.3),
  and every entry is named by an event of the step: captures, kills, holdings and the Limes by a
  `scored` event of the same nation, kind and points; crowns by the `king` / `bretwalda_vote` event,
  submissions by `submitted`, Brittany by its events.
- Arrival: no unit of a nation is on the board before the first round the ruleset brings it in (its
  starting pieces, an arrival, a reinforcement or a leader of the timeline).

Each check returns messages (empty: it holds); pbem/bots/selfplay.py runs them after every step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from pbem.rules import events as E
from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState


def units(state: GameState) -> Counter:
    """Armies and cavalry of each nation on the board, land and sea."""
    out: Counter = Counter()
    for stacks in state.areas.values():
        for nation, s in stacks.items():
            out[nation] += s.armies + s.cavalry
    return out


def _sum(m: Mapping) -> int:
    return sum(int(v) for v in m.values())


def _losses(ev: E.Eliminated) -> int:
    return sum(int(n) for kind, n in ev.losses.items() if kind not in _NOT_UNITS)


_NOT_UNITS = ("fort", "forts", "burh", "burhs")   # losses that are no army or cavalry


# event kind -> {nation: units added (+) or removed (-)}; the empire's departure is handled apart
UNIT_CHANGES: dict[type, Callable[[E.Event], dict[str, int]]] = {
    E.Placed: lambda e: {e.nation: len(e.areas) if e.kind in (None, "armies", "cavalry") else 0},   # one per unit
    E.Arrived: lambda e: {e.nation: e.armies + (e.cavalry or 0)},
    E.Reinforced: lambda e: {e.nation: (e.armies or 0) + (e.cavalry or 0)},
    E.Revolt: lambda e: {e.nation: e.armies},
    E.LegionsWithdrawn: lambda e: {e.nation: -_sum(e.removed)},
    E.Eliminated: lambda e: {e.nation: -_losses(e)},
    E.LostAtSea: lambda e: {e.nation: -((e.armies or 0) + (e.cavalry or 0))},
    E.Overpopulation: lambda e: {e.nation: -_sum(e.removed)},
    E.ToBrittany: lambda e: {e.nation: -e.armies},
    E.Overstacked: lambda e: {e.nation: -_sum(e.removed)},
    E.LostLeavingSubjectArea: lambda e: {e.nation: -e.count},
}


def units_explained(rs: Ruleset, before: GameState, step) -> list[str]:
    """Every change of a nation's units in the step is what its events add and remove."""
    after = step.state
    said: Counter = Counter()
    gone: set[str] = set()
    for ev in step.events:
        if isinstance(ev, E.RomansLeft):   # rule 10.5: the empire's units leave, successors replace some
            gone.add(rs.role("empire"))
            said[rs.role("successor")] += _sum(ev.replaced)
        elif isinstance(ev, E.DanesWithdrew):
            said[rs.role("withdrawing")] -= _sum(ev.removed)
        else:
            change = UNIT_CHANGES.get(type(ev))
            if change:
                for nation, n in change(ev).items():
                    said[nation] += n
    was, now = units(before), units(after)
    out = []
    for nation in sorted(set(was) | set(now) | set(said)):
        if nation in gone:
            if now.get(nation, 0):
                out.append(f"units: the {nation} left (rule 10.5) but {now[nation]} are still on the board")
            continue
        delta = now.get(nation, 0) - was.get(nation, 0)
        if delta != said.get(nation, 0):
            out.append(f"units: the {nation} went from {was.get(nation, 0)} to {now.get(nation, 0)} "
                       f"but the step's events account for {said.get(nation, 0):+d}")
    return out


# ledger kind -> the event kinds that must name a score of that kind for the nation
_SCORE_EVENTS = {"capture": (E.Scored, E.Submitted), "kill": (E.Scored,), "hold": (E.Scored,),
                 "limes": (E.Scored,), "king": (E.King,), "bretwalda": (E.BretwaldaVote,),
                 "brittany": (E.ToBrittany, E.BrittanyRoll), "submission": (E.Submitted,)}


def _names(ev: E.Event) -> set[str]:
    """The nations an event names (who scored, who was crowned, who submitted to whom)."""
    out = {getattr(ev, f) for f in ("nation", "winner", "to") if isinstance(getattr(ev, f, None), str)}
    return out


def vp_explained(rs: Ruleset, before: GameState, step) -> list[str]:
    """Rule 14.3 — the step's score changes are its new ledger entries, each named by an event."""
    after = step.state
    new = after.ledger[len(before.ledger):]
    out = []
    if list(after.ledger[: len(before.ledger)]) != list(before.ledger):
        out.append("vp: the step rewrote earlier ledger entries")
    by_ledger: Counter = Counter()
    for e in new:
        by_ledger[e.get("nation")] += int(e.get("points") or 0)
    for nation in sorted(set(before.vp) | set(after.vp) | set(by_ledger), key=str):
        delta = after.vp.get(nation, 0) - before.vp.get(nation, 0)
        if delta != by_ledger.get(nation, 0):
            out.append(f"vp: the {nation} score moved by {delta:+d} but the ledger entries of the step say "
                       f"{by_ledger.get(nation, 0):+d}")
    scored: Counter = Counter()
    for ev in step.events:
        if isinstance(ev, E.Scored):
            scored[(ev.nation, ev.kind)] += ev.points
    ledger_scored: Counter = Counter()
    for e in new:
        kind, nation = e.get("kind"), e.get("nation")
        if kind in ("kill", "hold", "limes"):
            ledger_scored[(nation, kind)] += int(e.get("points") or 0)
        wanted = _SCORE_EVENTS.get(str(kind))
        if wanted is None:
            out.append(f"vp: a ledger entry of unknown kind {kind!r}: {dict(e)}")
        elif not any(isinstance(ev, wanted) and nation in _names(ev) for ev in step.events):
            out.append(f"vp: the ledger entry '{e.get('reason')}' ({nation} {e.get('points'):+}) has no event of the step")
    for key in set(ledger_scored) | {k for k in scored if k[1] in ("kill", "hold", "limes")}:
        if ledger_scored.get(key, 0) != scored.get(key, 0):
            out.append(f"vp: {key[0]} {key[1]} points: the ledger says {ledger_scored.get(key, 0)}, "
                       f"the scored events {scored.get(key, 0)}")
    return out


_FIRST: dict[int, tuple[Ruleset, Mapping[str, int]]] = {}


def _first_round(rs: Ruleset) -> Mapping[str, int]:
    hit = _FIRST.get(id(rs))
    if hit is None or hit[0] is not rs:
        hit = _FIRST[id(rs)] = (rs, _first_rounds(rs))
    return hit[1]


def _first_rounds(rs: Ruleset) -> Mapping[str, int]:
    """The first round each nation can have units on the board: 1 with starting pieces, else the first
    round of the timeline that brings it units (arrivals, reinforcements) or a leader."""
    first = {n: 1 for n, nat in rs.nations.items() if nat.start}
    for rnd in range(1, rs.const.max_rounds + 1):
        info = rs.round_info(rnd)
        for nation in _arriving(info):
            first.setdefault(nation, rnd)
    return first


def _arriving(info) -> Iterable[str]:
    """The nations a round of the timeline brings units or a leader to (RoundInfo.arrivals and
    .leaders: (nation, leader) pairs)."""
    for a in info.arrivals:
        yield a.nation
    for nation, _leader in info.leaders:
        yield nation


def not_before_arrival(rs: Ruleset, state: GameState, brought: Iterable[str] = ()) -> list[str]:
    """No unit of a nation on the board before the first round the ruleset brings it in, unless an
    event of the game brought it earlier (`brought`: the successors replacing the empire, 10.5)."""
    first = _first_round(rs)
    out = []
    for nation, n in sorted(units(state).items()):
        if n and state.round < first.get(nation, 1) and nation not in brought:
            out.append(f"arrival: {n} units of the {nation} on the board in round {state.round}, "
                       f"before they can arrive (round {first.get(nation)})")
    return out


class Checker:
    """The checks of one game, step after step (it remembers the nations events brought in early)."""

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.brought: set[str] = set()

    def after_step(self, before: GameState, step) -> list[str]:
        self.brought |= self.rs.rules.nations_brought_in(self.rs, step.events)
        return (units_explained(self.rs, before, step) + vp_explained(self.rs, before, step)
                + not_before_arrival(self.rs, step.state, self.brought))
