"""A scenario picture on its setup card in charts.pdf: each board as an image XObject (defined
once per document, shared by every card of that map), the pieces, counts and lists over it as
vector paths and text (the overlay drawing, its faces as forms, as the charts draw counters)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from PIL import Image

from compiler.backends.art.colours import RGB
from compiler.backends.charts.pages import Placed, room
from compiler.backends.pdf.content import Canvas, draw
from compiler.backends.pdf.document import PdfDocument
from compiler.backends.pdf.syntax import name as pdf_name
from compiler.backends.pdf.syntax import num
from compiler.backends.scenepics import Scene, scenario_scene
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
    """A scenario picture to place: its scene and its size in points at scale 1 (the width
    between a portrait page's margins; the pages shrink it onto a page of its own when it is
    taller than one)."""

    scene: Scene
    width: float
    height: float
    rows: int
    columns: int
    """The part of the picture shown, in its pixels: its boards (the reinforcements and decks
    are tables of the card's own)."""
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


def setup_picture(game: GameData, chart: Chart, options: SheetOptions) -> Picture | None:
    """The picture to print after a setup card's table; None for any other chart or when the
    scenario puts nothing on a board."""
    scenario = setup_scenario(game, chart)
    if scenario is None:
        return None
    scene = scenario_scene(game, scenario, options.lang)
    if not scene.panels:
        return None
    room_width, room_height = room(options.page_pt, False)
    rows = scene.panels[-1].top + scene.panels[-1].height  # the lists are tables of their own
    columns = max(panel.width for panel in scene.panels)
    height = min(room_width * rows / columns, PAGE_SHARE * room_height)
    return Picture(scene, height * columns / rows, height, rows, columns)


def show_picture(pdf: PdfDocument, canvas: Canvas, picture: Picture, where: Placed) -> list[str]:
    """Draw the picture at its place on the page; the names of the images the page shows."""
    scene = picture.scene
    width, height = picture.width * where.scale, picture.height * where.scale
    per_pixel = width / picture.columns
    canvas.save()
    canvas.op(where.x, where.y, width, height, "re W n")  # the boards only
    top = where.y + height  # the picture's top row on the page
    names = []
    for panel, board in zip(scene.panels, scene.boards, strict=True):
        w, h = panel.width * per_pixel, panel.height * per_pixel
        shown = _printed(board, w, h)
        pixels = shown.tobytes()
        image = f"board.{hashlib.sha1(pixels).hexdigest()[:16]}"
        if image not in pdf.forms:
            pdf.add_image(image, shown.size, pixels)
        names.append(image)
        tag = pdf_name(image).decode("ascii")
        bottom = top - (panel.top + panel.height) * per_pixel
        canvas.parts.append(f"q {num(w)} 0 0 {num(h)} {num(where.x)} {num(bottom)} cm {tag} Do Q")
    full = scene.height * per_pixel
    draw(canvas, scene.overlay, where.x, top - full, full)
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
