"""A scenario picture on its setup card in charts.pdf: each board as an image XObject (defined
once per document, shared by every card of that map), the pieces, counts and lists over it as
vector paths and text (the overlay drawing, its faces as forms, as the charts draw counters)."""

from __future__ import annotations

import hashlib
import math
import zlib
from dataclasses import dataclass
from typing import Any, cast

from PIL import Image

from compiler.backends.art.colours import RGB
from compiler.backends.charts.pages import Placed, room
from compiler.backends.pdf.content import Canvas, drawing_form
from compiler.backends.pdf.document import Box as BoxPt
from compiler.backends.pdf.document import (
    Content,
    PdfDocument,
    decode_content,
    encode_content,
)
from compiler.backends.pdf.syntax import name as pdf_name
from compiler.backends.pdf.syntax import num
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.scenepics import Scene, picture_key, scenario_scene
from compiler.backends.sheets.options import SheetOptions
from compiler.model.charts import Chart
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario

SETUP_PREFIX = "setup-"
"""The player-aids template names a scenario's setup card `setup-<scenario id>`."""
FRAME: RGB = (90, 90, 90)
DPI = 200
"""Board images are printed at this resolution (the pieces over them are vector)."""
PAGE_SHARE = 0.35
"""A picture takes at most this share of a page's height (narrower when its boards are tall),
so that it fits beside or under its card's table."""


@dataclass(frozen=True)
class Picture:
    """A scenario picture to place: its size in points at scale 1 (the width between a
    portrait page's margins; the pages shrink it onto a page of its own when it is taller than
    one), and what it shows: its boards' images at the picture's resolution with their panels
    (top, width, height in the picture's pixels), and the overlay (pieces, counts, names) as
    one form drawn `scene_height` pixels tall."""

    width: float
    height: float
    rows: int
    columns: int
    """The part of the picture shown, in its pixels: its boards (the reinforcements and decks
    are tables of the card's own)."""
    panels: tuple[tuple[int, int, int], ...]
    boards: tuple[Image.Image, ...]
    scene_height: int
    overlay: tuple[str, Content, BoxPt]
    landscape: bool = False


def setup_scenario(game: GameData, chart: Chart) -> Scenario | None:
    """The scenario whose setup card `chart` is, if it is one."""
    if not chart.id.startswith(SETUP_PREFIX):
        return None
    wanted = chart.id[len(SETUP_PREFIX) :]
    return next((s for s in game.scenarios if s.id == wanted), None)


def setup_scenarios(game: GameData, charts: list[Chart]) -> list[Scenario]:
    """The scenarios whose setup cards are among `charts`, in order."""
    return [s for chart in charts if (s := setup_scenario(game, chart)) is not None]


def setup_picture(
    game: GameData, chart: Chart, options: SheetOptions, cache: RenderCache | None = None
) -> Picture | None:
    """The picture to print after a setup card's table; None for any other chart or when the
    scenario puts nothing on a board. With `cache`, a picture made before (same picture key,
    same page size) is read back instead of drawn: charts.pdf is put together again whenever
    a chart changes, mostly with the same pictures."""
    scenario = setup_scenario(game, chart)
    if scenario is None:
        return None
    key = digest_key(
        "setup-picture", picture_key(game, scenario, options.lang), repr(options.page_pt)
    )
    found = cache.get(key) if cache is not None else None
    if found is not None:
        return _decoded(found)
    made = _picture(scenario_scene(game, scenario, options.lang, cache), options)
    if cache is not None:
        cache.put(key, _encoded(made))
    return made


def _picture(scene: Scene, options: SheetOptions) -> Picture | None:
    if not scene.panels:
        return None
    room_width, room_height = room(options.page_pt, False)
    rows = scene.panels[-1].top + scene.panels[-1].height  # the lists are tables of their own
    columns = max(panel.width for panel in scene.panels)
    height = min(room_width * rows / columns, PAGE_SHARE * room_height)
    panels = tuple((panel.top, panel.width, panel.height) for panel in scene.panels)
    overlay = drawing_form(scene.overlay)
    return Picture(
        height * columns / rows, height, rows, columns, panels, scene.boards, scene.height, overlay
    )


def _encoded(picture: Picture | None) -> bytes:
    """A picture as cache bytes (b"" for none): the overlay form's content, then the rest, the
    boards' pixels compressed."""
    if picture is None:
        return b""
    name, content, box = picture.overlay
    boards = tuple(
        (board.width, board.height, zlib.compress(board.convert("RGB").tobytes(), 1))
        for board in picture.boards
    )
    sizes = (picture.width, picture.height, picture.rows, picture.columns, picture.scene_height)
    return encode_content(content, name, box, sizes, picture.panels, boards)


def _decoded(data: bytes) -> Picture | None:
    """The inverse of _encoded."""
    if not data:
        return None
    content, extra = decode_content(data)
    name, box, sizes, panels, boards = cast(tuple[Any, ...], extra)
    width, height, rows, columns, scene_height = sizes
    images = tuple(
        Image.frombytes("RGB", (w, h), zlib.decompress(pixels)) for w, h, pixels in boards
    )
    return Picture(
        float(width),
        float(height),
        int(rows),
        int(columns),
        tuple((int(top), int(w), int(h)) for top, w, h in panels),
        images,
        int(scene_height),
        (str(name), content, (box[0], box[1], box[2], box[3])),
    )


def show_picture(pdf: PdfDocument, canvas: Canvas, picture: Picture, where: Placed) -> list[str]:
    """Draw the picture at its place on the page; the names of the images the page shows."""
    width, height = picture.width * where.scale, picture.height * where.scale
    per_pixel = width / picture.columns
    canvas.save()
    canvas.op(where.x, where.y, width, height, "re W n")  # the boards only
    top = where.y + height  # the picture's top row on the page
    names = []
    for (panel_top, panel_width, panel_height), board in zip(
        picture.panels, picture.boards, strict=True
    ):
        w, h = panel_width * per_pixel, panel_height * per_pixel
        shown = _printed(board, w, h)
        pixels = shown.tobytes()
        image = f"board.{hashlib.sha1(pixels).hexdigest()[:16]}"
        if image not in pdf.forms:
            pdf.add_image(image, shown.size, pixels)
        names.append(image)
        tag = pdf_name(image).decode("ascii")
        bottom = top - (panel_top + panel_height) * per_pixel
        canvas.parts.append(f"q {num(w)} 0 0 {num(h)} {num(where.x)} {num(bottom)} cm {tag} Do Q")
    full = picture.scene_height * per_pixel
    canvas.show_form(picture.overlay, where.x, top - full, full)
    canvas.restore()
    canvas.save()
    canvas.stroke_colour(FRAME)
    canvas.line_width(0.5)
    canvas.rect(where.x, where.y, width, height, "S")
    canvas.restore()
    return names


def _printed(board: Image.Image, width_pt: float, height_pt: float) -> Image.Image:
    """The board image at `DPI` where it is printed `width_pt` × `height_pt` (never larger
    than the picture's own board image)."""
    size = (math.ceil(width_pt * DPI / 72), math.ceil(height_pt * DPI / 72))
    if size[0] >= board.width or size[1] >= board.height:
        return board
    return board.resize(size, Image.Resampling.LANCZOS)
