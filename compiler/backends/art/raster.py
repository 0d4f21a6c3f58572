"""Raster back end: a Drawing to an image, shapes supersampled, text crisp at final size.

Shapes are drawn SCALE times larger and shrunk by averaging (smooth diagonals and round pips at
64 px); text is drawn at the final size so that FreeType's hinting keeps small figures sharp.
Each glyph is placed at the pen position given by the font's unhinted advance widths (rounded to
whole pixels), the same widths the fitting and the PDF use, so text fits alike in both. Ops are
painted in order, except that a shape touching none of the texts before it is painted with the
shapes before those texts: a face is then one supersampled layer, shrunk once, and its texts.
A face with an opaque full-size background is an RGB image (no alpha to carry or encode).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import (
    Box,
    Drawing,
    Ellipse,
    Inset,
    Line,
    Op,
    Polygon,
    Rect,
    Text,
)
from compiler.backends.art.fonts import (
    FontFile,
    baseline_offset,
    char_widths,
    font_for,
    pillow_font,
    text_width,
)

SCALE = 4
INSET_SUPERSAMPLE = 2
"""Nested drawings (counters on charts) are supersampled at least this much."""


def rasterize(drawing: Drawing, height_px: int, supersample: int = SCALE) -> Image.Image:
    """The drawing as an image `height_px` tall (and width × height_px wide)."""
    return rasterize_to(drawing, max(1, round(drawing.width * height_px)), height_px, supersample)


def rasterize_to(
    drawing: Drawing, width_px: int, height_px: int, supersample: int = SCALE
) -> Image.Image:
    """The drawing as an image of exactly `width_px` × `height_px`: RGB when its first op is
    an opaque, square-cornered rectangle over the whole face, else RGBA."""
    scale = (width_px / drawing.width, float(height_px))
    background = _background(drawing)
    if background is None:
        result = Image.new("RGBA", (width_px, height_px), (0, 0, 0, 0))
    else:
        result = Image.new("RGB", (width_px, height_px), background)
    passes = _passes(drawing.ops, 1.5 / height_px)
    for number, (shapes, texts) in enumerate(passes):
        if shapes:
            first = background if number == 0 else None
            result = _shapes(result, shapes, scale, first, supersample)
        for text in texts:
            if isinstance(text, Inset):
                _inset(result, text, scale, supersample)
            else:
                _text(result, text, scale)
    return result


FACE_SUPERSAMPLE = max(SCALE, INSET_SUPERSAMPLE)
"""How a face laid in a drawing rasterised at the default supersampling is supersampled
(the pictures that lay faces rasterised one by one use it to get the same pixels)."""


def _inset(
    result: Image.Image, op: Inset, scale: tuple[float, float], k: int, rows_up: int = 0
) -> None:
    """A nested drawing rasterised at its final size and laid over the result; `rows_up`
    pixel rows higher (a window of a larger image: charts.window)."""
    x0, y0, _x1, y1 = op.box
    height = max(1, round((y1 - y0) * scale[1]))
    image = _inset_image(op.drawing, height, max(k, INSET_SUPERSAMPLE))
    lay(result, image, (round(x0 * scale[0]), round(y0 * scale[1]) - rows_up))


def lay(result: Image.Image, image: Image.Image, at: tuple[int, int]) -> None:
    """A rasterised drawing laid over `result` with its top-left corner at `at`: composited
    on a transparent result, else pasted through its own transparency (if it has any). An
    image already of the result's mode is laid as it is, not converted (copied) first: a
    preview page lays hundreds of faces."""
    if result.mode == "RGBA":
        result.alpha_composite(image if image.mode == "RGBA" else image.convert("RGBA"), at)
    elif image.mode == "RGBA":  # pasted through its alpha (Pillow reads the colour bands)
        result.paste(image, at, image)
    else:
        result.paste(image if image.mode == "RGB" else image.convert("RGB"), at)


_INSETS: dict[tuple[int, int, int], tuple[Drawing, Image.Image]] = {}


def _inset_image(drawing: Drawing, height: int, k: int) -> Image.Image:
    """A nested drawing's image, remembered while the drawing object lives (a counter appears
    on several charts)."""
    key = (id(drawing), height, k)
    found = _INSETS.get(key)
    if found is None or found[0] is not drawing:
        if len(_INSETS) > 4096:
            _INSETS.clear()
        found = (drawing, rasterize(drawing, height, k))
        _INSETS[key] = found
    return found[1]


def _background(drawing: Drawing) -> tuple[int, int, int] | None:
    """The colour of a first op that fills the whole face with square corners, if any."""
    first = drawing.ops[0] if drawing.ops else None
    if not isinstance(first, Rect) or first.fill is None or first.radius > 0:
        return None
    x0, y0, x1, y1 = first.box
    if x0 > 0 or y0 > 0 or x1 < drawing.width or y1 < 1.0:
        return None
    return first.fill


Final = Text | Inset
"""Ops drawn at the final size, after the shapes of their pass."""


def _passes(ops: Sequence[Op], margin: float) -> list[tuple[list[Op], list[Final]]]:
    """Ops grouped into passes of (shapes, then texts), as few as painting order allows.

    A shape joins the current pass's shapes — so it is painted before texts that came before
    it — when it touches none of those texts (`margin` face units around each); otherwise it
    starts a new pass. Most faces need one pass: one supersampled layer, shrunk once.
    """
    passes: list[tuple[list[Op], list[Final]]] = [([], [])]
    text_boxes: list[Box] = []
    for op in ops:
        shapes, texts = passes[-1]
        if isinstance(op, Text | Inset):
            texts.append(op)
            text_boxes.append(_text_box(op, margin) if isinstance(op, Text) else op.box)
        elif any(_touches(area, box) for area in _areas(op) for box in text_boxes):
            passes.append(([op], []))
            text_boxes = []
        else:
            shapes.append(op)
    return passes


def _text_box(op: Text, margin: float) -> Box:
    """A box surely holding a text's glyphs: an em tall around its middle, a bit wider."""
    width = text_width(op.text, op.height, op.bold, op.lang)
    start = op.start(width)
    pad = 0.15 * op.height + margin
    return (
        start - pad,
        op.y - 0.5 * op.height - pad,
        start + width + pad,
        op.y + 0.5 * op.height + pad,
    )


def _areas(op: Op) -> list[Box]:
    """Boxes covering everything a shape paints (an outline-only rectangle: its four sides)."""
    if isinstance(op, Rect):
        if op.fill is not None:
            return [op.box]
        x0, y0, x1, y1 = op.box
        band = max(op.line_width, op.radius)
        return [
            (x0, y0, x1, y0 + band),
            (x0, y1 - band, x1, y1),
            (x0, y0, x0 + band, y1),
            (x1 - band, y0, x1, y1),
        ]
    if isinstance(op, Ellipse):
        return [op.box]
    points = op.points if isinstance(op, Polygon | Line) else ()
    if not points:
        return []
    grow = op.width / 2 if isinstance(op, Line) else getattr(op, "line_width", 0.0)
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return [(min(xs) - grow, min(ys) - grow, max(xs) + grow, max(ys) + grow)]


def _touches(a: Box, b: Box) -> bool:
    """Whether two boxes overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _shapes(
    result: Image.Image,
    shapes: Sequence[Op],
    scale: tuple[float, float],
    background: RGB | None = None,
    k: int = SCALE,
) -> Image.Image:
    """Shapes drawn `k` times larger, shrunk and laid over the result.

    On an opaque face's first pass (`background` given) the layer starts as that colour, so
    shrinking it is a plain average and it replaces the result. Later passes draw rectangles
    that sit on whole pixels straight onto the result (the same pixels supersampling would
    give), and other runs of shapes on a transparent layer cut to their bounding box."""
    if background is not None and k == 1:
        draw = ImageDraw.Draw(result)
        for op in shapes:
            _shape(draw, op, scale)
        return result
    if background is not None:
        layer = Image.new("RGB", (result.width * k, result.height * k), background)
        draw = ImageDraw.Draw(layer)
        for op in shapes:
            _shape(draw, op, (scale[0] * k, scale[1] * k))
        return layer.reduce(k)
    run: list[Op] = []
    for op in shapes:
        if _on_pixels(op, scale, k):
            result = _layered(result, run, scale, k)
            run = []
            _shape(ImageDraw.Draw(result), op, scale)
        else:
            run.append(op)
    return _layered(result, run, scale, k)


def _on_pixels(op: Op, scale: tuple[float, float], k: int) -> bool:
    """Whether a shape is a square-cornered rectangle whose edges and outline sit on whole
    pixels (drawn directly, it is exactly what supersampling would give)."""
    if not isinstance(op, Rect) or op.radius * scale[1] >= 1 / k:
        return False
    x0, y0, x1, y1 = op.box
    values = [x0 * scale[0], x1 * scale[0], y0 * scale[1], y1 * scale[1]]
    if op.outline is not None:
        values.append(op.line_width * scale[1])
    return all(abs(v - round(v)) < 1e-6 for v in values)


def _layered(
    result: Image.Image, shapes: Sequence[Op], scale: tuple[float, float], k: int
) -> Image.Image:
    """Shapes on a supersampled transparent layer the size of their bounding box (whole
    pixels), shrunk with premultiplied alpha and composited over that part of the result."""
    if not shapes:
        return result
    areas = [area for op in shapes for area in _areas(op)]
    if not areas:
        return result
    left = max(0, math.floor(min(a[0] for a in areas) * scale[0]) - 1)
    top = max(0, math.floor(min(a[1] for a in areas) * scale[1]) - 1)
    right = min(result.width, math.ceil(max(a[2] for a in areas) * scale[0]) + 1)
    bottom = min(result.height, math.ceil(max(a[3] for a in areas) * scale[1]) + 1)
    if right <= left or bottom <= top:
        return result
    layer = Image.new("RGBA", ((right - left) * k, (bottom - top) * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    big = (scale[0] * k, scale[1] * k)
    for op in shapes:
        _shape(draw, op, big, (left * k, top * k))
    small = layer.convert("RGBa").reduce(k).convert("RGBA")
    region = (left, top, right, bottom)
    if result.mode == "RGB":
        under = result.crop(region).convert("RGBA")
        result.paste(Image.alpha_composite(under, small).convert("RGB"), region)
    else:
        result.alpha_composite(small, (left, top))
    return result


def _rgba(colour: RGB | None) -> tuple[int, int, int, int] | None:
    """An opaque RGBA colour, or None."""
    return None if colour is None else (colour[0], colour[1], colour[2], 255)


def _box(
    box: Box, scale: tuple[float, float], origin: tuple[float, float] = (0.0, 0.0)
) -> tuple[float, float, float, float]:
    """A face-unit box in pixels from `origin` (Pillow's right and bottom edges are inclusive)."""
    x0, y0 = box[0] * scale[0] - origin[0], box[1] * scale[1] - origin[1]
    x1, y1 = box[2] * scale[0] - 1 - origin[0], box[3] * scale[1] - 1 - origin[1]
    return (x0, y0, max(x0, x1), max(y0, y1))


def _width(width: float, scale: tuple[float, float]) -> int:
    """A stroke width in whole pixels, at least one."""
    return max(1, round(width * scale[1]))


def _shape(
    draw: ImageDraw.ImageDraw,
    op: Op,
    scale: tuple[float, float],
    origin: tuple[float, float] = (0.0, 0.0),
) -> None:
    """One shape op drawn at `scale` pixels per face unit (x, y), `origin` at pixel (0, 0)."""
    ox, oy = origin
    if isinstance(op, Rect):
        box = _box(op.box, scale, origin)
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
            _box(op.box, scale, origin),
            fill=_rgba(op.fill),
            outline=_rgba(op.outline),
            width=width,
        )
    elif isinstance(op, Polygon):
        points = [(x * scale[0] - ox, y * scale[1] - oy) for x, y in op.points]
        width = _width(op.line_width, scale) if op.outline is not None else 1
        draw.polygon(points, fill=_rgba(op.fill), outline=_rgba(op.outline), width=width)
    elif isinstance(op, Line):
        points = [(x * scale[0] - ox, y * scale[1] - oy) for x, y in op.points]
        draw.line(points, fill=_rgba(op.colour), width=_width(op.width, scale), joint="curve")


def _text(image: Image.Image, op: Text, scale: tuple[float, float], rows_up: int = 0) -> None:
    """One line of text, glyph by glyph at the font's own advance widths; `rows_up` pixel
    rows higher (a window of a larger image: charts.window)."""
    if not op.text:
        return
    font = font_for(op.text, op.bold, op.lang)
    widths = char_widths(op.text, font, op.height)
    total = sum(widths)
    start = op.start(total)
    baseline = round((op.y + baseline_offset(font) * op.height) * scale[1]) - rows_up
    size = op.height * scale[1]
    draw = ImageDraw.Draw(image)
    ink = op.colour if image.mode == "RGB" else (*op.colour, 255)
    pen = start
    for char, advance in zip(op.text, widths, strict=True):
        if not char.isspace():
            mask, (dx, dy) = _glyph(font, size, char)
            draw.bitmap((round(pen * scale[0]) + dx, baseline + dy), mask, fill=ink)
        pen += advance


def warm_glyphs(drawing: Drawing, height_px: int) -> int:
    """Render the glyph masks a drawing's text needs at `height_px` (before forking workers,
    so that they share one cache instead of each rendering the same glyphs); how many."""
    count = 0
    for op in drawing.ops:
        if isinstance(op, Text) and op.text:
            font = font_for(op.text, op.bold, op.lang)
            for char in set(op.text):
                if not char.isspace():
                    _glyph(font, op.height * height_px, char)
                    count += 1
    return count


@lru_cache(maxsize=65536)
def _glyph(font: FontFile, size_px: float, char: str) -> tuple[Image.Image, tuple[int, int]]:
    """A glyph's coverage mask as FreeType renders it, and where its top-left corner sits
    relative to the pen on the baseline. Painting the text colour through the mask is what
    drawing the text does, once per glyph instead of once per use."""
    face = pillow_font(font, size_px)
    left, top, right, bottom = face.getbbox(char, anchor="ls")
    mask = Image.new("L", (max(1, int(right - left)), max(1, int(bottom - top))), 0)
    ImageDraw.Draw(mask).text((-left, -top), char, font=face, fill=255, anchor="ls")
    return mask, (int(left), int(top))
