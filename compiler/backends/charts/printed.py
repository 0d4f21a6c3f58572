"""charts.pdf as a document: which charts it prints in which order (aid cards first), each
chart laid out for the page (landscape when wide) and split by height when long, and the
parts placed on pages (compiler.backends.charts.pages) as forms."""

from __future__ import annotations

import hashlib
import marshal
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple, cast

from compiler.backends.art.display import Drawing, Line
from compiler.backends.art.display import Text as TextOp
from compiler.backends.charts.pages import (
    HEADING,
    HEADING_ROOM,
    MARGIN,
    Box,
    Group,
    Placed,
    Sheet,
    paginate,
    room,
)
from compiler.backends.charts.pieceforms import PartForms
from compiler.backends.charts.table import (
    INK,
    RULE,
    charts_fingerprint,
    draw_part,
    least_height,
    measures,
    part_identity,
    part_plans,
    part_size,
    table_height,
)
from compiler.backends.pdf.content import Canvas, draw
from compiler.backends.pdf.document import (
    Content,
    PageRun,
    PdfDocument,
    decode_content,
    encode_content,
)
from compiler.backends.pdf.syntax import name as pdf_name
from compiler.backends.pdf.syntax import num
from compiler.backends.rendercache import RenderCache, cache_key
from compiler.backends.scenepics_pdf import Picture, setup_picture, show_picture
from compiler.backends.sheets.options import SheetOptions
from compiler.i18n import tr
from compiler.model.charts import Chart
from compiler.model.common import Text
from compiler.model.gamedata import GameData


def printed(game: GameData) -> list[tuple[Text | None, tuple[Chart, ...]]]:
    """What charts.pdf shows, in order: each aid card (its title and charts), then the game's
    charts no card names, then the derived player aids, each chart whole (a long one is split
    by height where it is printed, not by row count)."""
    by_id = {chart.id: chart for chart in game.charts}
    groups: list[tuple[Text | None, tuple[Chart, ...]]] = []
    on_cards: set[str] = set()
    for card in game.aid_cards:
        charts = tuple(by_id[ref] for ref in card.charts if ref in by_id)  # others: findings
        if charts:
            groups.append((card.name, charts))
            on_cards.update(chart.id for chart in charts)
    groups.extend((None, (chart,)) for chart in game.charts if chart.id not in on_cards)
    groups.extend((None, (chart,)) for chart in game.aids)
    return groups


WIDE = 1.25
"""A table goes on a landscape page when laid out portrait it would be this much taller (its
columns squeezed into many wrapped lines)."""

Parts = tuple[bool, list[tuple[Content, float, float]]]
"""Whether a chart goes landscape, and its parts: content (a form in points), width, height."""


class PartRef(NamedTuple):
    """A part of a printed chart without its content: where its content is (a cache key, see
    part_entry), a digest of the content (its form's name, see part_name), its width and
    height in points. Enough to place it on the pages and to know a page that shows it."""

    key: str
    digest: str
    width: float
    height: float


Laid = tuple[bool, tuple[PartRef, ...]]
"""Whether a chart goes landscape, and its parts (their contents read only for a page that is
encoded again)."""

Lookup = Callable[[str], bytes | None]
"""A part's cache entry by its key (None when there is none)."""

PART_HEAD = struct.Struct("<dd16sI")
"""A part's cache entry starts with its width, height and content digest (read without
decoding the content) and the length of the list of its counters' entries that follows
(marshal: see part_pieces), then the content (pdf.document.encode_content)."""


def part_entry(content: Content, width: float, height: float, pieces: Sequence[str] = ()) -> bytes:
    """A drawn part as a cache entry, naming the entries of the counters it shows
    (pieceforms.PartForms): a chart's entry that reuses the part keeps them with its own."""
    listed = marshal.dumps(tuple(pieces))
    head = PART_HEAD.pack(width, height, form_digest(content).encode("ascii"), len(listed))
    return head + listed + encode_content(content)


def part_head(data: bytes) -> tuple[float, float, str] | None:
    """A part entry's width, height and content digest; None when it is no part entry."""
    if len(data) <= PART_HEAD.size:
        return None
    width, height, digest, listed = PART_HEAD.unpack_from(data)
    if len(data) <= PART_HEAD.size + listed:
        return None
    try:
        return width, height, digest.decode("ascii")
    except UnicodeDecodeError:
        return None


def part_pieces(data: bytes) -> list[str]:
    """The keys of the counters' entries a part entry names (none when it is damaged: they
    are only kept by it, never read through it)."""
    if len(data) <= PART_HEAD.size:
        return []
    listed = PART_HEAD.unpack_from(data)[3]
    try:
        pieces = marshal.loads(data[PART_HEAD.size : PART_HEAD.size + listed])
    except (EOFError, TypeError, ValueError):
        return []
    if type(pieces) is not tuple or not all(type(key) is str for key in pieces):
        return []
    return list(pieces)


def part_content(data: bytes) -> Content:
    """A part entry's content; ValueError when it is no part entry."""
    if len(data) <= PART_HEAD.size:
        raise ValueError("not a part entry")
    listed = PART_HEAD.unpack_from(data)[3]
    return decode_content(data[PART_HEAD.size + listed :])[0]


def is_wide(game: GameData, chart: Chart, lang: str, page_pt: tuple[float, float]) -> bool:
    """Whether the chart goes on landscape pages: laid out between the margins of a portrait
    page it would be WIDE times taller than on a landscape one. A table that is not WIDE
    times the least height any table of the chart has (table.least_height) is not laid out
    landscape to know it (a long table laid out is most of the cost of its entry)."""
    portrait, landscape = room(page_pt, False), room(page_pt, True)
    height = table_height(game, chart, lang, portrait[0])
    if height < WIDE * least_height(chart) - SURELY:
        return False
    return height > WIDE * table_height(game, chart, lang, landscape[0])


SURELY = 1e-6
"""Points below which the least height is not trusted to decide (sums in another order)."""


def chart_entry(
    game: GameData,
    chart: Chart,
    lang: str,
    page_pt: tuple[float, float],
    known: Lookup,
    first: float | None = None,
    wide: bool | None = None,
) -> tuple[bytes, dict[str, bytes]]:
    """A printed chart as a cache entry that names its parts, and the cache entries `known`
    does not have, made now (key → entry): the parts drawn and the table's blocks measured
    (table.Measures). The chart is laid out between the margins of a portrait page, or a
    landscape one when it is wide (`wide` when decided already), split into page-high parts
    when it is long (the first part no taller than `first` when given: it starts where a page
    has that room). Each part's key is a digest of what decides how it looks
    (table.part_identity), so a long chart with one row changed draws only the part that holds
    the row, and measures only the rows' block that holds it; a part drawn reads back the
    forms of the counters it shows (pieceforms.PartForms), kept with the entry as its blocks
    are."""
    measured = measures(game)
    measured.known = known
    before, asked = set(measured.made), len(measured.asked)
    if wide is None:
        wide = is_wide(game, chart, lang, page_pt)
    width, height = room(page_pt, wide)
    refs: list[tuple[str, str, float, float]] = []
    drawn: dict[str, bytes] = {}
    forms = PartForms(known, drawn)
    pieces: set[str] = set()  # the counters' entries of the parts reused
    for plan in part_plans(game, chart, lang, width, height, first):
        identity = part_identity(game, chart, lang, width, plan)
        key = cache_key("chart-part", charts_fingerprint(), identity)
        data = drawn.get(key) or known(key)
        head = part_head(data) if data is not None else None
        if data is not None and head is not None:
            pieces.update(part_pieces(data))
        else:
            forms.shown = {}
            part = draw_part(game, chart, lang, width, plan, forms.piece)
            canvas = Canvas(forms)
            draw(canvas, part.drawing, 0.0, 0.0, part.height)
            content = shown_order(canvas)
            data = drawn[key] = part_entry(content, part.width, part.height, list(forms.shown))
            head = part_head(data)
            assert head is not None  # just made
        part_width, part_height, digest = head
        refs.append((key, digest, part_width, part_height))
    drawn.update((key, data) for key, data in measured.made.items() if key not in before)
    blocks = sorted({*measured.asked[asked:], *forms.keys, *pieces})  # kept with the entry
    return marshal.dumps((wide, refs, blocks)), drawn


UNDRAWN = ""
"""The key and digest of a part not drawn yet (sized_laid): its entry and its form's name
are not known."""


def sized_laid(game: GameData, chart: Chart, lang: str, page_pt: tuple[float, float]) -> Laid:
    """How chart_entry lays a chart out (landscape or not, its parts' sizes), without drawing
    a part, reading one or working out what decides its look (part_identity: a digest of its
    rows, for each of the hundreds of parts of an order of battle): enough to place the chart
    on the pages. A warm build places a changed long chart so, and draws its parts only when
    the chart is not split again to start mid-page (charts_document's `complete`); split, its
    whole parts are never shown."""
    wide = is_wide(game, chart, lang, page_pt)
    width, height = room(page_pt, wide)
    refs = [
        PartRef(UNDRAWN, UNDRAWN, *part_size(game, chart, lang, width, plan))
        for plan in part_plans(game, chart, lang, width, height)
    ]
    return wide, tuple(refs)


def entry_job(
    game: GameData, chart: Chart, lang: str, page_pt: tuple[float, float], known: Lookup
) -> bytes:
    """chart_entry as one job's bytes (for rendercache.parallel_map): the entry and the parts
    drawn, read back by split_job."""
    return marshal.dumps(chart_entry(game, chart, lang, page_pt, known))


def split_job(made: bytes) -> tuple[bytes, dict[str, bytes]]:
    """The inverse of entry_job."""
    entry, drawn = marshal.loads(made)
    return bytes(entry), dict(drawn)


def entry_parts(entry: bytes) -> tuple[list[str], list[str]]:
    """The keys of the parts a chart's entry names, and of the entries kept with it: its
    table's measured blocks (those measured for the entry: none when the table had been laid
    out before) and the counters' forms of the parts drawn for it."""
    _wide, refs, blocks = marshal.loads(entry)
    return [ref[0] for ref in refs], list(blocks)


def entry_laid(entry: bytes) -> Laid:
    """How a chart's entry lays it out (its parts' contents not read)."""
    wide, refs, _blocks = marshal.loads(entry)
    return bool(wide), tuple(PartRef(*ref) for ref in refs)


def decode_parts(entry: bytes, parts: Lookup) -> Parts | None:
    """A chart's entry with the parts it names (from `parts`); None when one is missing."""
    wide, refs = entry_laid(entry)
    found: list[tuple[Content, float, float]] = []
    for ref in refs:
        data = parts(ref.key)
        if data is None:
            return None
        found.append((part_content(data), ref.width, ref.height))
    return wide, found


def printed_laid(
    game: GameData,
    chart: Chart,
    lang: str,
    page_pt: tuple[float, float],
    first: float | None = None,
    wide: bool | None = None,
) -> tuple[Laid, dict[str, bytes]]:
    """How a chart is printed on pages of `page_pt` and its parts' entries (drawn now, no
    cache)."""
    entry, drawn = chart_entry(game, chart, lang, page_pt, lambda _key: None, first, wide)
    return entry_laid(entry), drawn


def printed_parts(
    game: GameData,
    chart: Chart,
    lang: str,
    page_pt: tuple[float, float],
    first: float | None = None,
    wide: bool | None = None,
) -> Parts:
    """How a chart is printed on pages of `page_pt`: landscape or not, and its parts (drawn
    now, no cache)."""
    (landscape, refs), drawn = printed_laid(game, chart, lang, page_pt, first, wide)
    return landscape, [(part_content(drawn[ref.key]), ref.width, ref.height) for ref in refs]


def form_digest(content: Content) -> str:
    """A digest of a part's content: the same part is defined once in a document."""
    digest = hashlib.sha1(content.stream + repr(sorted(content.chars.items())).encode())
    return digest.hexdigest()[:16]


def part_name(chart_id: str, content: Content) -> str:
    """The name of a chart part's form in charts.pdf: `chart.<chart id>.<digest>` (from its
    content: the same part is defined once)."""
    return _form_name(chart_id, form_digest(content))


def _form_name(chart_id: str, digest: str) -> str:
    return f"chart.{chart_id}.{digest}"


Shown = tuple[str, PartRef]
"""A chart part as it is shown: its form's name and the part."""


class MissingPart(Exception):
    """A part to draw on a page is not in the cache (an entry found damaged when read)."""


def drawn_document(
    game: GameData, options: SheetOptions, groups: list[tuple[Text | None, tuple[Chart, ...]]]
) -> bytes:
    """charts.pdf with every chart drawn now (no cache)."""
    drawn: dict[str, bytes] = {}
    laid: dict[str, Laid] = {}
    for _heading, charts in groups:
        for chart in charts:
            laid[chart.id], made = printed_laid(game, chart, options.lang, options.page_pt)
            drawn.update(made)

    def split_at(chart: Chart, wide: bool, first: float) -> Laid:
        again, made = printed_laid(game, chart, options.lang, options.page_pt, first, wide)
        drawn.update(made)
        return again

    return charts_document(game, options, groups, laid, drawn.get, split_at)


def charts_document(
    game: GameData,
    options: SheetOptions,
    groups: list[tuple[Text | None, tuple[Chart, ...]]],
    laid: dict[str, Laid],
    parts: Lookup,
    split_at: Callable[[Chart, bool, float], Laid],
    cache: RenderCache | None = None,
    complete: Callable[[Chart], Laid] | None = None,
) -> bytes:
    """charts.pdf from the charts' parts (`laid` by chart id, each part's entry by `parts`),
    packed onto pages in order; a long chart that can start on a page with room left is
    split again to start there, by `split_at(chart, wide, first)`. The setup cards' scenario
    pictures and their boards' printed images are kept in `cache` (when given), and so is
    every page that shows no picture, as the objects it made (PdfDocument.record_page) under
    a key of what it shows and of the document's state before it: a page read back is added
    as it was, its parts' contents not read (a large game's charts.pdf with one chart
    changed encodes that chart's pages again, not its hundreds of others). The same parts
    give the same bytes, drawn now or read from the cache. A chart in `laid` whose parts are
    not drawn (sized_laid) is placed by their sizes; unless it is split again, its parts are
    then drawn by `complete`. MissingPart when a part to draw is not found by `parts`, or a
    chart `complete`d is not of the sizes it was placed by."""
    placed: list[list[Shown | Picture]] = []
    boxes: list[Group] = []

    def split(number: int, chart: Chart) -> Callable[[float], tuple[Box, ...]]:
        def again(space: float) -> tuple[Box, ...]:
            """The long chart split again to start in the `space` points left on a page."""
            first = float(math.floor(space))
            shapes, contents = _boxes([(chart.id, split_at(chart, laid[chart.id][0], first))])
            pictures = [shown for shown in placed[number] if isinstance(shown, Picture)]
            placed[number] = [*contents, *pictures]
            return shapes

        return again

    for heading, charts in groups:
        shapes, contents = _boxes([(chart.id, laid[chart.id]) for chart in charts])
        long = heading is None and len(shapes) > 1
        again = split(len(boxes), charts[0]) if long else None
        boxes.append(Group(shapes, heading, again))
        placed.append([*contents])
    boxes = [
        _with_pictures(game, options, group, placed[number], group_charts, cache)
        for number, (group, (_heading, group_charts)) in enumerate(zip(boxes, groups, strict=True))
    ]
    sheets = paginate(boxes, options.page_pt)
    for number, (_heading, group_charts) in enumerate(groups):
        if any(not isinstance(item, Picture) and not item[1].digest for item in placed[number]):
            placed[number] = _completed(group_charts, placed[number], laid, complete)
    pdf = PdfDocument()
    if cache is not None:
        pdf.kept_fonts, pdf.keep_font = cache.get, cache.put
    pages = [[placed[where.group][where.box] for where in sheet.placed] for sheet in sheets]
    number = 0
    while number < len(sheets):
        if cache is None or not _charts_only(pages[number]):
            _add_page(pdf, sheets[number], pages[number], options, parts, cache)
            number += 1
            continue
        end = number + 1  # the run: up to a picture's page or the next multiple of RUN_PAGES
        while end < len(sheets) and end % RUN_PAGES and _charts_only(pages[end]):
            end += 1
        shown = [cast(list[Shown], page) for page in pages[number:end]]
        _kept_pages(pdf, sheets[number:end], shown, options, parts, cache)
        number = end
    title = tr("{title} — charts", options.lang, title=game.game.title.get(options.lang))
    return pdf.write({"Title": title, "Author": "countermix", "Creator": "countermix"})


def _completed(
    charts: tuple[Chart, ...],
    shown: list[Shown | Picture],
    laid: dict[str, Laid],
    complete: Callable[[Chart], Laid] | None,
) -> list[Shown | Picture]:
    """What a group shows with its charts' parts drawn (`complete`), for a group placed by the
    sizes of parts not drawn (sized_laid); MissingPart when they are not those sizes."""
    if complete is None:
        raise MissingPart("a chart placed by its sizes, no way to draw its parts")
    done = [
        (
            chart.id,
            complete(chart) if any(not r.digest for r in laid[chart.id][1]) else laid[chart.id],
        )
        for chart in charts
    ]
    contents = _boxes(done)[1]
    before = [item for item in shown if not isinstance(item, Picture)]
    sizes = [(ref.width, ref.height) for _name, ref in contents]
    if sizes != [(ref.width, ref.height) for _name, ref in before]:
        raise MissingPart("a chart drawn to other sizes than it was placed by")
    return [*contents, *(item for item in shown if isinstance(item, Picture))]


RUN_PAGES = 16
"""Pages of chart parts kept together as one cache entry (see _kept_pages), in runs that
start at page numbers that are multiples of it (a page that changes changes its run only)."""


def _charts_only(shown: list[Shown | Picture]) -> bool:
    return not any(isinstance(item, Picture) for item in shown)


def _kept_pages(
    pdf: PdfDocument,
    sheets: list[Sheet],
    shown: list[list[Shown]],
    options: SheetOptions,
    parts: Lookup,
    cache: RenderCache,
) -> None:
    """Consecutive pages of chart parts, read back from `cache` in one piece when they were
    made before in a document in the same state (one key, one entry read and decoded for up
    to RUN_PAGES pages: a large game's charts.pdf is hundreds of pages, nearly all unchanged),
    else page by page (_kept_page), and kept together again. The run's entry names the
    pages' own entries, kept as long as it is (a page of the run that changes later is made
    again alone)."""
    looks = [_page_look(sheet, page, options) for sheet, page in zip(sheets, shown, strict=True)]
    state = (pdf.next_number, pdf.font_numbers())
    key = cache_key("chart-pages", charts_fingerprint(), PageRun.FORMAT, looks, state)
    runs, keys = _read_pages(cache.get(key), len(sheets))
    done = pdf.replay_pages(runs)
    if done == len(sheets):
        cache.keep(keys)
        return
    made = runs[:done]
    for sheet, page, look in zip(sheets[done:], shown[done:], looks[done:], strict=True):
        made.append(_kept_page(pdf, sheet, page, look, options, parts, cache))
    keys = [_page_key(look, state) for look, state in zip(looks, _states(made), strict=True)]
    cache.put(key, marshal.dumps((tuple(keys), tuple(run.values() for run in made))))


def _read_pages(data: bytes | None, count: int) -> tuple[list[PageRun], list[str]]:
    """A run of `count` pages kept by _kept_pages and its pages' keys; none when there is no
    entry or it is damaged."""
    if data is None:
        return [], []
    try:
        keys, values = marshal.loads(data)
        runs = list(map(PageRun.from_values, values))
    except (EOFError, TypeError, ValueError):
        return [], []
    if len(runs) != count or len(keys) != count or not all(type(k) is str for k in keys):
        return [], []
    return runs, list(keys)


PageLook = tuple[tuple[float, float], str | None, str, list[tuple[object, ...]]]
"""What a page of chart parts shows: its size, its aid card's title, the language and each
part's form name, size and place."""


def _page_look(sheet: Sheet, shown: list[Shown], options: SheetOptions) -> PageLook:
    heading = sheet.heading.get(options.lang) if sheet.heading is not None else None
    where: list[tuple[object, ...]] = [
        (name, ref.width, ref.height, place.x, place.y, place.scale)
        for (name, ref), place in zip(shown, sheet.placed, strict=True)
    ]
    return sheet.size(options.page_pt), heading, options.lang, where


def _states(runs: list[PageRun]) -> list[tuple[int, tuple[tuple[str, int], ...]]]:
    """The document's state before each page of a run (its next object number and fonts)."""
    return [(run.start, run.fonts_before) for run in runs]


def _page_key(look: PageLook, state: tuple[int, tuple[tuple[str, int], ...]]) -> str:
    size, heading, lang, where = look
    return cache_key(
        "chart-page", charts_fingerprint(), PageRun.FORMAT, size, heading, lang, where, state
    )


def _kept_page(
    pdf: PdfDocument,
    sheet: Sheet,
    shown: list[Shown],
    look: PageLook,
    options: SheetOptions,
    parts: Lookup,
    cache: RenderCache,
) -> PageRun:
    """A page of chart parts, read back from `cache` when it was made before in a document in
    the same state, else made and kept; what it added."""
    key = _page_key(look, (pdf.next_number, pdf.font_numbers()))
    data = cache.get(key)
    if data is not None:
        try:
            run = PageRun.decode(data)
            if pdf.replay_page(run):
                return run
        except ValueError:
            pass  # damaged: made again
    canvas = _page_canvas(sheet, options)
    for (name, ref), place in zip(shown, sheet.placed, strict=True):
        _show(canvas, name, _content(parts, ref), ref, place)
    run = pdf.record_page(look[0], shown_order(canvas))
    cache.put(key, run.encode())
    return run


def shown_order(canvas: Canvas) -> Content:
    """A part's or a page's content with the forms it shows in the order they are first
    shown (Canvas.content lists them by name), which is the order the document defines those
    not defined yet, numbering them one after the other. By name, a counter whose look
    changed (its form named anew) would move among the others a page defines, and every
    later page that shows one of those would find it under another number: not replayed
    (PdfDocument.replay_page), but drawn again, for one unit changed. Shown first in a row
    where its old look was, the new form takes its number and the others keep theirs."""
    made = canvas.content()
    order = {form_name: number for number, form_name in enumerate(canvas.nested)}
    nested = tuple(sorted(made.nested, key=lambda form: order[form[0]]))
    return replace(made, nested=nested)


def _add_page(
    pdf: PdfDocument,
    sheet: Sheet,
    shown: list[Shown | Picture],
    options: SheetOptions,
    parts: Lookup,
    cache: RenderCache | None,
) -> None:
    """A page as it is drawn (the scenario pictures it shows too)."""
    canvas = _page_canvas(sheet, options)
    images: list[str] = []
    for item, where in zip(shown, sheet.placed, strict=True):
        if isinstance(item, Picture):
            images += show_picture(pdf, canvas, item, where, cache)
        else:
            name, ref = item
            _show(canvas, name, _content(parts, ref), ref, where)
    pdf.add_page(sheet.size(options.page_pt), shown_order(canvas), tuple(images))


def _page_canvas(sheet: Sheet, options: SheetOptions) -> Canvas:
    """A page's canvas with the aid card title it starts with, if any."""
    canvas = Canvas()
    if sheet.heading is not None:
        size = sheet.size(options.page_pt)
        _heading(canvas, sheet.heading.get(options.lang), options.lang, size)
    return canvas


def _content(parts: Lookup, ref: PartRef) -> Content:
    """A part's content from its entry."""
    data = parts(ref.key)
    if data is None:
        raise MissingPart(ref.key)
    try:
        return part_content(data)
    except ValueError as err:
        raise MissingPart(ref.key) from err


def _with_pictures(
    game: GameData,
    options: SheetOptions,
    group: Group,
    shown: list[Shown | Picture],
    charts: tuple[Chart, ...],
    cache: RenderCache | None = None,
) -> Group:
    """The group with the picture of each scenario whose setup card it holds after the card's
    table (`shown` takes the pictures too; a long table split again keeps its picture); made
    before, a picture is read from `cache`."""
    pictures = [
        p for chart in charts if (p := setup_picture(game, chart, options, cache)) is not None
    ]
    if not pictures:
        return group
    extra = tuple(Box(p.width, p.height, p.landscape) for p in pictures)
    shown.extend(pictures)
    if group.split is None:
        return Group(group.boxes + extra, group.heading)
    table_split = group.split

    def again(space: float) -> tuple[Box, ...]:
        return table_split(space) + extra

    return Group(group.boxes + extra, group.heading, again)


def _boxes(charts: list[tuple[str, Laid]]) -> tuple[tuple[Box, ...], list[Shown]]:
    """The boxes to place for charts' parts (by chart id), and the parts."""
    shapes: list[Box] = []
    contents: list[Shown] = []
    for ident, (wide, refs) in charts:
        for number, ref in enumerate(refs):
            shapes.append(Box(ref.width, ref.height, wide, number < len(refs) - 1))
            contents.append((_form_name(ident, ref.digest), ref))
    return tuple(shapes), contents


def _show(canvas: Canvas, form: str, content: Content, ref: PartRef, where: Placed) -> None:
    """A chart part (a form, defined once per document) at its place on the page."""
    canvas.nested[form] = (content, (0.0, 0.0, ref.width, ref.height))
    tag = pdf_name(form).decode("ascii")
    k, x, y = where.scale, where.x, where.y
    canvas.parts.append(f"q {num(k)} 0 0 {num(k)} {num(x)} {num(y)} cm {tag} Do Q")


def _heading(canvas: Canvas, text: str, lang: str, size: tuple[float, float]) -> None:
    """An aid card's title at the top of its page."""
    width, height = size
    room_width = (width - 2 * MARGIN) / HEADING_ROOM
    line = Line(((0.0, 0.85), (room_width, 0.85)), RULE, 1.0 / HEADING_ROOM)
    words = TextOp(0.0, 0.4, text, HEADING / HEADING_ROOM, True, INK, "lm", lang)
    drawing = Drawing(room_width, (line, words))
    draw(canvas, drawing, MARGIN, height - MARGIN - HEADING_ROOM, HEADING_ROOM)
