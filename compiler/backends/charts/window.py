"""A chart's PNG drawn again only where it changed: each band of its rows (bandpng.BAND_ROWS)
has a look, a digest of the ops that can paint one of its pixels (in painting order, at their
places), and a band whose look is the one kept with the chart's PNG before is copied from it
without being drawn; the others are drawn in windows of the image, each a run of bands next
to each other (a tab of an order of battle with one row changed draws that row's bands, not
its 22 rows of counters: drawing a whole tab was most of a warm build's PNG).

A window paints what the whole image paints there, translated by a whole number of pixel
rows: each op's pixel coordinates are worked out as art.raster works them out, less the
window's top (a whole number: the same pixels, exactly), and only the ops that reach the
window are painted. An op that starts above the window is painted from a clipped edge, which
Pillow may round otherwise: a window starts MARGIN rows above the first row used, so that
nothing painted differently is used. Only a drawing art.raster paints in one pass straight
onto an opaque background (a chart's: white paper first, shapes, then texts, supersampling
1) is drawn so; any other is drawn whole (bands_of gives None).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable

from PIL import Image, ImageDraw

from compiler.backends.art import raster
from compiler.backends.art.display import Drawing, Ellipse, Inset, Line, Op, Polygon, Rect, Text
from compiler.backends.art.pixels import raw_bytes
from compiler.backends.charts.bandpng import BAND_ROWS

MARGIN = 16
"""Rows drawn above (and below) the rows a window is for (see the module's docstring)."""
REACH = 3
"""Pixels around an op's extent counted as reached by it (rounding, strokes)."""
LOOK_VERSION = b"chart-band-look 1"


def single_pass(drawing: Drawing, height_px: int, supersample: int) -> bool:
    """Whether art.raster paints the drawing `height_px` tall in one pass straight onto its
    opaque background (what a window can paint again): no shape touches a text or counter
    before it (raster._passes; a chart's texts all come last, so only its counters are
    looked at, none measured; each by the bands of rows it spans, not against every one)."""
    if supersample != 1 or raster._background(drawing) is None:
        return False
    margin = 1.5 / height_px
    finals: list[Text | Inset] = []
    seen = 0
    boxes: dict[int, list[tuple[float, float, float, float]]] = {}
    for op in drawing.ops:
        if isinstance(op, Text | Inset):
            finals.append(op)
            continue
        for final in finals[seen:]:
            box = raster._text_box(final, margin) if isinstance(final, Text) else final.box
            for number in _spanned(box, height_px):
                boxes.setdefault(number, []).append(box)
        seen = len(finals)
        for area in raster._areas(op) if boxes else []:
            near = (box for number in _spanned(area, height_px) for box in boxes.get(number, ()))
            if any(raster._touches(area, box) for box in near):
                return False
    return True


def _spanned(box: tuple[float, float, float, float], height_px: int) -> range:
    """The bands of rows (BAND_ROWS) a box spans, a row to spare either side."""
    top = max(0, math.floor(box[1] * height_px) - 1) // BAND_ROWS
    return range(top, (math.ceil(box[3] * height_px) + 1) // BAND_ROWS + 1)


def band_looks(drawing: Drawing, size: tuple[int, int]) -> list[bytes]:
    """Each band's look (see the module's docstring) of the drawing painted `size` big: the
    SHA-1 of the image's size, the band's rows and the repr of each op that reaches them."""
    width, height = size
    count = -(-height // BAND_ROWS)
    shown: list[list[str]] = [[] for _ in range(count)]
    reprs: dict[int, tuple[Drawing, str]] = {}
    for op in drawing.ops:
        top, bottom = _rows(op, height)
        first, last = max(0, top // BAND_ROWS), min(count - 1, bottom // BAND_ROWS)
        if first > last:
            continue
        text = _repr(op, reprs)
        for number in range(first, last + 1):
            shown[number].append(text)
    head = LOOK_VERSION + repr((width, height, BAND_ROWS)).encode("ascii")
    return [
        hashlib.sha1(head + repr(number).encode("ascii") + "\n".join(ops).encode("utf-8")).digest()
        for number, ops in enumerate(shown)
    ]


def _repr(op: Op, reprs: dict[int, tuple[Drawing, str]]) -> str:
    """An op's repr; a counter's drawing spelled out once per drawing (a tab repeats them)."""
    if not isinstance(op, Inset):
        return repr(op)
    found = reprs.get(id(op.drawing))
    if found is None or found[0] is not op.drawing:
        found = (op.drawing, repr(op.drawing))
        reprs[id(op.drawing)] = found
    return f"Inset({op.box!r}, {found[1]})"


def _rows(op: Op, height: int) -> tuple[int, int]:
    """The pixel rows (first, last) an op can paint in an image `height` pixels tall
    (a drawing's unit is its height), widened by REACH."""
    top, bottom = _extent(op)
    return math.floor(top * height) - REACH, math.ceil(bottom * height) + REACH


def _extent(op: Op) -> tuple[float, float]:
    """The top and bottom of what an op paints, in drawing units, with room to spare."""
    if isinstance(op, Text):
        return op.y - 1.5 * op.height, op.y + 1.5 * op.height
    if isinstance(op, Inset):
        return op.box[1], op.box[3]
    if isinstance(op, Rect | Ellipse):
        return op.box[1] - op.line_width, op.box[3] + op.line_width
    if isinstance(op, Polygon | Line):
        grow = op.width if isinstance(op, Line) else op.line_width
        ys = [y for _x, y in op.points]
        return min(ys) - grow, max(ys) + grow
    return -math.inf, math.inf  # an op of a kind not known here: every band


def window_rows(drawing: Drawing, size: tuple[int, int]) -> Callable[[int, int], bytes]:
    """What gives rows top to bottom (RGB bytes) of the drawing painted `size` big with
    supersampling 1 (single_pass must hold), painting only a window around them."""
    return lambda top, bottom: _window(drawing, size, top, bottom)


def _window(drawing: Drawing, size: tuple[int, int], top: int, bottom: int) -> bytes:
    width, height = size
    start, end = max(0, top - MARGIN), min(height, bottom + MARGIN)
    scale = (width / drawing.width, float(height))
    background = raster._background(drawing)
    assert background is not None  # single_pass
    image = Image.new("RGB", (width, end - start), background)
    draw = ImageDraw.Draw(image)
    shapes: list[Op] = []
    finals: list[Op] = []
    for op in drawing.ops:
        first, last = _rows(op, height)
        if last < start or first >= end:
            continue
        (finals if isinstance(op, Text | Inset) else shapes).append(op)
    for op in shapes:  # one pass: the shapes, then the texts and counters in order
        raster._shape(draw, op, scale, (0.0, float(start)))
    for op in finals:
        if isinstance(op, Inset):
            raster._inset(image, op, scale, 1, start)
        elif isinstance(op, Text):
            raster._text(image, op, scale, start)
    stride = width * 3
    return raw_bytes(image)[(top - start) * stride : (bottom - start) * stride]
