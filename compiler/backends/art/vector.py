"""Vector back end: a Drawing onto a reportlab canvas as paths and real (extractable) text.

Fonts are registered as TrueType fonts, which reportlab embeds as subsets: DejaVu Sans and
DejaVu Sans Bold, and IPAex Gothic for any text with CJK characters. Outlines are stroked half a
line width inside their shape, as the raster back end draws them.
"""

from __future__ import annotations

from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped,unused-ignore]
from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped,unused-ignore]

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import Box, Drawing, Ellipse, Line, Op, Polygon, Rect, Text
from compiler.backends.art.fonts import (
    ALL_FONTS,
    JAPANESE,
    FontFile,
    baseline_offset,
    font_for,
    metrics,
    text_width,
)


def register_fonts() -> None:
    """Register the fonts with reportlab; MissingFont when DejaVu is not installed.

    IPAex Gothic is registered when installed; text that needs it raises MissingFont otherwise.
    """
    for font in ALL_FONTS:
        if font.name in pdfmetrics.getRegisteredFontNames():
            continue
        if font is JAPANESE and not _installed(font):
            continue
        pdfmetrics.registerFont(metrics(font))


def _installed(font: FontFile) -> bool:
    """Whether a font's file exists."""
    return any(path.is_file() for path in font.candidates())


class _Frame:
    """Face units to points: (0,0) top-left of the face → (x, y + height) on the page."""

    def __init__(self, x: float, y: float, height: float) -> None:
        self.x, self.y, self.k = x, y, height

    def point(self, u: float, v: float) -> tuple[float, float]:
        """A face point in page points."""
        return self.x + u * self.k, self.y + (1.0 - v) * self.k

    def rect(self, box: Box, inset: float = 0.0) -> tuple[float, float, float, float]:
        """Left, bottom, width, height in points of a box shrunk by `inset` face units."""
        x0, y0, x1, y1 = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
        left, bottom = self.point(x0, y1)
        return left, bottom, max(0.0, (x1 - x0) * self.k), max(0.0, (y1 - y0) * self.k)


def draw_vector(canvas: Canvas, drawing: Drawing, x: float, y: float, height: float) -> None:
    """Draw the face with its bottom-left corner at (x, y) points, `height` points tall."""
    register_fonts()
    frame = _Frame(x, y, height)
    canvas.saveState()
    canvas.setLineJoin(1)
    canvas.setLineCap(0)
    for op in drawing.ops:
        _op(canvas, op, frame)
    canvas.restoreState()


def _op(canvas: Canvas, op: Op, frame: _Frame) -> None:
    """One op."""
    if isinstance(op, Rect):
        _rect(canvas, op, frame)
    elif isinstance(op, Ellipse):
        _ellipse(canvas, op, frame)
    elif isinstance(op, Polygon):
        _polygon(canvas, op, frame)
    elif isinstance(op, Line):
        _line(canvas, op, frame)
    elif isinstance(op, Text):
        _text(canvas, op, frame)


def _fill(canvas: Canvas, colour: RGB) -> None:
    """Set the fill colour."""
    canvas.setFillColorRGB(colour[0] / 255, colour[1] / 255, colour[2] / 255)


def _stroke(canvas: Canvas, colour: RGB, width: float, frame: _Frame) -> None:
    """Set the stroke colour and width (face units)."""
    canvas.setStrokeColorRGB(colour[0] / 255, colour[1] / 255, colour[2] / 255)
    canvas.setLineWidth(width * frame.k)


def _rect(canvas: Canvas, op: Rect, frame: _Frame) -> None:
    """A (rounded) rectangle: fill the box, stroke inside it."""
    if op.fill is not None:
        _fill(canvas, op.fill)
        _round_rect(canvas, frame.rect(op.box), op.radius * frame.k, fill=True)
    if op.outline is not None and op.line_width > 0:
        _stroke(canvas, op.outline, op.line_width, frame)
        radius = max(0.0, op.radius - op.line_width / 2) * frame.k
        _round_rect(canvas, frame.rect(op.box, op.line_width / 2), radius, fill=False)


def _round_rect(
    canvas: Canvas, rect: tuple[float, float, float, float], radius: float, *, fill: bool
) -> None:
    """A rectangle in points, rounded when the radius is positive."""
    left, bottom, width, height = rect
    radius = min(radius, width / 2, height / 2)
    fill_flag, stroke_flag = (1, 0) if fill else (0, 1)
    if radius > 0:
        canvas.roundRect(left, bottom, width, height, radius, stroke=stroke_flag, fill=fill_flag)
    else:
        canvas.rect(left, bottom, width, height, stroke=stroke_flag, fill=fill_flag)


def _ellipse(canvas: Canvas, op: Ellipse, frame: _Frame) -> None:
    """An ellipse: fill the box, stroke inside it."""
    if op.fill is not None:
        _fill(canvas, op.fill)
        left, bottom, width, height = frame.rect(op.box)
        canvas.ellipse(left, bottom, left + width, bottom + height, stroke=0, fill=1)
    if op.outline is not None and op.line_width > 0:
        _stroke(canvas, op.outline, op.line_width, frame)
        left, bottom, width, height = frame.rect(op.box, op.line_width / 2)
        canvas.ellipse(left, bottom, left + width, bottom + height, stroke=1, fill=0)


def _polygon(canvas: Canvas, op: Polygon, frame: _Frame) -> None:
    """A closed polygon."""
    path = canvas.beginPath()
    first, *rest = [frame.point(u, v) for u, v in op.points]
    path.moveTo(*first)
    for point in rest:
        path.lineTo(*point)
    path.close()
    if op.fill is not None:
        _fill(canvas, op.fill)
    stroke = op.outline is not None and op.line_width > 0
    if op.outline is not None and stroke:
        _stroke(canvas, op.outline, op.line_width, frame)
    canvas.drawPath(path, stroke=1 if stroke else 0, fill=1 if op.fill is not None else 0)


def _line(canvas: Canvas, op: Line, frame: _Frame) -> None:
    """An open polyline."""
    path = canvas.beginPath()
    first, *rest = [frame.point(u, v) for u, v in op.points]
    path.moveTo(*first)
    for point in rest:
        path.lineTo(*point)
    _stroke(canvas, op.colour, op.width, frame)
    canvas.drawPath(path, stroke=1, fill=0)


def _text(canvas: Canvas, op: Text, frame: _Frame) -> None:
    """One line of real text in the op's font, anchored as the raster back end anchors it."""
    if not op.text:
        return
    font = font_for(op.text, op.bold, op.lang)
    if font.name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(metrics(font))
    total = text_width(op.text, op.height, op.bold, op.lang)
    start = {"l": op.x, "m": op.x - total / 2, "r": op.x - total}[op.anchor[0]]
    px, py = frame.point(start, op.y + baseline_offset(font) * op.height)
    _fill(canvas, op.colour)
    canvas.setFont(font.name, op.height * frame.k)
    canvas.drawString(px, py, op.text)
