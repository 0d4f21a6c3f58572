"""The page sizes of the build's PDFs on the preview page (preview.pdfpages.pdf_pages): found
from the cross-reference table of a PDF countermix's writer wrote, reading a few kilobytes,
not the whole file; any other PDF is read whole, with the same sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.preview import pdfpages, thumbs

SIZES = [(595.2756, 841.8898), (841.8898, 595.2756), (200.0, 100.5)]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The PDFs read whole for their pages (their lengths)."""
    found: list[int] = []
    real = thumbs.page_sizes

    def spy(pdf: bytes) -> list[tuple[float, float]]:
        found.append(len(pdf))
        return real(pdf)

    monkeypatch.setattr(pdfpages, "page_sizes", spy)
    return found


def written(sizes: list[tuple[float, float]]) -> bytes:
    """A PDF of countermix's writer with pages of `sizes`."""
    pdf = PdfDocument()
    for size in sizes:
        canvas = Canvas()
        pdf.add_page(size, canvas.content())
    return pdf.write({"Title": "pages"})


def test_the_writers_pdf_is_not_read_whole(tmp_path: Path, reads: list[int]) -> None:
    path = tmp_path / "counters.pdf"
    path.write_bytes(written(SIZES))
    assert pdfpages.pdf_pages(path) == SIZES == thumbs.page_sizes(path.read_bytes())
    assert reads == []
    assert pdfpages.pdf_pages(tmp_path / "missing.pdf") is None
    assert pdfpages.pdf_pages(tmp_path) is None


def damaged(pdf: bytes) -> list[bytes]:
    """The PDF with its trailer, table, page tree or a page not as the writer writes them."""
    table = pdf.rindex(b"xref\n")
    return [
        pdf[:-1],
        pdf.replace(b"startxref\n", b"startxref\n1"),
        pdf[:table] + b"xref\n0 9999\n" + pdf[table + len(b"xref\n0 9\n") :],
        pdf.replace(b"/Type /Pages /Kids", b"/Type /Pages  /Kids"),
        pdf.replace(b"/Count 3", b"/Count 2"),
        pdf.replace(b"/Type /Page /Parent", b"/Type /Page  /Parent", 1),
        pdf.replace(b"0000000015 00000 n", b"0000000016 00000 n"),
        b"/MediaBox [0 0 10 20]",
    ]


@pytest.mark.parametrize("number", range(8))
def test_a_pdf_of_another_shape_is_read_whole(
    tmp_path: Path, reads: list[int], number: int
) -> None:
    pdf = damaged(written(SIZES))[number]
    path = tmp_path / "other.pdf"
    path.write_bytes(pdf)
    assert pdfpages.pdf_pages(path) == thumbs.page_sizes(pdf)
    assert reads == [len(pdf)]
