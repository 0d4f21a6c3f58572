"""A chart (columns, rows, cells, footnotes, shaded cells, terrain swatches) laid out as one
display list, so the PDF page and the module's PNG are the same drawing."""

from __future__ import annotations

import functools
import hashlib
import marshal
import math
import operator
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from itertools import accumulate, chain, repeat
from pathlib import Path
from typing import Any

from compiler.backends.art.colours import RGB, parse_colour
from compiler.backends.art.counters import block_drawing, unit_drawing
from compiler.backends.art.display import (
    Anchor,
    Drawing,
    Inset,
    Line,
    Op,
    Polygon,
    Rect,
    Text,
    scaled_drawing,
)
from compiler.backends.art.fonts import text_width
from compiler.backends.charts.wrap import wrap
from compiler.backends.pergame import PerGame, PerGameMemo
from compiler.backends.rendercache import cache_key
from compiler.gcpause import no_cyclic_gc
from compiler.i18n import N_, catalogue_fingerprint, tr
from compiler.model.charts import Chart, Row
from compiler.model.common import Text as Label
from compiler.model.digests import content_digest, content_digests
from compiler.model.gamedata import GameData
from compiler.model.rowruns import RowRuns, row_digests, row_pieces, row_terrain

FONT = 9.0  # points
TITLE = 14.0
PAD = 3.0
LINE = FONT * 1.25
INK: RGB = (20, 20, 20)
RULE: RGB = (90, 90, 90)
HEAD: RGB = (225, 225, 215)
SHADE: RGB = (205, 205, 205)
SWATCH = FONT * 1.3
PAPER: RGB = (255, 255, 255)


def cell_text(cell: object, lang: str) -> str:
    if isinstance(cell, Label):
        return cell.get(lang)
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return "" if cell is None else str(cell)


@dataclass
class _Grid:
    """The table in points: column widths, wrapped lines per cell, row heights."""

    widths: list[float]
    lines: _Lines  # row (0 = header) → column → lines
    heights: list[float]
    keys: list[str] = field(default_factory=list)
    """The cache entries the layout is made of (its blocks' and its summary's: see layout_keys)."""


class _Lines:
    """A table's wrapped cell lines by row (0 = the header), read block by block (see BLOCK)
    when a row of the block is first asked for: a long table laid out from its layout summary
    (see _layout) reads the lines of the rows it draws only."""

    def __init__(self, blocks: list[tuple[int, Callable[[], list[list[list[str]]]]]]) -> None:
        self.starts: list[int] = []
        self.loaders: list[Callable[[], list[list[list[str]]]]] = []
        self.loaded: dict[int, list[list[list[str]]]] = {}
        total = 0
        for count, load in blocks:
            self.starts.append(total)
            self.loaders.append(load)
            total += count
        self.total = total

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: int) -> list[list[str]]:
        if not 0 <= index < self.total:
            raise IndexError(index)
        block = bisect_right(self.starts, index) - 1
        found = self.loaded.get(block)
        if found is None:
            found = self.loaded[block] = self.loaders[block]()
        return found[index - self.starts[block]]


def _measure(bold: bool, lang: str) -> object:
    return lambda s: text_width(s, FONT, bold, lang)


CHARTS_SOURCES = Path(__file__).parent
"""The charts back end's own code: part of every chart's key (a change to the table layout
draws every chart again), beside the renderers' fingerprint that every cache key holds."""


@functools.cache
def charts_fingerprint() -> str:
    """Hash of the charts back end's source files."""
    digest = hashlib.sha256(catalogue_fingerprint().encode())  # the tool's words in charts
    for path in sorted(CHARTS_SOURCES.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


BLOCK = 64
"""Rows (the header row counts) measured together: a long table's text is measured and
wrapped block by block, each block a cache entry, so that a table with one row changed
measures one block again."""


def _nothing(_key: str) -> bytes | None:
    """No cache: no entry."""
    return None


@dataclass
class Measures:
    """Where a table's blocks of measured rows come from and go (see BLOCK): `known` gives a
    cache entry by its key (the build's cache; none without one), `made` holds the entries
    made since (to be put in the cache). A block's key is a digest of its texts and all else
    that decides the measure (the language, the column widths, the code), so an entry can
    never be stale."""

    known: Callable[[str], bytes | None] = _nothing
    made: dict[str, bytes] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)
    """The keys asked for, in order."""
    rewritten: set[str] = field(default_factory=set)
    """The keys in `made` of entries that replace the cache's (a table's layout summary, kept
    under the table's name: see _layout), to be put whether the cache holds the key or not."""

    def fetch(self, key: str, make: Callable[[], Any]) -> Any:
        """The value under `key` (marshal), made and kept when missing or unreadable."""
        self.asked.append(key)
        data = self.made.get(key)
        if data is None:
            data = self.known(key)
        if data is not None:
            try:
                return _loads(data)
            except (EOFError, TypeError, ValueError):
                pass  # damaged: made again
        data = self.made[key] = marshal.dumps(make())
        return _loads(data)

    def forget(self) -> None:
        """No cache to ask any more, nothing made to keep or asked for."""
        self.known = _nothing
        self.made, self.asked, self.rewritten = {}, [], set()


def _loads(data: bytes) -> Any:
    """marshal.loads with the garbage collector paused: a block is thousands of small lists
    and strings, none in a cycle, and every few hundred of them made would start a collection
    (a long table's 60 blocks read back made some 140, one of them at times over a large
    game's whole heap: 0.25 s of a warm build at 8,000 counters, against 0.03 s)."""
    with no_cyclic_gc():
        return marshal.loads(data)


_MEASURES: PerGame[Measures] = PerGame(Measures)


_PIECES = operator.attrgetter("pieces")
CHART_HEAD = tuple(f.name for f in fields(Chart) if f.repr and f.name != "rows")
"""A chart's fields in its repr, but its rows."""
_FIRST = operator.itemgetter(0)
_Looks = tuple[list[str], list[str], list[str], list[int]]
"""Rows' looks spelled out for slicing (RowLooks._looks)."""


class RowLooks:
    """What decides how each row of a game's charts looks: the row's content digest
    (compiler.model.digests: the aids tell those of the rows they read back) and the content
    digests of the units of the pieces it shows, worked out once per row for a build (a tab
    of the module's charts shares its rows with the printed chart; a chart's key, its
    measured blocks and its printed parts are keyed on them). What else a piece is drawn with
    (its unit's type, nationality, side and layout: see art.identity) is one digest for the
    whole game, `kin`, in the key of every chart and part that shows pieces: a unit's own
    identity is not worked out for every piece (at 8,000 counters 8,000 of them, most of a
    warm build's chart keys). Digests instead of the rows' repr: at 8,000 counters the
    orders of battle are some 16,000 rows, each spelled out twice every build."""

    def __init__(self, game: GameData) -> None:
        self.game = game
        self.pieces: dict[str, str] = {}
        """A piece's reference (`unit-id` or `unit-id:back`) → its look (its unit's)."""
        self._terrain: str | None = None
        self._kin: str | None = None
        self.reprs: dict[int, tuple[object, str]] = {}
        """id(value) → (the value, its repr), for the charts' fields (see head)."""
        self.runs: dict[int, tuple[Sequence[Row], _Looks]] = {}
        """id(rows) → (the rows, their looks spelled out for slicing: see run)."""
        self.places: dict[int, tuple[Sequence[Row], int]] = {}
        """id(row) → (rows in `runs` that hold it, its index there): a tab of a printed chart
        (the same row objects) is looked at as a run of the printed chart's rows."""

    def kin(self) -> str:
        """A digest of every record a unit's face is drawn with besides the unit (the unit
        types, nationalities, sides and layouts: a superset of art.identity.unit_identity's),
        worked out once for the build."""
        if self._kin is None:
            game = self.game
            shared = (game.unit_types, game.game.nationalities, game.game.sides, game.layouts)
            self._kin = hashlib.sha256(repr(shared).encode("utf-8")).hexdigest()
        return self._kin

    def head(self, chart: Chart) -> str:
        """The repr of each of the chart's fields but its rows, one after the other: what a
        chart shows besides its rows. Each field's repr is remembered by the value's identity
        for the build: the module's tabs of a long chart (hundreds of them at 8,000 counters)
        share its columns and footnotes."""
        return ", ".join(map(self._repr, map(getattr, repeat(chart), CHART_HEAD)))

    def _repr(self, value: object) -> str:
        found = self.reprs.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        text = repr(value)
        self.reprs[id(value)] = (value, text)
        return text

    def terrain(self) -> str:
        """A digest of the game's terrain (its colours colour the charts' swatches), worked
        out once for the build's hundreds of charts."""
        if self._terrain is None:
            terrain = repr(self.game.game.terrain).encode("utf-8")
            self._terrain = hashlib.sha256(terrain).hexdigest()
        return self._terrain

    def shown(self, rows: Sequence[Row], kept: bool = False) -> tuple[str, bool]:
        """A digest of the looks of `rows` (a row's look: its content digest, then the looks
        of its pieces, in order: see _piece), and whether a row shows pieces; worked out in
        passes that stay in C over the rows' digests and pieces without spelling out each
        row's look (a large game's charts are some 19,000 rows: most of a warm build's chart
        keys and its printed parts' identities). Sliced from the rows' looks when `run` has
        worked them out already or when they are to be `kept` for that (a printed chart's
        rows: its parts are runs of them), else worked out without them (a module's tab is
        looked at once: spelling its rows' looks out for slicing costs more)."""
        if isinstance(rows, RowRuns):  # a long chart's rows kept in runs, or a tab of them
            return self.run(rows.whole(), rows.start, rows.stop)
        found = self.runs.get(id(rows))
        if kept or (found is not None and found[0] is rows):
            return self.run(rows, 0, len(rows))
        place = self.places.get(id(rows[0])) if rows else None
        if place is not None:
            source, start = place
            stop = start + len(rows)
            if stop <= len(source) and all(map(operator.is_, rows, source[start:stop])):
                return self.run(source, start, stop)
        pieces = list(map(_PIECES, rows))
        parts = [";".join(content_digests(rows))]
        if any(pieces):
            refs = list(chain.from_iterable(pieces))
            known = self.pieces
            new = set(refs).difference(known)
            if new:
                self._pieces(list(new))
            parts += [",".join(map(str, map(len, pieces))), ";".join(map(known.__getitem__, refs))]
        digest = hashlib.sha256("|".join(parts).encode("ascii")).hexdigest()
        return digest, len(parts) > 1

    def run(self, rows: Sequence[Row], start: int, stop: int) -> tuple[str, bool]:
        """`shown` of rows[start:stop] (the same digest), from the looks of all of `rows`
        worked out once for the build: a printed chart's key and each of its parts' identities
        (part_identity, for every way the chart is split: hundreds of parts of an order of
        battle at 8,000 counters) slice one list instead of looking at every row again."""
        if isinstance(rows, RowRuns) and rows is not rows.whole():  # a slice of kept runs
            start, stop, _step = slice(start, stop).indices(len(rows))
            return self.run(rows.whole(), rows.start + start, rows.start + max(start, stop))
        found = self.runs.get(id(rows))
        if found is None or found[0] is not rows:
            found = self.runs[id(rows)] = (rows, self._looks(rows))
            if not isinstance(rows, RowRuns):  # (kept runs' slices know their place)
                n = len(rows)
                places = zip(repeat(rows, n), range(n), strict=True)
                self.places.update(zip(map(id, rows), places, strict=True))
        digests, counts, refs, ends = found[1]
        start, stop, _step = slice(start, stop).indices(len(rows))
        stop = max(start, stop)
        parts = [";".join(digests[start:stop])]
        if ends[stop] > ends[start]:  # a row of the run shows pieces
            parts += [",".join(counts[start:stop]), ";".join(refs[ends[start] : ends[stop]])]
        digest = hashlib.sha256("|".join(parts).encode("ascii")).hexdigest()
        return digest, len(parts) > 1

    def _looks(self, rows: Sequence[Row]) -> _Looks:
        """The rows' content digests, their counts of pieces (as text), their pieces' looks
        one after the other, and where each row's pieces start in those (then where the last
        one's end), in passes that stay in C."""
        pieces = row_pieces(rows)
        refs = list(chain.from_iterable(pieces))
        known = self.pieces
        new = set(refs).difference(known)
        if new:
            self._pieces(list(new))
        counts = list(map(len, pieces))
        ends = [0, *accumulate(counts)]
        looks = list(map(known.__getitem__, refs))
        return row_digests(rows), list(map(str, counts)), looks, ends

    def _pieces(self, refs: list[str]) -> None:
        """The looks of pieces not seen before (see _piece), worked out in passes that stay in
        C when the game has the unit of each (an order of battle shows every unit: 8,000
        pieces at 8,000 counters), else one by one."""
        units = list(map(self.game.unit, map(_FIRST, map(str.partition, refs, repeat(":")))))
        if any(map(operator.is_, units, repeat(None))):  # not `in`: no record's __eq__ each
            for ref in refs:
                self._piece(ref)
            return
        self.pieces.update(zip(refs, content_digests(units), strict=True))

    def piece(self, ref: str) -> str:
        """A piece's look (see _piece), remembered for the build."""
        return self._piece(ref)

    def _piece(self, ref: str) -> str:
        """A piece's look: its unit's content digest ("" for a unit the game does not have),
        by its reference (the side it shows is in the row's digest)."""
        found = self.pieces.get(ref)
        if found is None:
            unit = self.game.unit(ref.partition(":")[0])
            found = "" if unit is None else content_digest(unit)
            self.pieces[ref] = found
        return found


_LOOKS: PerGame[list[RowLooks]] = PerGame(list)


def row_looks(game: GameData) -> RowLooks:
    """The row looks of the game being built."""
    made = _LOOKS.of(game)
    if not made:
        made.append(RowLooks(game))
    return made[0]


def measures(game: GameData) -> Measures:
    """The block entries of the game being built."""
    return _MEASURES.of(game)


Block = tuple[str, Callable[[], list[list[str]]]]
"""A block of a table's rows (see BLOCK): a digest of what decides its texts, and its rows'
texts (made only when the block is measured)."""


SUMMARISED = 2
"""Blocks a table has beyond which it is laid out with a summary (see _layout)."""


def _layout(
    blocks: list[Block],
    columns: int,
    width: float,
    lang: str,
    last_min: float,
    measured: Measures,
    name: str = "",
) -> _Grid:
    """Column widths (the last one at least `last_min`), wrapped cell lines, row heights.
    A long table given a `name` (what it is laid out for: its chart, language and width) is
    laid out with its summary kept under that name: each block's natural widths and row
    heights by the key of the block's entry (content-addressed, so a value is never stale),
    so that a warm build reads one entry instead of two per block (60 blocks for an order of
    battle of 4,000 units) and only the changed block's lines; the others' lines are read
    when a row of theirs is drawn (_Lines). The same numbers either way."""
    summary_key = _summary_key(name) if name and len(blocks) > SUMMARISED else ""
    summary = _summary(measured, summary_key) if summary_key else {}
    made: dict[str, list[float]] = {}
    widest = [
        _summarised(
            measured,
            summary,
            made,
            _natural_key(lang, digest),
            partial(_block_natural, rows, lang, digest, measured),
        )
        for digest, rows in blocks
    ]
    natural = [max(most[c] for most in widest) + 2 * PAD for c in range(columns)]
    natural[-1] = max(natural[-1], last_min)
    floor = [min(n, 60.0) for n in natural]
    widths = list(natural)
    if sum(widths) > width:  # shrink the widest columns first, never below their floor
        spare = width - sum(floor)
        extra = [n - f for n, f in zip(natural, floor, strict=True)]
        scale = max(spare, 0.0) / sum(extra) if sum(extra) else 0.0
        widths = [f + e * scale for f, e in zip(floor, extra, strict=True)]
    room = [w - 2 * PAD for w in widths]
    loaders: list[tuple[int, Callable[[], list[list[list[str]]]]]] = []
    heights: list[float] = []
    for number, (digest, rows) in enumerate(blocks):
        load = partial(_block_lines, rows, number == 0, room, lang, digest, measured)
        key = _lines_key(lang, number == 0, room, digest)
        block_heights = _summarised(measured, summary, made, key, partial(_heights, load))
        loaders.append((len(block_heights), load))
        heights += block_heights
    if summary_key and made != summary:
        measured.made[summary_key] = marshal.dumps(made)
        measured.rewritten.add(summary_key)
    keys = [summary_key] if summary_key else []
    return _Grid(widths, _Lines(loaders), heights, [*keys, *made])


def _heights(load: Callable[[], list[list[list[str]]]]) -> list[float]:
    """The heights of a block's rows from their lines."""
    return [max(map(len, row)) * LINE + 2 * PAD for row in load()]


def _summary_key(name: str) -> str:
    return cache_key("chart-layout-summary", charts_fingerprint(), name)


def _summary(measured: Measures, key: str) -> dict[str, list[float]]:
    """A table's layout summary (see _layout) from the cache; none when there is none or it
    is not one (damaged: the blocks are read instead)."""
    data = measured.known(key)
    if data is None:
        return {}
    measured.asked.append(key)  # kept with a chart's entry drawn on another core too
    try:
        found = _loads(data)
    except (EOFError, TypeError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    for key_of, values in found.items():
        if not isinstance(key_of, str) or not isinstance(values, list):
            return {}
        if not all(type(value) is float for value in values):
            return {}
    return found


def _summarised(
    measured: Measures,
    summary: dict[str, list[float]],
    made: dict[str, list[float]],
    key: str,
    work_out: Callable[[], list[float]],
) -> list[float]:
    """A block's numbers under its entry's `key`: from the table's summary when it has them
    (the entry then counted as asked for, so that it stays in the cache as long as the
    summary names it), else worked out (reading or measuring the block); noted in `made`,
    the summary to keep."""
    found = summary.get(key)
    if found is None:
        found = work_out()
    else:
        measured.asked.append(key)
    made[key] = found
    return found


def _natural_key(lang: str, digest: str) -> str:
    return cache_key("chart-natural", charts_fingerprint(), lang, digest)


def _lines_key(lang: str, header: bool, room: list[float], digest: str) -> str:
    return cache_key("chart-lines", charts_fingerprint(), lang, header, room, digest)


def _block_natural(
    rows: Callable[[], list[list[str]]], lang: str, digest: str, measured: Measures
) -> list[float]:
    """The widest text of each column of a block of rows, set bold (the header's face)."""
    key = _natural_key(lang, digest)

    def make() -> list[float]:
        block = rows()
        return [
            max(text_width(row[c], FONT, True, lang) for row in block) for c in range(len(block[0]))
        ]

    return list(measured.fetch(key, make))


def _block_lines(
    rows: Callable[[], list[list[str]]],
    header: bool,
    room: list[float],
    lang: str,
    digest: str,
    measured: Measures,
) -> list[list[list[str]]]:
    """A block of rows' cells wrapped to the columns' `room` (the first row is the header
    when `header`)."""
    key = _lines_key(lang, header, room, digest)

    def make() -> list[list[list[str]]]:
        return [
            [
                wrap(text, space, _measure(header and index == 0, lang))  # type: ignore[arg-type]
                for text, space in zip(row, room, strict=True)
            ]
            for index, row in enumerate(rows())
        ]

    return list(measured.fetch(key, make))


def _swatch(x: float, y: float, colour: RGB) -> Polygon:
    """A small hexagon in the terrain's board colour, as the board draws a hex."""
    r = SWATCH / 2
    cx, cy = x + r, y
    points = tuple(
        (cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a)))
        for a in range(0, 360, 60)
    )
    return Polygon(points, fill=colour, outline=RULE, line_width=0.6)


PIECE = 22.0
"""Side of a counter image in a chart, in points (the table's own scale)."""
PIECE_GAP = 2.0
PIECES_HEADING = N_("Counters")


_DRAWN: PerGameMemo[tuple[str, str], Drawing | None] = PerGameMemo()


def piece_drawing(game: GameData, ref: str, lang: str) -> Drawing | None:
    """The face a chart row's piece reference names: `unit-id` or `unit-id:back` (remembered
    for the game being built: setup cards, schedules and orders of battle repeat pieces)."""
    return _DRAWN.get(game, (ref, lang), partial(_piece_drawing, game, ref, lang))


def _piece_drawing(game: GameData, ref: str, lang: str) -> Drawing | None:
    unit_id, _, side = ref.partition(":")
    unit = game.unit(unit_id)
    if unit is None:
        return None
    unit_type = game.unit_type(unit.type)
    if unit_type is not None and unit_type.shape == "block":
        return block_drawing(game, unit, "label", lang)
    return unit_drawing(game, unit, "back" if side == "back" else "front", lang)


def _pieces_width(chart: Chart) -> float:
    """The natural width of the pieces column: up to eight counters side by side."""
    most = max(map(len, row_pieces(chart.rows)), default=0)
    return min(most, 8) * (PIECE + PIECE_GAP) - PIECE_GAP + 2 * PAD


PieceSource = Callable[[GameData, str, str], Drawing | None]
"""What gives a chart row's counter image by (game, piece reference, language): piece_drawing,
or for a printed part one that stands a drawing kept as a form in for it
(pieceforms.PartForms.piece): only its width and its form are used there."""


def _piece_ops(
    game: GameData,
    refs: tuple[str, ...],
    box: tuple[float, float, float, float],
    lang: str,
    pieces: PieceSource = piece_drawing,
) -> list[Op]:
    """Counter images filling a cell from its top-left, wrapping to more lines."""
    x0, y0, x1, _y1 = box
    per_line = max(1, int((x1 - x0 - 2 * PAD + PIECE_GAP) // (PIECE + PIECE_GAP)))
    ops: list[Op] = []
    for index, ref in enumerate(refs):
        drawing = pieces(game, ref, lang)
        if drawing is None:
            continue
        line, place = divmod(index, per_line)
        left = x0 + PAD + place * (PIECE + PIECE_GAP)
        top = y0 + PAD + line * (PIECE + PIECE_GAP)
        ops.append(Inset((left, top, left + PIECE * drawing.width, top + PIECE), drawing))
    return ops


def _pieces_height(count: int, width: float) -> float:
    """The height a cell `width` wide needs for `count` counter images."""
    per_line = max(1, int((width - 2 * PAD + PIECE_GAP) // (PIECE + PIECE_GAP)))
    lines = -(-count // per_line)
    return lines * (PIECE + PIECE_GAP) - PIECE_GAP + 2 * PAD if count else 0.0


@dataclass
class _Table:
    """A chart laid out `width` points wide: its grid and what each row draws besides text."""

    chart: Chart
    lang: str
    width: float
    grid: _Grid
    with_pieces: bool
    swatch_room: float
    terrain: dict[str, RGB]

    @property
    def total(self) -> float:
        return sum(self.grid.widths)

    def notes(self) -> list[str]:
        """The footnotes' lines, wrapped to the table's width."""
        measure = _measure(False, self.lang)
        return [
            line
            for note in self.chart.notes
            for line in wrap(note.get(self.lang), self.total, measure)  # type: ignore[arg-type]
        ]


_TABLES: PerGame[dict[tuple[int, str, float], tuple[Chart, _Table]]] = PerGame(dict)


def _table(game: GameData, chart: Chart, lang: str, width: float) -> _Table:
    """The chart laid out `width` points wide (remembered for the game being built: a chart
    is measured for portrait and landscape pages, then split, sometimes twice)."""
    memo = _TABLES.of(game)
    found = memo.get((id(chart), lang, width))
    if found is not None and found[0] is chart:
        return found[1]
    table = _lay_out_table(game, chart, lang, width)
    memo[(id(chart), lang, width)] = (chart, table)
    return table


def _lay_out_table(game: GameData, chart: Chart, lang: str, width: float) -> _Table:
    header = [chart.corner.get(lang)] + [c.label.get(lang) for c in chart.columns]
    with_pieces = any(row_pieces(chart.rows))
    if with_pieces:
        header.append(tr(PIECES_HEADING, lang))
    terrain = {t.id: parse_colour(t.colour) or SHADE for t in game.game.terrain}
    swatch_room = SWATCH + PAD if any(row_terrain(chart.rows)) else 0.0
    last_min = _pieces_width(chart) if with_pieces else 0.0
    blocks = _blocks(game, chart, lang, header, with_pieces)
    name = repr((chart.id, lang, width))
    grid = _layout(blocks, len(header), width - swatch_room, lang, last_min, measures(game), name)
    grid.widths[0] += swatch_room
    if with_pieces:
        room = grid.widths[-1]
        counts = list(map(len, row_pieces(chart.rows)))
        needs = {count: _pieces_height(count, room) for count in set(counts)}
        heights = grid.heights  # each row as tall as its counters need (in passes that stay in C)
        heights[1:] = map(max, heights[1:], map(needs.__getitem__, counts))
    return _Table(chart, lang, width, grid, with_pieces, swatch_room, terrain)


def layout_keys(game: GameData, chart: Chart, lang: str) -> list[str]:
    """The cache entries of every layout of the chart made for the game being built (its
    measured blocks' and summaries', at each width it was laid out: see _layout): what a
    build that places the chart without laying it out keeps in the cache, so that they are
    there when it changes."""
    return [
        key
        for (ident, table_lang, _width), (laid, table) in _TABLES.of(game).items()
        if ident == id(chart) and laid is chart and table_lang == lang
        for key in table.grid.keys
    ]


_BLOCKS: PerGame[dict[tuple[int, str], tuple[Chart, list[Block]]]] = PerGame(dict)


def _blocks(
    game: GameData, chart: Chart, lang: str, header: list[str], with_pieces: bool
) -> list[Block]:
    """The table's rows (the header row first) in blocks of BLOCK, each under a digest of the
    header (in the first), the column count and its rows' content digests (RowLooks): the
    rows' texts follow from these and the language (in the blocks' keys), so a long table
    spells out only the blocks it measures (one, when one row changed). Made once per chart
    and language for the game being built (the header and `with_pieces` follow from them):
    a long chart is laid out for portrait and landscape pages from the same blocks."""
    memo = _BLOCKS.of(game)
    found = memo.get((id(chart), lang))
    if found is not None and found[0] is chart:
        return found[1]
    blocks = _new_blocks(game, chart, lang, header, with_pieces)
    memo[(id(chart), lang)] = (chart, blocks)
    return blocks


def _new_blocks(
    game: GameData, chart: Chart, lang: str, header: list[str], with_pieces: bool
) -> list[Block]:
    digests = row_digests(chart.rows)  # each row's look's first part (RowLooks.shown)
    shape = f"{len(header)}:{with_pieces}:"
    found: list[Block] = []
    for start in range(0, len(chart.rows) + 1, BLOCK):
        first = start == 0
        body = range(max(start - 1, 0), start + BLOCK - 1)
        seen = repr(header) if first else ""
        text = shape + seen + ";".join(digests[body.start : body.stop])
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        rows = partial(_block_rows, chart, lang, header, with_pieces, body, first)
        found.append((digest, rows))
    return found


def _block_rows(
    chart: Chart, lang: str, header: list[str], with_pieces: bool, body: range, first: bool
) -> list[list[str]]:
    """A block's rows as texts, one per column (the header row first in the first block)."""
    columns = len(header) - (1 if with_pieces else 0)
    extra = [""] if with_pieces else []
    rows = [header] if first else []
    for row in chart.rows[body.start : body.stop]:
        texts = [row.label.get(lang)] + [cell_text(c, lang) for c in row.cells]
        rows.append((texts + [""] * columns)[:columns] + extra)
    return rows


def _row_ops(
    game: GameData, table: _Table, index: int, y: float, pieces: PieceSource = piece_drawing
) -> list[Op]:
    """Grid row `index` (0 = the header) with its top at `y` (its counters by `pieces`)."""
    chart, lang, grid = table.chart, table.lang, table.grid
    cells, height = grid.lines[index], grid.heights[index]
    row = chart.rows[index - 1] if index else None
    shaded = set(row.shaded) if row else set()
    ops: list[Op] = []
    x = 0.0
    for column, (lines, w) in enumerate(zip(cells, grid.widths, strict=True)):
        fill = HEAD if index == 0 else (SHADE if column - 1 in shaded else None)
        ops.append(Rect((x, y, x + w, y + height), fill=fill, outline=RULE, line_width=0.5))
        left = x + PAD
        if column == 0 and row is not None and row.terrain in table.terrain:
            ops.append(_swatch(left, y + PAD + LINE / 2, table.terrain[row.terrain]))
            left += table.swatch_room
        if table.with_pieces and column == len(cells) - 1 and row is not None:
            ops.extend(_piece_ops(game, row.pieces, (x, y, x + w, y + height), lang, pieces))
        for number, line in enumerate(lines):
            anchor: Anchor = "lm" if column == 0 else "mm"
            tx = left if column == 0 else x + w / 2
            y_line = y + PAD + LINE * (number + 0.5)
            ops.append(Text(tx, y_line, line, FONT, index == 0, INK, anchor, lang))
        x += w
    return ops


@dataclass(frozen=True)
class Part:
    """A chart, or the part of a long chart that goes on one page: its drawing and its size
    in points (drawn 1:1 on the page)."""

    drawing: Drawing
    width: float
    height: float


def _part(
    game: GameData,
    table: _Table,
    title: str,
    body: range,
    notes: bool,
    whole_title: bool,
    pieces: PieceSource = piece_drawing,
) -> Part:
    """The title, the header row, the rows `body` (0-based) and, with `notes`, the footnotes;
    with `whole_title` the paper is at least as wide as the title (a part shown as a form on
    a page is clipped to its paper). The rows' counters come from `pieces`."""
    ops: list[Op] = [Text(0.0, TITLE * 0.7, title, TITLE, True, INK, "lm", table.lang)]
    y = TITLE * 1.6
    for index in (0, *(i + 1 for i in body)):
        ops.extend(_row_ops(game, table, index, y, pieces))
        y += table.grid.heights[index]
    total = table.total
    ops.append(Line(((0.0, y), (total, y)), RULE, 0.8))
    for line in table.notes() if notes else []:
        y += LINE
        ops.append(Text(0.0, y, line, FONT * 0.9, False, INK, "lm", table.lang))
    paper_width, height = _extent(table, title, body, notes, whole_title)
    # White paper first (an opaque image), then shapes, then text: table cells never overlap,
    # and the raster back end then needs a single supersampled layer instead of one per cell.
    paper = Rect((0.0, 0.0, paper_width, height), fill=PAPER)
    ordered = [paper, *(op for op in ops if not isinstance(op, Text))] + [
        op for op in ops if isinstance(op, Text)
    ]
    return Part(scaled_drawing(ordered, paper_width, height), paper_width, height)


def _extent(
    table: _Table, title: str, body: range, notes: bool, whole_title: bool
) -> tuple[float, float]:
    """The paper's width and height of the part _part draws, worked out as it works them out
    (the same additions in the same order: the same numbers) without drawing it."""
    y = TITLE * 1.6
    heights = table.grid.heights
    for index in (0, *(i + 1 for i in body)):
        y += heights[index]
    for _line in table.notes() if notes else []:
        y += LINE
    paper_width = max(table.total, table.width * 0.3)
    if whole_title:
        paper_width = max(paper_width, _title_width(title, table.lang) + PAD)
    return paper_width, y + PAD * 2


@functools.lru_cache(maxsize=1024)
def _title_width(title: str, lang: str) -> float:
    """A part's title's width (a long chart's parts but the first share one: "(continued)")."""
    return text_width(title, TITLE, True, lang)


def chart_drawing(game: GameData, chart: Chart, lang: str = "en", width: float = 515.0) -> Drawing:
    """The chart `width` points wide; returned in drawing units (height 1.0)."""
    table = _table(game, chart, lang, width)
    return _part(game, table, chart.name.get(lang), range(len(chart.rows)), True, False).drawing


def table_height(game: GameData, chart: Chart, lang: str, width: float) -> float:
    """The whole chart's height in points when it is laid out `width` points wide."""
    table = _table(game, chart, lang, width)
    return TITLE * 1.6 + sum(table.grid.heights) + LINE * len(table.notes()) + PAD * 2


def least_height(chart: Chart) -> float:
    """A height in points the chart's table is never under, however wide it is laid out: the
    title, every row (the header too) one line tall, or one line of counters for a row that
    has some, and each footnote one line (see table_height). Worked out without laying the
    table out."""
    one_line = LINE + 2 * PAD
    shown = list(map(bool, row_pieces(chart.rows)))
    pieces = PIECE + 2 * PAD if any(shown) else 0.0
    # each row's least height in order (the same sum), in passes that stay in C
    rows = sum(map({True: max(one_line, pieces), False: max(one_line, 0.0)}.__getitem__, shown))
    return TITLE * 1.6 + one_line + rows + LINE * len(chart.notes) + PAD * 2


CONTINUED = N_("{title} (continued)")


@dataclass(frozen=True)
class PartPlan:
    """What one part of a printed chart holds: its title, the rows `body` (0-based) under the
    header row, and whether the footnotes end it."""

    title: str
    body: range
    notes: bool


def chart_parts(
    game: GameData,
    chart: Chart,
    lang: str,
    width: float,
    max_height: float,
    first_height: float | None = None,
) -> list[Part]:
    """The chart `width` points wide as one part, or, when it is taller than `max_height`,
    as parts no taller than that (see part_plans)."""
    plans = part_plans(game, chart, lang, width, max_height, first_height)
    return [draw_part(game, chart, lang, width, plan) for plan in plans]


def part_plans(
    game: GameData,
    chart: Chart,
    lang: str,
    width: float,
    max_height: float,
    first_height: float | None = None,
) -> list[PartPlan]:
    """The parts of the chart `width` points wide: one, or, when it is taller than
    `max_height`, parts no taller than that (the first no taller than `first_height` when
    given; a row always goes somewhere), each with the title (" (continued)" after the first)
    and the header row; the footnotes end the last part."""
    table = _table(game, chart, lang, width)
    heights = table.grid.heights
    top = TITLE * 1.6 + heights[0]
    tail = LINE * len(table.notes()) + PAD * 2
    spans: list[range] = []
    start, count = 0, len(chart.rows)
    while True:
        used, end = top, start
        limit = first_height if first_height is not None and not spans else max_height
        while end < count and used + heights[end + 1] + PAD * 2 <= limit:
            used += heights[end + 1]
            end += 1
        end = max(end, min(start + 1, count))
        if end == count and used + tail > limit and end - start > 1:
            end -= 1  # the footnotes do not fit under the last rows: one row moves on
        spans.append(range(start, end))
        if end >= count:
            break
        start = end
    title = chart.name.get(lang)
    return [
        PartPlan(
            title if number == 0 else tr(CONTINUED, lang, title=title),
            span,
            number == len(spans) - 1,
        )
        for number, span in enumerate(spans)
    ]


def draw_part(
    game: GameData,
    chart: Chart,
    lang: str,
    width: float,
    plan: PartPlan,
    pieces: PieceSource = piece_drawing,
) -> Part:
    """One part of the chart laid out `width` points wide, as planned by part_plans (its
    counters' drawings from `pieces`)."""
    table = _table(game, chart, lang, width)
    return _part(game, table, plan.title, plan.body, plan.notes, True, pieces)


def part_size(
    game: GameData, chart: Chart, lang: str, width: float, plan: PartPlan
) -> tuple[float, float]:
    """The width and height in points of the part draw_part draws, without drawing it."""
    table = _table(game, chart, lang, width)
    return _extent(table, plan.title, plan.body, plan.notes, True)


def part_identity(
    game: GameData, chart: Chart, lang: str, width: float, plan: PartPlan
) -> tuple[object, ...]:
    """Everything that decides how draw_part draws a part, as plain values: the language, the
    table's width and column widths, the title, the header row as laid out, the terrain
    colours, the footnotes it ends with and a digest of its rows' looks (RowLooks: their
    content and their pieces' looks, which with the column widths decide their lines and
    heights). Two parts of the same identity are drawn the same (a row's place in the whole
    chart does not count), so a part whose rows did not change can be reused; worked out
    without going through the rows' texts (a long chart's parts are hundreds of rows)."""
    table = _table(game, chart, lang, width)
    rows, _with_pieces = row_looks(game).run(chart.rows, plan.body.start, plan.body.stop)
    header = (table.grid.lines[0], table.grid.heights[0])
    notes = table.notes() if plan.notes else []
    widths = tuple(table.grid.widths)
    terrain = sorted(table.terrain.items()) if table.swatch_room else []
    shape = (table.swatch_room, table.with_pieces)
    kin = row_looks(game).kin() if table.with_pieces else ""
    return (lang, width, widths, shape, plan.title, notes, header, terrain, kin, rows)


def chart_height_pt(drawing: Drawing, width_pt: float) -> float:
    """The drawing's height in points when it is `width_pt` wide."""
    return width_pt / drawing.width
