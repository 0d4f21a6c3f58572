"""A chart part drawn again (a row of it changed) reads back the forms of the counters it
shows from the charts' cache instead of drawing each again; the bytes are those of a build
without a cache, and a damaged form entry is made again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.art.display import Drawing
from compiler.backends.charts import build as charts_build
from compiler.backends.charts import pieceforms
from compiler.backends.charts import printed as charts_printed
from compiler.backends.charts.build import render_charts
from compiler.backends.charts.table import piece_drawing
from compiler.backends.pdf.document import Content
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.charts import Chart
from compiler.model.gamedata import GameData
from tests.conftest import game_with_aids, replace_in
from tests.test_chart_parts_cache import long_chart

game_of = game_with_aids


@pytest.fixture
def faces(pdf_forms_drawn: list[Drawing]) -> list[Drawing]:
    """The drawings made forms (spied on: conftest.pdf_forms_drawn)."""
    return pdf_forms_drawn


def form_keys(cache: RenderCache) -> list[str]:
    """The kept counters' forms: by their content (pieceforms.PartForms.piece) or by a
    drawing's repr."""
    kinds = (":chart-piece:", ":chart-piece-form:")
    return [key for key in [*cache.memory, *cache.index] if any(k in key for k in kinds)]


def test_counters_unchanged_are_not_drawn_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part drawn again keys its counters on their units' content: only the changed unit's
    faces are drawn (no other counter's drawing is made to key it on its repr)."""
    pack = tmp_path / "cache" / "charts.pack"
    render_charts(game_of(mini), SheetOptions(), RenderCache(pack))
    asked: list[str] = []
    real = piece_drawing

    def spy(game: GameData, ref: str, lang: str) -> Drawing | None:
        asked.append(ref)
        return real(game, ref, lang)

    monkeypatch.setattr(pieceforms, "piece_drawing", spy)
    replace_in(mini / "units.yaml", "name: Red Line,", "name: Red Line Regiment,")
    game = game_of(mini)
    pdf, _pngs = render_charts(game, SheetOptions(), RenderCache(pack))
    drawn = list(asked)
    assert pdf == charts_build._pdf(game_of(mini), SheetOptions())  # draws every counter
    assert drawn  # the changed unit's counter drawn, no other
    assert {ref.partition(":")[0] for ref in drawn} == {"r-inf-2"}


def test_a_part_drawn_again_reads_its_counters_back(
    mini: Path, tmp_path: Path, faces: list[Drawing]
) -> None:
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    render_charts(game_of(mini), SheetOptions(), first)
    kept = form_keys(first)
    assert len(kept) > 3  # the orders of battle show counters
    replace_in(mini / "units.yaml", "name: Red Line,", "name: Red Line Regiment,")
    faces.clear()
    again = RenderCache(pack)
    pdf, _pngs = render_charts(game_of(mini), SheetOptions(), again)
    drawn = list(faces)
    assert pdf == charts_build._pdf(game_of(mini), SheetOptions())
    assert 0 < len(drawn) <= 4  # the changed unit's sides (on its chart, on its picture)
    assert len(faces) > 3 * len(drawn)  # not every counter (those a build without a cache draws)
    assert set(kept) - again.last_used.keys() >= set(kept) & again.used


def test_damaged_counter_forms_are_made_again(mini: Path) -> None:
    cache = RenderCache(None)
    render_charts(game_of(mini), SheetOptions(), cache)
    for key in form_keys(cache):
        cache.memory[key] = b"\x00not a form"
    parts = [key for key in cache.memory if "chart-part" in key]
    for key in parts:
        del cache.memory[key]  # every part drawn again, over damaged counter forms
    options = SheetOptions(bleed_mm=2.0)
    pdf, _pngs = render_charts(game_of(mini), options, cache)
    assert pdf == charts_build._pdf(game_of(mini), options)


def test_counters_of_parts_reused_stay_kept(mini: Path) -> None:
    """A chart's entry made again (a row of a long chart changed) keeps the counters' entries
    of the parts it reuses (named by each part's entry), not only those of the part it draws:
    otherwise they age out of the cache and a later change draws them again."""
    loaded = load_game(mini).game
    assert loaded is not None
    data = with_aids(loaded)[0]
    page = SheetOptions().page_pt

    def halves(label: str) -> Chart:
        """The long chart, its first half showing one unit, its second another."""
        chart = long_chart(data, label)
        half = len(chart.rows) // 2
        rows = tuple(
            replace(row, pieces=("r-inf-1",) if n < half else ("b-inf-2",))
            for n, row in enumerate(chart.rows)
        )
        return replace(chart, rows=rows)

    def counters(entry: bytes) -> set[str]:
        return {key for key in charts_printed.entry_parts(entry)[1] if ":chart-piece:" in key}

    first, drawn = charts_printed.chart_entry(data, halves("Row 150"), "en", page, _none)
    assert len(counters(first)) == 2
    again, _made = charts_printed.chart_entry(data, halves("Row 15"), "en", page, drawn.get)
    parts = [ref.key for ref in charts_printed.entry_laid(again)[1]]
    assert len(parts) >= 3 and len(set(parts) - drawn.keys()) == 1  # one part drawn again
    assert counters(again) == counters(first)


def _none(_key: str) -> bytes | None:
    return None


def test_a_part_entry_names_its_counters() -> None:
    content = Content(b"x", {}, ())
    entry = charts_printed.part_entry(content, 10.0, 20.0, ["a", "b"])
    assert charts_printed.part_pieces(entry) == ["a", "b"]
    assert charts_printed.part_head(entry) == (10.0, 20.0, charts_printed.form_digest(content))
    assert charts_printed.part_content(entry) == content
    assert charts_printed.part_pieces(entry[: charts_printed.PART_HEAD.size + 2]) == []
    assert charts_printed.part_head(entry[: charts_printed.PART_HEAD.size + 2]) is None
