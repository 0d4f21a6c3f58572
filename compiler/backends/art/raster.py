"""Raster back end: a Drawing to an RGBA image, shapes supersampled, text crisp at final size.

Shapes are drawn SCALE times larger and shrunk by averaging (smooth diagonals and round pips at
64 px); text is drawn at the final size so that FreeType's hinting keeps small figures sharp.
Each glyph is placed at the pen position given by the font's unhinted advance widths (rounded to
whole pixels), the same widths the fitting and the PDF use, so text fits alike in both. Ops are
drawn in order: a run of shapes is flattened before the text that follows it.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import Box, Drawing, Ellipse, Line, Op, Polygon, Rect, Text
from compiler.backends.art.fonts import baseline_offset, char_widths, font_for, pillow_font

SCALE = 4


def rasterize(drawing: Drawing, height_px: int) -> Image.Image:
    """The drawing as an RGBA image `height_px` tall (and width × height_px wide)."""
    return rasterize_to(drawing, max(1, round(drawing.width * height_px)), height_px)


def rasterize_to(drawing: Drawing, width_px: int, height_px: int) -> Image.Image:
    """The drawing as an RGBA image of exactly `width_px` × `height_px`."""
    scale = (width_px / drawing.width, float(height_px))
    result = Image.new("RGBA", (width_px, height_px), (0, 0, 0, 0))
    layer: Image.Image | None = None
    for op in drawing.ops:
        if isinstance(op, Text):
            if layer is not None:
                result = _flatten(result, layer)
                layer = None
            _text(result, op, scale)
            continue
        if layer is None:
            layer = Image.new("RGBA", (width_px * SCALE, height_px * SCALE), (0, 0, 0, 0))
        _shape(ImageDraw.Draw(layer), op, (scale[0] * SCALE, scale[1] * SCALE))
    return result if layer is None else _flatten(result, layer)


def _flatten(result: Image.Image, layer: Image.Image) -> Image.Image:
    """The supersampled shape layer shrunk (premultiplied alpha) and laid over the result."""
    small = layer.convert("RGBa").reduce(SCALE).convert("RGBA")
    return Image.alpha_composite(result, small)


def _rgba(colour: RGB | None) -> tuple[int, int, int, int] | None:
    """An opaque RGBA colour, or None."""
    return None if colour is None else (colour[0], colour[1], colour[2], 255)


def _box(box: Box, scale: tuple[float, float]) -> tuple[float, float, float, float]:
    """A face-unit box in pixels (Pillow's right and bottom edges are inclusive)."""
    x0, y0 = box[0] * scale[0], box[1] * scale[1]
    x1, y1 = box[2] * scale[0] - 1, box[3] * scale[1] - 1
    return (x0, y0, max(x0, x1), max(y0, y1))


def _width(width: float, scale: tuple[float, float]) -> int:
    """A stroke width in whole pixels, at least one."""
    return max(1, round(width * scale[1]))


def _shape(draw: ImageDraw.ImageDraw, op: Op, scale: tuple[float, float]) -> None:
    """One shape op drawn at `scale` pixels per face unit (x, y)."""
    if isinstance(op, Rect):
        box = _box(op.box, scale)
        width = _width(op.line_width, scale) if op.outline is not None else 0
        radius = op.radius * scale[1]
        fill, outline = _rgba(op.fill), _rgba(op.outline)
        if radius >= 1:
            draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)
        else:
            draw.rectangle(box, fill=fill, outline=outline, width=width)
    elif isinstance(op, Ellipse):
        width = _width(op.line_width, scale) if op.outline is not None else 0
        draw.ellipse(
            _box(op.box, scale), fill=_rgba(op.fill), outline=_rgba(op.outline), width=width
        )
    elif isinstance(op, Polygon):
        points = [(x * scale[0], y * scale[1]) for x, y in op.points]
        width = _width(op.line_width, scale) if op.outline is not None else 1
        draw.polygon(points, fill=_rgba(op.fill), outline=_rgba(op.outline), width=width)
    elif isinstance(op, Line):
        points = [(x * scale[0], y * scale[1]) for x, y in op.points]
        draw.line(points, fill=_rgba(op.colour), width=_width(op.width, scale), joint="curve")


def _text(image: Image.Image, op: Text, scale: tuple[float, float]) -> None:
    """One line of text, glyph by glyph at the font's own advance widths."""
    if not op.text:
        return
    font = font_for(op.text, op.bold, op.lang)
    widths = char_widths(op.text, font, op.height)
    total = sum(widths)
    start = {"l": op.x, "m": op.x - total / 2, "r": op.x - total}[op.anchor[0]]
    baseline = round((op.y + baseline_offset(font) * op.height) * scale[1])
    face = pillow_font(font, op.height * scale[1])
    draw = ImageDraw.Draw(image)
    fill = _rgba(op.colour)
    pen = start
    for char, advance in zip(op.text, widths, strict=True):
        if not char.isspace():
            draw.text((round(pen * scale[0]), baseline), char, font=face, fill=fill, anchor="ls")
        pen += advance
