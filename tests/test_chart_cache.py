"""Charts are cached one by one: a warm rebuild draws again only the charts whose content
changed, puts charts.pdf together from the cached pages, and writes what a cold build writes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from compiler.backends.art.display import Drawing
from compiler.backends.charts import build as charts_build
from compiler.backends.charts.build import render_charts, write_charts
from compiler.backends.charts.table import chart_drawing
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.charts import Chart
from compiler.model.gamedata import GameData
from tests.conftest import replace_in

Built = tuple[bytes, Sequence[tuple[str, bytes]], list[str]]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the charts drawn (chart_drawing spied on) since the last clear."""
    ids: list[str] = []

    def spy(game: GameData, chart: Chart, lang: str = "en", width: float = 515.0) -> Drawing:
        ids.append(chart.id)
        return chart_drawing(game, chart, lang, width)

    monkeypatch.setattr(charts_build, "chart_drawing", spy)
    return ids


def build(game: Path, cache: Path, out: Path, drawn: list[str]) -> Built:
    """charts.pdf (as written) and the chart PNGs of one build; the charts it drew."""
    drawn.clear()
    loaded = load_game(game).game
    assert loaded is not None
    data = with_aids(loaded)[0]
    options = SheetOptions()
    _pdf, pngs = render_charts(data, options, RenderCache(cache / "charts.pack"))
    out.mkdir(parents=True, exist_ok=True)
    written = write_charts(data, out, options)
    assert written is not None
    return written.read_bytes(), pngs, sorted(drawn)


def test_a_warm_rebuild_draws_only_the_changed_charts(
    mini: Path, tmp_path: Path, drawn: list[str]
) -> None:
    warm = tmp_path / "warm"
    first = build(mini, warm, tmp_path / "out-1", drawn)
    assert first[2] == ["oob-blue-1", "oob-red-1", "reinforcements-first-1", "setup-first-1",
                        "turn-track-1"]  # fmt: skip
    again = build(mini, warm, tmp_path / "out-2", drawn)
    assert again == (first[0], first[1], [])  # nothing changed: nothing drawn

    # b-inf-2 is shown on the set-up card and Blue's order of battle only
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    pdf, pngs, redrawn = build(mini, warm, tmp_path / "out-3", drawn)
    assert redrawn == ["oob-blue-1", "setup-first-1"]
    cold_pdf, cold_pngs, cold_drawn = build(mini, tmp_path / "cold", tmp_path / "out-4", drawn)
    assert len(cold_drawn) == len(first[2])
    assert pdf == cold_pdf  # charts.pdf byte for byte
    assert pngs == cold_pngs
    assert pdf != first[0]
    changed = {t for (t, png), (_, old) in zip(pngs, first[1], strict=True) if png != old}
    assert len(changed) == 2 and len(pngs) == 5


def test_a_changed_chart_is_drawn_again(mini: Path, tmp_path: Path, drawn: list[str]) -> None:
    warm = tmp_path / "warm"
    first = build(mini, warm, tmp_path / "out-1", drawn)
    replace_in(mini / "game.yaml", '{n: 2, date: "1862-06-02"}', '{n: 2, date: "1862-06-09"}')
    pdf, pngs, redrawn = build(mini, warm, tmp_path / "out-2", drawn)
    assert redrawn == ["turn-track-1"]
    assert pdf != first[0] and pngs[0] != first[1][0] and pngs[1:] == first[1][1:]
    assert (pdf, pngs) == build(mini, tmp_path / "cold", tmp_path / "out-3", drawn)[:2]

    # back to the first data: every chart comes from the cache, the first bytes again
    replace_in(mini / "game.yaml", '{n: 2, date: "1862-06-09"}', '{n: 2, date: "1862-06-02"}')
    assert build(mini, warm, tmp_path / "out-4", drawn) == (first[0], first[1], [])


def test_a_page_size_is_part_of_the_key(mini: Path, tmp_path: Path, drawn: list[str]) -> None:
    """Printed charts cached for one paper size are not used for another (the module's PNGs
    do not depend on the paper: they come from the cache)."""
    loaded = load_game(mini).game
    assert loaded is not None
    cache = tmp_path / "cache" / "charts.pack"
    a4 = SheetOptions()
    letter = SheetOptions(paper="Letter")
    assert letter.page_pt != a4.page_pt
    render_charts(with_aids(loaded)[0], a4, RenderCache(cache))
    drawn.clear()
    data = with_aids(loaded)[0]
    pack = RenderCache(cache)
    pdf, _pngs = render_charts(data, letter, pack)
    assert drawn == []
    assert pack.misses == 5 + 5 + 2 + 1 + 1  # each chart's entry and its one part, the PDF
    # (its page of charts and that page's run, see printed._kept_pages),
    # the setup card's scenario picture and its board's printed image (their size on the page
    # depends on the paper; the faces on the picture are read back, the same on any paper)
    assert pdf == charts_build._pdf(data, letter)


def test_charts_put_together_again_read_the_scenario_pictures_back(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """charts.pdf made again from cached parts (here: other sheet options, the same paper)
    takes the setup cards' scenario pictures from the cache: no scene is drawn, and the bytes
    are those of a build without a cache."""
    from compiler.backends import scenepics

    loaded = load_game(mini).game
    assert loaded is not None
    cache = tmp_path / "cache" / "charts.pack"
    render_charts(with_aids(loaded)[0], SheetOptions(), RenderCache(cache))
    scenes: list[str] = []
    real = scenepics._scene

    def spy(game: GameData, scenario: object, lang: str, boards: object) -> object:
        scenes.append(lang)
        return real(game, scenario, lang, boards)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics, "_scene", spy)
    other = SheetOptions(bleed_mm=2.0)  # not in what a chart or picture looks like
    data = with_aids(loaded)[0]
    pdf, _pngs = render_charts(data, other, RenderCache(cache))
    assert scenes == []
    monkeypatch.undo()
    assert pdf == charts_build._pdf(with_aids(loaded)[0], other)
