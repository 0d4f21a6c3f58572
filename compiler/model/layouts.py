"""Counter, block, marker and card layouts as data: where each field goes on a face.

A layout is a list of slots; each slot puts one field (name, values, symbol ...) into a box
given in fractions of the face (0,0 top-left, 1,1 bottom-right). Reusable layouts live in
templates/*.yaml; a game's own layout of the same id replaces the template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Text, doc

SlotField = Literal[
    "label",
    "size",
    "symbol",
    "name",
    "values",
    "ratings",
    "value",
    "kind",
    "back-text",
    "number",
    "category",
    "type",
    "fields",
    "text",
    "pips",
    "band",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Slot(Node):
    show: SlotField = field(metadata=doc("What goes in the box."))
    box: tuple[float, float, float, float] = field(
        metadata=doc("x0, y0, x1, y1 as fractions of the face (0,0 is top-left).")
    )
    align: Literal["left", "centre", "right"] = field(default="centre", metadata=doc("Align."))
    size: float = field(default=0.2, metadata=doc("Text height as a fraction of the face."))
    min_size: float = field(
        default=0.09, metadata=doc("Smallest text height before text is reported as too long.")
    )
    bold: bool = field(default=False, metadata=doc("Bold text."))
    colour: str = field(default="", metadata=doc("Text colour #rrggbb (default: the piece's)."))
    face: Literal["both", "front", "back"] = field(default="both", metadata=doc("Which side."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout(Node):
    id: str = field(metadata=doc("Layout id, referenced by unit types, marker sets and decks."))
    name: Text = field(default=NO_TEXT, metadata=doc("Layout name."))
    kind: Literal["counter", "block", "marker", "card"] = field(
        default="counter", metadata=doc("What the layout is for.")
    )
    width: float = field(default=1.0, metadata=doc("Face width relative to its height."))
    slots: tuple[Slot, ...] = field(metadata=doc("The boxes and what goes in them."))
