"""Charts: every cell of every table is in the PDF (English and Japanese), lines break where
Japanese allows, output is deterministic, and the module's charts window holds each chart."""

from __future__ import annotations

import io
import re
from typing import Literal

import pytest
from pypdf import PdfReader

from compiler.backends.charts.build import all_charts, charts_pdf
from compiler.backends.charts.table import cell_text
from compiler.backends.charts.wrap import NO_LINE_END, NO_LINE_START, wrap
from compiler.backends.sheets.options import SheetOptions
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import SOURCES

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
