"""A warm build does not read the chart PNGs the render cache holds: each is read when its
bytes are first asked for (the module asks only for those it does not have), checked, and
drawn again when the entry is not a whole PNG. The bytes are a cold build's either way."""

from __future__ import annotations

from pathlib import Path

from compiler.backends.charts.build import ChartPng, chart_images, render_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import game_with_aids, replace_in


def _pngs(mini: Path, cache: RenderCache) -> list[ChartPng]:
    """The module's chart PNGs of a build of `mini` with `cache`."""
    game = game_with_aids(mini)
    render_charts(game, SheetOptions(), cache)
    return chart_images(game, "en")


def test_a_warm_build_reads_no_png_until_asked(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    cold = [png.data for png in _pngs(mini, RenderCache(pack))]
    warm = _pngs(mini, RenderCache(pack))
    assert warm and not any(png.loaded or png.drawn for png in warm)
    assert [png.data for png in warm] == cold
    assert all(png.loaded for png in warm)


def test_only_the_changed_charts_png_is_drawn_and_read(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    before = [png.data for png in _pngs(mini, RenderCache(pack))]
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm = _pngs(mini, RenderCache(pack))
    drawn = [png for png in warm if png.drawn]
    assert 1 <= len(drawn) < len(warm)
    assert all(png.loaded == png.drawn for png in warm)  # only what was drawn is in memory
    cold = [png.data for png in _pngs(mini, RenderCache(tmp_path / "cold.pack"))]
    assert [png.data for png in warm] == cold != before


def test_a_damaged_entry_is_drawn_again(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    cold = [png.data for png in _pngs(mini, RenderCache(pack))]
    cache = RenderCache(pack)
    warm = _pngs(mini, cache)
    cache.put(warm[0].key, b"\x89PNG\r\n\x1a\n not a whole PNG")  # damaged under the build
    cache.put(warm[1].key, b"")
    assert [png.data for png in warm] == cold


def test_the_pairs_equal_the_pngs(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    game = game_with_aids(mini)
    _pdf, pairs = render_charts(game, SheetOptions(), RenderCache(pack))
    pngs = chart_images(game, "en")
    assert pairs == [(png.title, png.data) for png in pngs]
    assert list(pairs[1:]) == [(png.title, png.data) for png in pngs[1:]]
    assert pairs != [(png.title, b"") for png in pngs]
