"""pbem.render.glyphs: texts drawn through the glyph cache are, pixel for pixel, what matplotlib's
own Agg renderer draws, wherever they fall (sub-pixel offsets, sizes, weights, styles, angles)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from pbem.render import glyphs

TEXTS = [("[g] Round 3 (43-60 AD): the Romans have played", 22, "bold", "normal", 0),
         ("Cornwall  BE vs RO: RO won", 11, "normal", "normal", 0),
         ("★ 7 VP · Ω ½", 12.5, "bold", "normal", 0),
         ("NORTH SEA", 13, "bold", "italic", 0),
         ("tilted", 11, "normal", "normal", 30)]


def _picture(cached: bool, texts: list[tuple], rounds: int = 2) -> np.ndarray:
    fig = Figure(figsize=(4, 3), dpi=100)
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    if cached:
        glyphs.install(renderer)
    for k in range(rounds):     # the same places again, moved by whole pixels: drawn from the cache
        rng = np.random.default_rng(7)
        for s, size, weight, style, angle in texts:
            x, y = rng.uniform(0.0, 0.6) + k * 32 / 400, rng.uniform(0.05, 0.85) + k * 16 / 300
            t = Text(x, y, s, fontsize=size, weight=weight, style=style, rotation=angle, parse_math=False,
                     transform=fig.transFigure, color="#1d1d1d")
            t.set_figure(fig)
            t.draw(renderer)
    return np.asarray(renderer.buffer_rgba()).copy()


def test_texts_drawn_through_the_glyph_cache_are_the_texts_matplotlib_draws():
    assert np.array_equal(_picture(True, TEXTS), _picture(False, TEXTS))


def test_the_cache_is_used_when_this_matplotlib_draws_glyph_by_glyph():
    fig = Figure(figsize=(2, 1), dpi=100)
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    glyphs.install(renderer)
    if not glyphs._supported() or not hasattr(renderer, "_pbem_glyphs"):
        pytest.skip("this matplotlib draws whole strings: no glyph cache")
    t = Text(0.1, 0.5, "BE 3", fontsize=11, transform=fig.transFigure)
    t.set_figure(fig)
    t.draw(renderer)
    kept = len(renderer._pbem_glyphs)
    t.draw(renderer)
    assert kept == len(renderer._pbem_glyphs) > 0
