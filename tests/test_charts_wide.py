"""Whether a chart goes on landscape pages is decided without laying its table out landscape
when its portrait table is short enough (table.least_height): the same decision as laying
it out both ways, and no table is ever under its least height."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.backends.charts import table as charts_table
from compiler.backends.charts.pages import room
from compiler.backends.charts.printed import WIDE, is_wide
from compiler.backends.charts.table import least_height, table_height
from compiler.model.charts import Chart, Column, Row
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from tests.conftest import DATA, game_with_aids

PAGES = [(595.0, 842.0), (612.0, 792.0), (300.0, 420.0)]


game_of = game_with_aids


def wide_chart(game: GameData) -> Chart:
    """A chart of many long columns: squeezed onto a portrait page its cells wrap to many
    lines (a landscape chart)."""
    columns = tuple(Column(id=f"c{n}", label=Text(f"Column {n}")) for n in range(6))
    words = " ".join(f"word{n}" for n in range(40))
    rows = tuple(
        Row(label=Text(f"Row {n}"), cells=tuple(f"{words} {c}" for c in range(6)))
        for n in range(12)
    )
    return Chart(id="wide", name=Text("Wide table"), columns=columns, rows=rows)


def charts_of(game: GameData) -> list[Chart]:
    return [*game.charts, *game.aids, wide_chart(game)]


def test_no_table_is_under_its_least_height() -> None:
    game = game_of(DATA / "mini")
    for chart in charts_of(game):
        for width in (120.0, 300.0, 515.0, 770.0, 2000.0):
            assert table_height(game, chart, "en", width) >= least_height(chart), chart.id


@pytest.mark.parametrize("page", PAGES)
def test_the_decision_is_that_of_both_layouts(page: tuple[float, float]) -> None:
    game = game_of(DATA / "mini")
    portrait, landscape = room(page, False)[0], room(page, True)[0]
    decided = [is_wide(game, chart, "en", page) for chart in charts_of(game)]
    both = [
        table_height(game, chart, "en", portrait)
        > WIDE * table_height(game, chart, "en", landscape)
        for chart in charts_of(game)
    ]
    assert decided == both
    if page == PAGES[0]:
        assert decided == [False] * (len(decided) - 1) + [True]  # the wide chart only


def test_a_short_table_is_not_laid_out_landscape(monkeypatch: pytest.MonkeyPatch) -> None:
    """The order of battle (one line and one counter a row) is decided from its portrait
    table alone."""
    game = game_of(DATA / "mini")
    chart = next(c for c in game.aids if c.rows and all(r.pieces for r in c.rows))
    chart = replace(chart, rows=chart.rows * 20)
    widths: list[float] = []
    real = charts_table._lay_out_table

    def spy(game: GameData, chart: Chart, lang: str, width: float) -> charts_table._Table:
        widths.append(width)
        return real(game, chart, lang, width)

    monkeypatch.setattr(charts_table, "_lay_out_table", spy)
    page = PAGES[0]
    assert not is_wide(game, chart, "en", page)
    assert widths == [room(page, False)[0]]
