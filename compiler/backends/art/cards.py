"""Card images (poker proportions): the face with name, number, class, values and text; the back.

Layout in fractions of the card: a frame in the deck colour with the name on it, a cream panel
with the category line, a grid of value boxes (numbers and digit strings, e.g. Pen 7 / Rng 2000),
the other fields as "Key: value" lines and the card text wrapped into what room is left.
Fields ending in _note, _source, _inferred or _known describe the data, not the card, and are
not printed; neither are true/false flags.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from compiler.backends.art.canvas import Canvas, draw_lines, draw_text
from compiler.backends.art.colours import RGB, darker, lighter, readable, rgb, rgba
from compiler.backends.art.fonts import MIN_SIZE, Font, fit_lines, fit_text, line_height
from compiler.model.cards import Card, Deck
from compiler.model.common import Scalar
from compiler.model.gamedata import GameData

PANEL_COLOUR: RGB = (248, 244, 232)
PANEL_INK: RGB = (25, 25, 25)
DEFAULT_DECK_COLOUR = "#404040"
META_SUFFIXES = ("_note", "_source", "_inferred", "_known")
MAX_BOXES = 4
TITLE_BAND = (0.0, 0.0, 1.0, 0.135)
PANEL = (0.05, 0.135, 0.95, 0.96)


@dataclass(frozen=True, slots=True)
class CardFields:
    """A card's printed fields split into value boxes and text lines."""

    boxes: list[tuple[str, str]]
    lines: list[str]


def printable(key: str, value: Scalar) -> bool:
    """Whether a field is printed: not a flag and not a note about the data."""
    return not isinstance(value, bool) and not key.endswith(META_SUFFIXES)


def boxed(value: Scalar) -> bool:
    """Whether a field goes into a value box: a number or a string of digits."""
    if isinstance(value, int | float):
        return True
    return value.lstrip("+-").isdigit()


def humanise(text: str) -> str:
    """An id-like key or value as words: free_action → free action."""
    return text.replace("_", " ")


def split_fields(card: Card) -> CardFields:
    """The card's printed fields: up to four value boxes, the rest as lines."""
    boxes: list[tuple[str, str]] = []
    lines: list[str] = []
    for key, value in card.fields.items():
        if not printable(key, value):
            continue
        if boxed(value) and len(boxes) < MAX_BOXES:
            boxes.append((humanise(key).upper(), _figure(value)))
        else:
            lines.append(f"{humanise(key).capitalize()}: {humanise(str(value))}")
    return CardFields(boxes, lines)


def _figure(value: Scalar) -> str:
    """A number as printed: whole floats without a decimal point."""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def deck_colour(game: GameData, deck_id: str) -> RGB:
    """The deck's colour, grey-black for an unknown deck."""
    deck = game.deck(deck_id)
    return rgb(deck.colour if deck is not None else DEFAULT_DECK_COLOUR)


def card_face(
    game: GameData, card: Card, width: int = 150, height: int = 210, lang: str = "en"
) -> Image.Image:
    """The face of a card, `width` × `height` RGBA."""
    colour = deck_colour(game, card.deck)
    canvas = Canvas(width, height)
    radius = canvas.px(0.05)
    canvas.draw.rounded_rectangle(canvas.box((0, 0, 1, 1)), radius=radius, fill=rgba(colour))
    canvas.draw.rounded_rectangle(
        canvas.box(PANEL), radius=canvas.px(0.025), fill=rgba(PANEL_COLOUR)
    )
    fields = split_fields(card)
    boxes_bottom = _box_grid(canvas, fields.boxes, colour)
    image = canvas.finish()
    _title(image, card, colour, lang)
    _class_line(image, card, lang)
    _box_text(image, fields.boxes, lang)
    body = [*fields.lines, card.text.get(lang)]
    _body(image, [line for line in body if line], boxes_bottom, lang)
    return image


def _title(image: Image.Image, card: Card, colour: RGB, lang: str) -> None:
    """Number at the left of the title band and the name, both on the deck colour."""
    width, height = image.size
    ink = readable(colour, (255, 255, 255))
    centre_y = (TITLE_BAND[1] + TITLE_BAND[3]) / 2 * height + 1
    left = width * 0.06
    if card.number is not None:
        face, number = fit_text(str(card.number), width * 0.16, round(width * 0.085), bold=True)
        draw_text(image, (left + width * 0.08, centre_y), number, face, ink)
        left += width * 0.18
    room = width * 0.94 - left
    face, name = fit_text(card.name.get(lang), room, round(width * 0.095), lang, bold=True)
    draw_text(image, (left + room / 2, centre_y), name, face, ink)


def _class_line(image: Image.Image, card: Card, lang: str) -> None:
    """Category and type code under the title, small capitals."""
    width, height = image.size
    text = " · ".join(part for part in (card.category.upper(), card.type) if part)
    if not text:
        return
    face, text = fit_text(text, width * 0.84, round(width * 0.065), lang)
    draw_text(image, (width / 2, height * 0.175), text, face, lighter(PANEL_INK, 0.35))


def _grid_cells(count: int) -> list[tuple[float, float, float, float]]:
    """Boxes of a two-column value grid in card fractions, starting under the class line."""
    cells = []
    for index in range(count):
        row, column = divmod(index, 2)
        x0 = 0.1 + column * 0.42
        y0 = 0.21 + row * 0.145
        cells.append((x0, y0, x0 + 0.38, y0 + 0.125))
    return cells


def _box_grid(canvas: Canvas, boxes: list[tuple[str, str]], colour: RGB) -> float:
    """Frames of the value boxes; returns the bottom of the grid (card fraction)."""
    cells = _grid_cells(len(boxes))
    for cell in cells:
        canvas.draw.rounded_rectangle(
            canvas.box(cell),
            radius=canvas.px(0.03),
            fill=rgba(lighter(colour, 0.8)),
            outline=rgba(darker(colour, 0.1)),
            width=canvas.px(1 / 150),
        )
    return max((cell[3] for cell in cells), default=0.2)


def _box_text(image: Image.Image, boxes: list[tuple[str, str]], lang: str) -> None:
    """Key small at the top of each value box, the value big below it."""
    width, height = image.size
    for (key, value), cell in zip(boxes, _grid_cells(len(boxes)), strict=True):
        cx = (cell[0] + cell[2]) / 2 * width
        room = (cell[2] - cell[0]) * width * 0.9
        key_face, key = fit_text(key, room, round(width * 0.055), lang)
        draw_text(image, (cx, (cell[1] + 0.025) * height), key, key_face, PANEL_INK)
        value_face, value = fit_text(value, room, round(width * 0.11), lang, bold=True)
        draw_text(image, (cx, (cell[1] + 0.08) * height), value, value_face, PANEL_INK)


def _body(image: Image.Image, paragraphs: list[str], top: float, lang: str) -> None:
    """Field lines and card text wrapped into the panel below the value boxes."""
    if not paragraphs:
        return
    width, height = image.size
    area_top = (top + 0.025) * height
    area_bottom = (PANEL[3] - 0.02) * height
    room_w = (PANEL[2] - PANEL[0] - 0.08) * width
    room_h = area_bottom - area_top
    text = "\n".join(paragraphs)
    face, lines = fit_lines(
        text, room_w, room_h, round(width * 0.085), lang, min_size=MIN_SIZE, max_lines=40
    )
    pitch = _pitch(face)
    first = area_top + pitch / 2
    left = PANEL[0] * width + width * 0.04
    for index, line in enumerate(lines):
        _left_text(image, (left, first + index * pitch), line, face)


def _pitch(face: Font) -> float:
    """Line pitch of body text."""
    return float(line_height(face))


def _left_text(image: Image.Image, at: tuple[float, float], text: str, face: Font) -> None:
    """Left-aligned body text."""
    half = face.getlength(text) / 2
    draw_text(image, (at[0] + half, at[1]), text, face, PANEL_INK)


def deck_back(
    game: GameData, deck: Deck, width: int = 150, height: int = 210, lang: str = "en"
) -> Image.Image:
    """The back of a deck's cards: the deck colour, a frame and the back text (or deck name)."""
    colour = rgb(deck.colour)
    canvas = Canvas(width, height)
    canvas.draw.rounded_rectangle(
        canvas.box((0, 0, 1, 1)), radius=canvas.px(0.05), fill=rgba(colour)
    )
    _diagonals(canvas, lighter(colour, 0.08))
    canvas.draw.rounded_rectangle(
        canvas.box((0.07, 0.05, 0.93, 0.95)),
        radius=canvas.px(0.03),
        outline=rgba(lighter(colour, 0.45)),
        width=canvas.px(2 / 150),
    )
    image = canvas.finish()
    text = deck.back.get(lang) or deck.name.get(lang)
    ink = readable(colour, (255, 255, 255))
    face, lines = fit_lines(
        text, width * 0.76, height * 0.6, round(width * 0.13), lang, bold=True, max_lines=4
    )
    draw_lines(image, (width / 2, height / 2), lines, face, ink)
    return image


def _diagonals(canvas: Canvas, colour: RGB) -> None:
    """A faint diagonal texture over the back, kept inside the rounded corners."""
    w, h = canvas.image.size
    texture = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(texture)
    step = canvas.px(0.06)
    for offset in range(-h, w, step):
        draw.line((offset, h, offset + h, 0), fill=rgba(colour), width=canvas.px(0.012))
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        canvas.box((0, 0, 1, 1)), radius=canvas.px(0.05), fill=255
    )
    canvas.image.paste(texture, (0, 0), Image.composite(texture, Image.new("RGBA", (w, h)), mask))
