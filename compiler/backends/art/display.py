"""The display list: shapes and text in face units, the same for the raster and the vector back end.

A face is 1.0 tall and `width` wide; x runs right, y runs down (0,0 is the top-left corner).
Colours are opaque RGB tuples. Line widths and text heights are in face units too, so one
display list renders at any size. `Sketch` collects ops while a face is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from compiler.backends.art.colours import RGB

Box = tuple[float, float, float, float]
Point = tuple[float, float]
Anchor = Literal["lm", "mm", "rm"]


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle, optionally rounded; the outline is drawn inside the box."""

    box: Box
    fill: RGB | None = None
    outline: RGB | None = None
    line_width: float = 0.0
    radius: float = 0.0


@dataclass(frozen=True, slots=True)
class Polygon:
    """A closed polygon."""

    points: tuple[Point, ...]
    fill: RGB | None = None
    outline: RGB | None = None
    line_width: float = 0.0


@dataclass(frozen=True, slots=True)
class Line:
    """An open polyline with round joins."""

    points: tuple[Point, ...]
    colour: RGB
    width: float


@dataclass(frozen=True, slots=True)
class Ellipse:
    """An ellipse inscribed in a box; the outline is drawn inside the box."""

    box: Box
    fill: RGB | None = None
    outline: RGB | None = None
    line_width: float = 0.0


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text: `height` is the font size; (x, y) is the anchor point.

    Anchors: first letter l/m/r = left end, middle, right end of the line; second letter m =
    the middle of the line (between the font's ascent and descent).
    """

    x: float
    y: float
    text: str
    height: float
    bold: bool = False
    colour: RGB = (0, 0, 0)
    anchor: Anchor = "mm"
    lang: str = "en"

    def start(self, width: float) -> float:
        """Where the text starts when it is `width` long (the anchor's first letter)."""
        return line_start(self.x, width, self.anchor[0])


@dataclass(frozen=True, slots=True)
class Drawing:
    """A face: its width (height is 1.0), what to draw, and what did not fit."""

    width: float
    ops: tuple[Op, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Inset:
    """Another drawing (a counter on a setup card) scaled to fill `box`'s height, its top-left
    corner at the box's; vectors in the PDF, rasterised at the final size in a PNG."""

    box: Box
    drawing: Drawing


Op = Rect | Polygon | Line | Ellipse | Text | Inset


def scaled_drawing(ops: Sequence[Op], width: float, height: float) -> Drawing:
    """Ops laid out in any unit (points, pixels) on a `width` × `height` area, as a drawing
    (height 1.0): every coordinate, size and line width divided by `height`."""
    k = 1.0 / height

    def box(b: Box) -> Box:
        return (b[0] * k, b[1] * k, b[2] * k, b[3] * k)

    def points(found: tuple[Point, ...]) -> tuple[Point, ...]:
        return tuple((x * k, y * k) for x, y in found)

    out: list[Op] = []
    for op in ops:
        if isinstance(op, Rect):
            out.append(Rect(box(op.box), op.fill, op.outline, op.line_width * k, op.radius * k))
        elif isinstance(op, Ellipse):
            out.append(Ellipse(box(op.box), op.fill, op.outline, op.line_width * k))
        elif isinstance(op, Polygon):
            out.append(Polygon(points(op.points), op.fill, op.outline, op.line_width * k))
        elif isinstance(op, Line):
            out.append(Line(points(op.points), op.colour, op.width * k))
        elif isinstance(op, Inset):
            out.append(Inset(box(op.box), op.drawing))
        else:
            out.append(
                Text(
                    op.x * k,
                    op.y * k,
                    op.text,
                    op.height * k,
                    op.bold,
                    op.colour,
                    op.anchor,
                    op.lang,
                )
            )
    return Drawing(width * k, tuple(out))


def line_start(x: float, width: float, align: str) -> float:
    """Where a line `width` long starts when its left end ("l"), middle ("m") or right end
    ("r") is at x."""
    return {"l": x, "m": x - width / 2, "r": x - width}[align]


@dataclass
class Sketch:
    """A face being built: ops, warnings and the filled areas (to find the colour under text)."""

    width: float
    background: RGB
    ops: list[Op] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fills: list[tuple[Box, RGB]] = field(default_factory=list)

    def add(self, *ops: Op) -> None:
        """Append ops; remember filled rectangles as backgrounds."""
        for op in ops:
            self.ops.append(op)
            if isinstance(op, Rect) and op.fill is not None:
                self.fills.append((op.box, op.fill))

    def under(self, box: Box) -> RGB:
        """The colour under the middle of `box` (face units): the last fill covering it."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for area, colour in reversed(self.fills):
            if area[0] <= cx <= area[2] and area[1] <= cy <= area[3]:
                return colour
        return self.background

    def box(self, fractions: Box) -> Box:
        """A layout box (fractions of the face) in face units."""
        x0, y0, x1, y1 = fractions
        return (x0 * self.width, y0, x1 * self.width, y1)

    def finish(self) -> Drawing:
        """The frozen drawing."""
        return Drawing(self.width, tuple(self.ops), tuple(self.warnings))
