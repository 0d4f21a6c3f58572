"""Fonts for the sheets' own text (page labels, calibration, index): the faces' fonts.

DejaVu Sans (regular, bold) and IPAex Gothic for text with Japanese characters, embedded as
subsets like everything else in our PDFs; no PDF standard font (which is never embedded) is used.
"""

from __future__ import annotations

from compiler.backends.art.fonts import FontFile, metrics
from compiler.backends.art.fonts import font_for as face_font


def font_for(text: str, bold: bool = False) -> FontFile:
    """The font to set `text` in: IPAex Gothic when it has Japanese characters."""
    return face_font(text, bold)


def width(text: str, font: FontFile, size: float) -> float:
    """Advance width of `text` in `font` at `size` points."""
    return float(metrics(font).stringWidth(text, size))


def fit(text: str, font: FontFile, size: float, room: float) -> str:
    """`text` shortened with an ellipsis until it fits `room` points at `size`."""
    if width(text, font, size) <= room:
        return text
    room -= width("…", font, size)
    used = 0.0
    for index, char in enumerate(text):
        used += width(char, font, size)
        if used > room:
            return text[:index] + "…"
    return text + "…"
