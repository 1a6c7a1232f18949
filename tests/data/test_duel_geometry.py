"""Issue 29 (Duel Britannia), map: the PROVISIONAL land-area geometry (pbem/data/duel/geometry.json, built
by tools/geometry/build_duel.py): every Duel area has a polygon; England, Wales and Scotland are unions
of the classic polygons they merge; Ireland, which no classic geometry covers, has its own."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from shapely.geometry import Polygon
from shapely.ops import unary_union

from pbem.data.duel_check import PROVISIONAL_DIR, plain

CLASSIC = PROVISIONAL_DIR.parent / "classic" / "areas.json"


@pytest.fixture(scope="module")
def geometry() -> dict:
    return json.loads((PROVISIONAL_DIR / "geometry.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def board() -> dict:
    return plain(YAML(typ="safe").load((PROVISIONAL_DIR / "board.yaml").read_text(encoding="utf-8")))


def _shape(polys: list):
    return unary_union([Polygon(p[0], p[1:]) for p in polys])


def test_every_duel_area_has_a_polygon(geometry, board):
    assert geometry["status"] == "PROVISIONAL"
    assert set(geometry["areas"]) == set(board["areas"])
    for aid, area in geometry["areas"].items():
        shape = _shape(area["polygons"])
        assert shape.is_valid and shape.area > 1000, aid            # km2: the smallest (Cornwall) is about 3000
        assert shape.buffer(1).contains(shape.representative_point()), aid
        x, y = area["anchor"]
        x0, y0, x1, y1 = geometry["frame"]
        assert x0 <= x <= x1 and y0 <= y <= y1, aid


def test_british_areas_are_unions_of_the_classic_polygons_they_merge(geometry, board):
    classic = json.loads(Path(CLASSIC).read_text(encoding="utf-8"))["areas"]
    used: list[str] = []
    for aid, area in board["areas"].items():
        merged = area.get("classic") or []
        if area["region"] == "ireland":
            assert not merged and "sketch" in geometry["areas"][aid], aid
            continue
        assert geometry["areas"][aid]["union_of_classic"] == merged, aid
        want = unary_union([_shape(classic[c]["polygons"]) for c in merged])
        got = _shape(geometry["areas"][aid]["polygons"])
        assert abs(got.area - want.area) < 0.01 * want.area, aid
        used += merged
    assert sorted(used) == sorted(classic), "every classic area is merged into exactly one Duel area"


def test_areas_that_border_on_the_board_touch_on_the_map(geometry, board):
    shapes = {aid: _shape(a["polygons"]) for aid, a in geometry["areas"].items()}
    for a, b in board["borders"]:
        assert shapes[a].distance(shapes[b]) < 2.0, (a, b)


def test_irish_areas_do_not_overlap(geometry, board):
    irish = [aid for aid, a in board["areas"].items() if a["region"] == "ireland"]
    shapes = {aid: _shape(geometry["areas"][aid]["polygons"]) for aid in irish}
    for i, a in enumerate(irish):
        for b in irish[i + 1:]:
            assert shapes[a].intersection(shapes[b]).area < 50, (a, b)


def test_every_duel_sea_has_a_polygon_and_every_coast_touches_it(geometry, board):
    """The four seas ([The Game Board]); each coast of board.yaml meets its sea on the map, and the inland
    areas (Hwicce, Mercia) meet none."""
    assert set(geometry["seas"]) == set(board["seas"])
    seas = {sid: _shape(s["polygons"]) for sid, s in geometry["seas"].items()}
    areas = {aid: _shape(a["polygons"]) for aid, a in geometry["areas"].items()}
    for sid, shape in seas.items():
        assert shape.is_valid and shape.area > 10000, sid
        assert all(shape.intersection(a).area < 1.0 for a in areas.values()), sid
    coasts = {tuple(c) for c in board["coasts"]}
    known = {(d["area"], d["sea"]) for d in geometry["differences"]}
    assert known == {("hwicce", "atlantic_ocean")}     # the Severn of the classic Hwicce polygon
    for aid, area in board["areas"].items():
        for sid, sea in seas.items():
            touches = areas[aid].distance(sea) < 0.5
            if area["terrain"] != "impassable" and (aid, sid) not in known:
                assert touches == ((aid, sid) in coasts), (aid, sid, touches)


def test_every_strait_has_an_arrow_from_land_to_land_across_water(geometry, board):
    """[Straits]: double-headed arrows crossing one sea or another."""
    from shapely.geometry import LineString, Point

    arrows = {frozenset(s["between"]): s["line"] for s in geometry["straits"]}
    assert set(arrows) == {frozenset(s["between"]) for s in board["straits"]}
    areas = {aid: _shape(a["polygons"]) for aid, a in geometry["areas"].items()}
    seas = unary_union([_shape(s["polygons"]) for s in geometry["seas"].values()])
    for pair, line in arrows.items():
        ends = [Point(p) for p in line]
        assert {min(pair, key=lambda x: areas[x].distance(e)) for e in ends} == set(pair), pair
        assert all(min(areas[x].distance(e) for x in pair) < 15 for e in ends), pair
        assert LineString(line).intersection(seas).length > 0.5 * LineString(line).length, pair
