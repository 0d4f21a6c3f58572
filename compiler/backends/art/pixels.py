"""An image's pixels as bytes to keep in a render cache, and back: its mode and size, then the
raw pixels compressed (fast to read back; PNG encoding would cost more than it saves)."""

from __future__ import annotations

import zlib

from PIL import Image


def packed(image: Image.Image) -> bytes:
    """An image's pixels as a cache entry: mode and size, then the raw pixels compressed."""
    header = f"{image.mode} {image.width} {image.height}\n".encode("ascii")
    return header + zlib.compress(image.tobytes(), 1)


def unpacked(data: bytes) -> Image.Image:
    """The image `packed` made the bytes of."""
    header, pixels = data.split(b"\n", 1)
    mode, width, height = header.decode("ascii").split()
    return Image.frombytes(mode, (int(width), int(height)), zlib.decompress(pixels))
