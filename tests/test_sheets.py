"""Print sheets: options, imposition and the PDFs themselves, checked by reading the PDFs back."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from compiler.backends.sheets import (
    SheetOptions,
    back_offset_mm,
    card_size_mm,
    counter_size_mm,
    write_sheets,
)
from compiler.backends.sheets.build import counter_pieces
from compiler.backends.sheets.impose import impose
from compiler.backends.sheets.options import MM
from compiler.backends.sheets.pdf import SheetDoc, render
from compiler.load.game import load_game
from tests.conftest import seed_game as game

SOURCES = Path(__file__).parent.parent / "sources"
A4 = (595.2756, 841.8898)
TOLERANCE = 0.01
Matrix = tuple[float, float, float, float, float, float]


def sample_doc(total: int, lang: str = "en") -> SheetDoc:
    """GCACW counters and markers, copies trimmed or padded so there are `total` counters."""
    pieces = counter_pieces(game("gcacw"), lang)[:10]
    per, extra = divmod(total, len(pieces))
    sized = tuple(
        dataclasses.replace(p, copies=per + (1 if i < extra else 0)) for i, p in enumerate(pieces)
    )
    return SheetDoc("Sample — counters", "counters", sized, (15.875, 15.875))


def read(data: bytes) -> PdfReader:
    """A PDF reader over bytes."""
    return PdfReader(io.BytesIO(data))


# ---- reading placements back from the PDF --------------------------------------------------


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m × n for PDF matrices [a b c d e f] (m applied first)."""
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (
        a * p + b * r,
        a * q + b * s,
        c * p + d * r,
        c * q + d * s,
        e * p + f * r + t,
        e * q + f * s + u,
    )


def placements(page: Any) -> Iterator[tuple[str, Matrix, list[float]]]:
    """(form name, CTM, form BBox) for every `Do` of one of our forms on a page."""
    xobjects = page["/Resources"].get("/XObject", {})
    ctm: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    stack: list[Matrix] = []
    for operands, operator in ContentStream(page.get_contents(), page.pdf).operations:
        if operator == b"q":
            stack.append(ctm)
        elif operator == b"Q":
            ctm = stack.pop()
        elif operator == b"cm":
            m = tuple(float(v) for v in operands)
            ctm = multiply((m[0], m[1], m[2], m[3], m[4], m[5]), ctm)
        elif operator == b"Do" and str(operands[0]).startswith("/cm."):
            form = xobjects[operands[0]].get_object()
            yield str(operands[0]).removeprefix("/"), ctm, [float(v) for v in form["/BBox"]]


def faces(page: Any) -> dict[str, list[tuple[float, float, float, float]]]:
    """Form name → (x0, y0, x1, y1) of each face drawn at full size (bleed copies are scaled)."""
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for name, (a, b, c, d, e, f), box in placements(page):
        if (a, b, c, d) == (1.0, 0.0, 0.0, 1.0):
            rect = (e + box[0], f + box[1], e + box[2], f + box[3])
            out.setdefault(name, []).append(rect)
    return out


def centre(rect: tuple[float, float, float, float]) -> tuple[float, float]:
    return (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2


def sides(
    page: Any,
) -> tuple[dict[str, list[tuple[float, float]]], dict[str, list[tuple[float, float]]]]:
    """Centres of the fronts and of the backs on a page, keyed by the piece part of the name."""
    fronts: dict[str, list[tuple[float, float]]] = {}
    backs: dict[str, list[tuple[float, float]]] = {}
    for name, rects in faces(page).items():
        side, _, key = name.removeprefix("cm.").partition(".")
        target = fronts if side == "front" else backs
        target.setdefault(key, []).extend(centre(r) for r in rects)
    return fronts, backs


def assert_mirrored(
    fronts: dict[str, list[tuple[float, float]]],
    backs: dict[str, list[tuple[float, float]]],
    width: float,
    offset: tuple[float, float],
) -> int:
    """Every back centre is its front centre mirrored across `width` plus `offset`; the count."""
    assert fronts.keys() == backs.keys()
    checked = 0
    for key, centres in fronts.items():
        expected = sorted((width - x + offset[0], y + offset[1]) for x, y in centres)
        found = sorted(backs[key])
        assert len(expected) == len(found), key
        for (ex, ey), (fx, fy) in zip(expected, found, strict=True):
            assert abs(ex - fx) <= TOLERANCE and abs(ey - fy) <= TOLERANCE, (key, ex, ey, fx, fy)
            checked += 1
    return checked


def box(page: Any, name: str) -> tuple[float, ...]:
    return tuple(float(v) for v in page[name])


# ---- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mm"),
    [
        ("1/2in", 12.7),
        ("9/16in", 14.2875),
        ("5/8in", 15.875),
        ('3/4"', 19.05),
        ("1in", 25.4),
        ("0.625in", 15.875),
        ("16mm", 16.0),
        ("12.5 mm", 12.5),
    ],
)
def test_counter_size_presets(text: str, mm: float) -> None:
    assert counter_size_mm(text) == pytest.approx(mm)


@pytest.mark.parametrize("text", ["huge", "7/3in", "2in", "0mm", "16", "5/8 cm"])
def test_unknown_counter_size_is_a_clear_error(text: str) -> None:
    with pytest.raises(ValueError, match="counter size|greater than zero"):
        counter_size_mm(text)


def test_back_offset() -> None:
    assert back_offset_mm("0.5,-0.3") == (0.5, -0.3)
    for bad in ("0.5", "a,b", "1,2,3"):
        with pytest.raises(ValueError, match="back offset"):
            back_offset_mm(bad)


def test_card_size() -> None:
    assert card_size_mm("63x88mm") == (63.0, 88.0)
    with pytest.raises(ValueError, match="card size"):
        card_size_mm("63 by 88")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"counter_mm": 300.0}, "counter 300 x 300 mm does not fit the A4 page"),
        ({"card_mm": (63.0, 290.0)}, "card 63 x 290 mm does not fit"),
        ({"paper": "A3"}, "unknown paper 'A3'"),
        ({"duplex": "both"}, "unknown duplex"),
        ({"bleed_mm": 12.0}, "bleed .* must fit inside the margin"),
        ({"gutter_mm": -1.0}, "gutter_mm must be a finite length of 0 mm or more"),
        ({"bleed_mm": float("nan")}, "bleed_mm must be a finite length"),
        ({"margin_mm": float("inf")}, "margin_mm must be a finite length"),
        ({"back_offset_mm": (float("nan"), 0.0)}, "must be finite numbers"),
    ],
)
def test_invalid_options_raise(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SheetOptions(**changes)


def test_options_from_game_settings() -> None:
    assert SheetOptions.from_settings(None) == SheetOptions()
    assert SheetOptions.from_settings(game("gcacw").game.print).counter_mm > 0


def test_gutter_fold_piece_wider_than_half_a_page_is_an_error() -> None:
    options = SheetOptions(counter_mm=120.0, duplex="gutter-fold")
    with pytest.raises(ValueError, match="does not fit the printable area"):
        impose([1], options, (120.0, 120.0))


# ---- imposition -------------------------------------------------------------------------------


def test_grid_and_sheet_count() -> None:
    # A4 inside 10 mm margins is 190 x 277 mm: 11 x 17 counters of 5/8in (15.875 mm).
    imposition = impose([100, 100], SheetOptions(), (15.875, 15.875))
    assert (imposition.grid.cols, imposition.grid.rows) == (11, 17)
    assert imposition.sheets == 2
    assert len(imposition.on_sheet(1)) == 200 - 187


def test_gutter_keeps_counters_apart() -> None:
    imposition = impose([30], SheetOptions(gutter_mm=3.0), (15.875, 15.875))
    first, second = imposition.placements[0].front, imposition.placements[1].front
    assert second.x - first.right == pytest.approx(3.0 * MM)


def test_gutter_fold_geometry() -> None:
    options = SheetOptions(duplex="gutter-fold", fold_gap_mm=6.0, back_offset_mm=(2.0, 2.0))
    imposition = impose([40, 40], options, (15.875, 15.875))
    page_w = options.page_pt[0]
    fold = page_w / 2
    for placement in imposition.placements:
        assert placement.back is not None
        assert placement.front.right <= fold - 3.0 * MM + 1e-6
        assert placement.back.x >= fold + 3.0 * MM - 1e-6
        # mirrored about the fold, no printer offset
        assert placement.back.centre[0] == pytest.approx(page_w - placement.front.centre[0])
        assert placement.back.centre[1] == pytest.approx(placement.front.centre[1])


# ---- PDFs ---------------------------------------------------------------------------------------


def test_page_count_for_known_copies() -> None:
    # 200 counters = 2 sheets of 187; mirror duplex: 2 x (front + back), a calibration pair and
    # one index page (10 pieces x 2 sheets at most = 20 lines).
    reader = read(render(sample_doc(200), SheetOptions()))
    assert len(reader.pages) == 2 * 2 + 2 + 1
    reader = read(render(sample_doc(200), SheetOptions(duplex="none", index=False)))
    assert len(reader.pages) == 2
    reader = read(render(sample_doc(200), SheetOptions(duplex="gutter-fold", index=False)))
    # the left half holds 5 x 17 = 85 counters: 3 pages, no calibration
    assert len(reader.pages) == 3


def test_page_boxes() -> None:
    options = SheetOptions(bleed_mm=1.5)
    reader = read(render(sample_doc(200), options))
    bleed = 1.5 * MM
    for page in list(reader.pages)[:4]:
        media = box(page, "/MediaBox")
        assert media == pytest.approx((0.0, 0.0, *A4), abs=TOLERANCE)
        trim = box(page, "/TrimBox")
        assert media[0] < trim[0] < trim[2] < media[2] and media[1] < trim[1] < trim[3] < media[3]
        grown = (trim[0] - bleed, trim[1] - bleed, trim[2] + bleed, trim[3] + bleed)
        assert box(page, "/BleedBox") == pytest.approx(grown, abs=TOLERANCE)
        drawn = [r for rects in faces(page).values() for r in rects]
        bounds = (
            min(r[0] for r in drawn),
            min(r[1] for r in drawn),
            max(r[2] for r in drawn),
            max(r[3] for r in drawn),
        )
        assert trim == pytest.approx(bounds, abs=TOLERANCE)


@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.5, -0.8)])
def test_backs_mirror_fronts_in_the_pdf(offset: tuple[float, float]) -> None:
    reader = read(render(sample_doc(200), SheetOptions(back_offset_mm=offset)))
    width = float(reader.pages[0].mediabox.width)
    offset_pt = (offset[0] * MM, offset[1] * MM)
    pages = [sides(page) for page in reader.pages]
    checked = 0
    for (fronts, backs), (next_fronts, next_backs) in zip(pages, pages[1:], strict=False):
        if fronts and not backs:
            assert next_backs and not next_fronts
            checked += assert_mirrored(fronts, next_backs, width, offset_pt)
    # 200 counters and the two calibration crosses
    assert checked == 202


def test_gutter_fold_backs_mirror_about_the_fold_in_the_pdf() -> None:
    reader = read(
        render(sample_doc(120), SheetOptions(duplex="gutter-fold", back_offset_mm=(3.0, 3.0)))
    )
    width = float(reader.pages[0].mediabox.width)
    checked = sum(
        assert_mirrored(*sides(page), width, (0.0, 0.0)) for page in reader.pages if faces(page)
    )
    assert checked == 120


def fonts_of(resources: Any, seen: set[int]) -> Iterator[Any]:
    """Every font dictionary reachable from a resource dictionary, forms included."""
    for font in resources.get("/Font", {}).values():
        yield font.get_object()
    for xobject in resources.get("/XObject", {}).values():
        obj = xobject.get_object()
        if id(obj) in seen or "/Resources" not in obj:
            continue
        seen.add(id(obj))
        yield from fonts_of(obj["/Resources"].get_object(), seen)


def descriptor(font: Any) -> Any:
    """A font's descriptor (a composite font's: its descendant's)."""
    if font["/Subtype"] == "/Type0":
        font = font["/DescendantFonts"][0].get_object()
    assert "/FontDescriptor" in font, f"{font.get('/BaseFont')} has no descriptor: not embedded"
    return font["/FontDescriptor"].get_object()


def test_every_font_is_embedded(tmp_path: Path) -> None:
    # With the art package's faces this checks its fonts too; the placeholder faces of the
    # fallback use the sheets' own embedded fonts.
    paths = write_sheets(game("gcacw"), tmp_path, SheetOptions(lang="ja"))
    paths += write_sheets(game("tank_killers"), tmp_path / "tk")
    found = 0
    for path in paths:
        for page in PdfReader(path).pages:
            for font in fonts_of(page["/Resources"].get_object(), set()):
                desc = descriptor(font)
                assert "/FontFile2" in desc or "/FontFile3" in desc, font.get("/BaseFont")
                found += 1
    assert found


def test_japanese_text_is_extractable(tmp_path: Path) -> None:
    data = game("gcacw")
    (path,) = write_sheets(data, tmp_path, SheetOptions(lang="ja"))
    reader = PdfReader(path)
    sheets = reader.pages[0].extract_text()
    index = "".join(page.extract_text() for page in reader.pages[-4:])
    assert "戦力マーカー" in index
    assert "疲労マーカー" in index
    assert any("\u3040" <= char <= "\u9fff" for char in sheets)


def test_same_sources_give_identical_pdfs(tmp_path: Path) -> None:
    for name in ("napoleon", "tank_killers"):
        first = write_sheets(game(name), tmp_path / "a" / name)
        second = write_sheets(game(name), tmp_path / "b" / name)
        assert [p.name for p in first] == [p.name for p in second]
        for one, two in zip(first, second, strict=True):
            assert one.read_bytes() == two.read_bytes(), one.name


def test_which_files_each_game_gets(tmp_path: Path) -> None:
    assert [p.name for p in write_sheets(game("napoleon"), tmp_path / "n")] == ["blocks.pdf"]
    assert [p.name for p in write_sheets(game("tank_killers"), tmp_path / "t")] == ["cards.pdf"]
    both = write_sheets(game("asia_engulfed"), tmp_path / "a")
    assert [p.name for p in both] == ["counters.pdf", "blocks.pdf"]
    assert not list((tmp_path / "a").glob("*.tmp"))


def test_blocks_have_one_label_each_and_no_backs(tmp_path: Path) -> None:
    (path,) = write_sheets(game("napoleon"), tmp_path)
    reader = PdfReader(path)
    labels = [name for page in reader.pages for name, rects in faces(page).items() for _ in rects]
    assert len(labels) == 82
    assert all(name.startswith("cm.front.") for name in labels)


def test_cards_are_nine_to_an_a4_page_with_backs(tmp_path: Path) -> None:
    (path,) = write_sheets(game("tank_killers"), tmp_path, SheetOptions(index=False))
    reader = PdfReader(path)
    fronts, backs = sides(reader.pages[0])
    assert sum(len(c) for c in fronts.values()) == 9
    assert not backs
    total = sum(c.copies for c in game("tank_killers").cards)
    # front and back page per sheet, then the calibration pair
    assert len(reader.pages) == 2 * -(-total // 9) + 2


def test_index_lists_every_copy() -> None:
    doc = sample_doc(200)
    reader = read(render(doc, SheetOptions()))
    text = reader.pages[-1].extract_text()
    for piece in doc.pieces:
        assert piece.id in text
    assert "R1 C1" in text


def test_a_warm_rebuild_equals_a_cold_build(mini: Path, tmp_path: Path) -> None:
    """Forms, pages and the index come from the cache on a rebuild; after a change the PDF is
    byte for byte the one a build from scratch writes, and unchanged faces were not drawn."""
    from tests.conftest import replace_in

    def sheets(out: Path, cache: Path) -> bytes:
        data = load_game(mini).game
        assert data is not None
        (path,) = write_sheets(data, out, SheetOptions(), cache_dir=cache)
        return path.read_bytes()

    first = sheets(tmp_path / "a", tmp_path / "cache")
    assert sheets(tmp_path / "a", tmp_path / "cache") == first
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm = sheets(tmp_path / "a", tmp_path / "cache")
    cold = sheets(tmp_path / "b", tmp_path / "fresh")
    assert warm == cold != first
    assert "2nd Infantry Regiment" in "".join(p.extract_text() for p in read(warm).pages)
