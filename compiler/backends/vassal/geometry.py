"""Where things are on a generated board: hex centres (VASSAL's own formula), areas, towns and
box zones, and how a game's hex id format maps to VASSAL's grid numbering."""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat

from compiler.backends.art.planar import point_in_polygon
from compiler.model.maps import Art, GameMap, HexGrid, Sheet
from compiler.rules.placed import Placement

BOX_W, BOX_H, BOX_GAP, MARGIN = 180, 110, 12, 24
Point = tuple[int, int]


class GeometryError(Exception):
    """The map cannot be laid out (an id format VASSAL's numbering cannot express)."""


@dataclass(frozen=True, slots=True)
class Numbering:
    """VASSAL HexGridNumbering for ids like N1523 (prefix N, 2+2 digits) or 48.22 (sep '.')."""

    prefix: str
    separator: str
    suffix: str
    col_digits: int
    row_digits: int

    def name(self, sheet: str, col: int, row: int) -> str:
        prefix = self.prefix.replace("{sheet}", sheet)
        suffix = self.suffix.replace("{sheet}", sheet)
        return f"{prefix}{col:0{self.col_digits}d}{self.separator}{row:0{self.row_digits}d}{suffix}"


def numbering(id_format: str) -> Numbering:
    """Read a hex id format: literal text and {sheet} around {col:0Nd} sep {row:0Md}."""
    parts = list(string.Formatter().parse(id_format))
    fields = [(lit, name, spec) for lit, name, spec, _conv in parts]
    names = [name for _lit, name, _spec in fields if name is not None]
    if names.count("col") != 1 or names.count("row") != 1:
        raise GeometryError(f"hex id format {id_format!r} needs {{col}} and {{row}} once each")
    col_at, row_at = names.index("col"), names.index("row")
    if row_at != col_at + 1:
        raise GeometryError(f"hex id format {id_format!r}: {{row}} must follow {{col}}")
    prefix, separator, suffix = "", "", ""
    digits: dict[str, int] = {}
    seen_col = seen_row = False
    for literal, name, spec in fields:
        if seen_row:
            suffix += literal + ("{sheet}" if name == "sheet" else "")
            continue
        if name == "col":
            prefix += literal
            digits["col"] = _digits(spec or "")
            seen_col = True
        elif name == "row":
            separator = literal
            digits["row"] = _digits(spec or "")
            seen_row = True
        elif not seen_col:
            prefix += literal + ("{sheet}" if name == "sheet" else "")
        if name not in (None, "col", "row", "sheet"):
            raise GeometryError(f"hex id format {id_format!r}: unknown field {{{name}}}")
    return Numbering(prefix, separator, suffix, digits["col"], digits["row"])


def _digits(spec: str) -> int:
    text = spec.rstrip("d").lstrip("0") if spec else ""
    return int(text) if text.isdigit() else 1


@dataclass(frozen=True, slots=True)
class BoxZone:
    id: str
    label: str
    rect: tuple[int, int, int, int]  # x0, y0, x1, y1 in board pixels

    @property
    def point(self) -> Point:
        x0, y0, x1, y1 = self.rect
        return ((x0 + x1) // 2, (y0 + y1) // 2 + 8)

    def path(self) -> str:
        x0, y0, x1, y1 = self.rect
        return f"{x0},{y0};{x1},{y0};{x1},{y1};{x0},{y1}"


@dataclass(frozen=True, slots=True)
class HexBlock:
    """A rectangle of hexes on the board with its own VASSAL HexGrid: one sheet (when ids carry
    the sheet) or all sheets (when they do not). Coordinates are board pixels."""

    name: str
    sheets: tuple[Sheet, ...]
    numbering: Numbering
    first_col: int
    last_col: int
    first_row: int
    last_row: int
    dy: float
    x0: int
    y0: int
    top: int

    @property
    def dx(self) -> float:
        return self.dy * math.sqrt(3) / 2

    def centre(self, col: int, row: int) -> Point:
        """VASSAL HexGrid.hexPointCenterFromRawIndex for a flat-topped grid."""
        c, r = col - self.first_col, row - self.first_row
        if c % 2 == 0:
            return int(self.dx * c + self.x0), int(self.dy * r + self.y0)
        return int(self.dx * c + self.x0), int(self.dy * r + int(self.dy / 2) + self.y0)

    def corners(self, col: int, row: int) -> list[tuple[float, float]]:
        cx, cy = self.centre(col, row)
        radius = 2 * self.dx / 3
        half = self.dy / 2
        return [
            (cx + radius, cy),
            (cx + radius / 2, cy + half),
            (cx - radius / 2, cy + half),
            (cx - radius, cy),
            (cx - radius / 2, cy - half),
            (cx + radius / 2, cy - half),
        ]

    def positions(self) -> dict[str, Point]:
        """Every hex's name (`numbering.name`) and centre (`centre`), in `hexes()` order: a
        sheet's name parts, each column's name part and x, each row's name part and the two
        y a column's parity gives, worked out once (a map of 3,364 hexes at 8,000 counters
        named and placed each hex with a call of each)."""
        found: dict[str, Point] = {}
        numbering, dx, dy, x0, y0 = self.numbering, self.dx, self.dy, self.x0, self.y0
        half = int(dy / 2)
        for sheet in self.sheets:
            prefix = numbering.prefix.replace("{sheet}", sheet.id)
            suffix = numbering.suffix.replace("{sheet}", sheet.id)
            rows = range(sheet.rows[0], sheet.rows[1] + 1)
            row_names = [f"{numbering.separator}{row:0{numbering.row_digits}d}" for row in rows]
            even = [int(dy * (row - self.first_row) + y0) for row in rows]
            odd = [int(dy * (row - self.first_row) + half + y0) for row in rows]
            for col in range(sheet.columns[0], sheet.columns[1] + 1):
                c = col - self.first_col
                head = f"{prefix}{col:0{numbering.col_digits}d}"
                x = int(dx * c + x0)
                names = [f"{head}{row_name}{suffix}" for row_name in row_names]
                found.update(zip(names, zip(repeat(x), odd if c % 2 else even), strict=True))
        return found

    def hexes(self) -> list[tuple[str, int, int]]:
        """(sheet id, column, row) of every hex in this block."""
        return [
            (sheet.id, col, row)
            for sheet in self.sheets
            for col in range(sheet.columns[0], sheet.columns[1] + 1)
            for row in range(sheet.rows[0], sheet.rows[1] + 1)
        ]

    @property
    def right(self) -> int:
        return int(self.dx * (self.last_col - self.first_col) + self.x0 + self.dx)

    @property
    def bottom(self) -> int:
        return int(self.dy * (self.last_row - self.first_row + 1) + self.y0 + self.dy / 2)

    def path(self) -> str:
        x0, y0, x1, y1 = MARGIN // 2, self.top, self.right, self.bottom
        return f"{x0},{y0};{x1},{y0};{x1},{y1};{x0},{y1}"

    def location_format(self) -> str:
        sheet = self.sheets[0].id if len(self.sheets) == 1 else ""
        return (
            self.numbering.prefix.replace("{sheet}", sheet)
            + "$gridLocation$"
            + self.numbering.suffix.replace("{sheet}", sheet)
        )


@dataclass(frozen=True, slots=True)
class AreaZone:
    id: str
    polygon: tuple[Point, ...]
    point: Point

    def path(self) -> str:
        return ";".join(f"{x},{y}" for x, y in self.polygon)


@dataclass(frozen=True, slots=True)
class MapLayout:
    """One VASSAL map with one board: hex blocks, area zones, towns and a strip of boxes."""

    game_map: GameMap
    width: int
    height: int
    hex_blocks: tuple[HexBlock, ...]
    areas: tuple[AreaZone, ...]
    boxes: tuple[BoxZone, ...]
    content_bottom: int
    positions: dict[str, Point] = field(default_factory=dict)  # location id -> board point


def _hex_blocks(grid: HexGrid, art: Art | None = None) -> list[HexBlock]:
    """Hex blocks stacked top to bottom; with board art, the first hex's centre and the hex
    size come from the art's calibration (`origin`, `scale` × grid size)."""
    scheme = numbering(grid.id_format)
    per_sheet = "{sheet}" in grid.id_format
    groups = [(s.id, (s,)) for s in grid.sheets] if per_sheet else [("hexes", grid.sheets)]
    blocks: list[HexBlock] = []
    top = MARGIN // 2
    dy = float(grid.size) * (art.scale if art is not None else 1.0)
    for index, (name, sheets) in enumerate(groups):
        cols = [c for s in sheets for c in s.columns]
        rows = [r for s in sheets for r in s.rows]
        x0, y0 = MARGIN + int(dy * math.sqrt(3) / 3), top + MARGIN // 2 + int(dy / 2)
        if art is not None and index == 0:
            x0, y0 = int(art.origin[0]), int(art.origin[1])
            top = max(0, y0 - int(dy / 2) - MARGIN // 2)
        block = HexBlock(
            name, sheets, scheme, min(cols), max(cols), min(rows), max(rows), dy, x0, y0, top
        )
        blocks.append(block)
        top = block.bottom + MARGIN // 2
    return blocks


def box_strip(labels: list[tuple[str, str]], top: int, width: int) -> tuple[list[BoxZone], int]:
    """Lay boxes out in rows below `top`; returns the zones and the new board height."""
    per_row = max(1, (width - MARGIN) // (BOX_W + BOX_GAP))
    zones = []
    for index, (box_id, label) in enumerate(labels):
        row, col = divmod(index, per_row)
        x = MARGIN + col * (BOX_W + BOX_GAP)
        y = top + BOX_GAP + row * (BOX_H + BOX_GAP)
        zones.append(BoxZone(box_id, label, (x, y, x + BOX_W, y + BOX_H)))
    rows = math.ceil(len(labels) / per_row) if labels else 0
    return zones, top + rows * (BOX_H + BOX_GAP) + MARGIN


def inside(point: tuple[float, float], polygon: tuple[Point, ...]) -> bool:
    """Even-odd ray casting, as java.awt.Polygon.contains for interior points."""
    return point_in_polygon(point, polygon)


def interior_point(polygon: tuple[Point, ...], earlier: list[tuple[Point, ...]]) -> Point | None:
    """A point inside the polygon and in no earlier zone (VASSAL names a point after the first
    zone containing it), as near the mean of the vertices as possible."""
    mx = sum(p[0] for p in polygon) / len(polygon)
    my = sum(p[1] for p in polygon) / len(polygon)
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    box = (min(xs), min(ys), max(xs), max(ys))
    rivals = [e for e in earlier if _overlap(box, _bounds(e))]
    step = max(2, (box[2] - box[0] + box[3] - box[1]) // 120)
    candidates = [
        (x, y) for x in range(box[0] + 1, box[2], step) for y in range(box[1] + 1, box[3], step)
    ]
    candidates.sort(key=lambda p: ((p[0] - mx) ** 2 + (p[1] - my) ** 2, p))
    for x, y in candidates:
        probes = [(x + dx, y + dy) for dx, dy in _PROBE]
        if all(inside(p, polygon) for p in probes) and not any(
            inside(p, e) for e in rivals for p in probes
        ):
            return x, y
    return None


def _bounds(polygon: tuple[Point, ...]) -> tuple[int, int, int, int]:
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


_PROBE = ((0, 0), (3, 0), (-3, 0), (0, 3), (0, -3))


def layout_map(game_map: GameMap, art_size: tuple[int, int] | None = None) -> MapLayout:
    """The one board of a map: hexes or areas or towns (or the map's own art, `art_size`
    pixels), then a strip of boxes below them."""
    positions: dict[str, Point] = {}
    art = game_map.art if art_size is not None else None
    blocks = _hex_blocks(game_map.grid, art) if game_map.grid is not None else []
    for block in blocks:
        positions.update(block.positions())
    areas: list[AreaZone] = []
    drawn: list[tuple[Point, ...]] = []
    strip_items: list[tuple[str, str]] = []
    for area in game_map.areas:
        polygon = tuple((int(x), int(y)) for x, y in area.polygon)
        point = interior_point(polygon, drawn) if len(polygon) >= 3 else None
        if point is None:
            strip_items.append((area.id, area.name.en))
            continue
        areas.append(AreaZone(area.id, polygon, point))
        drawn.append(polygon)
        positions[area.id] = point
    for town in game_map.towns:
        positions[town.id] = (int(town.pos[0]), int(town.pos[1]))
    width = max(
        [game_map.width, 2 * MARGIN + 3 * (BOX_W + BOX_GAP)] + [b.right + MARGIN for b in blocks]
    )
    content = max(
        [game_map.height if game_map.kind in ("area", "point") else 0] + [b.bottom for b in blocks]
    )
    if art_size is not None:
        width, content = max(width, art_size[0]), art_size[1]
    strip_items += [(b.id, b.name.en) for b in game_map.boxes]
    boxes, height = box_strip(strip_items, content, width)
    for zone in boxes:
        positions[zone.id] = zone.point
    return MapLayout(
        game_map, width, height, tuple(blocks), tuple(areas), tuple(boxes), content, positions
    )


def setup_point(layouts: Mapping[str, MapLayout], placement: Placement) -> tuple[str, Point] | None:
    """The map id and board point of a set-up piece: its location's point on its map's board
    (every piece at one location shares it: one VASSAL stack). None for a reinforcement or a
    piece at no known place. The module's saves and the scenario pictures both place by it."""
    if placement.turn or placement.place is None:
        return None
    map_id = placement.place.map
    return map_id, layouts[map_id].positions[placement.at]
