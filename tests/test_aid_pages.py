"""Player aids use paper the way published aids do: tables packed onto pages, a table split
only when it is longer than a page, an aid card's charts on one page, wide tables on landscape
pages, no notes about the source material on the printed aid."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Literal, cast

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from compiler.backends.charts.build import all_charts, charts_pdf
from compiler.backends.charts.pages import GAP, MARGIN, Box, Group, paginate, room
from compiler.backends.charts.printed import part_name, printed, printed_parts
from compiler.backends.charts.table import table_height
from compiler.backends.sheets.options import SheetOptions
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from tests.conftest import SOURCES, findings_of, line_of, replace_in, seed_game

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())
A4 = SheetOptions().page_pt


def _reader(game: GameData, lang: Literal["en", "ja"] = "en") -> PdfReader:
    return PdfReader(io.BytesIO(charts_pdf(game, SheetOptions(lang=lang))))


def _charts_by_page(reader: PdfReader) -> list[set[str]]:
    """The charts each page shows a part of (their forms are named chart.<id>.<digest>)."""
    shown: list[set[str]] = []
    for page in reader.pages:
        resources = cast(DictionaryObject, page["/Resources"])
        xobjects = cast(DictionaryObject, resources.get("/XObject", DictionaryObject()))
        names = [str(key).lstrip("/") for key in xobjects]
        shown.append({name[6:].rpartition(".")[0] for name in names if name[:6] == "chart."})
    return shown


def _pages_of(game: GameData, lang: str, reader: PdfReader) -> dict[str, list[int]]:
    """For each printed chart, the pages (0-based) that show a part of it."""
    on_pages = _charts_by_page(reader)
    return {
        chart.id: [n for n, shown in enumerate(on_pages) if chart.id in shown]
        for _heading, charts in printed(game)
        for chart in charts
    }


def test_chart_parts_are_named_by_their_chart() -> None:
    game = seed_game("napoleon")
    chart = game.charts[0]
    (content, _w, _h), *_rest = printed_parts(game, chart, "en", A4)[1]
    assert part_name(chart.id, content).startswith(f"chart.{chart.id}.")
    pages = _pages_of(game, "en", _reader(game))
    assert set(pages) == {c.id for c in (*game.charts, *game.aids)}
    assert all(pages.values())  # every chart is found on a page by its forms' names


def test_gcacw_charts_take_far_fewer_pages_than_tables() -> None:
    game = seed_game("gcacw")
    pages = len(_reader(game).pages)
    tables = len(all_charts(game, "en"))  # what the module shows, one table per page before
    assert pages * 3 <= tables * 2, (pages, tables)
    own = {chart.id for chart in game.charts}
    on_pages = _pages_of(game, "en", _reader(game))
    # the combat card, the movement card and the terrain effects chart (landscape)
    assert len({p for ident in own for p in on_pages[ident]}) == 3


@pytest.mark.parametrize("name", GAMES)
def test_every_game_prints_fewer_pages_than_tables(name: str) -> None:
    game = seed_game(name)
    assert len(_reader(game).pages) < len(all_charts(game, "en"))


@pytest.mark.parametrize("name", ["gcacw", "twilight_in_the_east", "tank_killers"])
def test_a_table_is_split_only_when_longer_than_a_page(name: str) -> None:
    game = seed_game(name)
    pages = _pages_of(game, "en", _reader(game))
    split = 0
    for _heading, charts in printed(game):
        for chart in charts:
            shown = pages[chart.id]
            assert shown, chart.id  # every chart is printed
            assert shown == list(range(shown[0], shown[-1] + 1)), (chart.id, shown)
            if len(shown) > 1:
                split += 1
                wide, _parts = printed_parts(game, chart, "en", A4)
                width, height = room(A4, wide)
                assert table_height(game, chart, "en", width) > height, chart.id
    assert split  # the test sees long tables (orders of battle, set-up cards, deck lists)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("name", GAMES)
def test_an_aid_cards_charts_are_on_one_page(name: str, lang: Literal["en", "ja"]) -> None:
    game = seed_game(name)
    assert game.aid_cards, name  # every seed game groups its charts into cards
    reader = _reader(game, lang)
    pages = _pages_of(game, lang, reader)
    for card in game.aid_cards:
        on = {page for ident in card.charts for page in pages[ident]}
        assert len(on) == 1, (card.id, on)
        (page,) = on
        text = reader.pages[page].extract_text()
        assert _squash(card.name.get(lang)) in _squash(text), (card.id, lang)
        for ident in card.charts:
            chart = next(c for c in game.charts if c.id == ident)
            assert _squash(chart.name.get(lang)) in _squash(text), (card.id, ident)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("name", GAMES)
def test_no_page_shows_notes_about_the_source(name: str) -> None:
    game = seed_game(name)
    text = "".join(page.extract_text() for page in _reader(game).pages)
    assert "[GAP]" not in text
    assert "scrambled in the source" not in text
    for chart in (*game.charts, *game.aids):
        for note in chart.notes:
            assert "[GAP]" not in note.en and "lost in the" not in note.en, (chart.id, note)


def test_wide_tables_go_on_landscape_pages() -> None:
    game = seed_game("gcacw")
    terrain = next(c for c in game.charts if c.id == "terrain-effects")
    wide, _parts = printed_parts(game, terrain, "en", A4)
    assert wide  # its long cells wrap into many lines between portrait margins
    narrow = next(c for c in game.charts if c.id == "attack-types")
    assert not printed_parts(game, narrow, "en", A4)[0]
    reader = _reader(game)
    page = _pages_of(game, "en", reader)["terrain-effects"][0]
    box = reader.pages[page].mediabox
    assert float(box.width) > float(box.height)


def test_the_same_sources_give_the_same_bytes() -> None:
    from compiler.load.aids import with_aids
    from compiler.load.game import load_game

    def built() -> bytes:
        loaded = load_game(SOURCES / "tank_killers").game
        assert loaded is not None
        return charts_pdf(with_aids(loaded)[0], SheetOptions(lang="ja"))

    assert built() == built()


# ---- the packing itself -----------------------------------------------------------------------

WIDTH, HEIGHT = room(A4, False)


def _sheets(*groups: Group) -> list[list[tuple[int, int]]]:
    return [[(p.group, p.box) for p in sheet.placed] for sheet in paginate(list(groups), A4)]


def test_tables_that_fit_share_a_page_and_the_next_one_moves_on() -> None:
    third = Box(WIDTH, (HEIGHT - 2 * GAP) / 3)
    groups = [Group((third,)) for _ in range(4)]
    assert _sheets(*groups) == [[(0, 0), (1, 0), (2, 0)], [(3, 0)]]


def test_narrow_tables_go_side_by_side() -> None:
    narrow = Box((WIDTH - GAP) / 2, 100.0)
    sheets = paginate([Group((narrow,)), Group((narrow,))], A4)
    assert len(sheets) == 1
    left, right = sheets[0].placed
    assert left.y == right.y and right.x == pytest.approx(MARGIN + narrow.width + GAP)


def test_a_wide_table_gets_a_landscape_page() -> None:
    sheets = paginate([Group((Box(WIDTH, 100.0),)), Group((Box(700.0, 100.0, True),))], A4)
    assert [s.landscape for s in sheets] == [False, True]
    assert sheets[1].size(A4) == (A4[1], A4[0])


def test_an_aid_card_has_a_page_of_its_own_and_shrinks_to_fit_it() -> None:
    half = Box(WIDTH, HEIGHT / 2)
    card = Group((half, half, half), Text("Combat"))
    sheets = paginate([Group((Box(WIDTH, 50.0),)), card, Group((Box(WIDTH, 50.0),))], A4)
    assert [[p.group for p in s.placed] for s in sheets] == [[0], [1, 1, 1], [2]]
    assert sheets[1].heading == Text("Combat") and sheets[0].heading is None
    scale = sheets[1].placed[0].scale
    assert 0.6 <= scale < 1.0
    assert all(p.y >= MARGIN - 0.01 for p in sheets[1].placed)


def test_an_aid_card_too_long_for_a_page_continues_at_full_size() -> None:
    long_chart = (Box(WIDTH, HEIGHT, fills=True), Box(WIDTH, 100.0))
    sheets = paginate([Group((Box(WIDTH, 100.0), *long_chart), Text("OOB"))], A4)
    assert len(sheets) == 3 and all(p.scale == 1.0 for s in sheets for p in s.placed)


def test_a_long_table_starts_where_a_page_has_room_left() -> None:
    asked: list[float] = []

    def split(room_left: float) -> tuple[Box, ...]:
        asked.append(room_left)
        return (Box(WIDTH, room_left, fills=True), Box(WIDTH, HEIGHT, fills=True), Box(WIDTH, 50))

    long_chart = (Box(WIDTH, HEIGHT, fills=True), Box(WIDTH, HEIGHT / 2))
    half = Group((Box(WIDTH, HEIGHT / 2 - GAP),))
    assert _sheets(half, Group(long_chart, split=split)) == [
        [(0, 0), (1, 0)],
        [(1, 1)],
        [(1, 2)],
    ]
    assert asked == [pytest.approx(HEIGHT / 2)]
    asked.clear()
    most = Group((Box(WIDTH, HEIGHT * 0.8),))
    assert _sheets(most, Group(long_chart, split=split)) == [[(0, 0)], [(1, 0)], [(1, 1)]]
    assert asked == []  # too little room left: the table starts on the next page


def test_a_part_that_continues_fills_its_page() -> None:
    part = Box(WIDTH / 3, HEIGHT, fills=True)
    last = Box(WIDTH / 3, 100.0)
    after = Box(WIDTH / 3, 100.0)
    assert _sheets(Group((part, last)), Group((after,))) == [[(0, 0)], [(0, 1), (1, 0)]]


# ---- aid cards name charts that exist ---------------------------------------------------------


def test_an_unknown_chart_on_an_aid_card_is_a_finding(tmp_path: Path) -> None:
    folder = tmp_path / "gcacw"
    shutil.copytree(SOURCES / "gcacw", folder)
    old = "charts: [attack-types, artillery-modifier"
    new = "charts: [attack-types, artilery-modifier"
    replace_in(folder / "charts.yaml", old, new)
    found = [f for f in findings_of(folder) if f.rule == "unresolved-reference"]
    assert len(found) == 1, found
    finding = found[0]
    assert "unknown chart `artilery-modifier`" in finding.message
    assert "artillery-modifier" in finding.hint
    assert Path(finding.location.path).name == "charts.yaml"
    assert finding.location.line == line_of(folder / "charts.yaml", new)
    line = (
        (folder / "charts.yaml").read_text(encoding="utf-8").splitlines()[finding.location.line - 1]
    )
    assert line[finding.location.column - 1 :].startswith("artilery-modifier")


def test_a_changed_aid_card_rebuilds_warm_as_cold(tmp_path: Path) -> None:
    """The cached PDF is keyed by the cards too: a renamed or regrouped card is packed again,
    and a warm build gives the bytes of a cold one."""
    from compiler.backends.charts.build import render_charts
    from compiler.backends.rendercache import RenderCache
    from compiler.load.aids import with_aids
    from compiler.load.game import load_game

    folder = tmp_path / "tank_killers"
    shutil.copytree(SOURCES / "tank_killers", folder)

    def build(cache: Path) -> bytes:
        loaded = load_game(folder).game
        assert loaded is not None
        return render_charts(with_aids(loaded)[0], SheetOptions(), RenderCache(cache))[0]

    first = build(tmp_path / "warm")
    replace_in(folder / "charts.yaml", "{en: Combat, ja: 戦闘}", "{en: Fire combat, ja: 戦闘}")
    renamed = build(tmp_path / "warm")
    assert renamed != first and "Firecombat" in _squash(_text(renamed))
    replace_in(
        folder / "charts.yaml",
        "charts: [range-scale, tactics-categories]",
        "charts: [tactics-categories, range-scale]",
    )
    regrouped = build(tmp_path / "warm")
    assert regrouped != renamed
    assert regrouped == build(tmp_path / "cold")


def _text(pdf: bytes) -> str:
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
