"""The vector back end draws the same faces as the raster one: real text, embedded fonts; and
bad input (unknown symbols, text too long, colours that are not colours, missing fonts) is clear."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject
from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped,unused-ignore]

from compiler.backends.art import fonts
from compiler.backends.art.drawing import Drawing, Text, marker_drawing, unit_drawing
from compiler.backends.art.fonts import MissingFont, text_width
from compiler.backends.art.pieces import counter_faces
from compiler.backends.art.vector import draw_vector, register_fonts
from compiler.model.common import Text as Words
from compiler.model.gamedata import GameData
from tests.test_art_golden import game, gcacw_infantry, tank_killers_card, tite_division


def pdf_of(*drawings: Drawing) -> bytes:
    """The drawings side by side on one page, 72 points tall."""
    register_fonts()
    buffer = io.BytesIO()
    size = (100 * len(drawings), 100)
    # without initialFontName reportlab lists Helvetica (not embedded) on every page
    canvas = Canvas(buffer, pagesize=size, invariant=1, initialFontName="DejaVuSans")
    for index, drawing in enumerate(drawings):
        draw_vector(canvas, drawing, 10 + index * 100, 10, 72)
    canvas.save()
    return buffer.getvalue()


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
    with pytest.raises(MissingFont, match="IPAexGothic"):
        unit_drawing(
            game("twilight_in_the_east"), game("twilight_in_the_east").units[0], "front", "ja"
        )
    assert text_width("2-2", 1.0) > 0
