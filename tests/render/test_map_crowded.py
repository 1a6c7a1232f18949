"""Crowded areas on the map: four or more nations' stacks in one area stay readable and in their area
(a compact, smaller grid), or, where the area is too small even for that, go in a callout over free water."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from shapely.geometry import MultiPolygon, Polygon, box

from pbem.render import render_map, style
from pbem.render.geometry import load_geometry
from pbem.render.map import CROWD_SCALES, callout_frame, pixel_of, stack_layout

from ._classic import Stack, classic_ruleset, start_state

SIX = ["romans", "belgae", "welsh", "brigantes", "saxons", "angles"]


@pytest.fixture(scope="module")
def rs():
    return classic_ruleset()


def _shape(area: str):
    s = load_geometry().areas[area]
    return MultiPolygon([Polygon(p[0], p[1:]) for p in s.polygons]).buffer(0)


def _crowd(nations: list[str]) -> dict:
    return {n: Stack(armies=i + 1, fort=(i == 0), burhs=(1 if i == 1 else 0)) for i, n in enumerate(nations)}


@pytest.mark.parametrize("area, k", [("sussex", 4), ("sussex", 6), ("wessex", 4), ("essex", 6), ("york", 5),
                                     ("lothian", 6)])
def test_crowded_area_counters_stay_in_their_area(rs, area, k):
    counters = stack_layout(area, _crowd(SIX[:k]), rs)
    assert sorted(c.nation for c in counters) == sorted(SIX[:k])
    shape = _shape(area)
    boxes = [box(*c.box()) for c in counters]
    for c, b in zip(counters, boxes, strict=True):
        assert c.leader is None
        assert shape.contains(b), f"{c.nation}'s counter leaves {area}"
        assert c.size_pt >= CROWD_SCALES[-1] * 11.0
    for i, b in enumerate(boxes):  # and they do not cover each other
        assert all(b.intersection(o).area < 1e-6 for o in boxes[i + 1 :])


@pytest.mark.parametrize("area, k", [("orkneys", 5), ("cornwall", 4), ("kent", 4), ("kent", 6), ("clwyd", 6)])
def test_crowded_area_too_small_gets_a_callout_clear_of_other_areas(rs, area, k):
    st = start_state()
    st.areas[area] = _crowd(SIX[:k])
    counters = stack_layout(area, st.areas[area], rs)
    assert {c.leader for c in counters} == {load_geometry().anchor(area)}
    frame = box(*callout_frame(counters))
    geo = load_geometry()
    for other in geo.areas:
        if other != area:
            assert not frame.intersects(_shape(other)), f"the callout for {area} covers {other}"
    for other, stacks in st.areas.items():
        if other != area:
            for c in stack_layout(other, stacks, rs):
                assert not frame.intersects(box(*c.box())), f"the callout covers {other}'s counter"
    x0, y0, x1, y1 = geo.frame
    assert box(x0, y0, x1, y1).contains(frame)


def test_crowded_areas_render(rs, tmp_path):
    st = start_state()
    st.areas["sussex"] = _crowd(SIX)
    st.areas["orkneys"] = _crowd(["caledonians", "picts", "norsemen", "danes", "scots"])
    png = render_map(rs, st, title="Crowded")
    (tmp_path / "crowded.png").write_bytes(png)
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    for area in ("sussex", "orkneys"):
        for c in stack_layout(area, st.areas[area], rs):
            col, row = pixel_of(c.x - c.width_km / 4, c.y, 1600)   # the coloured label, left of any square
            r, q = int(round(row)), int(round(col))
            win = img[r - 3 : r + 4, q - 3 : q + 4]
            target = np.array(style.hex_to_rgb(style.nation_colour(c.nation, rs)))
            assert np.all(np.abs(win - target) <= 18, axis=-1).mean() > 0.2, (area, c.nation)
