"""charts.pdf is put together page by page from kept pages: a warm rebuild encodes again only
the pages whose parts changed (each page kept as the objects it made, replayed only into a
document in the state it was made in), and writes the bytes of a cold build, also when a
part it needs turns out damaged."""

from __future__ import annotations

import marshal
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.art.fonts import BOLD, REGULAR
from compiler.backends.charts import build as charts_build
from compiler.backends.charts import printed as charts_printed
from compiler.backends.charts.build import render_charts
from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import Content, PageRun, PdfDocument
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import game_with_aids, replace_in
from tests.test_chart_parts_cache import long_chart

A4 = (595.0, 842.0)


def _form(text: str) -> Content:
    canvas = Canvas()
    canvas.op("0 0 10 10 re f")
    canvas.parts.append(f"% {text}")
    return canvas.content()


def _page(forms: dict[str, Content]) -> Content:
    canvas = Canvas()
    for name, form in forms.items():
        canvas.nested[name] = (form, (0.0, 0.0, 10.0, 10.0))
        canvas.parts.append(f"/{name} Do")
    return canvas.content()


PAGES = [{"a": _form("a"), "b": _form("b")}, {"b": _form("b"), "c": _form("c")}]
"""Two pages; the second shows a form the first defined."""


def _recorded() -> tuple[bytes, list[PageRun]]:
    pdf = PdfDocument()
    runs = [pdf.record_page(A4, _page(forms)) for forms in PAGES]
    return pdf.write({"Title": "t"}), runs


def test_pages_replayed_give_the_bytes_of_pages_added() -> None:
    plain = PdfDocument()
    for forms in PAGES:
        plain.add_page(A4, _page(forms))
    recorded, runs = _recorded()
    assert recorded == plain.write({"Title": "t"})
    replayed = PdfDocument()
    assert all(replayed.replay_page(PageRun.decode(run.encode())) for run in runs)
    assert replayed.write({"Title": "t"}) == recorded
    assert runs[1].outside == (("b", replayed.forms["b"].number),)


def test_a_page_is_not_replayed_into_another_state() -> None:
    _bytes, (first, second) = _recorded()
    fresh = PdfDocument()
    assert not fresh.replay_page(second)  # the form it shows from the first page is missing
    assert fresh.replay_page(first)
    assert not fresh.replay_page(first)  # its forms are defined already (and numbers moved)
    moved = PdfDocument()
    moved.add_page(A4, _page({"x": _form("x")}))
    assert not moved.replay_page(first)  # another next object number
    assert len(moved.pages) == 1 and "a" not in moved.forms


@pytest.mark.parametrize("data", [b"", b"junk", b"\xe9\x00\x00"])
def test_a_damaged_page_entry_is_no_page(data: bytes) -> None:
    with pytest.raises(ValueError):
        PageRun.decode(data)


class Encoded:
    """The pages charts_document encoded (not read back) since the last clear."""

    def __init__(self) -> None:
        self.count = 0


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> Encoded:
    seen = Encoded()
    record = PdfDocument.record_page

    def spy(self: PdfDocument, size: tuple[float, float], content: Content) -> PageRun:
        seen.count += 1
        return record(self, size, content)

    monkeypatch.setattr(PdfDocument, "record_page", spy)
    return seen


def _build(game: Path, cache: Path | None) -> bytes:
    """charts.pdf of the game with a long chart added (many pages), kept in `cache` or drawn
    afresh."""
    data = game_with_aids(game)
    data = replace(data, charts=(*data.charts, long_chart(data, "Row 150")))
    if cache is None:
        return charts_build._pdf(data, SheetOptions())
    return render_charts(data, SheetOptions(), RenderCache(cache / "charts.pack"))[0]


def test_a_warm_rebuild_encodes_only_the_changed_pages(
    mini: Path, tmp_path: Path, encoded: Encoded
) -> None:
    warm = tmp_path / "warm"
    first = _build(mini, warm)
    pages = encoded.count
    assert pages >= 6
    encoded.count = 0
    assert _build(mini, warm) == first
    assert encoded.count == 0  # nothing changed: every page read back
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    changed = _build(mini, warm)
    assert 1 <= encoded.count < pages
    assert changed != first
    assert changed == _build(mini, None)  # the bytes of a cold build


def test_a_damaged_part_gives_the_bytes_of_a_cold_build(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm = tmp_path / "warm"
    _build(mini, warm)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")

    def damaged(data: bytes) -> Content:
        raise ValueError("damaged")

    fallbacks: list[bool] = []

    def cold_document(*args: object) -> bytes:
        """drawn_document with the parts' contents read as they are."""
        fallbacks.append(True)
        with pytest.MonkeyPatch.context() as inner:
            inner.setattr(charts_printed, "part_content", _part_content)
            return _drawn_document(*args)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(charts_printed, "part_content", damaged)
        patch.setattr(charts_build, "drawn_document", cold_document)
        warm_pdf = _build(mini, warm)
    assert fallbacks == [True]  # the page to encode again found its part damaged
    assert warm_pdf == _build(mini, None)


_part_content = charts_printed.part_content
_drawn_document = charts_printed.drawn_document


def _with_text() -> PdfDocument:
    """A document of one page setting some text."""
    from compiler.backends.art.fonts import REGULAR

    pdf = PdfDocument()
    canvas = Canvas()
    canvas.text(REGULAR, 9.0, 10.0, 10.0, "Kept glyphs 123")
    pdf.add_page(A4, canvas.content())
    return pdf


@pytest.mark.parametrize("damage", [None, b"", b"junk", b"\xe9\x00\x00\x00\x00"])
def test_kept_font_programs_give_the_same_bytes(damage: bytes | None) -> None:
    plain = _with_text().write({"Title": "t"})
    kept: dict[str, bytes] = {}
    first = _with_text()
    first.kept_fonts, first.keep_font = kept.get, kept.__setitem__
    assert first.write({"Title": "t"}) == plain
    assert len(kept) == 1  # the font's subset, kept
    if damage is not None:
        kept.update(dict.fromkeys(kept, damage))
    again = _with_text()
    again.kept_fonts, again.keep_font = kept.get, kept.__setitem__
    assert again.write({"Title": "t"}) == plain


def _worded(text: str, bold: str) -> Content:
    canvas = Canvas()
    canvas.text(REGULAR, 9.0, 0.0, 0.0, text)
    canvas.text(BOLD, 9.0, 0.0, 5.0, bold)
    return canvas.content()


def test_a_page_run_sets_each_font_s_characters_once() -> None:
    """A recorded page keeps the text it set as one string per font of its characters, each
    once (PageRun.chars): a document of replayed pages embeds the fonts' subsets of a document
    of pages added (the same bytes), adding one string per font per page."""
    pages = [
        {"a": _form("a"), "b": _worded("abc", "zz"), "c": _worded("cab", "zy")},
        {"c": _worded("cab", "zy"), "d": _worded("dd", "x")},
    ]
    plain = PdfDocument()
    for forms in pages:
        plain.add_page(A4, _page(forms))
    recorder = PdfDocument()
    runs = [recorder.record_page(A4, _page(forms)) for forms in pages]
    assert runs[0].chars == ((REGULAR.name, "abc"), (BOLD.name, "yz"))
    assert runs[1].chars == ((REGULAR.name, "d"), (BOLD.name, "x"))  # "c" is the first page's
    expected = plain.write({"Title": "t"})
    assert recorder.write({"Title": "t"}) == expected
    replayed = PdfDocument()
    assert all(replayed.replay_page(PageRun.decode(run.encode())) for run in runs)
    assert replayed.write({"Title": "t"}) == expected
    # the first page reserved the fonts' numbers among its own (after form "a"): its objects
    # are kept in two pieces, written out as they were; the second page's in one
    numbers = runs[0].numbers
    assert numbers[-1] - numbers[0] + 1 > len(numbers)
    assert len(replayed.written) == 3 and not replayed.objects.keys() & set(numbers)


def test_a_document_of_pages_replayed_and_added_is_written_as_one_of_pages_added() -> None:
    """Pages replayed (their objects kept written out) and pages added after them (their
    objects written by the document) give the bytes of pages all added, xref offsets too."""
    pages = [{"a": _worded("abc", "q")}, {"b": _worded("b", "r")}, {"c": _worded("ca", "s")}]
    plain = PdfDocument()
    for forms in pages:
        plain.add_page(A4, _page(forms))
    expected = plain.write({"Title": "t"})
    recorder = PdfDocument()
    runs = [recorder.record_page(A4, _page(forms)) for forms in pages]
    mixed = PdfDocument()
    assert mixed.replay_page(runs[0])
    mixed.add_page(A4, _page(pages[1]))
    assert mixed.replay_page(runs[2])
    assert mixed.write({"Title": "t"}) == expected


@pytest.mark.parametrize("field", ["written", "ends"])
def test_a_page_entry_cut_short_is_no_page(field: str) -> None:
    """A kept page whose written objects do not end where its ends say is no page."""
    _bytes, (first, _second) = _recorded()
    cut = replace(first, written=first.written[:-1])
    if field == "ends":
        cut = replace(first, ends=(*first.ends[:-1], first.ends[-1] + 1))
    with pytest.raises(ValueError, match="not a cached page"):
        PageRun.decode(cut.encode())


def test_unchanged_pages_are_read_back_in_runs(
    mini: Path, tmp_path: Path, encoded: Encoded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild with nothing changed reads the pages back a run at a time (one entry for up
    to RUN_PAGES pages), none page by page; a damaged run's pages are read back one by one
    (their own entries, kept with the run), none encoded again: the same bytes each time."""
    monkeypatch.setattr(charts_printed, "RUN_PAGES", 4)
    warm = tmp_path / "warm"
    first = _build(mini, warm)
    assert encoded.count > 8  # more than two runs
    single: list[int] = []
    kept_page = charts_printed._kept_page

    def spy(*args: Any) -> PageRun:
        single.append(1)
        return kept_page(*args)

    monkeypatch.setattr(charts_printed, "_kept_page", spy)
    encoded.count = 0
    assert _build(mini, warm) == first
    assert single == [] and encoded.count == 0
    pack = RenderCache(warm / "charts.pack")
    runs = [key for key in pack.index if pack.get(key) is not None and _is_run(pack.get(key))]
    assert len(runs) >= 2
    for key in runs:
        pack.put(key, b"\x00damaged")
    pack.save()
    assert _build(mini, warm) == first
    assert len(single) >= 8 and encoded.count == 0
    single.clear()
    assert _build(mini, warm) == first  # the runs kept again
    assert single == []


def _is_run(data: bytes | None) -> bool:
    """Whether a cache entry is a run of pages (charts_printed._kept_pages)."""
    return data is not None and len(charts_printed._read_pages(data, _count(data))[0]) > 1


def _count(data: bytes) -> int:
    try:
        found = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return 0
    shaped = isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], tuple)
    return len(found[0]) if shaped else 0


def test_replay_pages_stops_at_a_page_of_another_state() -> None:
    _plain, runs = _recorded()
    fresh = PdfDocument()
    assert fresh.replay_pages([runs[0], runs[0]]) == 1  # the second: numbers moved on
    assert fresh.replay_pages(runs[1:]) == len(runs) - 1
