"""Boards drawn and encoded in bands are byte for byte the boards drawn whole."""

from __future__ import annotations

import pytest

from compiler.backends.art.bands import banded_png
from compiler.backends.art.board import board_png
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
