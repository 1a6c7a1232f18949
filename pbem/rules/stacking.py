"""Rule 5.2 — stacking limits, checked at the end of each movement phase (15.1), and never exceeded by
population increase or retreats (5.21)."""

from __future__ import annotations

from collections.abc import Mapping

from pbem.rules.ruleset import Ruleset
from pbem.rules.state import GameState


def normal_limit(rs: Ruleset, nation: str, area: str) -> int | None:
    """The plain limit for one area (5.2; the ruleset's hook stack_limit: classic 3 clear / 2 hiland,
    the empire none but 4 in a hiland, 5.22)."""
    return rs.rules.stack_limit(rs, nation, area)


def land_counts(rs: Ruleset, state: GameState, nation: str) -> dict[str, int]:
    """The nation's armies and cavalry in each land area where it has some (in the position's order)."""
    out = {}
    for a, st in state.areas.items():
        if nation in st:
            s = st[nation]
            units = s.armies + s.cavalry
            if units and rs.is_land(a):
                out[a] = units
    return out


def over_limit(rs: Ruleset, nation: str, counts: Mapping[str, int]) -> list[str]:
    """Rule 5.2 — the areas that break the limits, given the nation's army counts per land area.

    Each nation may have ONE group above the plain limit: any size in one clear area (up to the
    ruleset's `big_stack_clear` where it has one), or up to four in one hiland area (not both). The empire (role): any number except more than four in a hiland (5.22).
    """
    over = []
    for area, n in counts.items():
        lim = normal_limit(rs, nation, area)
        if lim is not None and n > lim:
            over.append(area)
    if nation == rs.role("empire") or not over:
        return over
    if len(over) == 1:
        area = over[0]
        big = rs.const.big_stack_hiland if rs.hiland(area) else rs.const.big_stack_clear
        if big is None or counts[area] <= big:
            return []
        return over
    return over


def limits_text(rs: Ruleset, nation: str) -> str:
    """Rule 5.2 (5.22) — the nation's stacking limits in words, from the ruleset's own `stack_limit` for
    it: "rule 5.2: 3 in a clear area, 2 in a hiland, one larger group only" (classic, most nations),
    "rule 5.22: no limit in a clear area, 4 in a hiland" (the empire, which has no larger group)."""
    lands = [a for a in rs.areas if rs.is_land(a)]
    parts = []
    for terrain, areas in (("a clear area", [a for a in lands if not rs.hiland(a)]),
                           ("a hiland", [a for a in lands if rs.hiland(a)])):
        if areas:
            lim = normal_limit(rs, nation, areas[0])
            parts.append(f"no limit in {terrain}" if lim is None else f"{lim} in {terrain}")
    if nation == rs.role("empire"):
        return "rule 5.22: " + ", ".join(parts)
    return "rule 5.2: " + ", ".join([*parts, "one larger group only"])


def stacking_ok(rs: Ruleset, nation: str, counts: Mapping[str, int]) -> bool:
    return not over_limit(rs, nation, counts)


def can_add(rs: Ruleset, state: GameState, nation: str, area: str, n: int = 1, leaving: str | None = None) -> bool:
    """Rule 5.21 — may `n` more of the nation's armies stand in `area` without breaking 5.2?

    `leaving`: the area those armies come from (a retreat), which no longer counts them.
    """
    if not rs.is_land(area):
        return True
    counts = land_counts(rs, state, nation)
    if leaving is not None and leaving in counts:
        counts[leaving] = max(0, counts[leaving] - n)
    counts[area] = counts.get(area, 0) + n
    return stacking_ok(rs, nation, {a: c for a, c in counts.items() if c > 0})


class Room:
    """Rule 5.21 asked of many areas of one position (population placement asks it of each area the
    nation holds): `can_add` with the nation's counts, and the areas already over their plain limit,
    worked out once. Only those areas and the one asked about can break 5.2, so `over_limit` of them
    alone answers as it would for every area."""

    def __init__(self, rs: Ruleset, state: GameState, nation: str) -> None:
        self.rs, self.nation = rs, nation
        self.counts = land_counts(rs, state, nation)
        self.over = {a: c for a, c in self.counts.items()
                     if (lim := normal_limit(rs, nation, a)) is not None and c > lim}

    def add(self, area: str, n: int = 1) -> None:
        """`n` more of the nation's armies or cavalry now stand in `area` (the position changed so)."""
        if not self.rs.is_land(area):
            return
        c = self.counts[area] = self.counts.get(area, 0) + n
        lim = normal_limit(self.rs, self.nation, area)
        if lim is not None and c > lim:
            self.over[area] = c
        else:
            self.over.pop(area, None)

    def can_add(self, area: str, n: int = 1) -> bool:
        """`can_add(rs, state, nation, area, n)` of the position the room was made for."""
        if not self.rs.is_land(area):
            return True
        counts = dict(self.over)
        counts[area] = self.counts.get(area, 0) + n
        return stacking_ok(self.rs, self.nation, counts)
