"""NATO-style unit-type symbols as display-list ops drawn into a box (face units).

`symbol_ops` gives the symbol frame (the classic rectangle, a battlement for fortresses) and the
mark inside it; leaders are a star without a frame and "none" draws nothing. Stroke widths scale
with the box. An unknown symbol name raises ValueError.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import Box, Ellipse, Line, Op, Point, Polygon, Rect

Painter = Callable[[Box, RGB, float], list[Op]]


def line_width(box: Box) -> float:
    """Stroke width for a symbol box: a twelfth of its shorter side."""
    return min(box[2] - box[0], box[3] - box[1]) / 12


def inset(box: Box, by: float) -> Box:
    """`box` shrunk by `by` on every side."""
    return (box[0] + by, box[1] + by, box[2] - by, box[3] - by)


def _size(box: Box) -> tuple[float, float]:
    """Width and height of a box."""
    return box[2] - box[0], box[3] - box[1]


def frame(box: Box, colour: RGB, width: float) -> list[Op]:
    """The symbol rectangle."""
    return [Rect(box, outline=colour, line_width=width)]


def cross(box: Box, colour: RGB, width: float) -> list[Op]:
    """Infantry: corner-to-corner diagonals."""
    x0, y0, x1, y1 = inset(box, width / 2)
    return [
        Line(((x0, y0), (x1, y1)), colour, width),
        Line(((x0, y1), (x1, y0)), colour, width),
    ]


def diagonal(box: Box, colour: RGB, width: float) -> list[Op]:
    """Cavalry: one diagonal, lower left to upper right."""
    x0, y0, x1, y1 = inset(box, width / 2)
    return [Line(((x0, y1), (x1, y0)), colour, width)]


def dot(box: Box, colour: RGB, width: float) -> list[Op]:
    """Artillery: a filled dot in the middle."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    r = (box[3] - box[1]) * 0.2
    return [Ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)]


def oval(box: Box, colour: RGB, width: float) -> list[Op]:
    """Armour: a track oval (a fully rounded rectangle inside the frame)."""
    w, h = _size(box)
    track = (box[0] + w * 0.18, box[1] + h * 0.25, box[2] - w * 0.18, box[3] - h * 0.25)
    return [Rect(track, outline=colour, line_width=width, radius=(track[3] - track[1]) / 2)]


def star(box: Box, colour: RGB, width: float) -> list[Op]:
    """Leader: a filled five-pointed star."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    outer = min(_size(box)) / 2
    cy += outer * 0.08
    points = []
    for index in range(10):
        radius = outer if index % 2 == 0 else outer * 0.42
        angle = -math.pi / 2 + index * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return [Polygon(tuple(points), fill=colour)]


def bottom_line(box: Box, colour: RGB, width: float) -> list[Op]:
    """Supply: a horizontal bar across the lower part of the frame."""
    y = box[3] - (box[3] - box[1]) * 0.28
    return [Line(((box[0], y), (box[2], y)), colour, width)]


def flag(box: Box, colour: RGB, width: float) -> list[Op]:
    """Headquarters: a staff with a pennant inside the frame."""
    w, h = _size(box)
    x = box[0] + w * 0.3
    return [
        Line(((x, box[1] + h * 0.15), (x, box[3] - h * 0.12)), colour, width),
        Rect((x, box[1] + h * 0.15, box[0] + w * 0.72, box[1] + h * 0.5), fill=colour),
    ]


def battlement(box: Box, colour: RGB, width: float) -> list[Op]:
    """Fortress: a crenellated outline instead of the plain frame."""
    x0, y0, x1, y1 = inset(box, width / 2)
    tooth = (y1 - y0) * 0.25
    teeth = 5
    step = (x1 - x0) / teeth
    points: list[Point] = [(x0, y1), (x0, y0)]
    for index in range(teeth):
        left = x0 + index * step
        top = y0 if index % 2 == 0 else y0 + tooth
        points += [(left, top), (left + step, top)]
    points += [(x1, y0), (x1, y1), (x0, y1)]
    return [Line(tuple(points), colour, width)]


def propeller(box: Box, colour: RGB, width: float) -> list[Op]:
    """Air: two blades meeting in the middle (the NATO propeller)."""
    w, h = _size(box)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    blade_w, blade_h = w * 0.28, h * 0.32
    return [
        Ellipse((cx - blade_w, cy - blade_h / 2, cx, cy + blade_h / 2), None, colour, width),
        Ellipse((cx, cy - blade_h / 2, cx + blade_w, cy + blade_h / 2), None, colour, width),
    ]


def hull(box: Box, colour: RGB, width: float) -> list[Op]:
    """Naval: a ship's hull with a superstructure."""
    w, h = _size(box)
    deck = box[1] + h * 0.55
    keel = box[1] + h * 0.78
    shape = (
        (box[0] + w * 0.12, deck),
        (box[2] - w * 0.12, deck),
        (box[2] - w * 0.24, keel),
        (box[0] + w * 0.24, keel),
    )
    tower = (box[0] + w * 0.4, box[1] + h * 0.3, box[0] + w * 0.6, deck)
    return [Polygon(shape, fill=colour), Rect(tower, fill=colour)]


def submarine(box: Box, colour: RGB, width: float) -> list[Op]:
    """Submarine: a long rounded hull with a conning tower."""
    w, h = _size(box)
    body = (box[0] + w * 0.12, box[1] + h * 0.52, box[2] - w * 0.12, box[1] + h * 0.76)
    tower = (box[0] + w * 0.42, box[1] + h * 0.32, box[0] + w * 0.56, body[1] + h * 0.02)
    return [
        Rect(body, fill=colour, radius=(body[3] - body[1]) / 2),
        Rect(tower, fill=colour),
    ]


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float) -> tuple[Point, ...]:
    """Points along an elliptical arc, angles in degrees clockwise from 3 o'clock (y down)."""
    steps = 16
    out = []
    for index in range(steps + 1):
        angle = math.radians(start + (end - start) * index / steps)
        out.append((cx + rx * math.cos(angle), cy + ry * math.sin(angle)))
    return tuple(out)


def anchor(box: Box, colour: RGB, width: float) -> list[Op]:
    """An anchor in the middle of the box (used by marines)."""
    h = box[3] - box[1]
    cx = (box[0] + box[2]) / 2
    top, bottom = box[1] + h * 0.18, box[3] - h * 0.18
    arm = h * 0.34
    ring = h * 0.09
    bar = top + h * 0.2
    return [
        Ellipse((cx - ring, top - ring, cx + ring, top + ring), None, colour, width),
        Line(((cx, top + ring), (cx, bottom)), colour, width),
        Line(((cx - arm * 0.6, bar), (cx + arm * 0.6, bar)), colour, width),
        Line(_arc(cx, bottom - arm * 0.6, arm, arm * 0.6, 20, 160), colour, width),
    ]


def hatch(box: Box, colour: RGB, width: float) -> list[Op]:
    """Garrison: a hatched band along the bottom of the frame."""
    w, h = _size(box)
    top = box[3] - h * 0.32
    ops: list[Op] = [Line(((box[0], top), (box[2], top)), colour, width)]
    step = w / 6
    for index in range(6):
        x = box[0] + index * step
        ops.append(Line(((x, box[3]), (x + step, top)), colour, width / 2))
    return ops


def bridge(box: Box, colour: RGB, width: float) -> list[Op]:
    """Engineer: the NATO bridge "E" lying on its back."""
    w, h = _size(box)
    left, right = box[0] + w * 0.25, box[2] - w * 0.25
    top, bottom = box[1] + h * 0.35, box[3] - h * 0.3
    ops: list[Op] = [Line(((left, top), (right, top)), colour, width)]
    for x in (left, (left + right) / 2, right):
        ops.append(Line(((x, top), (x, bottom)), colour, width))
    return ops


def thin_cross(box: Box, colour: RGB, width: float) -> list[Op]:
    """The infantry cross at half the stroke width (under the marine anchor)."""
    return cross(box, colour, width / 2)


def militia(box: Box, colour: RGB, width: float) -> list[Op]:
    """Militia: the infantry cross over a broken (dashed) lower edge."""
    ops = cross(box, colour, width)
    w, h = _size(box)
    y = box[3] - h * 0.2
    dashes = 4
    step = w / (dashes * 2 - 1)
    for index in range(dashes):
        x = box[0] + index * 2 * step
        ops.append(Line(((x, y), (x + step, y)), colour, width))
    return ops


def _framed(*marks: Painter) -> Painter:
    """A painter that draws the marks, then the frame over them."""

    def paint(box: Box, colour: RGB, width: float) -> list[Op]:
        ops: list[Op] = []
        for mark in marks:
            ops.extend(mark(box, colour, width))
        return ops + frame(box, colour, width)

    return paint


def _nothing(box: Box, colour: RGB, width: float) -> list[Op]:
    """No symbol."""
    return []


PAINTERS: dict[str, Painter] = {
    "infantry": _framed(cross),
    "cavalry": _framed(diagonal),
    "artillery": _framed(dot),
    "armour": _framed(oval),
    "mechanised": _framed(cross, oval),
    "headquarters": _framed(flag),
    "leader": star,
    "supply": _framed(bottom_line),
    "fortress": battlement,
    "air": _framed(propeller),
    "naval": _framed(hull),
    "submarine": _framed(submarine),
    "marine": _framed(thin_cross, anchor),
    "garrison": _framed(hatch),
    "engineer": _framed(bridge),
    "militia": _framed(militia),
    "none": _nothing,
}
SYMBOLS: tuple[str, ...] = tuple(PAINTERS)


def symbol_ops(box: Box, symbol: str, colour: RGB) -> list[Op]:
    """The named unit-type symbol drawn into `box`; an unknown name raises ValueError."""
    painter = PAINTERS.get(symbol)
    if painter is None:
        raise ValueError(f"unknown unit symbol {symbol!r}; known: {', '.join(SYMBOLS)}")
    return painter(box, colour, line_width(box))
