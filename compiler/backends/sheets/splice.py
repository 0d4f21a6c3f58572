"""A PDF document that keeps parts of itself as the bytes they were written as, to splice them
into a later build's file unchanged (compiler.backends.pdf.document writes every object anew).

A part of a sheet document (the forms of a run of pieces, the sheet pages, the index pages)
is kept as a `Segment`: the objects it made, serialised back to back as the file holds them
("n 0 obj ... endobj", in chunks of consecutive numbers), with what else it changed in the
document (the object numbers it took, the fonts it reserved, the characters it set, the pages
it added). A warm build of a large game adds an unchanged part as a few byte strings, and
writes the file by joining them: its cost grows with what changed, not with the game.

A part is replayed only into a document in the state it was made in (the same next object
number and reserved fonts, which its key holds); its forms are named in the document (for
pages drawn again) only when asked for (`SplicedDocument.name_forms`).

The file identifier is a digest of its contents as PdfDocument's is, but taken over each
chunk's own digest (made with the chunk) and the cross-reference table, not over every byte:
hashing a large file again on every build cost more than the rest of a warm build's sheets.
"""

from __future__ import annotations

import hashlib
import marshal
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from itertools import chain
from typing import Any

from compiler.backends.keptrecord import all_of_type, unmarshalled
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.pdf.syntax import Ref

Chunk = tuple[int, bytes, bytes, bytes]
"""Objects of consecutive numbers as the file holds them: the first one's number, their bytes
back to back, each one's offset in them (an array of 8-byte numbers, as bytes) and the MD5
digest of their bytes."""
XREF_LINE = b"%010d 00000 n \n"
"""A cross-reference entry of an object at an offset."""

ZERO = array("Q")
"""The type of a chunk's offsets."""


class KeptDamaged(Exception):
    """Parts read back from the cache that do not fit together: the document is made again
    without them."""


@dataclass(frozen=True, slots=True)
class Segment:
    """What a part of a document made: the object numbers it started and ended at, its
    objects as chunks, the fonts it reserved (name, number), the characters it set (font
    name, each character once), the pages it added (their numbers), a digest of the forms it
    defined and their numbers (`numbering`) and those forms as cache bytes: names, names as
    written, numbers (read only when they are named again: see SplicedDocument.name_forms)."""

    start: int
    end: int
    chunks: tuple[Chunk, ...]
    fonts: tuple[tuple[str, int], ...]
    chars: tuple[tuple[str, str], ...]
    pages: tuple[int, ...]
    numbered: str
    forms: bytes

    def encode(self) -> bytes:
        """The segment as cache bytes."""
        return marshal.dumps(self.values())

    def values(self) -> tuple[Any, ...]:
        """The segment as plain values (what `of` reads back)."""
        return tuple(getattr(self, f.name) for f in fields(self))

    @classmethod
    def decode(cls, data: bytes | None) -> Segment | None:
        """The inverse of encode; None for no bytes or bytes that are not a segment."""
        values = unmarshalled(data)
        return None if values is None else cls.of(values)

    @classmethod
    def of(cls, values: object) -> Segment | None:
        """The inverse of `values`; None for values that are not a segment's."""
        if type(values) is not tuple:
            return None
        try:
            segment = cls(*values)
        except TypeError:
            return None
        return segment if segment.is_whole() else None

    def is_whole(self) -> bool:
        """Whether the values have the types and lengths a segment's have."""
        if not all_of_type((self.start, self.end, *self.pages), int):
            return False
        if type(self.numbered) is not str or type(self.forms) is not bytes:
            return False
        for chunk in self.chunks:
            if type(chunk) is not tuple or len(chunk) != 4 or type(chunk[0]) is not int:
                return False
            if not all_of_type(chunk[1:], bytes) or len(chunk[2]) % ZERO.itemsize:
                return False
        return all(len(pair) == 2 for pair in (*self.fonts, *self.chars))

    def named(self) -> tuple[tuple[str, ...], tuple[bytes, ...], tuple[int, ...]]:
        """The forms it defined: names, names as written, numbers; KeptDamaged when the bytes
        kept of them are not that."""
        try:
            names, tags, numbers = marshal.loads(self.forms)
        except (EOFError, TypeError, ValueError) as err:
            raise KeptDamaged("a kept segment's forms") from err
        if not (all_of_type(names, str) and all_of_type(tags, bytes)):
            raise KeptDamaged("a kept segment's forms")
        if not all_of_type(numbers, int) or not len(names) == len(tags) == len(numbers):
            raise KeptDamaged("a kept segment's forms")
        return names, tags, numbers


def _chunk(first: int, parts: list[bytes], offsets: array[int]) -> Chunk:
    """A chunk of objects, the first numbered `first`: their bytes (`parts`, joined), offsets
    and digest."""
    blob = b"".join(parts)
    return first, blob, offsets.tobytes(), hashlib.md5(blob).digest()


def join_segments(segments: Sequence[Segment]) -> Segment:
    """Segments made back to back as one (their chunks as they are)."""
    names: list[str] = []
    tags: list[bytes] = []
    numbers: list[int] = []
    for segment in segments:
        named = segment.named()
        names += named[0]
        tags += named[1]
        numbers += named[2]
    return Segment(
        segments[0].start,
        segments[-1].end,
        tuple(chain.from_iterable(segment.chunks for segment in segments)),
        tuple(chain.from_iterable(segment.fonts for segment in segments)),
        unique_chars(chain.from_iterable(segment.chars for segment in segments)),
        tuple(chain.from_iterable(segment.pages for segment in segments)),
        numbering(names, numbers),
        marshal.dumps((tuple(names), tuple(tags), tuple(numbers))),
    )


def numbering(names: Sequence[str], numbers: Sequence[int]) -> str:
    """A digest of some forms' names and object numbers."""
    return hashlib.sha256(repr((tuple(names), tuple(numbers))).encode()).hexdigest()


def unique_chars(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """(font name, text) pairs as one pair per font with each of its characters once (the
    glyphs a font embeds depend on the characters set in it, not on the texts)."""
    by_font: dict[str, set[str]] = {}
    for font_name, text in pairs:
        by_font.setdefault(font_name, set()).update(text)
    return tuple(
        (font_name, "".join(sorted(chars))) for font_name, chars in sorted(by_font.items())
    )


class SplicedDocument(PdfDocument):
    """A PdfDocument some of whose objects are kept serialised (chunks), written as they are."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[Chunk] = []
        self.unnamed: list[Segment] = []
        """Replayed segments whose forms are not in `forms` yet (see name_forms)."""

    def segment_since(
        self,
        start: int,
        fonts: Mapping[str, int],
        pages: int,
        defined: int,
        chars: Iterable[tuple[str, str]],
    ) -> Segment:
        """What the document made since its next object number was `start`, its fonts
        `fonts`, its pages `pages` and its defined forms `defined` long, with the text it set
        (`chars`: font name, text), as a segment; its objects are serialised into chunks
        (written as they are from now on)."""
        made = [n for n in range(start, self.next_number) if n in self.objects]
        chunks = tuple(self._chunks(made))
        for number in made:
            del self.objects[number]
        self.chunks.extend(chunks)
        names = tuple(self.defined[defined:])
        numbers = tuple(self.forms[name].number for name in names)
        return Segment(
            start,
            self.next_number,
            chunks,
            tuple((f, r.number) for f, r in self.font_refs.items() if f not in fonts),
            unique_chars(chars),
            tuple(ref.number for ref in self.pages[pages:]),
            numbering(names, numbers),
            marshal.dumps((names, tuple(self.tags[name] for name in names), numbers)),
        )

    def _chunks(self, numbers: Sequence[int]) -> Iterator[Chunk]:
        """Objects (numbers in increasing order) as chunks of consecutive numbers."""
        first, parts, offsets, at = -1, list[bytes](), array("Q"), 0
        for number in numbers:
            if parts and number != first + len(offsets):
                yield _chunk(first, parts, offsets)
                parts, offsets, at = [], array("Q"), 0
            if not parts:
                first = number
            head = b"%d 0 obj\n" % number
            body = self.objects[number]
            offsets.append(at)
            parts += (head, body, b"\nendobj\n")
            at += len(head) + len(body) + 8
        if parts:
            yield _chunk(first, parts, offsets)

    def replay(self, segment: Segment) -> bool:
        """Add again what a segment made, when the document is where the segment started;
        False (nothing added) otherwise. Its forms are named when asked for (name_forms)."""
        if segment.start != self.next_number:
            return False
        for font_name, number in segment.fonts:
            self.font_refs[font_name] = Ref(number)
        for font_name, text in segment.chars:
            self.chars.setdefault(font_name, set()).add(text)
        self.chunks.extend(segment.chunks)
        self.pages.extend(map(Ref, segment.pages))
        self.unnamed.append(segment)
        self.next_number = segment.end
        return True

    def name_forms(self) -> None:
        """Name the forms of the replayed segments in the document (pages that show them are
        to be added)."""
        for segment in self.unnamed:
            names, tags, numbers = segment.named()
            self._replay_names(names, numbers, tags)
        self.unnamed = []

    def write(self, info: Mapping[str, str]) -> bytes:
        """The whole file, as PdfDocument.write writes it: the chunks joined as they are."""
        return b"".join(self.write_parts(info))

    def write_parts(self, info: Mapping[str, str]) -> list[bytes]:
        """The whole file (as `write`) as parts to write one after another."""
        catalog, info_ref = self._finish_objects(info)
        self.chunks.extend(self._chunks(sorted(self.objects)))
        self.chunks.sort()
        head = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
        digest = hashlib.md5(head)
        parts, lines, at, expected = [head], [], len(head), 1
        for first, blob, offsets, made in self.chunks:
            if first != expected:
                raise KeptDamaged(f"object {expected} of the document was never made")
            relative = array("Q")
            relative.frombytes(offsets)
            lines.append(XREF_LINE * len(relative) % tuple(map(at.__add__, relative)))
            parts.append(blob)
            digest.update(made)
            at += len(blob)
            expected = first + len(relative)
        if expected != self.next_number:
            raise KeptDamaged(f"object {expected} of the document was never made")
        xref = at
        parts.append(b"xref\n0 %d\n0000000000 65535 f \n" % self.next_number)
        parts += lines
        for part in parts[-len(lines) - 1 :]:
            digest.update(part)
        parts.append(self._trailer(catalog, info_ref, digest.hexdigest(), xref))
        return parts
