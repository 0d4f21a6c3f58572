"""charts.pdf put together again on a warm build reads its scenario pictures' costly pieces
from the cache: each board's printed image (scaled and compressed once, not on every build)
and the faces on a picture drawn again (made forms once). What is read back gives the bytes
a build without a cache writes, and damaged entries are made again."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from compiler.backends import scenepics_pdf
from compiler.backends.art.display import Drawing, Inset
from compiler.backends.charts import build as charts_build
from compiler.backends.charts.build import render_charts
from compiler.backends.pdf.content import KeptForms, drawing_form
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.rendercache import RenderCache
from compiler.backends.scenepics import scenario_scene
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import DATA, game_with_aids

game_of = game_with_aids


@pytest.fixture
def scaled(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The sizes boards are printed at, each time one is scaled and compressed (spied on)."""
    sizes: list[tuple[int, int]] = []
    real = scenepics_pdf._printed

    def spy(board: Image.Image, size: tuple[int, int]) -> tuple[str, bytes]:
        sizes.append(size)
        return real(board, size)

    monkeypatch.setattr(scenepics_pdf, "_printed", spy)
    return sizes


@pytest.fixture
def faces(pdf_forms_drawn: list[Drawing]) -> list[Drawing]:
    """The drawings made forms (spied on: conftest.pdf_forms_drawn)."""
    return pdf_forms_drawn


def test_a_board_printed_before_is_read_back_with_the_same_bytes(
    mini: Path, tmp_path: Path, scaled: list[tuple[int, int]]
) -> None:
    """charts.pdf put together again (other sheet options, the same paper) prints the setup
    card's board from its cached image: nothing is scaled, and the bytes are those of a build
    without a cache."""
    pack = tmp_path / "cache" / "charts.pack"
    render_charts(game_of(mini), SheetOptions(), RenderCache(pack))
    assert len(scaled) == 1  # the mini game's one map, on its one setup card
    scaled.clear()
    other = SheetOptions(bleed_mm=2.0)
    game = game_of(mini)
    pdf, _pngs = render_charts(game, other, RenderCache(pack))
    assert scaled == []
    assert pdf == charts_build._pdf(game_of(mini), other)


def test_a_board_printed_at_another_size_is_scaled_again(
    mini: Path, tmp_path: Path, scaled: list[tuple[int, int]]
) -> None:
    """The printed image's key holds its size: on other paper the board is scaled again."""
    pack = tmp_path / "cache" / "charts.pack"
    render_charts(game_of(mini), SheetOptions(), RenderCache(pack))
    letter = SheetOptions(paper="Letter")
    first = list(scaled)
    scaled.clear()
    pdf, _pngs = render_charts(game_of(mini), letter, RenderCache(pack))
    assert len(scaled) == 1 and scaled != first
    assert pdf == charts_build._pdf(game_of(mini), letter)


def test_damaged_picture_entries_are_made_again(
    mini: Path, tmp_path: Path, scaled: list[tuple[int, int]], faces: list[Drawing]
) -> None:
    """A picture, a printed board, a run of its overlay or a face's form whose cache entry is
    not what it should be is made again: the same bytes, no traceback."""
    cache = RenderCache(None)
    render_charts(game_of(mini), SheetOptions(), cache)
    words = (":setup-picture-4:", ":printed-board:", ":scene-run:", ":scene-form:")
    damaged = [key for key in cache.memory if any(word in key for word in words)]
    assert {word for word in words if any(word in key for key in damaged)} == set(words)
    for key in damaged:
        cache.memory[key] = b"\x00not an entry"
    scaled.clear()
    faces.clear()
    other = SheetOptions(bleed_mm=2.0)
    pdf, _pngs = render_charts(game_of(mini), other, cache)
    assert len(scaled) == 1 and faces
    assert pdf == charts_build._pdf(game_of(mini), other)


def test_printed_board_entry_read_back_gives_the_same_image_object(tmp_path: Path) -> None:
    """board_image with a cache adds the same image object to a document as without one,
    whether the cache entry was made now or read back from the pack."""
    game = game_of(DATA / "mini")
    scene = scenario_scene(game, game.scenarios[0], "en")
    board = scenepics_pdf.Board.of(scene.boards[0])
    size = (board.size[0] // 3, board.size[1] // 3)
    plain = PdfDocument()
    name = scenepics_pdf.board_image(plain, board, size)
    pack = tmp_path / "charts.pack"
    for _build in range(2):
        cache = RenderCache(pack)
        kept = PdfDocument()
        assert scenepics_pdf.board_image(kept, board, size, cache) == name
        assert kept.objects == plain.objects
        cache.save()


def test_faces_made_forms_once_are_read_back(
    mini: Path, tmp_path: Path, faces: list[Drawing]
) -> None:
    """A picture's overlay made a form with KeptForms gives the form made without a cache;
    made again in a later build (a new cache over the same pack, new drawing objects) it makes
    no face a form, and lists the entries it used so that they are kept with the picture."""
    scene = scenario_scene(game_of(mini), game_of(mini).scenarios[0], "en")
    shown = [op.drawing for op in scene.overlay.ops if isinstance(op, Inset)]
    assert shown
    plain = drawing_form(scene.overlay)
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    forms = KeptForms(first)
    assert drawing_form(scene.overlay, forms) == plain
    assert forms.keys and len(forms.keys) == len(set(forms.keys))
    first.save()
    faces.clear()
    again = scenario_scene(game_of(mini), game_of(mini).scenarios[0], "en")
    later = KeptForms(RenderCache(pack))
    assert drawing_form(again.overlay, later) == plain
    assert faces == []
    assert later.keys == forms.keys


def test_a_picture_read_back_keeps_its_faces(mini: Path, tmp_path: Path) -> None:
    """A setup picture read from the cache marks its faces' forms used, so that they stay in
    the pack as long as the picture does (a later picture of the scenario reads them back)."""
    game = game_of(mini)
    card = next(chart for chart in game.aids if chart.id.startswith("setup-"))
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    made = scenepics_pdf.setup_picture(game, card, SheetOptions(), first)
    assert made is not None and made.forms
    first.save()
    cache = RenderCache(pack)
    read = scenepics_pdf.setup_picture(game_of(mini), card, SheetOptions(), cache)
    assert read == made
    assert set(made.forms) <= cache.used
