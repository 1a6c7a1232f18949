"""Is a typed-in position one the game could be in? Pure checks of a GameState against the ruleset.

Errors are positions the rules cannot reach (more pieces than the counter mix, a nation on the board
before it arrives, a leader outside its rounds, pieces where their kind cannot stand, a battle left
unfought); warnings are legal but unusual (an overpopulated nation, a leader without armies). Each
finding names the key of the file it is about (`setup.Essex.Saxons`, `state.population.Welsh`), which
the file reader turns into a line number. No I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from pbem.rules.endturn import exempt_from_overpopulation
from pbem.rules.ruleset import Ruleset
from pbem.rules.stacking import land_counts, limits_text, over_limit
from pbem.rules.state import GameState
from pbem.rules.turn import has_something_to_do

# where the game stands: the round's opening steps are due, a nation's turn is next, or the closing steps
STARTS = ("round_start", "nation_turn", "end_of_round")


@dataclass(frozen=True)
class Finding:
    level: str      # error | warning
    key: str        # the key of the position file it is about (dotted, as typed)
    message: str


class _Findings(list):
    def error(self, key: str, message: str) -> None:
        self.append(Finding("error", key, message))

    def warn(self, key: str, message: str) -> None:
        self.append(Finding("warning", key, message))


def first_round(rs: Ruleset, nation: str) -> int:
    """The round a nation's first pieces come: 0 for those on the board when the game begins (3.0), the
    Roman departure round for the Romano-British (10.5), else the first arrival of the Turn Record Chart."""
    if any(rs.nations[nation].start.values()):
        return 0
    if nation == rs.role("successor"):
        return rs.const.roman_departure_round
    rounds = [r for r, info in rs.rounds.items() for a in info.arrivals if a.nation == nation]
    return min(rounds) if rounds else rs.const.max_rounds + 1


def seafaring(rs: Ruleset, nation: str) -> bool:
    """May the nation's armies ever be at sea: it starts or arrives at sea, or has boats in some round (7.0)."""
    if any(rs.is_sea(a) for a, n in rs.nations[nation].start.items() if n):
        return True
    return any(nation in info.boats or any(a.nation == nation and a.sea for a in info.arrivals)
               for info in rs.rounds.values())


def has_played(rs: Ruleset, nation: str, rnd_nation: str | None, start: str) -> bool:
    """Has the nation had its turn in the current round (4.0, the order of play)?"""
    if start == "end_of_round":
        return True
    if start == "round_start" or rnd_nation is None:
        return False
    order = list(rs.order_of_play)
    return order.index(nation) < order.index(rnd_nation)


def check_position(rs: Ruleset, state: GameState, start: str,
                   keys: Mapping[tuple[str, str], str] | None = None) -> list[Finding]:
    """Every finding about the position, errors first. `keys` maps (area, nation) to the setup key.

    Two records are completed in `state` (with a warning): forts on the board count as built (10.4),
    leaders listed as killed count as dead (9.2)."""
    keys = dict(keys or {})

    def key_of(area: str, nation: str) -> str:
        return keys.get((area, nation), f"setup.{rs.display(area)}.{rs.display(nation)}")

    out = _Findings()
    _turn_marker(rs, state, start, out)
    _pieces(rs, state, start, key_of, out)
    _leaders(rs, state, start, key_of, out)
    _battles_over(rs, state, key_of, out)
    _records(rs, state, start, out)
    return sorted(out, key=lambda f: f.level != "error")


def _turn_marker(rs: Ruleset, state: GameState, start: str, out: _Findings) -> None:
    """Rule 4.0 — the round and the nation to move."""
    last = rs.const.max_rounds
    if not 1 <= state.round <= last:
        out.error("round", f"must be a round number 1-{last}")
        return
    if start not in STARTS:
        out.error("start", f"must be one of {', '.join(STARTS)}")
    elif start == "nation_turn":
        if state.next_nation is None:
            out.error("nation", "name the nation to move next (or say `start: round_start`)")
        elif not has_something_to_do(rs, state, state.next_nation):
            out.error("nation", f"the {rs.display(state.next_nation)} have no pieces and no arrivals in round "
                                f"{state.round}: their turn is skipped (4.0)")
    elif state.next_nation is not None:
        out.error("nation", f"`start: {start}` has no nation to move; leave `nation` out")


def _pieces(rs: Ruleset, state: GameState, start: str, key_of, out: _Findings) -> None:
    """The counter mix (2.2), stacking (5.2), where each kind of piece may stand (7.0, 10.4), arrivals and
    departures (the Turn Record Chart; 10.5 the Romans leave), raiders back at sea after a turn (7.13)."""
    totals: dict[str, Counter] = {}
    first_key: dict[str, str] = {}
    rnd = state.round
    for area, stacks in sorted(state.areas.items()):
        land = rs.is_land(area)
        for nation, s in sorted(stacks.items()):
            key = key_of(area, nation)
            first_key.setdefault(nation, key)
            name = rs.display(nation)
            t = totals.setdefault(nation, Counter())
            t.update(armies=s.armies, cavalry=s.cavalry, forts=int(s.fort), burhs=s.burhs)
            for what in ("armies", "cavalry", "raiders", "burhs"):
                if getattr(s, what) < 0:
                    out.error(key, f"{what} cannot be negative")
            if s.raiders > s.armies:
                out.error(key, f"{s.raiders} raiders but only {s.armies} armies (raiders are armies, 7.1)")
            if s.fort and not rs.rules.holds_forts(rs, nation):
                out.error(key, "only the Romans build forts (10.4)")
            if (s.fort or s.burhs) and not land:
                out.error(key, "forts and burhs stand on land, not at sea")
            if land and s.raiders:
                out.error(key, f"raiders ashore between turns: the {name} raiders go back to sea or settle at the "
                               "end of their turn (7.13); write them as armies if they settled")
            if not land and s.units and not seafaring(rs, nation):
                out.error(key, f"the {name} never go to sea (no boats, no arrivals by sea)")
            if not s.empty():
                _arrived(rs, state, start, nation, key, out)
    for nation, t in sorted(totals.items()):
        nat = rs.nations[nation]
        for what, limit in (("armies", rs.rules.army_piece_limit(rs, nation, rnd)), ("cavalry", nat.max_cavalry), ("forts", nat.max_forts),
                            ("burhs", nat.max_burhs)):
            if t[what] > max(limit, 0):
                out.error(first_key[nation], f"the {rs.display(nation)} have {t[what]} {what} on the board; the "
                                             f"ruleset has {max(limit, 0)} (the counter mix)")
        counts = land_counts(rs, state, nation)
        for area in over_limit(rs, nation, counts):
            out.error(key_of(area, nation), f"{counts[area]} {rs.display(nation)} units in {rs.display(area)} break "
                                            f"the stacking limits ({limits_text(rs, nation)})")
        units = sum(counts.values())
        if counts and not exempt_from_overpopulation(rs, nation, rnd) and units > rs.const.overpop_factor * len(counts):
            out.warn(first_key[nation], f"the {rs.display(nation)} have {units} units on land in {len(counts)} areas; "
                                        "overpopulation (6.0) removes the excess at the end of their turn")


def _arrived(rs: Ruleset, state: GameState, start: str, nation: str, key: str, out: _Findings) -> None:
    rnd = state.round
    first = first_round(rs, nation)
    name = rs.display(nation)
    if nation == rs.role("successor"):   # they take over from the Romans at the start of that round (10.5)
        if rnd < first or (rnd == first and start == "round_start"):
            out.error(key, f"the {name} come in round {first}, when the Romans leave (10.5)")
        return
    if rnd < first or (rnd == first and not has_played(rs, nation, state.next_nation, start)):
        out.error(key, f"the {name} arrive in round {first} (the Turn Record Chart), at their turn; "
                       f"not yet in round {rnd}")
    if nation == rs.role("empire"):
        leave = rs.const.roman_departure_round
        if rnd > leave or (rnd == leave and start != "round_start"):
            out.error(key, f"the Romans leave at the start of round {leave} (10.5)")


def _leaders(rs: Ruleset, state: GameState, start: str, key_of, out: _Findings) -> None:
    """Rule 9.0 — a leader comes at its nation's turn of its round and goes at the start of the nation's
    next turn (Harold, Harald Hardrada and William stay to the end); one piece each; dead ones are gone."""
    seen: Counter = Counter()
    rnd = state.round
    for area, stacks in sorted(state.areas.items()):
        for nation, s in sorted(stacks.items()):
            key = key_of(area, nation)
            for ld in s.leaders:
                seen[ld] += 1
                info = rs.leaders[ld]
                name = rs.display(ld)
                if seen[ld] == 2:
                    out.error(key, f"{name} is on the board twice")
                if info.nation != nation:
                    out.error(key, f"{name} leads the {rs.display(info.nation)}, not the {rs.display(nation)}")
                    continue
                if ld in state.dead_leaders:
                    out.error(key, f"{name} is dead (state.dead_leaders) but on the board")
                played = has_played(rs, nation, state.next_nation, start)
                here = (rnd == info.round and played) or (rnd > info.round and info.stays_until_end) or \
                       (rnd == info.round + 1 and not played)
                if not here:
                    out.error(key, f"{name} is on the board from the {rs.display(nation)} turn of round {info.round}"
                                   + (" to the end of the game" if info.stays_until_end else
                                      " to the start of their next turn") + f" (9.0); not in round {rnd}"
                                   + (" before their turn" if rnd == info.round else ""))
                if not s.units:
                    out.warn(key, f"{name} stands without {rs.display(nation)} armies")


def _battles_over(rs: Ruleset, state: GameState, key_of, out: _Findings) -> None:
    """Rule 8.0 — between turns every battle is over: no land area holds the armies of two nations."""
    for area, stacks in sorted(state.areas.items()):
        if not rs.is_land(area):
            continue
        armed = sorted(n for n, s in stacks.items() if s.fighters)
        if len(armed) > 1:
            out.error(key_of(area, armed[1]), f"{' and '.join(rs.display(n) for n in armed)} both hold "
                                              f"{rs.display(area)}: a battle is fought before the turn ends (8.0)")


def _records(rs: Ruleset, state: GameState, start: str, out: _Findings) -> None:
    """The `state:` block: saved population counts (10.1), scores, forts ever built (10.4), subjects (11)."""
    step = rs.const.pop_hiland
    most = rs.const.pop_max_saved_without_army
    for nation, v in sorted(state.population.items()):
        key = f"state.population.{rs.display(nation)}"
        if not rs.nations[nation].increases_population and v:
            out.error(key, f"the {rs.display(nation)} never increase population (2.24)")
        elif not 0 <= v <= most or abs(v / step - round(v / step)) > 1e-9:
            out.error(key, f"a saved count is 0 to {most:g} in steps of {step:g} (10.1), not {v:g}")
    for nation, v in sorted(state.vp.items()):
        if v < 0:
            out.warn(f"state.vp.{rs.display(nation)}", f"the {rs.display(nation)} have {v} victory points")
    for area in sorted(state.forts_built):
        if not rs.is_land(area):
            out.error("state.forts_built", f"{rs.display(area)} is a sea: forts are built on land (10.4)")
    for area, stacks in sorted(state.areas.items()):
        if any(s.fort for s in stacks.values()) and area not in state.forts_built:
            out.warn("state.forts_built", f"the fort in {rs.display(area)} is not listed among the forts ever "
                                          "built; it is added")
            state.forts_built.add(area)
    for nation, over in sorted(state.subjects.items()):
        if nation == over:
            out.error(f"state.subjects.{rs.display(nation)}", "a nation cannot submit to itself (11)")
    if state.bretwalda and state.round < min(rs.scoring["bretwalda_rounds"]):
        out.warn("state.bretwalda", f"a Bretwalda before round {min(rs.scoring['bretwalda_rounds'])} (12.1)")
    if state.kings and state.round < min(rs.scoring["king_rounds"]):
        out.warn("state.kings", f"a King before round {min(rs.scoring['king_rounds'])} (12.3)")
    for ld in sorted(state.dead_leaders):
        if state.round < rs.leaders[ld].round:
            out.warn("state.dead_leaders", f"{rs.display(ld)} is dead before round {rs.leaders[ld].round}, when they come (9.0)")
    for ld in sorted(set(state.leader_killed_by) - state.dead_leaders):
        out.warn("state.leader_killed_by", f"{rs.display(ld)} was killed but is not among the dead leaders; added")
        state.dead_leaders.add(ld)
