"""The seam between the sheets and the art package: piece faces as vector drawings.

The faces come from `compiler.backends.art.drawing` (one layout-driven display list per face,
the same one the module's PNGs are rasterised from) and are drawn by
`compiler.backends.art.vector.draw_vector`.
"""

from __future__ import annotations

from typing import Literal

from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped,unused-ignore]

from compiler.backends.art.drawing import (
    Drawing,
    block_drawing,
    card_drawing,
    deck_back_drawing,
    marker_drawing,
    unit_drawing,
)
from compiler.backends.art.vector import draw_vector, register_fonts
from compiler.model.cards import Card, Deck
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, Unit

Side = Literal["front", "back"]
Face = Drawing


def unit_face(game: GameData, unit: Unit, side: Side, lang: str) -> Face:
    """A unit counter's front or back."""
    return unit_drawing(game, unit, side, lang=lang)


def block_face(game: GameData, unit: Unit, lang: str) -> Face:
    """A block's label (blocks have no printed back)."""
    return block_drawing(game, unit, "label", lang=lang)


def marker_face(game: GameData, marker: Marker, side: Side, lang: str) -> Face:
    """A marker's front or back."""
    return marker_drawing(game, marker, side, lang=lang)


def card_face(game: GameData, card: Card, lang: str) -> Face:
    """A card's face."""
    return card_drawing(game, card, lang=lang)


def deck_back_face(game: GameData, deck: Deck, lang: str) -> Face:
    """The back of every card of a deck."""
    return deck_back_drawing(game, deck, lang=lang)


def prepare(canvas: Canvas) -> None:
    """Make the fonts the faces use available to this canvas."""
    del canvas
    register_fonts()


def draw_face(canvas: Canvas, face: Face, x: float, y: float, height: float) -> None:
    """Draw a face with its bottom-left corner at (x, y), `height` points tall."""
    draw_vector(canvas, face, x, y, height)
