"""pbem.render.png: the palette PNG written with libdeflate reads back as the very image (issue 33),
and the map's fixed palette holds every flat colour of the map exactly."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from pbem.data.loader import load
from pbem.render import map as m
from pbem.render import style
from pbem.render.png import SIGNATURE, palette_png
from pbem.rules.turn import new_game_state


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (64, 1600), (257, 33)])
def test_a_palette_png_reads_back_as_its_indices_and_colours(shape):
    rnd = np.random.default_rng(sum(shape))
    colours = rnd.integers(0, 256, size=(128, 3), dtype=np.uint8)
    indices = rnd.integers(0, 128, size=shape, dtype=np.uint8)
    data = palette_png(indices, colours.tobytes())
    assert data.startswith(SIGNATURE)
    img = Image.open(io.BytesIO(data))
    img.load()    # Pillow checks every chunk's CRC and the zlib stream as it reads
    assert img.mode == "P" and img.size == (shape[1], shape[0])
    assert np.array_equal(np.asarray(img), indices)
    assert bytes(img.getpalette()[:384]) == colours.tobytes()


def test_the_same_indices_give_the_same_bytes():
    indices = np.arange(200 * 300, dtype=np.uint32).reshape(200, 300).astype(np.uint8)
    palette = bytes(range(256)) * 3
    assert palette_png(indices, palette) == palette_png(indices.copy(), palette)


@pytest.mark.parametrize("bad", [b"", b"\x00\x00", bytes(771)])
def test_a_palette_png_refuses_a_palette_that_is_no_palette(bad):
    with pytest.raises(ValueError):
        palette_png(np.zeros((2, 2), dtype=np.uint8), bad)


def test_the_idat_is_one_zlib_stream_of_unfiltered_rows():
    indices = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.uint8)
    data = palette_png(indices, bytes(range(21)))
    at = data.index(b"IDAT")
    size = int.from_bytes(data[at - 4:at], "big")
    assert zlib.decompress(data[at + 4:at + 4 + size]) == b"\x00\x01\x02\x03\x00\x04\x05\x06"


def test_the_map_palette_holds_every_flat_colour_and_the_map_only_palette_colours():
    rs = load("classic")
    png = m.render_map(rs, new_game_state(rs), title="palette")
    img = Image.open(io.BytesIO(png))
    colours = {tuple(img.getpalette()[i:i + 3]) for i in range(0, len(img.getpalette()), 3)}
    for nation in rs.nations:
        assert style.hex_to_rgb(style.nation_colour(nation, rs)) in colours, nation
    for flat in (style.LAND, style.SEA, style.HILAND, style.PANEL, style.BATTLE, "#ffffff", "#000000"):
        assert style.hex_to_rgb(flat) in colours, flat
    assert len(colours) <= m.PALETTE_COLOURS + 1    # (+1: the palette's padding, if any)
