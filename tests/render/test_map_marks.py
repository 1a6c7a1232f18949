"""Issue 30 item 8 — the map agrees with the report and is readable at the most crowded positions of
whole games: battle stars inside their area (never on a border) and clear of names and counters;
arrowheads on the edge of the destination's name and counters, not on a name; a move between close
neighbours (Wessex to Avalon) drawn as a visible arc, not hidden under the counters; the count of
arriving units clear of names and counters; the key explains a fort with no army.

Every nation-turn of a whole bot game per ruleset (classic, ffg2, duel) is planned (pbem.render.map.plan_marks: the same
placement the picture is drawn from) and the overlaps counted, against bounds."""
from __future__ import annotations

import pytest

from pbem.bots.selfplay import BotGame
from pbem.data.loader import load
from pbem.render import map as m
from pbem.render import marks
from pbem.render.geometry import load_geometry
from pbem.rules.dice import HmacDice
from pbem.rules.events import make
from pbem.rules.flow import play_game
from pbem.rules.state import GameState
from pbem.rules.turn import new_game_state

ISLANDS_TOO_SMALL_FOR_A_STAR = {"orkneys"}   # the star goes beside them, over the sea
# the marks a whole game draws at least (stars, arrowheads, counts): Duel's 7 rounds move less than
# the classic 16
ENOUGH_MARKS = {"classic": (100, 200, 150), "ffg2": (100, 200, 150), "duel": (30, 60, 50)}


def _nation_turns(ruleset: str, seed: int):
    rs = load(ruleset)
    bots = BotGame(rs, seed)
    out = []
    play_game(rs, new_game_state(rs, "g"), bots.orders_for, HmacDice(bots.secret),
              on_step=lambda st: out.append((st.state.copy(), list(st.events))) if st.kind == "nation_turn" else None)
    return rs, out


@pytest.fixture(scope="module", params=["classic", "ffg2", "duel"])
def whole_game(request):
    rs, turns = _nation_turns(request.param, 7)
    geo = load_geometry(ruleset_id=rs.id)
    return rs, turns, geo, m.layout(geo)


def _shrunk(b, d=1.0):
    return b[0] + d, b[1] + d, b[2] - d, b[3] - d


def test_marks_of_a_whole_game_overlap_nothing_beyond_the_bounds(whole_game):
    rs, turns, geo, lay = whole_game
    shapes = m._shapes_of(geo)["area"]
    names = {a: m._name_box(rs, geo, lay, a) for a in geo.areas}
    n = {"stars": 0, "heads": 0, "counts": 0, "count_hits": 0}
    for state, events in turns:
        plan = m.plan_marks(rs, state, events, geo, lay)
        counters = [(a, c.box()) for a in state.areas for c in m._counters_of(rs, state, geo, a)]
        taken = list(names.values()) + [b for _a, b in counters]
        for area, x, y, h in plan.stars:
            star = (x - h, y - h, x + h, y + h)
            n["stars"] += 1
            assert not any(marks.overlap(star, b) for b in taken), (state.round, area)
            if area not in ISLANDS_TOO_SMALL_FOR_A_STAR:
                assert shapes[area].contains(m._box(*star)), (state.round, area, "star on a border")
        for _nation, leg in plan.arrows:
            if leg.head:
                n["heads"] += 1
                assert not any(marks.inside(leg.end, _shrunk(b)) for b in names.values()), (state.round, leg)
                assert leg.length() >= 10.0, (state.round, leg)
        r = m.COUNT_R_PT * lay.km_per_pt
        for _nation, x, y, _k in plan.counts:
            n["counts"] += 1
            n["count_hits"] += any(marks.overlap((x - r, y - r, x + r, y + r), b) for b in taken)
        for area, b in counters:
            assert not any(marks.overlap(b, nb) for o, nb in names.items() if o != area), (state.round, area)
    stars, heads, counts = ENOUGH_MARKS[rs.id]
    assert n["stars"] > stars and n["heads"] > heads and n["counts"] > counts, n
    assert n["count_hits"] <= 0.05 * n["counts"], n


def test_a_move_between_close_neighbours_is_a_visible_arc():
    rs = load("classic")
    geo = load_geometry(ruleset_id="classic")
    lay = m.layout(geo)
    state = GameState(ruleset="classic", game="g", round=3)
    state.stack("wessex", "romans").armies = 2
    state.stack("wessex", "romans").fort = True
    state.stack("avalon", "romans").armies = 3
    moved = make("moved", nation="romans", kind="armies", count=3, path=["wessex", "avalon"], leader=None, raiders=0,
                 cycle=1, line=1)
    plan = m.plan_marks(rs, state, [moved], geo, lay)
    [(_, leg)] = plan.arrows
    assert leg.head and leg.length() >= marks.MIN_ARROW_KM
    for area in ("wessex", "avalon"):   # it starts and ends outside both blocks of name and counters
        block = m._block(rs, geo, lay, area, m._counters_of(rs, state, geo, area))
        assert not marks.inside(leg.start, _shrunk(block, 0.5)) and not marks.inside(leg.end, _shrunk(block, 0.5))
    [(_, x, y, k)] = plan.counts
    assert k == 3


def test_plan_move_clips_at_the_blocks_and_arcs_when_too_short():
    legs = marks.plan_move([(0.0, 0.0), (100.0, 0.0)], (-10, -5, 10, 5), (90, -5, 110, 5))
    assert [(leg.start, leg.end) for leg in legs] == [((10.0, 0.0), (90.0, 0.0))]
    arc = marks.plan_move([(0.0, 0.0), (20.0, 0.0)], (-10, -5, 10, 5), (10, -5, 30, 5))[0]
    assert arc.start[1] < -5 and arc.end[1] < -5 and arc.rad > 0 and arc.point(0.5)[1] < arc.start[1]


def test_the_key_explains_a_fort_with_no_army():
    texts = []

    class Panel:
        def text(self, x, y, s, **kw):
            texts.append(s)

        def add_patch(self, p):
            pass

        def plot(self, *a, **kw):
            pass

    m._draw_legend(Panel(), load("classic"))
    assert "a fort with no army: the code alone" in texts


def _star_point_everywhere(default, half, contains, clear_of, near=None):
    """marks.star_point as first written: every place tried against every name and counter of the map."""
    def box(p, h):
        return p[0] - h, p[1] - h, p[0] + h, p[1] + h

    def free(p, h):
        return not any(marks.overlap(box(p, h), c) for c in clear_of)

    lattice = [(default[0] + dx, default[1] + dy) for dx, dy in marks._LATTICE]
    around = near if near else clear_of
    block = marks.union(around) if around else (*default, *default)
    for scale in marks.STAR_SCALES:
        h = half * scale
        pad = h + 1.5
        beside = [default, (block[0] - pad, default[1]), (block[2] + pad, (block[1] + block[3]) / 2),
                  (block[0] - pad, (block[1] + block[3]) / 2), ((block[0] + block[2]) / 2, block[1] - pad),
                  ((block[0] + block[2]) / 2, block[3] + pad)]
        for p in beside + lattice:
            if free(p, h) and contains(box(p, h)):
                return p, h
    h = half * marks.STAR_SCALES[-1]
    return next((p for p in lattice if free(p, h)), default), h


def test_a_star_tried_only_against_the_boxes_within_its_reach_lands_where_it_did_against_all():
    """star_point leaves out the names and counters no place it tries can touch (issue 33: a star tried
    ~11 000 places against every box of the map), tries its places against them all at once (numpy)
    and may ask the area about many places at once: the same place and size, whatever the boxes."""
    import random

    rnd = random.Random(33)
    for _ in range(300):
        boxes = []
        for _ in range(rnd.randrange(0, 120)):
            x, y = rnd.uniform(-300, 300), rnd.uniform(-300, 300)
            boxes.append((x, y, x + rnd.uniform(1, 80), y + rnd.uniform(1, 30)))
        near = rnd.sample(boxes, min(len(boxes), rnd.randrange(0, 4))) or None
        r = rnd.uniform(5, 120)
        cx, cy = rnd.uniform(-50, 50), rnd.uniform(-50, 50)

        def contains(b, cx=cx, cy=cy, r=r):   # a square area of half-side r
            return cx - r <= b[0] and b[2] <= cx + r and cy - r <= b[1] and b[3] <= cy + r

        def contains_many(b, cx=cx, cy=cy, r=r):   # the same, for many boxes at once
            return (cx - r <= b[:, 0]) & (b[:, 2] <= cx + r) & (cy - r <= b[:, 1]) & (b[:, 3] <= cy + r)

        default, half = (rnd.uniform(-60, 60), rnd.uniform(-60, 60)), rnd.uniform(3, 12)
        expected = _star_point_everywhere(default, half, contains, boxes, near=near)
        assert marks.star_point(default, half, contains, boxes, near=near) == expected
        assert marks.star_point(default, half, contains, boxes, near=near, contains_many=contains_many) == expected
