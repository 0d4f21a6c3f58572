"""Piece images: every seed game's units render at the right size, deterministically, and fit."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from compiler.backends.art.display import Drawing
from compiler.backends.art.fonts import text_width
from compiler.backends.art.pieces import (
    block_faces,
    card_face,
    counter_faces,
    deck_back,
    marker_faces,
    png_bytes,
    step_overlay,
)
from compiler.backends.art.raster import rasterize
from compiler.backends.art.symbols import SYMBOLS, symbol_ops
from compiler.backends.art.textfit import Room, fit, wrap
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import seed_game as game

SOURCES = Path(__file__).parent.parent / "sources"
UNIT_GAMES = ("gcacw", "napoleon", "asia_engulfed", "twilight_in_the_east")
SIZE = 64


def is_block(data: GameData, unit: Unit) -> bool:
    """Whether the unit's type is a block."""
    unit_type = data.unit_type(unit.type)
    return unit_type is not None and unit_type.shape == "block"


def check_square(image: Image.Image, size: int = SIZE) -> None:
    """An image of size × size: RGB when opaque, RGBA when it has transparent parts."""
    assert image.mode in ("RGB", "RGBA")
    assert image.size == (size, size)


@pytest.mark.parametrize("name", UNIT_GAMES)
def test_every_unit_renders(name: str) -> None:
    data = game(name)
    assert data.units
    for unit in data.units:
        if is_block(data, unit):
            label, back = block_faces(data, unit, SIZE)
            check_square(label)
            check_square(back)
            continue
        front, reverse = counter_faces(data, unit, SIZE)
        check_square(front)
        assert (reverse is None) == (unit.back is None), unit.id
        if reverse is not None:
            check_square(reverse)


def test_counters_render_at_double_size_and_in_japanese() -> None:
    data = game("twilight_in_the_east")
    unit = data.units[0]
    front, back = counter_faces(data, unit, 128, lang="ja")
    check_square(front, 128)
    assert back is not None
    check_square(back, 128)


def test_blocks_show_strength_and_hide_it_on_the_back() -> None:
    data = game("napoleon")
    unit = next(u for u in data.units if u.front.get("cv") == 4)
    label, back = block_faces(data, unit, SIZE)
    assert len(back.getcolors(SIZE * SIZE) or []) < len(label.getcolors(SIZE * SIZE) or [])


NAPOLEON_BLUE, GUARD_GREEN, BRITISH_RED, PRUSSIAN_GREY = (
    (0x2F, 0x4F, 0x9F),
    (0x2E, 0x7D, 0x32),
    (0xB8, 0x28, 0x2E),
    (0x8C, 0x8C, 0x8C),
)


@pytest.mark.parametrize(
    ("nationality", "guard", "frame", "centre"),
    [
        ("french", False, NAPOLEON_BLUE, NAPOLEON_BLUE),
        ("french", True, NAPOLEON_BLUE, GUARD_GREEN),
        ("prussian", False, PRUSSIAN_GREY, NAPOLEON_BLUE),
        ("british", False, BRITISH_RED, BRITISH_RED),
        ("dutch", False, BRITISH_RED, NAPOLEON_BLUE),
    ],
)
def test_napoleon_label_colours_follow_the_rules_table(
    nationality: str, guard: bool, frame: tuple[int, int, int], centre: tuple[int, int, int]
) -> None:
    """Rules §2.1: label background / centre per nationality, the Guard's centre green."""
    data = game("napoleon")
    unit = next(
        u for u in data.units if u.nationality == nationality and ("guard" in u.tags) == guard
    )
    label = block_faces(data, unit, 128)[0].convert("RGB")
    # a point on the label's frame between two edge pips; the centre panel (0.2-0.8 of the
    # face) is mostly its colour, around the symbol and the name
    assert label.getpixel((14, 40)) == frame
    panel = label.crop((28, 28, 100, 100))
    count, colour = max(panel.getcolors(72 * 72) or [])
    assert colour == centre and count > 72 * 72 // 2


def test_rendering_is_deterministic() -> None:
    data = game("gcacw")
    unit = next(u for u in data.units if u.back is not None)
    first = counter_faces(data, unit, SIZE)
    second = counter_faces(data, unit, SIZE)
    assert first[1] is not None and second[1] is not None
    assert png_bytes(first[0]) == png_bytes(second[0])
    assert png_bytes(first[1]) == png_bytes(second[1])
    blocks = game("napoleon")
    assert png_bytes(block_faces(blocks, blocks.units[1])[0]) == png_bytes(
        block_faces(blocks, blocks.units[1])[0]
    )


def test_png_bytes_drop_metadata() -> None:
    image = step_overlay(2, SIZE)
    image.info["comment"] = "build 42"
    encoded = png_bytes(image)
    assert encoded.startswith(b"\x89PNG")
    assert b"build 42" not in encoded
    assert encoded == png_bytes(step_overlay(2, SIZE))


def test_unknown_symbol_raises() -> None:
    with pytest.raises(ValueError, match="bogus"):
        symbol_ops((0.0, 0.0, 0.6, 0.4), "bogus", (0, 0, 0))


def test_every_known_symbol_draws() -> None:
    for symbol in SYMBOLS:
        ops = symbol_ops((0.1, 0.2, 0.9, 0.7), symbol, (0, 0, 0))
        image = rasterize(Drawing(1.0, tuple(ops)), 40)
        assert (image.getbbox() is None) == (symbol == "none"), symbol


@pytest.mark.parametrize(
    "text",
    [
        "British Pacific Fleet carriers (Illustrious, Indefatigable, Victorious)",
        "Guard Light Cavalry (Lefebvre-Desnouettes)",
        "W" * 40,
        "第2戦隊 (扶桑・山城・伊勢・日向)",
        "",
    ],
)
@pytest.mark.parametrize("max_width", [0.15, 0.6, 0.9])
def test_fit_never_overflows(text: str, max_width: float) -> None:
    one = fit(text, Room(max_width, 0.3, 0.2, 0.09))
    assert all(text_width(line, one.height) <= max_width for line in one.lines)
    shown = "".join(one.lines)
    assert shown == text or shown.endswith("…") or shown == ""
    assert one.shortened == (shown != text)
    two = fit(text, Room(max_width, 0.3, 0.2, 0.09, max_lines=2))
    assert all(text_width(line, two.height) <= max_width for line in two.lines)
    assert len(two.lines) <= 2


def test_fit_keeps_short_text_at_the_start_size() -> None:
    fitted = fit("2-2", Room(0.9, 0.27, 0.27, 0.09, bold=True))
    assert fitted.lines == ("2-2",)
    assert fitted.height == 0.27
    assert not fitted.shortened


def test_markers_render() -> None:
    for name in ("gcacw", "twilight_in_the_east"):
        data = game(name)
        for marker in data.markers.values():
            front, back = marker_faces(data, marker, SIZE)
            check_square(front)
            assert (back is None) == (not marker.set.back.en)


def test_every_tank_killers_card_renders() -> None:
    data = game("tank_killers")
    assert data.cards
    for card in data.cards:
        image = card_face(data, card)
        assert image.mode in ("RGB", "RGBA") and image.size == (150, 210)
    for deck in data.decks:
        back = deck_back(data, deck, 126, 176)
        assert back.mode in ("RGB", "RGBA") and back.size == (126, 176)


def test_step_overlay_is_a_transparent_badge() -> None:
    image = step_overlay(3, SIZE)
    check_square(image)
    assert image.getpixel((2, SIZE - 2)) == (0, 0, 0, 0)
    box = image.getbbox()
    assert box is not None and box[0] > SIZE // 2


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA"])
@pytest.mark.parametrize("size", [(1, 1), (64, 64), (37, 19), (900, 3)])
def test_png_encoder_round_trips_every_pixel(mode: str, size: tuple[int, int]) -> None:
    noise = Image.effect_noise(size, 64).convert("L")
    bands = [noise.rotate(angle) for angle in (0, 90, 180, 270)][: len(mode)]
    image = Image.merge(mode, bands)
    decoded = Image.open(io.BytesIO(png_bytes(image)))
    decoded.load()
    assert decoded.mode == mode and decoded.size == size
    assert decoded.tobytes() == image.tobytes()


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("ANZAC戦隊", ["ANZAC戦隊"]),
        ("第10戦区", ["第10戦区"]),
        ("射程=PB", ["射程=PB"]),
    ],
)
def test_latin_runs_inside_japanese_stay_whole(text: str, lines: list[str]) -> None:
    assert wrap(text, 10.0, 0.1, False, "ja") == lines


def test_a_block_of_absurd_strength_is_drawn_at_once_with_a_warning() -> None:
    from dataclasses import replace

    from compiler.backends.art.counters import MAX_PIPS, block_drawing
    from compiler.backends.art.display import Ellipse

    data = game("napoleon")
    unit = replace(data.units[0], front={"cv": 9223372036854775808})
    drawing = block_drawing(data, unit, "label")
    assert any("more pips than a block edge holds" in w for w in drawing.warnings)
    pips = [op for op in drawing.ops if isinstance(op, Ellipse)]
    assert len(pips) <= 4 * MAX_PIPS
