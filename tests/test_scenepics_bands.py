"""A scenario picture's PNG is compressed band by band, each band kept in the picture's cache:
any PNG reader reads the pixels back, and the bytes are the same cold, warm, after a change
and with damaged kept bands."""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

from PIL import Image

from compiler.backends import scenepics
from compiler.backends.rendercache import RenderCache


def picture(seed: int, height: int = 3 * scenepics.BAND_ROWS + 5) -> Image.Image:
    """A picture with flat colour and noise, some bands more than others."""
    rng = random.Random(seed)
    image = Image.new("RGB", (97, height), (230, 220, 200))
    for _ in range(400):
        x, y = rng.randrange(97), rng.randrange(height)
        image.putpixel((x, y), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    return image


def decoded(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        return image.copy()


def test_any_reader_reads_the_pixels_back() -> None:
    for image in (picture(1), picture(2, height=1), picture(3, height=scenepics.BAND_ROWS)):
        back = decoded(scenepics._banded_png(image, None))
        assert back.mode == "RGB" and back.size == image.size
        assert back.tobytes() == image.tobytes()


def test_kept_bands_give_the_same_bytes_and_only_changed_bands_are_compressed() -> None:
    image = picture(4)
    cold = scenepics._banded_png(image, None)
    kept = RenderCache(None)
    assert scenepics._banded_png(image, kept) == cold
    bands = len(kept.memory)
    assert bands == 4  # three whole bands and a short one
    image.putpixel((3, scenepics.BAND_ROWS + 2), (1, 2, 3))  # the second band changes
    changed = scenepics._banded_png(image, None)
    assert changed != cold
    assert scenepics._banded_png(image, kept) == changed
    assert len(kept.memory) == bands + 1
    assert decoded(changed).tobytes() == image.tobytes()


def test_a_damaged_kept_band_is_compressed_again(tmp_path: Path) -> None:
    """Kept bands whose bytes were damaged in the pack are not served: the PNG is the same."""
    pack = tmp_path / "scenes.pack"
    image = picture(5)
    expected = scenepics._banded_png(image, None)
    kept = RenderCache(pack)
    scenepics._banded_png(image, kept)
    kept.save()
    data = bytearray(pack.read_bytes())
    for at in range(0, len(data), 7):
        data[at] ^= 0xFF
    pack.write_bytes(bytes(data))
    assert scenepics._banded_png(image, RenderCache(pack)) == expected


def test_adler32_of_two_strings_is_combined_as_zlib_gives_it_whole() -> None:
    rng = random.Random(6)
    for _ in range(300):
        first = rng.randbytes(rng.choice([0, 1, 5, 300, 70_000]))
        second = rng.randbytes(rng.choice([0, 1, 7, 5_552, 65_521, 140_000]))
        combined = scenepics.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
        assert combined == zlib.adler32(first + second)
    full = bytes([255]) * 200_000  # the largest sums
    assert scenepics.adler32_combine(zlib.adler32(full), zlib.adler32(full), len(full)) == (
        zlib.adler32(full + full)
    )
