"""A setup picture's boards are cache entries of their own, apart from the picture: a picture
drawn again (a piece on it changed) neither compresses its boards again nor reads them with
the picture, and a board whose printed image and pixels are both gone or damaged is drawn
again from the scenario. The bytes are those of a build without a cache."""

from __future__ import annotations

from pathlib import Path

from compiler.backends import scenepics_pdf
from compiler.backends.charts import build as charts_build
from compiler.backends.charts.build import render_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import RecordingCache, game_with_aids, replace_in

game_of = game_with_aids


Recording = RecordingCache


def board_keys(cache: RenderCache) -> set[str]:
    """The keys of the boards' pixels the cache holds (in memory or in its pack)."""
    return {key for key in [*cache.memory, *cache.index] if ":picture-board:" in key}


def test_a_picture_drawn_again_keeps_its_boards(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    render_charts(game_of(mini), SheetOptions(), first)
    boards = board_keys(first)
    assert len(boards) == 1  # the mini game's one map
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    again = Recording(pack)
    pdf, _pngs = render_charts(game_of(mini), SheetOptions(), again)
    assert any(":setup-picture-4:" in key for key in again.put_keys)  # the picture drawn again
    assert not boards & set(again.put_keys)  # its board not put again
    assert boards <= again.index.keys()  # but kept with the picture (not aged)
    assert not boards & again.last_used.keys()  # used by this build: no age
    assert pdf == charts_build._pdf(game_of(mini), SheetOptions())


def test_the_picture_entry_holds_no_pixels(mini: Path) -> None:
    game = game_of(mini)
    card = next(chart for chart in game.aids if chart.id.startswith("setup-"))
    cache = RenderCache(None)
    made = scenepics_pdf.setup_picture(game, card, SheetOptions(), cache)
    assert made is not None and made.boards[0].raw is not None
    (entry,) = [data for key, data in cache.memory.items() if ":setup-picture-4:" in key]
    assert len(entry) < len(made.boards[0].raw) // 10
    read = scenepics_pdf.setup_picture(game_of(mini), card, SheetOptions(), cache)
    assert read == made and read is not None and read.boards[0].raw is None


def test_a_board_with_no_pixels_left_is_drawn_again(mini: Path, tmp_path: Path) -> None:
    """The picture read back, its board's printed image and pixels damaged (or printed at
    another size): the board comes from the scenario drawn again, the same bytes."""
    cache = RenderCache(None)
    render_charts(game_of(mini), SheetOptions(), cache)
    for key in cache.memory:
        if ":printed-board:" in key or ":picture-board:" in key:
            cache.memory[key] = b"\x00not an entry"
    for options in (SheetOptions(bleed_mm=2.0), SheetOptions(paper="Letter")):
        pdf, _pngs = render_charts(game_of(mini), options, cache)
        assert pdf == charts_build._pdf(game_of(mini), options)


def test_a_board_printed_again_from_its_kept_pixels(mini: Path) -> None:
    """The picture read back, its board's printed image gone: the board is printed from the
    pixels the cache holds (the picture is not drawn again), the bytes of a build without a
    cache."""
    cache = Recording(None)
    render_charts(game_of(mini), SheetOptions(), cache)
    printed = [key for key in cache.memory if ":printed-board:" in key]
    assert printed
    for key in printed:
        del cache.memory[key]
    cache.put_keys.clear()
    other = SheetOptions(bleed_mm=2.0)
    pdf, _pngs = render_charts(game_of(mini), other, cache)
    assert [key for key in cache.put_keys if ":setup-picture-" in key] == []  # read back
    assert [key for key in cache.put_keys if ":printed-board:" in key] == printed
    assert pdf == charts_build._pdf(game_of(mini), other)
