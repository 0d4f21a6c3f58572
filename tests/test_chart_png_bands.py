"""The module's chart PNGs are compressed in bands of rows (charts.bandpng): a chart drawn
again takes the bands whose rows did not change from its PNG before; the bytes are a cold
build's, and a damaged band table or PNG before is never copied from."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from compiler.backends.charts import bandpng
from compiler.backends.charts.bandpng import banded_png, decode_table, encode_table
from tests.conftest import (
    assert_warm_chart_pngs_are_cold,
    chart_cache_after_an_edit,
)


def _image(mark: int) -> Image.Image:
    """A white image 90 wide and 200 tall with a black box whose top is at `mark`."""
    image = Image.new("RGB", (90, 200), (255, 255, 255))
    ImageDraw.Draw(image).rectangle((10, mark, 40, mark + 5), fill=(0, 0, 0))
    return image


def test_a_banded_png_reads_back_as_its_image() -> None:
    png, (width, bands) = banded_png(_image(100))
    assert width == 90 and len(bands) == -(-200 // bandpng.BAND_ROWS)
    with Image.open(io.BytesIO(png)) as read:
        assert read.convert("RGB").tobytes() == _image(100).tobytes()


def test_unchanged_bands_are_copied_and_the_bytes_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = banded_png(_image(100))
    compressed: list[int] = []
    real = zlib.compressobj

    def counting(*args: object) -> object:
        compressed.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(zlib, "compressobj", counting)
    again = banded_png(_image(10), before)
    assert again == banded_png(_image(10))  # copied or compressed: the same bytes
    assert len(compressed) == 1 + len(again[1][1])  # the cold one compressed every band
    compressed.clear()
    banded_png(_image(10), before)
    assert len(compressed) == 1  # the band the box went to (the one it left is white, as was one)


def test_a_band_table_that_does_not_fit_its_png_is_not_copied_from() -> None:
    png, (width, bands) = banded_png(_image(100))
    shifted = [(digest, start + 1, length, adler) for digest, start, length, adler in bands]
    assert banded_png(_image(100), (png, (width, shifted))) == banded_png(_image(100))
    assert banded_png(_image(100), (png[:-40], (width, bands))) == banded_png(_image(100))
    assert decode_table(encode_table("key", (width, bands))) == ("key", (width, bands))
    assert decode_table(b"not marshal") is None
    assert decode_table(encode_table("key", (width, [(b"short", 1, 2, 3)]))) is None


@pytest.mark.parametrize("damage", [False, True])
def test_a_warm_build_copies_bands_and_writes_a_cold_builds_pngs(
    mini: Path, tmp_path: Path, damage: bool
) -> None:
    cache, tables = chart_cache_after_an_edit(mini, tmp_path)
    for key in tables if damage else []:  # each band table made to name its PNG's bytes wrong
        png_key, (width, bands) = decode_table(cache.get(key)) or ("", (0, []))
        moved = [(digest, start + 7, length, adler) for digest, start, length, adler in bands]
        cache.put(key, encode_table(png_key, (width, moved)))
    assert_warm_chart_pngs_are_cold(mini, tmp_path, cache)
