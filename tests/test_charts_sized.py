"""A printed chart a warm build has no entry for is placed on the pages by its parts' sizes
(printed.sized_laid: worked out without drawing a part), and its parts are drawn only when they
are shown: a long chart split again to start mid-page draws only the parts of the split, not
its whole parts as well. The sizes are those the drawn parts have, and the bytes a cold
build's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.charts import build
from compiler.backends.charts.build import _pdf, render_charts
from compiler.backends.charts.printed import (
    UNDRAWN,
    Laid,
    PartRef,
    chart_entry,
    entry_laid,
    printed,
    sized_laid,
)
from compiler.backends.charts.table import layout_keys, measures
from compiler.backends.rendercache import AGE_LIMIT, RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.model.charts import Chart
from compiler.model.gamedata import GameData
from tests.conftest import game_with_aids, replace_in, spy_on_parts_drawn
from tests.test_chart_parts_cache import long_chart

PAGES = {"a4": SheetOptions().page_pt, "letter": (612.0, 792.0), "a5": (420.0, 595.0)}


def _game(mini: Path) -> GameData:
    """The game with a short chart, then the long one: the long chart starts on the short
    one's page, split again."""
    data = game_with_aids(mini)
    long = long_chart(data, "Row 150")
    short = replace(long, id="short", name=replace(long.name, en="Short"), rows=long.rows[:3])
    return replace(data, charts=(*data.charts, short, long))


@pytest.fixture
def parts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the charts whose printed parts were drawn since the last clear."""
    seen: list[str] = []
    spy_on_parts_drawn(monkeypatch, seen)
    return seen


def _build(mini: Path, cache: Path | None, parts: list[str]) -> bytes:
    """charts.pdf of _game, kept in `cache` or drawn afresh."""
    parts.clear()
    if cache is None:
        return _pdf(_game(mini), SheetOptions())
    return render_charts(_game(mini), SheetOptions(), RenderCache(cache / "charts.pack"))[0]


@pytest.mark.parametrize("page", PAGES)
def test_the_sizes_are_those_of_the_drawn_parts(mini: Path, page: str) -> None:
    game = _game(mini)
    page_pt = PAGES[page]
    charts = [chart for _heading, group in printed(game) for chart in group]
    assert any(chart.id == "long" for chart in charts)
    for chart in charts:
        wide, refs = sized_laid(game, chart, "en", page_pt)
        entry, _drawn = chart_entry(game, chart, "en", page_pt, lambda _key: None)
        drawn_wide, drawn_refs = entry_laid(entry)
        assert wide == drawn_wide
        assert refs == tuple(PartRef(UNDRAWN, UNDRAWN, r.width, r.height) for r in drawn_refs)
        assert all(ref.digest != UNDRAWN and ref.key != UNDRAWN for ref in drawn_refs)
    measures(game).forget()


def test_a_long_chart_split_again_draws_only_the_split_part(
    mini: Path, tmp_path: Path, parts: list[str]
) -> None:
    warm = tmp_path / "warm"
    first = _build(mini, warm, parts)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    changed = _build(mini, warm, parts)
    assert parts.count("long") == 1  # the part of the split that holds row 150
    assert changed != first
    assert changed == _build(mini, None, parts)
    assert _build(mini, warm, parts) == changed
    assert parts == []


def _sized_entries(pack: Path) -> list[str]:
    return [key for key in RenderCache(pack).index if ":chart-sized:" in key]


def test_a_chart_split_again_that_did_not_change_is_not_laid_out_again(
    mini: Path, tmp_path: Path, parts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The long chart, split again, has no entry of its own: its sizes are kept (with its
    layout's entries), and a build in which it did not change places it from them."""
    warm = tmp_path / "warm"
    _build(mini, warm, parts)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    changed = _build(mini, warm, parts)
    assert _sized_entries(warm / "charts.pack")
    laid_out: list[str] = []
    real = sized_laid

    def spy(game: GameData, chart: Chart, lang: str, page_pt: tuple[float, float]) -> Laid:
        laid_out.append(chart.id)
        return real(game, chart, lang, page_pt)

    monkeypatch.setattr(build, "sized_laid", spy)
    assert _build(mini, warm, parts) == changed
    assert laid_out == []


@pytest.mark.parametrize("damage", [b"", b"\x00not marshal", b"\xe9\x00\x00\x00\x00"])
def test_damaged_kept_sizes_are_worked_out_again(
    mini: Path, tmp_path: Path, parts: list[str], damage: bytes
) -> None:
    warm = tmp_path / "warm"
    _build(mini, warm, parts)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    changed = _build(mini, warm, parts)
    cache = RenderCache(warm / "charts.pack")
    entries = _sized_entries(warm / "charts.pack")
    assert entries
    for key in entries:
        cache.put(key, damage)
    cache.save()
    assert _build(mini, warm, parts) == changed == _build(mini, None, parts)


def test_the_layout_of_a_chart_placed_from_its_sizes_stays_in_the_cache(
    mini: Path, tmp_path: Path, parts: list[str]
) -> None:
    """Builds that place the long chart from its kept sizes keep its layout's entries (its
    measured blocks, its summary): there when the chart changes, however many builds later."""
    warm = tmp_path / "warm"
    _build(mini, warm, parts)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    _build(mini, warm, parts)
    game = _game(mini)
    long = next(chart for _heading, group in printed(game) for chart in group if chart.id == "long")
    sized_laid(game, long, "en", SheetOptions().page_pt)
    wanted = set(layout_keys(game, long, "en"))
    measures(game).forget()
    held = wanted & RenderCache(warm / "charts.pack").index.keys()
    assert held
    for _build_number in range(AGE_LIMIT + 2):
        _build(mini, warm, parts)
    assert held <= RenderCache(warm / "charts.pack").index.keys()
