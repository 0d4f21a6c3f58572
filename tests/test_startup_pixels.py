"""An image's raw pixels are read without Pillow's ImageFile (whose import brings `logging`,
5-15 ms of a warm build's start), and are the bytes Pillow's own tobytes gives."""

from __future__ import annotations

import pytest
from PIL import Image

from compiler.backends.art.pixels import packed, raw_bytes, unpacked
from tests.conftest import modules_imported_by

MODES = ("1", "L", "LA", "RGB", "RGBA", "P", "I", "F", "I;16", "CMYK")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", [(1, 1), (3, 7), (300, 200), (20000, 2), (0, 4), (5, 0)])
def test_raw_bytes_are_those_of_tobytes(mode: str, size: tuple[int, int]) -> None:
    image = Image.linear_gradient("L").resize((max(size[0], 1), max(size[1], 1))).convert(mode)
    image = image.crop((0, 0, *size))
    assert raw_bytes(image) == image.tobytes()


def test_a_packed_image_comes_back_the_same() -> None:
    image = Image.radial_gradient("L").convert("RGBA")
    assert unpacked(packed(image)).tobytes() == image.tobytes()


def test_packing_and_encoding_import_no_image_file_module() -> None:
    code = (
        "from PIL import Image\n"
        "from compiler.backends.art.pixels import packed\n"
        "from compiler.backends.art.png import encode_png\n"
        "image = Image.new('RGBA', (40, 30), (1, 2, 3, 4))\n"
        "packed(image), encode_png(image), encode_png(image.convert('L'))\n"
    )
    assert modules_imported_by(code, "m in ('PIL.ImageFile', 'logging')") == "[]"


def test_an_encoder_that_answers_otherwise_falls_back_to_tobytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """raw_bytes leans on Pillow's private encoder interface: a Pillow whose encoder takes
    other arguments gives tobytes' bytes, not a traceback."""

    real = Image._getencoder
    calls: list[str] = []

    class Changed:
        def setimage(self, *args: object) -> None:
            raise TypeError("takes other arguments")

        def cleanup(self) -> None:
            pass

    def first_changed(*args: object) -> object:  # raw_bytes' call, then tobytes' own
        calls.append("called")
        return Changed() if len(calls) == 1 else real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(Image, "_getencoder", first_changed)
    image = Image.radial_gradient("L").convert("RGB")
    assert raw_bytes(image) == Image.radial_gradient("L").convert("RGB").tobytes()
    assert len(calls) == 3  # the changed one, then tobytes in the fallback and above
