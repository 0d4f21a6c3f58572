"""Drawing a schematic board's plan (`schematic.schematic`): link lines in one style per kind,
towns, leader lines and labels. Only the draw calls `bands.Recorder` keeps are used (line,
ellipse, text of one line), so large boards are still drawn in bands."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from PIL import ImageDraw

from compiler.backends.art.labeltext import HALO, label_font
from compiler.backends.art.planar import Pt
from compiler.backends.art.schematic import TOWN_RADIUS, Label
from compiler.backends.art.schematic_links import LinkLine

Colour = tuple[int, int, int]
INK: Colour = (40, 40, 40)
PAPER: Colour = (244, 238, 222)
WATER: Colour = (120, 160, 215)
ROAD: Colour = (150, 60, 30)


@dataclass(frozen=True, slots=True)
class LinkStyle:
    """How a link kind is drawn: colour, width, dashes (0 = solid) and a double stroke."""

    colour: Colour
    width: int
    dash: int = 0
    gap: int = 0
    double: bool = False


LINK_STYLES = {
    "land": LinkStyle((95, 75, 45), 4),
    "sea": LinkStyle((25, 60, 150), 4, 14, 8),
    "coast": LinkStyle((20, 115, 115), 3, 6, 5),
    "strait": LinkStyle((170, 40, 40), 3, double=True),
    "restricted": LinkStyle((190, 40, 40), 4, 6, 6),
    "major": LinkStyle(ROAD, 7),
    "minor": LinkStyle(ROAD, 3),
}
"""Adjacency kinds (area maps) and road classes (point maps); any other kind is `OTHER`."""
OTHER = LinkStyle((90, 90, 90), 2)
POINT_DEFAULT = LinkStyle(ROAD, 3)


def draw_links(draw: ImageDraw.ImageDraw, links: tuple[LinkLine, ...], roads: bool) -> None:
    """Each link once, in its kind's style; a river crossing as a ring at its middle."""
    for link in links:
        style = LINK_STYLES.get(link.kind, POINT_DEFAULT if roads else OTHER)
        _stroke(draw, link.start, link.end, style)
        if link.river:
            mx, my = (link.start[0] + link.end[0]) / 2, (link.start[1] + link.end[1]) / 2
            draw.ellipse([mx - 7, my - 7, mx + 7, my + 7], outline=WATER, width=4)


def _stroke(draw: ImageDraw.ImageDraw, p: Pt, q: Pt, style: LinkStyle) -> None:
    if style.double:
        length = math.hypot(q[0] - p[0], q[1] - p[1]) or 1.0
        nx, ny = -(q[1] - p[1]) / length * 3, (q[0] - p[0]) / length * 3
        for side in (-1, 1):
            a = (p[0] + side * nx, p[1] + side * ny)
            b = (q[0] + side * nx, q[1] + side * ny)
            draw.line([a, b], fill=style.colour, width=style.width)
        return
    if not style.dash:
        draw.line([p, q], fill=style.colour, width=style.width)
        return
    length = math.hypot(q[0] - p[0], q[1] - p[1])
    at = 0.0
    while at < length:
        upto = min(length, at + style.dash)
        a = (p[0] + (q[0] - p[0]) * at / length, p[1] + (q[1] - p[1]) * at / length)
        b = (p[0] + (q[0] - p[0]) * upto / length, p[1] + (q[1] - p[1]) * upto / length)
        draw.line([a, b], fill=style.colour, width=style.width)
        at = upto + style.gap


def draw_towns(draw: ImageDraw.ImageDraw, towns: list[tuple[Pt, Colour]], width: int = 3) -> None:
    r = TOWN_RADIUS
    for (x, y), ring in towns:
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(255, 255, 255), outline=ring, width=width)


def draw_labels(
    draw: ImageDraw.ImageDraw, labels: tuple[Label, ...], grounds: Mapping[str, Colour]
) -> None:
    """Leader lines, then the labels over them with a halo in the colour under them."""
    for label in labels:
        if label.leader is not None:
            draw.line(list(label.leader), fill=INK, width=2)
    for label in labels:
        font = label_font(label.size)
        halo = grounds.get(label.ground, PAPER)
        for line, anchor in zip(label.lines, label.anchors, strict=True):
            draw.text(
                anchor,
                line,
                font=font,
                fill=INK,
                anchor="mm",
                stroke_width=HALO,
                stroke_fill=halo,
            )
