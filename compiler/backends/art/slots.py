"""Filling layout slots: look up a piece's layout, set text into a slot, report what did not fit.

Text is shrunk from the slot's size down to its min_size; text that still does not fit is cut
with "…" and a warning names the piece, the field, the slot and the layout. Colours that are not
colours are reported too (and drawn grey).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.backends.art.colours import RGB, parse_colour, readable
from compiler.backends.art.display import Anchor, Box, Sketch, Text
from compiler.backends.art.textfit import LINE_PITCH, Room, fit
from compiler.model.gamedata import GameData
from compiler.model.layouts import Layout, Slot

GREY: RGB = (128, 128, 128)


@dataclass(frozen=True, slots=True)
class Owner:
    """Whose face is drawn, for messages: e.g. "unit `i-corps`", and its layout."""

    what: str
    layout: Layout


def find_layout(game: GameData, layout_id: str) -> Layout:
    """The layout called `layout_id`; ValueError when the game has none of that name."""
    layout = game.layout(layout_id)
    if layout is None:
        known = ", ".join(lay.id for lay in game.layouts) or "none"
        raise ValueError(f"unknown layout `{layout_id}`; known: {known}")
    return layout


def face_slots(layout: Layout, face: str) -> list[Slot]:
    """The slots drawn on one face ("front"/"back"; other face names count as the front)."""
    side = "back" if face == "back" else "front"
    return [slot for slot in layout.slots if slot.face in ("both", side)]


def colour(sketch: Sketch, text: str, what: str, fallback: RGB = GREY) -> RGB:
    """A colour from the data; a warning and `fallback` when it is not #rrggbb."""
    parsed = parse_colour(text)
    if parsed is None:
        sketch.warnings.append(f"{what} `{text}` is not a colour (#rrggbb): drawn grey instead")
        return fallback
    return parsed


def slot_ink(sketch: Sketch, slot: Slot, box: Box, preferred: RGB, owner: Owner) -> RGB:
    """The slot's own colour if set, else `preferred` made readable on what lies under the box."""
    if slot.colour:
        what = f"colour of the `{slot.show}` slot of layout `{owner.layout.id}`"
        return colour(sketch, slot.colour, what, preferred)
    return readable(sketch.under(box), preferred)


@dataclass(frozen=True, slots=True)
class TextStyle:
    """How a text slot is set: colour, language, line limit, the field's name, top-aligned."""

    ink: RGB
    lang: str = "en"
    max_lines: int = 1
    field: str = ""
    top: bool = False


def text_slot(sketch: Sketch, slot: Slot, text: str, owner: Owner, style: TextStyle) -> None:
    """`text` fitted into the slot's box, aligned as the slot says; a warning when cut."""
    place_text(sketch, slot, sketch.box(slot.box), text, owner, style)


def place_text(
    sketch: Sketch, slot: Slot, box: Box, text: str, owner: Owner, style: TextStyle
) -> None:
    """`text` fitted into `box` (face units) with the slot's sizes and alignment."""
    if not text:
        return
    room = slot_room(slot, box, style.lang, style.max_lines, slot.bold)
    fitted = fit(text, room)
    if fitted.shortened:
        sketch.warnings.append(
            f"{style.field or slot.show} of {owner.what} does not fit the `{slot.show}` slot of "
            f"layout `{owner.layout.id}`: shortened to {fitted.shown!r}"
        )
    anchor, x = across(slot, box)
    pitch = min(fitted.height * LINE_PITCH, room.height / max(len(fitted.lines), 1))
    if style.top:
        first = box[1] + pitch / 2
    else:
        first = (box[1] + box[3]) / 2 - pitch * (len(fitted.lines) - 1) / 2
    for index, line in enumerate(fitted.lines):
        sketch.add(
            Text(
                x,
                first + index * pitch,
                line,
                fitted.height,
                slot.bold,
                style.ink,
                anchor,
                style.lang,
            )
        )


def slot_room(slot: Slot, box: Box, lang: str, max_lines: int, bold: bool = False) -> Room:
    """The room text has in `box` (face units) with the slot's sizes."""
    return Room(
        width=box[2] - box[0],
        height=box[3] - box[1],
        size=slot.size,
        min_size=min(slot.min_size, slot.size),
        bold=bold,
        lang=lang,
        max_lines=max_lines,
    )


def across(slot: Slot, box: Box) -> tuple[Anchor, float]:
    """Anchor and x of text lines for the slot's alignment."""
    if slot.align == "left":
        return "lm", box[0]
    if slot.align == "right":
        return "rm", box[2]
    return "mm", (box[0] + box[2]) / 2


def unused(sketch: Sketch, slot: Slot, owner: Owner) -> None:
    """A warning for a slot that means nothing on this kind of piece."""
    sketch.warnings.append(
        f"slot `{slot.show}` of layout `{owner.layout.id}` shows nothing on {owner.what}"
    )
