"""charts.pdf (one chart per page, vector, fonts embedded) and the charts' PNGs for the module."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from compiler.backends.art.display import Drawing
from compiler.backends.art.identity import unit_identity
from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.raster import rasterize, warm_glyphs
from compiler.backends.charts.table import chart_drawing
from compiler.backends.files import write_atomically
from compiler.backends.pdf.content import Canvas, draw
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.pergame import PerGame
from compiler.backends.rendercache import RenderCache, cache_key, digest_key, parallel_map
from compiler.backends.sheets.options import MM, SheetOptions
from compiler.model.charts import Chart
from compiler.model.common import Text
from compiler.model.gamedata import GameData

PNG_WIDTH = 900
CHART_SUPERSAMPLE = 1
"""Charts are straight rules and text: drawn at the final size (no visible difference from
supersampling; counter images on them are still supersampled, see raster.INSET_SUPERSAMPLE)."""
MARGIN_MM = 15.0


MAX_ROWS = 38
"""Rows per page; longer tables continue on the next page."""
MAX_ROWS_WITH_PIECES = 22
"""Rows with counter images are taller."""


def all_charts(game: GameData, lang: str) -> list[Chart]:
    """The game's own tables, then the player aids derived from its data (model `aids`, made
    by the player-aids template), long ones split into pages. `lang` names the language the
    charts will be shown in (chart records hold both)."""
    del lang
    return [*game.charts, *(page for chart in game.aids for page in paged(chart))]


def paged(chart: Chart) -> list[Chart]:
    """A long table split into pages, "(2/3)" added to the title."""
    per_page = MAX_ROWS_WITH_PIECES if any(r.pieces for r in chart.rows) else MAX_ROWS
    count = max(1, -(-len(chart.rows) // per_page))
    pages = []
    for page in range(count):
        rows = chart.rows[page * per_page : (page + 1) * per_page]
        suffix = f" ({page + 1}/{count})" if count > 1 else ""
        name = Text(chart.name.en + suffix, chart.name.ja + suffix if chart.name.ja else "")
        pages.append(replace(chart, id=f"{chart.id}-{page + 1}", name=name, rows=rows))
    return pages


_DRAWINGS: PerGame[dict[tuple[str, str], Drawing]] = PerGame(dict)


def drawing_of(game: GameData, chart: Chart, lang: str) -> Drawing:
    """A chart's drawing, made once per game being built for both charts.pdf and the module
    (chart ids are unique within a game, derived ones included)."""
    memo = _DRAWINGS.of(game)
    if (chart.id, lang) not in memo:
        memo[(chart.id, lang)] = chart_drawing(game, chart, lang)
    return memo[(chart.id, lang)]


_RENDERED: PerGame[dict[SheetOptions, tuple[bytes, list[tuple[str, bytes]]]]] = PerGame(dict)


def render_charts(
    game: GameData, options: SheetOptions, cache: RenderCache | None = None
) -> tuple[bytes, list[tuple[str, bytes]]]:
    """charts.pdf and the module's chart PNGs together, on every core: the PDF is one job
    beside the PNGs' (so it no longer waits for them). With a `cache`, a chart drawn before
    is not drawn again, and an unchanged set of charts reuses the PDF. Remembered for the game
    being built; `charts_pdf` and `chart_pngs` use the result when there is one."""
    memo = _RENDERED.of(game)
    if options not in memo:
        memo[options] = _render(game, options, cache or RenderCache(None))
    return memo[options]


def chart_key(game: GameData, chart: Chart, lang: str) -> str:
    """What decides how a chart looks: the chart, the terrain colours and its pieces' looks."""
    pieces = [
        unit_identity(game, unit)
        for row in chart.rows
        for ref in row.pieces
        if (unit := game.unit(ref.partition(":")[0])) is not None
    ]
    return cache_key("chart", lang, chart, game.game.terrain, pieces)


def _render(
    game: GameData, options: SheetOptions, cache: RenderCache
) -> tuple[bytes, list[tuple[str, bytes]]]:
    lang = options.lang
    charts = all_charts(game, lang)
    keys = [chart_key(game, chart, lang) for chart in charts]
    png_keys = [digest_key("chart-png", str(PNG_WIDTH), key) for key in keys]
    pdf_key = cache_key("charts-pdf", options, game.game.title, keys)
    pngs: list[bytes | None] = [cache.get(key) for key in png_keys]
    pdf = cache.get(pdf_key)
    todo = [index for index, png in enumerate(pngs) if png is None]
    drawings = {i: drawing_of(game, charts[i], lang) for i in todo}
    for drawing in drawings.values():
        warm_glyphs(drawing, _png_height(drawing))
    jobs = [partial(_png, drawings[i]) for i in todo]
    if pdf is None:
        jobs.insert(0, partial(_pdf, game, options))
    made = parallel_map(jobs, minimum=4)
    if pdf is None:
        pdf, made = made[0], made[1:]
        cache.put(pdf_key, pdf)
    for index, png in zip(todo, made, strict=True):
        pngs[index] = png
        cache.put(png_keys[index], png)
    cache.save()
    titled = [(c.name.get(lang), png) for c, png in zip(charts, pngs, strict=True)]
    return pdf, [(title, png) for title, png in titled if png is not None]


def _rendered(game: GameData, lang: str) -> tuple[bytes, list[tuple[str, bytes]]] | None:
    """What render_charts made for this game in this language, if anything."""
    memo = _RENDERED.peek(game) or {}
    return next((made for options, made in memo.items() if options.lang == lang), None)


def charts_pdf(game: GameData, options: SheetOptions) -> bytes:
    """Every chart on its own page, scaled to the page's width (or height) between margins."""
    made = (_RENDERED.peek(game) or {}).get(options)
    if made is not None:
        return made[0]
    return _pdf(game, options)


def _pdf(game: GameData, options: SheetOptions) -> bytes:
    page_w, page_h = options.page_pt
    pdf = PdfDocument()
    margin = MARGIN_MM * MM
    room_w, room_h = page_w - 2 * margin, page_h - 2 * margin
    for chart in all_charts(game, options.lang):
        drawing = drawing_of(game, chart, options.lang)
        height = min(room_h, room_w / drawing.width)
        canvas = Canvas()
        draw(canvas, drawing, margin, page_h - margin - height, height)
        pdf.add_page(options.page_pt, canvas.content())
    title = f"{game.game.title.get(options.lang)} — charts"
    return pdf.write({"Title": title, "Author": "countermix", "Creator": "countermix"})


def write_charts(game: GameData, out_dir: Path, options: SheetOptions) -> Path | None:
    """build/<game>/charts.pdf when the game has charts (a stale one is removed otherwise)."""
    target = out_dir / "charts.pdf"
    if not all_charts(game, options.lang):
        target.unlink(missing_ok=True)
        return None
    return write_atomically(target, charts_pdf(game, options))


def chart_pngs(game: GameData, lang: str) -> list[tuple[str, bytes]]:
    """(chart title, PNG) for the module's charts window, 900 pixels wide, drawn on every
    core (or made already by render_charts)."""
    made = _rendered(game, lang)
    if made is not None:
        return made[1]
    charts = all_charts(game, lang)
    jobs = [partial(_png, drawing_of(game, chart, lang)) for chart in charts]
    pngs = parallel_map(jobs, minimum=4)
    return [(chart.name.get(lang), png) for chart, png in zip(charts, pngs, strict=True)]


def _png_height(drawing: Drawing) -> int:
    return max(1, round(PNG_WIDTH / drawing.width))


def _png(drawing: Drawing) -> bytes:
    """A chart's drawing PNG_WIDTH pixels wide."""
    return png_bytes(rasterize(drawing, _png_height(drawing), CHART_SUPERSAMPLE))
