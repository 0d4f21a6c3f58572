"""Imposition: pieces with copies → slots on sheets. Pure geometry, in points, origin bottom-left.

Each sheet is a grid of equal slots centred in the printable area. In "mirror" duplex mode each
back sits on the next page at x' = page_width − x − w (a long-edge flip keeps y), shifted by the
back offset. In "gutter-fold" mode the fronts fill the left half of the page and the backs are
mirrored about the vertical fold line in the middle of the same page (the same formula, no offset:
folding by hand has no printer drift). In "none" mode there are no backs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.backends.sheets.options import MM, Duplex, SheetOptions


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle in points: bottom-left corner, width, height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def grown(self, by: float) -> Rect:
        """The rectangle grown by `by` on every side."""
        return Rect(self.x - by, self.y - by, self.w + 2 * by, self.h + 2 * by)

    def clipped(self, other: Rect) -> Rect:
        """The part of this rectangle inside `other`."""
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.right, other.right), min(self.top, other.top)
        return Rect(x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0))


def bounding(rects: Sequence[Rect]) -> Rect:
    """The smallest rectangle holding all of `rects` (which must not be empty)."""
    x0 = min(r.x for r in rects)
    y0 = min(r.y for r in rects)
    x1 = max(r.right for r in rects)
    y1 = max(r.top for r in rects)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def mirror(rect: Rect, page_width: float, offset: tuple[float, float] = (0.0, 0.0)) -> Rect:
    """Where a front's back goes: mirrored left-right across the page (long-edge flip)."""
    return Rect(page_width - rect.x - rect.w + offset[0], rect.y + offset[1], rect.w, rect.h)


@dataclass(frozen=True, slots=True)
class Grid:
    """Columns × rows of equal slots; row 0 is the top row, column 0 the left column."""

    cols: int
    rows: int
    slot_w: float
    slot_h: float
    gutter: float
    left: float
    top: float

    @property
    def capacity(self) -> int:
        return self.cols * self.rows

    def rect(self, row: int, col: int) -> Rect:
        """The slot at (row, col)."""
        x = self.left + col * (self.slot_w + self.gutter)
        y = self.top - (row + 1) * self.slot_h - row * self.gutter
        return Rect(x, y, self.slot_w, self.slot_h)


def fit_grid(area: Rect, slot_w: float, slot_h: float, gutter: float) -> Grid:
    """The largest grid of slots that fits `area`, centred in it; ValueError when none fits."""
    cols = int((area.w + gutter + 1e-6) // (slot_w + gutter))
    rows = int((area.h + gutter + 1e-6) // (slot_h + gutter))
    if cols < 1 or rows < 1:
        raise ValueError(
            f"a {slot_w / MM:.4g} x {slot_h / MM:.4g} mm piece does not fit the printable area "
            f"({area.w / MM:.4g} x {area.h / MM:.4g} mm)"
        )
    used_w = cols * slot_w + (cols - 1) * gutter
    used_h = rows * slot_h + (rows - 1) * gutter
    left = area.x + (area.w - used_w) / 2
    top = area.top - (area.h - used_h) / 2
    return Grid(cols, rows, slot_w, slot_h, gutter, left, top)


@dataclass(frozen=True, slots=True)
class Placement:
    """One copy of one piece on a sheet: its front slot and, with backs, its back slot."""

    item: int
    copy: int
    sheet: int
    row: int
    col: int
    front: Rect
    back: Rect | None


@dataclass(frozen=True, slots=True)
class Imposition:
    """Every placement of every copy, sheet by sheet."""

    page_w: float
    page_h: float
    mode: Duplex
    grid: Grid
    sheets: int
    placements: tuple[Placement, ...]

    def on_sheet(self, sheet: int) -> tuple[Placement, ...]:
        """The placements of one sheet, in slot order."""
        return tuple(p for p in self.placements if p.sheet == sheet)


def printable_area(options: SheetOptions) -> Rect:
    """Where fronts go: inside the margins; gutter-fold: the left half, short of the fold gap."""
    page_w, page_h = options.page_pt
    margin = options.margin_mm * MM
    width = page_w - 2 * margin
    if options.duplex == "gutter-fold":
        width = page_w / 2 - options.fold_gap_mm * MM / 2 - margin
    return Rect(margin, margin, width, page_h - 2 * margin)


def sheet_grid(options: SheetOptions, slot_mm: tuple[float, float]) -> Grid:
    """The grid of slots `slot_mm` big on a sheet; ValueError when none fits."""
    return fit_grid(
        printable_area(options), slot_mm[0] * MM, slot_mm[1] * MM, options.gutter_mm * MM
    )


def impose(
    copies: Sequence[int], options: SheetOptions, slot_mm: tuple[float, float]
) -> Imposition:
    """Place `copies[i]` copies of each piece i, in order, row by row, sheet by sheet."""
    page_w, page_h = options.page_pt
    grid = sheet_grid(options, slot_mm)
    offset = _back_offset(options)
    placements: list[Placement] = []
    for item, count in enumerate(copies):
        for copy in range(count):
            sheet, slot = divmod(len(placements), grid.capacity)
            row, col = divmod(slot, grid.cols)
            front = grid.rect(row, col)
            back = None if options.duplex == "none" else mirror(front, page_w, offset)
            placements.append(Placement(item, copy, sheet, row, col, front, back))
    sheets = -(-len(placements) // grid.capacity)
    return Imposition(page_w, page_h, options.duplex, grid, sheets, tuple(placements))


def _back_offset(options: SheetOptions) -> tuple[float, float]:
    """The printer's back offset in points; none for gutter-fold (folded by hand)."""
    if options.duplex != "mirror":
        return (0.0, 0.0)
    return options.back_offset_mm[0] * MM, options.back_offset_mm[1] * MM
