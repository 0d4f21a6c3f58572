"""charts.pdf as a document: which charts it prints in which order (aid cards first), each
chart laid out for the page (landscape when wide) and split by height when long, and the
parts placed on pages (compiler.backends.charts.pages) as forms."""

from __future__ import annotations

import hashlib
import marshal
import math
from collections.abc import Callable
from functools import partial

from compiler.backends.art.display import Drawing, Line
from compiler.backends.art.display import Text as TextOp
from compiler.backends.charts.pages import (
    HEADING,
    HEADING_ROOM,
    MARGIN,
    Box,
    Group,
    Placed,
    paginate,
    room,
)
from compiler.backends.charts.table import (
    INK,
    RULE,
    charts_fingerprint,
    draw_part,
    least_height,
    measures,
    part_identity,
    part_plans,
    table_height,
)
from compiler.backends.pdf.content import Canvas, draw, drawing_content
from compiler.backends.pdf.document import Content, PdfDocument, decode_content, encode_content
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

Lookup = Callable[[str], bytes | None]
"""A part's cache entry by its key (None when there is none)."""


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
    the row, and measures only the rows' block that holds it."""
    measured = measures(game)
    measured.known = known
    before, asked = set(measured.made), len(measured.asked)
    if wide is None:
        wide = is_wide(game, chart, lang, page_pt)
    width, height = room(page_pt, wide)
    keys: list[str] = []
    drawn: dict[str, bytes] = {}
    for plan in part_plans(game, chart, lang, width, height, first):
        identity = part_identity(game, chart, lang, width, plan)
        key = cache_key("chart-part", charts_fingerprint(), identity)
        keys.append(key)
        if key not in drawn and known(key) is None:
            part = draw_part(game, chart, lang, width, plan)
            content = drawing_content(part.drawing, part.height)
            drawn[key] = encode_content(content, part.width, part.height)
    drawn.update((key, data) for key, data in measured.made.items() if key not in before)
    blocks = sorted(set(measured.asked[asked:]))
    return marshal.dumps((wide, keys, blocks)), drawn


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
    """The keys of the parts a chart's entry names, and of its table's measured blocks (those
    measured for the entry: none when the table had been laid out before)."""
    _wide, keys, blocks = marshal.loads(entry)
    return list(keys), list(blocks)


def decode_parts(entry: bytes, parts: Lookup) -> Parts | None:
    """A chart's entry with the parts it names (from `parts`); None when one is missing."""
    wide, keys, _blocks = marshal.loads(entry)
    found: list[tuple[Content, float, float]] = []
    for key in keys:
        data = parts(key)
        if data is None:
            return None
        content, (width, height) = decode_content(data)
        found.append((content, float(width), float(height)))  # type: ignore[arg-type]
    return bool(wide), found


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
    entry, drawn = chart_entry(game, chart, lang, page_pt, lambda _key: None, first, wide)
    decoded = decode_parts(entry, drawn.get)
    assert decoded is not None  # every part was drawn
    return decoded


def _split_at(
    game: GameData, options: SheetOptions, chart: Chart, wide: bool, first: float
) -> Parts:
    return printed_parts(game, chart, options.lang, options.page_pt, first, wide)


def part_name(chart_id: str, content: Content) -> str:
    """The name of a chart part's form in charts.pdf: `chart.<chart id>.<digest>` (from its
    content: the same part is defined once)."""
    digest = hashlib.sha1(content.stream + repr(sorted(content.chars.items())).encode())
    return f"chart.{chart_id}.{digest.hexdigest()[:16]}"


Shown = tuple[str, Content, float, float]
"""A chart part as it is shown: its form's name, content, width and height."""


def charts_document(
    game: GameData,
    options: SheetOptions,
    groups: list[tuple[Text | None, tuple[Chart, ...]]],
    parts: dict[str, Parts],
    split_at: Callable[[Chart, bool, float], Parts] | None = None,
    cache: RenderCache | None = None,
) -> bytes:
    """charts.pdf from the charts' parts, packed onto pages in order; a long chart that can
    start on a page with room left is split again to start there, by `split_at(chart, wide,
    first)` (default: printed_parts; the build passes one that keeps the parts in its cache).
    The setup cards' scenario pictures and their boards' printed images are kept in `cache`
    (when given). The same parts give the same bytes, drawn now or read from the cache."""
    if split_at is None:
        split_at = partial(_split_at, game, options)
    placed: list[list[Shown | Picture]] = []
    boxes: list[Group] = []

    def split(number: int, chart: Chart) -> Callable[[float], tuple[Box, ...]]:
        def again(space: float) -> tuple[Box, ...]:
            """The long chart split again to start in the `space` points left on a page."""
            first = float(math.floor(space))
            shapes, contents = _boxes([(chart.id, split_at(chart, parts[chart.id][0], first))])
            pictures = [shown for shown in placed[number] if isinstance(shown, Picture)]
            placed[number] = [*contents, *pictures]
            return shapes

        return again

    for heading, charts in groups:
        shapes, contents = _boxes([(chart.id, parts[chart.id]) for chart in charts])
        long = heading is None and len(shapes) > 1
        again = split(len(boxes), charts[0]) if long else None
        boxes.append(Group(shapes, heading, again))
        placed.append([*contents])
    boxes = [
        _with_pictures(game, options, group, placed[number], group_charts, cache)
        for number, (group, (_heading, group_charts)) in enumerate(zip(boxes, groups, strict=True))
    ]
    pdf = PdfDocument()
    for sheet in paginate(boxes, options.page_pt):
        size = sheet.size(options.page_pt)
        canvas = Canvas()
        if sheet.heading is not None:
            _heading(canvas, sheet.heading.get(options.lang), options.lang, size)
        images: list[str] = []
        for where in sheet.placed:
            shown = placed[where.group][where.box]
            if isinstance(shown, Picture):
                images += show_picture(pdf, canvas, shown, where, cache)
            else:
                _show(canvas, shown, where)
        pdf.add_page(size, canvas.content(), tuple(images))
    title = tr("{title} — charts", options.lang, title=game.game.title.get(options.lang))
    return pdf.write({"Title": title, "Author": "countermix", "Creator": "countermix"})


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


def _boxes(charts: list[tuple[str, Parts]]) -> tuple[tuple[Box, ...], list[Shown]]:
    """The boxes to place for charts' parts (by chart id), and the parts."""
    shapes: list[Box] = []
    contents: list[Shown] = []
    for ident, (wide, pieces) in charts:
        for number, (content, width, height) in enumerate(pieces):
            shapes.append(Box(width, height, wide, number < len(pieces) - 1))
            contents.append((part_name(ident, content), content, width, height))
    return tuple(shapes), contents


def _show(canvas: Canvas, part: Shown, where: Placed) -> None:
    """A chart part (a form, defined once per document) at its place on the page."""
    form, content, width, height = part
    canvas.nested[form] = (content, (0.0, 0.0, width, height))
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
