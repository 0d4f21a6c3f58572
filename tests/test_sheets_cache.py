"""Print sheets from the cache: runs of face forms kept as PDF objects (sheets.pdf RUN) give
the bytes of a build from scratch, and a changed face makes only its own run again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from compiler.backends.art.fonts import BOLD, REGULAR
from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets import SheetOptions
from compiler.backends.sheets.build import counter_pieces
from compiler.backends.sheets.pdf import RUN, Piece, SheetDoc, render
from tests.conftest import seed_game as game

SLOT_MM = (15.875, 15.875)


def sample_doc(count: int) -> SheetDoc:
    """The first `count` GCACW counters and markers, one copy each (both sides drawn)."""
    pieces = tuple(dataclasses.replace(p, copies=1) for p in counter_pieces(game("gcacw"), "en"))
    return SheetDoc("Sample — counters", "counters", pieces[:count], SLOT_MM)


def rendered(doc: SheetDoc, pack: Path) -> tuple[bytes, list[str]]:
    """The PDF of `doc` with the cache in `pack`, and the keys this build added to it."""
    cache = RenderCache(pack)
    data = render(doc, SheetOptions(), cache)
    new = list(cache.new)
    cache.save()
    return data, new


def with_front(doc: SheetDoc, item: int, source: Piece) -> SheetDoc:
    """`doc` with piece `item`'s front drawn as `source`'s front under a look of its own."""
    face = dataclasses.replace(source.front, identity=source.front.identity + ":changed")
    pieces = list(doc.pieces)
    pieces[item] = dataclasses.replace(pieces[item], front=face)
    return dataclasses.replace(doc, pieces=tuple(pieces))


def test_a_changed_face_makes_only_its_run_again(tmp_path: Path) -> None:
    doc = sample_doc(3 * RUN // 2)
    first, made = rendered(doc, tmp_path / "forms.pack")
    runs = [key for key in made if ":sheet-form-run:" in key]
    assert len(runs) == 3  # RUN faces a run, two faces a piece
    assert rendered(doc, tmp_path / "forms.pack") == (first, [])
    changed = with_front(doc, RUN + 1, doc.pieces[0])
    warm, remade = rendered(changed, tmp_path / "forms.pack")
    cold, _ = rendered(changed, tmp_path / "fresh.pack")
    assert warm == cold != first
    assert len(remade) == 2  # the changed face's form and its run's objects
    assert sum(":sheet-form-run:" in key for key in remade) == 1


def test_runs_moved_in_the_document_give_the_cold_bytes(tmp_path: Path) -> None:
    """Pieces added in front move every later run to other object numbers, and a new font
    reserved first moves them too: the runs are made again there, not copied."""
    doc = sample_doc(RUN)
    rendered(doc, tmp_path / "forms.pack")
    extra = sample_doc(2 * RUN).pieces[RUN:]
    moved = dataclasses.replace(doc, pieces=extra[: RUN // 2] + doc.pieces)
    warm, _ = rendered(moved, tmp_path / "forms.pack")
    cold, _ = rendered(moved, tmp_path / "fresh.pack")
    assert warm == cold


def test_a_replayed_run_writes_the_same_document() -> None:
    """Forms recorded in one document and replayed in another in the same state: the same
    file, fonts and text included."""

    def canvas(text: str, bold: bool = False) -> Canvas:
        drawn = Canvas()
        drawn.text(BOLD if bold else REGULAR, 8, 1, 1, text)
        return drawn

    faces = [canvas(f"face {n}", bold=n == 2).content() for n in range(3)]
    forms = [(f"cm.front.{n}", face, (0.0, 0.0, 40.0, 40.0)) for n, face in enumerate(faces)]
    recorded = PdfDocument()
    run = recorded.record_forms(forms)
    assert run is not None
    replayed = PdfDocument()
    replayed.replay_forms(type(run).decode(run.encode()))
    for pdf in (recorded, replayed):
        pdf.add_page((100.0, 100.0), canvas("page").content(), ("cm.front.1",))
    assert run.fonts and replayed.write({}) == recorded.write({})


def test_a_run_entry_that_is_not_a_run_is_made_again(tmp_path: Path) -> None:
    """A kept run whose bytes are not a run (a planted or mangled cache entry with a valid
    checksum) is made again from the faces: the cold bytes, no traceback."""
    doc = sample_doc(RUN)
    pack = tmp_path / "forms.pack"
    first, made = rendered(doc, pack)
    cache = RenderCache(pack)
    for key in made:
        if ":sheet-form-run:" in key:
            cache.put(key, b"not a run")
    cache.new = [key for key in made if ":sheet-form-run:" in key]
    cache.save()
    again, _ = rendered(doc, pack)
    assert again == first
