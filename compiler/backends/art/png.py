"""A small deterministic PNG encoder: no metadata, no filtering, zlib at a fixed level.

Pillow's encoder chooses a filter per row (adaptive filtering), which costs as much again as
the compression itself; our images are mostly flat colour, for which the "none" filter does
nearly as well, so this encoder writes PNGs about twice as fast at a similar size. Any PNG
reader (VASSAL's included) reads them.

Scanlines are compressed as a stream, a band of rows at a time, so encoding holds no more
than one band's bytes besides the image and the compressed output (a 5349×5994 board once
took four full copies of its pixels, 370 MB). zlib's output does not depend on how its input
is split when nothing is flushed, so the bytes are those of compressing every row at once.
`PngWriter` takes the rows band by band from whoever draws them, so a large board need never
exist as one image.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

from compiler.backends.art.pixels import raw_bytes

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1
COLOUR_TYPES = {"L": (0, 1), "RGB": (2, 3), "LA": (4, 2), "RGBA": (6, 4)}
"""Pillow mode → (PNG colour type, bytes per pixel), 8 bits per channel."""
BAND_BYTES = 1 << 22
"""About how many bytes of pixels `encode_png` takes from the image at a time."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _filtered(raw: bytes, stride: int, rows: int) -> bytes:
    """`rows` scanlines of `stride` bytes, each led by filter type 0 ("none")."""
    if rows == 1:
        return b"\x00" + raw
    # An "L" image one byte wider than a scanline, the rows pasted in at x=1: Pillow then lays
    # the zero filter bytes and the rows out in C.
    lines = Image.new("L", (stride + 1, rows), 0)
    lines.paste(Image.frombytes("L", (stride, rows), raw), (1, 0))
    return raw_bytes(lines)


class PngWriter:
    """A PNG built from bands of rows, top to bottom: `add(band)` each band (an image as wide
    as the PNG, in its mode), then `finish()` for the bytes. Only the compressed stream is
    kept between bands."""

    def __init__(self, width: int, height: int, mode: str) -> None:
        if mode not in COLOUR_TYPES:
            raise ValueError(f"PNG rows in mode {mode!r}: use one of {sorted(COLOUR_TYPES)}")
        self.width, self.height, self.mode = width, height, mode
        self.rows = 0
        self._compressor = zlib.compressobj(LEVEL)
        self._parts: list[bytes] = []

    def add(self, band: Image.Image) -> None:
        """The next rows of the image (`band.height` of them)."""
        if band.mode != self.mode or band.width != self.width:
            raise ValueError(f"band {band.mode} {band.width} wide: want {self.mode} {self.width}")
        if self.rows + band.height > self.height:
            raise ValueError(f"{self.rows + band.height} rows: the PNG has {self.height}")
        stride = self.width * COLOUR_TYPES[self.mode][1]
        if band.height and stride:
            rows = _filtered(raw_bytes(band), stride, band.height)
            self._parts.append(self._compressor.compress(rows))
        elif band.height:
            self._parts.append(self._compressor.compress(b"\x00" * band.height))
        self.rows += band.height

    def finish(self) -> bytes:
        """The PNG's bytes, once every row was added."""
        if self.rows != self.height:
            raise ValueError(f"{self.rows} rows added: the PNG has {self.height}")
        self._parts.append(self._compressor.flush())
        data = b"".join(self._parts)
        self._parts = []
        colour_type = COLOUR_TYPES[self.mode][0]
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, colour_type, 0, 0, 0)
        return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def encode_png(image: Image.Image) -> bytes:
    """The image as PNG bytes (other modes are converted to RGBA first)."""
    if image.mode not in COLOUR_TYPES:
        image = image.convert("RGBA")
    writer = PngWriter(image.width, image.height, image.mode)
    stride = image.width * COLOUR_TYPES[image.mode][1]
    step = max(1, BAND_BYTES // max(1, stride))
    if step >= image.height:
        writer.add(image)
    else:
        for top in range(0, image.height, step):
            writer.add(image.crop((0, top, image.width, min(image.height, top + step))))
    return writer.finish()
