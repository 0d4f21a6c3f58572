"""Fonts in our PDFs: text as glyph ids of the whole font, and a subset of it embedded per file.

Content streams set text with Identity-H: each character is written as the glyph id it has in
the installed TrueType file. That makes a face's stream independent of the document (cacheable),
and the document embeds a subset that keeps the glyph ids (compiler.backends.pdf.ttf), with
widths and a ToUnicode map (text stays searchable and copyable, Japanese included) for exactly
the glyphs used.
"""

from __future__ import annotations

import hashlib
import string
from functools import cache, lru_cache
from pathlib import Path

from compiler.backends.art.fonts import FontFile, font_path, metrics
from compiler.backends.pdf import ttf


def resource_name(font: FontFile) -> str:
    """The name a font has in every resource dictionary: the same in every document."""
    return font.name


def glyph_hex(font: FontFile, text: str) -> bytes:
    """`text` as a hex string of two-byte glyph ids (a character the font lacks is glyph 0)."""
    glyphs = metrics(font).face.charToGlyph
    return b"<" + "".join(f"{glyphs.get(ord(c), 0):04X}" for c in text).encode("ascii") + b">"


def _glyphs_of(font: FontFile, chars: str) -> dict[int, str]:
    """Glyph id → the character it shows, for the characters of `chars` (sorted, first wins)."""
    table = metrics(font).face.charToGlyph
    out: dict[int, str] = {}
    for char in sorted(set(chars)):
        out.setdefault(table.get(ord(char), 0), char)
    return out


def subsets(requests: list[tuple[FontFile, tuple[int, ...]]]) -> list[bytes]:
    """Each font file cut down to its glyph ids (ids kept; see ttf.subset)."""
    return [_subset(font_path(font), gids) for font, gids in requests]


@lru_cache(maxsize=16)
def _subset(path: Path, gids: tuple[int, ...]) -> bytes:
    """Remembered: rebuilds print the same glyphs again and again."""
    return ttf.subset(font_file(path), gids)


@cache
def font_file(path: Path) -> bytes:
    """A font file's bytes, read once per process (IPAex Gothic is 6 MB)."""
    return path.read_bytes()


def subset_tag(font: FontFile, gids: tuple[int, ...]) -> str:
    """The six capital letters a subset's name starts with, derived from its glyphs."""
    digest = hashlib.sha256(f"{font.name}:{gids}".encode()).digest()
    return "".join(string.ascii_uppercase[b % 26] for b in digest[:6])


def widths_array(font: FontFile, glyphs: dict[int, str]) -> list[object]:
    """The CID font's /W array: runs of consecutive glyph ids with their widths."""
    face = metrics(font).face
    widths, missing = face.charWidths, float(face.defaultWidth)
    out: list[object] = []
    run: list[float] = []
    start = -2
    for gid in sorted(glyphs):
        # a character the font lacks shows glyph 0 and advances by the default width, as in
        # the layout's measurements
        width = round(float(widths.get(ord(glyphs[gid]), missing)), 2)
        if gid != start + len(run):
            if run:
                out += [start, run]
            start, run = gid, []
        run.append(width)
    if run:
        out += [start, run]
    return out


def to_unicode_cmap(glyphs: dict[int, str]) -> bytes:
    """A ToUnicode CMap mapping each glyph id to its character (UTF-16BE)."""
    entries = [
        f"<{gid:04X}> <{glyphs[gid].encode('utf-16-be').hex().upper()}>" for gid in sorted(glyphs)
    ]
    blocks = []
    for start in range(0, len(entries), 100):
        chunk = entries[start : start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    return (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        + "\n".join(blocks)
        + "\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    ).encode("ascii")


def used_glyphs(font: FontFile, chars: str) -> dict[int, str]:
    """Glyph id → character for the characters a document set in `font` (glyph 0 always)."""
    glyphs = _glyphs_of(font, chars)
    glyphs.setdefault(0, "\ufffd")
    return glyphs
