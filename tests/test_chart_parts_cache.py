"""A long printed chart is cached part by part and measured block by block: a warm rebuild
after one row changed draws again only the part (and the part of the chart split again to
start mid-page) that holds the row, wraps again only the rows' block that holds it, and
writes the bytes of a cold build."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.charts import build as charts_build
from compiler.backends.charts import table as charts_table
from compiler.backends.charts.build import render_charts
from compiler.backends.charts.table import (
    BLOCK,
)
from compiler.backends.charts.wrap import wrap
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.charts import Chart, Column, Row
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from tests.conftest import replace_in, spy_on_parts_drawn

ROWS = 4 * BLOCK
CHANGED = 150
"""The row whose text changes, and the only one showing b-inf-2."""


def long_chart(game: GameData, label: str) -> Chart:
    """A chart of ROWS rows, each with a counter; row CHANGED is labelled `label` and shows
    b-inf-2, no other row does."""
    others = [unit.id for unit in game.units if unit.id != "b-inf-2"]
    rows = tuple(
        Row(label=Text(f"Row {n}"), cells=(n,), pieces=(others[n % len(others)],))
        for n in range(ROWS)
    )
    changed = Row(label=Text(label), cells=(CHANGED,), pieces=("b-inf-2",))
    rows = rows[:CHANGED] + (changed,) + rows[CHANGED + 1 :]
    columns = (Column(id="n", label=Text("Number")),)
    return Chart(id="long", name=Text("Long table"), columns=columns, rows=rows)


class Spy:
    """The parts drawn (chart ids) and the row labels wrapped since the last clear."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.wrapped: list[str] = []

    def clear(self) -> None:
        self.parts.clear()
        self.wrapped.clear()


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Parts drawn and texts wrapped, every job run in this process (so they are seen)."""
    seen = Spy()

    def wrapping(text: str, width: float, measure: Callable[[str], float]) -> list[str]:
        if text.startswith("Row "):
            seen.wrapped.append(text)
        return wrap(text, width, measure)

    def here(jobs: Sequence[Callable[[], bytes]], minimum: int = 64) -> list[bytes]:
        del minimum
        return [job() for job in jobs]

    spy_on_parts_drawn(monkeypatch, seen.parts)
    monkeypatch.setattr(charts_table, "wrap", wrapping)
    monkeypatch.setattr(charts_build, "parallel_map", here)
    return seen


def build(game: Path, cache: Path | None, label: str, spy: Spy) -> bytes:
    """charts.pdf of the game with the long chart added (cached in `cache`, or drawn from
    scratch without one)."""
    spy.clear()
    loaded = load_game(game).game
    assert loaded is not None
    data = with_aids(loaded)[0]
    data = replace(data, charts=(*data.charts, long_chart(data, label)))
    options = SheetOptions()
    if cache is None:
        return charts_build._pdf(data, options)
    pdf, _pngs = render_charts(data, options, RenderCache(cache / "charts.pack"))
    return pdf


def test_a_warm_rebuild_draws_only_the_changed_part(mini: Path, tmp_path: Path, spy: Spy) -> None:
    warm = tmp_path / "warm"
    first = build(mini, warm, "Row 150", spy)
    assert spy.parts.count("long") >= 4  # the long chart printed in parts (maybe split again)
    assert len(spy.wrapped) >= ROWS  # every row measured

    # b-inf-2's counter changes, no text of the long chart does
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    counter = build(mini, warm, "Row 150", spy)
    assert 1 <= spy.parts.count("long") <= 2  # the part holding row 150; split again: its part
    assert spy.wrapped == []
    assert counter != first
    assert counter == build(mini, None, "Row 150", spy)  # the bytes of a cold build

    # row 150's label changes (no wider: the columns keep their widths)
    label = build(mini, warm, "Row 15", spy)
    assert 1 <= spy.parts.count("long") <= 2
    block = {f"Row {n}" for n in range(BLOCK * 2 - 1, BLOCK * 3 - 1)}  # rows 127-190
    assert "Row 15" in spy.wrapped and set(spy.wrapped) <= block | {"Row 15"}
    assert label != counter
    assert label == build(mini, None, "Row 15", spy)
    assert label == build(mini, tmp_path / "cold", "Row 15", spy)
    assert build(mini, warm, "Row 15", spy) == label
    assert spy.parts == [] and spy.wrapped == []  # nothing changed: nothing drawn
