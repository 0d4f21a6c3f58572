"""VASSAL's grids read from a module: how each names a point of its board, and every named
point it has (hex and cell centres, region points, zone outlines), in board pixels.

The naming follows VASSAL's HexGrid/HexGridNumbering, SquareGrid/SquareGridNumbering,
RegionGrid and ZonedGrid: raw column and row from the origin, then the numbering's offsets,
descending counts, stagger, alphabetic or zero-padded parts and its location format.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lxml import etree

from compiler.backends.vassal.geometry import inside

GRID = "VASSAL.build.module.map.boardPicker.board."
MAX_CELLS = 100_000
Point = tuple[int, int]


def tag_name(element: etree._Element) -> str:
    """The class name of a component (`HexGrid`), whatever its package."""
    return str(element.tag).rsplit(".", 1)[-1]


def _float(element: etree._Element, name: str, default: float) -> float:
    try:
        value = float(element.get(name, "") or default)
    except ValueError:
        return default
    return value if math.isfinite(value) else default


def _int(element: etree._Element, name: str, default: int) -> int:
    return int(_float(element, name, default))


def _bool(element: etree._Element, name: str, default: bool) -> bool:
    text = element.get(name)
    return default if text is None else text.strip().lower() == "true"


@dataclass(frozen=True, slots=True)
class Numbering:
    """RegularGridNumbering (and HexGridNumbering's stagger)."""

    first: str = "H"
    sep: str = ""
    h_type: str = "N"
    v_type: str = "N"
    h_leading: int = 1
    v_leading: int = 1
    h_off: int = 1
    v_off: int = 1
    h_descend: bool = False
    v_descend: bool = False
    stagger: bool = True
    location_format: str = "$gridLocation$"

    @classmethod
    def read(cls, element: etree._Element) -> Numbering:
        return cls(
            first=(element.get("first") or "H")[:1].upper(),
            sep=element.get("sep", ""),
            h_type=(element.get("hType") or "N")[:1].upper(),
            v_type=(element.get("vType") or "N")[:1].upper(),
            h_leading=_int(element, "hLeading", 1),
            v_leading=_int(element, "vLeading", 1),
            h_off=_int(element, "hOff", 1),
            v_off=_int(element, "vOff", 1),
            h_descend=_bool(element, "hDescend", False),
            v_descend=_bool(element, "vDescend", False),
            stagger=_bool(element, "stagger", True),
            location_format=element.get("locationFormat") or "$gridLocation$",
        )

    def name(self, column: int, row: int) -> str:
        col_name = _part(column + self.h_off, self.h_type, self.h_leading)
        row_name = _part(row + self.v_off, self.v_type, self.v_leading)
        grid = (
            col_name + self.sep + row_name if self.first == "H" else row_name + self.sep + col_name
        )
        return (
            self.location_format.replace("$gridLocation$", grid)
            .replace("$row$", row_name)
            .replace("$column$", col_name)
        )


def _part(value: int, kind: str, leading: int) -> str:
    text = "-" if value < 0 else ""
    value = abs(value)
    if kind == "A":
        return text + chr(ord("A") + value % 26) * (value // 26 + 1)
    while leading > 0 and value < 10**leading:
        text += "0"
        leading -= 1
    return text + str(value)


@dataclass
class HexGrid:
    dx: float
    dy: float
    x0: int
    y0: int
    sideways: bool
    numbering: Numbering | None
    size: tuple[int, int] = (0, 0)

    @classmethod
    def read(cls, element: etree._Element, size: tuple[int, int]) -> HexGrid:
        dy = _float(element, "dy", 64.0)
        dx = _float(element, "dx", 0.0) or dy * math.sqrt(3) / 2
        numbering = next(
            (Numbering.read(c) for c in element if tag_name(c) == "HexGridNumbering"), None
        )
        return cls(
            dx, dy, _int(element, "x0", 0), _int(element, "y0", 32),
            _bool(element, "sideways", False), numbering, size,
        )  # fmt: skip

    def raw(self, x: int, y: int) -> tuple[int, int]:
        if self.sideways:
            x, y = y, x
        col = math.floor((x - self.x0) / self.dx + 0.5)
        shift = self.dy / 2 if col % 2 else 0.0
        return col, math.floor((y - self.y0 - shift) / self.dy + 0.5)

    def centre(self, col: int, row: int) -> Point:
        x = int(self.dx * col + self.x0)
        y = int(self.dy * row + (int(self.dy / 2) if col % 2 else 0) + self.y0)
        return (y, x) if self.sideways else (x, y)

    def name(self, x: int, y: int) -> str | None:
        if self.numbering is None:
            return None
        return self.name_raw(*self.raw(x, y))

    def name_raw(self, col: int, row: int) -> str:
        assert self.numbering is not None
        n = self.numbering
        width, height = self.size
        if self.sideways:
            max_rows, max_cols = (
                math.floor(width / self.dy + 0.5),
                math.floor(height / self.dx + 0.5),
            )
        else:
            max_rows, max_cols = (
                math.floor(height / self.dy + 0.5),
                math.floor(width / self.dx + 0.5),
            )
        c, r = col, row
        if self.sideways:
            c = max_rows - col if n.v_descend else col
            r = max_cols - row if n.h_descend else row
        else:
            c = max_cols - col if n.h_descend else col
            r = max_rows - row if n.v_descend else row
        if n.stagger and col % 2:
            down = n.h_descend if self.sideways else n.v_descend
            r += -1 if down else 1
        return n.name(c, r)

    def raw_range(self) -> tuple[range, range]:
        """Raw columns and rows whose centres lie on the board."""
        width, height = self.size
        if self.sideways:
            width, height = height, width
        cols = range(math.ceil(-self.x0 / self.dx), math.floor((width - self.x0) / self.dx) + 1)
        rows = range(math.ceil(-self.y0 / self.dy), math.floor((height - self.y0) / self.dy) + 1)
        return cols, rows

    def cells(self) -> list[tuple[str, Point]]:
        if self.numbering is None:
            return []
        cols, rows = self.raw_range()
        if len(cols) * len(rows) > MAX_CELLS:
            return []
        return [(self.name_raw(c, r), self.centre(c, r)) for c in cols for r in rows]

    def native(self) -> bool:
        """A numbering the countermix hex grid writes back the same: flat-topped columns,
        numeric column then row, counted up, no stagger."""
        n = self.numbering
        return (
            n is not None and not self.sideways and n.first == "H" and n.h_type == "N"
            and n.v_type == "N" and not n.h_descend and not n.v_descend and not n.stagger
            and "$row$" not in n.location_format and "$column$" not in n.location_format
            and n.location_format.count("$gridLocation$") == 1 and "$" not in
            n.location_format.replace("$gridLocation$", "")
            and not any(ch in n.sep + n.location_format for ch in "{}")
        )  # fmt: skip


@dataclass
class SquareGrid:
    dx: float
    dy: float
    x0: int
    y0: int
    numbering: Numbering | None
    size: tuple[int, int] = (0, 0)

    @classmethod
    def read(cls, element: etree._Element, size: tuple[int, int]) -> SquareGrid:
        numbering = next(
            (Numbering.read(c) for c in element if tag_name(c) == "SquareGridNumbering"), None
        )
        return cls(
            _float(element, "dx", 48.0), _float(element, "dy", 48.0),
            _int(element, "x0", 24), _int(element, "y0", 24), numbering, size,
        )  # fmt: skip

    def _name(self, col: int, row: int) -> str:
        assert self.numbering is not None
        n = self.numbering
        width, height = self.size
        if n.h_descend:
            col = math.floor(width / self.dx + 0.5) - col
        if n.v_descend:
            row = math.floor(height / self.dy + 0.5) - row
        return n.name(col, row)

    def name(self, x: int, y: int) -> str | None:
        if self.numbering is None:
            return None
        col = math.floor((x - self.x0) / self.dx + 0.5)
        return self._name(col, math.floor((y - self.y0) / self.dy + 0.5))

    def cells(self) -> list[tuple[str, Point]]:
        if self.numbering is None:
            return []
        width, height = self.size
        cols = range(math.ceil(-self.x0 / self.dx), math.floor((width - self.x0) / self.dx) + 1)
        rows = range(math.ceil(-self.y0 / self.dy), math.floor((height - self.y0) / self.dy) + 1)
        if len(cols) * len(rows) > MAX_CELLS:
            return []
        return [
            (self._name(c, r), (int(c * self.dx + self.x0), int(r * self.dy + self.y0)))
            for c in cols
            for r in rows
        ]


@dataclass
class RegionGrid:
    regions: list[tuple[str, Point]]

    @classmethod
    def read(cls, element: etree._Element) -> RegionGrid:
        return cls(
            [
                (r.get("name", ""), (_int(r, "originx", 0), _int(r, "originy", 0)))
                for r in element
                if tag_name(r) == "Region" and r.get("name")
            ]
        )

    def name(self, x: int, y: int) -> str | None:
        if not self.regions:
            return None
        return min(self.regions, key=lambda r: (r[1][0] - x) ** 2 + (r[1][1] - y) ** 2)[0]

    def cells(self) -> list[tuple[str, Point]]:
        return list(self.regions)


AnyGrid = HexGrid | SquareGrid | RegionGrid


@dataclass
class Zone:
    name: str
    polygon: tuple[Point, ...]
    location_format: str
    grid: AnyGrid | None
    use_parent: bool

    def contains(self, x: int, y: int) -> bool:
        return inside((x, y), self.polygon)

    def label(self, grid_name: str | None) -> str:
        text = self.location_format.replace("$name$", self.name)
        return text.replace("$gridLocation$", grid_name or "")


@dataclass
class ZonedGrid:
    zones: list[Zone]
    background: AnyGrid | None = None
    problems: list[str] = field(default_factory=list)

    def name(self, x: int, y: int) -> str | None:
        for zone in self.zones:
            if zone.contains(x, y):
                grid = self.background if zone.use_parent else zone.grid
                return zone.label(grid.name(x, y) if grid is not None else None)
        return self.background.name(x, y) if self.background is not None else None


BoardGrid = AnyGrid | ZonedGrid


def read_grid(element: etree._Element, size: tuple[int, int]) -> AnyGrid | ZonedGrid | None:
    """The grid component `element` of a board of `size` pixels (None for other tags)."""
    kind = tag_name(element)
    if kind == "HexGrid":
        return HexGrid.read(element, size)
    if kind == "SquareGrid":
        return SquareGrid.read(element, size)
    if kind == "RegionGrid":
        return RegionGrid.read(element)
    if kind == "ZonedGrid":
        zoned = ZonedGrid([])
        for child in element:
            if tag_name(child) == "Zone":
                zoned.zones.append(_zone(child, size))
            elif tag_name(child) in ("HexGrid", "SquareGrid", "RegionGrid"):
                inner = read_grid(child, size)
                if isinstance(inner, HexGrid | SquareGrid | RegionGrid):
                    zoned.background = inner
        return zoned
    return None


def _zone(element: etree._Element, size: tuple[int, int]) -> Zone:
    grid: AnyGrid | None = None
    for child in element:
        inner = read_grid(child, size) if tag_name(child) != "ZonedGrid" else None
        if isinstance(inner, HexGrid | SquareGrid | RegionGrid):
            grid = inner
    return Zone(
        element.get("name", ""),
        parse_path(element.get("path", "")),
        element.get("locationFormat") or "$name$",
        grid,
        _bool(element, "useParentGrid", False),
    )


def parse_path(text: str) -> tuple[Point, ...]:
    points: list[Point] = []
    for pair in text.split(";"):
        xy = pair.split(",")
        if len(xy) == 2:
            try:
                points.append((int(float(xy[0])), int(float(xy[1]))))
            except ValueError:
                continue
    return tuple(points)
