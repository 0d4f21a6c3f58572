"""Scenario pictures (compiler/backends/scenepics.py): every set-up piece drawn where the
module's own set-up save puts it, stacks counted, reinforcements and decks listed, the same
bytes every time, an SVG that parses and a PNG that decodes, and the picture on the scenario's
setup card in charts.pdf."""

from __future__ import annotations

import functools
import io
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pypdf
import pytest
from lxml import etree
from PIL import Image

from compiler.backends.art.display import Inset, Rect, Text
from compiler.backends.charts.build import render_charts, write_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.scenepics import (
    Scene,
    scenario_layout,
    scenario_png,
    scenario_scene,
    scenario_svg,
    scene_png,
)
from compiler.backends.scenepics_draw import BADGE
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.vassal.module import map_names, piece_gpids, plan_module
from compiler.i18n import tr
from compiler.importing.archive import Archive
from compiler.importing.saves import save_contents
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.rules.context import scenario_view
from tests.conftest import DATA, SOURCES

GAMES = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
Spot = tuple[str, str, int, int, int]
"""A set-up piece: slot key (`unit:<id>`), map name, x, y, level in its stack."""


def load(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return game


@functools.cache
def loaded(folder: Path) -> GameData:
    """One game per folder for the tests that only read it (its pictures made once)."""
    return load(folder)


def scenario(game: GameData, ident: str) -> Scenario:
    return next(s for s in game.scenarios if s.id == ident)


def saved_spots(game: GameData) -> dict[str, Counter[Spot]]:
    """Each scenario's set-up pieces as the module's .vsav holds them, read back with the
    importer (the Reinforcements map's pieces and cards in decks left out)."""
    plan, files = plan_module(game)
    slots = {str(gpid): key for key, gpid in piece_gpids(game).items()}
    out: dict[str, Counter[Spot]] = {}
    for ident, name in plan.scenario_files.items():
        archive = Archive.from_bytes(files[name], name)
        try:
            contents = save_contents(archive, Path(name), name)
        finally:
            archive.close()
        out[ident] = Counter(
            (slots[p.piece.gpid], p.map, p.x, p.y, p.level)
            for p in contents.pieces
            if not p.deck and p.map in plan.map_names.values()
        )
    return out


@pytest.mark.parametrize("folder", GAMES, ids=[f.name for f in GAMES])
def test_pieces_are_where_the_module_saves_put_them(folder: Path) -> None:
    game = load(folder)
    saved = saved_spots(game)
    names = map_names(game.maps)
    for each in game.scenarios:
        placed = scenario_layout(game, each)
        drawn = Counter((p.piece, names[p.map], p.x, p.y, p.level) for p in placed)
        assert drawn == saved.get(each.id, Counter()), each.id
        scene = scenario_scene(game, each, "en")
        panels = {panel.map: panel for panel in scene.panels}
        insets = {_rounded(op.box) for op in scene.overlay.ops if isinstance(op, Inset)}
        for piece, box in scene.drawn:
            panel = panels[piece.map]
            assert _rounded(tuple(v / scene.height for v in box)) in insets  # drawn there
            if piece.level:
                continue  # fanned up and right of the bottom piece, which sits on the point
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            back = (round(cx / panel.scale), round((cy - panel.top) / panel.scale))
            assert back == (piece.x, piece.y), (each.id, piece)


def _rounded(box: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(round(v, 9) for v in box)


SCENARIOS = [(folder, s.id) for folder in GAMES for s in loaded(folder).scenarios]


@pytest.mark.parametrize(
    ("folder", "ident"), SCENARIOS, ids=[f"{f.name}-{s}" for f, s in SCENARIOS]
)
def test_every_set_up_piece_is_drawn_and_every_stack_counted(folder: Path, ident: str) -> None:
    game = loaded(folder)
    each = scenario(game, ident)
    scene = scenario_scene(game, each, "en")
    view = scenario_view(game, each)
    wanted = Counter(
        (p.place.map, p.at)
        for p in view.setup
        if p.place is not None and (p.unit is not None or p.marker is not None)
    )
    drawn = Counter((view.setup[p.index].place.map, view.setup[p.index].at) for p, _ in scene.drawn)  # type: ignore[union-attr]
    assert drawn == wanted
    counts = stack_counts(scene)
    for piece, box in scene.drawn:
        assert piece.count == sum(
            1 for p, _ in scene.drawn if (p.map, p.x, p.y) == (piece.map, piece.x, piece.y)
        )
        if piece.count < 2 or piece.level != piece.count - 1:
            continue
        corner = (box[2] / scene.height, box[1] / scene.height)
        assert any(
            words == str(piece.count) and math.dist(where, corner) < 30 / scene.height
            for words, where in counts
        ), (ident, piece)


def stack_counts(scene: Scene) -> list[tuple[str, tuple[float, float]]]:
    """The words of every stack count's tab (a small drawing of its own: a BADGE-coloured
    rectangle and its text) and where their middle is in the overlay."""
    found = []
    for op in scene.overlay.ops:
        if not isinstance(op, Inset) or len(op.drawing.ops) != 2:
            continue
        tab, text = op.drawing.ops
        if isinstance(tab, Rect) and tab.fill == BADGE and isinstance(text, Text):
            size = op.box[3] - op.box[1]
            found.append((text.text, (op.box[0] + text.x * size, op.box[1] + text.y * size)))
    return found


@pytest.mark.parametrize(
    ("folder", "ident"), SCENARIOS, ids=[f"{f.name}-{s}" for f, s in SCENARIOS]
)
def test_reinforcements_and_decks_are_listed(folder: Path, ident: str) -> None:
    game = loaded(folder)
    each = scenario(game, ident)
    scene = scenario_scene(game, each, "en")
    texts = [op.text for op in scene.overlay.ops if isinstance(op, Text)]
    below = scene.panels[-1].top + scene.panels[-1].height if scene.panels else 0
    listed = [
        op
        for op in scene.overlay.ops
        if isinstance(op, Inset) and op.box[1] * scene.height >= below
    ]
    arrivals = scenario_view(game, each).arrivals
    decks = list(dict.fromkeys(d for player in each.decks for d in player.decks))
    assert len(listed) == len(arrivals) + len(decks)
    assert (tr("Reinforcements", "en") in texts) == bool(arrivals)
    for turn in {a.turn for a in arrivals}:
        assert tr("Turn {turn}", "en", turn=turn) in texts
    assert (tr("Decks", "en") in texts) == bool(decks)
    for deck_id in decks:
        deck = game.deck(deck_id)
        assert deck is not None
        count = sum(c.copies for c in game.cards if c.deck == deck_id)
        assert deck.name.en in texts
        assert tr("{count} cards", "en", count=count) in texts


@pytest.mark.parametrize(
    ("folder", "ident"),
    [
        (DATA / "mini", "first"),
        (SOURCES / "napoleon", "historical"),
        (SOURCES / "tank_killers", "german-vs-british"),
    ],
    ids=["mini", "napoleon", "tank-killers"],
)
def test_the_bytes_are_the_same_every_time_and_read_back(folder: Path, ident: str) -> None:
    first, second = load(folder), load(folder)  # two games: nothing remembered between them
    png, svg = (
        scenario_png(first, scenario(first, ident), "en"),
        scenario_svg(first, scenario(first, ident), "en"),
    )
    assert scenario_png(second, scenario(second, ident), "en") == png
    assert scenario_svg(second, scenario(second, ident), "en") == svg
    scene = scenario_scene(first, scenario(first, ident), "en")
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        assert image.format == "PNG"
        assert image.size == (scene.width, scene.height)
    root = etree.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == (str(scene.width), str(scene.height))
    images = root.findall("{http://www.w3.org/2000/svg}image")
    assert len(images) == len(scene.panels)
    labels = {g.get("aria-label") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert {op.text for op in scene.overlay.ops if isinstance(op, Text)} <= labels


def test_faces_kept_in_the_cache_give_the_same_png() -> None:
    """scene_png keeps every face's pixels in the cache it is given: a picture drawn with the
    faces another picture left there (other pieces, sides and stacks) is the bytes of one
    drawn from nothing, and drawing it again rasterises no face."""
    game = loaded(SOURCES / "napoleon")
    first, second = (
        scenario_scene(game, scenario(game, ident), "en")
        for ident in ("historical", "napoleons-initiative")
    )
    cache = RenderCache(None)
    assert scene_png(first, cache) == scene_png(first)
    assert cache.misses > 0
    assert scene_png(second, cache) == scene_png(second)
    assert cache.hits > 0
    drawn = cache.misses
    assert scene_png(second, cache) == scene_png(second)
    assert cache.misses == drawn


def test_boards_kept_in_the_cache_are_not_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scene given a cache keeps its boards' scaled pixels there: the same game loaded again
    (nothing remembered in memory) reads them back from the pack without drawing a board,
    and its PNG is the bytes of one drawn without a cache."""
    from compiler.backends.art import board

    pack = tmp_path / "scenes.pack"
    first = load(SOURCES / "twilight_in_the_east")
    ident = first.scenarios[0].id
    cache = RenderCache(pack)
    png = scene_png(scenario_scene(first, scenario(first, ident), "en", cache))
    cache.save()
    drawn: list[tuple[int, int]] = []
    real = board.scaled_board

    def spy(game: GameData, layout: Any, size: tuple[int, int], art: Any = None) -> Image.Image:
        drawn.append(size)
        return real(game, layout, size, art)

    monkeypatch.setattr(board, "scaled_board", spy)
    second = load(SOURCES / "twilight_in_the_east")
    again = scene_png(scenario_scene(second, scenario(second, ident), "en", RenderCache(pack)))
    assert drawn == []
    assert again == png
    third = load(SOURCES / "twilight_in_the_east")
    assert scene_png(scenario_scene(third, scenario(third, ident), "en")) == png
    assert len(drawn) == 1  # no cache: the board is drawn


def test_the_png_shows_the_pieces_over_the_board() -> None:
    """Where a piece is drawn the PNG differs from the bare board under it."""
    game = load(DATA / "mini")
    scene = scenario_scene(game, scenario(game, "first"), "en")
    with Image.open(io.BytesIO(scenario_png(game, scenario(game, "first"), "en"))) as image:
        picture = image.convert("RGB")
    panel, board = scene.panels[0], scene.boards[0]
    for _piece, box in scene.drawn:
        x, y = round((box[0] + box[2]) / 2), round((box[1] + box[3]) / 2)
        assert picture.getpixel((x, y)) != board.getpixel((x, y - panel.top))


def _setup_pages(pdf: bytes, scene: Scene, title: str) -> tuple[int, int]:
    """The page where the setup card starts and the first page from there that shows a board
    image of the picture's shape (printed at its own resolution) and the picture's map name."""
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    board = scene.boards[0]
    start = picture = -1
    for number, page in enumerate(reader.pages):
        text = page.extract_text()
        if start < 0 and title in text:
            start = number
        if start < 0 or picture >= 0:
            continue
        resources: Any = page["/Resources"]
        for key, xobject in resources.get("/XObject", {}).items():
            found = xobject.get_object()
            if found["/Subtype"] != "/Image" or not str(key).startswith("/board."):
                continue
            shape = found["/Width"] / found["/Height"]
            if abs(shape / (board.width / board.height) - 1) < 0.02 and scene_map(scene) in text:
                picture = number
    return start, picture


def scene_map(scene: Scene) -> str:
    """The name over the picture's first board (the overlay's first text)."""
    return next(op.text for op in scene.overlay.ops if isinstance(op, Text))


@pytest.mark.parametrize("folder", [DATA / "mini", SOURCES / "napoleon"], ids=["mini", "napoleon"])
def test_the_setup_card_shows_the_picture(folder: Path, tmp_path: Path) -> None:
    game = with_aids(load(folder))[0]
    options = SheetOptions()
    render_charts(game, options, RenderCache(None))
    written = write_charts(game, tmp_path, options)
    assert written is not None
    pdf = written.read_bytes()
    for each in game.scenarios:
        if not scenario_layout(game, each):
            continue
        scene = scenario_scene(game, each, "en")
        start, picture = _setup_pages(pdf, scene, f"Setup: {each.name.en}")
        assert start >= 0, each.id
        assert start <= picture <= start + 2, (each.id, start, picture)
