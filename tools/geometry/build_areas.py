"""Build the area polygons of the map picture: `pbem/data/classic/areas.json`.

One-off build script, NOT used at runtime (the renderer only reads the committed JSON)::

    python tools/geometry/build_areas.py [--debug /tmp/areas-debug.png]

Inputs: `pbem/data/classic/coast.json` (made by extract_coast.py) and the map facts of
/work/shared/reference/classic-map.yaml (or pbem/data/classic/map.yaml): adjacency, regions, straits.

Method
------
* Every land area has one hand-placed ANCHOR (lon, lat): where its stacks and name are drawn. Extra
  HELPER seeds shape the cells. The Voronoi diagram of all seeds (anchors + helpers) of the mainland
  areas is clipped to the coastline of Great Britain; an area is the union of the cells of its seeds.
* The four-corner point (rule 5.14: Galloway / Lothian / Cumbria / Pennines meet in one point) is made
  by four seeds on the corners of a square centred on the point: their Voronoi cells meet exactly there.
* Islands are given whole to one area (ISLAND_RULES; else the nearest area).
* Seas: the water (frame minus all land) is cut by six polylines (SEA_CUTS) running from the coast
  to the frame; each piece goes to the sea whose label point it holds. The Irish / Icelandic cut starts
  exactly at the coast point where Skye and Dalriada meet (rule 5.16: Skye borders the Icelandic Sea
  only, Dalriada the Irish Sea only).
* The script checks the result against the map data (the same checks as tests/render) and exits 1
  on any disagreement, so the anchors can be adjusted until it passes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from itertools import combinations
from pathlib import Path

import shapely
from ruamel.yaml import YAML
from shapely.geometry import LineString, MultiPoint, Point, Polygon, box
from shapely.ops import linemerge, polygonize, unary_union

ROOT = Path(__file__).resolve().parents[2]
GEO = ROOT / "pbem" / "data" / "classic"
MAP_CANDIDATES = [ROOT / "pbem" / "data" / "classic" / "map.yaml",
                  Path("/work/shared/reference/classic-map.yaml")]

# Thresholds (km). A border is a shared boundary of at least BORDER_MIN km; a non-border shares at
# most POINT_MAX km (a point contact, measured with a tiny buffer).
BORDER_MIN = 6.0
POINT_MAX = 0.5
EPS = 0.05

# --- hand-placed anchors (lon, lat): the stack / name position of each land area ------------------
ANCHORS: dict[str, tuple[float, float]] = {
    # Scotland
    "orkneys": (-3.05, 59.02),
    "hebrides": (-6.75, 57.95),
    "caithness": (-4.1, 58.3),
    "skye": (-5.25, 57.55),
    "moray": (-4.0, 57.4),
    "mar": (-2.65, 57.2),
    "alban": (-4.3, 56.8),
    "dalriada": (-5.35, 56.25),
    "dunedin": (-3.35, 56.35),
    "strathclyde": (-4.45, 55.6),
    # England (north)
    "lothian": (-2.75, 55.65),
    "galloway": (-4.0, 55.05),
    "bernicia": (-1.85, 55.2),
    "cumbria": (-3.1, 54.55),
    "pennines": (-2.2, 54.55),
    "york": (-1.2, 54.0),
    "cheshire": (-2.65, 53.65),
    "march": (-2.65, 52.75),
    "north_mercia": (-1.2, 52.85),
    "lindsey": (-0.3, 53.25),
    "norfolk": (0.95, 52.7),
    "suffolk": (0.55, 52.2),
    "south_mercia": (-1.05, 52.1),
    "essex": (0.45, 51.75),
    "kent": (0.85, 51.2),
    "sussex": (-0.3, 50.95),
    "downlands": (-1.5, 51.35),
    "wessex": (-2.2, 50.8),
    "avalon": (-2.8, 51.15),
    "hwicce": (-2.2, 52.0),
    # Wales (rule 2.11: Devon and Cornwall are in Wales)
    "clwyd": (-3.42, 53.12),
    "gwynedd": (-4.05, 52.9),
    "powys": (-3.6, 52.4),
    "dyfed": (-4.6, 51.9),
    "gwent": (-3.3, 51.7),
    "devon": (-3.8, 50.75),
    "cornwall": (-4.9, 50.4),
}

# where stacks and names are drawn, when not the pole of inaccessibility of the area's main part
ANCHOR_OVERRIDES: dict[str, tuple[float, float]] = {
    "gwynedd": (-4.08, 52.87),  # a little south-west: more room from Clwyd's name
}

# extra seeds (lon, lat) that shape the cells; they carry no label
HELPERS: dict[str, list[tuple[float, float]]] = {
    "skye": [(-5.0, 57.05), (-5.6, 56.99)],
    "dalriada": [(-5.2, 56.75), (-4.55, 56.3), (-5.6, 56.67)],
    "dunedin": [(-4.0, 56.2)],
    "bernicia": [(-1.45, 54.75)],
    "york": [(-1.0, 54.45), (-1.75, 53.2)],
    "cheshire": [(-2.5, 53.15)],
    "hwicce": [(-2.4, 51.75)],
    "wessex": [(-2.9, 50.75), (-1.3, 50.9)],
    "devon": [(-3.25, 50.8)],
    "sussex": [(-0.9, 50.88)],
    "essex": [(-0.3, 51.45)],
}

# rule 5.14 four-corner point and the corner each area takes (NW, NE, SE, SW)
FOUR_CORNER_LONLAT = (-2.85, 55.1)
FOUR_CORNER_HALF_KM = 7.0
FOUR_CORNER_SEEDS = {"galloway": (-1, 1), "lothian": (1, 1), "pennines": (1, -1), "cumbria": (-1, -1)}

ISLAND_AREAS = ("hebrides", "orkneys")  # no mainland part

# (area, lon_min, lon_max, lat_min, lat_max) on the island's centroid; first match wins
ISLAND_RULES = [
    ("orkneys", -4.0, -2.0, 58.6, 59.6),
    ("hebrides", -9.0, -6.45, 56.7, 58.7),  # Lewis and Harris: centroid -6.66
    ("skye", -6.8, -5.5, 56.85, 57.8),
    ("dalriada", -7.2, -5.45, 55.5, 56.85),
    ("strathclyde", -5.45, -4.7, 55.3, 56.0),
    ("gwynedd", -4.8, -4.0, 53.1, 53.45),
    ("wessex", -1.65, -1.0, 50.55, 50.8),
]

# --- seas ------------------------------------------------------------------------------------------
SEA_LABELS: dict[str, tuple[float, float]] = {
    "icelandic_sea": (-6.2, 59.05),
    "north_sea": (0.6, 57.2),
    "frisian_sea": (1.75, 53.2),
    "english_channel": (-3.3, 50.22),
    "atlantic_ocean": (-6.4, 51.1),
    "irish_sea": (-5.1, 54.45),
}
# where units at sea are drawn
SEA_ANCHORS: dict[str, tuple[float, float]] = {
    "icelandic_sea": (-6.2, 58.78),
    "north_sea": (0.6, 56.93),
    "frisian_sea": (1.25, 53.62),
    "english_channel": (-1.2, 50.3),
    "atlantic_ocean": (-6.4, 50.83),
    "irish_sea": (-5.3, 54.15),
}
STRAIT_MIN_KM = 44.0  # short straits get a symbol of at least this length (centred on the gap)
# cuts between neighbouring seas: (sea a, sea b, polyline lon/lat from inside the land to the frame)
# "skye|dalriada" as first point means: the coast point where Skye and Dalriada meet.
SEA_CUTS = [
    ("icelandic_sea", "north_sea", [(-2.1, 57.6), (-1.0, 58.5), (1.2, 59.6)]),
    ("north_sea", "frisian_sea", [(-0.25, 54.12), (2.6, 54.45)]),
    ("frisian_sea", "english_channel", [(1.25, 51.2), (2.0, 50.6)]),
    ("english_channel", "atlantic_ocean", [(-5.6, 50.1), (-6.6, 49.7)]),
    ("atlantic_ocean", "irish_sea", [(-2.95, 53.65), (-6.2, 53.65), (-7.5, 53.65)]),
    ("irish_sea", "icelandic_sea", ["skye|dalriada", (-7.0, 56.75), (-7.5, 56.7),
                                    (-9.0, 56.6)]),
]
# strait symbols: endpoints chosen automatically (nearest coast points), optional override here
STRAIT_OVERRIDES: dict[tuple[str, str], tuple[tuple[float, float], tuple[float, float]]] = {}


ZOOMS = [("west-scotland", -5.6, 56.8, 120), ("arisaig", -5.75, 56.87, 30), ("wales", -3.8, 52.6, 70)]


# ---------------------------------------------------------------------------------------------------
def load_map() -> dict:
    for p in MAP_CANDIDATES:
        if p.exists():
            return YAML(typ="safe").load(p.read_text())
    raise SystemExit("map yaml not found")


class Proj:
    def __init__(self, spec: dict):
        self.lon0, self.lat0, self.k = spec["lon0"], spec["lat0"], spec["km_per_deg"]
        self.c = math.cos(math.radians(self.lat0))

    def __call__(self, lon: float, lat: float) -> tuple[float, float]:
        return ((lon - self.lon0) * self.c * self.k, (lat - self.lat0) * self.k)


def shared_length(a, b) -> float:
    return a.boundary.intersection(b.buffer(EPS)).length


def rings_of(geom) -> list:
    """Polygon/MultiPolygon -> list of polygons, each [exterior, *holes] with rounded coords."""
    out = []
    for p in getattr(geom, "geoms", [geom]):
        if p.geom_type != "Polygon" or p.is_empty:
            continue
        rings = [p.exterior, *p.interiors]
        out.append([[[round(x, 2), round(y, 2)] for x, y in r.coords] for r in rings])
    return out


def build(debug: str | None) -> int:
    data = load_map()
    coast = json.loads((GEO / "coast.json").read_text())
    proj = Proj(coast["projection"])
    frame = box(*coast["frame"])
    lands = data["land_areas"]
    assert set(ANCHORS) == set(lands), set(ANCHORS) ^ set(lands)

    feats = [(f, Polygon(f["rings"][0], f["rings"][1:])) for f in coast["features"]]
    britain = next(g for f, g in feats if f["kind"] == "britain")
    islands = [(f, g) for f, g in feats if f["kind"] == "island"]
    context = [g for f, g in feats if f["kind"] in ("ireland", "continent", "context")]

    # seeds
    seeds: list[tuple[str, tuple[float, float]]] = []
    for a, ll in ANCHORS.items():
        if a not in ISLAND_AREAS:
            seeds.append((a, proj(*ll)))
    for a, lst in HELPERS.items():
        seeds += [(a, proj(*ll)) for ll in lst]
    cx, cy = proj(*FOUR_CORNER_LONLAT)
    cx, cy = round(cx), round(cy)
    h = FOUR_CORNER_HALF_KM
    for a, (sx, sy) in FOUR_CORNER_SEEDS.items():
        seeds.append((a, (cx + sx * h, cy + sy * h)))
    four_corner = Point(cx, cy)

    pts = MultiPoint([p for _, p in seeds])
    cells = shapely.voronoi_polygons(pts, extend_to=frame.buffer(500))
    owner: dict[str, list] = {a: [] for a in lands}
    for cell in cells.geoms:
        hits = [a for a, p in seeds if cell.contains(Point(p)) or cell.touches(Point(p))]
        if len(hits) != 1:
            raise SystemExit(f"voronoi cell with seeds {hits}")
        owner[hits[0]].append(cell)
    areas: dict[str, object] = {}
    for a in lands:
        if a in ISLAND_AREAS:
            continue
        areas[a] = unary_union(owner[a]).intersection(britain)
    reassign_fragments(areas)
    # snap the four-corner point exactly (Qhull may leave two vertices 1e-12 apart)
    for a in FOUR_CORNER_SEEDS:
        areas[a] = shapely.set_precision(areas[a], 0.001)

    # islands
    extra: dict[str, list] = {a: [] for a in lands}
    for f, g in islands:
        g = g.difference(britain)
        lon, lat = f["lonlat"]
        target = None
        for a, x0, x1, y0, y1 in ISLAND_RULES:
            if x0 <= lon <= x1 and y0 <= lat <= y1:
                target = a
                break
        if target is None:
            target = min(areas, key=lambda a: areas[a].distance(g))
        extra[target].append(g)
    for a in lands:
        if extra[a]:
            areas[a] = unary_union([areas.get(a, Polygon()), *extra[a]])

    # seas
    land_all = unary_union([britain, *(g for _, g in islands), *context])
    water = frame.difference(land_all)
    coastline = britain.exterior
    cut_lines = []
    for _sa, _sb, line in SEA_CUTS:
        pts_xy = []
        for item in line:
            if item == "skye|dalriada":
                # continue the straight Skye/Dalriada land border (a Voronoi edge) 45 km out to sea,
                # so Skye's coast stays on the Icelandic side and Dalriada's on the Irish side
                border = areas["skye"].boundary.intersection(areas["dalriada"].boundary.buffer(EPS))
                if border.geom_type != "LineString":
                    border = linemerge(border)
                border = max(getattr(border, "geoms", [border]), key=lambda g: g.length)
                ends = [Point(border.coords[0]), Point(border.coords[-1])]
                i = min((0, 1), key=lambda k: ends[k].distance(coastline))
                coords = list(border.coords) if i == 1 else list(border.coords)[::-1]
                x1, y1 = coords[-1]
                x0, y0 = next(c for c in coords[::-1] if math.dist(c, (x1, y1)) > 3.0)
                d = math.hypot(x1 - x0, y1 - y0)
                ux, uy = (x1 - x0) / d, (y1 - y0) / d
                print(f"note: skye|dalriada coast point ({x1:.1f}, {y1:.1f}) direction ({ux:.2f}, {uy:.2f})")
                pts_xy += [(x1 - 2 * ux, y1 - 2 * uy), (x1, y1), (x1 + 45 * ux, y1 + 45 * uy)]
            else:
                pts_xy.append(proj(*item))
        cut_lines.append(LineString(pts_xy))
    faces = polygonize(unary_union([water.boundary, *[ln.intersection(frame) for ln in cut_lines]]))
    seas: dict[str, list] = {s: [] for s in data["seas"]}
    label_pts = {s: Point(proj(*ll)) for s, ll in SEA_LABELS.items()}
    orphans = []
    for face in faces:
        rp = face.representative_point()
        if not water.contains(rp):
            continue
        hit = [s for s, p in label_pts.items() if face.contains(p)]
        if len(hit) > 1:
            raise SystemExit(f"sea face holds several labels: {hit}")
        if hit:
            seas[hit[0]].append(face)
        else:
            orphans.append(face)
    sea_geoms = {s: unary_union(v) for s, v in seas.items()}
    for face in orphans:  # small pieces (e.g. between two cuts and an island): nearest sea
        rp = face.representative_point()
        if rp.x < frame.bounds[0] + 40:  # water west of Ireland (cut off by Ireland): open Atlantic
            s = "atlantic_ocean"
        else:
            s = min(sea_geoms, key=lambda s: label_pts[s].distance(rp))
        print(f"note: orphan water piece {face.area:.0f} km2 at {face.representative_point()} -> {s}")
        sea_geoms[s] = sea_geoms[s].union(face)

    problems = check(data, areas, sea_geoms, britain, four_corner)
    for p in problems:
        print("PROBLEM:", p)
    if debug:
        draw_debug(debug, areas, sea_geoms, seeds, context, proj, data, four_corner)
        for name, lon0, lat0, r in ZOOMS:
            x, y = proj(lon0, lat0)
            draw_debug(debug.replace(".png", f"-{name}.png"), areas, sea_geoms, seeds, context, proj, data,
                       four_corner, zoom=(x - r, y - 1.4 * r, x + r, y + 1.4 * r))
    write(data, coast, proj, areas, sea_geoms, context, four_corner)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


def check(data, areas, seas, britain, four_corner) -> list[str]:
    """Drawing vs data. Same rules as tests/render/test_geometry.py."""
    out = []
    lands = data["land_areas"]
    corner_pairs = {frozenset(p) for p in data["four_corners"]["not_adjacent"]}
    for a in lands:
        g = areas[a]
        if not g.is_valid:
            out.append(f"{a}: invalid geometry")
        parts = [p for p in getattr(g, "geoms", [g]) if p.intersects(britain.buffer(-0.01))]
        if a not in ISLAND_AREAS and len(parts) != 1:
            out.append(f"{a}: mainland part in {len(parts)} pieces {[round(p.area, 1) for p in parts]}")
    for a in ISLAND_AREAS:
        for b in lands:
            if b != a and areas[a].distance(areas[b]) < 5.0:
                out.append(f"island cluster {a} within 5 km of {b}")
    for a, b in combinations(sorted(lands), 2):
        want = b in lands[a]["land"]
        ln = shared_length(areas[a], areas[b])
        if want and ln < BORDER_MIN:
            out.append(f"missing border {a}-{b} ({ln:.1f} km)")
        if not want and ln > POINT_MAX:
            out.append(f"extra border {a}-{b} ({ln:.1f} km)")
        if frozenset((a, b)) in corner_pairs and areas[a].distance(four_corner) > 0.01:
            out.append(f"four-corner: {a} does not reach the point")
    coast = britain.exterior
    for a in lands:
        if a in ISLAND_AREAS:
            continue
        on_coast = areas[a].boundary.intersection(coast.buffer(EPS)).length
        if lands[a]["seas"] and on_coast < BORDER_MIN:
            out.append(f"{a} should be coastal ({on_coast:.1f} km of coast)")
        if not lands[a]["seas"] and on_coast > POINT_MAX:
            out.append(f"{a} should be inland ({on_coast:.1f} km of coast)")
    for a in lands:
        for s in seas:
            want = s in lands[a]["seas"]
            ln = shared_length(areas[a], seas[s])
            if want and ln < BORDER_MIN:
                out.append(f"missing coast {a}-{s} ({ln:.1f} km)")
            if not want and ln > POINT_MAX:
                where = areas[a].boundary.intersection(seas[s].buffer(EPS)).centroid
                out.append(f"extra coast {a}-{s} ({ln:.1f} km) near {where}")
    for s, t in combinations(sorted(seas), 2):
        want = t in data["seas"][s]["seas"]
        ln = shared_length(seas[s], seas[t])
        if want and ln < BORDER_MIN:
            out.append(f"missing sea border {s}-{t}")
        if not want and ln > POINT_MAX:
            out.append(f"extra sea border {s}-{t} ({ln:.1f})")
    return out


def reassign_fragments(areas: dict) -> None:
    """A Voronoi cell cut by a sea loch leaves a fragment of an area on the far side: give every
    fragment (all but the largest piece) to the neighbour it shares most border with."""
    for _ in range(5):
        moved = False
        for a in list(areas):
            parts = sorted(getattr(areas[a], "geoms", [areas[a]]), key=lambda p: -p.area)
            if len(parts) < 2:
                continue
            keep = [parts[0]]
            for frag in parts[1:]:
                best = max((b for b in areas if b != a), key=lambda b: shared_length(frag, areas[b]))
                if shared_length(frag, areas[best]) <= 0.0:
                    keep.append(frag)
                    continue
                print(f"note: fragment of {a} ({frag.area:.0f} km2) -> {best}")
                areas[best] = unary_union([areas[best], frag])
                moved = True
            areas[a] = unary_union(keep)
        if not moved:
            return


def write(data, coast, proj, areas, seas, context, four_corner) -> None:
    lands = data["land_areas"]
    out_areas = {}
    for a in sorted(lands):
        if a in ANCHOR_OVERRIDES or a in ISLAND_AREAS:
            ax, ay = proj(*ANCHOR_OVERRIDES.get(a, ANCHORS[a]))
        else:  # the point of the main part farthest from its border: room for the name and stacks
            main = max(getattr(areas[a], "geoms", [areas[a]]), key=lambda g: g.area)
            c = shapely.ops.polylabel(main, tolerance=0.5)
            ax, ay = c.x, c.y
        out_areas[a] = {
            "anchor": [round(ax, 2), round(ay, 2)],
            "seed_lonlat": list(ANCHORS[a]),
            "polygons": rings_of(areas[a]),
        }
    out_seas = {}
    for s in sorted(seas):
        lx, ly = proj(*SEA_LABELS[s])
        sx, sy = proj(*SEA_ANCHORS[s])
        out_seas[s] = {"label": [round(lx, 2), round(ly, 2)],
                       "anchor": [round(sx, 2), round(sy, 2)],
                       "polygons": rings_of(seas[s])}
    sea_lines = []
    for s, t in combinations(sorted(seas), 2):
        shared = seas[s].boundary.intersection(seas[t].boundary.buffer(EPS))
        if shared.length > POINT_MAX:
            sea_lines.append(shared)
    merged = linemerge(unary_union(sea_lines))
    sea_borders = [[[round(x, 2), round(y, 2)] for x, y in ln.coords]
                   for ln in getattr(merged, "geoms", [merged]) if ln.length > 1]
    # region borders: shared boundaries of areas in different regions
    region_of = {a: v["region"] for a, v in lands.items()}
    lines = []
    for a, b in combinations(sorted(lands), 2):
        if region_of[a] != region_of[b]:
            shared = areas[a].boundary.intersection(areas[b].boundary.buffer(EPS))
            if shared.length > POINT_MAX:
                lines.append(shared)
    merged = linemerge(unary_union(lines)) if lines else None
    region_lines = [[[round(x, 2), round(y, 2)] for x, y in ln.coords]
                    for ln in getattr(merged, "geoms", [merged]) if ln is not None and ln.length > 1]
    straits = []
    for a, b in data["straits"]:
        if (a, b) in STRAIT_OVERRIDES:
            pa, pb = (proj(*ll) for ll in STRAIT_OVERRIDES[(a, b)])
        else:
            na, nb = shapely.ops.nearest_points(areas[a], areas[b])
            pa, pb = (na.x, na.y), (nb.x, nb.y)
            d = math.dist(pa, pb)
            if d < STRAIT_MIN_KM:
                mx, my = (pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2
                k = STRAIT_MIN_KM / 2 / max(d, 1e-9)
                pa = (mx + (pa[0] - mx) * 2 * k, my + (pa[1] - my) * 2 * k)
                pb = (mx + (pb[0] - mx) * 2 * k, my + (pb[1] - my) * 2 * k)
        straits.append({"areas": [a, b], "line": [[round(v, 2) for v in pa], [round(v, 2) for v in pb]]})
    out = {
        "format": 1,
        "built_by": "tools/geometry/build_areas.py",
        "coast_source": coast["source"],
        "projection": coast["projection"],
        "frame": coast["frame"],
        "four_corner": [round(four_corner.x, 3), round(four_corner.y, 3)],
        "areas": out_areas,
        "seas": out_seas,
        "context": [p for g in context for p in rings_of(g)],
        "region_borders": region_lines,
        "straits": straits,
        "sea_borders": sea_borders,
    }
    text = json.dumps(out, separators=(",", ":"))
    (GEO / "areas.json").write_text(text + "\n")
    print(f"wrote {GEO / 'areas.json'} ({len(text)} bytes)")


def draw_debug(path, areas, seas, seeds, context, proj, data, four_corner, zoom=None) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon as MPoly

    fig = Figure(figsize=(12, 17), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes([0, 0, 1, 1])
    import colorsys

    for s, g in seas.items():
        for p in getattr(g, "geoms", [g]):
            ax.add_patch(MPoly(list(p.exterior.coords), fc="#cfe3f0", ec="#6090b0", lw=0.5))
        x, y = proj(*SEA_LABELS[s])
        ax.text(x, y, s, ha="center", color="#204060", fontsize=11)
    for g in context:
        ax.add_patch(MPoly(list(g.exterior.coords), fc="#dddddd", ec="#999999", lw=0.3))
    for i, (a, g) in enumerate(sorted(areas.items())):
        col = colorsys.hsv_to_rgb((i * 0.381) % 1, 0.35, 0.95)
        for p in getattr(g, "geoms", [g]):
            ax.add_patch(MPoly(list(p.exterior.coords), fc=col, ec="k", lw=0.6))
        x, y = proj(*ANCHORS[a])
        ax.text(x, y, a, ha="center", va="center", fontsize=9, weight="bold")
    for _a, (x, y) in seeds:
        ax.plot([x], [y], "k.", ms=3)
    ax.plot([four_corner.x], [four_corner.y], "r+", ms=10)
    x0, y0, x1, y1 = zoom or json.loads((GEO / "coast.json").read_text())["frame"]
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--debug", help="write a debug picture (cells, seeds, names) here")
    args = ap.parse_args()
    sys.exit(build(args.debug))


if __name__ == "__main__":
    main()
