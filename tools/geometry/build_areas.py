"""Build the area polygons of the map picture: `pbem/data/geometry/areas.json`.

One-off build script, NOT used at runtime (the renderer only reads the committed JSON)::

    python tools/geometry/build_areas.py [--debug /tmp/areas-debug.png]

Inputs: `pbem/data/geometry/coast.json` (made by extract_coast.py) and the map facts of
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
import yaml
from shapely.geometry import LineString, MultiPoint, Point, Polygon, box, shape
from shapely.ops import linemerge, polygonize, unary_union

ROOT = Path(__file__).resolve().parents[2]
GEO = ROOT / "pbem" / "data" / "geometry"
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
    "clwyd": (-3.35, 53.1),
    "gwynedd": (-4.0, 52.95),
    "powys": (-3.6, 52.4),
    "dyfed": (-4.6, 51.9),
    "gwent": (-3.3, 51.7),
    "devon": (-3.8, 50.75),
    "cornwall": (-4.9, 50.4),
}

# extra seeds (lon, lat) that shape the cells; they carry no label
HELPERS: dict[str, list[tuple[float, float]]] = {
}

# rule 5.14 four-corner point and the corner each area takes (NW, NE, SE, SW)
FOUR_CORNER_LONLAT = (-2.85, 55.1)
FOUR_CORNER_HALF_KM = 7.0
FOUR_CORNER_SEEDS = {"galloway": (-1, 1), "lothian": (1, 1), "pennines": (1, -1), "cumbria": (-1, -1)}

ISLAND_AREAS = ("hebrides", "orkneys")  # no mainland part

# (area, lon_min, lon_max, lat_min, lat_max) on the island's centroid; first match wins
ISLAND_RULES = [
    ("orkneys", -4.0, -2.0, 58.6, 59.6),
    ("hebrides", -9.0, -6.8, 56.7, 58.7),
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
    "frisian_sea": (1.7, 53.2),
    "english_channel": (-2.6, 50.2),
    "atlantic_ocean": (-6.4, 51.1),
    "irish_sea": (-5.1, 54.45),
}
# cuts between neighbouring seas: (sea a, sea b, polyline lon/lat from inside the land to the frame)
# "skye|dalriada" as first point means: the coast point where Skye and Dalriada meet.
SEA_CUTS = [
    ("icelandic_sea", "north_sea", [(-2.1, 57.6), (-1.0, 58.5), (1.2, 59.6)]),
    ("north_sea", "frisian_sea", [(-0.25, 54.12), (2.6, 54.45)]),
    ("frisian_sea", "english_channel", [(1.25, 51.2), (2.0, 50.6)]),
    ("english_channel", "atlantic_ocean", [(-5.6, 50.1), (-6.6, 49.7)]),
    ("atlantic_ocean", "irish_sea", [(-2.95, 53.65), (-6.2, 53.65), (-7.5, 53.65)]),
    ("irish_sea", "icelandic_sea", ["skye|dalriada", (-6.0, 56.8), (-6.6, 56.78), (-7.5, 56.7),
                                    (-9.0, 56.6)]),
]
# strait symbols: endpoints chosen automatically (nearest coast points), optional override here
STRAIT_OVERRIDES: dict[tuple[str, str], tuple[tuple[float, float], tuple[float, float]]] = {}


# ---------------------------------------------------------------------------------------------------
def load_map() -> dict:
    for p in MAP_CANDIDATES:
        if p.exists():
            return yaml.safe_load(p.read_text())
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
    # snap the four-corner point exactly (Qhull may leave two vertices 1e-12 apart)
    for a in FOUR_CORNER_SEEDS:
        areas[a] = shapely.set_precision(areas[a], 0.001)

    # islands
    extra: dict[str, list] = {a: [] for a in lands}
    for f, g in islands:
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
    for sa, sb, line in SEA_CUTS:
        pts_xy = []
        for item in line:
            if item == "skye|dalriada":
                p = areas["skye"].intersection(areas["dalriada"]).intersection(coastline.buffer(EPS))
                c = p.centroid
                # start a little inside the land, along the land border, so the cut is noded
                pts_xy.append((c.x + 2.0, c.y))
                pts_xy.append((c.x, c.y))
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
        s = min(sea_geoms, key=lambda s: sea_geoms[s].distance(face.representative_point()))
        print(f"note: orphan water piece {face.area:.0f} km2 -> {s}")
        sea_geoms[s] = sea_geoms[s].union(face)

    problems = check(data, areas, sea_geoms, britain, four_corner)
    for p in problems:
        print("PROBLEM:", p)
    if debug:
        draw_debug(debug, areas, sea_geoms, seeds, context, proj, data, four_corner)
    write(data, coast, proj, areas, sea_geoms, context, four_corner, cut_lines)
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
            out.append(f"{a}: mainland part in {len(parts)} pieces")
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
                out.append(f"extra coast {a}-{s} ({ln:.1f} km)")
    for s, t in combinations(sorted(seas), 2):
        want = t in data["seas"][s]["seas"]
        ln = shared_length(seas[s], seas[t])
        if want and ln < BORDER_MIN:
            out.append(f"missing sea border {s}-{t}")
        if not want and ln > POINT_MAX:
            out.append(f"extra sea border {s}-{t} ({ln:.1f})")
    return out


def label_point(geom, anchor: Point) -> Point:
    return anchor


def write(data, coast, proj, areas, seas, context, four_corner, cut_lines) -> None:
    lands = data["land_areas"]
    out_areas = {}
    for a in sorted(lands):
        ax, ay = proj(*ANCHORS[a])
        out_areas[a] = {
            "anchor": [round(ax, 2), round(ay, 2)],
            "anchor_lonlat": list(ANCHORS[a]),
            "polygons": rings_of(areas[a]),
        }
    out_seas = {}
    for s in sorted(seas):
        lx, ly = proj(*SEA_LABELS[s])
        out_seas[s] = {"anchor": [round(lx, 2), round(ly, 2)], "anchor_lonlat": list(SEA_LABELS[s]),
                       "polygons": rings_of(seas[s])}
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
        "sea_cuts": [[[round(x, 2), round(y, 2)] for x, y in ln.coords] for ln in cut_lines],
    }
    text = json.dumps(out, separators=(",", ":"))
    (GEO / "areas.json").write_text(text + "\n")
    print(f"wrote {GEO / 'areas.json'} ({len(text)} bytes)")


def draw_debug(path, areas, seas, seeds, context, proj, data, four_corner) -> None:
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
    for a, (x, y) in seeds:
        ax.plot([x], [y], "k.", ms=3)
    ax.plot([four_corner.x], [four_corner.y], "r+", ms=10)
    x0, y0, x1, y1 = json.loads((GEO / "coast.json").read_text())["frame"]
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
