"""The map picture: a PNG of the board with every stack, for turn reports and mails.

Public API: `render_map(ruleset, state, *, title, events=None, vp_table=None, width_px=1600) -> bytes`.

Matplotlib's object API only (`Figure` + `FigureCanvasAgg`, never pyplot), so it is safe in a
server process and in threads. The static part of the picture (sea, land, borders, names, legend)
depends only on the ruleset and the width; it is drawn once and kept as a pixel image, and every call
draws the stacks, arrows, title and tables on top of it.

The inputs are read by duck typing:
  ruleset.areas[id].name/.region/.terrain, ruleset.seas[id].name,
  ruleset.nations[id].name/.code/.colour ('purple'|'green'|'red'|'blue'), ruleset.order_of_play;
  state.areas: {area or sea id: {nation id: Stack}}, Stack with ints armies, cavalry, raiders
  (how many of the armies are raiders), burhs, fort (true or a number of forts), list leaders, and the
  family's counters (`wounded_<piece>`: a piece holding a hit that has not killed it); state.vp (optional);
  ruleset.rules.scoring_centres(ruleset) (optional): the scoring centres to mark.
An area of the map that the ruleset does not have (when it has areas) is impassable land: drawn
darker, named, never holding a piece.
Missing pieces fall back to defaults (display names from ids, the built-in 4-player colours).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any

import matplotlib

matplotlib.use("Agg", force=False)

import numpy as np  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402
from matplotlib.path import Path  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Affine2D  # noqa: E402

from pbem.render import glyphs, marks, stamps, style  # noqa: E402
from pbem.render.geometry import Geometry, load_geometry  # noqa: E402
from pbem.render.style import _get  # noqa: E402
from pbem.rules.events import Battle, BattleEnd, Event, Moved, from_dicts  # noqa: E402

# --- layout (inches; the figure is always 16 in wide, dpi = width_px / 16) -------------------------
FIG_W_IN = 16.0
MAP_W_IN = 10.9
TITLE_H_IN = 0.8
PANEL_GAP_IN = 0.2

NAME_PT = 11.0          # area names
SEA_PT = 13.0           # sea names
COUNTER_PT = 11.0       # stack counters
NAME_DY_KM = 15.0       # area name centre above the anchor
ROW_KM = 19.0           # vertical distance between rows of counters
COL_GAP_KM = 3.0        # gap between counters of a row
COUNTER_H_EM = 1.65     # a counter's drawn height, in font sizes (text plus its box)
CROWDED = 4             # an area with this many nations' stacks gets the crowded layout
CROWD_SCALES = (1.0, 0.85, 0.7)  # counter sizes tried for a crowded area, largest first
CALLOUT_PAD_KM = 4.0    # frame around the counters of a callout
COUNT_R_PT = 10.0       # the radius of the circle counting the units an arrow brings
STAR_HALF_PT = 12.0     # a battle star's half-size (its marker is twice this, in points)
COUNTER_Z = 20         # map artists below this are drawn under the counters, the rest above
PALETTE_COLOURS = 128   # the PNG is a palette image (antialiasing needs more than the ~20 flat colours)
TEXT_COLOURS = ("#1d1d1d", "#b00020", "#cfc8b4", "#d8d2c0")   # the title's, the PROVISIONAL mark's, the panel rules'


@dataclass(frozen=True)
class Layout:
    fig_h_in: float
    map_h_in: float
    frame: tuple[float, float, float, float]

    @property
    def map_rect(self) -> list[float]:
        return [0.0, 0.0, MAP_W_IN / FIG_W_IN, self.map_h_in / self.fig_h_in]

    @property
    def panel_rect(self) -> list[float]:
        x0 = (MAP_W_IN + PANEL_GAP_IN) / FIG_W_IN
        return [x0, 0.01, 1 - x0 - 0.008, self.map_h_in / self.fig_h_in - 0.01]

    @property
    def km_per_pt(self) -> float:
        x0, _, x1, _ = self.frame
        return (x1 - x0) / (MAP_W_IN * 72.0)


def layout(geo: Geometry | None = None) -> Layout:
    geo = geo or load_geometry()
    x0, y0, x1, y1 = geo.frame
    map_h = MAP_W_IN * (y1 - y0) / (x1 - x0)
    return Layout(fig_h_in=map_h + TITLE_H_IN, map_h_in=map_h, frame=geo.frame)


def image_size(width_px: int = 1600, geo: Geometry | None = None) -> tuple[int, int]:
    """(width, height) in pixels of the PNG made at this width (of the board `geo`, the default board's
    if not given)."""
    lay = layout(geo)
    dpi = width_px / FIG_W_IN
    return int(FIG_W_IN * dpi + 1e-6), int(lay.fig_h_in * dpi)  # Agg truncates, as here


def pixel_of(x_km: float, y_km: float, width_px: int = 1600, geo: Geometry | None = None) -> tuple[float, float]:
    """Map coordinates (km) -> (column, row) in the PNG of the board `geo` (default: the default board's),
    row 0 at the top."""
    lay = layout(geo)
    dpi = width_px / FIG_W_IN
    x0, y0, x1, y1 = lay.frame
    col = (x_km - x0) / (x1 - x0) * MAP_W_IN * dpi
    row_from_bottom = (y_km - y0) / (y1 - y0) * lay.map_h_in * dpi
    return col, image_size(width_px, geo)[1] - row_from_bottom


# --- stacks ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Counter:
    nation: str
    x: float            # centre, km
    y: float
    label: str
    width_km: float
    raiders: bool
    fort: int           # how many forts (any nation's: the family says who holds them)
    burhs: int
    size_pt: float = COUNTER_PT
    height_km: float = 0.0
    leader: tuple[float, float] | None = None  # a callout's counters: the area's anchor, for the line
    wounded: str = ""   # the stack's wounded piece (WOUNDED_MARKS key), "" when none

    def box(self) -> tuple[float, float, float, float]:
        """The counter's rectangle on the map (x0, y0, x1, y1 in km)."""
        return (self.x - self.width_km / 2, self.y - self.height_km / 2,
                self.x + self.width_km / 2, self.y + self.height_km / 2)


def _norm(stack: Any) -> Any:
    """A stack as the engine has it, or its saved form (an int = that many armies, or a mapping)."""
    if isinstance(stack, int) and not isinstance(stack, bool):
        return {"armies": stack}
    return stack


def _int(v: Any) -> int:
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        return 0


def counter_label(nation: str, stack: Any, ruleset: Any = None) -> str:
    """'BE 3', 'BE 3+1c', 'DA 4R', 'DA 4(2R)', 'SX 5 ★A' ..."""
    stack = _norm(stack)
    armies, cav, raiders = _int(_get(stack, "armies")), _int(_get(stack, "cavalry")), _int(_get(stack, "raiders"))
    parts = [style.nation_code(nation, ruleset), " "]
    if not armies and not cav:
        parts = [style.nation_code(nation, ruleset)]   # only a fort, burhs or a leader: no "0"
    elif armies or not cav:
        parts.append(str(armies))
    if cav:
        parts.append(f"+{cav}c" if armies else f"{cav}c")
    if raiders:
        parts.append("R" if raiders >= armies else f"({raiders}R)")
    leaders = list(_get(stack, "leaders") or [])
    if leaders:
        parts.append(" " + "".join("★" + _leader_initial(ld, ruleset) for ld in leaders))
    return "".join(parts)


def _leader_initial(leader: str, ruleset: Any) -> str:
    for n in style.nations_of(ruleset).values():
        for ld in _get(n, "leaders", ()) or ():
            if _get(ld, "id") == leader and _get(ld, "name"):
                return str(_get(ld, "name"))[0].upper()
    return leader[:1].upper() if leader else "?"


WOUNDED_PREFIX = "wounded_"
"""A family's Stack.counters key `wounded_<piece>` (value 1): that piece holds a hit that has not killed it."""
WOUNDED_MARKS = {"armies": "W", "cavalry": "Wc", "fort": "WF"}
"""The square a wounded piece gets beside its counter (red): an army, a cavalry, a fort."""


def wounded_piece(stack: Any) -> str:
    """The kind of the stack's wounded piece ('armies', 'cavalry', 'fort'), "" when none."""
    counters = _get(_norm(stack), "counters") or {}
    for key, n in (counters.items() if isinstance(counters, Mapping) else ()):
        if str(key).startswith(WOUNDED_PREFIX) and _int(n):
            kind = str(key)[len(WOUNDED_PREFIX):]
            return kind if kind in WOUNDED_MARKS else "armies"
    return ""


def _stack_empty(stack: Any) -> bool:
    stack = _norm(stack)
    return not (_int(_get(stack, "armies")) or _int(_get(stack, "cavalry")) or _get(stack, "fort")
                or _int(_get(stack, "burhs")) or _get(stack, "leaders"))


def _nation_rank(ruleset: Any) -> dict[str, int]:
    order = list(_get(ruleset, "order_of_play", None) or [])
    return {n: i for i, n in enumerate(order)}


def stack_layout(area: str, stacks: Mapping[str, Any], ruleset: Any = None,
                 geo: Geometry | None = None) -> list[Counter]:
    """Where each nation's counter in `area` is drawn (also used by tests to find the pixels)."""
    geo = geo or load_geometry()
    try:
        ax, ay = geo.anchor(area)
    except KeyError:
        return []
    lay = layout(geo)
    rank = _nation_rank(ruleset)
    nations = sorted((n for n, s in stacks.items() if not _stack_empty(s)), key=lambda n: (rank.get(n, 99), n))
    items = []
    for n in nations:
        s = _norm(stacks[n])
        label = counter_label(n, s, ruleset)
        fort, burhs, wounded = _int(_get(s, "fort")), _int(_get(s, "burhs")), wounded_piece(s)
        extra = (1 if fort else 0) + (1 if burhs else 0) + (1 if wounded else 0)
        w_pt = _text_width_pt(label, COUNTER_PT) + 0.5 * COUNTER_PT + extra * 1.5 * COUNTER_PT
        items.append((n, label, w_pt * lay.km_per_pt, _int(_get(s, "raiders")) > 0, fort, burhs, wounded))
    if len(items) >= CROWDED:
        return _crowded_layout(area, items, ruleset, geo, lay)
    per_row = 2 if len(items) <= 4 else 3
    return _grid(items, ax, ay, per_row, 1.0, lay)


def _grid(items: list[tuple], x_mid: float, y_top: float, per_row: int, scale: float, lay: Layout,
          leader: tuple[float, float] | None = None) -> list[Counter]:
    """Rows of `per_row` counters, each row centred on x_mid, the first row's centre at y_top."""
    out = []
    size = COUNTER_PT * scale
    for r in range(0, len(items), per_row):
        row = items[r : r + per_row]
        total = sum(i[2] for i in row) * scale + COL_GAP_KM * scale * (len(row) - 1)
        x = x_mid - total / 2
        y = y_top - (r // per_row) * ROW_KM * scale
        for n, label, w, raid, fort, burhs, wounded in row:
            w *= scale
            out.append(Counter(n, x + w / 2, y, label, w, raid, fort, burhs, size,
                               COUNTER_H_EM * size * lay.km_per_pt, leader, wounded))
            x += w + COL_GAP_KM * scale
    return out


def _shift(counters: list[Counter], dx: float, dy: float) -> list[Counter]:
    return [replace(c, x=c.x + dx, y=c.y + dy) for c in counters]


def _bounds(counters: list[Counter]) -> tuple[float, float, float, float]:
    boxes = [c.box() for c in counters]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


_shapes_lock = threading.Lock()
_shapes: dict[int, tuple[Geometry, dict]] = {}


def _shapes_of(geo: Geometry) -> dict:
    """Shapely forms of the map, made once per geometry: each area's and sea's shape (prepared), the
    seas' anchors (where sea stacks are drawn), the strait arrows."""
    with _shapes_lock:
        hit = _shapes.get(id(geo))
        if hit is not None and hit[0] is geo:
            return hit[1]
    from shapely import prepare
    from shapely.geometry import LineString, MultiPolygon, Polygon

    def shape(s: Any) -> Any:
        g = MultiPolygon([Polygon(p[0], p[1:]) for p in s.polygons]).buffer(0)
        prepare(g)
        return g

    out = {"area": {a: shape(s) for a, s in {**geo.seas, **geo.areas}.items()},
           "sea_anchors": [s.anchor for s in geo.seas.values()],
           "straits": [LineString(line).buffer(4.0) for _a, _b, line in geo.straits]}
    with _shapes_lock:
        _shapes[id(geo)] = (geo, out)
    return out


def _crowded_layout(area: str, items: list[tuple], ruleset: Any, geo: Geometry, lay: Layout) -> list[Counter]:
    """Four or more nations in one area: a compact grid of two (or else three) columns, kept inside the area.

    The grid is tried at the anchor, then moved over the area (nearest places first), first at full size
    and then smaller (two columns before three at each size); the first placement whose every counter lies inside the area's shape and clear of
    the area's name wins. An area too small even for the
    smallest grid (the Orkneys) gets a callout: the grid in a framed box over the nearest free water,
    with a line to the area's anchor."""
    from shapely import box

    shapes = _shapes_of(geo)
    poly = shapes["area"].get(area)
    ax, ay = geo.anchor(area)
    if poly is None:
        return _grid(items, ax, ay, 2, CROWD_SCALES[-1], lay)
    name = box(*_name_box(ruleset, geo, lay, area))
    for scale, per_row in ((scale, per_row) for scale in CROWD_SCALES for per_row in (2, 3)):
        grid = _grid(items, 0.0, 0.0, per_row, scale, lay)
        x0, y0, x1, y1 = _bounds(grid)
        # (px, py) moves the grid's top row centre from (0, 0) to the place tried: the anchor first, then
        # every point of a 4 km lattice over the area, nearest the anchor first
        bx0, by0, bx1, by1 = poly.bounds
        lattice = [(x, y) for x in np.arange(bx0, bx1, 4.0) for y in np.arange(by0, by1, 4.0)]
        lattice.sort(key=lambda p: (p[0] - ax) ** 2 + (p[1] - ay) ** 2)
        places = [(ax, ay), *lattice]
        for px, py in places:
            frame = box(px + x0, py + y0, px + x1, py + y1)
            if poly.contains(frame) and not frame.intersects(name):
                return _shift(grid, px, py)
    return _callout(area, items, geo, lay, shapes, name)


def _callout(area: str, items: list[tuple], geo: Geometry, lay: Layout, shapes: dict, name: Any) -> list[Counter]:
    """The grid, at the smallest size, in a frame placed as near the anchor as it goes without covering
    another area, the area's own name, a strait's arrow or a sea's stacks (searched along 16 directions, outwards)."""
    import math

    from shapely import box

    ax, ay = geo.anchor(area)
    grid = _grid(items, 0.0, 0.0, 2, CROWD_SCALES[-1], lay, leader=(ax, ay))
    x0, y0, x1, y1 = _bounds(grid)
    pad = CALLOUT_PAD_KM
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    others = [g for a, g in shapes["area"].items() if a != area and a in geo.areas]
    fx0, fy0, fx1, fy1 = geo.frame
    sea_stacks = [box(sx - 25.0, sy - 12.0, sx + 25.0, sy + 12.0) for sx, sy in shapes["sea_anchors"]]
    sea_stacks += [name, *shapes["straits"]]
    for dist in range(30, 400, 6):
        for k in range(16):
            a = 2 * math.pi * k / 16
            px, py = ax + dist * math.cos(a) - cx, ay + dist * math.sin(a) - cy
            frame = box(px + x0 - pad, py + y0 - pad, px + x1 + pad, py + y1 + pad)
            fb = frame.bounds
            if fb[0] < fx0 or fb[1] < fy0 or fb[2] > fx1 or fb[3] > fy1:
                continue
            if any(g.intersects(frame) for g in others) or any(s.intersects(frame) for s in sea_stacks):
                continue
            return _shift(grid, px, py)
    return _shift(grid, ax - cx, ay - cy)


def callout_frame(counters: list[Counter]) -> tuple[float, float, float, float]:
    """The frame drawn around a callout's counters (x0, y0, x1, y1 in km)."""
    x0, y0, x1, y1 = _bounds(counters)
    return x0 - CALLOUT_PAD_KM, y0 - CALLOUT_PAD_KM, x1 + CALLOUT_PAD_KM, y1 + CALLOUT_PAD_KM


def _text_width_pt(text: str, size: float) -> float:
    # DejaVu Sans Bold: ~0.68 em for digits and capitals, ~0.6 for lower case, 0.35 for spaces
    w = 0.0
    for ch in text:
        w += 0.35 if ch == " " else 0.62 if ch.islower() or ch in "()+" else 0.72
    return w * size


# --- the static layer ------------------------------------------------------------------------------
def _ruleset_signature(ruleset: Any) -> tuple:
    areas = _get(ruleset, "areas", None) or {}
    seas = _get(ruleset, "seas", None) or {}
    nations = style.nations_of(ruleset)
    return (
        str(_get(ruleset, "id", "")),
        tuple(sorted((a, str(_get(v, "name")), str(_get(v, "terrain")), str(_get(v, "region")))
                     for a, v in areas.items())),
        tuple(sorted((s, str(_get(v, "name"))) for s, v in seas.items())),
        tuple(sorted((n, style.nation_code(n, ruleset), style.nation_colour(n, ruleset), style.nation_name(n, ruleset))
                     for n in nations)),
    )


_cache_lock = threading.Lock()
_static_cache: dict[tuple, tuple[np.ndarray, PanelSlots, Any, np.ndarray]] = {}


def _new_figure(width_px: int, lay: Layout) -> tuple[Figure, Any, Any]:
    fig = Figure(figsize=(FIG_W_IN, lay.fig_h_in), dpi=width_px / FIG_W_IN)
    FigureCanvasAgg(fig)
    ax = fig.add_axes(lay.map_rect)
    x0, y0, x1, y1 = lay.frame
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("auto")
    ax.set_axis_off()
    panel = fig.add_axes(lay.panel_rect)
    panel.set_xlim(0, 1)
    panel.set_ylim(0, 1)
    panel.set_axis_off()
    return fig, ax, panel


def _poly_path(polys: Iterable[Iterable[np.ndarray]]) -> Path:
    verts, codes = [], []
    for poly in polys:
        for ring in poly:
            verts.append(ring)
            c = np.full(len(ring), Path.LINETO, dtype=Path.code_type)
            c[0] = Path.MOVETO
            c[-1] = Path.CLOSEPOLY
            codes.append(c)
    return Path(np.concatenate(verts), np.concatenate(codes))


def _area_name(ruleset: Any, area: str) -> str:
    for key in ("areas", "seas"):
        obj = (_get(ruleset, key, None) or {}).get(area)
        name = _get(obj, "name")
        if isinstance(name, str) and name:
            return name
    return area.replace("_", " ").title()


def _is_hiland(ruleset: Any, area: str) -> bool:
    obj = (_get(ruleset, "areas", None) or {}).get(area)
    if _get(obj, "hiland") is True:
        return True
    return str(_get(obj, "terrain", "")).lower() == "hiland"


def _is_impassable(ruleset: Any, area: str) -> bool:
    """A land area of the map the ruleset does not have (it has areas): impassable land."""
    areas = _get(ruleset, "areas", None) or {}
    return bool(areas) and area not in areas


def scoring_centres(ruleset: Any) -> Mapping[str, tuple[tuple[str, frozenset[int]], ...]]:
    """The ruleset's scoring centres to mark (its family's `scoring_centres`): place -> (nation, rounds)."""
    hook = getattr(_get(ruleset, "rules", None), "scoring_centres", None)
    return dict(hook(ruleset)) if callable(hook) else {}


def _rounds_text(rounds: frozenset[int], ruleset: Any) -> str:
    """'' for every round of the game, else '5–7' (a run) or '2,4'."""
    last = _int(_get(ruleset, "max_rounds", None) or _get(_get(ruleset, "const", None), "max_rounds", None))
    rs_ = sorted(rounds)
    if not rs_ or (rs_[0] == 1 and rs_ == list(range(1, len(rs_) + 1)) and (not last or rs_[-1] >= last)):
        return ""
    if rs_ == list(range(rs_[0], rs_[-1] + 1)):
        return f"{rs_[0]}–{rs_[-1]}"
    return ",".join(map(str, rs_))


def centre_label(pairs: Iterable[tuple[str, frozenset[int]]], ruleset: Any) -> str:
    """A scoring centre's badge: '◎ IR', '◎ NO OS 5–7', '◎ SA 1–4 · JU 5–7' (nations scoring in the same
    rounds share their rounds)."""
    groups: dict[str, list[str]] = {}
    for nation, rounds in pairs:
        groups.setdefault(_rounds_text(frozenset(rounds), ruleset), []).append(style.nation_code(nation, ruleset))
    return "◎ " + " · ".join(" ".join(codes) + (f" {when}" if when else "") for when, codes in groups.items())


CENTRE_PT = 9.0         # a scoring centre's badge
CENTRE_DY_KM = 31.0     # its centre above a land area's anchor (over the name); a sea's: over its name


def centre_box(ruleset: Any, geo: Geometry, lay: Layout, place: str) -> tuple[float, float, float, float] | None:
    """Where a scoring centre's badge is drawn (x0, y0, x1, y1 in km), None for a place not on the map."""
    pairs = scoring_centres(ruleset).get(place)
    if not pairs:
        return None
    if place in geo.areas:
        x, y = geo.areas[place].anchor
        y += CENTRE_DY_KM
    elif place in geo.seas:
        x, y = geo.seas[place].label or geo.seas[place].anchor
        y += CENTRE_DY_KM * 0.7     # over the sea's name: its stacks go under it
    else:
        return None
    w = (_text_width_pt(centre_label(pairs, ruleset), CENTRE_PT) * 0.85 + 6) * lay.km_per_pt
    h = 1.7 * CENTRE_PT * lay.km_per_pt
    return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def _halo(width: float = 3.0, colour: str = "white") -> list:
    return [patheffects.withStroke(linewidth=width, foreground=colour)]


def _draw_static(ax: Any, panel: Any, geo: Geometry, ruleset: Any, lay: Layout, language: str = "en") -> PanelSlots:
    ax.set_facecolor(style.SEA)
    ax.add_patch(Rectangle((lay.frame[0], lay.frame[1]), lay.frame[2] - lay.frame[0], lay.frame[3] - lay.frame[1],
                           facecolor=style.SEA, edgecolor="none", zorder=0))
    # sea borders
    ax.add_collection(LineCollection(list(geo.sea_borders), colors=style.SEA_BORDER, linewidths=1.4,
                                     linestyles=(0, (6, 4)), zorder=1))
    # context land (Ireland, Man, the continent)
    ax.add_collection(PathCollection([_poly_path(geo.context)], facecolors=style.CONTEXT_LAND,
                                     edgecolors=style.CONTEXT_EDGE, linewidths=0.6, zorder=2))
    for text, (x, y) in geo.context_labels:
        ax.text(x, y, text, fontsize=NAME_PT, color=style.CONTEXT_TEXT, ha="center", va="center",
                style="italic", zorder=3)
    # land: clear, hiland (hatched) and impassable (darker, cross-hatched)
    kinds = {a: "impassable" if _is_impassable(ruleset, a) else "hiland" if _is_hiland(ruleset, a) else "clear"
             for a in geo.areas}
    clear = [p for a, s in geo.areas.items() if kinds[a] == "clear" for p in s.polygons]
    hiland = [p for a, s in geo.areas.items() if kinds[a] == "hiland" for p in s.polygons]
    impassable = [p for a, s in geo.areas.items() if kinds[a] == "impassable" for p in s.polygons]
    ax.add_collection(PathCollection([_poly_path(clear)], facecolors=style.LAND, edgecolors="none", zorder=3))
    if hiland:
        ax.add_collection(PathCollection([_poly_path(hiland)], facecolors=style.HILAND,
                                         edgecolors=style.HILAND_HATCH, linewidths=0, hatch="///", zorder=3))
    if impassable:
        ax.add_collection(PathCollection([_poly_path(impassable)], facecolors=style.IMPASSABLE,
                                         edgecolors=style.IMPASSABLE_HATCH, linewidths=0, hatch="xx", zorder=3))
    ax.add_collection(PathCollection([_poly_path([p for s in geo.areas.values() for p in s.polygons])],
                                     facecolors="none", edgecolors=style.AREA_EDGE, linewidths=0.9, zorder=4))
    ax.add_collection(LineCollection(list(geo.region_borders), colors=style.REGION_EDGE, linewidths=3.4,
                                     capstyle="round", joinstyle="round", zorder=5))
    # straits: a double arrow across the water
    for _a, _b, line in geo.straits:
        ax.add_patch(FancyArrowPatch(tuple(line[0]), tuple(line[1]), arrowstyle="<|-|>", mutation_scale=13,
                                     color=style.STRAIT, linewidth=2.2, linestyle=(0, (2, 1.5)),
                                     shrinkA=0, shrinkB=0, zorder=6))
    # names
    for a, s in geo.areas.items():
        x, y = s.anchor
        ax.text(x, y + NAME_DY_KM, _area_name(ruleset, a), fontsize=NAME_PT, color=style.AREA_TEXT, parse_math=False,
                ha="center", va="center", zorder=7, path_effects=_halo(2.5, style.LAND))
    for sea, s in geo.seas.items():
        for x, y in (s.label or s.anchor, *s.more_labels):
            ax.text(x, y, _area_name(ruleset, sea).upper(), fontsize=SEA_PT, color=style.SEA_TEXT, parse_math=False,
                    ha="center", va="center", style="italic", weight="bold", zorder=7,
                    path_effects=_halo(3.0, style.SEA))
    # scoring centres: a badge over the area's or sea's name, the nations and their rounds
    centres = scoring_centres(ruleset)
    for place, pairs in centres.items():
        where = centre_box(ruleset, geo, lay, place)
        if where is not None:
            ax.text((where[0] + where[2]) / 2, (where[1] + where[3]) / 2, centre_label(pairs, ruleset),
                    fontsize=CENTRE_PT, weight="bold", color=style.AREA_TEXT, ha="center", va="center", zorder=8,
                    parse_math=False, bbox=dict(boxstyle="round,pad=0.25", fc=style.CENTRE_FILL, ec=style.CENTRE_EDGE,
                                                lw=1.2))
    battle = _get(_get(ruleset, "rules", None), "battle", None)
    wounds = _int(_get(battle, "hits_to_kill", 1)) > 1     # a piece may hold a hit: its key row
    return _draw_legend(panel, ruleset, language, impassable=bool(impassable), centres=bool(centres),
                        wounds=wounds)


@dataclass(frozen=True)
class PanelSlots:
    """Where the dynamic parts of the side panel go (found while drawing the static part)."""

    values: dict[str, tuple[float, float]]    # nation -> (x right edge, y) of its VP number
    totals: dict[str, tuple[float, float]]    # player colour -> (x, y) of its VP total
    middle: tuple[float, float]               # free band (top y, bottom y) for battles etc.


PANEL_LINE = 0.0205     # panel line height (axes fraction)
PANEL_PT = 11.0


def _draw_legend(panel: Any, ruleset: Any, language: str = "en", *, impassable: bool = False,
                 centres: bool = False, wounds: bool = False) -> PanelSlots:
    """Players (with room for victory points) at the top, the key at the bottom; the words of both in
    the `language` of the players the map is mailed to (pbem.i18n: the area names stay as printed on
    the board, the nations' names are written as those players know them)."""
    from pbem import i18n
    from pbem.i18n import _

    def t(message: str) -> str:
        return i18n.tr(language, message)

    panel.add_patch(Rectangle((0, 0), 1, 1, facecolor=style.PANEL, edgecolor="#d8d2c0", lw=1, zorder=0))
    y = 0.988
    panel.text(0.03, y, t(_("Players & victory points")), fontsize=14, weight="bold", va="top")
    y -= 0.036
    order = style.player_order(ruleset)
    groups: dict[str, list[str]] = {p: [] for p in order}
    nations = list(style.nations_of(ruleset))
    rank = _nation_rank(ruleset)
    for n in sorted(nations, key=lambda n: (rank.get(n, 99), n)):
        p = style.player_of(n, ruleset)
        if p:
            groups[p].append(n)
    values: dict[str, tuple[float, float]] = {}
    totals: dict[str, tuple[float, float]] = {}
    for p in order:
        col = style.PLAYER_COLOURS[p]
        panel.add_patch(Rectangle((0.03, y - 0.009), 0.07, 0.018, facecolor=col, edgecolor="black", lw=1))
        panel.text(0.12, y, _colour_name(p, language), fontsize=12.5, weight="bold", va="center")
        totals[p] = (0.96, y)
        y -= PANEL_LINE * 1.15
        for i, n in enumerate(groups[p]):
            x = 0.05 if i % 2 == 0 else 0.53
            panel.text(x, y, f"{style.nation_code(n, ruleset)}  "
                       f"{i18n.local_name(language, ruleset, n) or style.nation_name(n, ruleset)}",
                       fontsize=PANEL_PT, va="center", color="#222", parse_math=False)
            values[n] = (x + 0.43, y)
            if i % 2 == 1 or i == len(groups[p]) - 1:
                y -= PANEL_LINE
        y -= PANEL_LINE * 0.5
    middle_top = y - 0.004

    # the key, from the bottom up
    col = style.PLAYER_COLOURS["blue"]
    tc = style.text_colour_on(col)
    rows: list[tuple[str, Any]] = [
        (t(_("3 armies + 1 cavalry")), ("counter", "BE 3+1c", "-")),
        (t(_("leader (★ + initial)")), ("counter", "SX 5 ★A", "-")),
        (t(_("raiders: R, dashed edge")), ("counter", "DA 4(2R)", "--")),
        (t(_("Roman fort")), ("square", "F")),
        (t(_("a fort with no army: the code alone")), ("counter", "BE", "-", "F")),
        (t(_("burhs (number)")), ("square", "B2")),
        (t(_("hiland")), ("hiland",)),
        *([(t(_("impassable")), ("impassable",))] if impassable else []),
        *([(t(_("scoring centre (rounds)")), ("centre",))] if centres else []),
        *([(t(_("wounded army (one hit)")), ("counter", "SA 3", "-", "W"))] if wounds else []),
        (t(_("border of Wales / Scotland / England")), ("region",)),
        (t(_("strait")), ("strait",)),
        (t(_("movement this turn")), ("arrow",)),
        (t(_("battle this turn")), ("battle",)),
    ]
    step = 0.025
    y = 0.015 + step * len(rows) + 0.035
    middle_bottom = y + 0.012
    panel.plot([0.03, 0.97], [y + 0.006, y + 0.006], color="#cfc8b4", lw=1)
    panel.text(0.03, y, t(_("Key")), fontsize=14, weight="bold", va="top")
    y -= 0.045
    for text, sym in rows:
        kind = sym[0]
        if kind == "counter":
            panel.text(0.06, y, sym[1], fontsize=PANEL_PT, weight="bold", color=tc, va="center",
                       bbox=dict(boxstyle="round,pad=0.22", fc=col, ec="black", lw=1.2, ls=sym[2]))
            if len(sym) > 3:   # its fort (or wounded) square beside it, as on the map
                panel.text(0.095 + 0.022 * len(sym[1]), y, sym[3], fontsize=PANEL_PT - 2, weight="bold",
                           color="white" if sym[3] in WOUNDED_MARKS.values() else "black", va="center",
                           bbox=_square_box(sym[3], col))
        elif kind == "square":
            panel.text(0.06, y, sym[1], fontsize=PANEL_PT - 2, weight="bold", color="black", va="center",
                       bbox=dict(boxstyle="square,pad=0.2", fc="white", ec=col, lw=2.0))
        elif kind == "hiland":
            panel.add_patch(Rectangle((0.05, y - 0.008), 0.22, 0.016, facecolor=style.HILAND,
                                      edgecolor=style.HILAND_HATCH, hatch="///", lw=0))
        elif kind == "impassable":
            panel.add_patch(Rectangle((0.05, y - 0.008), 0.22, 0.016, facecolor=style.IMPASSABLE,
                                      edgecolor=style.IMPASSABLE_HATCH, hatch="xx", lw=0))
        elif kind == "centre":
            panel.text(0.06, y, "◎ SA 5–7", fontsize=CENTRE_PT, weight="bold", color=style.AREA_TEXT, va="center",
                       bbox=dict(boxstyle="round,pad=0.25", fc=style.CENTRE_FILL, ec=style.CENTRE_EDGE, lw=1.2))
        elif kind == "region":
            panel.plot([0.05, 0.27], [y, y], color=style.REGION_EDGE, lw=3.4)
        elif kind == "strait":
            panel.add_patch(FancyArrowPatch((0.05, y), (0.27, y), arrowstyle="<|-|>", mutation_scale=13,
                                            color=style.STRAIT, lw=2.2, linestyle=(0, (2, 1.5))))
        elif kind == "arrow":
            panel.add_patch(FancyArrowPatch((0.05, y), (0.27, y), arrowstyle="-|>", mutation_scale=20, color=col,
                                            lw=3, path_effects=_halo(5.5, "white")))
        elif kind == "battle":
            panel.plot([0.16], [y], marker="*", ms=20, mfc=style.BATTLE, mec="black", mew=1.3)
        panel.text(0.33, y, text, fontsize=PANEL_PT, va="center")
        y -= step
    return PanelSlots(values, totals, (middle_top, middle_bottom))


def _colour_name(colour: str, language: str) -> str:
    """style.colour_name in `language`."""
    if language == "en":
        return style.colour_name(colour)
    from pbem import i18n
    from pbem.i18n import _

    drawn = style.DRAWN_AS.get(colour)
    name = i18n.colour(language, colour).capitalize()
    return name + (" " + i18n.tr(language, _("(drawn %(colour)s)"), colour=i18n.colour(language, drawn))
                   if drawn else "")


def _static_layer(width_px: int, ruleset: Any, geo: Geometry, lay: Layout,
                  language: str = "en") -> tuple[np.ndarray, PanelSlots, Any, np.ndarray]:
    """The board's pixels without stacks or marks, where the panel's rows go, the maps' palette, and
    the board's pixels' indices in it (a map looks up only the pixels it changed, _indices)."""
    key = (width_px, id(geo), _ruleset_signature(ruleset), language)
    with _cache_lock:
        hit = _static_cache.get(key)
    if hit is not None:
        return hit
    fig, ax, panel = _new_figure(width_px, lay)
    fig.patch.set_facecolor("white")
    slots = _draw_static(ax, panel, geo, ruleset, lay, language)
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba()).copy()
    del fig, ax, panel
    gc.collect()   # the static figure's thousands of artists and cycles go now, not at some later full collection
    with _cache_lock:
        if len(_static_cache) >= 4:  # ~11 MB each at 1600 px
            _static_cache.clear()
        palette = _palette(img, ruleset)
        _static_cache[key] = hit = (img, slots, palette, _indices(img, palette).copy())
    return hit


def _palette(base: np.ndarray, ruleset: Any) -> Any:
    """The palette of every map over this static layer (a Pillow "P" image): first every flat colour a
    map is drawn in exactly (the style's, each nation's, the texts'), then the colours that best stand
    for the board's own pixels (its antialiased edges, texts and hatching), PALETTE_COLOURS in all.
    Made once with the static layer: each map's pixels are then only looked up in it, where a colour
    reduction of its own cost a third of a map's time (issue 33), and every map of a game shares one
    palette."""
    from PIL import Image

    flat = [v for v in vars(style).values() if isinstance(v, str) and len(v) == 7 and v.startswith("#")]
    flat += [*style.PLAYER_COLOURS.values(), *TEXT_COLOURS, "#ffffff", "#000000"]
    flat += [style.nation_colour(n, ruleset) for n in style.nations_of(ruleset)]
    colours = list(dict.fromkeys(style.hex_to_rgb(c.lower()) for c in flat))
    h, w = base.shape[:2]
    board = Image.frombytes("RGB", (w, h), base, "raw", "RGBX").quantize(
        colors=PALETTE_COLOURS - len(colours), method=Image.Quantize.FASTOCTREE)
    found = board.getpalette() or []
    colours += [c for c in zip(found[0::3], found[1::3], found[2::3], strict=True) if c not in colours]
    image = Image.new("P", (1, 1))
    image.putpalette([v for c in colours[:256] for v in c])
    return image


# --- dynamic parts -----------------------------------------------------------------------------------
def _squares(c: Counter) -> tuple[str, ...]:
    return (((f"F{c.fort}" if c.fort > 1 else "F",) if c.fort else ())
            + ((f"B{c.burhs}" if c.burhs > 1 else "B",) if c.burhs else ())
            + ((WOUNDED_MARKS[c.wounded],) if c.wounded else ()))


def _square_box(sq: str, fc: str) -> dict:
    """The box of a counter's square: white with the nation's edge; a wounded piece's red."""
    if sq in WOUNDED_MARKS.values():
        return dict(boxstyle="square,pad=0.2", fc=style.WOUNDED, ec="black", lw=1.3)
    return dict(boxstyle="square,pad=0.2", fc="white", ec=fc, lw=2.0)


@lru_cache(maxsize=1024)
def _counter_sprite(label: str, fc: str, dashed: bool, squares: tuple[str, ...], width_pt: float,
                    dpi: float, size_pt: float = COUNTER_PT) -> tuple[np.ndarray, np.ndarray, float, float]:
    """A counter drawn once on a transparent background, as the two terms of its alpha blend
    (`_paste`: its colour times its alpha, and what is kept of the pixels under it), its centre column
    and its centre row.

    Counters repeat a lot ('BE 1' ten times at the start), and drawing text is the slowest part of a
    render, so each distinct counter is drawn once and then pasted; its blend terms are worked out
    once too (a map pastes ~40 counters)."""
    w_in, h_in = (width_pt + 24.0) / 72.0, (size_pt * 2.4) / 72.0
    fig = Figure(figsize=(w_in, h_in), dpi=dpi)
    FigureCanvasAgg(fig)
    fig.patch.set_alpha(0)
    sq_pt = 1.5 * size_pt * len(squares)
    cx = w_in * 72.0 / 2            # the counter group's centre, points from the left

    def frac(x_pt: float) -> float:
        return x_pt / (w_in * 72.0)

    fig.text(frac(cx - sq_pt / 2), 0.5, label, fontsize=size_pt, weight="bold", color=style.text_colour_on(fc),
             ha="center", va="center", parse_math=False,
             bbox=dict(boxstyle="round,pad=0.22", fc=fc, ec="black", lw=1.3, ls="--" if dashed else "-"))
    sx = cx - sq_pt / 2 + (width_pt - sq_pt) / 2 - 0.25 * size_pt
    for sq in squares:
        w = 1.5 * size_pt
        fig.text(frac(sx + w / 2 + 1.0), 0.5, sq, fontsize=size_pt - 2, weight="bold",
                 color="white" if sq in WOUNDED_MARKS.values() else "black", ha="center", va="center",
                 bbox=_square_box(sq, fc))
        sx += w
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba()).astype(np.float32) / 255.0
    rows, cols = np.nonzero(rgba[..., 3] > 0)
    r0, r1, c0, c1 = rows.min(), rows.max() + 1, cols.min(), cols.max() + 1
    h_px, w_px = rgba.shape[:2]
    sprite = rgba[r0:r1, c0:c1]
    alpha = sprite[..., 3:4]
    return sprite[..., :3] * 255.0 * alpha, 1.0 - alpha, w_px / 2 - c0, h_px / 2 - r0


def _paste(pixels: np.ndarray, ink: np.ndarray, keep: np.ndarray, col: float, row: float) -> None:
    """Alpha-blend a straight-alpha float sprite into the uint8 RGBA picture, top-left at (col, row):
    each pixel becomes ink + pixel * keep, rounded (`ink` = the sprite's colour * 255 * its alpha,
    `keep` = 1 - its alpha, float32, as _counter_sprite makes them)."""
    c0, r0 = int(round(col)), int(round(row))
    h, w = ink.shape[:2]
    H, W = pixels.shape[:2]
    a0, b0 = max(0, -r0), max(0, -c0)
    a1, b1 = min(h, H - r0), min(w, W - c0)
    if a1 <= a0 or b1 <= b0:
        return
    dst = pixels[r0 + a0 : r0 + a1, c0 + b0 : c0 + b1, :3]
    mixed = dst * keep[a0:a1, b0:b1]      # float32, as the sum was before these terms were kept
    mixed += ink[a0:a1, b0:b1]
    mixed += 0.5
    dst[...] = mixed                      # truncated to uint8, as astype does


def _paste_counters(pixels: np.ndarray, ruleset: Any, state: Any, geo: Geometry, lay: Layout,
                    width_px: int) -> None:
    dpi = width_px / FIG_W_IN
    areas = _get(state, "areas", None) or {}
    for area, stacks in areas.items():
        if not stacks or not isinstance(stacks, Mapping):
            continue
        for c in stack_layout(area, stacks, ruleset, geo):
            ink, keep, cx, cy = _counter_sprite(c.label, style.nation_colour(c.nation, ruleset), c.raiders,
                                             _squares(c), round(c.width_km / lay.km_per_pt, 1), dpi, c.size_pt)
            col, row = pixel_of(c.x, c.y, width_px, geo)
            _paste(pixels, ink, keep, col - cx, row - cy)


def _draw_callouts(ax: Any, ruleset: Any, state: Any, geo: Geometry) -> None:
    """Crowded areas too small for their counters: a white frame under the counters and a line from it
    to the area's anchor (drawn below the counters)."""
    areas = _get(state, "areas", None) or {}
    for area, stacks in areas.items():
        if not stacks or not isinstance(stacks, Mapping) or len(stacks) < CROWDED:
            continue
        counters = stack_layout(area, stacks, ruleset, geo)
        if not counters or counters[0].leader is None:
            continue
        x0, y0, x1, y1 = callout_frame(counters)
        lx, ly = counters[0].leader
        ex, ey = min(max(lx, x0), x1), min(max(ly, y0), y1)   # the frame's point nearest the anchor
        if (ex, ey) != (lx, ly):  # (a frame over the anchor needs no line)
            ax.plot([lx, ex], [ly, ey], color="black", lw=1.6, zorder=COUNTER_Z - 2, solid_capstyle="round")
            ax.plot([lx], [ly], marker="o", ms=5, color="black", zorder=COUNTER_Z - 2)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor="white", edgecolor="black", lw=1.2,
                               alpha=0.92, zorder=COUNTER_Z - 1))


def _point_of(geo: Geometry, where: Any) -> tuple[float, float] | None:
    try:
        return geo.anchor(str(where))
    except KeyError:
        return None


def _name_box(ruleset: Any, geo: Geometry, lay: Layout, area: str) -> tuple[float, float, float, float]:
    """The rectangle a land area's name takes on the map (x0, y0, x1, y1 in km; the bold estimate of
    its width, so a little wider than drawn)."""
    ax, ay = geo.anchor(area)
    w = _text_width_pt(_area_name(ruleset, area), NAME_PT) * lay.km_per_pt
    h = 1.2 * NAME_PT * lay.km_per_pt
    return ax - w / 2, ay + NAME_DY_KM - h / 2, ax + w / 2, ay + NAME_DY_KM + h / 2


def _counters_of(ruleset: Any, state: Any, geo: Geometry, area: str) -> list[Counter]:
    stacks = (_get(state, "areas", None) or {}).get(area)
    return stack_layout(area, stacks, ruleset, geo) if isinstance(stacks, Mapping) and stacks else []


def _block(ruleset: Any, geo: Geometry, lay: Layout, area: str, counters: list[Counter]) -> tuple | None:
    """The rectangle an area's name and its `counters` (those drawn in it: not a callout's) take."""
    boxes = [c.box() for c in counters if c.leader is None]
    if area in geo.areas:
        boxes.append(_name_box(ruleset, geo, lay, area))
    return marks.union(boxes) if boxes else None


@dataclass
class Marks:
    """The step's marks on the map (pbem/render/marks.py places them): arrows (nation, leg), counts
    of units arriving (nation, x, y, n), battle stars (area, x, y, half-size), the areas the arrows
    pass through (their names are drawn again above the arrows)."""

    arrows: list[tuple[str, marks.Leg]]
    counts: list[tuple[str, float, float, int]]
    stars: list[tuple[str, float, float, float]]
    on_paths: set[str]
    battles: list[Battle]


def plan_marks(ruleset: Any, state: Any, events: Iterable[Event | Mapping[str, Any]], geo: Geometry | None = None,
               lay: Layout | None = None) -> Marks:
    """Where the step's arrows, counts and stars go (drawn by _draw_events, checked by the tests)."""
    geo = geo or load_geometry(ruleset_id=str(_get(ruleset, "id", "") or ""))
    lay = lay or layout(geo)
    events = from_dicts(events or ())
    out = Marks([], [], [], set(), [])
    laid: dict[str, list[Counter]] = {}   # each area's counters, laid out once for the whole plan

    def counters_of(area: str) -> list[Counter]:
        if area not in laid:
            laid[area] = _counters_of(ruleset, state, geo, area)
        return laid[area]

    placed: list[tuple] = []          # every area's name and counters, boxed once for the whole plan

    def names_and_counters() -> list[tuple]:
        if not placed:
            placed.extend(_name_box(ruleset, geo, lay, a) for a in geo.areas)
            placed.extend(c.box() for a in (_get(state, "areas", None) or {}) for c in counters_of(a))
        return placed

    counts: dict[tuple, int] = {}     # (nation, final leg) -> units arriving over that leg
    for ev in events:
        if isinstance(ev, Moved):
            path = list(ev.path)
            out.on_paths.update(path)
            hops = [(a, p) for a, p in ((a, _point_of(geo, a)) for a in path) if p is not None]
            hops = [h for i, h in enumerate(hops) if i == 0 or h[1] != hops[i - 1][1]]
            if len(hops) < 2:
                continue
            legs = marks.plan_move([p for _a, p in hops], _block(ruleset, geo, lay, hops[0][0], counters_of(hops[0][0])),
                                   _block(ruleset, geo, lay, hops[-1][0], counters_of(hops[-1][0])))
            out.arrows += [(ev.nation, leg) for leg in legs]
            n = ev.count if ev.kind in ("armies", "cavalry") else 0
            if n:
                last = legs[-1]
                key = (ev.nation, last)
                counts[key] = counts.get(key, 0) + n
        elif isinstance(ev, Battle):
            p = _point_of(geo, ev.area)
            if p is None:
                continue
            out.battles.append(ev)
            half = STAR_HALF_PT * lay.km_per_pt
            area = str(ev.area)
            name = _name_box(ruleset, geo, lay, area) if area in geo.areas else None
            default = ((name[2] if name else p[0]) + half + 4.0, p[1] + NAME_DY_KM)
            shape = _shapes_of(geo)["area"].get(area)
            own = [c.box() for c in counters_of(area)] + ([name] if name else [])
            # clear of every name and counter, a neighbour's too (a wide counter may reach into the area)
            clear = names_and_counters() + [(x - h, y - h, x + h, y + h) for _a, x, y, h in out.stars]
            (x, y), half = ((default, half) if shape is None else
                            marks.star_point(default, half, lambda b, shape=shape: shape.contains(_box(*b)), clear,
                                             near=own, contains_many=partial(_contains_boxes, shape)))
            out.stars.append((area, x, y, half))
    if counts:
        r = COUNT_R_PT * lay.km_per_pt
        taken = list(names_and_counters())
        for (nation, leg), n in counts.items():
            x, y = marks.count_point(leg, r, taken)
            out.counts.append((nation, x, y, n))
            taken.append((x - r, y - r, x + r, y + r))
    return out


def _box(x0: float, y0: float, x1: float, y1: float) -> Any:
    from shapely import box

    return box(x0, y0, x1, y1)


def _contains_boxes(shape: Any, boxes: np.ndarray) -> np.ndarray:
    """Whether `shape` (prepared) contains each box (rows x0, y0, x1, y1): shapely's vectorized
    predicate, one call for many of the places a battle star is tried instead of one call each."""
    import shapely

    return shapely.contains(shape, shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]))


def _draw_events(ax: Any, ruleset: Any, state: Any, events: Iterable[Event | Mapping[str, Any]], geo: Geometry,
                 lay: Layout) -> list[str]:
    """The step's moves (arrows, with the units arriving) and battles (a star, a line in the panel);
    `events` typed or as logged (pbem.rules.events)."""
    events = from_dicts(events or ())
    plan = plan_marks(ruleset, state, events, geo, lay)
    for nation, leg in plan.arrows:
        col = style.nation_colour(nation, ruleset)
        ax.add_patch(FancyArrowPatch(leg.start, leg.end, arrowstyle="-|>" if leg.head else "-",
                                     mutation_scale=22, color=col, lw=3.2,
                                     connectionstyle=f"arc3,rad={leg.rad}", shrinkA=2 if leg.clipped_start else 12,
                                     shrinkB=1 if leg.clipped_end else 14,
                                     path_effects=_halo(6.0, "white"), zorder=15))
    battle_lines = []
    for (area, x, y, half), ev in zip(plan.stars, plan.battles, strict=True):
        ax.plot([x], [y], marker="*", ms=2 * half / lay.km_per_pt, mfc=style.BATTLE, mec="black", mew=1.4, zorder=22,
                linestyle="none")
        att, dfn = ev.attacker, ev.defender
        # the outcome comes in the battle's `battle_end` event
        win = next((e.winner for e in events if isinstance(e, BattleEnd) and e.area == ev.area and e.defender == dfn),
                   None)
        who = " vs ".join(style.nation_code(str(n), ruleset) for n in (att, dfn) if n)
        res = f": {style.nation_code(str(win), ruleset)} won" if win else ": no winner"
        battle_lines.append(f"{_area_name(ruleset, area)}  {who}{res}")
    # one count per nation and final leg: moves sharing their last step (a two-leg move and a one-leg
    # move into the same area) show the units arriving there together, not two labels on top of each other
    for nation, x, y, n in plan.counts:
        col = style.nation_colour(nation, ruleset)
        ax.text(x, y, str(n), fontsize=COUNTER_PT, weight="bold",
                color=style.text_colour_on(col), ha="center", va="center", zorder=16,
                bbox=dict(boxstyle="circle,pad=0.2", fc=col, ec="white", lw=1.8))
    # the names of the areas the arrows run through, again above the arrows
    for a in sorted(plan.on_paths):
        if a in geo.areas:
            x, y = geo.areas[a].anchor
            ax.text(x, y + NAME_DY_KM, _area_name(ruleset, a), fontsize=NAME_PT, color=style.AREA_TEXT,
                    parse_math=False, ha="center", va="center", zorder=17, path_effects=_halo(3.0, style.LAND))
    return battle_lines


def _vp_rows(ruleset: Any, state: Any, vp_table: Any) -> list[tuple[str, str, Any]]:
    """-> [(nation or '', label, points)]."""
    table = vp_table if vp_table is not None else _get(state, "vp", None)
    rows: list[tuple[str, str, Any]] = []
    if isinstance(table, Mapping):
        items = list(table.items())
    elif isinstance(table, Iterable) and not isinstance(table, str | bytes):
        items = []
        for r in table:
            if isinstance(r, Mapping):
                items.append((r.get("nation") or r.get("label") or r.get("name") or "?",
                              r.get("points", r.get("vp", r.get("total", "")))))
            elif isinstance(r, list | tuple) and len(r) >= 2:
                items.append((r[0], r[-1]))
    else:
        items = []
    known = style.nations_of(ruleset)
    for key, pts in items:
        key = str(key)
        if key in known:
            rows.append((key, f"{style.nation_code(key, ruleset)} {style.nation_name(key, ruleset)}", pts))
        else:
            rows.append(("", key, pts))
    return rows


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _draw_panel(panel: Any, ruleset: Any, state: Any, vp_table: Any, battles: list[str], slots: PanelSlots,
                language: str = "en") -> None:
    from pbem import i18n
    from pbem.i18n import _

    rows = _vp_rows(ruleset, state, vp_table)
    totals: dict[str, float] = {}
    others = []
    for nation, label, pts in rows:
        if nation in slots.values:
            x, y = slots.values[nation]
            panel.text(x, y, _fmt(pts), fontsize=PANEL_PT, va="center", ha="right", weight="bold")
            p = style.player_of(nation, ruleset)
            if p and isinstance(pts, int | float) and not isinstance(pts, bool):
                totals[p] = totals.get(p, 0) + pts
        else:
            others.append(f"{label}: {_fmt(pts)}")
    for p, v in totals.items():
        x, y = slots.totals[p]
        panel.text(x, y, f"{_fmt(v)} " + i18n.tr(language, _("VP")), fontsize=12.5, va="center", ha="right",
                   weight="bold")
    top, bottom = slots.middle
    lines: list[tuple[str, bool]] = []
    if others:
        lines += [(i18n.tr(language, _("Other scores")), True)] + [(o, False) for o in others] + [("", False)]
    if battles:
        lines += [(i18n.tr(language, _("Battles")), True)] + [("★ " + b, False) for b in battles]
    y = top
    for text, heading in lines:
        if y - PANEL_LINE < bottom:
            panel.text(0.05, y, "…", fontsize=PANEL_PT, va="center")
            break
        if heading:
            y -= PANEL_LINE * 0.4
            panel.text(0.03, y, text, fontsize=14, weight="bold", va="center")
            y -= PANEL_LINE * 1.3
        else:
            panel.text(0.05, y, text, fontsize=PANEL_PT, va="center")
            y -= PANEL_LINE


def warm_up(ruleset: Any, width_px: int = 1600, language: str = "en") -> None:
    """Draw the static layer of `ruleset`'s maps now (before forking workers, which then share it)."""
    geo = load_geometry(ruleset_id=str(_get(ruleset, "id", "") or ""))
    _static_layer(int(width_px), ruleset, geo, layout(geo), language)


def render_map(ruleset: Any, state: Any, *, title: str, events: Iterable[Event | Mapping[str, Any]] | None = None,
               vp_table: Any = None, width_px: int = 1600, language: str = "en") -> bytes:
    """The board with every stack as a PNG (bytes). See the module docstring for the inputs. `language`:
    the words of the legend and the key (pbem.i18n; the title is given in it)."""
    width_px = int(width_px)
    if width_px < 200:
        raise ValueError("width_px must be at least 200")
    geo = load_geometry(ruleset_id=str(_get(ruleset, "id", "") or ""))
    lay = layout(geo)
    base, slots, palette, base_indices = _static_layer(width_px, ruleset, geo, lay, language)
    fig, renderer = _canvas(width_px, lay)
    ax = _Layer(fig, _rect_transform(lay.map_rect, lay.frame, fig))
    panel = _Layer(fig, _rect_transform(lay.panel_rect, (0.0, 0.0, 1.0, 1.0), fig))
    top = _Layer(fig, fig.transFigure)
    battles = _draw_events(ax, ruleset, state, events or (), geo, lay)
    _draw_callouts(ax, ruleset, state, geo)
    _draw_panel(panel, ruleset, state, vp_table, battles, slots, language)
    top.text(0.01, 1 - 0.42 / lay.fig_h_in, title, fontsize=22, weight="bold", va="center", ha="left",
             color="#1d1d1d")
    if "PROVISIONAL" in str(_get(ruleset, "name", "") or ""):
        # the ruleset's board or aid is a reconstruction, not the printed game's: every map says so
        from pbem import i18n
        from pbem.i18n import _

        top.text(0.99, 1 - 0.42 / lay.fig_h_in, i18n.tr(language, _("PROVISIONAL board")), fontsize=15,
                 weight="bold", va="center", ha="right", color="#b00020")
    # Draw only the new artists on top of the cached static pixels: a full figure draw would redo the
    # static layer (and Axes are slow to make). Counters are pasted as cached sprites.
    pixels = np.asarray(renderer.buffer_rgba())
    pixels[...] = base
    ax.draw(renderer, below=COUNTER_Z)
    _paste_counters(pixels, ruleset, state, geo, lay, width_px)
    ax.draw(renderer, at_least=COUNTER_Z)
    panel.draw(renderer)
    top.draw(renderer)
    return _png(pixels, palette, base, base_indices)


_canvases = threading.local()


def _canvas(width_px: int, lay: Layout) -> tuple[Figure, Any]:
    """This thread's Figure of this size and its Agg renderer, made once and drawn on again by every
    map (issue 33): a new Figure per map made a pixel buffer (~11 MB at 1600 px) and reference
    cycles that lived until the next full garbage collection. Nothing is ever added to it (the
    artists live in _Layer lists and die with the call); each map first pastes the static layer
    over every pixel."""
    key = (width_px, lay.fig_h_in)
    hit = getattr(_canvases, "hit", None)
    if hit is None or hit[0] != key:
        fig = Figure(figsize=(FIG_W_IN, lay.fig_h_in), dpi=width_px / FIG_W_IN)
        FigureCanvasAgg(fig)
        renderer = fig.canvas.get_renderer()
        glyphs.install(renderer)   # every map's glyphs rasterized once (pbem.render.glyphs)
        hit = _canvases.hit = (key, fig, renderer)
    return hit[1], hit[2]


def _rect_transform(rect: list[float], limits: tuple[float, float, float, float], fig: Figure) -> Affine2D:
    """Data coordinates within `limits` (x0, y0, x1, y1) -> pixels of the figure area `rect` (fractions)."""
    W, H = fig.bbox.width, fig.bbox.height
    x0, y0, x1, y1 = limits
    sx = rect[2] * W / (x1 - x0)
    sy = rect[3] * H / (y1 - y0)
    return Affine2D().translate(-x0, -y0).scale(sx, sy).translate(rect[0] * W, rect[1] * H)


class _Layer:
    """The few Axes methods we use (text, plot, add_patch), making artists in given coordinates that
    are drawn straight onto the picture, sorted by zorder."""

    def __init__(self, fig: Figure, transform: Any):
        self.fig, self.transform, self.artists = fig, transform, []
        self.stamp_keys: dict[int, tuple] = {}     # id(Text) -> its stamp key (pbem.render.stamps)
        self._where = (fig.dpi, fig.bbox.width, fig.bbox.height, transform.get_matrix().tobytes())

    def _add(self, artist: Any) -> Any:
        artist.set_figure(self.fig)
        self.artists.append(artist)
        return artist

    def text(self, x: float, y: float, s: str, **kw: Any) -> Text:
        kw.setdefault("parse_math", False)  # titles and names are plain text ('$' is not mathtext)
        artist = self._add(Text(x, y, str(s), transform=self.transform, **kw))
        if "bbox" not in kw and "path_effects" not in kw:   # a plain text: the same text in the same place
            try:                                            # draws the same pixels (a stamp)
                key = (self._where, float(x), float(y), str(s), tuple(sorted(kw.items())))
                hash(key)
            except TypeError:
                return artist
            self.stamp_keys[id(artist)] = key
        return artist

    def plot(self, xs: list[float], ys: list[float], **kw: Any) -> Line2D:
        return self._add(Line2D(xs, ys, transform=self.transform, **kw))

    def add_patch(self, patch: Any) -> Any:
        patch.set_transform(self.transform)
        return self._add(patch)

    def draw(self, renderer: Any, below: float | None = None, at_least: float | None = None) -> None:
        pixels = np.asarray(renderer.buffer_rgba())
        for a in sorted(self.artists, key=lambda a: a.get_zorder()):
            z = a.get_zorder()
            if (below is None or z < below) and (at_least is None or z >= at_least):
                key = self.stamp_keys.get(id(a))
                if key is None:
                    a.draw(renderer)
                else:
                    stamps.draw(a, key, renderer, pixels)


def _png(rgba: np.ndarray, palette: Any, base: np.ndarray, base_indices: np.ndarray) -> bytes:
    """Palette PNG: ~3x smaller than RGB (mail!) and faster to compress; the picture has few colours.
    Each pixel takes the nearest colour of the static layer's `palette` (no dithering: flat areas stay
    flat); the file is written by pbem.render.png (libdeflate)."""
    from pbem.render.png import palette_png

    return palette_png(_changed_indices(rgba, palette, base, base_indices), bytes(palette.getpalette()))


_CHANGED_AT_ONCE = 1 << 18    # changed pixels looked up at a time (a 1 MB RGB row for Pillow)


def _changed_indices(rgba: np.ndarray, palette: Any, base: np.ndarray, base_indices: np.ndarray) -> np.ndarray:
    """The palette index of every pixel of a map drawn over the static layer `base`, whose own
    indices are `base_indices`: a pixel the map left as it was keeps its index, and only the pixels
    it changed (its stacks, marks and panel texts: a few per cent) are looked up. Pillow's lookup
    gives a pixel the index of its colour alone (no dithering), so this is the lookup of the whole
    picture (_indices), which took a tenth of a map's time."""
    from PIL import Image

    h, w = rgba.shape[:2]
    out = getattr(_canvases, "indices", None)
    if out is None or out.shape != (h, w):
        out = _canvases.indices = np.empty((h, w), dtype=np.uint8)
    np.copyto(out, base_indices)
    now = rgba.view(np.uint32).reshape(-1)
    changed = np.flatnonzero(now != base.view(np.uint32).reshape(-1))
    flat = out.reshape(-1)
    for k in range(0, len(changed), _CHANGED_AT_ONCE):
        where = changed[k:k + _CHANGED_AT_ONCE]
        rgb = Image.frombytes("RGB", (len(where), 1), now[where].tobytes(), "raw", "RGBX")
        flat[where] = np.frombuffer(rgb.quantize(palette=palette, dither=Image.Dither.NONE).tobytes(), dtype=np.uint8)
    return out


_ROWS_AT_ONCE = 64    # a strip of the picture quantized at a time


def _indices(rgba: np.ndarray, palette: Any) -> np.ndarray:
    """The palette index of every pixel (rows x columns), into a buffer this thread keeps for the next
    map. Done in strips: the whole picture at once made Pillow allocate (and the kernel fault in) a
    new 11 MB RGB copy and a 2.7 MB index image per map, a fifth of a map's time spent in the kernel;
    a strip's memory is reused by the next strip (issue 33)."""
    from PIL import Image

    h, w = rgba.shape[:2]
    out = getattr(_canvases, "indices", None)
    if out is None or out.shape != (h, w):
        out = _canvases.indices = np.empty((h, w), dtype=np.uint8)
    for top in range(0, h, _ROWS_AT_ONCE):
        strip = rgba[top:top + _ROWS_AT_ONCE]
        rgb = Image.frombytes("RGB", (w, len(strip)), strip, "raw", "RGBX")   # the alpha dropped as it is read
        out[top:top + len(strip)] = np.frombuffer(
            rgb.quantize(palette=palette, dither=Image.Dither.NONE).tobytes(), dtype=np.uint8).reshape(len(strip), w)
    return out
