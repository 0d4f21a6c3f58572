"""The links of a schematic board: which stretch of each adjacency or road is drawn."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from compiler.backends.art import planar
from compiler.backends.art.planar import Pt
from compiler.backends.vassal.geometry import MapLayout

STUB = 40
"""Length of a link drawn across the shared border of two touching areas."""


@dataclass(frozen=True, slots=True)
class LinkLine:
    """The drawn part of one link (adjacency or road), from `start` to `end`."""

    ends: tuple[str, str]
    kind: str
    river: bool
    start: Pt
    end: Pt


def link_lines(layout: MapLayout) -> Iterator[LinkLine]:
    """One line per link whose two ends are on the board: roads from town to town; between
    areas, the stretch of the line between their centres that lies outside both (a short
    stroke across the border when they touch or one holds the other)."""
    outlines = {z.id: z.polygon for z in layout.areas}
    for link in layout.game_map.links:
        a, b = link.ends
        p, q = layout.positions.get(a), layout.positions.get(b)
        if p is None or q is None or p == q:
            continue
        start: Pt = (float(p[0]), float(p[1]))
        end: Pt = (float(q[0]), float(q[1]))
        if a in outlines and b in outlines:
            start, end = _between(start, end, outlines[a], outlines[b])
        yield LinkLine(link.ends, link.kind, link.river, start, end)


def _between(
    p: Pt, q: Pt, first: Sequence[tuple[float, float]], second: Sequence[tuple[float, float]]
) -> tuple[Pt, Pt]:
    length = ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5
    half = STUB / 2 / length
    if planar.polygon_in_polygon(first, second):
        t = (planar.crossings(p, q, first) or [0.0])[-1]
        return planar.along(p, q, t), planar.along(p, q, min(1.0, t + 2 * half))
    if planar.polygon_in_polygon(second, first):
        t = (planar.crossings(p, q, second) or [1.0])[0]
        return planar.along(p, q, max(0.0, t - 2 * half)), planar.along(p, q, t)
    leave = (planar.crossings(p, q, first) or [0.0])[-1]
    enter = (planar.crossings(p, q, second) or [1.0])[0]
    if (enter - leave) * length < STUB:
        middle = (leave + enter) / 2
        leave, enter = middle - half, middle + half
    return planar.along(p, q, leave), planar.along(p, q, enter)
