"""A scenario picture on its setup card in charts.pdf: each board as an image XObject (defined
once per document, shared by every card of that map), the pieces, counts and lists over it as
vector paths and text (the overlay drawing, its faces as forms, as the charts draw counters)."""

from __future__ import annotations

import hashlib
import marshal
import math
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, cast

from PIL import Image

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import Drawing, Inset, Op
from compiler.backends.art.pixels import raw_bytes
from compiler.backends.charts.pages import Placed, room
from compiler.backends.keptrecord import all_of_type, unmarshalled
from compiler.backends.pdf.content import (
    FORM_HEIGHT,
    Canvas,
    Form,
    KeptForms,
    drawing_form,
    read_form,
)
from compiler.backends.pdf.document import Box as BoxPt
from compiler.backends.pdf.document import (
    Content,
    PdfDocument,
    compress,
    decode_content,
    encode_content,
)
from compiler.backends.pdf.syntax import name as pdf_name
from compiler.backends.pdf.syntax import num
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.scenepics import (
    KeyedFace,
    Scene,
    face_key,
    face_prefix,
    picture_key,
    scenario_scene,
)
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
PRINTED_LOOK = "lanczos-flate"
"""How a board's printed image is made (resampled with LANCZOS, compressed by
pdf.document.compress): part of its cache key, to be changed with either."""


@dataclass(frozen=True)
class Board:
    """A board image of a picture: its size in pixels and a digest of its pixels (which, with
    the printed size, keys its printed image in the cache), and its RGB pixels when made in
    this build. A picture's cache entry holds its boards' sizes and digests only: the pixels
    are an entry of their own (`key`), written once for every picture of the board (a warm
    build that draws a picture again, one piece moved, neither compresses its boards again
    nor reads them with the picture), read only when a board is printed at a size the cache
    does not hold."""

    size: tuple[int, int]
    digest: str
    raw: bytes | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, image: Image.Image) -> Board:
        raw = raw_bytes(image.convert("RGB"))
        return cls(image.size, hashlib.sha1(raw).hexdigest(), raw)

    @property
    def key(self) -> str:
        """The cache key of the board's pixels (compressed)."""
        return digest_key("picture-board", self.digest)

    def image(self, cache: RenderCache | None, again: Callable[[], Image.Image]) -> Image.Image:
        """The board's pixels as an RGB image: its own, else from `cache`, else (none there, or
        damaged) drawn `again`."""
        raw = self.raw
        if raw is None and cache is not None:
            raw = _pixels(cache.get(self.key), self.size)
        if raw is None:
            return again().convert("RGB")
        return Image.frombytes("RGB", self.size, raw)

    def keep(self, cache: RenderCache) -> None:
        """Put the board's pixels in `cache` unless it holds them (marked used either way)."""
        if cache.holds(self.key):
            cache.keep((self.key,))
        elif self.raw is not None:
            cache.put(self.key, zlib.compress(self.raw, 1))


def _pixels(data: bytes | None, size: tuple[int, int]) -> bytes | None:
    """A board's RGB pixels from their cache entry; None when there is none or it is not
    pixels of that size."""
    if data is None:
        return None
    try:
        raw = zlib.decompress(data)
    except zlib.error:
        return None
    return raw if len(raw) == size[0] * size[1] * 3 else None


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
    boards: tuple[Board, ...]
    scene_height: int
    overlay: tuple[str, Content, BoxPt]
    landscape: bool = False
    forms: tuple[str, ...] = ()
    """The cache entries of the overlay's faces as forms (pdf.content.KeptForms), and of its
    scene's faces' widths and scaled boards (Scene.support), kept as long as the picture is:
    a picture drawn again reads back the faces it still shows, without drawing the others."""
    scene: Callable[[], Scene] | None = field(default=None, compare=False, repr=False)
    """The picture's scene drawn again (for a board whose pixels are neither the board's own
    nor in the cache), when the picture was read back from the cache."""

    def board(self, index: int) -> Image.Image:
        """Board `index`'s pixels from the picture's scene, drawn again."""
        assert self.scene is not None  # a picture read back has one; a board made has raw
        return self.scene().boards[index]


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
        "setup-picture-4", picture_key(game, scenario, options.lang), repr(options.page_pt)
    )
    found = cache.get(key) if cache is not None else None
    if found is not None:
        try:
            picture = _decoded(found)
        except (ValueError, TypeError, KeyError):
            pass  # not a picture (damaged cache data): drawn again
        else:
            if cache is not None and picture is not None:
                cache.keep(picture.forms)
                cache.keep(board.key for board in picture.boards)
                scene = partial(scenario_scene, game, scenario, options.lang, cache)
                picture = replace(picture, scene=scene)
            return picture
    made = _picture(scenario_scene(game, scenario, options.lang, cache), options, cache)
    if cache is not None:
        cache.put(key, _encoded(made))
        for board in made.boards if made is not None else ():
            board.keep(cache)
    return made


def _picture(
    scene: Scene, options: SheetOptions, cache: RenderCache | None = None
) -> Picture | None:
    """The scene as a picture for a portrait page of `options`; its faces' forms kept in
    `cache` when given."""
    if not scene.panels:
        return None
    room_width, room_height = room(options.page_pt, False)
    rows = scene.panels[-1].top + scene.panels[-1].height  # the lists are tables of their own
    columns = max(panel.width for panel in scene.panels)
    height = min(room_width * rows / columns, PAGE_SHARE * room_height)
    panels = tuple((panel.top, panel.width, panel.height) for panel in scene.panels)
    overlay, kept = overlay_form(scene.overlay, cache)
    boards, board_keys = _boards(scene, cache)
    return Picture(
        height * columns / rows,
        height,
        rows,
        columns,
        panels,
        boards,
        scene.height,
        overlay,
        forms=(*kept, *board_keys, *scene.support[1:]) if cache is not None else (),
        scene=partial(_same, scene),
    )


def _same(scene: Scene) -> Scene:
    return scene


def _boards(scene: Scene, cache: RenderCache | None) -> tuple[tuple[Board, ...], list[str]]:
    """The scene's boards as a picture's (Board), and the cache entries that told them: each
    board's size and digest are kept in `cache` under its scaled pixels' key (Scene.support),
    so that a picture drawn again (a piece changed) neither unpacks its boards' pixels nor
    digests them, when the cache holds their pixels too (Board.key) for printing them at
    another size."""
    scaled = scene.support[2:]
    if cache is None or len(scaled) != len(scene.board_makers):
        return tuple(Board.of(board) for board in scene.boards), []
    boards: list[Board] = []
    keys: list[str] = []
    for index, board_key in enumerate(scaled):
        key = digest_key("picture-board-digest", board_key)
        board = _known_board(unmarshalled(cache.get(key)))
        if board is None or not cache.holds(board.key):
            board = Board.of(scene.board_makers[index]())
            cache.put(key, marshal.dumps((*board.size, board.digest)))
        boards.append(board)
        keys.append(key)
    return tuple(boards), keys


def _known_board(found: object) -> Board | None:
    """A board's size and digest as _boards keeps them; None when they are not."""
    if type(found) is not tuple or len(found) != 3:
        return None
    width, height, digest = found
    if type(width) is not int or type(height) is not int or type(digest) is not str:
        return None
    return Board((width, height), digest)


RUN_BREAK = 24
"""The overlay is cut into runs of ops, each a form of its own: a run ends after an op whose
key's CRC-32 is a multiple of this (so where runs end depends on the ops around, not on how
many came before: a piece changed, added or removed changes the run holding it, not the
runs after it)..."""
RUN_MOST = 96
"""...or when it holds this many ops."""


def overlay_form(overlay: Drawing, cache: RenderCache | None) -> tuple[Form, list[str]]:
    """The overlay as a form showing its runs (see RUN_BREAK), each a form of its own, and
    the cache entries it used: each run's form is kept in `cache` under a digest of its ops'
    keys (a keyed face by its look key and box, not drawn for it), so that a picture drawn
    again because one piece changed draws the run that holds the piece only and reads the
    others back. A build without a cache cuts the same runs: the same bytes."""
    canvas = Canvas()
    kept: list[str] = []
    for ops, keys in _runs(overlay.ops):
        (name, content, box), used = _run_form(overlay.width, ops, keys, cache)
        canvas.nested[name] = (content, box)
        canvas.parts.append(f"{pdf_name(name).decode('ascii')} Do")
        kept.extend(used)
    if cache is not None:
        cache.keep(kept)  # at once: a run read back does not read its faces' forms
    content = canvas.content()
    digest = hashlib.sha1(content.stream + repr(sorted(content.chars.items())).encode())
    box = (0.0, 0.0, overlay.width * FORM_HEIGHT, FORM_HEIGHT)
    return (f"inset.{digest.hexdigest()[:16]}", content, box), kept


BOX = struct.Struct("<4d")
"""A face's box in an op's key (packed: repr of its floats would cost more than the rest)."""


def _op_key(op: Op) -> bytes:
    """What decides how an overlay op is drawn: a keyed face's look key and box (its drawing
    not made for it), else the op's repr (plain frozen records); each ends with a newline."""
    if isinstance(op, Inset) and isinstance(op.drawing, KeyedFace):
        return b"face " + op.drawing.key.encode("utf-8") + BOX.pack(*op.box).hex().encode() + b"\n"
    return repr(op).encode("utf-8") + b"\n"


def _runs(ops: Sequence[Op]) -> list[tuple[list[Op], list[bytes]]]:
    """The overlay's ops cut into runs (see RUN_BREAK), each with its ops' keys."""
    runs: list[tuple[list[Op], list[bytes]]] = []
    run: list[Op] = []
    keys: list[bytes] = []
    for op in ops:
        key = _op_key(op)
        run.append(op)
        keys.append(key)
        if len(run) >= RUN_MOST or zlib.crc32(key) % RUN_BREAK == 0:
            runs.append((run, keys))
            run, keys = [], []
    if run:
        runs.append((run, keys))
    return runs


def _run_form(
    width: float, ops: list[Op], keys: list[bytes], cache: RenderCache | None
) -> tuple[Form, list[str]]:
    """A run of the overlay as a form the overlay's size, and the cache entries it used (its
    own, and its faces' forms, which a run drawn again in a later build reads back): read
    from `cache` when a build before made the same run, else drawn (its faces made forms by
    KeyedForms)."""
    drawing = Drawing(width, tuple(ops))
    if cache is None:
        return drawing_form(drawing), []
    joined = hashlib.sha1(b"".join(keys)).hexdigest()
    key = digest_key("scene-run", face_prefix(), joined, repr(width))
    found = _read_run(cache.get(key))
    if found is not None:
        form, faces = found
        return form, [key, *faces]  # the faces marked used with the others (overlay_form)
    forms = KeyedForms(cache)
    form = drawing_form(drawing, forms)
    cache.put(key, encode_content(form[1], form[0], form[2], tuple(forms.keys)))
    return form, [key, *forms.keys]


def _read_run(data: bytes | None) -> tuple[Form, list[str]] | None:
    """A run's form and its faces' cache keys read back from its entry; None when there is
    none or it is not a run's."""
    if data is None:
        return None
    try:
        content, extra = decode_content(data)
        form_name, box, faces = cast(tuple[Any, ...], extra)
        x0, y0, x1, y1 = cast(tuple[float, float, float, float], box)
        form = (str(form_name), content, (float(x0), float(y0), float(x1), float(y1)))
        if type(faces) is not tuple or not all_of_type(faces, str):
            return None
        return form, list(faces)
    except (TypeError, ValueError):
        return None


class KeyedForms(KeptForms):
    """KeptForms that keep a keyed face (scenepics_draw.KeyedFace) under its look key: a warm
    build reads back the forms of the faces that did not change without drawing them or
    spelling them out for a key (other drawings, the stack counts, as KeptForms does)."""

    def __init__(self, cache: RenderCache) -> None:
        super().__init__(cache)
        self._by_key: dict[str, Form] = {}

    def __call__(self, drawing: Drawing) -> Form:
        if not isinstance(drawing, KeyedFace):
            return super().__call__(drawing)
        key = face_key("scene-form", drawing)
        form = self._by_key.get(key)
        if form is None:
            form = read_form(self.cache.get(key))
            if form is None:
                form = drawing_form(drawing.drawn())
                self.cache.put(key, encode_content(form[1], form[0], form[2]))
            self._by_key[key] = form
            self.keys.append(key)
        return form


def _encoded(picture: Picture | None) -> bytes:
    """A picture as cache bytes (b"" for none): the overlay form's content, then the rest, each
    board by its size and digest (Board)."""
    if picture is None:
        return b""
    name, content, box = picture.overlay
    boards = tuple((*board.size, board.digest) for board in picture.boards)
    sizes = (picture.width, picture.height, picture.rows, picture.columns, picture.scene_height)
    return encode_content(content, name, box, sizes, picture.panels, boards, picture.forms)


def _decoded(data: bytes) -> Picture | None:
    """The inverse of _encoded; ValueError or TypeError when the bytes are not a picture."""
    if not data:
        return None
    content, extra = decode_content(data)
    name, box, sizes, panels, boards, forms = cast(tuple[Any, ...], extra)
    width, height, rows, columns, scene_height = sizes
    images = tuple(Board((int(w), int(h)), str(digest)) for w, h, digest in boards)
    return Picture(
        float(width),
        float(height),
        int(rows),
        int(columns),
        tuple((int(top), int(w), int(h)) for top, w, h in panels),
        images,
        int(scene_height),
        (str(name), content, (box[0], box[1], box[2], box[3])),
        forms=tuple(str(key) for key in forms),
    )


def show_picture(
    pdf: PdfDocument,
    canvas: Canvas,
    picture: Picture,
    where: Placed,
    cache: RenderCache | None = None,
) -> list[str]:
    """Draw the picture at its place on the page; the names of the images the page shows
    (each board's printed image read from `cache` when it holds it, see board_image)."""
    width, height = picture.width * where.scale, picture.height * where.scale
    per_pixel = width / picture.columns
    canvas.save()
    canvas.op(where.x, where.y, width, height, "re W n")  # the boards only
    top = where.y + height  # the picture's top row on the page
    names = []
    for index, ((panel_top, panel_width, panel_height), board) in enumerate(
        zip(picture.panels, picture.boards, strict=True)
    ):
        w, h = panel_width * per_pixel, panel_height * per_pixel
        again = partial(picture.board, index)
        image = board_image(pdf, board, printed_size(board.size, w, h), cache, again)
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


def printed_size(board: tuple[int, int], width_pt: float, height_pt: float) -> tuple[int, int]:
    """The size in pixels of a board image (of size `board`) printed `width_pt` × `height_pt`
    at `DPI`: never larger than the picture's own board image."""
    size = (math.ceil(width_pt * DPI / 72), math.ceil(height_pt * DPI / 72))
    if size[0] >= board[0] or size[1] >= board[1]:
        return board
    return size


def board_image(
    pdf: PdfDocument,
    board: Board,
    size: tuple[int, int],
    cache: RenderCache | None = None,
    again: Callable[[], Image.Image] | None = None,
) -> str:
    """The name of the board's image printed at `size` pixels, added to the document unless
    it holds it already (a map shown on several cards). Its name and compressed samples are
    kept in `cache` under the board's digest and the size: a warm build neither scales nor
    compresses a board again (the same bytes as made now). The board's pixels, when needed,
    are its own, or read from `cache`, or drawn `again` (a board read back with its picture
    has no pixels of its own)."""
    key = digest_key("printed-board", PRINTED_LOOK, board.digest, f"{size[0]}x{size[1]}")
    found = _printed_entry(cache.get(key)) if cache is not None else None
    if found is None:
        found = _printed(board.image(cache, again or _no_pixels), size)
        if cache is not None:
            cache.put(key, marshal.dumps(found))
    name, samples = found
    if name not in pdf.forms:
        pdf.add_compressed_image(name, size, samples)
    return name


def _no_pixels() -> Image.Image:
    raise ValueError("a board without pixels, none in the cache, and no way to draw it again")


def _printed(board: Image.Image, size: tuple[int, int]) -> tuple[str, bytes]:
    """A board's printed image: its name (from its pixels) and its samples compressed."""
    shown = board
    if size != board.size:
        shown = shown.resize(size, Image.Resampling.LANCZOS)
    pixels = raw_bytes(shown)
    return f"board.{hashlib.sha1(pixels).hexdigest()[:16]}", compress(pixels)


def _printed_entry(data: bytes | None) -> tuple[str, bytes] | None:
    """A printed image's cache entry read back; None when there is none or it is damaged."""
    if data is None:
        return None
    try:
        name, samples = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return None
    if not isinstance(name, str) or not isinstance(samples, bytes):
        return None
    return name, samples
