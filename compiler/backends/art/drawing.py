"""Piece faces as one layout-driven display list, for the raster (PNG) and vector (PDF) back ends.

A `Drawing` is a face `width` wide and 1.0 tall, its ops in face units (y down) and the warnings
raised while laying it out (text shortened to fit, colours that are not colours). Builders:

- `unit_drawing(game, unit, "front" | "back", lang)`: a unit counter;
- `block_drawing(game, unit, "label" | "back", lang)`: a block's label or its back;
- `marker_drawing(game, marker, "front" | "back", lang)`: a marker;
- `card_drawing(game, card, lang)` and `deck_back_drawing(game, deck, lang)`: cards;
- `step_drawing(lost)`: the transparent step-loss badge.

Each piece uses its layout (unit type, marker set or deck `layout:`, else the standard one).
An unknown symbol or layout raises ValueError; a missing font raises fonts.MissingFont.
"""

from __future__ import annotations

from compiler.backends.art.cards import card_drawing, deck_back_drawing
from compiler.backends.art.counters import (
    block_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
    unit_layout,
)
from compiler.backends.art.display import (
    Anchor,
    Box,
    Drawing,
    Ellipse,
    Line,
    Op,
    Point,
    Polygon,
    Rect,
    Text,
)
from compiler.backends.art.fonts import MissingFont

__all__ = [
    "Anchor",
    "Box",
    "Drawing",
    "Ellipse",
    "Line",
    "MissingFont",
    "Op",
    "Point",
    "Polygon",
    "Rect",
    "Text",
    "block_drawing",
    "card_drawing",
    "deck_back_drawing",
    "marker_drawing",
    "step_drawing",
    "unit_drawing",
    "unit_layout",
]
