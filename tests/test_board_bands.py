"""Boards drawn and encoded in bands are byte for byte the boards drawn whole; scaled in bands,
they are the whole board scaled, to a level of rounding."""

from __future__ import annotations

from functools import partial

import pytest
from PIL import Image, ImageChops

from compiler.backends.art.bands import banded_png, banded_scaled
from compiler.backends.art.board import board_png, scaled_board
from compiler.backends.art.png import encode_png
from compiler.backends.vassal.boards import PAPER, paint_board, render_board
from compiler.backends.vassal.geometry import layout_map
from tests.conftest import seed_game as game


@pytest.mark.parametrize("name", ["asia_engulfed", "napoleon", "gcacw"])
def test_banded_board_is_the_whole_board(name: str) -> None:
    data = game(name)
    layout = layout_map(data.maps[0], None)
    whole = encode_png(render_board(data, layout))
    assert board_png(data, layout) == whole
    # Small bands: many band edges cross hexes, areas, roads and text.
    size = (layout.width, layout.height)
    assert banded_png(size, PAPER, lambda draw: paint_board(data, layout, draw), 97) == whole


def test_unknown_draw_call_falls_back() -> None:
    assert banded_png((10, 10), PAPER, lambda draw: draw.arc([0, 0, 5, 5], 0, 90)) is None


@pytest.mark.parametrize(("name", "rows"), [("asia_engulfed", 97), ("gcacw", 512)])
def test_scaled_bands_are_the_whole_board_scaled(name: str, rows: int) -> None:
    data = game(name)
    layout = layout_map(data.maps[0], None)
    size = (layout.width // 5, layout.height // 5)
    whole = render_board(data, layout).resize(size, Image.Resampling.LANCZOS)
    paint = partial(paint_board, data, layout)
    banded = banded_scaled((layout.width, layout.height), PAPER, paint, size, rows)
    assert banded is not None and banded.size == size
    # The filter's weights come from each band's own offsets: a level of rounding at most.
    extrema = ImageChops.difference(whole, banded).getextrema()
    assert max(band[1] for band in extrema if isinstance(band, tuple)) <= 1
    default_bands = banded_scaled((layout.width, layout.height), PAPER, paint, size)
    assert default_bands is not None  # a board taller than a band is scaled in bands
    assert scaled_board(data, layout, size).tobytes() == default_bands.tobytes()


def test_scaled_bands_fall_back_on_an_unknown_draw_call() -> None:
    assert (
        banded_scaled((10, 10), PAPER, lambda draw: draw.arc([0, 0, 5, 5], 0, 90), (5, 5)) is None
    )
