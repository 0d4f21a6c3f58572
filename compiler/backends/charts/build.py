"""charts.pdf (the charts packed onto pages, vector, fonts embedded) and the charts' PNGs for
the module."""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import overload

from compiler.backends.art.display import Drawing
from compiler.backends.art.raster import rasterize, warm_glyphs
from compiler.backends.charts.bandpng import (
    BAND_ROWS,
    Table,
    banded_png,
    banded_rows,
    decode_entry,
    encode_table,
    kept_bands,
)
from compiler.backends.charts.pages import HEADING, MARGIN
from compiler.backends.charts.printed import (
    UNDRAWN,
    WIDE,
    Laid,
    MissingPart,
    PartRef,
    chart_entry,
    charts_document,
    drawn_document,
    entry_job,
    entry_laid,
    entry_parts,
    printed,
    sized_laid,
    split_job,
)
from compiler.backends.charts.table import (
    RowLooks,
    chart_drawing,
    charts_fingerprint,
    layout_keys,
    measures,
    row_looks,
)
from compiler.backends.charts.window import band_looks, single_pass, window_rows
from compiler.backends.files import write_atomically
from compiler.backends.pergame import PerGameMemo
from compiler.backends.rendercache import RenderCache, cache_key, digest_key, parallel_map
from compiler.backends.sheets.options import SheetOptions
from compiler.model.charts import Chart
from compiler.model.common import Text
from compiler.model.digests import are_digests
from compiler.model.gamedata import GameData
from compiler.model.rowruns import row_pieces

PNG_WIDTH = 900
CHART_SUPERSAMPLE = 1
"""Charts are straight rules and text: drawn at the final size (no visible difference from
supersampling; counter images on them are still supersampled, see raster.INSET_SUPERSAMPLE)."""
MAX_ROWS = 38
"""Rows per chart in the module's charts window; longer tables continue in the next tab
(charts.pdf splits a table by height where it is printed)."""
MAX_ROWS_WITH_PIECES = 22
"""Rows with counter images are taller."""
MANY_JOBS = 8
"""Charts to draw (PNGs and printed entries) from which they are shared out to every core; fewer
(a warm build's) are drawn here, in this process: a process forked from a warm build of a large
game costs more than the one or two charts it would draw beside the rest (after a fork every page
of the build's heap it writes to again is a page fault: at 8,000 counters some 15,000 of them,
more system time than the chart took to draw)."""


def all_charts(game: GameData, lang: str) -> list[Chart]:
    """The module's charts: the game's own tables, then the player aids derived from its data
    (model `aids`, made by the player-aids template), long ones split into tabs. `lang` names
    the language the charts will be shown in (chart records hold both). charts.pdf prints
    them by `printed.printed`."""
    del lang
    return list(_ALL_CHARTS.get(game, "", partial(_all_charts, game)))


_ALL_CHARTS: PerGameMemo[str, tuple[Chart, ...]] = PerGameMemo()
"""The module's charts of the game being built, made once: the module, the charts and
charts.pdf each ask, and a large game's orders of battle are hundreds of tabs, each a
chart record made anew (dataclasses.replace)."""


def _all_charts(game: GameData) -> tuple[Chart, ...]:
    return (*game.charts, *(page for _aid, pages in aid_tabs(game) for page in pages))


def aid_tabs(game: GameData) -> tuple[tuple[Chart, tuple[Chart, ...]], ...]:
    """Each player aid with its tabs (paged), in order: all_charts lists the tabs after the
    game's own charts. Made once per game being built."""
    return _AID_TABS.get(game, "", partial(_aid_tabs, game))


_AID_TABS: PerGameMemo[str, tuple[tuple[Chart, tuple[Chart, ...]], ...]] = PerGameMemo()


def _aid_tabs(game: GameData) -> tuple[tuple[Chart, tuple[Chart, ...]], ...]:
    return tuple((aid, tuple(paged(aid))) for aid in game.aids)


_PIECES = attrgetter("pieces")


def paged(chart: Chart) -> list[Chart]:
    """A long table split into tabs of the module's charts window, "(2/3)" added to the title."""
    per_page = MAX_ROWS_WITH_PIECES if any(row_pieces(chart.rows)) else MAX_ROWS
    count = max(1, -(-len(chart.rows) // per_page))
    pages = []
    for page in range(count):
        rows = chart.rows[page * per_page : (page + 1) * per_page]
        suffix = f" ({page + 1}/{count})" if count > 1 else ""
        name = Text(chart.name.en + suffix, chart.name.ja + suffix if chart.name.ja else "")
        pages.append(replace(chart, id=f"{chart.id}-{page + 1}", name=name, rows=rows))
    return pages


_DRAWINGS: PerGameMemo[tuple[str, str], Drawing] = PerGameMemo()


def drawing_of(game: GameData, chart: Chart, lang: str) -> Drawing:
    """A chart's drawing for the module's charts window, made once per game being built
    (chart ids are unique within a game, derived ones included)."""
    return _DRAWINGS.get(game, (chart.id, lang), partial(chart_drawing, game, chart, lang))


_RENDERED: PerGameMemo[SheetOptions, tuple[bytes, list[ChartPng]]] = PerGameMemo()


def render_charts(
    game: GameData, options: SheetOptions, cache: RenderCache | None = None
) -> tuple[bytes, TitledPngs]:
    """charts.pdf and the module's chart PNGs together, each chart's printed parts and each
    PNG one job on every core. With a `cache`, a chart drawn before is not drawn again (its
    parts and PNG come from the cache, the PDF is packed from the parts, its unchanged pages
    read back). Remembered for the game being built; `charts_pdf`,
    `chart_images` and `chart_pngs` use the result when there is one. The PNGs are (title,
    bytes) pairs, a PNG from the cache read only when it is asked for (see ChartPng)."""
    made = _RENDERED.get(game, options, partial(_render, game, options, cache or RenderCache(None)))
    return made[0], TitledPngs(made[1])


def charts_rendered(game: GameData, options: SheetOptions) -> bool:
    """Whether render_charts made this game's charts with `options` in this build (a caller
    then need not open the charts' cache to ask for them again)."""
    return options in (_RENDERED.peek(game) or {})


def chart_key(
    game: GameData, chart: Chart, lang: str, rows: RowLooks | None = None, printed: bool = False
) -> str:
    """What decides how a chart looks: the chart (all but its rows: RowLooks.head), each
    row's look (see RowLooks: `rows` remembers them for the build), the terrain colours, what
    the game's unit faces are drawn with when a row shows pieces (RowLooks.kin) and the
    code. A `printed` chart's rows' looks are kept for its parts' identities (RowLooks.run)."""
    looks = rows or RowLooks(game)
    shown, with_pieces = looks.shown(chart.rows, kept=printed)
    kin = looks.kin() if with_pieces else ""
    head = looks.head(chart)
    return cache_key("chart", charts_fingerprint(), lang, head, looks.terrain(), kin, shown)


def _render(
    game: GameData, options: SheetOptions, cache: RenderCache
) -> tuple[bytes, list[ChartPng]]:
    """Each module chart's PNG and each printed chart's entry are cache entries under the
    chart's own key (with the PNG width, or the page size): a warm build draws only the charts
    whose key changed and puts charts.pdf together from the parts, the same bytes a cold build
    writes. A printed chart's entry names its parts with their sizes, each a cache entry under
    a digest of what it shows (printed.chart_entry): a long chart with one row changed draws
    again the part that holds the row and reuses the others, and so does the chart split again
    to start mid-page. The pages are placed from the parts' sizes, and a page that shows the
    same parts in a document in the same state as before is read back as the objects it made
    (printed.charts_document): only the pages that changed are encoded, only their parts read.
    No whole charts.pdf is kept (a large game's is megabytes, stored again at every change)."""
    lang = options.lang
    measured = measures(game)
    measured.known = cache.get
    charts = all_charts(game, lang)
    groups = printed(game)
    shown = {chart.id: chart for _heading, group in groups for chart in group}
    # each chart's look worked out once (a game's own chart is both a tab and printed); by
    # the record itself, which every list here holds for the whole build
    rows = row_looks(game)
    looks = {id(c): chart_key(game, c, lang, rows, True) for c in shown.values()}
    png_look = cache_key("chart-png", PNG_WIDTH, CHART_SUPERSAMPLE)
    tab_looks = [*_own_looks(game, lang, charts, looks), *_tab_looks(game, lang, looks, cache)]
    png_keys = [digest_key("chart-png", png_look, look) for look in tab_looks]
    bands_look = cache_key("chart-png-bands", png_look, zlib.ZLIB_RUNTIME_VERSION, BAND_ROWS)
    band_keys = [cache_key(bands_look, c.id, lang) for c in charts]  # copied only by this zlib
    page_look = cache_key("chart-parts", options.page_pt, MARGIN, WIDE, HEADING)
    part_keys = {i: digest_key("chart-parts", page_look, looks[id(c)]) for i, c in shown.items()}
    # a PNG the cache holds is not read here (at 8,000 counters the charts are 114 MB): the
    # module asks for the bytes of those it does not have already (ChartPng.data)
    pngs: list[bytes | None] = [None] * len(png_keys)
    held = list(map(cache.holds, png_keys))
    cache.keep(key for key, there in zip(png_keys, held, strict=True) if there)
    cache.keep(key for key, there in zip(band_keys, held, strict=True) if there)
    entries = {i: _complete(cache, key) for i, key in part_keys.items()}
    todo_pngs = [index for index, there in enumerate(held) if not there]
    todo_parts = [i for i, entry in entries.items() if entry is None]
    drawings = {i: drawing_of(game, charts[i], lang) for i in todo_pngs}
    for drawing in drawings.values():
        warm_glyphs(drawing, _png_height(drawing))
    png_jobs = [partial(_png_job, drawings[i], _before(cache, band_keys[i])) for i in todo_pngs]
    many = len(png_jobs) + len(todo_parts) >= MANY_JOBS
    made: list[bytes] = []
    if many:  # a cold build: all of them on every core
        made = parallel_map(
            [
                *png_jobs,
                *(
                    partial(entry_job, game, shown[i], lang, options.page_pt, cache.get)
                    for i in todo_parts
                ),
            ],
            MANY_JOBS,
        )
    sized: dict[str, Laid] = {}
    unkept: dict[str, tuple[str, bytes]] = {}  # sizes to keep if the chart is split again
    for number, ident in enumerate(todo_parts):
        if many:
            made_entry = split_job(made[len(png_jobs) + number])
            entries[ident] = _keep(cache, part_keys[ident], *made_entry)
        else:  # placed by its sizes: drawn if it is not split again (printed.sized_laid)
            sized[ident] = _sized(
                cache, game, shown[ident], lang, options, part_keys[ident], unkept
            )
    pdf = _document(game, options, groups, entries, sized, part_keys, cache, unkept)
    # a warm build's few PNGs drawn here (see MANY_JOBS)
    made_pngs = made[: len(png_jobs)] if many else [job() for job in png_jobs]
    for index, made_png in zip(todo_pngs, made_pngs, strict=True):
        png, table, band_looks_made = _png_made(made_png)
        pngs[index] = png
        cache.put(png_keys[index], png)
        cache.put(band_keys[index], encode_table(png_keys[index], table, band_looks_made))
    for key, data in measured.made.items():
        if key in measured.rewritten or not cache.holds(key):
            cache.put(key, data)
    cache.keep(measured.asked)  # the blocks of a chart laid out, whatever entry names them
    measured.forget()  # the cache is the build's: not kept with the game
    cache.save()
    return pdf, [
        ChartPng(
            chart.name.get(lang),
            png if png is not None else partial(_cached_png, cache, key, game, chart, lang),
            key,
            png is not None,
        )
        for chart, key, png in zip(charts, png_keys, pngs, strict=True)
    ]


PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
"""A PNG's signature, and the empty IEND chunk that ends it."""


def _cached_png(cache: RenderCache, key: str, game: GameData, chart: Chart, lang: str) -> bytes:
    """A chart's PNG read from the cache under its key; drawn again when the entry is gone or
    is no whole PNG (damaged, or rewritten under the build): the same bytes either way."""
    data = cache.get(key)
    if data is not None and data.startswith(PNG_START) and data.endswith(PNG_END):
        return data
    return _png(drawing_of(game, chart, lang))


def _own_looks(game: GameData, lang: str, charts: list[Chart], looks: dict[int, str]) -> list[str]:
    """The keys (chart_key) of the module's tabs that are the game's own charts (the first of
    `charts`), each printed whole too: its key worked out for that (`looks`, by the record)."""
    return [_look(game, lang, chart, looks) for chart in charts[: len(game.charts)]]


def _look(game: GameData, lang: str, chart: Chart, looks: dict[int, str]) -> str:
    """A printed chart's key from `looks`, else worked out (a chart charts.pdf does not
    print: one whose id another chart has)."""
    found = looks.get(id(chart))
    if found is None:
        found = looks[id(chart)] = chart_key(game, chart, lang, row_looks(game), True)
    return found


def _tab_looks(game: GameData, lang: str, looks: dict[int, str], cache: RenderCache) -> list[str]:
    """The keys (chart_key) of the player aids' tabs, in all_charts' order. An aid's tabs'
    keys follow from the printed aid's key (its rows, its other fields, the terrain, what its
    pieces are drawn with and the code: what each tab is cut from) and the language: they
    are kept together under those, so that an aid that did not change costs one entry read
    instead of a key worked out for each of its tabs (an order of battle of 4,000 units is
    182 of them); a missing or damaged entry, they are worked out again."""
    rows = row_looks(game)
    found: list[str] = []
    for aid, tabs in aid_tabs(game):
        key = digest_key("chart-tab-keys", _look(game, lang, aid, looks), lang)
        kept = _kept_tab_looks(cache.get(key), len(tabs))
        if kept is None:
            kept = [chart_key(game, tab, lang, rows) for tab in tabs]
            cache.put(key, marshal.dumps(tuple(kept)))
        found += kept
    return found


def _kept_tab_looks(data: bytes | None, count: int) -> list[str] | None:
    """An aid's `count` tabs' keys as _tab_looks keeps them; None when there is no entry or it
    is not such a list."""
    if data is None:
        return None
    try:
        found = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return None
    if type(found) is not tuple or len(found) != count or not are_digests(found):
        return None
    return list(found)


def _document(
    game: GameData,
    options: SheetOptions,
    groups: list[tuple[Text | None, tuple[Chart, ...]]],
    entries: dict[str, bytes | None],
    sized: dict[str, Laid],
    part_keys: dict[str, str],
    cache: RenderCache,
    unkept: dict[str, tuple[str, bytes]] | None = None,
) -> bytes:
    """charts.pdf from the printed charts' entries (by chart id) or, for a chart that has none
    yet, its parts' sizes (`sized`: its entry made and kept only when its whole parts are
    shown), a long chart split again where it starts mid-page from an entry of its own (made
    when the cache has none; the sizes it was placed by kept then, from `unkept`: see
    _sized)."""
    unkept = unkept if unkept is not None else {}
    lang = options.lang
    laid = {i: entry_laid(entry) for i, entry in entries.items() if entry is not None}
    laid.update(sized)

    def complete(chart: Chart) -> Laid:
        made = chart_entry(game, chart, lang, options.page_pt, cache.get)
        return entry_laid(_keep(cache, part_keys[chart.id], *made))

    def split_at(chart: Chart, wide: bool, first: float) -> Laid:
        sizes = unkept.pop(chart.id, None)
        if sizes is not None:  # placed by sizes, split: they place it while it does not change
            cache.put(*sizes)
        key = digest_key("chart-parts-at", part_keys[chart.id], f"{first:g}")
        entry = _complete(cache, key)
        if entry is None:
            made = chart_entry(game, chart, lang, options.page_pt, cache.get, first, wide)
            entry = _keep(cache, key, *made)
        return entry_laid(entry)

    try:
        return charts_document(game, options, groups, laid, cache.get, split_at, cache, complete)
    except MissingPart:  # an entry found damaged when read: the document drawn afresh
        return drawn_document(game, options, groups)


def _sized(
    cache: RenderCache,
    game: GameData,
    chart: Chart,
    lang: str,
    options: SheetOptions,
    key: str,
    unkept: dict[str, tuple[str, bytes]],
) -> Laid:
    """printed.sized_laid of a chart without an entry of its own (under `key`): a long chart
    split again to start mid-page, as it mostly is, never has one (its whole parts are never
    shown). Its sizes are kept under its key (what decides them: its look and the page), so
    that a build in which it did not change places it from one small entry instead of laying
    it out again (an order of battle of 4,000 rows, every build), kept with the entries of
    its layout (table.layout_keys: there when it changes); worked out again when the entry is
    missing or damaged. Sizes worked out are put in `unkept` (by chart id), to be kept only
    if the chart is split again (else its entry is made: _document)."""
    sized_key = digest_key("chart-sized", key)
    found = _kept_sized(cache.get(sized_key))
    if found is not None:
        laid, blocks = found
        cache.keep(blocks)
        return laid
    laid = sized_laid(game, chart, lang, options.page_pt)
    sizes = tuple((ref.width, ref.height) for ref in laid[1])
    layout = tuple(layout_keys(game, chart, lang))
    unkept[chart.id] = (sized_key, marshal.dumps((laid[0], sizes, layout)))
    return laid


def _kept_sized(data: bytes | None) -> tuple[Laid, list[str]] | None:
    """A chart's sizes and its layout's entries as _sized keeps them; None when there is no
    entry or it is not one."""
    if data is None:
        return None
    try:
        wide, sizes, blocks = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return None
    if type(wide) is not bool or type(sizes) is not tuple or type(blocks) is not tuple or not sizes:
        return None
    if not all(type(size) is tuple and len(size) == 2 for size in sizes):
        return None
    if not all(type(value) is float for size in sizes for value in size):
        return None
    if not all(type(block) is str for block in blocks):
        return None
    refs = tuple(PartRef(UNDRAWN, UNDRAWN, width, height) for width, height in sizes)
    return (wide, refs), list(blocks)


def _complete(cache: RenderCache, key: str) -> bytes | None:
    """A printed chart's cache entry when the cache holds it and every part it names (each
    marked used without being read, so that the parts stay as long as the entry; the table's
    measured blocks too, when they are there). A part found damaged when it is read for a page
    makes the document drawn afresh (printed.MissingPart)."""
    entry = cache.get(key)
    if entry is None:
        return None
    try:
        parts, blocks = entry_parts(entry)
        entry_laid(entry)
    except (EOFError, TypeError, ValueError):
        return None  # not an entry of this code's
    if not all(map(cache.holds, parts)):
        return None
    cache.keep([*parts, *blocks])
    return entry


def _keep(cache: RenderCache, key: str, entry: bytes, drawn: dict[str, bytes]) -> bytes:
    """A printed chart's entry and what was made for it, put in the cache (the blocks it
    measured marked used, those read from the cache too); the entry."""
    for part, data in drawn.items():
        cache.put(part, data)
    cache.put(key, entry)
    cache.keep(entry_parts(entry)[1])
    return entry


def _rendered(game: GameData, lang: str) -> tuple[bytes, list[ChartPng]] | None:
    """What render_charts made for this game in this language, if anything."""
    memo = _RENDERED.peek(game) or {}
    return next((made for options, made in memo.items() if options.lang == lang), None)


def charts_pdf(game: GameData, options: SheetOptions) -> bytes:
    """The charts packed onto pages (see compiler.backends.charts.pages)."""
    made = (_RENDERED.peek(game) or {}).get(options)
    if made is not None:
        return made[0]
    return _pdf(game, options)


def _pdf(game: GameData, options: SheetOptions) -> bytes:
    return drawn_document(game, options, printed(game))


def write_charts(
    game: GameData, out_dir: Path, options: SheetOptions, name: str = "charts.pdf"
) -> Path | None:
    """build/<game>/charts.pdf (or `name`) when the game has charts (a stale one is removed
    otherwise)."""
    target = out_dir / name
    if not all_charts(game, options.lang):
        target.unlink(missing_ok=True)
        return None
    return write_atomically(target, charts_pdf(game, options))


def chart_pngs(game: GameData, lang: str) -> list[tuple[str, bytes]]:
    """(chart title, PNG) for the module's charts window, 900 pixels wide, drawn on every
    core (or made already by render_charts)."""
    return [(chart.title, chart.data) for chart in chart_images(game, lang)]


def chart_images(game: GameData, lang: str) -> list[ChartPng]:
    """The PNGs of the module's charts window with their cache keys: those render_charts made
    for this game and language, else each drawn now, on every core (no key then)."""
    made = _rendered(game, lang)
    if made is not None:
        return made[1]
    charts = all_charts(game, lang)
    jobs = [partial(_png, drawing_of(game, chart, lang)) for chart in charts]
    pngs = parallel_map(jobs, minimum=4)
    return [
        ChartPng(chart.name.get(lang), png, "", True)
        for chart, png in zip(charts, pngs, strict=True)
    ]


class ChartPng:
    """A chart's PNG for the module's charts window: its title, its bytes, its render cache key
    ("" when drawn without a cache) and whether this build drew it. The module names a PNG read
    from the cache by its key, as the build before did (vassal.module.FaceNames), instead of
    hashing its bytes again (at 8,000 counters the charts are 114 MB). `data` is given as the
    bytes, or as what reads them (from the render cache): read when first asked for, so that a
    PNG the module has already is never read."""

    __slots__ = ("title", "key", "drawn", "_data", "_read")

    def __init__(
        self, title: str, data: bytes | Callable[[], bytes], key: str, drawn: bool
    ) -> None:
        self.title, self.key, self.drawn = title, key, drawn
        self._data: bytes | None = data if isinstance(data, bytes) else None
        self._read: Callable[[], bytes] | None = None if isinstance(data, bytes) else data

    @property
    def data(self) -> bytes:
        """The PNG's bytes (read on first use)."""
        if self._data is None:
            assert self._read is not None  # given one or the other
            self._data, self._read = self._read(), None
        return self._data

    @property
    def loaded(self) -> bool:
        """Whether the bytes are in memory (given, or read since)."""
        return self._data is not None

    def __repr__(self) -> str:
        return f"ChartPng({self.title!r}, key={self.key!r}, drawn={self.drawn})"


class TitledPngs(Sequence[tuple[str, bytes]]):
    """The module's chart PNGs as (title, bytes) pairs, each PNG read when its pair is asked
    for (ChartPng.data); equal to any sequence of the same pairs."""

    def __init__(self, pngs: list[ChartPng]) -> None:
        self.pngs = pngs

    @overload
    def __getitem__(self, index: int) -> tuple[str, bytes]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, bytes]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, bytes] | list[tuple[str, bytes]]:
        if isinstance(index, slice):
            return [(png.title, png.data) for png in self.pngs[index]]
        png = self.pngs[index]
        return png.title, png.data

    def __len__(self) -> int:
        return len(self.pngs)

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        return ((png.title, png.data) for png in self.pngs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking: equal to a list


def _png_height(drawing: Drawing) -> int:
    return max(1, round(PNG_WIDTH / drawing.width))


def _png(drawing: Drawing) -> bytes:
    """A chart's drawing PNG_WIDTH pixels wide (bandpng: the bytes _png_job makes)."""
    return banded_png(rasterize(drawing, _png_height(drawing), CHART_SUPERSAMPLE))[0]


def _png_job(drawing: Drawing, before: tuple[bytes, Table, list[bytes]] | None) -> bytes:
    """_png as one job's bytes (for parallel_map, or run here): the PNG, its band table and its
    bands' looks (window.band_looks). Of `before` (the chart's PNG before, its table and
    looks) a band whose look did not change is copied without being drawn, and only the
    others are drawn (window.window_rows), copied when their rows did not change,
    else compressed; read back by _png_made."""
    height = _png_height(drawing)
    size = (max(1, round(drawing.width * height)), height)
    was = (before[0], before[1]) if before is not None else None
    if not single_pass(drawing, height, CHART_SUPERSAMPLE):
        image = rasterize(drawing, height, CHART_SUPERSAMPLE)
        return marshal.dumps((*banded_png(image, was), []))
    looks = band_looks(drawing, size)
    kept = kept_bands(was, size[0], looks, before[2] if before is not None else [])
    return marshal.dumps((*banded_rows(size, kept, was, window_rows(drawing, size)), looks))


def _png_made(made: bytes) -> tuple[bytes, Table, list[bytes]]:
    """The inverse of _png_job."""
    png, (width, bands), looks = marshal.loads(made)
    return bytes(png), (width, list(bands)), list(looks)


def _before(cache: RenderCache, key: str) -> tuple[bytes, Table, list[bytes]] | None:
    """A chart's PNG before, its band table and its bands' looks (kept under `key`, the
    chart's own: its id, language and the PNG's size), when the cache holds both whole; None
    otherwise."""
    found = decode_entry(cache.get(key))  # the entry read and decoded once
    if found is None:
        return None
    png_key, table, looks = found
    png = cache.get(png_key)
    if png is None or not png.startswith(PNG_START) or not png.endswith(PNG_END):
        return None
    return png, table, looks
