"""A chart part drawn again (a row of it changed) reads back the forms of the counters it
shows from the charts' cache instead of drawing each again; the bytes are those of a build
without a cache, and a damaged form entry is made again."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.art.display import Drawing
from compiler.backends.charts import build as charts_build
from compiler.backends.charts import pieceforms
from compiler.backends.charts.build import render_charts
from compiler.backends.charts.table import piece_drawing
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.model.gamedata import GameData
from tests.conftest import game_with_aids, replace_in

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
