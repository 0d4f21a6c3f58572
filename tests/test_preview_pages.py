"""The page sizes of the build's PDFs on the preview page (preview.build.pdf_pages): kept in
the preview's cache under what the file is (name, size, modification time, inode, last
bytes), so a warm build does not read a large PDF whole again; a file written again, or an
entry of another shape, is read again."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from compiler.backends.preview import build, thumbs
from compiler.backends.rendercache import RenderCache

PDF = b"%PDF-1.7\n" + b"".join(b"/MediaBox [0 0 595 842]\n" for _ in range(3))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The PDFs read whole for their pages (their lengths)."""
    found: list[int] = []
    real = thumbs.page_sizes

    def spy(pdf: bytes) -> list[tuple[float, float]]:
        found.append(len(pdf))
        return real(pdf)

    monkeypatch.setattr(build, "page_sizes", spy)
    return found


def test_a_pdfs_pages_are_read_once_until_it_is_written_again(
    tmp_path: Path, reads: list[int]
) -> None:
    path = tmp_path / "counters.pdf"
    path.write_bytes(PDF)
    pack = tmp_path / "preview.pack"
    cache = RenderCache(pack)
    assert build.pdf_pages(path, cache) == [(595.0, 842.0)] * 3
    cache.save()
    again = RenderCache(pack)
    assert build.pdf_pages(path, again) == [(595.0, 842.0)] * 3
    assert reads == [len(PDF)]
    other = tmp_path / "other.pdf"
    other.write_bytes(PDF + b"/MediaBox [0 0 842 595]\n")
    os.replace(other, path)  # written again: another inode
    assert build.pdf_pages(path, again) == [(595.0, 842.0)] * 3 + [(842.0, 595.0)]
    assert len(reads) == 2
    assert build.pdf_pages(tmp_path / "missing.pdf", again) is None
    assert build.pdf_pages(tmp_path, again) is None


@pytest.mark.parametrize(
    "entry_bytes",
    [
        b"",
        b"garbage",
        marshal.dumps([(1.0,)]),
        marshal.dumps([(1, 2)]),
        marshal.dumps(((1.0, 2.0),)),
    ],
)
def test_page_sizes_of_another_shape_are_read_again(
    tmp_path: Path, reads: list[int], entry_bytes: bytes
) -> None:
    path = tmp_path / "counters.pdf"
    path.write_bytes(PDF)
    cache = RenderCache(None)
    build.pdf_pages(path, cache)
    (key,) = cache.memory
    cache.memory[key] = entry_bytes
    assert build.pdf_pages(path, cache) == [(595.0, 842.0)] * 3
    assert len(reads) == 2
