"""A chart's PNG drawn again only in windows around its changed bands (charts.window): a
window's rows are the whole image's, byte for byte, and a warm build that draws windows
writes a cold build's PNGs, also when the looks kept with a band table are damaged."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.art import raster
from compiler.backends.art.raster import rasterize
from compiler.backends.charts import window
from compiler.backends.charts.bandpng import BAND_ROWS, decode_looks, decode_table, encode_table
from compiler.backends.charts.build import (
    CHART_SUPERSAMPLE,
    _png_height,
    all_charts,
    drawing_of,
)
from tests.conftest import (
    assert_warm_chart_pngs_are_cold,
    chart_cache_after_an_edit,
    game_with_aids,
    replace_in,
)


def test_a_windows_rows_are_the_whole_images(mini: Path) -> None:
    game = game_with_aids(mini)
    charts = all_charts(game, "en")
    windowed = 0
    for chart in charts:
        drawing = drawing_of(game, chart, "en")
        height = _png_height(drawing)
        one = (
            raster._background(drawing) is not None
            and len(raster._passes(drawing.ops, 1.5 / height)) == 1
        )
        assert window.single_pass(drawing, height, CHART_SUPERSAMPLE) == one, chart.id
        if not one:
            continue  # drawn whole (its paper short of the bottom by a rounding: RGBA)
        windowed += 1
        image = rasterize(drawing, height, CHART_SUPERSAMPLE)
        whole = image.tobytes()
        stride = image.width * 3
        rows = window.window_rows(drawing, image.size)
        for top in range(0, height, BAND_ROWS):
            for bottom in (min(height, top + BAND_ROWS), min(height, top + 3 * BAND_ROWS)):
                assert rows(top, bottom) == whole[top * stride : bottom * stride], (chart.id, top)
    assert windowed > len(charts) // 2


def test_a_changed_row_changes_only_the_looks_of_its_bands(mini: Path) -> None:
    game = game_with_aids(mini)
    charts = {chart.id: chart for chart in all_charts(game, "en")}
    drawings = {i: drawing_of(game, chart, "en") for i, chart in charts.items()}
    looks = {i: window.band_looks(d, (900, _png_height(d))) for i, d in drawings.items()}
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    again = game_with_aids(mini)
    changed = 0
    for chart in all_charts(again, "en"):
        drawing = drawing_of(again, chart, "en")
        now = window.band_looks(drawing, (900, _png_height(drawing)))
        before = looks.get(chart.id, [])
        if now != before and len(now) == len(before):
            changed += 1
            assert sum(a != b for a, b in zip(now, before, strict=True)) < len(now)
    assert changed


@pytest.mark.parametrize("damage", ["looks", "table"])
def test_a_warm_build_drawing_windows_writes_a_cold_builds_pngs(
    mini: Path, tmp_path: Path, damage: str
) -> None:
    cache, tables = chart_cache_after_an_edit(mini, tmp_path)
    for key in tables:
        png_key, (width, bands) = decode_table(cache.get(key)) or ("", (0, []))
        looks = decode_looks(cache.get(key))
        assert len(looks) == len(bands)
        if damage == "looks":  # each band said to look as the next one did
            cache.put(key, encode_table(png_key, (width, bands), looks[1:] + looks[:1]))
        else:  # the bands' lengths swapped in pairs: the PNG's bytes named wrong
            swapped = [
                (digest, start, bands[n ^ 1][2] if n ^ 1 < len(bands) else length, adler)
                for n, (digest, start, length, adler) in enumerate(bands)
            ]
            cache.put(key, encode_table(png_key, (width, swapped), looks))
    assert_warm_chart_pngs_are_cold(mini, tmp_path, cache)
