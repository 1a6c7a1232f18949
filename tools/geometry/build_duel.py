"""Build the land-area polygons of the Duel Britannia map: `pbem/data/duel/geometry.json`.

One-off build script, NOT used at runtime (a renderer reads the committed JSON)::

    python tools/geometry/build_duel.py

PROVISIONAL, as the board it draws (pbem/data/duel/board.yaml):
* an area of England, Wales or Scotland is the union of the classic polygons it merges (its `classic`
  list; pbem/data/classic/areas.json);
* no classic geometry covers Ireland: an Irish area is its rough lon/lat sketch (`outline.rough_lonlat`)
  cut to the coast of Ireland of pbem/data/classic/coast.json where that file has it (its frame stops
  at lon -8.9; west of it the sketch itself is the outline).
The frame is widened west to hold Ireland. Anchors (where stacks go) are each area's point of
inaccessibility.
Seas: the water of the widened frame is cut by the lines of board.yaml's `drawing_hints` (the North
Channel, Munster - St Govan's Head, south of Land's End, east of Northumbria, the Strait of Dover) into
the four Duel seas; each piece goes to the sea whose label point it holds (stray bits to the nearest).
Straits: a double arrow between the two lon/lat points of `drawing_hints.straits_symbols_lonlat`
(anchor to anchor without a hint). Scoring centres are not drawn here yet.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import shapely
from ruamel.yaml import YAML
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import polylabel, unary_union

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "pbem" / "data" / "classic"
DUEL = ROOT / "pbem" / "data" / "duel"
WEST_LON = -10.8   # the widened frame's west edge (Ireland's west coast is at about -10.5)
# where each Duel sea's name goes (lon, lat); a water piece holding it is that sea
SEA_LABELS = {"irish_sea": (-5.0, 53.8), "atlantic_ocean": (-10.3, 51.0), "north_sea": (2.0, 53.6),
              "english_channel": (-2.0, 50.2)}
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
        out[sid] = {"label": [round(labels[sid].x, 2), round(labels[sid].y, 2)], "polygons": polygons_of(geom)}
    return out


def main() -> int:
    classic = json.loads((CLASSIC / "areas.json").read_text(encoding="utf-8"))
    coast = json.loads((CLASSIC / "coast.json").read_text(encoding="utf-8"))
    board = YAML(typ="safe").load((DUEL / "board.yaml").read_text(encoding="utf-8"))
    proj = classic["projection"]
    x0, y0, x1, y1 = classic["frame"]
    west = project(WEST_LON, proj["lat0"], proj)[0]
    ireland = unary_union([Polygon(r[0], r[1:]) for f in coast["features"] if f["kind"] == "ireland"
                           for r in [f["rings"]]])
    beyond = box(west - 1, y0, x0, y1)     # west of the classic frame: no coast data
    areas = {}
    for aid, area in board["areas"].items():
        merged = value(area.get("classic")) or []
        if merged:
            geom = unary_union([shape(classic["areas"][c]["polygons"]) for c in merged])
            how = {"union_of_classic": merged}
        else:
            sketch = Polygon([project(lon, lat, proj) for lon, lat in area["outline"]["rough_lonlat"]]).buffer(0)
            geom = sketch.intersection(unary_union([ireland.buffer(0), beyond])).buffer(0)
            how = {"sketch": "rough outline from real geography, cut to the coast of Ireland"}
        geom = shapely.set_precision(geom, 0.01)   # 10 m grid: valid polygons with short numbers
        main_part = max(geom.geoms, key=lambda g: g.area) if isinstance(geom, MultiPolygon) else geom
        anchor = polylabel(main_part, tolerance=1.0)
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
        "about": ("Land areas and seas of the PROVISIONAL Duel board (board.yaml): England, Wales and Scotland as unions of "
                  "the classic polygons they merge, Ireland sketched, the four seas cut from the water, the strait arrows; centres not yet drawn"),
        "built_by": "tools/geometry/build_duel.py",
        "base": "classic",
        "projection": proj,
        "frame": [west, y0, x1, y1],
        "areas": areas,
        "seas": seas,
        "straits": straits,
        "differences": DIFFERENCES,
    }
    (DUEL / "geometry.json").write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(areas)} areas -> {DUEL / 'geometry.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
