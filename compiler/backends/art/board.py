"""A map's board as PNG bytes, drawn and encoded in bands when it is large.

The drawing is `compiler.backends.vassal.boards.render_board`'s, step for step: its steps are
painted through `bands.banded_png`, so no board is ever held whole (the 5349×5994 board of
Twilight in the East took 92 MB as an image). A board on given art, or one a band holds,
is drawn whole as before. The bytes are those of `png_bytes(render_board(...))` either way
(tests/test_board_bands.py compares them on every seed board).
"""

from __future__ import annotations

from PIL import Image

from compiler.backends.art.bands import BAND_ROWS, banded_png, banded_scaled
from compiler.backends.art.png import encode_png
from compiler.backends.vassal import boards
from compiler.backends.vassal.geometry import MapLayout
from compiler.model.gamedata import GameData


def board_png(game: GameData, layout: MapLayout, art: Image.Image | None = None) -> bytes:
    """The board of one map as PNG bytes (see `boards.render_board` for what is drawn)."""
    if art is None and layout.height > BAND_ROWS:
        data = banded_png(
            (layout.width, layout.height),
            boards.PAPER,
            lambda draw: boards.paint_board(game, layout, draw),
        )
        if data is not None:
            return data
    return encode_png(boards.render_board(game, layout, art))


def scaled_board(
    game: GameData, layout: MapLayout, size: tuple[int, int], art: Image.Image | None = None
) -> Image.Image:
    """The board `board_png` encodes, scaled to `size` (Lanczos), drawn band by band when it
    is large, as `board_png` draws it."""
    if art is None and layout.height > BAND_ROWS:
        image = banded_scaled(
            (layout.width, layout.height),
            boards.PAPER,
            lambda draw: boards.paint_board(game, layout, draw),
            size,
        )
        if image is not None:
            return image
    full = boards.render_board(game, layout, art)
    return full.resize(size, Image.Resampling.LANCZOS)
