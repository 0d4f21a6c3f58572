"""Charts: every cell of every table is in the PDF (English and Japanese), lines break where
Japanese allows, output is deterministic, and the module's charts window holds each chart."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Literal

import pytest
from pypdf import PdfReader

from compiler.backends.art.display import Inset
from compiler.backends.charts.build import all_charts, charts_pdf
from compiler.backends.charts.table import cell_text, chart_drawing
from compiler.backends.charts.wrap import NO_LINE_END, NO_LINE_START, wrap
from compiler.backends.sheets.options import SheetOptions
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import SOURCES, findings_of, line_of, replace_in

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def _game(name: str) -> GameData:
    game = load_game(SOURCES / name).game
    assert game is not None
    return game


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("name", GAMES)
def test_every_cell_is_in_the_pdf(name: str, lang: Literal["en", "ja"]) -> None:
    game = _game(name)
    reader = PdfReader(io.BytesIO(charts_pdf(game, SheetOptions(lang=lang))))
    charts = all_charts(game, lang)
    assert len(charts) > len(game.charts)  # the derived player aids come after the game's own
    assert len(reader.pages) == len(charts)
    for chart, page in zip(charts, reader.pages, strict=True):
        text = _squash(page.extract_text())
        assert _squash(chart.name.get(lang)) in text
        for column in chart.columns:
            assert _squash(column.label.get(lang)) in text, (chart.id, column.id)
        for row in chart.rows:
            assert _squash(row.label.get(lang)) in text, (chart.id, row.label.en)
            for cell in row.cells:
                assert _squash(cell_text(cell, lang)) in text, (chart.id, row.label.en, cell)


def test_charts_are_deterministic() -> None:
    game = _game("napoleon")
    assert charts_pdf(game, SheetOptions()) == charts_pdf(_game("napoleon"), SheetOptions())


def _width(text: str) -> float:
    return float(len(text))


@pytest.mark.parametrize(
    "text",
    [
        "戦闘結果表（CRT）は、攻撃側の戦闘力と防御側の戦闘力の比で決まる。",
        "「退却」の結果を受けたユニットは、１ヘクス退却しなければならない。",
        "ヒットボーナスはそれぞれ＋1のロール修正で、累積する。",
    ],
)
@pytest.mark.parametrize("width", [3, 5, 7, 11])
def test_japanese_lines_obey_kinsoku(text: str, width: int) -> None:
    lines = wrap(text, width, _width)
    assert "".join(lines) == text
    for line in lines[1:]:
        assert line[0] not in NO_LINE_START, lines
    for line in lines[:-1]:
        assert line[-1] not in NO_LINE_END, lines


def test_english_words_are_never_split() -> None:
    text = "Attacker retreats two hexes unless defending in a fortress"
    lines = wrap(text, 14, _width)
    assert " ".join(lines) == text
    assert all(word in text.split() for line in lines for word in line.split())


# ---- chart data that is wrong is a finding at validate time -----------------------------------

CLEAR = '{label: {en: Clear, ja: 平地}, terrain: clear, cells: ["−3", "−2", NE, "?", "?"]}'


@pytest.mark.parametrize(
    ("new", "rule", "message"),
    [
        (
            '{label: {en: Clear, ja: 平地}, terrain: clear, cells: ["−3", "−2", NE, "?"]}',
            "chart-shape",
            "has 4 cells for 5 columns",
        ),
        (
            '{label: {en: Clear, ja: 平地}, terrain: clear, cells: ["−3", "−2", NE, "?", "?", 1]}',
            "chart-shape",
            "has 6 cells for 5 columns",
        ),
        (
            '{label: {en: Clear, ja: 平地}, terrain: swampy, cells: ["−3", "−2", NE, "?", "?"]}',
            "unresolved-reference",
            "swampy",
        ),
        (
            CLEAR.replace("cells:", "pieces: [nobody], cells:"),
            "unresolved-reference",
            "nobody",
        ),
        (
            CLEAR.replace("cells:", "pieces: [sjw-u-schenck:sideways], cells:"),
            "chart-shape",
            "must be front or back",
        ),
    ],
    ids=["missing cell", "ragged row", "unknown terrain", "unknown piece", "bad piece side"],
)
def test_bad_chart_data_is_a_finding(tmp_path: Path, new: str, rule: str, message: str) -> None:
    folder = tmp_path / "gcacw"
    shutil.copytree(SOURCES / "gcacw", folder)
    replace_in(folder / "charts.yaml", CLEAR, new)
    found = [f for f in findings_of(folder) if f.rule == rule]
    assert found, rule
    finding = found[0]
    assert message in finding.message
    assert Path(finding.location.path).name == "charts.yaml"
    assert finding.location.line == line_of(folder / "charts.yaml", new[:60])
    assert finding.location.column > 1


def test_setup_cards_and_orders_of_battle_show_the_counters() -> None:
    game = _game("twilight_in_the_east")
    charts = all_charts(game, "en")
    setup = next(c for c in charts if c.id.startswith("setup-"))
    shown = [ref.partition(":")[0] for row in setup.rows for ref in row.pieces]
    assert shown and all(game.unit(ref) is not None for ref in shown)
    oob = [c for c in charts if c.id.startswith("oob-")]
    assert sum(len(row.pieces) for c in oob for row in c.rows) == len(game.units)
    drawing = chart_drawing(game, setup, "en")
    insets = [op for op in drawing.ops if isinstance(op, Inset)]
    assert len(insets) == len(shown)
    # every counter sits inside the table, clear of the text columns
    assert all(0 <= op.box[0] < op.box[2] <= drawing.width for op in insets)
