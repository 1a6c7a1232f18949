"""render_map: the PNG itself (size, colours where stacks are), tolerant inputs, the helpers."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pbem.data.loader import load
from pbem.errors import GameError
from pbem.render import render_map, style
from pbem.render.geometry import load_geometry
from pbem.render.map import counter_label, image_size, pixel_of, stack_layout
from pbem.rules.events import Battle, BattleEnd, Moved

from ._classic import START, Stack, State, classic_ruleset, start_state

TITLE = "Game t1 - round 1 (43-80) - Romans to play"


def _pixels(png: bytes) -> np.ndarray:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _share_of_colour(img: np.ndarray, col: float, row: float, hex_colour: str, half: int = 4,
                     tol: int = 18) -> float:
    """Share of the pixels in a (2*half+1)^2 window around (col, row) that have this colour."""
    r, c = int(round(row)), int(round(col))
    win = img[r - half : r + half + 1, c - half : c + half + 1]
    target = np.array(style.hex_to_rgb(hex_colour))
    close = np.all(np.abs(win - target) <= tol, axis=-1)
    return float(close.mean())


@pytest.fixture(scope="module")
def rs():
    return classic_ruleset()


@pytest.fixture(scope="module")
def start_png(rs):
    return render_map(rs, start_state(), title=TITLE)


def test_start_position_png_size(start_png):
    img = Image.open(io.BytesIO(start_png))
    assert img.format == "PNG"
    assert img.size == image_size(1600)
    assert img.size[0] == 1600
    assert 1500 < img.size[1] < 1900


def test_start_position_stacks_have_their_nation_colour(start_png, rs):
    img = _pixels(start_png)
    st = start_state()
    checked = 0
    for area, stacks in st.areas.items():
        for c in stack_layout(area, stacks, rs):
            col, row = pixel_of(c.x, c.y, 1600)
            colour = style.nation_colour(c.nation, rs)
            share = _share_of_colour(img, col, row, colour)
            assert share > 0.4, f"{c.nation} in {area}: only {share:.0%} of {colour} at ({col:.0f}, {row:.0f})"
            checked += 1
    assert checked == sum(len(v) for v in START.values()) + 1


def test_player_colours_at_anchors(start_png, rs):
    """The four player colours (Okabe-Ito) are where the start position puts each nation."""
    img = _pixels(start_png)
    geo = load_geometry()
    expect = {"belgae": "#0072B2", "picts": "#0072B2", "welsh": "#009E73", "caledonians": "#009E73",
              "brigantes": "#D55E00"}
    for nation, colour in expect.items():
        assert style.nation_colour(nation, rs) == colour
        for area in START[nation]:
            col, row = pixel_of(*geo.areas[area].anchor, 1600)
            assert _share_of_colour(img, col, row, colour) > 0.4, (nation, area)
    col, row = pixel_of(*geo.seas["english_channel"].anchor, 1600)
    assert _share_of_colour(img, col, row, "#CC79A7") > 0.4  # the Romans are purple


def test_empty_seas_show_sea_colour(start_png):
    img = _pixels(start_png)
    geo = load_geometry()
    for sea, shape in geo.seas.items():
        if sea == "english_channel":
            continue
        col, row = pixel_of(*shape.anchor, 1600)
        assert _share_of_colour(img, col, row, style.SEA, tol=6) > 0.9, sea


def test_empty_land_shows_land(rs):
    png = render_map(rs, State(), title="empty")
    img = _pixels(png)
    geo = load_geometry()
    for area in ("essex", "york", "cornwall"):
        col, row = pixel_of(*geo.areas[area].anchor, 1600)
        land = style.HILAND if rs.areas[area].terrain == "hiland" else style.LAND
        assert _share_of_colour(img, col, row, land, tol=10) > 0.5, area


def test_width_parameter(rs):
    png = render_map(rs, start_state(), title=TITLE, width_px=800)
    assert Image.open(io.BytesIO(png)).size == image_size(800)
    assert image_size(800)[0] == 800


def test_counter_labels(rs):
    def code(n):
        return style.nation_code(n, rs)

    assert 1 <= len(code("belgae")) <= 2   # rule 2.21: one or two letters
    assert counter_label("belgae", Stack(armies=3), rs) == f"{code('belgae')} 3"
    assert counter_label("belgae", Stack(armies=3, cavalry=1), rs) == f"{code('belgae')} 3+1c"
    assert counter_label("romano_british", Stack(cavalry=2), rs) == f"{code('romano_british')} 2c"
    assert counter_label("danes", Stack(armies=4, raiders=4), rs) == f"{code('danes')} 4R"
    assert counter_label("danes", Stack(armies=4, raiders=2), rs) == f"{code('danes')} 4(2R)"
    assert counter_label("saxons", Stack(armies=5, leaders=["alfred"]), rs) == f"{code('saxons')} 5 ★A"
    assert counter_label("saxons", Stack(armies=1, leaders=["alfred", "harold"]), rs) == f"{code('saxons')} 1 ★A★H"
    assert counter_label("belgae", Stack(armies=3), None) == "BE 3"


def test_stack_layout_places_every_nation(rs):
    stacks = {"saxons": Stack(armies=2), "danes": Stack(armies=3), "angles": Stack(armies=1),
              "welsh": Stack(), "normans": Stack(armies=1, fort=False, burhs=0)}
    counters = stack_layout("york", stacks, rs)
    assert [c.nation for c in counters] == ["danes", "saxons", "angles", "normans"]  # order of play; empty dropped
    assert len({(round(c.x), round(c.y)) for c in counters}) == 4
    assert stack_layout("atlantis", stacks, rs) == []


def test_busy_position_with_events_and_vp(rs, tmp_path: Path):
    st = start_state()
    st.areas["english_channel"] = {"romans": Stack(armies=4)}
    st.areas["kent"] = {"romans": Stack(armies=4, fort=True), "belgae": Stack(armies=1)}
    st.areas["wessex"]["saxons"] = Stack(armies=5, cavalry=2, burhs=2, leaders=["alfred"])
    st.areas["york"]["danes"] = Stack(armies=4, raiders=2)
    st.areas["north_sea"] = {"norwegians": Stack(armies=6, leaders=["harald_hardrada"])}
    def moved(nation, path):
        return Moved(nation=nation, kind="armies", count=4, path=path, leader=None, raiders=0, cycle=1, line=1)

    def battle(area, att, dfn, winner):
        return [Battle(area=area, attacker=att, defender=dfn, cycle=1, lines=[]),
                BattleEnd(area=area, attacker=att, defender=dfn, rounds=1, outcome="", winner=winner)]

    events = [moved("romans", ["english_channel", "kent"]), moved("danes", ["north_sea", "york"]),
              *battle("kent", "romans", "belgae", "romans"), *battle("york", "danes", "brigantes", None)]
    png = render_map(rs, st, title=TITLE, events=events, vp_table={"romans": 6, "saxons": 12, "belgae": 0})
    img = _pixels(png)
    for c in stack_layout("kent", st.areas["kent"], rs):
        col, row = pixel_of(c.x, c.y, 1600)
        assert _share_of_colour(img, col, row, style.nation_colour(c.nation, rs)) > 0.2, c.nation
    (tmp_path / "busy.png").write_bytes(png)


@pytest.mark.parametrize(
    "events",
    [
        [{"type": "moved"}],
        [{"type": "moved", "nation": "nobody", "path": ["kent"]}],
        [{"type": "moved", "nation": "jutes", "path": ["kent", "atlantis", "sussex"], "armies": "x"}],
        [{"type": "moved", "nation": "jutes", "from": "kent", "to": "essex"}],
        [{"type": "battle"}, {"type": "battle", "area": "atlantis"}, {"type": "battle", "area": "kent"}],
        [{"type": "whatever"}, "not a dict", None],
    ],
)
def test_damaged_logged_events_are_a_typed_error(rs, events):
    """Events come typed from the engine, or as the log keeps them; a logged mapping that is no event
    of the catalog (pbem.rules.events) is a GameError naming it, never a traceback."""
    with pytest.raises(GameError, match="a logged event cannot be read"):
        render_map(rs, start_state(), title="t", events=events)


@pytest.mark.parametrize(
    "vp_table",
    [None, {}, {"romans": 3, "Bonus": 2}, [("romans", 3), ("picts", 1.5)], [{"nation": "welsh", "points": 4}],
     [{"label": "house rule", "vp": 1}], "garbage"],
)
def test_tolerant_vp_tables(rs, vp_table):
    assert render_map(rs, start_state(), title="t", vp_table=vp_table)[:4] == b"\x89PNG"


def test_unknown_things_and_no_ruleset():
    st = State(areas={"kent": {"martians": Stack(armies=2)}, "atlantis": {"romans": Stack(armies=1)}})
    assert render_map(None, st, title="no ruleset")[:4] == b"\x89PNG"
    assert style.nation_code("martians") == "MA"
    assert style.nation_colour("martians") == style.UNKNOWN_NATION


def test_saved_stack_forms_and_plain_text_title(rs):
    """Stacks as in state.yaml (an int, or a mapping) and a title with '$' (no mathtext) work too."""
    st = State(areas={"kent": {"jutes": 2}, "essex": {"saxons": {"armies": 3, "cavalry": 1}}, "york": "junk"})
    png = render_map(rs, st, title="Game $1 - 50% of $2", vp_table=[("romans", 1)])
    img = _pixels(png)
    for area, stacks in (("kent", st.areas["kent"]), ("essex", st.areas["essex"])):
        (c,) = stack_layout(area, stacks, rs)
        assert _share_of_colour(img, *pixel_of(c.x, c.y, 1600), style.nation_colour(c.nation, rs)) > 0.4
    assert counter_label("saxons", {"armies": 3, "cavalry": 1}, rs) == f"{style.nation_code('saxons', rs)} 3+1c"


def test_real_game_state(rs):
    state_mod = pytest.importorskip("pbem.rules.state")
    st = state_mod.GameState()
    for nation, areas in START.items():
        for a in areas:
            st.stack(a, nation).armies = 1
    st.stack("english_channel", "romans").armies = 15
    png = render_map(rs, st, title=TITLE)
    img = _pixels(png)
    col, row = pixel_of(*load_geometry().areas["kent"].anchor, 1600)
    assert _share_of_colour(img, col, row, style.nation_colour("belgae", rs)) > 0.4


def test_okabe_ito_player_colours_and_contrast():
    assert set(style.PLAYER_COLOURS.values()) <= set(style.OKABE_ITO.values())
    assert len(set(style.PLAYER_COLOURS.values())) == len(style.PLAYER_COLOURS)
    for ruleset in ("classic", "ffg2", "duel"):   # each ruleset's four players: four distinct colours
        assert len({style.PLAYER_COLOURS[c] for c in style.player_order(load(ruleset))}) == 4
    for ruleset in ("classic", "ffg2"):   # colours and codes only from the ruleset's nations.yaml
        r = load(ruleset)
        for nation, nat in r.nations.items():
            assert style.nation_colour(nation, r) == style.PLAYER_COLOURS[nat.colour.lower()]
            assert style.nation_code(nation, r) == nat.code
        assert len({style.nation_code(n, r) for n in r.nations}) == len(r.nations) == 17
    assert style.player_of("romans") is None   # no table of our own: a map is drawn with a ruleset


def test_no_pyplot_in_render_code():
    for f in Path(__file__).resolve().parents[2].joinpath("pbem", "render").glob("*.py"):
        text = f.read_text()
        assert "import pyplot" not in text and "matplotlib.pyplot" not in text, f.name


def test_bench_returns_seconds():
    from pbem.render.bench import render_seconds

    t = render_seconds(runs=1)
    assert isinstance(t, float) and t > 0


def test_render_benchmark(benchmark, rs):
    """Runs only with `pytest --benchmark-only tests/render` (skipped by default)."""
    st = start_state()
    render_map(rs, st, title=TITLE)
    benchmark(render_map, rs, st, title=TITLE)


def test_mid_game_bot_position_stacks_have_their_nation_colour(rs):
    """Issue 10: a mid-game position reached by the bots (round 6 or later), checked by sampling pixels."""
    from pbem.bots import bot_orders
    from pbem.orders.parser import parse_message
    from pbem.rules.dice import HmacDice
    from pbem.rules.flow import step
    from pbem.rules.turn import new_game_state

    state = new_game_state(rs, "mid")
    dice = HmacDice(b"mid-game position for the map test")
    n = 0
    while state.round < 6 and not state.finished:
        orders = {}
        if state.next_nation:
            n += 1
            text = bot_orders(rs, state, state.next_nation, seed=n)
            orders[state.next_nation] = parse_message(text, rs).section(state.next_nation)
        state = step(rs, state, orders, dice).state
    img = _pixels(render_map(rs, state, title="mid game"))
    checked = 0
    for area, stacks in state.areas.items():
        if not rs.is_land(area):
            continue
        live = {k: v for k, v in stacks.items() if not v.empty()}
        if len(live) > 2:
            continue   # crowded areas may overlap (documented); sample the readable ones
        for c in stack_layout(area, live, rs):
            col, row = pixel_of(c.x, c.y, 1600)
            share = _share_of_colour(img, col, row, style.nation_colour(c.nation, rs))
            assert share > 0.3, f"{c.nation} in {area}: only {share:.0%} of its colour"
            checked += 1
    assert checked >= 15


def test_duel_seats_play_the_sides_colours():
    """Duel [Game Setup]: the Brython-Viking side is purple/black, the Anglo-Saxon red/blue; each
    nation is drawn in its seat's colour (Rules.seat_colour), the players' VP chart too."""
    r = load("duel")
    assert style.player_order(r) == ("red", "blue", "black", "purple")
    assert style.nation_colour("saxons", r) == style.PLAYER_COLOURS["red"]
    assert style.nation_colour("welsh", r) == style.PLAYER_COLOURS["black"]
    assert style.nation_colour("romano_british", r) == style.PLAYER_COLOURS["purple"]
    assert style.drawn_seat("brython_viking", r) == "purple" and style.drawn_seat("anglo_saxon", r) == "red"
