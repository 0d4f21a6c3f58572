"""The vector back end draws the same faces as the raster one: real text, embedded fonts; and
bad input (unknown symbols, text too long, colours that are not colours, missing fonts) is clear."""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from lxml import etree
from PIL import Image, ImageChops, ImageDraw, ImageFont
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from compiler.backends.art import fonts
from compiler.backends.art.drawing import Drawing, Text, marker_drawing, unit_drawing
from compiler.backends.art.fonts import MissingFont, text_width
from compiler.backends.art.pieces import counter_faces
from compiler.backends.art.raster import rasterize
from compiler.backends.art.svg import drawing_svg
from compiler.backends.art.textfit import fit
from compiler.backends.pdf import ttf
from compiler.backends.pdf.content import Canvas, draw, drawing_content
from compiler.backends.pdf.document import PdfDocument
from compiler.model.common import Text as Words
from compiler.model.gamedata import GameData
from tests.conftest import seed_game as game
from tests.test_art_golden import gcacw_infantry, tank_killers_card, tite_division


def pdf_of(*drawings: Drawing, height: float = 72.0, gap: float = 10.0) -> bytes:
    """The drawings side by side on one page, `height` points tall, `gap` apart."""
    pdf = PdfDocument()
    canvas = Canvas()
    x = gap
    for drawing in drawings:
        draw(canvas, drawing, x, gap, height)
        x += drawing.width * height + gap
    pdf.add_page((x, height + 2 * gap), canvas.content())
    return pdf.write({"Title": "faces"})


def texts(drawing: Drawing) -> list[str]:
    """The text of a drawing's text ops."""
    return [op.text for op in drawing.ops if isinstance(op, Text)]


def squash(text: str) -> str:
    """Text without whitespace (extraction splits and joins lines its own way)."""
    return "".join(text.split())


def test_pdf_holds_the_same_text_as_the_raster() -> None:
    faces = [gcacw_infantry("front"), tite_division("ja"), tank_killers_card()]
    extracted = squash(PdfReader(io.BytesIO(pdf_of(*faces))).pages[0].extract_text())
    for face in faces:
        for text in texts(face):
            assert squash(text) in extracted, text
    assert "1/I歩兵師団" in extracted
    assert "2-2" in extracted and "8-8-7" in extracted


def _fonts(page_resources: Any) -> list[DictionaryObject]:
    """Font dictionaries of a page (descendant fonts for composite ones)."""
    found: list[DictionaryObject] = []
    for ref in page_resources["/Font"].values():
        font = cast(DictionaryObject, ref.get_object())
        if font.get("/Subtype") == "/Type0":
            descendants = cast(Any, font["/DescendantFonts"])
            font = cast(DictionaryObject, descendants[0].get_object())
        found.append(font)
    return found


def test_every_font_is_embedded() -> None:
    reader = PdfReader(io.BytesIO(pdf_of(gcacw_infantry("front"), tite_division("ja"))))
    found = _fonts(reader.pages[0]["/Resources"])
    names = {str(font["/BaseFont"]) for font in found}
    assert any("DejaVuSans" in name for name in names), names
    assert any("IPAexGothic" in name for name in names), names
    for font in found:
        descriptor = cast(DictionaryObject, font["/FontDescriptor"].get_object())
        assert "/FontFile2" in descriptor, font["/BaseFont"]


def test_pdf_is_deterministic() -> None:
    assert pdf_of(gcacw_infantry("front")) == pdf_of(gcacw_infantry("front"))


def test_a_face_stream_does_not_depend_on_its_document() -> None:
    """What makes cached forms reusable: the same face gives the same content bytes whatever
    else the document holds (text is written as the font's own glyph ids)."""
    face = tite_division("ja")
    alone = drawing_content(face, 72)
    assert drawing_content(face, 72) == alone
    pdf_of(gcacw_infantry("front"), tank_killers_card())  # other text drawn meanwhile
    assert drawing_content(face, 72) == alone
    assert alone.chars["IPAexGothic"] and alone.chars["DejaVuSans-Bold"]


def grey_difference(one: Image.Image, other: Image.Image) -> tuple[float, float]:
    """Mean grey level of the difference of two images, and the share of its pixels at 64
    or more."""
    difference = ImageChops.difference(one, other).convert("L")
    histogram = difference.histogram()
    total = sum(histogram)
    mean = sum(level * count for level, count in enumerate(histogram)) / total
    return mean, sum(histogram[64:]) / total


PDF_DPI = 144
"""pdftoppm renders the page at this resolution: a 72-point face is 144 pixels tall."""
SIZES: dict[Any, tuple[float, int]] = {tank_killers_card: (288.0, 384)}
"""Faces compared larger (points in the PDF, pixels from Batik; else 72 and 128): a card's rules
text is set down to 0.028 of its height, and at one inch tall the two renderers' anti-aliased
glyph edges alone differ by a mean of 17; at four inches (a printed card is 3.5) by 6."""


@pytest.mark.parametrize(
    "make", [lambda: gcacw_infantry("front"), lambda: tite_division("ja"), tank_killers_card]
)
def test_vector_and_raster_look_the_same(make: Any, tmp_path: Path) -> None:
    """The PDF, rendered by poppler, matches the PNG renderer's image of the same face:
    the two back ends share one display list and one set of font metrics."""
    assert shutil.which("pdftoppm"), "install poppler-utils (scripts/setup.sh test does)"
    face = make()
    height = SIZES.get(make, (72.0, 128))[0]
    (tmp_path / "face.pdf").write_bytes(pdf_of(face, height=height, gap=0.0))
    subprocess.run(
        ["pdftoppm", "-r", str(PDF_DPI), "-png", "-singlefile", "face.pdf", "page"],
        cwd=tmp_path,
        check=True,
    )
    from_pdf = Image.open(tmp_path / "page.png").convert("RGB")
    pixels = round(height * PDF_DPI / 72)
    from_png = Image.new("RGB", from_pdf.size, (255, 255, 255))
    raster = rasterize(face, pixels)
    from_png.paste(raster, (0, 0), raster if raster.mode == "RGBA" else None)
    mean, far = grey_difference(from_pdf, from_png)
    # Anti-aliasing and hinting differ at glyph and shape edges; measured: mean 1.8 to 6.4 and
    # at most 3.8% of pixels far off for these faces, while the same face with its name in the
    # other language gives mean 23 and 9% (a different face: 63 and 80%).
    assert mean < 10.0, mean
    assert far < 0.06, far


def with_symbol(data: GameData, symbol: str) -> GameData:
    """The game with every unit type drawn with `symbol`."""
    types = tuple(replace(t, symbol=cast(Any, symbol)) for t in data.unit_types)
    return replace(data, unit_types=types)


def test_unknown_symbol_raises_value_error() -> None:
    data = with_symbol(game("gcacw"), "bogus")
    with pytest.raises(ValueError, match="bogus"):
        unit_drawing(data, data.units[0], "front")
    with pytest.raises(ValueError, match="bogus"):
        counter_faces(data, data.units[0])


def test_overflow_is_a_warning_not_a_silent_clip() -> None:
    data = game("gcacw")
    unit = next(u for u in data.units if u.leader is None)
    long = replace(unit, name=Words(en="Extraordinarily Overlong Provisional Division " * 3))
    drawing = unit_drawing(data, long, "front")
    assert any(
        "does not fit the `name` slot of layout `standard-counter`: shortened to" in warning
        for warning in drawing.warnings
    ), drawing.warnings
    assert any(text.endswith("…") for text in texts(drawing))
    for op in drawing.ops:
        if isinstance(op, Text) and op.anchor == "mm":
            half = text_width(op.text, op.height, op.bold, op.lang) / 2
            assert 0 <= op.x - half and op.x + half <= drawing.width, op.text
    assert not unit_drawing(data, unit, "front").warnings


def test_a_colour_that_is_not_a_colour_is_reported() -> None:
    data = game("gcacw")
    marker = next(iter(data.markers.values()))
    bad = replace(marker, set=replace(marker.set, colour="blueish"))
    drawing = marker_drawing(data, bad, "front")
    assert any("`blueish` is not a colour" in warning for warning in drawing.warnings)


def test_missing_japanese_font_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    nowhere = replace(fonts.JAPANESE, dirs=(Path("/nonexistent/fonts"),))
    monkeypatch.setattr(fonts, "JAPANESE", nowhere)
    monkeypatch.delenv("COUNTERMIX_FONTS", raising=False)
    with pytest.raises(MissingFont, match="fonts-ipaexfont-gothic"):
        text_width("第2戦隊", 1.0)
    fit.cache_clear()  # fitted text is remembered per process (the fonts do not change)
    with pytest.raises(MissingFont, match="IPAexGothic"):
        unit_drawing(
            game("twilight_in_the_east"), game("twilight_in_the_east").units[0], "front", "ja"
        )
    assert text_width("2-2", 1.0) > 0


@pytest.mark.parametrize(
    ("font", "kept", "dropped"),
    [
        (fonts.JAPANESE, "歩兵師団の部隊ターン記録", "海空"),
        (fonts.REGULAR, "Infantry 8-8-7 Ärmée ½", "QZ"),
    ],
)
def test_font_subset_keeps_used_glyphs_exactly(font: Any, kept: str, dropped: str) -> None:
    """The embedded subset renders the kept characters exactly as the installed font does
    (FreeType, with hinting) and has empty outlines for the others."""
    data = fonts.font_path(font).read_bytes()
    table = fonts.metrics(font).face.charToGlyph
    subset = ttf.subset(data, [table[ord(char)] for char in kept], keep_cmap=True)
    assert len(subset) < len(data) / 5
    whole = ImageFont.truetype(io.BytesIO(data), 40, layout_engine=ImageFont.Layout.BASIC)
    cut = ImageFont.truetype(io.BytesIO(subset), 40, layout_engine=ImageFont.Layout.BASIC)

    def glyph(face: ImageFont.FreeTypeFont, char: str) -> bytes:
        image = Image.new("L", (80, 60))
        ImageDraw.Draw(image).text((5, 5), char, font=face, fill=255)
        return image.tobytes()

    for char in kept:
        assert glyph(cut, char) == glyph(whole, char), char
    for char in dropped:
        assert glyph(whole, char) != bytes(80 * 60) and glyph(cut, char) == bytes(80 * 60), char


# ---- SVG for the module -------------------------------------------------------------------------

BATIK = [
    Path("/usr/share/java") / f"{name}.jar"
    for name in ("batik-all", "xmlgraphics-commons", "xml-apis-ext")
]


@pytest.mark.parametrize(
    "make", [lambda: gcacw_infantry("front"), lambda: tite_division("ja"), tank_killers_card]
)
def test_svg_drawn_by_batik_looks_like_the_raster(make: Any, tmp_path: Path) -> None:
    """The module's SVG face, drawn by Batik (what VASSAL draws SVG with) at twice its size,
    matches the PNG renderer's image of the same face at that size."""
    assert all(p.is_file() for p in BATIK), "install libbatik-java (scripts/install-vassal.sh)"
    face = make()
    height = SIZES.get(make, (72.0, 128))[1]
    width = round(face.width * height)
    (tmp_path / "face.svg").write_bytes(drawing_svg(face, width // 2, height // 2))
    subprocess.run(
        [
            "java",
            "-cp",
            ":".join(map(str, BATIK)),
            "org.apache.batik.apps.rasterizer.Main",
            "-scriptSecurityOff",
            "-w",
            str(width),
            "-h",
            str(height),
            "face.svg",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    drawn = Image.open(tmp_path / "face.png").convert("RGBA")
    raster = rasterize(face, height).convert("RGBA")
    assert drawn.size == raster.size
    white = Image.new("RGBA", drawn.size, (255, 255, 255, 255))
    mean, far = grey_difference(
        Image.alpha_composite(white, drawn).convert("L"),
        Image.alpha_composite(white, raster).convert("L"),
    )
    assert mean < 10.0, mean
    assert far < 0.06, far


def test_svg_text_is_outlines_at_the_font_advances() -> None:
    face = tite_division("ja")
    svg = etree.fromstring(drawing_svg(face, 64, 64))
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert svg.get("width") == "64" and svg.get("viewBox") == f"0 0 {face.width:g} 1"
    groups = svg.findall("s:g[@aria-label]", ns)
    assert [g.get("aria-label") for g in groups] == texts(face)
    for group, text in zip(groups, texts(face), strict=True):
        assert len(group.findall("s:path", ns)) == len(text.replace(" ", ""))
    assert drawing_svg(face, 64, 64) == drawing_svg(tite_division("ja"), 64, 64)


def test_a_character_the_font_lacks_has_the_default_width() -> None:
    from compiler.backends.pdf import fonts as pdffonts

    glyphs = pdffonts.used_glyphs(fonts.REGULAR, "A\ue000")
    widths = pdffonts.widths_array(fonts.REGULAR, glyphs)
    assert widths[0] == 0 and widths[1] == [
        round(fonts.metrics(fonts.REGULAR).face.defaultWidth, 2)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "1st Division",
        'A "quoted" name',
        "Bob's brigade",
        "both ' and \" quotes",
        "a < b & c > d",
        "line\nbreak\rreturn\ttab",
        "&amp; already",
        "第1師団",
        "",
    ],
)
def test_svg_attribute_quoting_is_the_standard_librarys(text: str) -> None:
    """art.svg quotes text labels itself (importing xml.sax.saxutils costs every build 15 ms
    of imports); its result is the standard library's, character for character."""
    from xml.sax.saxutils import quoteattr as standard

    from compiler.backends.art.svg import quoteattr

    assert quoteattr(text) == standard(text)
