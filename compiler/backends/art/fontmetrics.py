"""What the layout, the SVG faces and the PDF fonts need of a TrueType file: its character map,
advance widths and descriptor values, read straight from the file's tables.

The numbers are the ones reportlab's TTFont gave (the project measured with it before): widths
in thousandths of an em, reportlab's choice of character map and its scaling, its width of a
character the font lacks. Reading them ourselves lets a build look up only the characters it
sets: reportlab parsed every table up front (the 6 MB IPAex Gothic took 0.16 s, DejaVu Sans
0.02–0.06 s, in every process that measured a word) and its import cost every start-up 11 ms.
The character map and the widths are looked up one character at a time and remembered, so a
warm rebuild that sets a few hundred characters reads a few hundred entries.
"""

from __future__ import annotations

import mmap
import struct
from bisect import bisect_left
from collections.abc import Callable
from functools import reduce
from operator import add
from pathlib import Path

Data = bytes | mmap.mmap
"""A font file's bytes, or the file mapped."""

_USHORT = struct.Struct(">H")
_SHORT = struct.Struct(">h")
_ULONG = struct.Struct(">L")


class FontError(ValueError):
    """A file that is not a TrueType font this module can read."""


def _tables(data: Data) -> dict[bytes, tuple[int, int]]:
    """Tag → (offset, length) of each table of a TrueType file."""
    if len(data) < 12:
        raise FontError("too short for a TrueType file")
    count = _USHORT.unpack_from(data, 4)[0]
    found: dict[bytes, tuple[int, int]] = {}
    for record in range(12, 12 + 16 * count, 16):
        tag = data[record : record + 4]
        offset, length = struct.unpack_from(">LL", data, record + 8)
        found[tag] = (offset, length)
    return found


class _CharMap:
    """One character map subtable (formats 0, 4, 6, 12 and 13), looked up per character the
    way reportlab read it whole: a character it holds gives its glyph, even glyph 0."""

    def __init__(self, data: Data, at: int) -> None:
        self.data = data
        self.at = at
        self.format = _USHORT.unpack_from(data, at)[0]
        self.lookup: Callable[[int], int | None] = self._reader()

    def glyph(self, char: int) -> int | None:
        """The glyph of `char`; None when the map does not hold it."""
        return self.lookup(char)

    def _reader(self) -> Callable[[int], int | None]:
        if self.format == 4:
            return self._format4()
        if self.format in (12, 13):
            return self._groups()
        if self.format == 0:
            return self._format0()
        if self.format == 6:
            return self._format6()
        raise FontError(f"unsupported character map format {self.format}")

    def _format0(self) -> Callable[[int], int | None]:
        data, at = self.data, self.at
        length = _USHORT.unpack_from(data, at + 2)[0]
        table = data[at + 6 : at + 6 + max(0, min(256, length - 6))]
        return lambda char: table[char] if char < len(table) else None

    def _format6(self) -> Callable[[int], int | None]:
        data, at = self.data, self.at
        first, count = struct.unpack_from(">HH", data, at + 6)
        # reportlab read this table backwards: entry i is the character of glyph first + i
        chars = struct.unpack_from(f">{count}H", data, at + 10)
        by_char = {char: first + i for i, char in enumerate(chars)}
        return by_char.get

    def _format4(self) -> Callable[[int], int | None]:
        data, at = self.data, self.at
        limit = at + _USHORT.unpack_from(data, at + 2)[0]
        segments = _USHORT.unpack_from(data, at + 6)[0] // 2
        ends = struct.unpack_from(f">{segments}H", data, at + 14)
        starts = struct.unpack_from(f">{segments}H", data, at + 16 + 2 * segments)
        deltas = struct.unpack_from(f">{segments}h", data, at + 16 + 4 * segments)
        ranges_at = at + 16 + 6 * segments
        ranges = struct.unpack_from(f">{segments}H", data, ranges_at)

        def lookup(char: int) -> int | None:
            segment = bisect_left(ends, char)  # the segments are sorted by their last character
            if segment == segments or starts[segment] > char:
                return None
            return glyph_of(segment, char)

        def glyph_of(segment: int, char: int) -> int:
            if ranges[segment] == 0:
                return int(char + deltas[segment]) & 0xFFFF
            offset = ranges_at + 2 * segment + (char - starts[segment]) * 2 + ranges[segment]
            if offset >= limit:
                return 0  # a broken table's entry, as reportlab read it
            glyph = int(_USHORT.unpack_from(data, offset)[0])
            return 0 if glyph == 0 else (glyph + deltas[segment]) & 0xFFFF

        return lookup

    def _groups(self) -> Callable[[int], int | None]:
        data, at = self.data, self.at
        count = _ULONG.unpack_from(data, at + 12)[0]
        values = struct.unpack_from(f">{3 * count}L", data, at + 16)
        starts, ends, glyphs = values[0::3], values[1::3], values[2::3]
        constant = self.format == 13  # every character of a group has the same glyph

        def lookup(char: int) -> int | None:
            group = bisect_left(ends, char)  # the groups are sorted
            if group == count or starts[group] > char:
                return None
            first = int(glyphs[group])
            return first if constant else first + char - int(starts[group])

        return lookup


def _chosen_subtable(data: Data, cmap: int) -> int:
    """The offset of the character map subtable reportlab read: the last Windows one, else
    the last Unicode one that is not a variation sequence table, else Mac Roman."""
    version, count = struct.unpack_from(">HH", data, cmap)
    if count == 0 and version != 0:
        count = version
    chosen: int | None = None
    kind = 0
    for record in range(cmap + 4, cmap + 4 + 8 * count, 8):
        platform, encoding, offset = struct.unpack_from(">HHL", data, record)
        if platform == 3 or (platform == 1 and encoding == 1) or (platform == 0 and encoding != 5):
            kind, chosen = 1, offset
        elif platform == 1 and encoding == 0 and kind != 1:
            kind, chosen = 2, offset
    if chosen is None:
        raise FontError("no Unicode character map")
    return cmap + chosen


class GlyphMap(dict[int, int]):
    """Character → glyph, filled as characters are asked for (`[c]` and `.get(c, d)`)."""

    def __init__(self, charmap: _CharMap) -> None:
        super().__init__()
        self.charmap = charmap

    def __missing__(self, char: int) -> int:
        glyph = self._glyph(char)
        if glyph is None:
            raise KeyError(char)
        self[char] = glyph
        return glyph

    def get(self, char: int, default: int = 0) -> int:  # type: ignore[override]
        found = self.held(char)
        return default if found is None else found

    def held(self, char: int) -> int | None:
        """The glyph of `char`; None when the font has none."""
        try:
            return self[char]
        except KeyError:
            return None

    def __contains__(self, char: object) -> bool:
        return isinstance(char, int) and self.held(char) is not None

    def _glyph(self, char: int) -> int | None:
        if char not in (0x20, 0xA0):
            return self.charmap.glyph(char)
        # reportlab gave the no-break space the space's glyph (or the space the no-break
        # space's, when the font had no space)
        space = self.charmap.glyph(0x20)
        return space if space is not None else self.charmap.glyph(0xA0)


class WidthMap(dict[int, float]):
    """Character → advance width (thousandths of an em), filled as characters are asked for;
    a character the font lacks is not held (`.get(c, default)`, as reportlab's table)."""

    def __init__(self, glyphs: GlyphMap, advance: Callable[[int], float | None]) -> None:
        super().__init__()
        self.glyphs = glyphs
        self.advance = advance

    def __missing__(self, char: int) -> float:
        glyph = self.glyphs.held(char)
        width = None if glyph is None else self.advance(glyph)
        if width is None:
            raise KeyError(char)
        self[char] = width
        return width

    def get(self, char: int, default: float = 0.0) -> float:  # type: ignore[override]
        try:
            return self[char]
        except KeyError:
            return default


class Face:
    """A font's metrics under the names reportlab's TTFontFile gave them (what the PDF font
    descriptor and the layout read)."""

    def __init__(self, data: Data) -> None:
        tables = _tables(data)
        for tag in (b"head", b"hhea", b"maxp", b"hmtx", b"cmap", b"post"):
            if tag not in tables:
                raise FontError(f"no {tag.decode()} table")
        head = tables[b"head"][0]
        units = _USHORT.unpack_from(data, head + 18)[0]
        if units == 0:
            raise FontError("zero units per em")
        self.scale: Callable[[int], float] = (
            (lambda value: value) if units == 1000 else (lambda value: value * (1000 / units))
        )
        box = struct.unpack_from(">hhhh", data, head + 36)
        self.bbox = [self.scale(value) for value in box]
        self._descriptor(data, tables, box)
        post = tables[b"post"][0]
        self.italicAngle = (
            _SHORT.unpack_from(data, post + 4)[0] + _USHORT.unpack_from(data, post + 6)[0] / 65536.0
        )
        self.numGlyphs = _USHORT.unpack_from(data, tables[b"maxp"][0] + 4)[0]
        self._metrics_count = _USHORT.unpack_from(data, tables[b"hhea"][0] + 34)[0]
        if self._metrics_count == 0:
            raise FontError("no horizontal metrics")
        self._data = data
        self._hmtx = tables[b"hmtx"][0]
        self.defaultWidth = self._advance_of(0)
        charmap = _CharMap(data, _chosen_subtable(data, tables[b"cmap"][0]))
        self.charToGlyph = GlyphMap(charmap)
        self.charWidths = WidthMap(self.charToGlyph, self._advance)

    def _descriptor(
        self, data: Data, tables: dict[bytes, tuple[int, int]], box: tuple[int, ...]
    ) -> None:
        """Ascent, descent, cap height and stem weight: from the OS/2 table when there is
        one (as reportlab read them), else from the bounding box."""
        if b"OS/2" not in tables:
            self.ascent, self.descent = self.scale(box[3]), self.scale(box[1])
            self.capHeight, weight = self.ascent, 500
        else:
            os2 = tables[b"OS/2"][0]
            version = _USHORT.unpack_from(data, os2)[0]
            weight = _USHORT.unpack_from(data, os2 + 4)[0]
            ascender, descender = struct.unpack_from(">hh", data, os2 + 68)
            self.ascent, self.descent = self.scale(ascender), self.scale(descender)
            capital = _SHORT.unpack_from(data, os2 + 88)[0] if version > 1 else None
            self.capHeight = self.ascent if capital is None else self.scale(capital)
        self.stemV = 50 + int((weight / 65.0) ** 2)

    def _advance_of(self, glyph: int) -> float:
        """A glyph's advance width, scaled (glyphs past the metrics share the last one's)."""
        entry = min(glyph, self._metrics_count - 1)
        return self.scale(_USHORT.unpack_from(self._data, self._hmtx + 4 * entry)[0])

    def _advance(self, glyph: int) -> float | None:
        """The width reportlab's table gave a character of `glyph`: none past the glyphs."""
        return self._advance_of(glyph) if glyph < self.numGlyphs else None


def _mapped(path: Path) -> mmap.mmap:
    """The font file mapped read-only: a build reads only the pages of the tables it needs
    (an empty file cannot be mapped: ValueError)."""
    with open(path, "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


class FontMetrics:
    """A font file's metrics: `face` (see Face) and the width of a string."""

    def __init__(self, path: Path) -> None:
        try:
            self.face = Face(_mapped(path))
        except FontError as err:
            raise FontError(f"{path}: {err}") from err
        except (OSError, ValueError, struct.error, IndexError) as err:
            raise FontError(f"{path}: not a TrueType file this tool can read ({err})") from err

    def stringWidth(self, text: str, size: float) -> float:  # noqa: N802 (reportlab's name)
        """The advance width of `text` set `size` tall, as reportlab summed it."""
        widths, missing = self.face.charWidths, self.face.defaultWidth

        def width(char: str) -> float:
            try:
                return widths[ord(char)]
            except KeyError:
                return missing

        # summed left to right from 0.0, then scaled, as reportlab's C code did (Python's sum
        # of floats rounds differently from 3.12 on)
        return reduce(add, map(width, text), 0.0) * 0.001 * size
