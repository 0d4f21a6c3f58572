"""Piece images: unit counters, blocks, markers, cards, the step-loss badge and PNG encoding.

Every image is RGBA. Counters and markers are square, `size` pixels a side; cards are
`width` × `height`. Shapes are drawn supersampled (see canvas.py), text at the final size.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image

from compiler.backends.art.canvas import Canvas, draw_lines, draw_text
from compiler.backends.art.cards import card_face, deck_back
from compiler.backends.art.colours import (
    RGB,
    WHITE,
    contrast,
    darker,
    lighter,
    readable,
    rgb,
    rgba,
)
from compiler.backends.art.faces import (
    Palette,
    band_colour,
    figure,
    strength_pips,
    top_mark,
    unit_palette,
    unit_symbol,
    unit_values,
)
from compiler.backends.art.fonts import (
    MIN_SIZE,
    Font,
    fit_lines,
    fit_text,
    line_height,
    text_width,
)
from compiler.backends.art.symbols import draw_symbol
from compiler.model.common import Scalar
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, Unit

__all__ = [
    "block_faces",
    "card_face",
    "counter_faces",
    "deck_back",
    "fit_text",
    "marker_faces",
    "png_bytes",
    "step_overlay",
]

PNG_COMPRESS_LEVEL = 9
LABEL_CREAM: RGB = (246, 240, 222)
BADGE_RED: RGB = (200, 30, 30)
MARGIN = 0.05
# Counter layout, fractions of the counter size.
SYMBOL_BOX = (0.3, 0.21, 0.7, 0.45)
NAME_BAND = (0.0, 0.465, 1.0, 0.735)
VALUES_Y = 0.86
TOP_Y = 0.12
# Block layout: the label inset on the block, pips, the text area inside the pips.
BLOCK_LABEL = (0.05, 0.05, 0.95, 0.95)
BLOCK_SYMBOL = (0.34, 0.29, 0.66, 0.49)
BLOCK_NAME = (0.1, 0.5, 0.9, 0.84)
BLOCK_TOP_Y = 0.225
PIP_INSET = 0.065
PIP_RADIUS = 0.033
PIP_SPACING = 0.1


def min_font(size: int) -> int:
    """Smallest font used on a piece of `size` pixels (6 px at 64, scaling up)."""
    return max(MIN_SIZE, round(size * 0.095))


# -- counters -------------------------------------------------------------------------------


def counter_faces(
    game: GameData, unit: Unit, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image | None]:
    """Front and back (None without a back) of a unit counter, `size` × `size` RGBA."""
    palette = unit_palette(game, unit)
    symbol = unit_symbol(game, unit)
    front = _counter(unit, palette, symbol, unit.front, None, size, lang)
    if unit.back is None:
        return front, None
    return front, _counter(unit, palette, symbol, unit.back, unit.back_kind, size, lang)


def _counter(
    unit: Unit,
    palette: Palette,
    symbol: str,
    values: Mapping[str, Scalar],
    back_kind: str | None,
    size: int,
    lang: str,
) -> Image.Image:
    """One counter face; `back_kind` set draws the back-side stripe behind the name."""
    canvas = Canvas(size, size)
    canvas.draw.rectangle(canvas.box((0, 0, 1, 1)), fill=rgba(palette.background))
    band = band_colour(back_kind, palette.background) if back_kind is not None else None
    if band is not None:
        canvas.draw.rectangle(canvas.box(NAME_BAND), fill=rgba(band))
    _outline(canvas, palette.background)
    draw_symbol(canvas.draw, canvas.box(SYMBOL_BOX), symbol, rgba(palette.ink))
    image = canvas.finish()
    _top_row(image, unit, palette.ink, size, lang)
    name_ink = readable(band, palette.text) if band is not None else palette.ink
    _name(image, unit.name.get(lang), NAME_BAND, name_ink, size, lang)
    _values(image, unit_values(unit, values), palette.ink, size, lang)
    return image


def _outline(canvas: Canvas, background: RGB) -> None:
    """A thin darker cut line around a square piece."""
    canvas.draw.rectangle(
        canvas.box((0, 0, 1, 1)), outline=rgba(darker(background, 0.45)), width=canvas.px(1 / 64)
    )


def _top_row(image: Image.Image, unit: Unit, ink: RGB, size: int, lang: str) -> None:
    """The label at the top left and the size mark centred above the symbol box."""
    margin = size * MARGIN
    gap = size * 0.05
    mark = top_mark(unit)
    mark_face, mark = fit_text(mark, size * 0.5, round(size * 0.15), lang, bold=True)
    mark_width = text_width(mark_face, mark) if mark else 0.0
    label = unit.label if unit.label and unit.label != unit.name.en else ""
    label_width = 0.0
    if label:
        room = size - 2 * margin - (mark_width + gap if mark else 0)
        start = round(size * 0.14)
        label_face, label = fit_text(label, room, start, lang, min_size=min_font(size))
        label_width = text_width(label_face, label)
        draw_text(image, (margin + label_width / 2, size * TOP_Y), label, label_face, ink)
    if mark:
        centre = max(size / 2, margin + label_width + gap + mark_width / 2)
        centre = min(centre, size - margin - mark_width / 2)
        draw_text(image, (centre, size * TOP_Y), mark, mark_face, ink)


def _name(
    image: Image.Image,
    name: str,
    band: tuple[float, float, float, float],
    ink: RGB,
    size: int,
    lang: str,
) -> None:
    """The unit name in a band, one or two lines, shrunk (then ellipsized) to fit."""
    width = (band[2] - band[0] - 2 * MARGIN) * size
    height = (band[3] - band[1]) * size
    face, lines = fit_lines(
        name,
        width,
        height,
        round(size * 0.16),
        lang,
        min_size=min_font(size),
        max_lines=2,
        condensed=True,
    )
    centre = ((band[0] + band[2]) / 2 * size, (band[1] + band[3]) / 2 * size)
    draw_lines(image, centre, lines, face, ink, pitch=_pitch(face, height, len(lines)))


def _pitch(face: Font, height: float, count: int) -> float:
    """Line pitch: the font size plus a little, never more than the band allows."""
    return min(float(line_height(face)), height / max(count, 1))


def _values(image: Image.Image, line: str, ink: RGB, size: int, lang: str) -> None:
    """The value line along the bottom, big and bold."""
    if not line:
        return
    face, line = fit_text(line, size * 0.92, round(size * 0.26), lang, bold=True)
    draw_text(image, (size / 2, size * VALUES_Y), line, face, ink)


# -- blocks ---------------------------------------------------------------------------------


def block_faces(
    game: GameData, unit: Unit, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image]:
    """A block's label face (strength pips on each edge) and its plain back."""
    palette = unit_palette(game, unit)
    label = palette.background if contrast(palette.background, palette.text) >= 2.6 else LABEL_CREAM
    ink = readable(label, palette.text)
    canvas = _block_body(palette.background, size)
    canvas.draw.rounded_rectangle(
        canvas.box(BLOCK_LABEL),
        radius=canvas.px(0.04),
        fill=rgba(label),
        outline=rgba(darker(label, 0.25)),
        width=canvas.px(1 / 64),
    )
    _pips(canvas, strength_pips(unit), ink)
    draw_symbol(canvas.draw, canvas.box(BLOCK_SYMBOL), unit_symbol(game, unit), rgba(ink))
    image = canvas.finish()
    _block_text(image, unit, ink, size, lang)
    return image, _block_body(palette.background, size).finish()


def _block_body(colour: RGB, size: int) -> Canvas:
    """The wooden block seen from the front: rounded, with a lighter top-left bevel."""
    canvas = Canvas(size, size)
    canvas.draw.rounded_rectangle(
        canvas.box((0, 0, 1, 1)), radius=canvas.px(0.08), fill=rgba(darker(colour, 0.3))
    )
    canvas.draw.rounded_rectangle(
        canvas.box((0, 0, 0.975, 0.975)), radius=canvas.px(0.08), fill=rgba(lighter(colour, 0.2))
    )
    canvas.draw.rounded_rectangle(
        canvas.box((0.02, 0.02, 0.975, 0.975)), radius=canvas.px(0.07), fill=rgba(colour)
    )
    return canvas


def _pips(canvas: Canvas, strength: int, ink: RGB) -> None:
    """Pips: full strength on the top edge, one fewer on each edge clockwise."""
    x0, y0, x1, y1 = BLOCK_LABEL
    for edge in range(4):
        count = strength - edge
        if count <= 0:
            break
        spacing = min(PIP_SPACING, 0.62 / count)
        for index in range(count):
            along = 0.5 + (index - (count - 1) / 2) * spacing
            centre = {
                0: (along, y0 + PIP_INSET),
                1: (x1 - PIP_INSET, along),
                2: (1 - along, y1 - PIP_INSET),
                3: (x0 + PIP_INSET, 1 - along),
            }[edge]
            _pip(canvas, centre, ink)


def _pip(canvas: Canvas, centre: tuple[float, float], ink: RGB) -> None:
    """One round pip."""
    r = PIP_RADIUS
    canvas.draw.ellipse(
        canvas.box((centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r)), fill=rgba(ink)
    )


def _block_text(image: Image.Image, unit: Unit, ink: RGB, size: int, lang: str) -> None:
    """Size mark above the symbol and the name below it, inside the pips."""
    mark = top_mark(unit)
    if mark:
        face, mark = fit_text(mark, size * 0.5, round(size * 0.13), lang, bold=True)
        draw_text(image, (size / 2, size * BLOCK_TOP_Y), mark, face, ink)
    _name(image, unit.name.get(lang), BLOCK_NAME, ink, size, lang)


# -- markers --------------------------------------------------------------------------------


def marker_faces(
    game: GameData, marker: Marker, size: int = 64, lang: str = "en"
) -> tuple[Image.Image, Image.Image | None]:
    """Front and back (None unless the set has back text) of a marker."""
    marker_set = marker.set
    name = marker_set.name.get(lang) or marker_set.kind
    front = _marker(name, marker.value, rgb(marker_set.colour), size, lang)
    back_text = marker_set.back.get(lang)
    if not back_text:
        return front, None
    return front, _marker(back_text, marker.value, rgb(marker_set.colour), size, lang, back=True)


def _marker(
    text: str, value: Scalar | None, colour: RGB, size: int, lang: str, back: bool = False
) -> Image.Image:
    """A marker face: the name at the top and the value big, or the name alone in the middle."""
    canvas = Canvas(size, size)
    canvas.draw.rectangle(canvas.box((0, 0, 1, 1)), fill=rgba(colour))
    if back:
        canvas.draw.rectangle(
            canvas.box((0.07, 0.07, 0.93, 0.93)),
            outline=rgba(readable(colour, darker(colour, 0.5))),
            width=canvas.px(1 / 64),
        )
    _outline(canvas, colour)
    image = canvas.finish()
    ink = readable(colour, (0, 0, 0))
    if value is None:
        _marker_text(image, text, (0.1, 0.1, 0.9, 0.9), ink, size, lang, max_lines=3)
        return image
    _marker_text(image, text, (0.1, 0.08, 0.9, 0.4), ink, size, lang, max_lines=2)
    face, shown = fit_text(figure(value), size * 0.8, round(size * 0.4), lang, bold=True)
    draw_text(image, (size / 2, size * 0.68), shown, face, ink)
    return image


def _marker_text(
    image: Image.Image,
    text: str,
    area: tuple[float, float, float, float],
    ink: RGB,
    size: int,
    lang: str,
    max_lines: int,
) -> None:
    """Marker text wrapped into an area, bold, shrunk to fit."""
    width, height = (area[2] - area[0]) * size, (area[3] - area[1]) * size
    face, lines = fit_lines(
        text,
        width,
        height,
        round(size * 0.19),
        lang,
        bold=True,
        min_size=min_font(size),
        max_lines=max_lines,
        condensed=True,
    )
    centre = ((area[0] + area[2]) / 2 * size, (area[1] + area[3]) / 2 * size)
    draw_lines(image, centre, lines, face, ink, pitch=_pitch(face, height, len(lines)))


# -- overlays and encoding ------------------------------------------------------------------


def step_overlay(lost: int, size: int = 64) -> Image.Image:
    """A transparent image with a red "−n" step-loss badge in the top right corner."""
    canvas = Canvas(size, size)
    badge = (0.63, 0.025, 0.975, 0.235)
    canvas.draw.rounded_rectangle(
        canvas.box(badge),
        radius=canvas.px(0.07),
        fill=rgba(BADGE_RED),
        outline=rgba(WHITE),
        width=canvas.px(1.5 / 64),
    )
    image = canvas.finish()
    width = (badge[2] - badge[0] - 0.06) * size
    face, text = fit_text(f"\u2212{lost}", width, round(size * 0.19), bold=True)
    centre = ((badge[0] + badge[2]) / 2 * size, (badge[1] + badge[3]) / 2 * size)
    draw_text(image, centre, text, face, WHITE)
    return image


def png_bytes(image: Image.Image) -> bytes:
    """Deterministic PNG: no metadata (no text chunks, ICC profile or dpi), fixed settings."""
    clean = image.copy()
    clean.info = {}
    buffer = io.BytesIO()
    clean.save(buffer, format="PNG", optimize=False, compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()
