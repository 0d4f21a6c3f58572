"""The size of each page of a PDF the build wrote, for the preview's list of pages.

countermix's PDF writer (compiler.backends.pdf.document) writes its objects in the order of
their numbers, then a cross-reference table and a trailer: the pages are found from there,
reading the catalog, the page tree and each page's object (a few kilobytes), not the whole
file (a large game's sheets and charts are megabytes, written again by every warm build
that changed a unit). A PDF of any other shape is read whole, each page's MediaBox found
in order (what the writer gives every page).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from compiler.backends.preview.thumbs import page_sizes

Sizes = list[tuple[float, float]]
TAIL = 1024
"""Bytes at the end of a PDF read for its trailer."""
END = re.compile(rb"trailer\n<<[^\n]*/Root (\d+) 0 R[^\n]*>>\nstartxref\n(\d+)\n%%EOF\n\Z")
TABLE = re.compile(rb"xref\n0 (\d+)\n")
ENTRY = re.compile(rb"(\d{10}) 00000 n \n")
ENTRY_SIZE = 20
PAGES = re.compile(rb"/Pages (\d+) 0 R")
KIDS = re.compile(rb"\A<< /Type /Pages /Kids \[((?:\d+ 0 R ?)*)\] /Count (\d+) >>\Z")
KID = re.compile(rb"(\d+) 0 R")
MEDIA_BOX = re.compile(rb"\A<< /Type /Page [^\n]*?/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]")


def pdf_pages(path: Path) -> Sizes | None:
    """The size of each page of the PDF at `path` in points (None: there is no such file):
    from its cross-reference table when it has the writer's shape, else read whole."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as handle:
            found = _by_table(handle.fileno())
            return found if found is not None else page_sizes(handle.read())
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _by_table(handle: int) -> Sizes | None:
    """The pages' sizes found from the trailer, the cross-reference table, the catalog, the
    page tree and each page's object; None when any of them is not as the writer writes
    it."""
    size = os.fstat(handle).st_size
    tail = os.pread(handle, TAIL, max(0, size - TAIL))
    end = END.search(tail)
    if end is None:
        return None
    root, table = int(end[1]), int(end[2])
    head = TABLE.match(os.pread(handle, 32, table))
    if head is None:
        return None
    count = int(head[1])
    entries = os.pread(handle, count * ENTRY_SIZE, table + head.end())
    if len(entries) != count * ENTRY_SIZE or not 0 < root < count:
        return None
    objects = _Objects(handle, entries, count, table)
    catalog = objects.body(root)
    pages = PAGES.search(catalog) if catalog is not None else None
    tree = objects.body(int(pages[1])) if pages is not None else None
    kids = KIDS.match(tree) if tree is not None else None
    if kids is None:
        return None
    numbers = [int(kid) for kid in KID.findall(kids[1])]
    if len(numbers) != int(kids[2]):
        return None
    sizes: Sizes = []
    for number in numbers:
        page = objects.body(number)
        box = MEDIA_BOX.match(page) if page is not None else None
        if box is None:
            return None
        sizes.append((float(box[1]), float(box[2])))
    return sizes


class _Objects:
    """A PDF's objects by number, each read whole (from its offset to the next object's, or
    to the table for the last one: the writer writes them back to back in order)."""

    def __init__(self, handle: int, entries: bytes, count: int, table: int) -> None:
        self.handle, self.entries, self.count, self.table = handle, entries, count, table

    def _offset(self, number: int) -> int | None:
        if number == self.count:
            return self.table
        if not 0 < number < self.count:
            return None
        entry = ENTRY.fullmatch(self.entries, number * ENTRY_SIZE, (number + 1) * ENTRY_SIZE)
        return int(entry[1]) if entry is not None else None

    def body(self, number: int) -> bytes | None:
        """The object's dictionary or stream, between `N 0 obj` and `endobj`; None when the
        table or the bytes there are not as the writer writes them."""
        start, end = self._offset(number), self._offset(number + 1)
        if start is None or end is None or not start < end <= self.table:
            return None
        data = os.pread(self.handle, end - start, start)
        opening = b"%d 0 obj\n" % number
        if not data.startswith(opening) or not data.endswith(b"\nendobj\n"):
            return None
        return data[len(opening) : -len(b"\nendobj\n")]
