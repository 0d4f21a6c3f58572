"""Plane geometry for schematic boards: axis-aligned boxes, polygons and segments, and the
tests label placement needs (does a box cross a polygon, does a segment cross a box)."""

from __future__ import annotations

from collections.abc import Sequence

Pt = tuple[float, float]
Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 with x0 <= x1 and y0 <= y1."""
Polygon = Sequence[tuple[float, float]]


def bounds(points: Polygon) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def boxes_overlap(a: Box, b: Box) -> bool:
    """Whether the interiors of two boxes meet (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def grow(box: Box, by: float) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def contains_box(outer: Box, inner: Box) -> bool:
    return (
        outer[0] <= inner[0] <= inner[2] <= outer[2]
        and outer[1] <= inner[1] <= inner[3] <= (outer[3])
    )


def point_in_polygon(point: Pt, polygon: Polygon) -> bool:
    """Even-odd ray casting."""
    x, y = point
    hit = False
    count = len(polygon)
    for index in range(count):
        (x1, y1), (x2, y2) = polygon[index], polygon[(index + 1) % count]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            hit = not hit
    return hit


def _edges(polygon: Polygon) -> list[tuple[Pt, Pt]]:
    return [(polygon[i], polygon[(i + 1) % len(polygon)]) for i in range(len(polygon))]


def corners(box: Box) -> list[Pt]:
    x0, y0, x1, y1 = box
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def segment_box(p: Pt, q: Pt, box: Box) -> tuple[float, float] | None:
    """The parameters [t0, t1] of segment p→q inside the box (Liang–Barsky), or None."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for step, room in (
        (-dx, p[0] - box[0]),
        (dx, box[2] - p[0]),
        (-dy, p[1] - box[1]),
        (dy, box[3] - p[1]),
    ):
        if step == 0:
            if room < 0:
                return None
            continue
        t = room / step
        if step < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return t0, t1


def segment_crosses_box(p: Pt, q: Pt, box: Box) -> bool:
    """Whether the segment passes through the box's interior by more than a touch."""
    span = segment_box(p, q, box)
    if span is None:
        return False
    length = ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5
    return bool((span[1] - span[0]) * length > 0.5)


def polygon_meets_box(polygon: Polygon, box: Box) -> bool:
    """Whether a polygon's interior and a box's interior meet."""
    if not boxes_overlap(bounds(polygon), box):
        return False
    if any(box[0] < x < box[2] and box[1] < y < box[3] for x, y in polygon):
        return True
    if any(point_in_polygon(c, polygon) for c in corners(box)):
        return True
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    if point_in_polygon(centre, polygon):
        return True
    return any(segment_crosses_box(a, b, box) for a, b in _edges(polygon))


def box_in_polygon(box: Box, polygon: Polygon) -> bool:
    """Whether the box lies inside the polygon (no edge of the polygon enters the box)."""
    if not contains_box(bounds(polygon), box):
        return False
    if not all(point_in_polygon(c, polygon) for c in corners(box)):
        return False
    return not any(segment_crosses_box(a, b, box) for a, b in _edges(polygon))


def polygon_in_polygon(inner: Polygon, outer: Polygon) -> bool:
    """Whether every vertex of `inner` lies inside `outer` (enough for the convex outlines of
    schematic maps: an island box drawn inside a sea)."""
    return all(point_in_polygon(p, outer) for p in inner)


def crossings(p: Pt, q: Pt, polygon: Polygon) -> list[float]:
    """Parameters t in [0, 1] where segment p→q crosses the polygon's edges, sorted."""
    found: list[float] = []
    rx, ry = q[0] - p[0], q[1] - p[1]
    for (ax, ay), (bx, by) in _edges(polygon):
        sx, sy = bx - ax, by - ay
        denom = rx * sy - ry * sx
        if denom == 0:
            continue
        t = ((ax - p[0]) * sy - (ay - p[1]) * sx) / denom
        u = ((ax - p[0]) * ry - (ay - p[1]) * rx) / denom
        if 0 <= t <= 1 and 0 <= u <= 1:
            found.append(t)
    return sorted(found)


def along(p: Pt, q: Pt, t: float) -> Pt:
    return p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t


def centre(polygon: Polygon) -> Pt:
    x0, y0, x1, y1 = bounds(polygon)
    return (x0 + x1) / 2, (y0 + y1) / 2
