"""Issue 29 (Duel Britannia), the map: a Duel game is drawn on the Duel board's own geometry
(pbem/data/duel/geometry.json, a board of its own on the classic context land), not the classic one:
England, Wales and Scotland as unions of the classic polygons they merge, Ireland's four areas
([The Game Board]: Dublin, Munster, Ui Neil, Connacht), the four seas, the straits ([Straits]), the
impassable Pennines and Grampians, the scoring centres ([Army Limits and Scoring Centres]) and the
pieces, a wounded army marked ([Battle Dice]: one hit holds until the battle ends)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from ruamel.yaml import YAML
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.ops import unary_union

from pbem.data.duel_check import PROVISIONAL_DIR, plain
from pbem.data.loader import load
from pbem.render import map as map_module
from pbem.render import style
from pbem.render.geometry import load_geometry
from pbem.render.map import centre_box, layout, pixel_of, render_map, scoring_centres, stack_layout
from pbem.rules.state import Stack
from pbem.rules.turn import new_game_state, start_round


def _shape(polygons) -> MultiPolygon:
    return MultiPolygon([Polygon(p[0], p[1:]) for p in polygons]).buffer(0)


def _pixels(png: bytes) -> np.ndarray:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _near(img: np.ndarray, hex_colour: str, tol: int = 24) -> np.ndarray:
    return np.all(np.abs(img - np.array(style.hex_to_rgb(hex_colour))) <= tol, axis=-1)


@pytest.fixture(scope="module")
def rs():
    return load("duel")


@pytest.fixture(scope="module")
def geo():
    return load_geometry(ruleset_id="duel")


@pytest.fixture(scope="module")
def board() -> dict:
    return plain(YAML(typ="safe").load((PROVISIONAL_DIR / "board.yaml").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def shapes(geo) -> dict:
    return {a: _shape(s.polygons) for a, s in {**geo.seas, **geo.areas}.items()}


@pytest.fixture(scope="module")
def start(rs):
    state, _ = start_round(rs, new_game_state(rs, "d1"))
    return state


def test_a_duel_map_is_drawn_on_the_duel_board(rs, geo, board, shapes):
    """Every Duel area and sea has its shape (the 25 passable areas, the impassable Pennines and
    Grampians, the four seas), each stack's anchor inside it; none of the classic board's own areas."""
    impassable = {a for a, v in board["areas"].items() if v["terrain"] == "impassable"}
    assert impassable == {"pennines", "grampians"}
    assert set(geo.areas) == set(rs.areas) | impassable == set(board["areas"])
    assert set(geo.seas) == set(rs.seas) == set(board["seas"])
    assert not set(geo.areas) & {"north_mercia", "downlands", "galloway"}   # classic areas merged away
    for a, shape in shapes.items():
        assert shape.is_valid and shape.area > 1000, a
        assert shape.buffer(1.0).contains(Point(geo.anchor(a))), a
    assert geo.four_corner is None     # no four-corner point on this board
    assert {s for s in geo.straits for s in s[:2]} >= {"dublin", "gwynedd", "dyfed", "cornwall", "munster"}


def test_british_areas_cover_the_classic_polygons_they_merge(geo, board, shapes):
    """[The Game Board] (as board.yaml merges the classic areas): a Duel area of England, Wales or
    Scotland is the union of the classic polygons it names, no more and no less."""
    classic = load_geometry()
    merged = []
    for a, area in board["areas"].items():
        if area["region"] == "ireland":
            continue
        union = unary_union([_shape(classic.areas[c].polygons) for c in area["classic"]])
        assert shapes[a].buffer(0.5).contains(union), a
        assert abs(shapes[a].area - union.area) < 0.01 * union.area, a
        merged += area["classic"]
    assert sorted(merged) == sorted(classic.areas)


def test_irelands_areas_are_drawn_as_land(rs, geo, board, shapes, start):
    """Ireland, which no classic area covers: its four areas fill the island west of Wales across the
    Irish Sea, drawn as land (clear or hatched), not sea, and they do not overlap."""
    irish = [a for a, v in board["areas"].items() if v["region"] == "ireland"]
    assert sorted(irish) == ["connacht", "dublin", "munster", "ui_neil"]
    wales = unary_union([shapes[a] for a, v in board["areas"].items() if v["region"] == "wales"])
    for i, a in enumerate(irish):
        assert shapes[a].centroid.x < wales.bounds[0], f"{a} lies west of Wales"
        for b in irish[i + 1:]:
            assert shapes[a].intersection(shapes[b]).area < 1.0, (a, b)
    img = _pixels(render_map(rs, start, title="[d1] Round 1"))
    sea = _near(img, style.SEA, tol=6)
    for a in irish:
        x0, y0, x1, y1 = shapes[a].bounds
        points = [Point(x, y) for x in np.linspace(x0, x1, 12) for y in np.linspace(y0, y1, 12)]
        inside = [p for p in points if shapes[a].buffer(-4.0).contains(p)]
        assert len(inside) >= 10, a
        wet = [p for p in inside if sea[int(round(pixel_of(p.x, p.y, 1600, geo)[1])),
                                         int(round(pixel_of(p.x, p.y, 1600, geo)[0]))]]
        assert len(wet) <= len(inside) // 10, f"{a}: {len(wet)} of {len(inside)} points drawn as sea"


def _static_texts(rs, geo):
    lay = layout(geo)
    fig, ax, panel = map_module._new_figure(800, lay)
    map_module._draw_static(ax, panel, geo, rs, lay)
    renderer = fig.canvas.get_renderer()
    return ax, {t.get_text(): t for t in ax.texts}, renderer


def test_every_area_and_sea_is_named_on_the_map(rs, geo, shapes):
    """Every land area (the impassable ones too) is named over its own shape, every sea's name is
    within the picture; the names come from the ruleset's data (Ui Neil, E Anglia ...)."""
    ax, texts, renderer = _static_texts(rs, geo)
    frame = ax.get_window_extent(renderer)
    for a in geo.areas:
        name = rs.areas[a].name if a in rs.areas else a.replace("_", " ").title()
        assert name in texts, a
        x, y = texts[name].get_position()
        assert shapes[a].buffer(5.0).contains(Point(x, y)), f"{name} is named outside its area"
    for s in geo.seas:   # the Atlantic, round Scotland to Northumbria ([Boats]), is named three times
        drawn = [t for t in ax.texts if t.get_text() == rs.seas[s].name.upper()]
        assert len(drawn) == (3 if s == "atlantic_ocean" else 1), s
        for text in drawn:
            box = text.get_window_extent(renderer)
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, s
            assert shapes[s].contains(Point(text.get_position())), s


def test_every_scoring_centre_is_marked(rs, geo):
    """[Army Limits and Scoring Centres]: each centre of the aid gets a badge (the nations' codes and,
    where it is not every round, the rounds: the Jutes' Kent ends, York is Saxon from round 5);
    the classic ruleset has none."""
    centres = scoring_centres(rs)
    places = {p for rows in rs.extras["duel_centres"].values() for p, _r in rows}
    assert set(centres) == places
    x0, y0, x1, y1 = geo.frame
    for place in places:
        bx0, by0, bx1, by1 = centre_box(rs, geo, layout(geo), place)
        assert x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1, place
    _ax, texts, _r = _static_texts(rs, geo)
    assert "◎ JU 1–4" in texts and "◎ SA 5–7" in texts and "◎ IR" in texts
    assert not scoring_centres(load("classic"))


def _one_stack_everywhere(rs) -> dict:
    areas: dict = {a: {"saxons": Stack(armies=3), "welsh": Stack(armies=1, leaders=[])} for a in rs.areas}
    for s in rs.seas:
        areas[s] = {"danes": Stack(armies=2, raiders=2)}
    return areas


def test_the_centre_badges_cover_no_name_and_no_counter(rs, geo, start):
    """A centre's badge sits over its area's name (a sea's over the sea's name), clear of every area's
    name and of the counters, at the start and with stacks everywhere."""
    from pbem.render.marks import overlap

    lay = layout(geo)
    badges = {p: centre_box(rs, geo, lay, p) for p in scoring_centres(rs)}
    names = [map_module._name_box(rs, geo, lay, a) for a in geo.areas]
    for areas in (start.areas, _one_stack_everywhere(rs)):
        boxes = names + [c.box() for a, stacks in areas.items() for c in stack_layout(a, stacks, rs, geo)]
        for place, (x0, y0, x1, y1) in badges.items():   # (boxes a little wider than drawn: 1 km spare)
            assert not any(overlap((x0 + 1, y0 + 1, x1 - 1, y1 - 1), b) for b in boxes), place


def test_pieces_are_drawn_inside_their_area(rs, geo, shapes, start):
    """The start position, and two nations' stacks in every area and one in every sea: each counter
    lies inside its area's (or sea's) shape."""
    for areas in (start.areas, _one_stack_everywhere(rs)):
        for a, stacks in areas.items():
            counters = stack_layout(a, stacks, rs, geo)
            assert counters, a
            for c in counters:
                assert shapes[a].contains(Point(c.x, c.y)), (a, c.label)


def test_a_wounded_army_is_marked(rs, geo, start):
    """[Battle Dice]: an army hit once (Stack.counters wounded_armies) carries a red W beside its counter
    until the battle ends; the key explains it."""
    state = start.copy()
    wounded = Stack(armies=3, counters={"wounded_armies": 1})
    state.areas["mercia"] = {"saxons": wounded}
    (counter,) = stack_layout("mercia", state.areas["mercia"], rs, geo)
    assert counter.wounded == "armies" and map_module._squares(counter) == ("W",)
    (healed,) = stack_layout("mercia", {"saxons": Stack(armies=3)}, rs, geo)
    assert healed.wounded == "" and healed.width_km < counter.width_km

    def red_near(img, c):
        col, row = pixel_of(c.x, c.y, 1600, geo)
        half_w = int(c.width_km / layout(geo).km_per_pt * 1600 / 16 / 72) + 10
        win = img[int(row) - 15: int(row) + 15, int(col) - half_w: int(col) + half_w]
        return int(_near(win, style.WOUNDED).sum())

    marked = red_near(_pixels(render_map(rs, state, title="[d1] a wounded army")), counter)
    state.areas["mercia"] = {"saxons": Stack(armies=3)}
    plain_ = red_near(_pixels(render_map(rs, state, title="[d1] a wounded army")), healed)
    assert marked > 40 and plain_ == 0, (marked, plain_)


def test_the_duel_key_has_its_own_rows_and_the_classic_key_not(rs, geo):
    """The key explains impassable land, a scoring centre and a wounded army on a Duel map; a classic
    map's key is as before (its battle model wounds no piece, it has no centres, no impassable land)."""
    def panel_texts(ruleset, board):
        lay = layout(board)
        fig, ax, panel = map_module._new_figure(800, lay)
        map_module._draw_static(ax, panel, board, ruleset, lay)
        return {t.get_text() for t in panel.texts}

    duel = panel_texts(rs, geo)
    assert {"impassable", "scoring centre (rounds)", "wounded army (one hit)"} <= duel
    classic = panel_texts(load("classic"), load_geometry())
    assert not {"impassable", "scoring centre (rounds)", "wounded army (one hit)"} & classic


def test_the_render_benchmark_draws_a_duel_map(rs):
    """`pbem.render.bench` times a Duel map too (its first nation starts on land: an attack is drawn);
    measured, not asserted (the machine is shared): ~0.08 s CPU a map after the first."""
    import time

    from pbem.render.bench import _landing_events, render_seconds

    events = _landing_events(rs)
    assert [type(e).__name__ for e in events] == ["Moved", "Battle", "BattleEnd"]
    assert render_seconds(ruleset=rs, state=new_game_state(rs, "b"), runs=1, clock=time.process_time) > 0


def test_a_duel_game_started_and_run_mails_a_duel_map(tmp_path):
    """`pbem new d1 --ruleset duel --players 2`, the first orders by mail, `pbem run`: the turn report's
    map is a Duel map (its picture has the Duel board's height, not the classic one's)."""
    from click.testing import CliRunner

    from pbem.bots import bot_orders
    from pbem.cli import cli
    from pbem.render.map import image_size
    from pbem.service.job import run_job
    from pbem.store.game import Game

    r = CliRunner().invoke(cli, ["new", "d1", "--dir", str(tmp_path), "--ruleset", "duel", "--players", "2"])
    assert r.exit_code == 0, r.output
    game = Game.open(tmp_path / "d1")
    t = datetime(2026, 12, 1, tzinfo=UTC)
    assert not run_job(tmp_path, now=t).errors
    game = Game.open(tmp_path / "d1")
    nation = game.state.next_nation
    p = game.player(game.player_of(nation))
    text = bot_orders(game.ruleset(), game.state, nation, seed=1)
    (game.path / "inbox").mkdir(exist_ok=True)
    (game.path / "inbox" / "0001.eml").write_text(f"From: {p['address']}\nSubject: [d1] orders\n"
                                                  f"Message-ID: <m1@x.org>\n\nTOKEN {p['token']}\n{text}\n")
    report = run_job(tmp_path, now=t + timedelta(hours=1))
    assert not report.errors, report.errors
    maps = sorted(Path(game.path / "outbox" / "reports").glob("*/map.png"))
    assert maps, "the turn report has its map"
    img = Image.open(maps[-1])
    assert img.size == image_size(1600, load_geometry(ruleset_id="duel")) != image_size(1600)
