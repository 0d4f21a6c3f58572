"""Scenario pictures: each map holding set-up pieces with every piece drawn where the module's
set-up save puts it (stacks fanned and counted, blocks face up), then the reinforcements by
turn and the scenario's decks with their counts. As SVG and PNG (for the preview page) and as
a `Scene` the charts back end draws on the scenario's setup card in charts.pdf.

Nothing is drawn a second way: the positions come from the geometry the module's saves use
(`geometry.setup_point` on the module's map layouts), the boards from `art.board.board_png`
(the module's own board, scaled down), the pieces from the art package's face drawings. A
picture is `PICTURE_WIDTH` pixels wide (a narrower board is not enlarged): one board image per
map panel, under one overlay drawing (a display list) holding the map names, the pieces, the
stack counts and the lists. The PNG paints the overlay over the boards, its faces (pieces,
stack counts, arrivals, decks) each rasterised on its own and pasted where it goes, so that a
warm build takes the faces that did not change from the preview's cache (and the faces laid
over the boards by the build before, laying again only where a face changed); the SVG embeds
each board as a PNG and the overlay as vector paths; charts.pdf (scenepics_pdf.py) prints the
boards as images and the overlay as vector paths and text.

`scenario_layout` gives the positions as data (what tests/test_scenario_pictures.py compares
with the module's saves); `Scene.panels` give each board's place and scale in the picture.

A face is a `KeyedFace` (scenepics_draw): known by a look key made of the identity of what it
is drawn from (art.identity, as the module's and the sheets' faces), so that a warm build in
which one placed unit changed draws that unit's face only: the others are laid out with the
widths the last build kept, and their pixels and PDF forms are read from the caches under
keys made without drawing them.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import marshal
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import NamedTuple, cast

from PIL import Image

from compiler.backends.art.display import Box, Drawing, Inset, Op
from compiler.backends.art.identity import deck_identity, marker_identity
from compiler.backends.art.pixels import packed, raw_bytes, unpacked
from compiler.backends.art.png import encode_png
from compiler.backends.art.raster import FACE_SUPERSAMPLE, lay, rasterize, rasterize_to
from compiler.backends.art.svg import drawing_svg
from compiler.backends.keptrecord import all_of_type
from compiler.backends.pergame import PerGame, PerGameMemo
from compiler.backends.rendercache import RenderCache, cache_key, digest_key
from compiler.backends.scenepics_draw import (
    LABEL_ROOM,
    MIN_WIDTH,
    PICTURE_WIDTH,
    KeyedFace,
    Panel,
    PlacedPiece,
    overlay,
)
from compiler.backends.vassal.geometry import MapLayout, setup_point
from compiler.i18n import catalogue_fingerprint
from compiler.model.digests import content_digest, content_digests
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.model.scenarios import Scenario
from compiler.rules.context import scenario_view

__all__ = [
    "PICTURE_WIDTH",
    "KeyedFace",
    "Panel",
    "PlacedPiece",
    "Scene",
    "face_key",
    "face_prefix",
    "face_widths_key",
    "keep_scene_png",
    "map_layouts",
    "picture_key",
    "scenario_layout",
    "scenario_png",
    "scenario_scene",
    "scenario_svg",
]


_LAYOUTS: PerGame[dict[str, MapLayout]] = PerGame(dict)


def map_layouts(game: GameData) -> dict[str, MapLayout]:
    """Every map's layout as the module lays it out (`vassal.module.map_layouts`, imported here
    when called: the module back end imports the charts back end, which draws these), made
    once per game being built."""
    from compiler.backends.vassal.module import map_layouts as module_layouts

    memo = _LAYOUTS.of(game)
    if not memo:
        memo.update(module_layouts(game))
    return memo


def scenario_layout(game: GameData, scenario: Scenario) -> list[PlacedPiece]:
    """Every set-up piece of the scenario with its map and board point (module pixels), as the
    module's set-up save places it, and its place in the stack there (data order, bottom
    first, as the save lists the stack's members)."""
    layouts = map_layouts(game)
    stacks: dict[tuple[str, int, int], list[tuple[str, int]]] = {}
    view = scenario_view(game, scenario)
    for index, placement in enumerate(view.setup):
        if placement.unit is None and placement.marker is None:
            continue
        found = setup_point(layouts, placement)
        if found is None:
            continue
        map_id, (x, y) = found
        key = f"unit:{placement.piece_id}" if placement.unit else f"marker:{placement.piece_id}"
        stacks.setdefault((map_id, x, y), []).append((key, index))
    return [
        PlacedPiece(key, map_id, x, y, level, len(members), index)
        for (map_id, x, y), members in stacks.items()
        for level, (key, index) in enumerate(members)
    ]


@dataclass(frozen=True)
class Scene:
    """A scenario picture: `width` × `height` pixels; each panel's board image (RGB, scaled to
    the panel) at the panel's place, and the overlay drawing over the whole picture (pieces,
    counts, labels, lists). The boards are made (or read from the cache) when first asked
    for: a warm build that takes the picture's boards from its caches (the preview's base,
    charts.pdf's printed boards) does not unpack their pixels."""

    width: int
    height: int
    panels: tuple[Panel, ...]
    board_makers: tuple[Callable[[], Image.Image], ...]
    overlay: Drawing
    drawn: tuple[tuple[PlacedPiece, Box], ...]
    """Every set-up piece and the box (picture pixels) its face was drawn in."""
    support: tuple[str, ...] = ()
    """The cache key under which its PNG lists the entries it was made from (see
    keep_scene_png), then the keys of its faces' widths and of its scaled boards (what a
    picture read back keeps); none for a scene drawn without a cache."""

    @property
    def boards(self) -> tuple[Image.Image, ...]:
        """Each panel's board image (made once per game being built: see _board)."""
        return tuple(make() for make in self.board_makers)


_SCENES: PerGameMemo[tuple[str, str], Scene] = PerGameMemo()
_BOARDS: PerGameMemo[str, Image.Image] = PerGameMemo()


def scenario_scene(
    game: GameData, scenario: Scenario, lang: str, boards: RenderCache | None = None
) -> Scene:
    """The scenario's picture as a scene (made once per game being built). Its boards' scaled
    pixels are kept in `boards` when it is given: a warm build whose boards did not change
    reads them back instead of drawing the boards again (the same pixels)."""
    return _SCENES.get(
        game, (scenario.id, lang), functools.partial(_scene, game, scenario, lang, boards)
    )


def _scene(game: GameData, scenario: Scenario, lang: str, cache: RenderCache | None) -> Scene:
    pieces = scenario_layout(game, scenario)
    layouts = map_layouts(game)
    shown = {piece.map for piece in pieces}
    panels: list[Panel] = []
    top = 0
    for game_map in game.maps:
        if game_map.id not in shown:
            continue
        layout = layouts[game_map.id]
        scale = min(1.0, PICTURE_WIDTH / layout.width)  # a small board is not blown up
        width, height = max(1, round(layout.width * scale)), max(1, round(layout.height * scale))
        panels.append(Panel(game_map.id, top + LABEL_ROOM, scale, width, height))
        top += LABEL_ROOM + height
    width = max([MIN_WIDTH, *(p.width for p in panels)])
    widths_key = face_widths_key(scenario, lang)
    known = _widths(cache.get(widths_key)) if cache is not None else {}
    drawing, height, drawn = overlay(
        game, scenario, lang, tuple(panels), tuple(pieces), top, width, known
    )
    if cache is not None:
        _keep_widths(cache, widths_key, known, drawing)
    boards = tuple(
        partial(_board, game, layouts[p.map], (p.width, p.height), cache) for p in panels
    )
    support: tuple[str, ...] = ()
    if cache is not None:
        shown_boards = [_board_key(game, layouts[p.map], (p.width, p.height)) for p in panels]
        support = (_support_key(scenario, lang), widths_key, *shown_boards)
        cache.keep(shown_boards)  # used by the scene, read or not
    return Scene(width, height, tuple(panels), boards, drawing, tuple(drawn), support)


def face_widths_key(scenario: Scenario, lang: str) -> str:
    """The cache key of the widths of a scenario picture's faces (see KeyedFace): a picture
    read back from a cache keeps it (the next picture drawn again lays the faces out with
    them instead of drawing them)."""
    return digest_key("scene-face-widths", _face_prefix(), scenario.id, lang)


def _widths(data: bytes | None) -> dict[str, float]:
    """A picture's face widths by look key as kept in the cache (none when there are none or
    the entry is not such a table)."""
    if data is None:
        return {}
    try:
        found = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        key: width
        for key, width in found.items()
        if isinstance(key, str) and isinstance(width, float)
    }


def _keep_widths(cache: RenderCache, key: str, known: dict[str, float], drawing: Drawing) -> None:
    """Keep the widths of the overlay's keyed faces (a warm build lays the picture out with
    them, drawing only the faces whose look key changed); rewritten only when they differ
    from those `known` before."""
    widths = {
        op.drawing.key: op.drawing.width
        for op in drawing.ops
        if isinstance(op, Inset) and isinstance(op.drawing, KeyedFace)
    }
    if widths != known or not cache.holds(key):
        cache.put(key, marshal.dumps(widths))


def _board(
    game: GameData, layout: MapLayout, size: tuple[int, int], cache: RenderCache | None
) -> Image.Image:
    """A map's board as the module draws it (its art, when it has some), scaled to `size`:
    the pixels of the module's board PNG (`art.board.board_png` encodes these very pixels),
    scaled band by band as they are drawn (`art.board.scaled_board`), without encoding them
    and reading them back; from `cache` when drawn before from the same map, layout, terrain,
    art and code."""
    return _BOARDS.get(
        game, layout.game_map.id, functools.partial(_kept_board, game, layout, size, cache)
    )


def _kept_board(
    game: GameData, layout: MapLayout, size: tuple[int, int], cache: RenderCache | None
) -> Image.Image:
    """_board's pixels, drawn, or read from `cache` under what decides them."""
    from compiler.backends.art.board import scaled_board
    from compiler.backends.vassal.boardart import load_board_art

    def draw() -> Image.Image:
        return scaled_board(game, layout, size, load_board_art(game, layout.game_map))

    if cache is None:
        return draw()
    return unpacked(cache.fetch(_board_key(game, layout, size), lambda: packed(draw())))


def _board_key(game: GameData, layout: MapLayout, size: tuple[int, int]) -> str:
    """The cache key of a board's scaled pixels (once per game being built)."""
    return _BOARD_KEYS.get(
        game, layout.game_map.id, functools.partial(_new_board_key, game, layout, size)
    )


_BOARD_KEYS: PerGameMemo[str, str] = PerGameMemo()


def _new_board_key(game: GameData, layout: MapLayout, size: tuple[int, int]) -> str:
    art = _art_digests(game, (layout.game_map,))
    return cache_key("scaled-board", _fingerprint(), layout, game.game.terrain, art, size)


def _art_digests(game: GameData, maps: Sequence[GameMap]) -> list[str]:
    """The SHA-256 of each of `maps`' board art files that exists, in order (each file read
    once per game being built: the picture keys and the scaled boards both ask)."""
    found = (_ART.get(game, m.id, functools.partial(_art_digest, game, m)) for m in maps)
    return [digest for digest in found if digest is not None]


_ART: PerGameMemo[str, str | None] = PerGameMemo()


def _art_digest(game: GameData, game_map: GameMap) -> str | None:
    from compiler.backends.vassal.boardart import art_path

    path = art_path(game, game_map)
    if path is None or not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scene_png(scene: Scene, faces: RenderCache | None = None) -> bytes:
    """The scene as one RGB PNG: the boards; the overlay's shapes and words before its first
    face (the maps' names); every face (the pieces, the arrivals, the decks, the stack counts)
    rasterised at its size where it goes, in the overlay's order; then the rest of the overlay
    (the lists' words) over them. With `faces`, a face's pixels are taken from it when that
    face was rasterised at that size before (a warm build rasterises only the faces that
    changed), and so is the picture made before: where a few faces changed, only the bands of
    rows that hold their places are made again (_patched_png), from the kept boards' rows and
    the kept faces laid, and the other bands' compressed bytes are taken as they are; else the
    picture is laid from the kept faces laid over the boards (_lay_kept) and its compressed
    bands taken where their rows did not change (_banded_png). The bytes are the same either
    way. The boards with the words under the faces are kept in `faces` too (see _base), for a
    scene drawn with a cache (whose boards are known by their keys)."""
    under, insets, over = _split_overlay(scene.overlay.ops)
    scale = (scene.width / scene.overlay.width, float(scene.height))
    wanted = [_wanted(inset, scale) for inset in insets]
    if faces is None:
        image = _base(scene, under, None, None)[0]
        _lay_all(image, wanted, None, {})
        _paint(image, scene.overlay.width, over)
        return _banded_png(image, None)
    base_key = _base_key(scene, under) if scene.support else None
    names = scene.support[:1]
    made = None
    if base_key is not None:
        made = _patched_png(scene, wanted, over, faces, base_key, names)
    if made is None:
        made = _whole_png(scene, under, wanted, over, faces, base_key, names)
    png, used = made
    if scene.support and base_key is not None:
        listed = [*scene.support[1:], base_key, *used, *(want.key for want in wanted)]
        _keep_support(faces, scene.support[0], listed)
    return png


def _whole_png(
    scene: Scene,
    under: Sequence[Op],
    wanted: Sequence[_Wanted],
    over: Sequence[Op],
    faces: RenderCache,
    base_key: str | None,
    names: Sequence[str],
) -> tuple[bytes, list[str]]:
    """The picture made whole (its faces laid from the picture kept where it can: _lay_kept)
    and kept for the next build (_keep_laid); its PNG and the cache entries it used."""
    image, base_bands = _base(scene, under, faces, base_key)
    laying = _lay_kept(image, wanted, faces, names, base_key)
    _paint(laying.image, scene.overlay.width, over)
    bands: list[str] = []
    png = _banded_png(laying.image, faces, bands)
    _keep_laid(
        faces, laying.key, laying.stored, (laying.laid, laying.bands, bands, _over_digest(over))
    )
    return png, [*base_bands, laying.key, *laying.bands, *bands]


def _base(
    scene: Scene, under: Sequence[Op], cache: RenderCache | None, key: str | None
) -> tuple[Image.Image, list[str]]:
    """The picture before its faces: its boards, then the overlay's shapes and words `under`
    the faces (the maps' names); with a `key`, kept in `cache` as its bands of rows (the keys
    of the bands under `key`; read back, they are the same pixels without the boards pasted
    and the words rasterised over the whole picture again, and a picture patched band by band
    reads only the bands it makes again: _patched_png). The keys of its bands kept."""
    size = (scene.width, scene.height)
    if cache is not None and key is not None:
        keys = _band_keys(cache.get(key), _band_count(scene.height))
        rows = _rows_of(cache, keys or [])
        if keys is not None and rows is not None and len(rows) == size[0] * size[1] * 3:
            return Image.frombytes("RGB", size, rows), keys
    image = Image.new("RGB", size, (255, 255, 255))
    for panel, board in zip(scene.panels, scene.boards, strict=True):
        image.paste(board, (0, panel.top))
    _paint(image, scene.overlay.width, under)
    if cache is None or key is None:
        return image, []
    keys = _keep_rows(raw_bytes(image), scene.width * 3, cache, "scene-base-rows")
    cache.put(key, marshal.dumps(keys))
    return image, keys


def _base_key(scene: Scene, under: Sequence[Op]) -> str:
    """The cache key of a scene's picture before its faces (see _base): its size, its panels
    and the keys of their boards' pixels (scene.support), the words and shapes under the
    faces, and this code."""
    made = repr((scene.width, scene.height, scene.panels, scene.support[2:]))
    made += repr((scene.overlay.width, tuple(under)))
    digest = hashlib.sha256(made.encode("utf-8")).hexdigest()
    return digest_key("scene-base-2", _face_prefix(), digest)


def _over_digest(over: Sequence[Op]) -> str:
    """A digest of the overlay's ops painted over the faces (the lists' words): a picture's
    bands kept are taken as they are only under the same ones."""
    return hashlib.sha256(repr(tuple(over)).encode("utf-8")).hexdigest() if over else ""


def _support_key(scenario: Scenario, lang: str) -> str:
    return digest_key("scene-png-support", _face_prefix(), scenario.id, lang)


def _keep_support(cache: RenderCache, key: str, keys: list[str]) -> None:
    """List the entries a scenario's PNG was made from under `key` (rewritten when they
    changed)."""
    data = marshal.dumps(keys)
    if cache.get(key) != data:
        cache.put(key, data)


def keep_scene_png(cache: RenderCache, scenario: Scenario, lang: str) -> None:
    """Count as used the entries the scenario's PNG was last made from (its faces' widths and
    pixels, its faces laid over its boards): a build that reads the PNG itself back from
    `cache` keeps them, so that the next PNG made again, one face changed, finds them (an
    entry left unused for a few builds is dropped). A missing or damaged list keeps nothing."""
    data = cache.get(_support_key(scenario, lang))
    try:
        keys = marshal.loads(data) if data is not None else []
    except (EOFError, TypeError, ValueError):
        return
    if isinstance(keys, list):
        cache.keep(key for key in keys if isinstance(key, str))


@dataclass(frozen=True, slots=True)
class _Wanted:
    """A face to lay on a picture: its pixels' cache key, its drawing, its height in pixels
    and where its top-left corner goes."""

    key: str
    drawing: Drawing
    height: int
    x: int
    y: int


Laid = tuple[str, int, int, int, int]
"""A face laid on a picture: its pixels' cache key, where its top-left corner went, its
width and height in pixels."""
Place = tuple[int, int, int, int]
"""A part of a picture: its left, top, right and bottom (pixels; right and bottom out)."""

RELAID_AT_MOST = 32
"""Faces changed at most for a picture to be laid again only where they are (more: all)."""


def _wanted(inset: Inset, scale: tuple[float, float]) -> _Wanted:
    x0, y0, _x1, y1 = inset.box
    height = max(1, round((y1 - y0) * scale[1]))
    position = (round(x0 * scale[0]), round(y0 * scale[1]))
    return _Wanted(_face_key(inset.drawing, height), inset.drawing, height, *position)


def _lay_all(
    image: Image.Image,
    wanted: Sequence[_Wanted],
    faces: RenderCache | None,
    made: dict[str, Image.Image],
) -> list[Laid]:
    """Every face laid over `image` in order; what was laid where."""
    laid: list[Laid] = []
    for want in wanted:
        face = _face_pixels(want, faces, made)
        lay(image, face, (want.x, want.y))
        laid.append((want.key, want.x, want.y, face.width, face.height))
    return laid


class _Laying(NamedTuple):
    """A picture with its faces laid (before the words over them), the cache key of what is
    kept of it, what was laid where, the keys of its bands of rows kept, and the entry read
    under its key (None: there was none)."""

    image: Image.Image
    key: str
    laid: list[Laid]
    bands: list[str]
    stored: bytes | None


class _KeptPicture(NamedTuple):
    """A picture kept (_keep_laid): what was laid where, the keys of its bands of rows before
    the words over its faces and of its compressed bands after them (_band), and a digest of
    those words (_over_digest)."""

    laid: list[Laid]
    laid_bands: list[str]
    png_bands: list[str]
    over: str


def _laid_key(image_key: str, names: Sequence[str], size: tuple[int, int]) -> str:
    """The cache key of a picture kept (_KeptPicture) over the pixels `image_key` stands for,
    `names` telling which picture it is (the scenarios' pictures over the same boards are
    kept apart)."""
    base = hashlib.sha1(b"key:" + image_key.encode())
    base.update("\0".join(names).encode("utf-8"))
    return digest_key("scene-laid", _face_prefix(), "2", base.hexdigest(), f"{size[0]}x{size[1]}")


def _lay_kept(
    image: Image.Image,
    wanted: Sequence[_Wanted],
    cache: RenderCache,
    names: Sequence[str] = (),
    base_key: str | None = None,
) -> _Laying:
    """The faces laid over `image` (the boards and the maps' names): the picture kept in
    `cache` with its faces laid over the same pixels before (under a digest of them), with
    the faces that changed since (a few) laid again where they were and where they are, every
    face that overlaps such a place laid again there over the boards in the overlay's order
    (the same pixels as laying them all); else all laid. Its bands of rows are kept (what
    keeps the picture for the next build: _keep_laid), under `names` too (see _laid_key).
    With `base_key`, the key of what decides the pixels of `image` (see _base), these pixels
    are not digested."""
    key = _laid_key(base_key or hashlib.sha1(raw_bytes(image)).hexdigest(), names, image.size)
    made: dict[str, Image.Image] = {}
    stored = cache.get(key)
    kept = _kept_picture(stored, _band_count(image.height))
    pixels = _rows_of(cache, kept.laid_bands) if kept is not None else None
    laid = None
    if kept is not None and pixels is not None and len(pixels) == image.width * image.height * 3:
        picture = Image.frombytes("RGB", image.size, pixels)
        laid = _relaid(image, (kept.laid, picture), wanted, cache, made)
        if laid is not None:
            image = picture
            cache.keep(want.key for want in wanted)  # the faces' pixels age with the picture
    if laid is None:
        laid = _lay_all(image, wanted, cache, made)
    bands = _keep_rows(raw_bytes(image), image.width * 3, cache, "scene-laid-rows")
    return _Laying(image, key, laid, bands, stored)


def _keep_laid(
    cache: RenderCache,
    key: str,
    stored: bytes | None,
    kept: _KeptPicture | tuple[list[Laid], list[str], list[str], str],
) -> None:
    """Keep a picture (_KeptPicture) under `key`, when that is not what its entry holds
    (`stored`)."""
    entry = marshal.dumps(tuple(kept))
    if entry != stored:
        cache.put(key, entry)


def _changes(
    before: list[Laid],
    wanted: Sequence[_Wanted],
    cache: RenderCache,
    made: dict[str, Image.Image],
) -> tuple[list[Laid], list[Place]] | None:
    """What is laid where once the faces laid `before` are the faces `wanted`, and the places
    where a face changed (where it was, where it is); None when they are not the faces laid
    before with a few (RELAID_AT_MOST) changed."""
    if len(before) != len(wanted):
        return None
    laid: list[Laid] = []
    places: list[Place] = []
    for old, want in zip(before, wanted, strict=True):
        if old[:3] == (want.key, want.x, want.y):
            laid.append(old)
            continue
        if len(places) >= 2 * RELAID_AT_MOST:
            return None
        face = _face_pixels(want, cache, made)
        laid.append((want.key, want.x, want.y, face.width, face.height))
        places.append((old[1], old[2], old[1] + old[3], old[2] + old[4]))
        places.append((want.x, want.y, want.x + face.width, want.y + face.height))
    return laid, places


def _relaid(
    base: Image.Image,
    kept: tuple[list[Laid], Image.Image],
    wanted: Sequence[_Wanted],
    cache: RenderCache,
    made: dict[str, Image.Image],
) -> list[Laid] | None:
    """The kept picture (`kept`: what was laid where, the pixels) made the picture of the
    faces `wanted` over `base`, in place: None (nothing done) when they are not the kept
    faces with a few changed."""
    before, picture = kept
    changes = _changes(before, wanted, cache, made)
    if changes is None:
        return None
    laid, places = changes
    for place in places:
        _lay_again(picture, base, place, laid, wanted, cache, made)
    return laid


def _lay_again(
    picture: Image.Image,
    base: Image.Image,
    place: Place,
    laid: Sequence[Laid],
    wanted: Sequence[_Wanted],
    cache: RenderCache,
    made: dict[str, Image.Image],
    top: int = 0,
) -> None:
    """The part `place` of `picture` made again: `base` there with every face over it laid in
    order (a face is laid pixel by pixel: the part is what laying them all gives there).
    `picture` and `base` may be the rows of the whole picture from row `top` on (a band of
    it): the place and the faces are where they are in the whole picture."""
    left, upper = max(0, place[0]), max(top, place[1])
    right, lower = min(picture.width, place[2]), min(top + picture.height, place[3])
    if left >= right or upper >= lower:
        return
    part = base.crop((left, upper - top, right, lower - top))
    for (_key, x, y, w, h), want in zip(laid, wanted, strict=True):
        if x < right and x + w > left and y < lower and y + h > upper:
            lay(part, _face_pixels(want, cache, made), (x - left, y - upper))
    picture.paste(part, (left, upper - top))


def _patched_png(
    scene: Scene,
    wanted: Sequence[_Wanted],
    over: Sequence[Op],
    cache: RenderCache,
    base_key: str,
    names: Sequence[str],
) -> tuple[bytes, list[str]] | None:
    """The picture kept in `cache` (_KeptPicture) with the few faces that changed since laid
    again, made band by band: only the bands of rows that hold a changed face's place (where
    it was, where it is) are made again, from the rows of the kept picture and of its boards
    (_base) and the words over the faces; every other band's compressed bytes are taken as
    they were kept (a large scenario's picture is megabytes of pixels: none of the others is
    read, digested or compressed). Its PNG and the cache entries it used; None (nothing kept)
    when there is no such picture kept, the words over the faces are not the same, more than
    a few faces changed or a band it needs is missing or damaged (_whole_png then)."""
    width, height = scene.width, scene.height
    stride, count = width * 3, _band_count(height)
    key = _laid_key(base_key, names, (width, height))
    stored = cache.get(key)
    kept = _kept_picture(stored, count)
    base_bands = _band_keys(cache.get(base_key), count)
    if kept is None or base_bands is None or len(kept.png_bands) != count:
        return None
    made: dict[str, Image.Image] = {}
    changes = _changes(kept.laid, wanted, cache, made) if kept.over == _over_digest(over) else None
    if changes is None:
        return None
    laid, places = changes
    laid_bands, png_bands = list(kept.laid_bands), list(kept.png_bands)
    compressed: dict[int, tuple[bytes, int]] = {}
    layer = _layer(scene.overlay.width, over, (width, height))
    for first, last in _dirty_runs(places, width, height):
        window = _window(cache, kept.laid_bands[first:last], width, first * BAND_ROWS, height)
        under = _window(cache, base_bands[first:last], width, first * BAND_ROWS, height)
        if window is None or under is None:
            return None
        for place in places:
            _lay_again(window, under, place, laid, wanted, cache, made, first * BAND_ROWS)
        laid_bands[first:last] = _keep_rows(raw_bytes(window), stride, cache, "scene-laid-rows")
        if layer is not None:
            _paste_layer(window, layer, first * BAND_ROWS)
        keys: list[str] = []
        for number, band in enumerate(_bands_of(raw_bytes(window), stride), start=first):
            compressed[number] = _band(band, stride, cache, keys)
        png_bands[first:last] = keys
    bands = [compressed.get(n) or _kept_band(cache, png_bands[n]) for n in range(count)]
    if not all_of_type(bands, tuple):  # a band missing (None)
        return None
    cache.keep([*base_bands, *laid_bands, *png_bands, *(want.key for want in wanted)])
    _keep_laid(cache, key, stored, (laid, laid_bands, png_bands, kept.over))
    png = _png_of_bands(width, height, cast(list[tuple[bytes, int]], bands))
    return png, [*base_bands, key, *laid_bands, *png_bands]


def _window(
    cache: RenderCache, keys: Sequence[str], width: int, top: int, height: int
) -> Image.Image | None:
    """The rows of a picture `width` × `height` pixels from row `top` on, kept in `cache` as
    the bands `keys`; None when one is missing or they are not those rows."""
    rows = min(height, top + len(keys) * BAND_ROWS) - top
    pixels = _rows_of(cache, keys)
    if pixels is None or len(pixels) != width * rows * 3:
        return None
    return Image.frombytes("RGB", (width, rows), pixels)


def _dirty_runs(places: Sequence[Place], width: int, height: int) -> list[tuple[int, int]]:
    """The bands (BAND_ROWS rows each) that hold a part of the places in a picture `width` ×
    `height` pixels, as runs of consecutive bands (the first, the one after the last)."""
    dirty: set[int] = set()
    for left, top, right, bottom in places:
        top, bottom = max(0, top), min(height, bottom)
        if max(0, left) < min(width, right) and top < bottom:
            dirty.update(range(top // BAND_ROWS, (bottom - 1) // BAND_ROWS + 1))
    runs: list[tuple[int, int]] = []
    for number in sorted(dirty):
        if runs and runs[-1][1] == number:
            runs[-1] = (runs[-1][0], number + 1)
        else:
            runs.append((number, number + 1))
    return runs


def _band_count(height: int) -> int:
    """How many bands of BAND_ROWS rows a picture `height` pixels tall is cut into."""
    return -(-height // BAND_ROWS)


def _bands_of(pixels: bytes | memoryview, stride: int) -> list[memoryview]:
    """Rows of `stride` bytes each, BAND_ROWS at a time (the last band may be shorter)."""
    view = memoryview(pixels)
    size = BAND_ROWS * stride
    return [view[at : at + size] for at in range(0, len(view), size)]


def _keep_rows(pixels: bytes, stride: int, cache: RenderCache, kind: str) -> list[str]:
    """A picture's pixels kept in `cache` BAND_ROWS rows at a time, each band under a digest
    of its rows, as they are (read back, they are the picture again at the speed of reading
    them: decompressing a large picture's bands cost more than laying its changed faces);
    their keys."""
    keys: list[str] = []
    for rows in _bands_of(pixels, stride):
        key = digest_key(kind, hashlib.sha1(rows).hexdigest())
        if cache.holds(key):
            cache.keep((key,))
        else:
            cache.put(key, bytes(rows))
        keys.append(key)
    return keys


def _rows_of(cache: RenderCache, keys: Sequence[str]) -> bytes | None:
    """The bands of rows kept under `keys`, one after the other; None when one is missing."""
    rows = [cache.get(key) for key in keys]
    if not all_of_type(rows, bytes):  # one missing (None)
        return None
    return b"".join(cast(list[bytes], rows))


def _band_keys(data: bytes | None, count: int) -> list[str] | None:
    """The keys of `count` bands of rows as _base keeps them; None when they are not."""
    try:
        found = marshal.loads(data) if data is not None else None
    except (EOFError, TypeError, ValueError):
        return None
    return found if _are_keys(found, count) else None


def _are_keys(found: object, count: int) -> bool:
    """Whether `found` is a list of `count` keys (texts), as marshal gives it back."""
    return type(found) is list and len(found) == count and all_of_type(found, str)


def _kept_picture(data: bytes | None, count: int) -> _KeptPicture | None:
    """A picture kept (_KeptPicture) of `count` bands read back; None when there is none, or
    it is not one."""
    try:
        found = marshal.loads(data) if data is not None else None
    except (EOFError, TypeError, ValueError):
        return None
    if type(found) is not tuple or len(found) != 4:
        return None
    laid, laid_bands, png_bands, over = found
    if not _are_laid(laid) or type(over) is not str:
        return None
    if not _are_keys(laid_bands, count) or type(png_bands) is not list:
        return None
    if not all_of_type(png_bands, str):  # none kept yet (_lay_kept alone), or one per band
        return None
    return _KeptPicture(laid, laid_bands, png_bands, over)


def _kept_band(cache: RenderCache, key: str) -> tuple[bytes, int] | None:
    """A compressed band kept by _band (its deflate data and the Adler-32 of its stream);
    None when it is missing or too short to be one."""
    found = cache.get(key)
    if found is None or len(found) < ADLER_SIZE:
        return None
    return found[ADLER_SIZE:], int.from_bytes(found[:ADLER_SIZE], "big")


def _are_laid(laid: object) -> bool:
    """Whether `laid` is a list of what was laid where (Laid) as marshal gives it back (in
    passes that stay in C: a large scenario lays thousands of faces)."""
    if type(laid) is not list or not all_of_type(laid, tuple):
        return False
    if not set(map(len, laid)) <= {5} or not all_of_type(map(itemgetter(0), laid), str):
        return False
    return all_of_type(chain.from_iterable(map(itemgetter(slice(1, 5)), laid)), int)


BAND_ROWS = 32
"""Rows of a scenario picture compressed together (see _banded_png) and kept together (see
_keep_rows)."""
LEVEL = 1
"""zlib's level for a picture's bands (the level the art package's PNGs use)."""


def _banded_png(
    image: Image.Image, kept: RenderCache | None, keys: list[str] | None = None
) -> bytes:
    """An RGB picture as a PNG whose pixel stream is compressed BAND_ROWS rows at a time, each
    band's deflate data ended by a full flush (it refers to no earlier band), so that a band
    whose rows did not change is taken from `kept` under a digest of its rows instead of
    compressed again (one changed piece changes a few bands of a picture of many), with the
    Adler-32 of its stream (the PNG's is theirs combined: a band taken from `kept` is not
    spelled out again). The bytes are the same with or without `kept`: a band is compressed
    alone either way. The bands' keys are added to `keys` (what the PNG read back keeps: a
    picture drawn again builds later finds its unchanged bands)."""
    stride = image.width * 3
    bands = [_band(rows, stride, kept, keys) for rows in _bands_of(raw_bytes(image), stride)]
    return _png_of_bands(image.width, image.height, bands)


def _png_of_bands(width: int, height: int, bands: Sequence[tuple[bytes, int]]) -> bytes:
    """The PNG of an RGB picture from its bands compressed by _band (each band's deflate data
    and the Adler-32 of its stream), in order."""
    stride = width * 3
    adler = zlib.adler32(b"")
    for number, (_data, band_adler) in enumerate(bands):
        rows = min(BAND_ROWS, height - number * BAND_ROWS)
        adler = adler32_combine(adler, band_adler, rows * (stride + 1))
    data = b"".join(data for data, _adler in bands)
    stream = _ZLIB_HEADER + data + _LAST_BLOCK + struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def _layer(width: float, ops: Sequence[Op], size: tuple[int, int]) -> Image.Image | None:
    """Shapes and words (no faces) of an overlay `width` wide rasterised as one layer of
    `size` pixels (the whole picture's); None when there are none."""
    if not ops:
        return None
    return rasterize_to(Drawing(width, tuple(ops)), *size)


def _paste_layer(image: Image.Image, layer: Image.Image, top: int = 0) -> None:
    """A layer the whole picture's size pasted over `image` through its transparency:
    `image` is the picture's rows from row `top` on."""
    if image.size != layer.size:
        layer = layer.crop((0, top, layer.width, top + image.height))
    image.paste(layer.convert("RGB"), (0, 0), layer if layer.mode == "RGBA" else None)


def _band(
    rows: memoryview, stride: int, kept: RenderCache | None, keys: list[str] | None = None
) -> tuple[bytes, int]:
    """A band's rows (`stride` bytes each) as raw deflate data ending on a full flush, and the
    Adler-32 of its stream (each row after its filter type, 0); from `kept` under a key of
    the rows, their length, this code and zlib's version when compressed before, else
    compressed and kept."""
    key = ""
    if kept is not None:
        digest = hashlib.sha1(rows).hexdigest()
        key = cache_key(
            "scene-band", _fingerprint(), zlib.ZLIB_RUNTIME_VERSION, LEVEL, stride, digest
        )
        if keys is not None:
            keys.append(key)
        found = kept.get(key)
        if found is not None and len(found) >= ADLER_SIZE:
            return found[ADLER_SIZE:], int.from_bytes(found[:ADLER_SIZE], "big")
    stream = b"".join(b"\x00" + rows[at : at + stride] for at in range(0, len(rows), stride))
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(stream) + compressor.flush(zlib.Z_FULL_FLUSH)
    band_adler = zlib.adler32(stream)
    if kept is not None:
        kept.put(key, band_adler.to_bytes(ADLER_SIZE, "big") + data)
    return data, band_adler


ADLER_SIZE = 4
ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from the Adler-32 of each and
    the second's length (zlib's adler32_combine)."""
    rest = second_length % ADLER_BASE
    low = ((first & 0xFFFF) + (second & 0xFFFF) - 1) % ADLER_BASE
    high = ((first >> 16) + (second >> 16) + rest * (first & 0xFFFF) - rest) % ADLER_BASE
    return low | high << 16


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = zlib.compress(b"", LEVEL)[:2]
"""The two bytes a zlib stream of that level starts with."""
_LAST_BLOCK = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush()
"""An empty last deflate block: it ends the stream after the bands."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    """A PNG chunk: length, kind, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _split_overlay(ops: Sequence[Op]) -> tuple[list[Op], list[Inset], list[Op]]:
    """The overlay's ops before its first face, its faces, and its other ops after that."""
    first = next((n for n, op in enumerate(ops) if isinstance(op, Inset)), len(ops))
    insets = [op for op in ops[first:] if isinstance(op, Inset)]
    return list(ops[:first]), insets, [op for op in ops[first:] if not isinstance(op, Inset)]


def _paint(image: Image.Image, width: float, ops: Sequence[Op]) -> None:
    """Shapes and words (no faces) over the whole picture, rasterised as one layer (_layer)."""
    layer = _layer(width, ops, image.size)
    if layer is not None:
        _paste_layer(image, layer)


def _face_key(drawing: Drawing, height: int) -> str:
    """The cache key of a face's pixels `height` pixels tall: its look key (a KeyedFace, not
    drawn for it), else a key of the whole drawing, and this code."""
    if isinstance(drawing, KeyedFace):
        return face_key("scene-face", drawing, str(height))
    return cache_key("scene-face", _fingerprint(), height, FACE_SUPERSAMPLE, drawing)


def _face_pixels(
    want: _Wanted, faces: RenderCache | None, made: dict[str, Image.Image]
) -> Image.Image:
    """A face rasterised at its height: from `made` (this picture's faces so far) or `faces`
    under its key, else rasterised and kept."""
    found = made.get(want.key)
    if found is not None:
        return found
    data = faces.get(want.key) if faces is not None else None
    if data is not None:
        found = unpacked(data)
    else:
        found = rasterize(want.drawing, want.height, FACE_SUPERSAMPLE)
        if faces is not None:
            faces.put(want.key, packed(found))
    made[want.key] = found
    return found


def scene_svg(scene: Scene) -> bytes:
    """The scene as SVG: each board an embedded PNG, the overlay as vector shapes and glyph
    outlines (a nested SVG of the same size)."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" '
        f'xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="{scene.width}" '
        f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}">'
        f'<rect width="{scene.width}" height="{scene.height}" fill="#ffffff"/>'
    ]
    for panel, board in zip(scene.panels, scene.boards, strict=True):
        data = base64.b64encode(encode_png(board)).decode("ascii")
        parts.append(
            f'<image x="0" y="{panel.top}" width="{panel.width}" height="{panel.height}" '
            f'preserveAspectRatio="none" xlink:href="data:image/png;base64,{data}"/>'
        )
    inner = drawing_svg(scene.overlay, scene.width, scene.height).decode("utf-8")
    parts.append(inner.split("?>", 1)[1].strip())
    parts.append("</svg>\n")
    return "".join(parts).encode("utf-8")


def scenario_svg(game: GameData, scenario: Scenario, lang: str) -> bytes:
    """The scenario picture as an SVG document (deterministic bytes)."""
    return scene_svg(scenario_scene(game, scenario, lang))


def scenario_png(game: GameData, scenario: Scenario, lang: str) -> bytes:
    """The scenario picture as a PNG (`PICTURE_WIDTH` pixels wide, or its board's width when
    that is less) (deterministic bytes)."""
    return scene_png(scenario_scene(game, scenario, lang))


HERE = Path(__file__).parent
SOURCES = (
    *sorted(HERE.glob("scenepics*.py")),
    HERE / "vassal" / "geometry.py",  # where pieces go
    HERE / "vassal" / "boards.py",  # how boards are drawn (the art package is in every key)
)
"""The code that decides a picture beyond the renderers (rendercache.renderer_fingerprint)."""


@functools.cache
def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in SOURCES:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _face_prefix() -> str:
    """What decides a keyed face's look besides its look key and the renderers (which
    digest_key holds): this code, the tool's words, the rasterising's supersampling."""
    parts = (_fingerprint(), catalogue_fingerprint(), str(FACE_SUPERSAMPLE))
    return hashlib.sha256(":".join(parts).encode("ascii")).hexdigest()[:32]


def face_prefix() -> str:
    """What decides a keyed face's look besides its look key and the renderers (see
    _face_prefix): for keys of what is made of several faces (scenepics_pdf's overlay runs)."""
    return _face_prefix()


def face_key(kind: str, face: KeyedFace, *extra: str) -> str:
    """A cache key of what `kind` makes of a keyed face (its pixels at a size, its PDF form),
    from its look key: no drawing, no repr."""
    return digest_key(kind, _face_prefix(), face.key, *extra)


_KEYS: PerGameMemo[tuple[str, str], str] = PerGameMemo()


def picture_key(game: GameData, scenario: Scenario, lang: str) -> str:
    """What decides how a scenario picture looks, without drawing it: this code, the scenario,
    the layouts and terrain of the boards (and their art files' bytes), the looks of its
    pieces and decks (a cache key for charts.pdf and the preview page; worked out once per
    game being built)."""
    return _KEYS.get(
        game, (scenario.id, lang), functools.partial(_picture_key, game, scenario, lang)
    )


def _picture_key(game: GameData, scenario: Scenario, lang: str) -> str:
    arts = _art_digests(game, game.maps)
    looks = _placed_looks(game, scenario)
    decks = [
        deck_identity(game, deck)
        for player in scenario.decks
        for deck_id in player.decks
        if (deck := game.deck(deck_id)) is not None
    ]
    return cache_key(
        "scenepic",
        _fingerprint(),
        catalogue_fingerprint(),
        lang,
        content_digest(scenario),  # its repr's digest: told by the loader when read back
        _layouts_look(game),
        game.game.terrain,
        arts,
        looks,
        decks,
        [(c.id, c.deck, c.copies) for c in game.cards],
        [(m.id, m.name) for m in game.maps],
        game.game.sides,
    )


def _layouts_look(game: GameData) -> list[tuple[str, tuple[int, int] | None]]:
    """What decides the maps' layouts (vassal.module.laid_out: geometry.layout_map of each map
    and the size of its art, the code in _fingerprint), without laying them out or spelling
    them out (a large map's layout is tens of kilobytes of repr, for every picture key): each
    map's content digest and its art's size."""
    from compiler.backends.vassal.boardart import board_art_size

    return [(content_digest(m), board_art_size(game, m)) for m in game.maps]


def _placed_looks(game: GameData, scenario: Scenario) -> list[str]:
    """What decides the looks of the units and markers the scenario places (set up, then
    arriving, then the markers), from its view (rules.context.scenario_view: worked out once
    per game, validation has made it): each unit's content digest (told by the loader) and,
    once, `_unit_kin`, a superset of what art.identity.unit_identity adds to it (a unit's
    identity is not worked out for each placement: 1,600 of them at 8,000 counters, for a
    picture that is not drawn again); each marker's identity."""
    view = scenario_view(game, scenario)
    looks = content_digests(list(filter(None, map(_UNIT, chain(view.setup, view.arrivals)))))
    if looks:
        looks.append(_unit_kin(game))
    return looks + [marker_identity(game, p.marker) for p in view.setup if p.marker is not None]


_UNIT = attrgetter("unit")
"""A placement's unit (None for a marker's)."""

_KIN: PerGame[dict[str, str]] = PerGame(dict)


def _unit_kin(game: GameData) -> str:
    """A digest of every record a unit's face is drawn with besides the unit (its type,
    nationality, side, layout: all of the game's), worked out once per game being built."""
    memo = _KIN.of(game)
    if "kin" not in memo:
        shared = (game.unit_types, game.game.nationalities, game.game.sides, game.layouts)
        memo["kin"] = hashlib.sha256(repr(shared).encode("utf-8")).hexdigest()
    return memo["kin"]
