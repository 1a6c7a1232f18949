"""The map geometry shipped as package data, in each ruleset's data folder: `pbem/data/<ruleset>/areas.json`
(and coast.json), or a ruleset's `geometry.json` naming the board it changes (`base`) and the changes:
a few edits of the base's lines, or a board of its own (its `areas`, `seas` and `straits` drawn on the
base's context land, in the same coordinates).

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
    more_labels: tuple[Point, ...] = ()  # a sea that wraps round the land: its name again there


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
    four_corner: Point | None                    # None: a board with no four-corner point
    context_labels: tuple[tuple[str, Point], ...] = ()   # names of the context land (not areas)

    def anchor(self, area_or_sea: str) -> Point:
        shape = self.areas.get(area_or_sea) or self.seas.get(area_or_sea)
        if shape is None:
            raise KeyError(area_or_sea)
        return shape.anchor


def _polys(raw: list) -> tuple[tuple[np.ndarray, ...], ...]:
    return tuple(tuple(np.asarray(ring, dtype=float) for ring in poly) for poly in raw)


DEFAULT_BOARD = "classic"
"""The board drawn when no ruleset is given (layout helpers, tests): the only one with areas.json today."""

CONTEXT_LABELS = (("IRELAND", (-290.0, -170.0)), ("GAUL", (300.0, -520.0)))
"""The context land's names where a board's file gives none (`context_labels`): the classic board's."""

OWN_BOARD = ("frame", "areas", "seas", "straits", "region_borders", "sea_borders", "context_labels")
"""What a geometry.json with a board of its own (`areas`) gives; the base keeps only its context land."""


def _read_board(name: str, ruleset_id: str) -> dict:
    """`name` (areas.json) of the ruleset's folder; a ruleset without one has a geometry.json whose
    `base` names the board it changes, and those changes are applied (`_apply_changes`)."""
    folder = resources.files("pbem").joinpath("data", ruleset_id)
    if folder.joinpath(name).is_file():
        return json.loads(folder.joinpath(name).read_text("utf-8"))
    changes_file = folder.joinpath("geometry.json")
    if not changes_file.is_file():
        raise FileNotFoundError(f"pbem/data/{ruleset_id}/ has neither {name} nor geometry.json")
    changes = json.loads(changes_file.read_text("utf-8"))
    raw = _read_board(name, changes["base"])
    _apply_changes(raw, changes)
    return raw


def _apply_changes(raw: dict, changes: dict) -> None:
    """A ruleset's geometry.json: a board of its own (`areas`, see OWN_BOARD), or edits of the base:
    `replace_vertex` (an area's corner point replaced by a list of points: the FFG board's
    Cumbria-Lothian border) and `sea_borders` (index -> a new line: the Irish | Icelandic Sea line
    meeting Skye)."""
    if "areas" in changes:
        # its areas (e.g. unions of the base's polygons, and land the base has only as context), seas
        # and straits replace the base's; the base's context land stays under them
        raw.pop("four_corner", None)
        raw.update({key: changes[key] for key in OWN_BOARD if key in changes})
        return
    for rv in changes.get("replace_vertex", ()):
        for poly in raw["areas"][rv["area"]]["polygons"]:
            for r, ring in enumerate(poly):
                out = []
                for p in ring:
                    out += rv["with"] if abs(p[0] - rv["at"][0]) < 1e-6 and abs(p[1] - rv["at"][1]) < 1e-6 else [p]
                poly[r] = out
    for i, line in changes.get("sea_borders", {}).items():
        raw["sea_borders"][int(i)] = line


@cache
def load_geometry(name: str = "areas.json", ruleset_id: str = "") -> Geometry:
    """Read the ruleset's committed geometry (cached: it never changes while the program runs):
    pbem/data/<ruleset>/areas.json, or the board its geometry.json changes, with those changes."""
    raw = _read_board(name, ruleset_id or DEFAULT_BOARD)
    areas = {a: Shape(a, tuple(v["anchor"]), _polys(v["polygons"])) for a, v in raw["areas"].items()}
    seas = {
        s: Shape(s, tuple(v["anchor"]), _polys(v["polygons"]), tuple(v["label"]),
                 tuple(tuple(p) for p in v.get("more_labels", ())))
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
        straits=tuple((*(s.get("areas") or s["between"]), np.asarray(s["line"], dtype=float)) for s in raw["straits"]),
        four_corner=tuple(raw["four_corner"]) if raw.get("four_corner") else None,
        context_labels=tuple((str(t), tuple(p)) for t, p in raw.get("context_labels", CONTEXT_LABELS)),
    )
