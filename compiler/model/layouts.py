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
    """One box of a layout, under a layout's `slots:`: which field of the piece goes where on the
    face, and how large its text is."""

    show: SlotField = field(metadata=doc("What goes in the box.", example="values"))
    box: tuple[float, float, float, float] = field(
        metadata=doc(
            "x0, y0, x1, y1 as fractions of the face (0,0 is top-left).",
            example="[0.05, 0.7, 0.95, 0.97]",
        )
    )
    align: Literal["left", "centre", "right"] = field(
        default="centre", metadata=doc("How the text lines up in the box.", example="left")
    )
    size: float = field(
        default=0.2, metadata=doc("Text height as a fraction of the face.", example="0.27")
    )
    min_size: float = field(
        default=0.09,
        metadata=doc("Smallest text height before text is reported as too long.", example="0.07"),
    )
    bold: bool = field(default=False, metadata=doc("Bold text.", example="true"))
    colour: str = field(
        default="", metadata=doc("Text colour #rrggbb (default: the piece's).", example="'#b8282e'")
    )
    face: Literal["both", "front", "back"] = field(
        default="both",
        metadata=doc("The face the slot is drawn on: both, front or back.", example="back"),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout(Node):
    """A face layout under `layouts:` for counters, blocks, markers or cards: a list of slots.
    The shipped templates (templates/layouts.yaml) apply unless a game defines a layout of the
    same id."""

    id: str = field(
        metadata=doc(
            "Layout id, referenced by unit types, marker sets and decks.",
            example="standard-counter",
        )
    )
    name: Text = field(
        default=NO_TEXT,
        metadata=doc("Layout name.", example="{en: Standard unit counter, ja: 標準ユニット駒}"),
    )
    kind: Literal["counter", "block", "marker", "card"] = field(
        default="counter", metadata=doc("What the layout is for.", example="card")
    )
    width: float = field(
        default=1.0, metadata=doc("Face width relative to its height.", example="0.714")
    )
    slots: tuple[Slot, ...] = field(
        metadata=doc(
            "The boxes and what goes in them.",
            example="[{show: name, box: [0.05, 0.48, 0.95, 0.7], size: 0.15}]",
        )
    )
