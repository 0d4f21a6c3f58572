"""Charts: every cell of every table is in the PDF (English and Japanese), lines break where
Japanese allows, output is deterministic, and the module's charts window holds each chart."""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest
from pypdf import PdfReader

from compiler.backends.art.display import Inset
from compiler.backends.charts.build import all_charts, charts_pdf
from compiler.backends.charts.printed import printed
from compiler.backends.charts.table import cell_text, chart_drawing
from compiler.backends.charts.wrap import NO_LINE_END, NO_LINE_START, wrap
from compiler.backends.sheets.options import SheetOptions
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import SOURCES, findings_of, line_of, replace_in

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def _game(name: str) -> GameData:
    game = load_game(SOURCES / name).game
    assert game is not None
    return with_aids(game)[0]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("name", GAMES)
def test_every_cell_is_in_the_pdf(name: str, lang: Literal["en", "ja"]) -> None:
    game = _game(name)
    reader = PdfReader(io.BytesIO(charts_pdf(game, SheetOptions(lang=lang))))
    charts = [chart for _card, group in printed(game) for chart in group]
    assert len(charts) > len(game.charts)  # the derived player aids come after the game's own
    assert {c.id for c in charts} == {c.id for c in (*game.charts, *game.aids)}
    text = _squash("".join(page.extract_text() for page in reader.pages))
    for chart in charts:
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


# ---- player aids come from a Jinja2 template ---------------------------------------------------

OWN_TEMPLATE = """charts:
{%- for side in game.game.sides %}
  - id: roster-{{ side.id }}
    name: {en: {{ ("Roster: " ~ side.name.en) | tojson }}, ja: 名簿}
    corner: {en: Unit, ja: ユニット}
    columns:
      - {id: steps, label: {en: Steps, ja: ステップ}}
    rows:
{%- for unit in units_of(side.id) %}
      - {label: {{ unit.name | t }}, cells: [{{ unit.steps | string | t }}], pieces: {{ [unit.id] | ids }}}
{%- endfor %}
{%- endfor %}
"""


def test_a_game_may_lay_out_its_own_player_aids(mini: Path) -> None:
    (mini / "player_aids.yaml.j2").write_text(OWN_TEMPLATE, encoding="utf-8")
    assert not findings_of(mini)
    loaded = load_game(mini)
    assert loaded.game is not None
    game, found = with_aids(loaded.game)
    assert not found
    assert [c.id for c in game.aids] == [f"roster-{s.id}" for s in game.game.sides]
    rows = [row for chart in game.aids for row in chart.rows]
    assert len(rows) == len(game.units)
    assert {row.pieces[0] for row in rows} == {u.id for u in game.units}
    assert all(c.id.startswith("roster-") for c in all_charts(game, "en")[len(game.charts) :])


@pytest.mark.parametrize(
    ("template", "message", "line"),
    [
        ("charts:\n{% for x in game.units %}\n  - {{ x.id }\n{% endfor %}\n", "syntax", 3),
        ("charts:\n  - {{ no_such_helper() }}\n", "failed while rendering", 2),
        ("charts:\n  - {{ 1 // 0 }}\n", "failed while rendering", 2),
        ("charts:\n  - {{ [].pop() }}\n", "failed while rendering", 2),
        ("charts:\n  - id: x\n    rows: 3\n", "not chart data", 1),
        ("charts:\n  - {id: [\n", "not valid YAML", 1),
    ],
    ids=[
        "template syntax",
        "unknown name",
        "division by zero",
        "empty list",
        "not chart data",
        "not YAML",
    ],
)
def test_a_broken_player_aids_template_is_a_finding(
    mini: Path, template: str, message: str, line: int
) -> None:
    (mini / "player_aids.yaml.j2").write_text(template, encoding="utf-8")
    found = [f for f in findings_of(mini) if f.rule == "player-aids"]
    assert len(found) == 1, found
    assert message in found[0].message
    assert found[0].location.path.endswith("player_aids.yaml.j2")
    assert found[0].location.line == line
    loaded = load_game(mini)
    assert loaded.game is not None and with_aids(loaded.game)[0].aids == ()


def test_the_shared_template_gives_every_aid() -> None:
    game = _game("napoleon")
    ids = [c.id for c in game.aids]
    assert ids[0] == "turn-track"
    assert {f"setup-{s.id}" for s in game.scenarios if s.setup} <= set(ids)
    assert {f"oob-{s.id}" for s in game.game.sides} <= set(ids)
    guard = next(
        row
        for c in game.aids
        if c.id == "oob-french"
        for row in c.rows
        if "Old Guard" in row.label.en
    )
    assert guard.label.ja == "老親衛隊"


def test_player_aids_indented_any_way_are_read(mini: Path) -> None:
    flush = OWN_TEMPLATE.replace("\n  - id:", "\n- id:").replace("\n    ", "\n  ")
    (mini / "player_aids.yaml.j2").write_text(flush, encoding="utf-8")
    loaded = load_game(mini)
    assert loaded.game is not None
    game, found = with_aids(loaded.game)
    assert not found and [c.id for c in game.aids] == [f"roster-{s.id}" for s in game.game.sides]


def test_a_rebuild_draws_only_the_charts_that_changed(mini: Path, tmp_path: Path) -> None:
    """Chart PNGs and charts.pdf come from the cache when nothing changed; after a change only
    the charts that show it are drawn again, and the outputs equal a build from scratch."""
    from compiler.backends.charts.build import render_charts
    from compiler.backends.rendercache import RenderCache

    def charts(cache: Path) -> tuple[bytes, Sequence[tuple[str, bytes]], int]:
        loaded = load_game(mini).game
        assert loaded is not None
        pack = RenderCache(cache / "charts.pack")
        pdf, pngs = render_charts(with_aids(loaded)[0], SheetOptions(), pack)
        return pdf, pngs, pack.misses

    pdf, pngs, drawn = charts(tmp_path / "warm")
    assert drawn >= 3 * len(pngs) + 1  # every PNG, chart entry and printed part (and the
    # table's measured rows), the PDF
    assert charts(tmp_path / "warm") == (pdf, pngs, 0)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm_pdf, warm_pngs, redrawn = charts(tmp_path / "warm")
    cold_pdf, cold_pngs, _ = charts(tmp_path / "cold")
    assert (warm_pdf, warm_pngs) == (cold_pdf, cold_pngs)
    assert warm_pdf != pdf
    changed = sum(a != b for a, b in zip(pngs, warm_pngs, strict=True))
    assert 1 <= changed < len(pngs) and 3 * changed + 1 <= redrawn < drawn  # PNGs, entries,
    # parts (and measured rows) of the changed charts, the PDF; not those of the others
