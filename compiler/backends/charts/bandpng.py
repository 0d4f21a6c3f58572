"""A chart's PNG for the module's charts window, its pixel stream compressed BAND_ROWS rows at
a time: a chart drawn again because one row changed (a tab of an order of battle) takes the
bands whose pixels did not change from its PNG before, instead of compressing the whole image
again (compressing was half of drawing a tab again: some 0.07 s for 900×2600 pixels).

Each band's deflate data is made by a compressor of its own and ended by a full flush, so it
refers to no other band and its bytes depend on its rows alone: the PNG is the same whether a
band was compressed now or copied, so a warm build writes a cold build's bytes. The PNG's
Adler-32 is the bands' combined (scenepics.adler32_combine). What a chart's PNG is made of is
kept beside it as its band table: each band's digest, where its data is in the PNG, its
length and its Adler-32."""

from __future__ import annotations

import hashlib
import marshal
import struct
import zlib
from collections.abc import Callable
from typing import cast

from PIL import Image

from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.pixels import raw_bytes
from compiler.backends.scenepics import adler32_combine

BAND_ROWS = 32
"""Rows of a chart's PNG compressed together (one table row is some 40 to 120 of them)."""
LEVEL = 1
"""zlib's level (the art package's PNGs' level)."""

Band = tuple[bytes, int, int, int]
"""A band of a PNG: the SHA-1 digest of its rows, where its deflate data starts in the PNG,
its length and the Adler-32 of its stream (its rows, each after its filter type, 0)."""
Table = tuple[int, list[Band]]
"""A PNG's band table: its width in pixels, and its bands in order."""

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = zlib.compress(b"", LEVEL)[:2]
"""The two bytes a zlib stream of that level starts with."""
_LAST_BLOCK = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush()
"""An empty last deflate block: it ends the stream after the bands."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    """A PNG chunk: length, kind, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def banded_png(
    image: Image.Image, before: tuple[bytes, Table] | None = None
) -> tuple[bytes, Table]:
    """The image as a PNG (banded, see the module's docstring) and its band table; a band whose
    rows are those of a band of `before` (a PNG and its table) is copied from it. An image not
    in RGB (a chart's is: white paper first) is encoded whole (art.pieces.png_bytes), with no
    bands."""
    if image.mode != "RGB":
        return png_bytes(image), (image.width, [])
    stride = image.width * 3
    rows = memoryview(raw_bytes(image))
    bands = -(-image.height // BAND_ROWS)
    return banded_rows(
        image.size, [None] * bands, before, lambda top, bottom: rows[top * stride : bottom * stride]
    )


def _band(
    pixels: memoryview, stride: int, known: dict[bytes, tuple[bytes, int]]
) -> tuple[bytes, bytes, int]:
    """A band's rows' digest, deflate data and Adler-32: copied from `known` (by the digest)
    when it has them, else compressed."""
    digest = hashlib.sha1(pixels).digest()
    data, band_adler = known.get(digest) or _compressed(pixels, stride)
    return digest, data, band_adler


def banded_rows(
    size: tuple[int, int],
    kept: list[tuple[bytes, bytes, int] | None],
    before: tuple[bytes, Table] | None,
    rows: Callable[[int, int], bytes | memoryview],
) -> tuple[bytes, Table]:
    """The PNG banded_png makes of an RGB image `size` big, from its bands: a band `kept`
    gives (its rows' digest, deflate data, Adler-32: see kept_bands) is taken as it is, the
    others' pixels are asked of `rows` (top, bottom: the image's rows top to bottom as RGB
    bytes), one call per run of bands next to each other, and copied from `before` when they
    are the rows of one of its bands, else compressed."""
    width, height = size
    stride = width * 3
    known = _known_bands(before, width)
    made = list(kept)
    index = 0
    while index < len(made):
        if made[index] is not None:
            index += 1
            continue
        end = index
        while end < len(made) and made[end] is None:
            end += 1
        top, bottom = index * BAND_ROWS, min(height, end * BAND_ROWS)
        pixels = memoryview(rows(top, bottom))
        for number in range(index, end):
            at = (number - index) * BAND_ROWS * stride
            band_end = min(height - top, (number - index + 1) * BAND_ROWS) * stride
            made[number] = _band(pixels[at:band_end], stride, known)
        index = end
    return assembled(width, height, cast(list[tuple[bytes, bytes, int]], made))


def kept_bands(
    before: tuple[bytes, Table] | None, width: int, looks: list[bytes], was: list[bytes]
) -> list[tuple[bytes, bytes, int] | None]:
    """For each band of an image `width` pixels wide whose look (what decides its pixels: see
    window.band_looks) is in `looks`, its digest, deflate data and Adler-32 from `before`
    (its PNG and table) when the band of the same place had the same look there (`was`, the
    looks kept with the table); None for the others (to draw) and for all when `before` is
    of another width or does not fit its table or its looks."""
    found: list[tuple[bytes, bytes, int] | None] = [None] * len(looks)
    if before is None or not _known_bands(before, width):  # checks the table against the PNG
        return found
    png, (_width, bands) = before
    if len(was) != len(bands):
        return found
    for number, look in enumerate(looks):
        if number < len(was) and was[number] == look and look:
            digest, start, length, band_adler = bands[number]
            found[number] = (digest, png[start : start + length], band_adler)
    return found


def assembled(width: int, height: int, made: list[tuple[bytes, bytes, int]]) -> tuple[bytes, Table]:
    """The PNG of an RGB image `width` × `height` whose bands (each BAND_ROWS rows, the last
    what is left) are `made` (each its rows' digest, deflate data and Adler-32), and its band
    table."""
    header = SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    start = len(header) + 8 + len(_ZLIB_HEADER)  # the IDAT's length and kind, the zlib header
    stride = width * 3
    bands: list[Band] = []
    adler = zlib.adler32(b"")
    for number, (digest, data, band_adler) in enumerate(made):
        rows = min(BAND_ROWS, height - number * BAND_ROWS)
        adler = adler32_combine(adler, band_adler, rows * (stride + 1))
        bands.append((digest, start, len(data), band_adler))
        start += len(data)
    parts = [data for _digest, data, _adler in made]
    stream = _ZLIB_HEADER + b"".join(parts) + _LAST_BLOCK + struct.pack(">I", adler)
    return header + _chunk(b"IDAT", stream) + _chunk(b"IEND", b""), (width, bands)


def _compressed(pixels: memoryview, stride: int) -> tuple[bytes, int]:
    """A band's rows as raw deflate data ending on a full flush, and its stream's Adler-32."""
    stream = b"".join(b"\x00" + pixels[at : at + stride] for at in range(0, len(pixels), stride))
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(stream) + compressor.flush(zlib.Z_FULL_FLUSH)
    return data, zlib.adler32(stream)


def _known_bands(before: tuple[bytes, Table] | None, width: int) -> dict[bytes, tuple[bytes, int]]:
    """The deflate data and Adler-32 of each band of `before` (a PNG and its table) by its
    rows' digest; none when `before` is of another width or its table does not fit its PNG."""
    if before is None:
        return {}
    png, (was_wide, bands) = before
    if was_wide != width:
        return {}
    if not bands or not png.startswith(SIGNATURE):
        return {}
    found: dict[bytes, tuple[bytes, int]] = {}
    end = bands[0][1]
    for digest, start, length, band_adler in bands:
        if start != end or length <= 0:  # the bands follow one another
            return {}
        end = start + length
        found[digest] = (png[start:end], band_adler)
    if png[end : end + len(_LAST_BLOCK)] != _LAST_BLOCK:  # and end the stream
        return {}
    return found


def encode_table(png_key: str, table: Table, looks: list[bytes] | None = None) -> bytes:
    """A band table as a cache entry, naming the key of the PNG it is the table of, with each
    band's look when known (see kept_bands; none: no band is taken by its look)."""
    return marshal.dumps((png_key, table[0], table[1], looks or []))


def decode_looks(data: bytes | None) -> list[bytes]:
    """The bands' looks kept with a band table (encode_table); none when there are none or
    the entry is not one (damaged: every band is then drawn)."""
    found = decode_entry(data)
    return found[2] if found is not None else []


def decode_table(data: bytes | None) -> tuple[str, Table] | None:
    """The PNG key and band table of a cache entry (encode_table); None when there is none or
    it is not one (damaged: the PNG is then compressed whole)."""
    found = decode_entry(data)
    return (found[0], found[1]) if found is not None else None


def decode_entry(data: bytes | None) -> tuple[str, Table, list[bytes]] | None:
    """The PNG key, band table and bands' looks of a cache entry (encode_table), read at
    once; None when there is none or it is not one (damaged). Looks that are not looks are
    none (every band then drawn), as decode_looks gives them."""
    if data is None:
        return None
    try:
        png_key, width, bands, looks = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return None
    if not isinstance(png_key, str) or not isinstance(width, int) or not isinstance(bands, list):
        return None
    if not all(_is_band(band) for band in bands):
        return None
    if not isinstance(looks, list) or not all(isinstance(look, bytes) for look in looks):
        looks = []
    return png_key, (width, bands), looks


def _is_band(band: object) -> bool:
    if not isinstance(band, tuple) or len(band) != 4:
        return False
    digest, start, length, band_adler = band
    return (
        isinstance(digest, bytes)
        and len(digest) == 20
        and all(isinstance(v, int) for v in (start, length, band_adler))
    )
