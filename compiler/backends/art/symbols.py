"""NATO-style unit-type symbols drawn into a box.

`draw_symbol` draws the symbol frame (the classic rectangle, a battlement for fortresses) and the
mark inside it; leaders are a star without a frame and "none" draws nothing. Lines scale with the
box, so draw into a supersampled image and shrink it for smooth small symbols.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PIL import ImageDraw

Box = tuple[int, int, int, int]
Colour = str | tuple[int, int, int] | tuple[int, int, int, int]
Painter = Callable[[ImageDraw.ImageDraw, Box, Colour, int], None]


def line_width(box: Box) -> int:
    """Stroke width for a symbol box: about a twelfth of its shorter side, at least 1."""
    shorter = min(box[2] - box[0], box[3] - box[1])
    return max(1, round(shorter / 12))


def inset(box: Box, by: float) -> Box:
    """`box` shrunk by `by` pixels on every side."""
    step = round(by)
    return (box[0] + step, box[1] + step, box[2] - step, box[3] - step)


def frame(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """The symbol rectangle."""
    draw.rectangle(box, outline=colour, width=width)


def cross(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Infantry: corner-to-corner diagonals."""
    inner = inset(box, width / 2)
    draw.line((inner[0], inner[1], inner[2], inner[3]), fill=colour, width=width)
    draw.line((inner[0], inner[3], inner[2], inner[1]), fill=colour, width=width)


def diagonal(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Cavalry: one diagonal, lower left to upper right."""
    inner = inset(box, width / 2)
    draw.line((inner[0], inner[3], inner[2], inner[1]), fill=colour, width=width)


def dot(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Artillery: a filled dot in the middle."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    radius = (box[3] - box[1]) * 0.2
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=colour)


def oval(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Armour: a track oval (a rounded rectangle inside the frame)."""
    w, h = box[2] - box[0], box[3] - box[1]
    track = (box[0] + w * 0.18, box[1] + h * 0.25, box[2] - w * 0.18, box[3] - h * 0.25)
    radius = (track[3] - track[1]) / 2
    draw.rounded_rectangle(track, radius=radius, outline=colour, width=width)


def star(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Leader: a filled five-pointed star."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    outer = min(box[2] - box[0], box[3] - box[1]) / 2
    cy += outer * 0.08
    points = []
    for index in range(10):
        radius = outer if index % 2 == 0 else outer * 0.42
        angle = -math.pi / 2 + index * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(points, fill=colour)


def bottom_line(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Supply: a horizontal bar across the lower part of the frame."""
    y = box[3] - (box[3] - box[1]) * 0.28
    draw.line((box[0], y, box[2], y), fill=colour, width=width)


def flag(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Headquarters: a staff with a pennant inside the frame."""
    w, h = box[2] - box[0], box[3] - box[1]
    x = box[0] + w * 0.3
    draw.line((x, box[1] + h * 0.15, x, box[3] - h * 0.12), fill=colour, width=width)
    draw.rectangle((x, box[1] + h * 0.15, box[0] + w * 0.72, box[1] + h * 0.5), fill=colour)


def battlement(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Fortress: a crenellated outline instead of the plain frame."""
    x0, y0, x1, y1 = box
    tooth = (y1 - y0) * 0.25
    teeth = 5
    step = (x1 - x0) / teeth
    points: list[tuple[float, float]] = [(x0, y1), (x0, y0)]
    for index in range(teeth):
        left = x0 + index * step
        top = y0 if index % 2 == 0 else y0 + tooth
        points += [(left, top), (left + step, top)]
    points += [(x1, y0), (x1, y1), (x0, y1)]
    draw.line(points, fill=colour, width=width, joint="curve")


def propeller(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Air: two blades meeting in the middle (the NATO propeller)."""
    w, h = box[2] - box[0], box[3] - box[1]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    blade_w, blade_h = w * 0.28, h * 0.32
    draw.ellipse(
        (cx - blade_w, cy - blade_h / 2, cx, cy + blade_h / 2), outline=colour, width=width
    )
    draw.ellipse(
        (cx, cy - blade_h / 2, cx + blade_w, cy + blade_h / 2), outline=colour, width=width
    )


def hull(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Naval: a ship's hull with a superstructure."""
    w, h = box[2] - box[0], box[3] - box[1]
    deck = box[1] + h * 0.55
    keel = box[1] + h * 0.78
    draw.polygon(
        [
            (box[0] + w * 0.12, deck),
            (box[2] - w * 0.12, deck),
            (box[2] - w * 0.24, keel),
            (box[0] + w * 0.24, keel),
        ],
        fill=colour,
    )
    draw.rectangle((box[0] + w * 0.4, box[1] + h * 0.3, box[0] + w * 0.6, deck), fill=colour)


def submarine(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Submarine: a long rounded hull with a conning tower."""
    w, h = box[2] - box[0], box[3] - box[1]
    body = (box[0] + w * 0.12, box[1] + h * 0.52, box[2] - w * 0.12, box[1] + h * 0.76)
    draw.rounded_rectangle(body, radius=(body[3] - body[1]) / 2, fill=colour)
    draw.rectangle(
        (box[0] + w * 0.42, box[1] + h * 0.32, box[0] + w * 0.56, body[1] + 1), fill=colour
    )


def anchor(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """An anchor in the middle of the box (used by marines)."""
    h = box[3] - box[1]
    cx = (box[0] + box[2]) / 2
    top, bottom = box[1] + h * 0.18, box[3] - h * 0.18
    arm = h * 0.34
    ring = h * 0.09
    draw.ellipse((cx - ring, top - ring, cx + ring, top + ring), outline=colour, width=width)
    draw.line((cx, top + ring, cx, bottom), fill=colour, width=width)
    draw.line(
        (cx - arm * 0.6, top + h * 0.2, cx + arm * 0.6, top + h * 0.2), fill=colour, width=width
    )
    draw.arc((cx - arm, bottom - arm * 1.2, cx + arm, bottom), 20, 160, fill=colour, width=width)


def hatch(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Garrison: a hatched band along the bottom of the frame."""
    w, h = box[2] - box[0], box[3] - box[1]
    top = box[3] - h * 0.32
    draw.line((box[0], top, box[2], top), fill=colour, width=width)
    step = w / 6
    for index in range(7):
        x = box[0] + index * step
        draw.line((x, box[3], min(x + step, box[2]), top), fill=colour, width=max(1, width // 2))


def bridge(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Engineer: the NATO bridge "E" lying on its back."""
    w, h = box[2] - box[0], box[3] - box[1]
    left, right = box[0] + w * 0.25, box[2] - w * 0.25
    top, bottom = box[1] + h * 0.35, box[3] - h * 0.3
    draw.line((left, top, right, top), fill=colour, width=width)
    for x in (left, (left + right) / 2, right):
        draw.line((x, top, x, bottom), fill=colour, width=width)


def thin_cross(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """The infantry cross at half the stroke width (under the marine anchor)."""
    cross(draw, box, colour, max(1, width // 2))


def militia(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """Militia: the infantry cross over a broken (dashed) lower edge."""
    cross(draw, box, colour, width)
    w, h = box[2] - box[0], box[3] - box[1]
    y = box[3] - h * 0.2
    dashes = 4
    step = w / (dashes * 2 - 1)
    for index in range(dashes):
        x = box[0] + index * 2 * step
        draw.line((x, y, x + step, y), fill=colour, width=width)


def _framed(*marks: Painter) -> Painter:
    """A painter that draws the frame, then the marks inside it."""

    def paint(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
        frame(draw, box, colour, width)
        for mark in marks:
            mark(draw, box, colour, width)

    return paint


def _nothing(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, width: int) -> None:
    """No symbol."""


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


def draw_symbol(draw: ImageDraw.ImageDraw, box: Box, symbol: str, colour: Colour) -> None:
    """Draw the named unit-type symbol into `box`; an unknown name raises ValueError."""
    painter = PAINTERS.get(symbol)
    if painter is None:
        raise ValueError(f"unknown unit symbol {symbol!r}; known: {', '.join(SYMBOLS)}")
    painter(draw, box, colour, line_width(box))
