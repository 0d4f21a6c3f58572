"""Piece images for the VASSAL module: unit counters, blocks, markers, cards, the step-loss badge
and deterministic PNG encoding. Each is a layout-driven Drawing (drawing.py) rasterized.

Counters and markers are square, `size` pixels a side; cards are `width` × `height`.
"""

from __future__ import annotations

from PIL import Image

from compiler.backends.art.cards import card_face, deck_back
from compiler.backends.art.counters import (
    block_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
)
from compiler.backends.art.png import encode_png
from compiler.backends.art.raster import rasterize_to
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, Unit

__all__ = [
    "block_faces",
    "card_face",
    "counter_faces",
    "deck_back",
    "marker_faces",
    "png_bytes",
    "step_overlay",
]


def counter_faces(
    game: GameData, unit: Unit, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image | None]:
    """Front and back (None without a back) of a unit counter, `size` × `size` RGBA."""
    front = rasterize_to(unit_drawing(game, unit, "front", lang), size, size)
    if unit.back is None:
        return front, None
    return front, rasterize_to(unit_drawing(game, unit, "back", lang), size, size)


def block_faces(
    game: GameData, unit: Unit, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image]:
    """A block's label face (strength pips on each edge) and its plain back."""
    label = rasterize_to(block_drawing(game, unit, "label", lang), size, size)
    return label, rasterize_to(block_drawing(game, unit, "back", lang), size, size)


def marker_faces(
    game: GameData, marker: Marker, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image | None]:
    """Front and back (None unless the set has back text) of a marker."""
    front = rasterize_to(marker_drawing(game, marker, "front", lang), size, size)
    if not marker.set.back.get(lang):
        return front, None
    return front, rasterize_to(marker_drawing(game, marker, "back", lang), size, size)


def step_overlay(lost: int, size: int = 64) -> Image.Image:
    """A transparent image with a red "−n" step-loss badge in the top right corner."""
    return rasterize_to(step_drawing(lost), size, size)


def png_bytes(image: Image.Image) -> bytes:
    """Deterministic PNG: no metadata (no text chunks, ICC profile or dpi), fixed settings."""
    return encode_png(image)
