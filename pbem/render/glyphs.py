"""A glyph cache for the map's Agg renderer: each glyph FreeType rasterizes for a text is kept, and
the same glyph at the same sub-pixel offset is then pasted from the cache instead of rasterized again
(issue 33: the site of a game draws ~190 maps, each with a title of ~55 glyphs and a panel of
numbers; rasterizing glyphs one by one, as matplotlib 3.11's Agg does, was a twentieth of a map's
time).

Exact by construction: matplotlib places a glyph by a FreeType transform whose translation is in
1/64 pixels; moving an outline by whole pixels moves its rasterized bitmap by as many pixels and
changes none of its values. So a glyph's bitmap (and its offset from the whole-pixel part of its
position) depends only on the font object, the size and resolution, the glyph, the transform's
matrix, the fractional part of the translation and the hinting and render flags: the cache's key.
The bitmap is then drawn by Agg's own `draw_text_image`, over the pixels as they are, as before.

Installed only when the renderer draws its texts glyph by glyph (`_draw_text_glyphs_and_boxes`,
matplotlib >= 3.11); an older matplotlib draws as it always did. tests/render/test_glyphs.py checks
the pixels against matplotlib's own drawing.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

MAX_GLYPHS = 20_000    # per renderer (a 16-round game's maps keep ~5 000, ~2 MB); cleared when full


def install(renderer: Any) -> None:
    """Draw `renderer`'s texts through the glyph cache (when its matplotlib draws glyph by glyph)."""
    inner = getattr(renderer, "_draw_text_glyphs_and_boxes", None)
    if inner is None or not _supported() or getattr(renderer, "_pbem_glyphs", None) is not None:
        return
    renderer._pbem_glyphs = {}
    renderer._draw_text_glyphs_and_boxes = types.MethodType(
        lambda self, gc, x, y, angle, glyphs, boxes: _draw(self, inner, gc, x, y, angle, glyphs, boxes), renderer)


def _supported() -> bool:
    """Whether FT2Font has the private calls matplotlib 3.11's Agg draws its glyphs with."""
    try:
        from matplotlib.backends.backend_agg import RenderMode, get_hinting_flag  # noqa: F401
        from matplotlib.ft2font import FT2Font
    except ImportError:
        return False
    return hasattr(FT2Font, "_render_glyph") and hasattr(FT2Font, "_set_transform")


def _draw(renderer: Any, inner: Any, gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any) -> None:
    """matplotlib's RendererAgg._draw_text_glyphs_and_boxes (3.11), the glyphs' bitmaps from the cache;
    a text not antialiased (its bitmap is changed in place there) is left to matplotlib."""
    if not gc.get_antialiased():
        return inner(gc, x, y, angle, glyphs, boxes)
    from matplotlib.backends.backend_agg import RenderMode, get_hinting_flag

    cache = renderer._pbem_glyphs
    if len(cache) > MAX_GLYPHS:
        cache.clear()
    cos = math.cos(math.radians(angle))
    sin = math.sin(math.radians(angle))
    load_flags = get_hinting_flag()
    height = renderer.height
    for font, size, glyph_index, slant, extend, dx, dy in glyphs:  # dy is upwards
        font.set_size(size, renderer.dpi)
        matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]]) @ [[extend, extend * slant], [0, 1]]).round().astype(int)
        delta = [round(0x40 * (x + dx * cos - dy * sin)),
                 round(0x40 * (height - y + dx * sin + dy * cos))]    # FreeType's y is upwards
        font._set_transform(matrix, delta)
        key = (font, size, renderer.dpi, glyph_index, matrix.tobytes(), delta[0] & 0x3F, delta[1] & 0x3F, load_flags)
        hit = cache.get(key)
        if hit is None:
            bitmap = font._render_glyph(glyph_index, load_flags, RenderMode.NORMAL)
            hit = cache[key] = (np.array(bitmap.buffer, copy=True), bitmap.left - (delta[0] >> 6),
                                bitmap.top - (delta[1] >> 6))
        buffer, left, top = hit
        # draw_text_image's y is downwards and the bitmap's bottom side
        renderer._renderer.draw_text_image(buffer, left + (delta[0] >> 6),
                                           int(height) - (top + (delta[1] >> 6)) + buffer.shape[0], 0, gc)
    if boxes:    # (mathtext's rules; a plain text has none)
        inner(gc, x, y, angle, (), boxes)
