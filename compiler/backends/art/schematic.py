"""The plan of a schematic board (an area or point map drawn without art): where each label
goes and which part of each link is drawn. `schematic(layout)` computes it once from the map's
geometry; `compiler.backends.vassal.boards` draws it, and tests read the boxes it returns.

Labels are placed greedily, in a fixed order, over candidate positions tested box against
box and box against polygon: an area's label goes inside the area where it fits (top first, so
the pieces at the area's centre leave it readable), else outside beside it with a leader line
back to it; a town's label goes beside its marker. A label never meets another label, a leader,
a town marker or an area it does not belong to (it may sit wholly inside an area that encloses
its own: an island's name on its sea). Nothing here depends on anything but the map, so the
plan, and the board, are the same for the same sources.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from compiler.backends.art import planar
from compiler.backends.art.labeltext import Shape, fitting, shapes
from compiler.backends.art.planar import Box, Pt
from compiler.backends.art.schematic_links import LinkLine, link_lines
from compiler.backends.vassal.geometry import AreaZone, MapLayout
from compiler.model.maps import GameMap

AREA_SIZES = (16, 14, 13)
"""Label sizes in pixels, largest first: 16 px stays readable at VASSAL's 50% zoom."""
SMALL_SIZES = (12, 11, 10)
"""Sizes tried inside an area whose label finds no spot beside it (dense clusters)."""
TOWN_SIZES = (16, 14, 13)
GAPS = (4, 10, 18, 30, 46, 66, 92, 124, 164, 214)
"""Distances from an area or town at which outside labels are tried, nearest first."""
NEAR = 5
"""The first distances: a label there is beside its place (tried before smaller sizes)."""
LEADER_MIN = 8
"""An outside label further than this from its place gets a leader line."""
TOWN_RADIUS = 13
RING_REACH = 320
"""How far from its place a label is looked for on rings around it; failing that, `FAR`."""
FAR = 900


@dataclass(frozen=True, slots=True)
class Label:
    """One placed label: its lines (drawn centred, anchor "mm", at `anchors`) and its box."""

    owner: str
    lines: tuple[str, ...]
    size: int
    anchors: tuple[Pt, ...]
    box: Box
    inside: bool
    leader: tuple[Pt, Pt] | None
    ground: str
    """Id of the area the label is drawn on ("" for the bare board)."""


@dataclass(frozen=True, slots=True)
class Schematic:
    labels: tuple[Label, ...]
    links: tuple[LinkLine, ...]
    placed: bool
    """Every label found a place meeting nothing (else the rest took their least bad spot)."""


@dataclass(frozen=True, slots=True)
class _Place:
    """An area or town to be labelled."""

    id: str
    text: str
    outline: tuple[Pt, ...]
    enclosing: tuple[str, ...]
    """Ids of the areas that enclose this one, innermost first."""


class _Board:
    """What placed labels must avoid, and the placement itself."""

    def __init__(self, layout: MapLayout, links: Sequence[LinkLine]) -> None:
        self.frame: Box = (2, 2, layout.width - 2, layout.content_bottom - 2)
        self.areas = {z.id: z.polygon for z in layout.areas}
        self.bounds = {z.id: planar.bounds(z.polygon) for z in layout.areas}
        self.towns = [_town_box(layout.positions[t.id]) for t in layout.game_map.towns]
        self.links = [(link.start, link.end, _seg_bounds(link.start, link.end)) for link in links]
        self.boxes: list[Box] = []
        self.cells: dict[tuple[int, int], list[Box]] = {}
        """The placed boxes (grown by a pixel) by the `CELL`-pixel squares they reach."""
        self.leaders: list[tuple[Pt, Pt]] = []
        self.leader_bounds: list[Box] = []

    def clear(self, box: Box, place: _Place, inside: bool) -> bool:
        """Whether a label box for `place` meets nothing it must not."""
        if not planar.contains_box(self.frame, box):
            return False
        if any(
            planar.boxes_overlap(box, b) for cell in _cells(box) for b in self.cells.get(cell, ())
        ):
            return False
        if any(
            planar.boxes_overlap(b, box) and planar.segment_crosses_box(p, q, box)
            for (p, q), b in zip(self.leaders, self.leader_bounds, strict=True)
        ):
            return False
        if any(planar.boxes_overlap(box, t) for t in self.towns):
            return False
        for area_id, polygon in self.areas.items():
            if (area_id == place.id and inside) or not planar.boxes_overlap(
                self.bounds[area_id], box
            ):
                continue
            if area_id in place.enclosing and (
                planar.box_in_polygon(box, polygon) or not planar.polygon_meets_box(polygon, box)
            ):
                continue
            if planar.polygon_meets_box(polygon, box):
                return False
        return True

    def cost(self, box: Box, leader: tuple[Pt, Pt] | None, place: _Place) -> float:
        """Soft costs: link lines under the label, a leader over other areas or labels."""
        cost = 12.0 * sum(
            planar.boxes_overlap(b, box) and planar.segment_crosses_box(p, q, box)
            for p, q, b in self.links
        )
        if leader is not None:
            p, q = leader
            span = _seg_bounds(p, q)
            cost += 150.0 * sum(
                1
                for area_id, polygon in self.areas.items()
                if area_id != place.id
                and area_id not in place.enclosing
                and planar.boxes_overlap(self.bounds[area_id], span)
                and planar.crossings(p, q, polygon)
            )
            cost += 0.3 * ((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5
            cost += 150.0 * sum(
                planar.boxes_overlap(b, span) and _cross(p, q, *other)
                for other, b in zip(self.leaders, self.leader_bounds, strict=True)
            )
            if any(planar.segment_crosses_box(p, q, b) for b in self.boxes):
                cost += 1000.0
        return cost

    def take(self, label: Label) -> Label:
        self.boxes.append(label.box)
        grown = planar.grow(label.box, 1)
        for cell in _cells(grown):
            self.cells.setdefault(cell, []).append(grown)
        if label.leader is not None:
            self.leaders.append(label.leader)
            self.leader_bounds.append(_seg_bounds(*label.leader))
        return label


CELL = 64


def _cells(box: Box) -> list[tuple[int, int]]:
    return [
        (x, y)
        for x in range(int(box[0] // CELL), int(box[2] // CELL) + 1)
        for y in range(int(box[1] // CELL), int(box[3] // CELL) + 1)
    ]


def _seg_bounds(p: Pt, q: Pt) -> Box:
    return planar.grow(planar.bounds((p, q)), 1)


def _cross(p: Pt, q: Pt, a: Pt, b: Pt) -> bool:
    """Whether segments p-q and a-b cross."""
    return bool(planar.crossings(p, q, (a, b))) and bool(planar.crossings(a, b, (p, q)))


def _town_box(point: tuple[int, int]) -> Box:
    x, y = point
    r = TOWN_RADIUS + 2
    return x - r, y - r, x + r, y + r


def _inside(board: _Board, place: _Place, shapes: Sequence[Shape]) -> Label | None:
    """The label inside its area, top first then centred, at the largest size that fits."""
    x0, y0, x1, y1 = planar.bounds(place.outline)
    cx = (x0 + x1) / 2
    for shape in shapes:
        r = shape.rel
        if r[2] - r[0] > x1 - x0 - 2 or r[3] - r[1] > y1 - y0 - 2:
            continue
        ys = _steps(y0 + 1 - r[1], y1 - 1 - r[3], 6)
        xs = sorted(_steps(x0 + 1 - r[0], x1 - 1 - r[2], 8), key=lambda x: (abs(x - cx), x))
        for y in ys:
            for x in xs:
                box, anchors = shape.at(x, y)
                if planar.box_in_polygon(box, place.outline) and board.clear(box, place, True):
                    return Label(
                        place.id, shape.lines, shape.size, anchors, box, True, None, place.id
                    )
    return None


def _steps(first: float, last: float, step: float) -> list[float]:
    if last < first:
        return []
    count = int((last - first) // step)
    values = [first + i * step for i in range(count + 1)]
    return values if values[-1] == last else [*values, last]


DIRECTIONS = ((0, -1), (0, 1), (1, 0), (-1, 0), (1, -1), (-1, -1), (1, 1), (-1, 1))
TOWN_DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))


def _around(target: Box, rel: Box, gap: float, ux: int, uy: int) -> Iterator[Pt]:
    """Centres of a block (box `rel` about its centre) beside `target` on side (ux, uy)."""
    x0, y0, x1, y1 = target
    xs = {1: [x1 + gap - rel[0]], -1: [x0 - gap - rel[2]]}.get(
        ux, [(x0 + x1) / 2 - (rel[0] + rel[2]) / 2, x0 - rel[0], x1 - rel[2]]
    )
    ys = {1: [y1 + gap - rel[1]], -1: [y0 - gap - rel[3]]}.get(
        uy, [(y0 + y1) / 2 - (rel[1] + rel[3]) / 2, y0 - rel[1], y1 - rel[3]]
    )
    for x in xs:
        for y in ys:
            yield x, y


def _leader(box: Box, place: _Place) -> tuple[Pt, Pt] | None:
    """From the label's box to the outline, along the line between their centres."""
    a = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    b = planar.centre(place.outline)
    span = planar.segment_box(a, b, box)
    cuts = planar.crossings(a, b, place.outline)
    if span is None or not cuts:
        return None
    start, end = planar.along(a, b, span[1]), planar.along(a, b, cuts[0])
    if (end[0] - start[0]) ** 2 + (end[1] - start[1]) ** 2 < LEADER_MIN**2:
        return None
    return start, end


def _outside(
    board: _Board,
    place: _Place,
    shapes: Sequence[Shape],
    directions: Sequence[tuple[int, int]],
    reach_limit: int,
) -> Label | None:
    """The cheapest clear spot beside the place, at the nearest distance that has one: first
    on its sides, then on rings further and further around it."""
    target = planar.bounds(place.outline)
    for gap in GAPS if reach_limit else GAPS[:NEAR]:
        spots = [
            (rank + 3 * variant, shape, x, y)
            for rank, (ux, uy) in enumerate(directions)
            for variant, shape in enumerate(shapes)
            for x, y in _around(target, shape.rel, gap, ux, uy)
        ]
        found = _cheapest(board, place, spots)
        if found is not None:
            return found
    cx, cy = planar.centre(place.outline)
    reach = max(target[2] - target[0], target[3] - target[1]) / 2
    radii = range(int(reach) + GAPS[-1], int(reach) + reach_limit, RING_STEP)
    limit = 1000.0 if reach_limit < FAR else math.inf
    for index, radius in enumerate(radii):
        # The first ring with a clear spot and the next `RING_LOOKAHEAD`: the cheapest of them
        # (a leader a little longer may cross fewer areas).
        spots = [
            (3 * variant, shape, cx + r * math.cos(a), cy + r * math.sin(a))
            for r in [radius, *radii[index + 1 : index + 1 + RING_LOOKAHEAD]]
            for a in _ANGLES
            for variant, shape in enumerate(shapes)
        ]
        if _cheapest(board, place, spots[: len(_ANGLES) * len(shapes)], limit) is not None:
            return _cheapest(board, place, spots, limit)
    return None


RING_STEP = 24
RING_LOOKAHEAD = 3
_ANGLES = [math.radians(d) for d in range(90, 450, 15)]


def _cheapest(
    board: _Board,
    place: _Place,
    spots: Sequence[tuple[float, Shape, float, float]],
    limit: float = 1000.0,
) -> Label | None:
    """The clear spot of least cost; none when the least is `limit` or more (a leader across
    another label)."""
    best: tuple[float, Label] | None = None
    for rank, shape, x, y in spots:
        box, anchors = shape.at(x, y)
        if not board.clear(box, place, False):
            continue
        leader = _leader(box, place)
        cost = rank + board.cost(box, leader, place)
        if best is None or cost < best[0]:
            ground = _ground(board, box, place)
            best = (
                cost,
                Label(place.id, shape.lines, shape.size, anchors, box, False, leader, ground),
            )
    return best[1] if best is not None and best[0] < limit else None


def _ground(board: _Board, box: Box, place: _Place) -> str:
    for area_id in place.enclosing:
        if planar.box_in_polygon(box, board.areas[area_id]):
            return area_id
    return ""


def _fallback(place: _Place, shape: Shape) -> Label:
    """Below the place, meeting whatever is there (only when no spot is clear)."""
    x0, _, x1, y1 = planar.bounds(place.outline)
    box, anchors = shape.at((x0 + x1) / 2, y1 + GAPS[0] - shape.rel[1])
    return Label(place.id, shape.lines, shape.size, anchors, box, False, None, "")


def _places(layout: MapLayout) -> list[_Place]:
    areas = {a.id: a for a in layout.game_map.areas}
    zones: dict[str, AreaZone] = {z.id: z for z in layout.areas}
    places = []
    for zone in layout.areas:
        area = areas[zone.id]
        enclosing = [
            other.id
            for other in layout.areas
            if other.id != zone.id and planar.polygon_in_polygon(zone.polygon, other.polygon)
        ]
        enclosing.sort(key=lambda i: _extent(zones[i].polygon))
        text = area.name.en + (f" [{area.port}]" if area.port else "")
        places.append(_Place(zone.id, text, zone.polygon, tuple(enclosing)))
    for town in layout.game_map.towns:
        box = _town_box(layout.positions[town.id])
        outline = tuple(planar.corners(planar.grow(box, -2)))
        places.append(_Place(town.id, town.name.en, outline, ()))
    return places


def _crowding(place: _Place, places: Sequence[_Place]) -> int:
    """How many other places lie within 40 px of this one (the most crowded are placed first)."""
    near = planar.grow(planar.bounds(place.outline), 40)
    return sum(
        1
        for p in places
        if p.id != place.id and planar.boxes_overlap(near, planar.bounds(p.outline))
    )


def _extent(polygon: Sequence[tuple[float, float]]) -> float:
    x0, y0, x1, y1 = planar.bounds(polygon)
    return (x1 - x0) * (y1 - y0)


def schematic(layout: MapLayout) -> Schematic:
    """The labels and link lines of an area or point map's schematic board (the same plan for
    the same map: kept for the few boards drawn in a run, which paint it more than once)."""
    return _schematic(layout.game_map, layout.areas, layout.width, layout.content_bottom)


@lru_cache(maxsize=4)
def _schematic(
    game_map: GameMap, zones: tuple[AreaZone, ...], width: int, content_bottom: int
) -> Schematic:
    """See `schematic`; the layout's town positions are the towns' own `pos`.

    Passes, each over the places still without a label: inside the area (at 12 px at the
    least); beside it (the most crowded places first); inside at a smaller size; further out
    on rings with a leader line; anywhere within `FAR`, even across other leaders."""
    layout = MapLayout(
        game_map, width, content_bottom, (), zones, (), content_bottom, _positions(game_map, zones)
    )
    links = tuple(link_lines(layout))
    board = _Board(layout, links)
    places = _places(layout)
    towns = {t.id for t in game_map.towns}
    labels: dict[str, Label] = {}

    def run(order: Sequence[_Place], attempt: Callable[[_Place], Label | None]) -> None:
        for place in order:
            if place.id not in labels:
                found = attempt(place)
                if found is not None:
                    labels[place.id] = board.take(found)

    areas = [p for p in places if p.id not in towns]
    crowded = sorted(places, key=lambda p: -_crowding(p, places))
    run(areas, lambda p: _inside(board, p, shapes(p.text, (*AREA_SIZES, SMALL_SIZES[0]))))
    run(crowded, lambda p: _beside(board, p, p.id in towns, 0))
    run(areas, lambda p: _inside(board, p, shapes(p.text, SMALL_SIZES[1:])))
    run(crowded, lambda p: _beside(board, p, p.id in towns, RING_REACH))
    run(crowded, lambda p: _beside(board, p, p.id in towns, FAR))
    placed = len(labels) == len(places)
    for place in places:
        if place.id not in labels:
            sizes = TOWN_SIZES if place.id in towns else AREA_SIZES
            labels[place.id] = board.take(_fallback(place, shapes(place.text, sizes[-1:])[0]))
    return Schematic(tuple(labels[p.id] for p in places), links, placed)


def _positions(game_map: GameMap, zones: tuple[AreaZone, ...]) -> dict[str, tuple[int, int]]:
    """Where links end: area points and town positions, as `geometry.layout_map` has them."""
    positions = {z.id: z.point for z in zones}
    positions.update({t.id: (int(t.pos[0]), int(t.pos[1])) for t in game_map.towns})
    return positions


def _beside(board: _Board, place: _Place, town: bool, reach: int) -> Label | None:
    """Outside the place at the largest size that finds a spot within `reach` (0: on its
    sides only)."""
    directions = TOWN_DIRECTIONS if town else DIRECTIONS
    for size in TOWN_SIZES if town else AREA_SIZES:
        found = _outside(board, place, shapes(place.text, (size,)), directions, reach)
        if found is not None:
            return found
    return None


def box_labels(layout: MapLayout) -> tuple[Label, ...]:
    """The name at the top of each off-map box of the strip, on up to three lines at the
    largest size that fits the box's width (else cut short with an ellipsis)."""
    out = []
    for zone in layout.boxes:
        x0, y0, x1, _ = zone.rect
        shape = fitting(zone.label, x1 - x0 - 6)
        box, anchors = shape.at((x0 + x1) / 2, y0 + 4 - shape.rel[1])
        out.append(Label(zone.id, shape.lines, shape.size, anchors, box, True, None, "box"))
    return tuple(out)
