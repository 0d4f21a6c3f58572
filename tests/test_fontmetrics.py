"""art.fontmetrics reads the installed fonts' metrics itself: the same numbers reportlab's
TTFont read (the layout, the SVG glyphs and the PDF font objects were all made from those), for
every character the fonts could be asked for, and the same string widths to the last bit."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from reportlab.pdfbase.ttfonts import TTFont  # type: ignore[import-untyped,unused-ignore]

from compiler.backends.art.fontmetrics import FontError, FontMetrics
from compiler.backends.art.fonts import ALL_FONTS, FontFile, font_path

DESCRIPTOR = ("bbox", "italicAngle", "ascent", "descent", "capHeight", "stemV", "defaultWidth")
PLANES = range(0x30000)  # the Basic, Supplementary Multilingual and Ideographic planes


@pytest.fixture(scope="module", params=ALL_FONTS, ids=lambda font: font.name)
def pair(request: pytest.FixtureRequest) -> tuple[FontMetrics, TTFont]:
    font: FontFile = request.param
    return FontMetrics(font_path(font)), TTFont(font.name, str(font_path(font)))


def test_the_descriptor_is_reportlabs(pair: tuple[FontMetrics, TTFont]) -> None:
    ours, theirs = pair
    for name in DESCRIPTOR:
        mine, its = getattr(ours.face, name), getattr(theirs.face, name)
        assert (mine, type(mine)) == (its, type(its)), name


def test_every_characters_glyph_and_width_is_reportlabs(pair: tuple[FontMetrics, TTFont]) -> None:
    ours, theirs = pair
    glyphs, widths = theirs.face.charToGlyph, theirs.face.charWidths
    wrong = [
        char
        for char in PLANES
        if ours.face.charToGlyph.get(char, -1) != glyphs.get(char, -1)
        or ours.face.charWidths.get(char, -1.0) != widths.get(char, -1.0)
        or (char in ours.face.charToGlyph) != (char in glyphs)
    ]
    assert wrong == []
    assert sum(1 for char in PLANES if char in ours.face.charToGlyph) == len(glyphs)


def test_string_widths_are_reportlabs_to_the_bit(pair: tuple[FontMetrics, TTFont]) -> None:
    """Sums of many widths at odd sizes: a different order of adding or scaling shows."""
    ours, theirs = pair
    held = [chr(char) for char in sorted(theirs.face.charToGlyph)]
    alphabet = [*held[:: max(1, len(held) // 2000)], "\u00a0", " ", "\U0001f600", "\uffff"]
    draw = random.Random(13)
    for _ in range(5000):
        text = "".join(draw.choice(alphabet) for _ in range(draw.randint(0, 24)))
        size = draw.choice([1.0, 0.1, 7.5, 0.123456, 12.0, 1 / 3, 9])
        assert ours.stringWidth(text, size) == theirs.stringWidth(text, size), (text, size)


@pytest.mark.parametrize(
    "content",
    [b"", b"not a font at all", b"\x00\x01\x00\x00\x00\x01" + b"\x00" * 6 + b"head" + b"\xff" * 12],
    ids=["empty", "text", "truncated"],
)
def test_a_file_that_is_not_a_font_is_a_font_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.ttf"
    path.write_bytes(content)
    with pytest.raises(FontError, match="broken.ttf"):
        FontMetrics(path)


def test_measuring_text_imports_no_reportlab() -> None:
    """A build that lays out text no longer imports reportlab (11 ms of every start-up)."""
    code = (
        "import sys; from compiler.backends.art.fonts import text_width;"
        "text_width('1st Division 第1師団', 10.0);"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('reportlab', '_rl_accel')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
