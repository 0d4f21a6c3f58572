"""Schematic board images drawn from the map data, on the same geometry VASSAL's grids use."""

from __future__ import annotations

import math
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from compiler.backends.art.schematic import box_labels, schematic
from compiler.backends.art.schematic_draw import draw_labels, draw_links, draw_towns
from compiler.backends.vassal.geometry import HexBlock, MapLayout
from compiler.model.gamedata import GameData

PAPER = (244, 238, 222)
INK = (40, 40, 40)
GRID = (120, 110, 90)
WATER = (120, 160, 215)
BOX_FILL = (255, 252, 240)
HEXSIDE_COLOURS = {
    "river": (40, 90, 200),
    "major_river": (20, 60, 180),
    "creek": (90, 140, 220),
    "road": (150, 60, 30),
    "railroad": (20, 20, 20),
    "bridge": (90, 60, 30),
}
FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
)


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(FONT_PATHS[1 if bold else 0], size)
    except OSError:
        return ImageFont.load_default(size)


def _rgb(colour: str, fallback: tuple[int, int, int] = PAPER) -> tuple[int, int, int]:
    if len(colour) == 7 and colour.startswith("#"):
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    return fallback


def render_board(game: GameData, layout: MapLayout, art: Image.Image | None = None) -> Image.Image:
    """The board of one map: hexes (terrain, hexsides, names, ids), areas, roads and towns —
    or the map's own art — then the box strip."""
    image = Image.new("RGB", (layout.width, layout.height), PAPER)
    draw = ImageDraw.Draw(image)
    if art is not None:
        image.paste(art, (0, 0))
        _draw_boxes(draw, layout)
        return image
    paint_board(game, layout, draw)
    return image


def paint_board(game: GameData, layout: MapLayout, draw: ImageDraw.ImageDraw) -> None:
    """A board drawn from the data (no art) on `draw`: hexes, areas, roads and towns, boxes.
    Also drawn band by band for large boards (compiler/backends/art/board.py)."""
    colours = {t.id: _rgb(t.colour) for t in game.game.terrain}
    for block in layout.hex_blocks:
        _draw_hexes(draw, game, layout, block, colours)
    _draw_schematic(draw, layout, colours)
    _draw_boxes(draw, layout)


def _draw_hexes(
    draw: ImageDraw.ImageDraw,
    game: GameData,
    layout: MapLayout,
    block: HexBlock,
    colours: dict[str, tuple[int, int, int]],
) -> None:
    places = game.places.get(layout.game_map.id, {})
    small, label = _font(max(8, int(block.dy / 6))), _font(max(9, int(block.dy / 5)), bold=True)
    for sheet, col, row in block.hexes():
        hex_id = block.numbering.name(sheet, col, row)
        place = places.get(hex_id)
        fill = colours.get(place.terrain if place else "", PAPER)
        draw.polygon(block.corners(col, row), fill=fill, outline=GRID)
        cx, cy = block.centre(col, row)
        draw.text((cx, cy - block.dy * 0.32), hex_id, font=small, fill=INK, anchor="mm")
        if place is not None and place.name.en and place.name.en != hex_id:
            draw.text(
                (cx, cy + block.dy * 0.18), place.name.en[:14], font=label, fill=INK, anchor="mm"
            )
    grid = layout.game_map.grid
    for side in grid.hexsides if grid is not None else ():
        _draw_hexside(draw, layout, block, side.between, side.feature, colours)
    draw.text(
        (block.x0, block.top + 2),
        block.name if len(block.sheets) == 1 else "",
        font=label,
        fill=INK,
    )


def _draw_hexside(
    draw: ImageDraw.ImageDraw,
    layout: MapLayout,
    block: HexBlock,
    between: tuple[str, str],
    feature: str,
    colours: dict[str, tuple[int, int, int]],
) -> None:
    a, b = layout.positions.get(between[0]), layout.positions.get(between[1])
    if a is None or b is None:
        return
    dx, dy = b[0] - a[0], b[1] - a[1]
    distance = math.hypot(dx, dy)
    if distance == 0 or distance > block.dy * 1.2:
        return
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    half = block.dy / math.sqrt(3) / 2
    nx, ny = -dy / distance * half, dx / distance * half
    colour = HEXSIDE_COLOURS.get(feature, colours.get(feature, (60, 60, 160)))
    draw.line(
        [(mx - nx, my - ny), (mx + nx, my + ny)], fill=colour, width=max(3, int(block.dy / 10))
    )


def _draw_schematic(
    draw: ImageDraw.ImageDraw, layout: MapLayout, colours: dict[str, tuple[int, int, int]]
) -> None:
    """Areas (the earlier of two overlapping areas on top, as VASSAL names a point after the
    first zone holding it), links, towns and labels placed clear of each other."""
    game_map = layout.game_map
    if not layout.areas and not game_map.towns:
        return
    plan = schematic(layout)
    areas = {a.id: a for a in game_map.areas}
    fills: dict[str, tuple[int, int, int]] = {}
    for zone in layout.areas:
        area = areas[zone.id]
        fill = WATER if area.kind == "sea" else colours.get(area.terrain, (225, 215, 185))
        if area.kind in ("port_box", "island_box"):
            fill = (250, 250, 240)
        fills[zone.id] = fill
    for zone in reversed(layout.areas):
        draw.polygon(list(zone.polygon), fill=fills[zone.id], outline=INK, width=2)
    draw_links(draw, plan.links, roads=bool(game_map.towns))
    towns = []
    for town in game_map.towns:
        ring = (190, 40, 40) if "inside-france" in town.zones else INK
        x, y = layout.positions[town.id]
        towns.append(((float(x), float(y)), ring))
    draw_towns(draw, towns)
    draw_labels(draw, plan.labels, fills)


def _draw_boxes(draw: ImageDraw.ImageDraw, layout: MapLayout) -> None:
    if not layout.boxes:
        return
    draw.line(
        [(0, layout.content_bottom + 4), (layout.width, layout.content_bottom + 4)],
        fill=GRID,
        width=2,
    )
    for zone in layout.boxes:
        draw.rectangle(zone.rect, fill=BOX_FILL, outline=INK, width=2)
    draw_labels(draw, box_labels(layout), {"box": BOX_FILL})
