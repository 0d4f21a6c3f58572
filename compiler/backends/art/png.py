"""A small deterministic PNG encoder: no metadata, no filtering, zlib at a fixed level.

Pillow's encoder chooses a filter per row (adaptive filtering), which costs as much again as
the compression itself; our images are mostly flat colour, for which the "none" filter does
nearly as well, so this encoder writes PNGs about twice as fast at a similar size. Any PNG
reader (VASSAL's included) reads them.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1
COLOUR_TYPES = {"L": (0, 1), "RGB": (2, 3), "LA": (4, 2), "RGBA": (6, 4)}
"""Pillow mode → (PNG colour type, bytes per pixel), 8 bits per channel."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: Image.Image) -> bytes:
    """The image as PNG bytes (other modes are converted to RGBA first)."""
    if image.mode not in COLOUR_TYPES:
        image = image.convert("RGBA")
    colour_type, channels = COLOUR_TYPES[image.mode]
    raw = image.tobytes()
    stride = image.width * channels
    rows = b"".join(b"\x00" + raw[start : start + stride] for start in range(0, len(raw), stride))
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, colour_type, 0, 0, 0)
    return (
        SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, LEVEL))
        + _chunk(b"IEND", b"")
    )
