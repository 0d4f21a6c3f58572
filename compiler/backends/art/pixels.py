"""An image's pixels as bytes to keep in a render cache, and back: its mode and size, then the
raw pixels compressed (fast to read back; PNG encoding would cost more than it saves)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from PIL import Image

RAW_BLOCK = 65536
"""Bytes the raw encoder is asked for at a time (Pillow's ImageFile.MAXBLOCK)."""


def raw_bytes(image: Image.Image) -> bytes:
    """The same bytes as `image.tobytes()`, without importing PIL.ImageFile: Pillow's tobytes
    imports it (and with it `logging`, 5-15 ms of a warm build's start) only to read the size
    of a block. Falls back to tobytes where Pillow's raw encoder is not reachable or answers
    otherwise than expected (it is Pillow's private interface)."""
    encoder = getattr(Image, "_getencoder", None)
    if encoder is None or image.width == 0 or image.height == 0:
        return image.tobytes()
    try:
        return _encoded_raw(image, encoder)
    except (AttributeError, TypeError, ValueError, RuntimeError, SystemError, OSError):
        return image.tobytes()


def _encoded_raw(image: Image.Image, encoder: Callable[..., Any]) -> bytes:
    """Pillow's raw encoder run over the whole image, as tobytes runs it."""
    image.load()
    raw = encoder(image.mode, "raw", image.mode)
    try:
        raw.setimage(image.im, (0, 0, image.width, image.height))
        blocks: list[bytes] = []
        block = max(RAW_BLOCK, image.width * 4)
        while True:
            _, status, data = raw.encode(block)
            blocks.append(data)
            if status:
                break
    finally:
        raw.cleanup()
    if status < 0:
        raise RuntimeError(f"encoder error {status} in raw_bytes")
    return b"".join(blocks)


def packed(image: Image.Image) -> bytes:
    """An image's pixels as a cache entry: mode and size, then the raw pixels compressed."""
    header = f"{image.mode} {image.width} {image.height}\n".encode("ascii")
    return header + zlib.compress(raw_bytes(image), 1)


def unpacked(data: bytes) -> Image.Image:
    """The image `packed` made the bytes of."""
    header, pixels = data.split(b"\n", 1)
    mode, width, height = header.decode("ascii").split()
    return Image.frombytes(mode, (int(width), int(height)), zlib.decompress(pixels))
