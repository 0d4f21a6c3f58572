"""Label text for schematic boards: the bold face, the ways to break a name into lines, and
each way's box at a size (what label placement tests against, and what is drawn)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from PIL import ImageFont

from compiler.backends.art import planar
from compiler.backends.art.fonts import BOLD, MissingFont, font_path
from compiler.backends.art.planar import Box, Pt

HALO = 2
"""Width of the outline in the ground's colour drawn around label text (over link lines)."""
PAD = 2
"""Space kept around a label's ink."""
LINE_PITCH = 1.1
MAX_LINES = 4
BOX_SIZES = (13, 12, 11, 10)
"""Sizes of the names on the off-map boxes of the strip, largest first."""


@cache
def label_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The bold face labels are set in (Pillow's own font when DejaVu is missing)."""
    try:
        return ImageFont.truetype(str(font_path(BOLD)), size)
    except (MissingFont, OSError):
        return ImageFont.load_default(size)


@dataclass(frozen=True, slots=True)
class Shape:
    """A label's lines at a size: its box and line anchors relative to the block's centre."""

    lines: tuple[str, ...]
    size: int
    rel: Box
    offsets: tuple[float, ...]

    def at(self, x: float, y: float) -> tuple[Box, tuple[Pt, ...]]:
        r = self.rel
        return (x + r[0], y + r[1], x + r[2], y + r[3]), tuple((x, y + o) for o in self.offsets)


@cache
def shaped(lines: tuple[str, ...], size: int) -> Shape:
    """The lines set at `size`: the box of their ink (with the halo and `PAD`) about the
    block's centre, and each line's centre."""
    font = label_font(size)
    pitch = size * LINE_PITCH
    offsets = tuple((i - (len(lines) - 1) / 2) * pitch for i in range(len(lines)))
    boxes = []
    for line, dy in zip(lines, offsets, strict=True):
        x0, y0, x1, y1 = font.getbbox(line, anchor="mm", stroke_width=HALO)
        boxes.append((x0, y0 + dy, x1, y1 + dy))
    rel = planar.grow(
        (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        ),
        PAD,
    )
    return Shape(lines, size, rel, offsets)


def splits(text: str) -> list[tuple[str, ...]]:
    """The ways to set a label, fewest lines first: one line; the name, its parenthesis and its
    port size grouped on lines in order; for each count of lines up to `MAX_LINES`, the words
    split where the lines balance best."""
    chunks = [c for c in re.split(r" (?=[(\[])", text) if c]
    words = text.split(" ")
    found: set[tuple[str, ...]] = {(text,)}
    for mask in range(1, 2 ** (len(chunks) - 1)):
        found.add(_cut(chunks, tuple(i for i in range(1, len(chunks)) if mask >> (i - 1) & 1)))
    for count in range(2, min(MAX_LINES, len(words)) + 1):
        found.add(
            min(
                (_cut(words, cuts) for cuts in combinations(range(1, len(words)), count - 1)),
                key=lambda lines: (max(len(line) for line in lines), lines),
            )
        )
    return sorted(found, key=lambda lines: (len(lines), max(len(line) for line in lines), lines))


def _cut(words: list[str], cuts: tuple[int, ...]) -> tuple[str, ...]:
    edges = [0, *cuts, len(words)]
    return tuple(" ".join(words[a:b]) for a, b in zip(edges, edges[1:], strict=False))


def shapes(text: str, sizes: Sequence[int]) -> list[Shape]:
    """Every way to set the text, at each size in turn."""
    return [shaped(lines, size) for size in sizes for lines in splits(text)]


def _width(shape: Shape) -> float:
    return shape.rel[2] - shape.rel[0]


def fitting(text: str, width: float) -> Shape:
    """The text on up to three lines at the largest of `BOX_SIZES` that fits `width`, else on one
    line cut short with an ellipsis."""
    for size in BOX_SIZES:
        for lines in splits(text):
            found = shaped(lines, size)
            if len(lines) <= 3 and _width(found) <= width:
                return found
    cut = text
    while len(cut) > 1 and _width(shaped((cut + "…",), BOX_SIZES[-1])) > width:
        cut = cut[:-1]
    return shaped((cut.rstrip() + "…",), BOX_SIZES[-1])
