"""Text stamps: a plain text drawn again where it was drawn before, over the same pixels, is pasted
from the pixels it made then (issue 33: the site of a game draws ~190 maps whose score panel says
mostly the same numbers in the same places; drawing a text is most of a map's drawing time).

Exact by construction: a stamp keeps the block of pixels around the text (its extent and a margin)
as it was before and after the text was drawn. It is pasted only when that block is, pixel for
pixel, what it was before the first drawing; the text's pixels are a function of the pixels under it
alone, so the result is the very picture a fresh drawing makes. A stamp is kept only when the text
changed nothing on the block's edge (all its ink is inside), and only for small blocks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np

MARGIN_PX = 3             # around the text's extent
MAX_BLOCK_PX = 6_000      # a larger text (a title, a battle) is drawn each time: it seldom comes back
MAX_STAMPS = 300          # per thread, least recently used first out (<= 14 MB; a 16-round game keeps ~260, 5 MB)

_local = threading.local()


def _stamps() -> OrderedDict:
    if not hasattr(_local, "stamps"):
        _local.stamps = OrderedDict()
    return _local.stamps


def draw(artist: Any, key: Any, renderer: Any, pixels: np.ndarray) -> None:
    """Draw the Text `artist` onto `pixels` (the renderer's buffer), from its stamp under `key` when
    the pixels under it are those its stamp was made on."""
    stamps = _stamps()
    hit = stamps.get(key)
    if hit is not None:
        (r0, r1, c0, c1), before, after = hit
        if np.array_equal(pixels[r0:r1, c0:c1], before):
            pixels[r0:r1, c0:c1] = after
            stamps.move_to_end(key)
            return
    block = _block(artist, renderer, pixels.shape)
    if block is None:
        artist.draw(renderer)
        return
    r0, r1, c0, c1 = block
    before = pixels[r0:r1, c0:c1].copy()
    artist.draw(renderer)
    after = pixels[r0:r1, c0:c1].copy()
    edge_same = (np.array_equal(before[0], after[0]) and np.array_equal(before[-1], after[-1])
                 and np.array_equal(before[:, 0], after[:, 0]) and np.array_equal(before[:, -1], after[:, -1]))
    if edge_same:
        stamps[key] = (block, before, after)
        if len(stamps) > MAX_STAMPS:
            stamps.popitem(last=False)


def _block(artist: Any, renderer: Any, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The rows and columns around the text's extent, or None when too large or off the picture."""
    box = artist.get_window_extent(renderer)
    h, w = shape[:2]
    c0, c1 = int(np.floor(box.x0)) - MARGIN_PX, int(np.ceil(box.x1)) + MARGIN_PX
    r0, r1 = h - int(np.ceil(box.y1)) - MARGIN_PX, h - int(np.floor(box.y0)) + MARGIN_PX
    if c0 < 0 or r0 < 0 or c1 > w or r1 > h or (r1 - r0) * (c1 - c0) > MAX_BLOCK_PX:
        return None
    return r0, r1, c0, c1
