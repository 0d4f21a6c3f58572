"""A long table laid out with its layout summary (table._layout): the numbers of each block
kept under the table's name, so that a warm build reads one entry instead of every block's,
and only the changed block's lines. Laid out so, a table is drawn as when it is measured now,
with one row changed too, and a damaged summary is worked out again (a miss, never a
traceback)."""

from __future__ import annotations

import marshal
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.backends.art.display import Drawing
from compiler.backends.charts.table import BLOCK, SUMMARISED, chart_drawing, measures
from compiler.model.charts import Chart
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from tests.conftest import game_with_aids

ROWS = BLOCK * (SUMMARISED + 2)
"""Rows enough for a table laid out with a summary."""


def long_chart(game: GameData, changed: int | None = None) -> Chart:
    """The game's first chart (a player aid) with ROWS rows of its first row's cells (row
    `changed`'s heading longer, to wrap to more lines)."""
    chart = next(chart for chart in (*game.charts, *game.aids) if chart.rows)
    model = chart.rows[0]
    rows = tuple(
        replace(model, label=Text(f"Row {i}" + (" with more words" * 8 if i == changed else "")))
        for i in range(ROWS)
    )
    return replace(chart, id="long", rows=rows)


def drawn(
    folder: Path, known: dict[str, bytes] | None = None, changed: int | None = None
) -> tuple[Drawing, list[str]]:
    """The long chart drawn 300 points wide, its blocks and summary read from `known` when
    given (what was made is left in it), and the keys read from `known`."""
    game = game_with_aids(folder)
    measured = measures(game)
    read: list[str] = []
    if known is not None:
        store = known

        def look_up(key: str) -> bytes | None:
            read.append(key)
            return store.get(key)

        measured.known = look_up
    drawing = chart_drawing(game, long_chart(game, changed), "en", 300.0)
    if known is not None:
        known.update(measured.made)
    measured.forget()
    return drawing, read


def test_a_table_laid_out_from_its_summary_is_drawn_as_measured_now(mini: Path) -> None:
    kept: dict[str, bytes] = {}
    fresh, _ = drawn(mini, kept)
    again, read = drawn(mini, dict(kept))
    assert again == fresh == drawn(mini)[0]
    # the summary, then each block's lines as the whole table is drawn: no natural widths
    blocks = -(-(ROWS + 1) // BLOCK)
    assert len(read) == 1 + blocks


def test_one_row_changed_is_laid_out_as_measured_now(mini: Path) -> None:
    kept: dict[str, bytes] = {}
    drawn(mini, kept)
    warm, _ = drawn(mini, kept, changed=BLOCK + 3)
    assert warm == drawn(mini, changed=BLOCK + 3)[0]
    assert warm != drawn(mini)[0]
    assert drawn(mini, kept)[0] == drawn(mini)[0]  # and back


@pytest.mark.parametrize(
    "damage", [b"", b"\x00not marshal", marshal.dumps({"key": [1]}), marshal.dumps([1.0])]
)
def test_a_damaged_summary_is_worked_out_again(mini: Path, damage: bytes) -> None:
    kept: dict[str, bytes] = {}
    fresh, _ = drawn(mini, kept)
    summaries = [key for key, data in kept.items() if isinstance(marshal.loads(data), dict)]
    assert len(summaries) == 1
    damaged = dict(kept) | {summaries[0]: damage}
    assert drawn(mini, damaged)[0] == fresh
    assert damaged[summaries[0]] == kept[summaries[0]]  # the summary made again
