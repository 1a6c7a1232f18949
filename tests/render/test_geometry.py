"""The drawing agrees with the map data (pbem/data/classic/areas.json vs the classic ruleset).

Rules checked (lengths in km of the projected map; 1 km is about 1.5 px in a 1600 px picture):
* two land areas share a border of at least BORDER_MIN km exactly when the data says they are
  land-adjacent; areas that are not adjacent share at most POINT_MAX km (i.e. nothing, or a point).
* documented exception, rule 5.14: Galloway, Lothian, Cumbria and Pennines meet in ONE point (the
  four corners). Lothian-Cumbria and Galloway-Pennines touch there but are not adjacent: a point
  contact is allowed, and the test checks that all four areas really reach that point.
* straits (rule 5.15: Caithness-Orkneys, Devon-Dyfed, Devon-Gwent, Hebrides-Skye) are drawn as
  symbols across water: the two areas share no land border, and each strait has a symbol whose ends
  lie near the two areas.
* coast: an area touches a sea along at least BORDER_MIN km of coast exactly when the data says it
  borders that sea (rule 5.16 included: Skye Icelandic Sea only, Dalriada Irish Sea only); the six
  inland areas (Alban, Downlands, March, North Mercia, Pennines, South Mercia) touch no water at all.
* seas touch each other as the data says (the ring of six).
Borders are measured as the length of one polygon's boundary inside a 50 m buffer of the other.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from shapely.geometry import LineString, MultiPolygon, Point, Polygon
from shapely.ops import unary_union

from pbem.render.geometry import load_geometry

from ._classic import classic_ruleset

BORDER_MIN = 6.0
POINT_MAX = 0.5
EPS = 0.05
FOUR_CORNERS = ("galloway", "lothian", "cumbria", "pennines")
FOUR_CORNER_NON_BORDERS = {frozenset(("lothian", "cumbria")), frozenset(("galloway", "pennines"))}
ISLAND_CLUSTERS = {"hebrides", "orkneys"}
INLAND = {"alban", "downlands", "march", "north_mercia", "pennines", "south_mercia"}


def _shape(polys) -> MultiPolygon:
    return MultiPolygon([Polygon(p[0], p[1:]) for p in polys])


@pytest.fixture(scope="module")
def geo():
    return load_geometry()


@pytest.fixture(scope="module")
def rs():
    return classic_ruleset()


@pytest.fixture(scope="module")
def areas(geo):
    return {a: _shape(s.polygons) for a, s in geo.areas.items()}


@pytest.fixture(scope="module")
def seas(geo):
    return {s: _shape(v.polygons) for s, v in geo.seas.items()}


def shared(a, b) -> float:
    return a.boundary.intersection(b.buffer(EPS)).length


def test_ids_match_the_ruleset(geo, rs):
    assert set(geo.areas) == set(rs.areas)
    assert set(geo.seas) == set(rs.seas)
    assert len(geo.areas) == 37 and len(geo.seas) == 6


def test_polygons_are_valid(areas, seas):
    for name, g in {**areas, **seas}.items():
        assert g.is_valid, name
        assert g.area > 50, name


def test_land_borders_agree_with_adjacency(areas, rs):
    wrong = []
    for a, b in combinations(sorted(areas), 2):
        adjacent = b in rs.areas[a].land
        assert adjacent == (a in rs.areas[b].land)
        ln = shared(areas[a], areas[b])
        if adjacent and ln < BORDER_MIN:
            wrong.append(f"{a}-{b}: adjacent in the data, drawn border only {ln:.1f} km")
        if not adjacent and ln > POINT_MAX:
            wrong.append(f"{a}-{b}: not adjacent in the data, drawn border {ln:.1f} km")
    assert not wrong, "\n".join(wrong)


def test_four_corner_point(areas, geo, rs):
    """Rule 5.14: the four areas meet in one point; the diagonal pairs are not adjacent."""
    p = Point(geo.four_corner)
    for a in FOUR_CORNERS:
        assert areas[a].distance(p) < 0.01, a
    for pair in FOUR_CORNER_NON_BORDERS:
        a, b = sorted(pair)
        assert b not in rs.areas[a].land
        contact = areas[a].intersection(areas[b])
        assert not contact.is_empty, f"{a}/{b} should touch at the four-corner point"
        assert contact.length < POINT_MAX and contact.distance(p) < 0.01


def test_straits_are_symbols_across_water(areas, geo, rs):
    pairs = {frozenset((a, b)) for a, b, _ in geo.straits}
    data = {frozenset((a, s)) for a, v in rs.areas.items() for s in v.straits}
    assert pairs == data and len(pairs) == 4
    for a, b, line in geo.straits:
        assert shared(areas[a], areas[b]) <= POINT_MAX, f"{a}-{b} is a strait, not a land border"
        ends = [Point(line[0]), Point(line[1])]
        assert min(areas[a].distance(e) for e in ends) < 20
        assert min(areas[b].distance(e) for e in ends) < 20
        # the symbol crosses water: its middle is on no land area
        mid = LineString(line).interpolate(0.5, normalized=True)
        assert not any(g.contains(mid) for g in areas.values()), f"strait {a}-{b} drawn over land"


def test_coasts_agree_with_sea_borders(areas, seas, rs):
    wrong = []
    for a in sorted(areas):
        for s in sorted(seas):
            borders = s in rs.areas[a].seas
            assert borders == (a in rs.seas[s].coast)
            ln = shared(areas[a], seas[s])
            if borders and ln < BORDER_MIN:
                wrong.append(f"{a}-{s}: coast in the data, drawn only {ln:.1f} km")
            if not borders and ln > POINT_MAX:
                wrong.append(f"{a}-{s}: no coast in the data, drawn {ln:.1f} km")
    assert not wrong, "\n".join(wrong)


def test_inland_areas_touch_no_water(areas, seas, rs):
    assert {a for a, v in rs.areas.items() if not v.seas} == INLAND
    water = unary_union(list(seas.values()))
    for a in INLAND:
        assert shared(areas[a], water) <= POINT_MAX, a


def test_sea_borders_agree(seas, rs):
    for s, t in combinations(sorted(seas), 2):
        ln = shared(seas[s], seas[t])
        if t in rs.seas[s].seas:
            assert ln >= BORDER_MIN, f"{s}-{t}"
        else:
            assert ln <= POINT_MAX, f"{s}-{t}"


def test_mainland_areas_are_one_piece_and_hold_their_anchor(areas, geo):
    for a, g in areas.items():
        if a in ISLAND_CLUSTERS:
            continue
        parts = sorted(g.geoms, key=lambda p: -p.area)
        biggest, others = parts[0], parts[1:]
        # other pieces are islands: none of them touches another area's land
        for p in others:
            assert all(shared(p, areas[b]) <= POINT_MAX for b in areas if b != a), f"{a}: detached land piece"
        assert biggest.contains(Point(geo.areas[a].anchor)), f"{a}: anchor outside the area"


def test_island_clusters_are_islands(areas):
    for a in ISLAND_CLUSTERS:
        assert len(areas[a].geoms) >= 3
        for b in areas:
            if b != a:
                assert areas[a].distance(areas[b]) > 5, f"{a} too close to {b}"


def test_region_borders_drawn(areas, geo, rs):
    lines = unary_union([LineString(ln) for ln in geo.region_borders]).buffer(0.1)
    for a, b in combinations(sorted(areas), 2):
        if b in rs.areas[a].land and rs.areas[a].region != rs.areas[b].region:
            border = areas[a].boundary.intersection(areas[b].buffer(EPS))
            assert border.difference(lines).length < 1.0, f"region border {a}-{b} not drawn"


def test_sea_anchors_are_in_their_sea(seas, geo):
    for s, v in geo.seas.items():
        assert seas[s].contains(Point(v.anchor)), s
        assert seas[s].contains(Point(v.label)), s
