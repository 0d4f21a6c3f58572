"""Large images drawn and PNG-encoded in horizontal bands, never held whole.

`banded_png(size, background, paint)` runs `paint(draw)` once against a recorder that keeps the
calls (polygon, line, ellipse, rectangle, text) with the rows each can touch; then, band by band
from the top, it replays on a small image the calls that reach the band and streams the band's
rows to the PNG encoder. A 5349×5994 board took 92 MB as one RGB image (and 370 MB more to encode
it); a band of `BAND_ROWS` rows takes a few MB.

The pixels are those of drawing the whole image, so the PNG bytes are too. Pillow truncates
every shape coordinate to an integer (toward zero) and then rasterises relative to the ends
and corners, clipping to the image: the recorder truncates in the whole image's frame and the
replay shifts by a whole number of rows, so each shape covers the same pixels. Text is placed
from its anchor's whole and fractional parts, which a shift keeps only while the anchor stays at
or below the band image's top row: a band image starts at the highest anchor of the text that
reaches it (or at row 0). Text of several lines, and any draw call not listed above, make
`banded_png` return None: the caller then draws the whole image as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from compiler.backends.art.png import PngWriter

BAND_ROWS = 512
"""Rows of the image drawn and encoded at a time."""
TEXT_SLACK = 4
"""Rows added above and below a text's measured box before deciding which bands it reaches."""

Colour = tuple[int, int, int]


class Unbandable(Exception):
    """A draw call the bands cannot reproduce pixel for pixel."""


@dataclass(frozen=True)
class _Op:
    method: str
    points: tuple[tuple[int, int], ...]
    """Shapes: the coordinates as Pillow uses them (truncated). Text: empty."""
    anchor_y: float
    """Text: the anchor's y, as given."""
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    top: int
    bottom: int
    """The rows [top, bottom] the call can draw on (a little more, never less)."""


def _points(xy: Sequence[Any]) -> tuple[tuple[int, int], ...]:
    """Pillow's coordinate forms ([(x, y), …] or [x, y, …]) as truncated pairs."""
    flat: list[float] = []
    for item in xy:
        if isinstance(item, int | float):
            flat.append(item)
        else:
            flat.extend(item)
    if len(flat) % 2:
        raise Unbandable(f"odd coordinate list {xy!r}")
    return tuple((int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2))


@dataclass
class Recorder:
    """Stands for an `ImageDraw.ImageDraw` while painting: keeps the calls. Any other method of
    ImageDraw is missing here on purpose (an AttributeError makes `banded_png` give up)."""

    mode: str
    ops: list[_Op] = field(default_factory=list)
    _measure: ImageDraw.ImageDraw | None = None

    def _shape(
        self, method: str, xy: Sequence[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        # Positional order: line(xy, fill, width, joint); the others (xy, fill, outline, width).
        at = 1 if method == "line" else 2
        width = kwargs.get("width", args[at] if len(args) > at else 1)
        if method == "line" and kwargs.get("joint", args[2] if len(args) > 2 else None):
            raise Unbandable("line joints")
        points = _points(xy)
        if points:
            ys = [y for _, y in points]
            pad = int(width) + 2
            self.ops.append(_Op(method, points, 0.0, args, kwargs, min(ys) - pad, max(ys) + pad))

    def polygon(self, xy: Sequence[Any], *args: Any, **kwargs: Any) -> None:
        self._shape("polygon", xy, args, kwargs)

    def line(self, xy: Sequence[Any], *args: Any, **kwargs: Any) -> None:
        self._shape("line", xy, args, kwargs)

    def ellipse(self, xy: Sequence[Any], *args: Any, **kwargs: Any) -> None:
        self._shape("ellipse", xy, args, kwargs)

    def rectangle(self, xy: Sequence[Any], *args: Any, **kwargs: Any) -> None:
        self._shape("rectangle", xy, args, kwargs)

    def text(self, xy: tuple[float, float], text: Any, *args: Any, **kwargs: Any) -> None:
        if not isinstance(text, str) or "\n" in text or "\r" in text:
            raise Unbandable("text that is not one line of str")
        if self._measure is None:
            self._measure = ImageDraw.Draw(Image.new(self.mode, (1, 1)))
        names = (
            "fill",
            "font",
            "anchor",
            "spacing",
            "align",
            "direction",
            "features",
            "language",
            "stroke_width",
        )
        measure = {k: v for k, v in zip(names, args, strict=False)} | kwargs
        measure.pop("fill", None)
        measure.pop("stroke_fill", None)
        measure.pop("embedded_color", None)
        _, box_top, _, box_bottom = self._measure.textbbox(xy, text, **measure)
        slack = TEXT_SLACK + int(box_bottom - box_top)
        self.ops.append(
            _Op(
                "text",
                (),
                xy[1],
                (xy[0], text, *args),
                kwargs,
                int(box_top) - slack,
                int(box_bottom) + slack,
            )
        )


def _replay(draw: ImageDraw.ImageDraw, op: _Op, shift: int) -> None:
    if op.method == "text":
        x, text, *rest = op.args
        draw.text((x, op.anchor_y - shift), text, *rest, **op.kwargs)
        return
    points = [(x, y - shift) for x, y in op.points]
    getattr(draw, op.method)(points, *op.args, **op.kwargs)


def _recorded(paint: Callable[[ImageDraw.ImageDraw], None]) -> list[_Op] | None:
    """The calls `paint` makes, or None when one of them cannot be replayed exactly."""
    recorder = Recorder("RGB")
    try:
        paint(recorder)  # type: ignore[arg-type]  # stands for ImageDraw (see Recorder)
    except (AttributeError, Unbandable):
        return None
    return recorder.ops


def _band(ops: Sequence[_Op], width: int, top: int, bottom: int, background: Colour) -> Image.Image:
    """Rows [top, bottom) of the whole image, drawn by replaying the calls that reach them."""
    reaching = [op for op in ops if op.bottom >= top and op.top < bottom]
    # The band image starts at the highest non-negative text anchor that reaches the band,
    # so every text anchor keeps its sign (and Pillow's truncation) once shifted.
    shift = max(0, min([top, *(int(op.anchor_y) for op in reaching if op.method == "text")]))
    band = Image.new("RGB", (width, bottom - shift), background)
    draw = ImageDraw.Draw(band)
    for op in reaching:
        _replay(draw, op, shift)
    return band.crop((0, top - shift, width, bottom - shift)) if shift < top else band


def banded_png(
    size: tuple[int, int],
    background: Colour,
    paint: Callable[[ImageDraw.ImageDraw], None],
    band_rows: int = BAND_ROWS,
) -> bytes | None:
    """The PNG of an RGB image of `size` filled with `background` on which `paint` draws, made
    band by band; None when `paint` uses a call the bands cannot reproduce exactly."""
    width, height = size
    ops = _recorded(paint)
    if ops is None:
        return None
    writer = PngWriter(width, height, "RGB")
    for top in range(0, height, band_rows):
        writer.add(_band(ops, width, top, min(height, top + band_rows), background))
    return writer.finish()


LANCZOS_SUPPORT = 3.0
"""How far (in output pixels) Pillow's Lanczos filter reaches either side of a pixel."""


def banded_scaled(
    size: tuple[int, int],
    background: Colour,
    paint: Callable[[ImageDraw.ImageDraw], None],
    scaled: tuple[int, int],
    band_rows: int = BAND_ROWS,
) -> Image.Image | None:
    """The image `banded_png` would encode, scaled to `scaled` with Lanczos, drawn band by
    band: each band of output rows is resampled from a band of drawn rows that holds every
    row the filter reaches, so the whole image is never held. None as for `banded_png`."""
    width, height = size
    out_width, out_height = scaled
    ops = _recorded(paint)
    if ops is None:
        return None
    step = height / out_height
    reach = math.ceil(LANCZOS_SUPPORT * max(step, 1.0)) + 2
    rows = max(1, int(band_rows / step))
    image = Image.new("RGB", scaled, background)
    for out_top in range(0, out_height, rows):
        out_bottom = min(out_height, out_top + rows)
        first, last = out_top * step, out_bottom * step
        top, bottom = max(0, int(first) - reach), min(height, math.ceil(last) + reach)
        band = _band(ops, width, top, bottom, background)
        box = (0.0, first - top, float(width), last - top)
        part = band.resize((out_width, out_bottom - out_top), Image.Resampling.LANCZOS, box)
        image.paste(part, (0, out_top))
        del band, part
    return image
