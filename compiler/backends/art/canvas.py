"""Drawing surface for piece images: shapes supersampled and shrunk, text drawn at final size.

Shapes (backgrounds, bands, symbols, pips) are drawn at SCALE times the final size and shrunk
by averaging, which gives smooth diagonals and round pips at 64 px. Text is drawn
afterwards at the final size so that FreeType's hinting keeps small figures crisp. Coordinates
are given as fractions of the image width and height.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from compiler.backends.art.colours import RGB, rgba
from compiler.backends.art.fonts import Font, line_height
from compiler.backends.art.symbols import Box

SCALE = 4
Frac = tuple[float, float, float, float]


@dataclass
class Canvas:
    """A supersampled RGBA image of `width` × `height` final pixels."""

    width: int
    height: int
    image: Image.Image = field(init=False)
    draw: ImageDraw.ImageDraw = field(init=False)

    def __post_init__(self) -> None:
        self.image = Image.new("RGBA", (self.width * SCALE, self.height * SCALE), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)

    def box(self, frac: Frac) -> Box:
        """A box given in fractions of the image, in supersampled pixels."""
        x0, y0, x1, y1 = frac
        w, h = self.width * SCALE, self.height * SCALE
        return (round(x0 * w), round(y0 * h), round(x1 * w), round(y1 * h))

    def px(self, fraction: float) -> int:
        """A length given as a fraction of the width, in supersampled pixels."""
        return max(1, round(fraction * self.width * SCALE))

    def finish(self) -> Image.Image:
        """The shapes shrunk to the final size (box filter, premultiplied alpha), ready for text."""
        return self.image.convert("RGBa").reduce(SCALE).convert("RGBA")


def text_size(face: Font, text: str) -> tuple[int, int]:
    """Ink width and height of `text`."""
    left, top, right, bottom = face.getbbox(text)
    return int(right - left), int(bottom - top)


def draw_text(
    image: Image.Image, centre: tuple[float, float], text: str, face: Font, colour: RGB
) -> None:
    """`text` centred on `centre` (final pixels): middle of the line for FreeType fonts."""
    draw = ImageDraw.Draw(image)
    if isinstance(face, ImageFont.FreeTypeFont):
        draw.text(centre, text, font=face, fill=rgba(colour), anchor="mm")
        return
    left, top, right, bottom = face.getbbox(text)
    x = centre[0] - (left + right) / 2
    y = centre[1] - (top + bottom) / 2
    draw.text((x, y), text, font=face, fill=rgba(colour))


def draw_left(
    image: Image.Image, left_middle: tuple[float, float], text: str, face: Font, colour: RGB
) -> None:
    """`text` starting at x, vertically centred on y (final pixels)."""
    width = face.getlength(text)
    draw_text(image, (left_middle[0] + width / 2, left_middle[1]), text, face, colour)


def draw_lines(
    image: Image.Image,
    centre: tuple[float, float],
    lines: list[str],
    face: Font,
    colour: RGB,
    pitch: float | None = None,
) -> None:
    """Centred lines stacked around `centre`, `pitch` pixels apart (default: the line height)."""
    step = pitch if pitch is not None else line_height(face)
    first = centre[1] - step * (len(lines) - 1) / 2
    for index, line in enumerate(lines):
        draw_text(image, (centre[0], first + index * step), line, face, colour)
