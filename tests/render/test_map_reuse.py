"""Issue 33 item 2: maps drawn one after another in one process (the site of an archived game) reuse
one Figure and paste the texts they drew before (pbem.render.stamps), and every map is, byte for
byte, the one a fresh process draws."""

from __future__ import annotations

import gc

from pbem.data.loader import load
from pbem.render import map as map_module
from pbem.render import stamps
from pbem.rules.turn import new_game_state, start_round


def _positions():
    rs = load("classic")
    start, _ = start_round(rs, new_game_state(rs, "g"))
    later = start.copy()
    later.vp = {**later.vp, rs.order_of_play[0]: 7, rs.order_of_play[1]: 3}
    return rs, start, later


def _fresh(rs, state, title):
    """As a new process draws it: no canvas, no stamps."""
    map_module._canvases.__dict__.clear()
    stamps._local.__dict__.clear()
    return _draw(rs, state, title)


def _draw(rs, state, title):
    return map_module.render_map(rs, state, title=title, vp_table={n: state.vp.get(n, 0) for n in rs.order_of_play})


def test_maps_drawn_in_a_row_are_the_maps_drawn_fresh(monkeypatch):
    rs, start, later = _positions()
    pasted = []
    inner = stamps.draw

    def draw(artist, key, renderer, pixels):
        pasted.append(key in stamps._stamps())
        inner(artist, key, renderer, pixels)

    monkeypatch.setattr(stamps, "draw", draw)
    expected = {"a": _fresh(rs, start, "[g] Round 1"), "b": _fresh(rs, later, "[g] Round 1: later")}
    map_module._canvases.__dict__.clear()
    stamps._local.__dict__.clear()
    pasted.clear()
    in_a_row = [_draw(rs, s, t) for s, t in ((start, "[g] Round 1"), (later, "[g] Round 1: later"), (start, "[g] Round 1"))]
    assert in_a_row == [expected["a"], expected["b"], expected["a"]]
    assert any(pasted), "the second and third maps paste the score texts the first one drew"


def test_a_map_leaves_no_figure_for_the_garbage_collector():
    from matplotlib.figure import Figure

    def figures() -> int:
        return sum(isinstance(o, Figure) for o in gc.get_objects())

    rs, start, _ = _positions()
    map_module.render_map(rs, start, title="[g] Round 1")    # the static layer, the canvas, the sprites
    gc.collect()
    before = figures()
    gc.disable()
    try:
        for _ in range(3):
            map_module.render_map(rs, start, title="[g] Round 1")
        assert figures() == before          # no Figure waits for a collection
    finally:
        gc.enable()


def test_the_changed_pixels_lookup_gives_every_pixel_the_index_of_the_whole_picture_lookup():
    """A map looks up in the palette only the pixels it changed over the static layer (the rest keep
    the static layer's indices): the indices of the whole picture looked up, pixel for pixel."""
    import numpy as np

    rs, start, later = _positions()
    map_module.render_map(rs, start, title="[g] Round 1")
    base, _slots, palette, base_indices = next(iter(map_module._static_cache.values()))
    assert np.array_equal(base_indices, map_module._indices(base, palette))
    rng = np.random.default_rng(33)
    drawn = base.copy()
    drawn[100:400, 200:900] = rng.integers(0, 256, size=(300, 700, 4), dtype=np.uint8)   # any colour at all
    drawn[-5:, -7:] = (12, 200, 90, 255)
    want = map_module._indices(drawn, palette).copy()
    assert np.array_equal(map_module._changed_indices(drawn, palette, base, base_indices), want)
    assert np.array_equal(map_module._changed_indices(base.copy(), palette, base, base_indices), base_indices)
