"""Spliced sheet documents (sheets.splice): a warm build adds the runs of pieces, the sheet
pages, the calibration pair and the index it kept as the bytes they were written as, makes
only the changed run's objects, finds a changed run's unchanged faces in the forms kept with
the run (the faces' own entries age out of the cache), makes a document whose kept parts do
not fit together again without them, and writes the bytes of a build from scratch."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bench.bench_warm import Game, change_unit, make_game
from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.rendercache import AGE_LIMIT, RenderCache
from compiler.backends.sheets import pdf, splice
from compiler.backends.sheets.build import write_sheets
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.splice import Segment, SplicedDocument, unique_chars
from compiler.model.gamedata import GameData
from tests.conftest import loaded_game

SIZE = 150
"""A generated game of several runs of units."""


@pytest.fixture
def generated(tmp_path: Path) -> Game:
    return make_game(tmp_path, SIZE)


def sheets(game: GameData, out: Path, cache: Path) -> dict[str, bytes]:
    written = write_sheets(game, out, cache_dir=cache)
    return {path.name: path.read_bytes() for path in written}


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many runs of forms were recorded and pages added from here on."""
    counts = {"forms": 0, "pages": 0}
    record, add = PdfDocument.record_forms, PdfDocument.add_page

    def record_spy(self: PdfDocument, *args: object, **kwargs: object) -> object:
        counts["forms"] += 1
        return record(self, *args, **kwargs)  # type: ignore[arg-type]

    def add_spy(self: PdfDocument, *args: object, **kwargs: object) -> None:
        counts["pages"] += 1
        add(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PdfDocument, "record_forms", record_spy)
    monkeypatch.setattr(PdfDocument, "add_page", add_spy)
    return counts


def test_a_warm_build_makes_only_the_changed_run_and_splices_the_rest(
    generated: Game, tmp_path: Path, made: dict[str, int]
) -> None:
    cache = tmp_path / "cache"
    first = sheets(loaded_game(generated.folder), tmp_path / "first", cache)
    assert made["forms"] > 1 and made["pages"] > 1
    made.update(forms=0, pages=0)
    assert sheets(loaded_game(generated.folder), tmp_path / "again", cache) == first
    assert made == {"forms": 0, "pages": 0}  # nothing changed: every part spliced
    change_unit(generated, 5)
    warm = sheets(loaded_game(generated.folder), tmp_path / "warm", cache)
    assert made == {"forms": 1, "pages": 0}  # the changed run's forms; the same pages
    cold = sheets(loaded_game(generated.folder), tmp_path / "cold", tmp_path / "fresh")
    assert warm == cold != first


def test_a_changed_run_finds_its_faces_kept_with_it_when_theirs_are_gone(
    generated: Game, tmp_path: Path, sheet_faces_drawn: list[int]
) -> None:
    cache = tmp_path / "cache"
    sheets(loaded_game(generated.folder), tmp_path / "first", cache)
    for _ in range(AGE_LIMIT + 2):  # the faces' own entries, unused, are dropped
        sheets(loaded_game(generated.folder), tmp_path / "again", cache)
    forms = RenderCache(cache / "forms.pack")
    assert not [key for key in forms.index if ":pdf-form:unit-" in key]
    sheet_faces_drawn.clear()
    change_unit(generated, 7)
    warm = sheets(loaded_game(generated.folder), tmp_path / "warm", cache)
    assert 0 < sum(sheet_faces_drawn) <= 2  # the changed unit's faces, no other
    assert warm == sheets(loaded_game(generated.folder), tmp_path / "cold", tmp_path / "fresh")


def test_kept_parts_that_do_not_fit_together_are_made_again(
    generated: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    sheets(loaded_game(generated.folder), tmp_path / "first", cache)
    change_unit(generated, 9)
    real = Segment.decode
    spoilt: list[Segment] = []

    def lacking(data: bytes | None) -> Segment | None:
        """The first segment read back without its objects (a part that does not fit)."""
        segment = real(data)
        if segment is None or spoilt:
            return segment
        spoilt.append(segment)
        return replace(segment, chunks=())

    monkeypatch.setattr(Segment, "decode", staticmethod(lacking))
    warm = sheets(loaded_game(generated.folder), tmp_path / "warm", cache)
    assert spoilt
    monkeypatch.undo()
    assert warm == sheets(loaded_game(generated.folder), tmp_path / "cold", tmp_path / "fresh")


def test_a_damaged_segment_is_none() -> None:
    document = SplicedDocument()
    document.add_page((100.0, 100.0), Canvas().content())
    segment = document.segment_since(2, {}, 0, 0, ())
    assert Segment.decode(segment.encode()) == segment
    assert Segment.decode(None) is None
    assert Segment.decode(b"not marshal") is None
    assert Segment.decode(segment.encode()[:-3]) is None
    assert Segment.decode(replace(segment, forms=b"x").encode()) == replace(segment, forms=b"x")
    assert Segment.decode(replace(segment, numbered=b"x").encode()) is None  # type: ignore[arg-type]
    with pytest.raises(splice.KeptDamaged):
        replace(segment, forms=b"x").named()


def test_a_spliced_document_writes_what_it_wrote_whole() -> None:
    """A page kept as a segment and replayed in a new document gives the same file."""

    def document(kept: Segment | None) -> tuple[bytes, Segment]:
        made = SplicedDocument()
        canvas = Canvas()
        pdf._page_label(canvas, "A label", SheetOptions())
        start, fonts, count = made.next_number, dict(made.font_numbers()), len(made.pages)
        if kept is not None and made.replay(kept):
            return made.write({"Title": "t"}), kept
        content = canvas.content()
        made.add_page((100.0, 100.0), content)
        segment = made.segment_since(start, fonts, count, 0, content.chars.items())
        return made.write({"Title": "t"}), segment

    whole, segment = document(None)
    again, _ = document(Segment.decode(segment.encode()))
    assert again == whole
    assert whole.startswith(b"%PDF-1.7") and whole.endswith(b"%%EOF\n")


def test_unique_chars_keeps_each_character_once_per_font() -> None:
    assert unique_chars([("A", "abca"), ("B", "x"), ("A", "db")]) == (("A", "abcd"), ("B", "x"))
    assert splice.numbering(["a"], [1]) != splice.numbering(["a"], [2])


def test_an_unchanged_group_of_runs_is_read_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game of more than GROUP runs: a warm build reads the unchanged group whole and the
    group of the changed run run by run, and writes the bytes of a cold build."""
    game = make_game(tmp_path, 32 * (pdf.GROUP + 2))
    cache = tmp_path / "cache"
    sheets(loaded_game(game.folder), tmp_path / "first", cache)
    groups: list[bool] = []
    real = pdf._define_kept_group

    def spy(*args: object) -> bool:
        found = real(*args)  # type: ignore[arg-type]
        groups.append(found)
        return found

    monkeypatch.setattr(pdf, "_define_kept_group", spy)
    again = sheets(loaded_game(game.folder), tmp_path / "again", cache)
    assert groups == [True]
    groups.clear()
    change_unit(game, 2)  # a unit of the first group (of the first GROUP runs)
    warm = sheets(loaded_game(game.folder), tmp_path / "warm", cache)
    assert groups == [False]
    assert warm == sheets(loaded_game(game.folder), tmp_path / "cold", tmp_path / "fresh") != again
    groups.clear()
    assert sheets(loaded_game(game.folder), tmp_path / "warm2", cache) == warm
    assert groups == [True]  # kept again as a group
