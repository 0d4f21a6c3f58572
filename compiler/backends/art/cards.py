"""Cards (poker proportions) from their layout: the face with number, name, class, value boxes and
text on a cream panel inside a frame in the deck colour; the back with the deck's back text.

Fields ending in _note, _source, _inferred or _known describe the data, not the card, and are
not printed; neither are true/false flags. Numbers, digit strings and short capital codes go
into value boxes (up to four, e.g. PEN 7 / RNG 2000 / RNG PB); on a card without text or
abilities the other fields become "Key: value" lines in the text slot (a card with its own
words says them there). The text slot holds the abilities (bold, one a line), then the text,
wrapped and shrunk together down to the slot's min_size; what still does not fit is cut with
"…" and reported. A card without a number lets its name use the number's room; the text
starts under the value boxes there are. `card_face` and `deck_back` rasterize the drawings.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from compiler.backends.art.colours import RGB, darker, lighter, readable
from compiler.backends.art.display import Box, Drawing, Line, Rect, Sketch, Text
from compiler.backends.art.raster import rasterize_to
from compiler.backends.art.slots import (
    Owner,
    TextStyle,
    across,
    colour,
    face_slots,
    find_layout,
    place_text,
    slot_ink,
    slot_room,
    unused,
)
from compiler.backends.art.textfit import LINE_PITCH, Paragraph, fit_block
from compiler.model.cards import Card, Deck
from compiler.model.common import Scalar
from compiler.model.gamedata import GameData
from compiler.model.layouts import Layout, Slot

PANEL_COLOUR: RGB = (248, 244, 232)
PANEL_INK: RGB = (25, 25, 25)
DEFAULT_DECK_COLOUR = "#404040"
META_SUFFIXES = ("_note", "_source", "_inferred", "_known")
MAX_BOXES = 4
CODE_LENGTH = 3
"""A string of at most this many capitals and digits (PB, 2D) is a code and goes into a box."""
GRID_GAP = 0.02
MAX_ROW = 0.125
PARAGRAPH_GAP = 0.35
"""Space above each paragraph of a card's text, in lines."""
TEXT_LINES = 40
TITLE_SHOWS = ("number", "name")


@dataclass(frozen=True, slots=True)
class CardFields:
    """A card's printed fields split into value boxes and text lines."""

    boxes: list[tuple[str, str]]
    lines: list[str]


def printable(key: str, value: Scalar) -> bool:
    """Whether a field is printed: not a flag and not a note about the data."""
    return not isinstance(value, bool) and not key.endswith(META_SUFFIXES)


def boxed(value: Scalar) -> bool:
    """Whether a field goes into a value box: a number, a string of digits or a short code
    in capitals (PB)."""
    if isinstance(value, int | float):
        return True
    if value.lstrip("+-").isdigit():
        return True
    return 0 < len(value) <= CODE_LENGTH and value.isalnum() and value == value.upper()


def humanise(text: str) -> str:
    """An id-like key or value as words: free_action → free action."""
    return text.replace("_", " ")


def split_fields(card: Card) -> CardFields:
    """The card's printed fields: up to four value boxes, the rest as lines (none when the
    card has text or abilities of its own)."""
    boxes: list[tuple[str, str]] = []
    lines: list[str] = []
    worded = bool(card.text.en or card.text.ja or card.abilities)
    for key, value in card.fields.items():
        if not printable(key, value):
            continue
        if boxed(value) and len(boxes) < MAX_BOXES:
            boxes.append((humanise(key).upper(), _figure(value)))
        elif not worded:
            lines.append(f"{humanise(key).capitalize()}: {humanise(str(value))}")
    return CardFields(boxes, lines)


def _figure(value: Scalar) -> str:
    """A number as printed: whole floats without a decimal point."""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def card_layout(game: GameData, deck_id: str) -> Layout:
    """The deck's layout, else the standard card."""
    deck = game.deck(deck_id)
    return find_layout(game, deck.layout if deck is not None and deck.layout else "standard-card")


def _deck_colour(game: GameData, deck_id: str, sketch: Sketch) -> RGB:
    """The deck's colour (a warning when it is not a colour), grey-black for an unknown deck."""
    deck = game.deck(deck_id)
    text = deck.colour if deck is not None else DEFAULT_DECK_COLOUR
    return colour(sketch, text, f"colour of deck `{deck_id}`")


# -- the face -------------------------------------------------------------------------------


def card_drawing(game: GameData, card: Card, lang: str = "en") -> Drawing:
    """The face of a card laid out by its deck's layout."""
    layout = card_layout(game, card.deck)
    sketch = Sketch(layout.width, (64, 64, 64))
    deck_colour = _deck_colour(game, card.deck, sketch)
    sketch.background = deck_colour
    w = layout.width
    sketch.add(Rect((0, 0, w, 1), fill=deck_colour, radius=0.035))
    slots = face_slots(layout, "front")
    panel = (0.04 * w, _panel_top(slots), 0.96 * w, 0.975)
    sketch.add(Rect(panel, fill=PANEL_COLOUR, radius=0.018))
    fields = split_fields(card)
    owner = Owner(f"card `{card.id}`", layout)
    for slot in slots:
        _card_slot(sketch, slot, _CardFace(card, fields, slots, lang), owner)
    return sketch.finish()


def _panel_top(slots: list[Slot]) -> float:
    """The cream panel starts under the title slots (number and name)."""
    title = [slot.box[3] for slot in slots if slot.show in TITLE_SHOWS and slot.box[3] < 0.3]
    return max(title, default=0.02) + 0.01


@dataclass(frozen=True, slots=True)
class _CardFace:
    """What a card face shows, with the layout's slots (to borrow an empty slot's room)."""

    card: Card
    fields: CardFields
    slots: list[Slot]
    lang: str

    def slot(self, show: str) -> Slot | None:
        """The first slot showing `show`."""
        return next((slot for slot in self.slots if slot.show == show), None)


def _card_slot(sketch: Sketch, slot: Slot, face: _CardFace, owner: Owner) -> None:
    """Fill one slot of a card face."""
    card = face.card
    box = sketch.box(slot.box)
    preferred = (255, 255, 255) if slot.show in TITLE_SHOWS else PANEL_INK
    ink = slot_ink(sketch, slot, box, preferred, owner)
    if slot.show == "fields":
        _value_boxes(sketch, slot, box, face, owner)
        return
    if slot.show == "text":
        _text_block(sketch, slot, _text_box(sketch, box, face), face, (ink, owner))
        return
    if slot.show == "name":
        number = face.slot("number")
        if card.number is None and number is not None:
            box = _union(box, sketch.box(number.box))
        text = card.name.get(face.lang)
    elif slot.show == "number":
        text = "" if card.number is None else str(card.number)
    elif slot.show == "category":
        parts = [card.category.upper()] + ([card.type] if face.slot("type") is None else [])
        text = " · ".join(part for part in parts if part)
    elif slot.show == "type":
        text = card.type
    else:
        unused(sketch, slot, owner)
        return
    lines = 2 if slot.show == "name" else 1  # a long name may take two lines, room allowing
    place_text(sketch, slot, box, text, owner, TextStyle(ink, face.lang, lines, slot.show))


def _text_box(sketch: Sketch, box: Box, face: _CardFace) -> Box:
    """The text slot, grown upwards into the value boxes' room they do not use."""
    fields = face.slot("fields")
    if fields is None:
        return box
    grid = _grid(sketch.box(fields.box), len(face.fields.boxes))
    top = grid[-1][3] + GRID_GAP if grid else fields.box[1]
    return (box[0], min(box[1], top), box[2], box[3])


def _text_block(
    sketch: Sketch, slot: Slot, box: Box, face: _CardFace, how: tuple[RGB, Owner]
) -> None:
    """Abilities (bold), field lines and text, fitted together into the box from its top."""
    ink, owner = how
    lang = face.lang
    paragraphs = [Paragraph(ability.get(lang), bold=True) for ability in face.card.abilities]
    paragraphs += [Paragraph(line) for line in face.fields.lines]
    text = face.card.text.get(lang).splitlines()
    paragraphs += [Paragraph(part, gap=PARAGRAPH_GAP) for part in text]
    kept = tuple(para for para in paragraphs if para.text.strip())
    if not kept:
        return
    fitted = fit_block(kept, slot_room(slot, box, lang, TEXT_LINES))
    if fitted.shortened:
        sketch.warnings.append(
            f"text of {owner.what} does not fit the `text` slot of layout "
            f"`{owner.layout.id}`: shortened to {fitted.shown!r}"
        )
    anchor, x = across(slot, box)
    pitch = fitted.height * LINE_PITCH
    for line in fitted.lines:
        y = box[1] + pitch * (line.row + 0.5)
        sketch.add(Text(x, y, line.text, fitted.height, line.bold, ink, anchor, lang))


def _union(first: Box, second: Box) -> Box:
    """The smallest box holding both."""
    return (
        min(first[0], second[0]),
        min(first[1], second[1]),
        max(first[2], second[2]),
        max(first[3], second[3]),
    )


def _value_boxes(sketch: Sketch, slot: Slot, box: Box, face: _CardFace, owner: Owner) -> None:
    """Up to four value boxes in two columns: the key small at the top, the value big below."""
    boxes = face.fields.boxes
    if not boxes:
        return
    deck_colour = sketch.background
    for (key, value), cell in zip(boxes, _grid(box, len(boxes)), strict=True):
        fill = lighter(deck_colour, 0.8)
        sketch.add(Rect(cell, fill=fill, outline=darker(deck_colour, 0.1), line_width=0.005))
        ink = readable(fill, PANEL_INK)
        height = cell[3] - cell[1]
        pad = (cell[2] - cell[0]) * 0.06
        key_box = (cell[0] + pad, cell[1], cell[2] - pad, cell[1] + height * 0.38)
        value_box = (cell[0] + pad, cell[1] + height * 0.32, cell[2] - pad, cell[3])
        key_slot = _resized(slot, slot.size * 0.6, bold=False)
        value_slot = _resized(slot, slot.size * 1.5, bold=True)
        style = TextStyle(ink, face.lang, 1, f"field `{key.lower()}`")
        place_text(sketch, key_slot, key_box, key, owner, style)
        place_text(sketch, value_slot, value_box, value, owner, style)


def _resized(slot: Slot, size: float, bold: bool) -> Slot:
    """A copy of the slot with another text size and weight."""
    return Slot(
        show=slot.show,
        box=slot.box,
        align="centre",
        size=size,
        min_size=min(slot.min_size, size),
        bold=bold,
        colour=slot.colour,
        face=slot.face,
    )


def _grid(box: Box, count: int) -> list[Box]:
    """Cells of a two-column grid filling `box`, rows at most 0.125 tall."""
    rows = (count + 1) // 2
    gap = GRID_GAP
    cell_w = (box[2] - box[0] - gap) / 2
    cell_h = min(MAX_ROW, (box[3] - box[1] - gap * (rows - 1)) / max(rows, 1))
    cells = []
    for index in range(count):
        row, column = divmod(index, 2)
        x0 = box[0] + column * (cell_w + gap)
        y0 = box[1] + row * (cell_h + gap)
        cells.append((x0, y0, x0 + cell_w, y0 + cell_h))
    return cells


# -- the back -------------------------------------------------------------------------------


def deck_back_drawing(game: GameData, deck: Deck, lang: str = "en") -> Drawing:
    """The back of a deck's cards: the deck colour, a texture, a frame, the back text or name."""
    layout = find_layout(game, deck.layout or "standard-card")
    w = layout.width
    sketch = Sketch(w, (64, 64, 64))
    deck_colour = colour(sketch, deck.colour, f"colour of deck `{deck.id}`")
    sketch.background = deck_colour
    sketch.add(Rect((0, 0, w, 1), fill=deck_colour, radius=0.035))
    texture = lighter(deck_colour, 0.08)
    for line in _diagonals((0.012, 0.012, w - 0.012, 0.988), 0.045):
        sketch.add(Line(line, texture, 0.008))
    frame = (0.07 * w, 0.05, 0.93 * w, 0.95)
    sketch.add(Rect(frame, outline=lighter(deck_colour, 0.45), line_width=0.0095, radius=0.02))
    text = deck.back.get(lang) or deck.name.get(lang)
    ink = readable(deck_colour, (255, 255, 255))
    slot = Slot(show="back-text", box=(0.12, 0.2, 0.88, 0.8), size=0.095, min_size=0.04, bold=True)
    owner = Owner(f"deck `{deck.id}`", layout)
    style = TextStyle(ink, lang, 4, "back text")
    place_text(sketch, slot, sketch.box(slot.box), text, owner, style)
    return sketch.finish()


def _diagonals(box: Box, step: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """45° lines (lower left to upper right) `step` apart, clipped to `box`."""
    x0, y0, x1, y1 = box
    lines = []
    offset = x0 - (y1 - y0)
    while offset < x1:
        # the line x = offset + (y1 - y): clip y to where x lies inside the box
        top = max(y0, y1 - (x1 - offset))
        bottom = min(y1, y1 - (x0 - offset))
        if bottom > top:
            lines.append(((offset + (y1 - bottom), bottom), (offset + (y1 - top), top)))
        offset += step
    return lines


# -- raster images (the VASSAL module) --------------------------------------------------------


def card_face(
    game: GameData, card: Card, width: int = 150, height: int = 210, lang: str = "en"
) -> Image.Image:
    """The face of a card, `width` × `height` RGBA."""
    return rasterize_to(card_drawing(game, card, lang), width, height)


def deck_back(
    game: GameData, deck: Deck, width: int = 150, height: int = 210, lang: str = "en"
) -> Image.Image:
    """The back of a deck's cards, `width` × `height` RGBA."""
    return rasterize_to(deck_back_drawing(game, deck, lang), width, height)
