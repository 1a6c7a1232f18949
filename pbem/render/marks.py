"""Where the marks of a step go on the map: movement arrows, the count of units arriving, battle stars.

Pure geometry (map kilometres), no drawing: pbem/render/map.py draws what `plan_move` and
`star_point` return, and tests/render/test_map_marks.py checks the same plan for overlaps. A *block*
is the rectangle an area's name and counters take on the map (x0, y0, x1, y1).

- An arrow leaves the block of the area it starts from and ends on the edge of the block of the area
  it goes to: its head never lies on the destination's name or counters.
- A move between neighbours whose blocks leave too short a line between them (two close names) is
  drawn as an arc below the two blocks, so that it is never hidden under their counters.
- A battle star is put inside its area, clear of the area's name and counters (right of the name when
  there is room, else the nearest free place), never on a border.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Point = tuple[float, float]
Box = tuple[float, float, float, float]

MIN_ARROW_KM = 16.0     # shorter than this between two blocks, an arrow would be a blob: drawn as an arc
ARC_RAD = 0.55          # the bend of that arc (matplotlib's arc3 rad)
LEG_RAD = 0.12          # the slight bend of every other leg
ARC_DROP_KM = 3.0       # the arc starts and ends this far below the blocks


@dataclass(frozen=True)
class Leg:
    start: Point
    end: Point
    rad: float
    head: bool              # the last leg of a move carries the arrowhead
    clipped_start: bool     # the start is on a block's edge (no shrinking there)
    clipped_end: bool

    def point(self, t: float) -> Point:
        """The point at t (0: start, 1: end) of the drawn curve (arc3: a quadratic curve whose control
        point is the chord's middle moved by rad times the chord, turned a quarter to the right)."""
        (x1, y1), (x2, y2) = self.start, self.end
        cx, cy = (x1 + x2) / 2 + self.rad * (y2 - y1), (y1 + y2) / 2 - self.rad * (x2 - x1)
        a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t * t
        return a * x1 + b * cx + c * x2, a * y1 + b * cy + c * y2

    def middle(self) -> Point:
        return self.point(0.5)

    def length(self) -> float:
        return math.dist(self.start, self.end)


def inside(p: Point, b: Box) -> bool:
    return b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3]


def overlap(a: Box, b: Box) -> float:
    """The area two rectangles share (0 when they do not meet)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def union(boxes: Sequence[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _exit_t(p: Point, q: Point, b: Box) -> float:
    """For p inside b: the fraction of the way from p to q where the segment leaves b (1 if it does not)."""
    t = 1.0
    for i in (0, 1):
        d = q[i] - p[i]
        if d > 0:
            t = min(t, (b[2 + i] - p[i]) / d)
        elif d < 0:
            t = min(t, (b[i] - p[i]) / d)
    return max(0.0, t)


def _along(p: Point, q: Point, t: float) -> Point:
    return p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t


def plan_move(points: Sequence[Point], start_block: Box | None, end_block: Box | None) -> list[Leg]:
    """The legs of one move through `points` (area anchors), its first leg leaving `start_block`
    and its last ending on the edge of `end_block` (None: at the anchor, as for a sea)."""
    if len(points) < 2:
        return []
    legs = []
    n = len(points) - 1
    for i in range(n):
        p, q = points[i], points[i + 1]
        start, end = p, q
        cs = ce = False
        if i == 0 and start_block and inside(p, start_block):
            start, cs = _along(p, q, _exit_t(p, q, start_block)), True
        if i == n - 1 and end_block and inside(q, end_block):
            end, ce = _along(q, p, _exit_t(q, p, end_block)), True
        legs.append(Leg(start, end, LEG_RAD, i == n - 1, cs, ce))
    last = legs[-1]
    if n == 1 and start_block and end_block and (last.length() < MIN_ARROW_KM or _backwards(points, last)):
        legs[-1] = _arc_below(start_block, end_block)
    return legs


def _backwards(points: Sequence[Point], leg: Leg) -> bool:
    """The blocks overlap so much that the clipped leg points the other way."""
    (px, py), (qx, qy) = points[0], points[1]
    (sx, sy), (ex, ey) = leg.start, leg.end
    return (qx - px) * (ex - sx) + (qy - py) * (ey - sy) <= 0


def _arc_below(a: Box, b: Box) -> Leg:
    """From the bottom of block a to the bottom of block b, bending downwards."""
    start = ((a[0] + a[2]) / 2, a[1] - ARC_DROP_KM)
    end = ((b[0] + b[2]) / 2, b[1] - ARC_DROP_KM)
    if math.dist(start, end) < MIN_ARROW_KM:   # one above the other: go round the side instead
        side = 1.0 if start[0] <= end[0] else -1.0
        start = (a[2] + ARC_DROP_KM if side > 0 else a[0] - ARC_DROP_KM, (a[1] + a[3]) / 2)
        end = (b[2] + ARC_DROP_KM if side > 0 else b[0] - ARC_DROP_KM, (b[1] + b[3]) / 2)
    rad = ARC_RAD if end[0] >= start[0] else -ARC_RAD   # arc3 bends to the right of the way: below
    return Leg(start, end, rad, True, True, True)


COUNT_TS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)   # where along its arrow a count of arriving units is tried


def count_point(leg: Leg, r: float, clear_of: Sequence[Box]) -> Point:
    """Where the count of the units arriving over `leg` goes: the middle of the arrow, or the nearest
    point along it whose circle (radius r) covers no name or counter of `clear_of`."""
    for t in COUNT_TS:
        x, y = leg.point(t)
        if not any(overlap((x - r, y - r, x + r, y + r), c) for c in clear_of):
            return x, y
    return leg.middle()


STAR_SCALES = (1.0, 0.8, 0.65)   # a star too big for a small area is drawn smaller


def star_point(default: Point, half: float, contains: Callable[[Box], bool], clear_of: Sequence[Box],
               near: Sequence[Box] | None = None, *,
               contains_many: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[Point, float]:
    """Where a battle star goes and its half-size: `default` (right of the area's name) if its box
    lies inside the area (`contains(box) -> bool`) and clear of `clear_of` (names and counters), else
    the nearest such place (left of the name, beside or below the counters `near`, the area's own:
    by default all of `clear_of`; then anywhere in the area
    on a 3 km lattice around the default), at full size, then smaller; an area too small for even the
    smallest star (an island) gets it beside it, clear of the names and counters.

    `contains_many` (optional): the same test for many boxes at once (an n x 4 array -> n bools, as
    shapely's vectorized `contains`), asked of the free places a slice at a time, in order: the place
    found is the one `contains` finds one by one."""

    around = near if near else clear_of
    block = union(around) if around else (*default, *default)

    def beside(h: float) -> list[Point]:
        pad = h + 1.5
        return [default, (block[0] - pad, default[1]), (block[2] + pad, (block[1] + block[3]) / 2),
                (block[0] - pad, (block[1] + block[3]) / 2), ((block[0] + block[2]) / 2, block[1] - pad),
                ((block[0] + block[2]) / 2, block[3] + pad)]

    # Only the names and counters within reach of some place tried can be in a star's way: the rest of
    # the map is left out once here (the same places come out; a star tried ~11 000 places against
    # every box of the map before, half of a map's drawing time).
    tried = [*beside(half), (default[0] - _LATTICE_REACH, default[1] - _LATTICE_REACH),
             (default[0] + _LATTICE_REACH, default[1] + _LATTICE_REACH)]
    reach = union([_star_box(p, half) for p in tried])
    clear = np.array([c for c in clear_of if overlap(reach, c)], dtype=np.float64).reshape(-1, 4)
    lattice = _LATTICE_XY + np.array(default, dtype=np.float64)     # default[i] + d, as one by one

    for scale in STAR_SCALES:
        h = half * scale
        places = np.concatenate([np.array(beside(h), dtype=np.float64), lattice])
        found = _first_inside(places, _free(places, h, clear), h, contains, contains_many)
        if found is not None:
            return found, h
    h = half * STAR_SCALES[-1]
    free = np.flatnonzero(_free(lattice, h, clear))
    return (_point(lattice[free[0]]) if len(free) else default), h


def _free(places: np.ndarray, h: float, clear: np.ndarray) -> np.ndarray:
    """Which of `places` (n x 2) have their star's box (half-size h) overlapping none of `clear`
    (k x 4): `overlap` of every pair at once (the same float operations, so the same answer; a star
    tried its ~3 700 places one box at a time in Python, a tenth of a map's time)."""
    if not len(clear):
        return np.ones(len(places), dtype=bool)
    x, y = places[:, 0:1], places[:, 1:2]
    w = np.minimum(x + h, clear[:, 2]) - np.maximum(x - h, clear[:, 0])
    t = np.minimum(y + h, clear[:, 3]) - np.maximum(y - h, clear[:, 1])
    return ~((w > 0) & (t > 0)).any(axis=1)


_SLICE = 64     # free places asked of `contains_many` at a time (the first is mostly found early)


def _first_inside(places: np.ndarray, free: np.ndarray, h: float, contains: Callable[[Box], bool],
                  contains_many: Callable[[np.ndarray], np.ndarray] | None) -> Point | None:
    """The first of the free `places` whose star's box lies inside the area, None when none does."""
    order = np.flatnonzero(free)
    if contains_many is None:
        for i in order:
            p = _point(places[i])
            if contains(_star_box(p, h)):
                return p
        return None
    for k in range(0, len(order), _SLICE):
        pts = places[order[k:k + _SLICE]]
        inside = np.flatnonzero(contains_many(np.concatenate([pts - h, pts + h], axis=1)))
        if len(inside):
            return _point(pts[inside[0]])
    return None


def _star_box(p: Point, h: float) -> Box:
    """The box of a star of half-size `h` centred on `p`."""
    return p[0] - h, p[1] - h, p[0] + h, p[1] + h


def _point(p: np.ndarray) -> Point:
    return float(p[0]), float(p[1])


# the places a star is tried when none beside the name and counters is free: a 3 km lattice 90 km
# around the default, nearest first (made once: it is the same for every star)
_LATTICE_REACH = 90
_LATTICE = sorted(((dx, dy) for dx in range(-_LATTICE_REACH, _LATTICE_REACH + 1, 3)
                   for dy in range(-_LATTICE_REACH, _LATTICE_REACH + 1, 3)), key=lambda o: o[0] ** 2 + o[1] ** 2)
_LATTICE_XY = np.array(_LATTICE, dtype=np.float64)
