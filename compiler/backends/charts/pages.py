"""Where the charts go on the pages of charts.pdf: tables packed side by side and top to
bottom, a table kept together and moved to the next page only when it does not fit, a wide
table on a landscape page, each aid card on a page of its own under its title. Pure geometry
on the parts' sizes (in points), so the pages are decided the same way whether the parts were
drawn now or read from the cache."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.model.common import Text

MARGIN = 15.0 * 72.0 / 25.4
"""Page margin in points (15 mm)."""
GAP = 6.0 * 72.0 / 25.4
"""Space between two tables on a page (6 mm)."""
HEADING = 16.0
"""An aid card's title, in points."""
HEADING_ROOM = HEADING * 1.6
EPSILON = 0.01
START_LONG = 0.25
"""A table longer than a page starts on the current page when this share of the page's
height is left; on the next page otherwise."""
MIN_CARD_SCALE = 0.6
"""An aid card taller than a page is drawn smaller to keep it on one page, down to this (a
card that would need less continues on the next page, at full size)."""


@dataclass(frozen=True, slots=True)
class Box:
    """A part of a chart to place: its size in points and whether it wants a landscape page;
    `fills` for a part of a split chart that continues on the next page."""

    width: float
    height: float
    landscape: bool = False
    fills: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    """What is placed together: an aid card (a `heading`, its own page) or one chart's parts;
    `split` gives a long chart's parts again, the first no taller than the room it is given
    (so that the chart starts on a page that has room left)."""

    boxes: tuple[Box, ...]
    heading: Text | None = None
    split: Callable[[float], tuple[Box, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Placed:
    """Box `box` of group `group` with its bottom-left corner at (x, y), drawn `scale` times
    its size."""

    group: int
    box: int
    x: float
    y: float
    scale: float


@dataclass
class Sheet:
    """One page: its orientation, the aid card title it starts with, what is placed on it."""

    landscape: bool
    heading: Text | None = None
    placed: list[Placed] = field(default_factory=list)

    def size(self, page_pt: tuple[float, float]) -> tuple[float, float]:
        width, height = sorted(page_pt)
        return (height, width) if self.landscape else (width, height)


def room(page_pt: tuple[float, float], landscape: bool) -> tuple[float, float]:
    """Width and height between the margins of a portrait or landscape page."""
    width, height = Sheet(landscape).size(page_pt)
    return width - 2 * MARGIN, height - 2 * MARGIN


class _Flow:
    """Boxes placed in shelves: side by side while they fit across the page, then a new shelf
    below the tallest box of the last one, then a new page."""

    def __init__(self, page_pt: tuple[float, float]) -> None:
        self.page_pt = page_pt
        self.sheets: list[Sheet] = []
        self.top = 0.0  # where the current shelf starts, below the top margin
        self.shelf = 0.0  # the height of the current shelf
        self.right = 0.0  # where the current shelf's last box ends, right of the margin
        self.open = False  # whether the current sheet takes more

    def start(self, landscape: bool, heading: Text | None = None) -> None:
        self.sheets.append(Sheet(landscape, heading))
        self.top = HEADING_ROOM if heading is not None else 0.0
        self.shelf = self.right = 0.0
        self.open = True

    @property
    def landscape(self) -> bool:
        return bool(self.sheets) and self.sheets[-1].landscape

    def free(self, landscape: bool) -> float:
        """The height left below the current shelf for a box of that orientation (0 when the
        page is closed or of the other orientation)."""
        if not self.open or not self.sheets or self.sheets[-1].landscape != landscape:
            return 0.0
        below = self.top + self.shelf + GAP if self.right else self.top
        return max(0.0, room(self.page_pt, landscape)[1] - below)

    def place(self, group: int, index: int, box: Box, scale: float = 1.0) -> None:
        if not self._fit(group, index, box, scale):
            self.start(box.landscape)
            width, height = room(self.page_pt, box.landscape)
            scale = min(scale, width / box.width, (height - self.top) / box.height)
            self._put(group, index, box, scale, 0.0, self.top)
        self.open = not box.fills

    def _fit(self, group: int, index: int, box: Box, scale: float) -> bool:
        """Place the box beside the last one or below the current shelf, if it fits."""
        if not self.open or not self.sheets or (box.landscape and not self.sheets[-1].landscape):
            return False
        width, height = room(self.page_pt, self.sheets[-1].landscape)
        w, h = box.width * scale, box.height * scale
        if self.right and self.right + GAP + w <= width + EPSILON:
            if self.top + h <= height + EPSILON:
                self._put(group, index, box, scale, self.right + GAP, self.top)
                return True
        below = self.top + self.shelf + GAP if self.right else self.top
        if below + h <= height + EPSILON and w <= width + EPSILON:
            self.top, self.shelf, self.right = below, 0.0, 0.0
            self._put(group, index, box, scale, 0.0, below)
            return True
        return False

    def _put(self, group: int, index: int, box: Box, scale: float, x: float, top: float) -> None:
        sheet = self.sheets[-1]
        page_height = sheet.size(self.page_pt)[1]
        y = page_height - MARGIN - top - box.height * scale
        sheet.placed.append(Placed(group, index, MARGIN + x, y, scale))
        self.right = x + box.width * scale
        self.shelf = max(self.shelf, box.height * scale)


def paginate(groups: list[Group], page_pt: tuple[float, float]) -> list[Sheet]:
    """The sheets of charts.pdf for `groups` in order (the same groups and sizes give the
    same sheets)."""
    flow = _Flow(page_pt)
    for number, group in enumerate(groups):
        if group.heading is None:
            boxes = group.boxes
            free = flow.free(boxes[0].landscape) if group.split is not None else 0.0
            if group.split is not None and free >= START_LONG * room(page_pt, flow.landscape)[1]:
                boxes = group.split(free)
            for index, box in enumerate(boxes):
                flow.place(number, index, box)
            continue
        scale = _card_scale(group, page_pt)
        flow.start(any(box.landscape for box in group.boxes), group.heading)
        for index, box in enumerate(group.boxes):
            flow.place(number, index, box, scale)
        flow.open = False  # an aid card's page holds the card only
    return flow.sheets


CARD_SCALES = tuple(
    round(1.0 - step * 0.05, 2) for step in range(round((1.0 - MIN_CARD_SCALE) / 0.05) + 1)
)


def _card_scale(card: Group, page_pt: tuple[float, float]) -> float:
    """The largest of CARD_SCALES at which the aid card fits on one page; 1.0 when it does
    not fit even at the smallest (then it continues on the next page at its full size)."""
    for scale in CARD_SCALES:
        trial = _Flow(page_pt)
        trial.start(any(box.landscape for box in card.boxes), card.heading)
        for index, box in enumerate(card.boxes):
            trial.place(0, index, box, scale)
        if len(trial.sheets) == 1:
            return scale
    return 1.0
