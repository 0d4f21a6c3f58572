"""A warm build's charts work from the player aids' rows kept in runs (compiler.model.rowruns)
without reading back the runs that did not change: a long order of battle with one unit
changed reads back only the runs of the block it measures again, and its charts.pdf and chart
PNGs are the bytes of a build without any cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bench.generate_game import random_spec, write_game
from compiler.backends.charts.build import render_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.rowruns import RowRuns


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GameData:
    folder = tmp_path_factory.mktemp("kept-rows") / "game"
    write_game(folder, random_spec(400, 2, 40, seed=11), marker_copies=20)
    data = load_game(folder).game
    assert data is not None
    return data


def renamed(game: GameData, index: int) -> GameData:
    unit = replace(game.units[index], name=Text("Renamed", "改名"))
    return replace(game, units=(*game.units[:index], unit, *game.units[index + 1 :]))


def charts_of(game: GameData, cache: Path | None) -> tuple[bytes, list[bytes], list[RowRuns]]:
    """charts.pdf and the chart PNGs of the game with its aids (kept in `cache` when given),
    and the aids' rows kept in runs (their runs read back by then)."""
    with_rows, findings = with_aids(game, cache)
    assert not findings
    options = SheetOptions.from_settings(with_rows.game.print)
    packs = RenderCache(cache / "charts.pack" if cache is not None else None)
    pdf, pngs = render_charts(with_rows, options, packs)
    kept: list[RowRuns] = []
    for aid in with_rows.aids:
        rows: object = aid.rows  # (typed as the tuple it stands for)
        if isinstance(rows, RowRuns):
            kept.append(rows)
    return pdf, [data for _title, data in pngs], kept


def test_a_warm_build_reads_back_few_runs_and_writes_the_cold_bytes(
    generated: GameData, tmp_path: Path
) -> None:
    charts_of(generated, tmp_path)  # cold: the aids and the charts kept
    changed = renamed(generated, len(generated.units) // 2)
    pdf, pngs, kept = charts_of(changed, tmp_path)
    assert kept, "the order of battle is kept in runs"
    runs = sum(len(rows.whole().source.runs) for rows in kept)
    read = sum(rows.runs_read() for rows in kept)
    # those of the rows drawn again (the module's tab and the printed part that hold the
    # changed row) and of the block of rows measured again: a few of the order of battle's
    assert runs > 40 and read <= 8, (read, runs)
    cold_pdf, cold_pngs, _kept = charts_of(changed, None)
    assert pdf == cold_pdf and pngs == cold_pngs


def test_an_unchanged_warm_build_reads_back_no_run(generated: GameData, tmp_path: Path) -> None:
    charts_of(generated, tmp_path)
    _pdf, _pngs, kept = charts_of(generated, tmp_path)  # warm: every part and page kept
    assert kept and sum(rows.runs_read() for rows in kept) == 0
