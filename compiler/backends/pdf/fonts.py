"""Fonts in our PDFs: text as glyph ids of the whole font, and a subset of it embedded per file.

Content streams set text with Identity-H: each character is written as the glyph id it has in
the installed TrueType file. That makes a face's stream independent of the document (cacheable),
and the document embeds a subset made by fontTools that keeps the glyph ids, with widths and a
ToUnicode map (text stays searchable and copyable, Japanese included) for exactly the glyphs
used. Subsets are cached by (font file, glyph set), since fontTools takes a tenth of a second or
more on IPAex Gothic.
"""

from __future__ import annotations

import hashlib
import io
import os
import string
from functools import cache, partial
from pathlib import Path

from fontTools import subset as ft_subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTFont as ToolsFont  # type: ignore[import-untyped]

from compiler.backends.art.fonts import FontFile, font_path, metrics
from compiler.backends.rendercache import parallel_map


def resource_name(font: FontFile) -> str:
    """The name a font has in every resource dictionary: the same in every document."""
    return font.name


def glyph_hex(font: FontFile, text: str) -> bytes:
    """`text` as a hex string of two-byte glyph ids (a character the font lacks is glyph 0)."""
    glyphs = metrics(font).face.charToGlyph
    return b"<" + "".join(f"{glyphs.get(ord(c), 0):04X}" for c in text).encode("ascii") + b">"


@cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _glyphs_of(font: FontFile, chars: str) -> dict[int, str]:
    """Glyph id → the character it shows, for the characters of `chars` (sorted, first wins)."""
    table = metrics(font).face.charToGlyph
    out: dict[int, str] = {}
    for char in sorted(set(chars)):
        out.setdefault(table.get(ord(char), 0), char)
    return out


def subsets(
    requests: list[tuple[FontFile, tuple[int, ...]]], cache_dir: Path | None
) -> list[bytes]:
    """Each font file cut down to its glyph ids (ids kept): from the cache (in this process,
    and on disk in `cache_dir`) when made before, else made — the fonts on every core."""
    keys = [_subset_key(font, gids) for font, gids in requests]
    found = [_cached_subset(key, cache_dir) for key in keys]
    missing = [index for index, data in enumerate(found) if data is None]
    jobs = [partial(_make_subset, font_path(requests[i][0]), requests[i][1]) for i in missing]
    for index, data in zip(missing, parallel_map(jobs, minimum=2), strict=True):
        _MADE[keys[index]] = data
        _store_subset(keys[index], data, cache_dir)
        found[index] = data
    return [data for data in found if data is not None]


_MADE: dict[str, bytes] = {}


def _subset_key(font: FontFile, gids: tuple[int, ...]) -> str:
    return hashlib.sha256(f"{_file_digest(font_path(font))}:{gids}".encode()).hexdigest()


def _cached_subset(key: str, cache_dir: Path | None) -> bytes | None:
    if key in _MADE:
        return _MADE[key]
    path = cache_dir / f"{key}.ttf" if cache_dir is not None else None
    return path.read_bytes() if path is not None and path.is_file() else None


def _store_subset(key: str, data: bytes, cache_dir: Path | None) -> None:
    if len(_MADE) > 64:
        _MADE.clear()
    if cache_dir is None:
        return
    target = cache_dir / f"{key}.ttf"
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)


def _make_subset(path: Path, gids: tuple[int, ...]) -> bytes:
    """fontTools' subset, glyph ids retained, no hinting or layout tables, no new timestamp."""
    options = ft_subset.Options()
    options.retain_gids = True
    options.notdef_outline = True
    options.hinting = False
    options.layout_features = []
    options.name_IDs = ["*"]
    options.drop_tables += ["GSUB", "GPOS", "GDEF", "BASE", "JSTF", "kern", "vhea", "vmtx", "FFTM"]
    buffer = io.BytesIO()
    with ToolsFont(str(path), lazy=True, recalcTimestamp=False) as tools_font:
        subsetter = ft_subset.Subsetter(options)
        subsetter.populate(gids=list(gids))
        subsetter.subset(tools_font)
        tools_font.save(buffer)
    return buffer.getvalue()


def subset_tag(font: FontFile, gids: tuple[int, ...]) -> str:
    """The six capital letters a subset's name starts with, derived from its glyphs."""
    digest = hashlib.sha256(f"{font.name}:{gids}".encode()).digest()
    return "".join(string.ascii_uppercase[b % 26] for b in digest[:6])


def widths_array(font: FontFile, glyphs: dict[int, str]) -> list[object]:
    """The CID font's /W array: runs of consecutive glyph ids with their widths."""
    widths = metrics(font).face.charWidths
    out: list[object] = []
    run: list[float] = []
    start = -2
    for gid in sorted(glyphs):
        width = round(float(widths.get(ord(glyphs[gid]), 0.0)), 2)
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
