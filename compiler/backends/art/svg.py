"""SVG back end: a Drawing as an SVG image that VASSAL draws sharp at every zoom.

The same display list as the PNG and PDF back ends, in face units (the view box is the face,
1.0 tall); outlines are stroked half a line width inside their shape, as the others do. Text
is drawn as the glyph outlines of the installed fonts (read from their `glyf` tables), placed
at the fonts' own advance widths, so the image needs no font on the player's machine and fits
exactly as the PDF does.
"""

from __future__ import annotations

from functools import cache

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import (
    Drawing,
    Ellipse,
    Inset,
    Line,
    Op,
    Polygon,
    Rect,
    Text,
)
from compiler.backends.art.fonts import FontFile, baseline_offset, char_widths, font_for, font_path
from compiler.backends.art.fonts import metrics as font_metrics
from compiler.backends.pdf.fonts import font_file
from compiler.backends.pdf.ttf import Outlines, svg_path


def drawing_svg(drawing: Drawing, width_px: int, height_px: int) -> bytes:
    """The drawing as an SVG document `width_px` × `height_px` (its size at 100% zoom)."""
    body = "".join(_ops(drawing.ops))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width_px}" '
        f'height="{height_px}" viewBox="0 0 {_n(drawing.width)} 1" '
        f'preserveAspectRatio="none">{body}</svg>\n'
    ).encode()


def _ops(ops: tuple[Op, ...]) -> list[str]:
    out: list[str] = []
    for op in ops:
        if isinstance(op, Rect):
            out.extend(_rect(op))
        elif isinstance(op, Ellipse):
            out.extend(_ellipse(op))
        elif isinstance(op, Polygon):
            out.append(_polygon(op))
        elif isinstance(op, Line):
            points = " ".join(f"{_n(x)},{_n(y)}" for x, y in op.points)
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{_c(op.colour)}" '
                f'stroke-width="{_n(op.width)}" stroke-linejoin="round"/>'
            )
        elif isinstance(op, Text):
            out.append(_text(op))
        elif isinstance(op, Inset):
            x0, y0, _x1, y1 = op.box
            inner = "".join(_ops(op.drawing.ops))
            out.append(
                f'<g transform="translate({_n(x0)} {_n(y0)}) scale({_n(y1 - y0)})">{inner}</g>'
            )
    return out


def _rect(op: Rect) -> list[str]:
    out: list[str] = []
    x0, y0, x1, y1 = op.box
    if op.fill is not None:
        out.append(_box(x0, y0, x1, y1, op.radius, f'fill="{_c(op.fill)}"'))
    if op.outline is not None and op.line_width > 0:
        half = op.line_width / 2
        paint = f'fill="none" stroke="{_c(op.outline)}" stroke-width="{_n(op.line_width)}"'
        radius = max(0.0, op.radius - half)
        out.append(_box(x0 + half, y0 + half, x1 - half, y1 - half, radius, paint))
    return out


def _box(x0: float, y0: float, x1: float, y1: float, radius: float, paint: str) -> str:
    w, h = max(0.0, x1 - x0), max(0.0, y1 - y0)
    r = min(radius, w / 2, h / 2)
    rounded = f' rx="{_n(r)}" ry="{_n(r)}"' if r > 0 else ""
    return f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(w)}" height="{_n(h)}"{rounded} {paint}/>'


def _ellipse(op: Ellipse) -> list[str]:
    out: list[str] = []
    x0, y0, x1, y1 = op.box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if op.fill is not None:
        rx, ry = (x1 - x0) / 2, (y1 - y0) / 2
        out.append(
            f'<ellipse cx="{_n(cx)}" cy="{_n(cy)}" rx="{_n(rx)}" ry="{_n(ry)}" '
            f'fill="{_c(op.fill)}"/>'
        )
    if op.outline is not None and op.line_width > 0:
        rx = max(0.0, (x1 - x0 - op.line_width) / 2)
        ry = max(0.0, (y1 - y0 - op.line_width) / 2)
        out.append(
            f'<ellipse cx="{_n(cx)}" cy="{_n(cy)}" rx="{_n(rx)}" ry="{_n(ry)}" fill="none" '
            f'stroke="{_c(op.outline)}" stroke-width="{_n(op.line_width)}"/>'
        )
    return out


def _polygon(op: Polygon) -> str:
    points = " ".join(f"{_n(x)},{_n(y)}" for x, y in op.points)
    fill = _c(op.fill) if op.fill is not None else "none"
    stroke = ""
    if op.outline is not None and op.line_width > 0:
        stroke = (
            f' stroke="{_c(op.outline)}" stroke-width="{_n(op.line_width)}" stroke-linejoin="round"'
        )
    return f'<polygon points="{points}" fill="{fill}"{stroke}/>'


def _text(op: Text) -> str:
    """The text's glyph outlines, each placed at the pen position on the baseline."""
    if not op.text:
        return ""
    font = font_for(op.text, op.bold, op.lang)
    widths = char_widths(op.text, font, op.height)
    total = sum(widths)
    pen = op.start(total)
    baseline = op.y + baseline_offset(font) * op.height
    outlines = _outlines(font)
    scale = op.height / outlines.units_per_em
    glyphs = font_metrics(font).face.charToGlyph
    parts: list[str] = []
    for char, advance in zip(op.text, widths, strict=True):
        path = _glyph_path(font, glyphs.get(ord(char), 0))
        if path and not char.isspace():
            parts.append(
                f'<path transform="matrix({scale:.8g} 0 0 {-scale:.8g} {_n(pen)} '
                f'{_n(baseline)})" d="{path}"/>'
            )
        pen += advance
    label = quoteattr("".join(c for c in op.text if c >= " " or c in "\t\n\r"))
    return f'<g fill="{_c(op.colour)}" aria-label={label}>{"".join(parts)}</g>'


_ATTR_ESCAPES = (
    ("&", "&amp;"),
    (">", "&gt;"),
    ("<", "&lt;"),
    ("\n", "&#10;"),
    ("\r", "&#13;"),
    ("\t", "&#9;"),
)


def quoteattr(text: str) -> str:
    """`text` as a quoted XML attribute value, the same string as xml.sax.saxutils.quoteattr
    makes; written here because importing xml.sax.saxutils imports urllib.request, http.client,
    ssl and email (15 ms of every build's start, for one function)."""
    for plain, escaped in _ATTR_ESCAPES:
        text = text.replace(plain, escaped)
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


@cache
def _outlines(font: FontFile) -> Outlines:
    return Outlines(font_file(font_path(font)))


@cache
def _glyph_path(font: FontFile, gid: int) -> str:
    return svg_path(_outlines(font).contours(gid))


def _c(colour: RGB) -> str:
    return f"#{colour[0]:02x}{colour[1]:02x}{colour[2]:02x}"


def _n(value: float, digits: int = 4) -> str:
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
