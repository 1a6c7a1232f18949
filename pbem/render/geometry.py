"""The map geometry shipped as package data (`pbem/data/geometry/areas.json`).

Built once by `tools/geometry/build_areas.py` from the GSHHS coastline and hand-placed anchors; at
runtime we only read the JSON (no Voronoi, no download). Coordinates are kilometres in a simple
equirectangular projection (see the file's "projection" entry); y grows northwards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

Point = tuple[float, float]


@dataclass(frozen=True)
class Shape:
    """A land area, a sea or a piece of context land: polygons as [exterior, *holes] arrays."""

    id: str
    anchor: Point                       # where stacks are drawn
    polygons: tuple[tuple[np.ndarray, ...], ...]
    label: Point | None = None          # seas: where the name goes (land: above the anchor)


@dataclass(frozen=True)
class Geometry:
    frame: tuple[float, float, float, float]   # x0, y0, x1, y1
    projection: dict
    areas: dict[str, Shape]
    seas: dict[str, Shape]
    context: tuple[tuple[np.ndarray, ...], ...]
    region_borders: tuple[np.ndarray, ...]
    sea_borders: tuple[np.ndarray, ...]
    straits: tuple[tuple[str, str, np.ndarray], ...]
    four_corner: Point

    def anchor(self, area_or_sea: str) -> Point:
        shape = self.areas.get(area_or_sea) or self.seas.get(area_or_sea)
        if shape is None:
            raise KeyError(area_or_sea)
        return shape.anchor


def _polys(raw: list) -> tuple[tuple[np.ndarray, ...], ...]:
    return tuple(tuple(np.asarray(ring, dtype=float) for ring in poly) for poly in raw)


@cache
def load_geometry(name: str = "areas.json") -> Geometry:
    """Read the committed geometry (cached: it never changes while the program runs)."""
    raw = json.loads(resources.files("pbem").joinpath("data", "geometry", name).read_text("utf-8"))
    areas = {a: Shape(a, tuple(v["anchor"]), _polys(v["polygons"])) for a, v in raw["areas"].items()}
    seas = {
        s: Shape(s, tuple(v["anchor"]), _polys(v["polygons"]), tuple(v["label"]))
        for s, v in raw["seas"].items()
    }
    return Geometry(
        frame=tuple(raw["frame"]),
        projection=dict(raw["projection"]),
        areas=areas,
        seas=seas,
        context=_polys(raw["context"]),
        region_borders=tuple(np.asarray(ln, dtype=float) for ln in raw["region_borders"]),
        sea_borders=tuple(np.asarray(ln, dtype=float) for ln in raw["sea_borders"]),
        straits=tuple((s["areas"][0], s["areas"][1], np.asarray(s["line"], dtype=float)) for s in raw["straits"]),
        four_corner=tuple(raw["four_corner"]),
    )
