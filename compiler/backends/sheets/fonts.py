"""Fonts for the sheets' own text (page labels, calibration, index): the faces' fonts.

DejaVu Sans (regular, bold) and IPAex Gothic for text with Japanese characters, embedded as
subsets like everything else in our PDFs; no PDF standard font (which is never embedded) is used.
"""

from __future__ import annotations

from compiler.backends.art.fonts import FontFile, font_width
from compiler.backends.art.fonts import font_for as face_font


def font_for(text: str, bold: bool = False) -> FontFile:
    """The font to set `text` in: IPAex Gothic when it has Japanese characters."""
    return face_font(text, bold)


def fit(text: str, font: FontFile, size: float, room: float) -> str:
    """`text` shortened with an ellipsis until it fits `room` points at `size`."""
    if font_width(font, text, size) <= room:
        return text
    room -= font_width(font, "…", size)
    used = 0.0
    for index, char in enumerate(text):
        used += font_width(font, char, size)
        if used > room:
            return text[:index] + "…"
    return text + "…"
