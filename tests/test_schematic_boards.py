"""Schematic boards (area and point maps without art): labels placed clear of each other, of
the areas they do not name and of the towns; one line per link; the drawing shows them."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest
from PIL import Image

from compiler.backends.art import planar
from compiler.backends.art.board import board_png
from compiler.backends.art.schematic import (
    LEADER_MIN,
    TOWN_RADIUS,
    Label,
    Schematic,
    box_labels,
    schematic,
)
from compiler.backends.art.schematic_draw import INK, LINK_STYLES
from compiler.backends.vassal.boards import render_board
from compiler.backends.vassal.geometry import MapLayout, layout_map
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.newgame import write_game
from tests.conftest import SOURCES, seed_game

SEEDS = sorted(p.name for p in SOURCES.iterdir() if p.is_dir() and not p.name.startswith("."))
TEMPLATES = [(kind, series) for kind in ("area", "point") for series in (False, True)]


def schematic_maps(data: GameData) -> list[MapLayout]:
    return [layout_map(m, None) for m in data.maps if m.kind in ("area", "point") and not m.art]


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GameData]:
    out = {}
    for kind, series in TEMPLATES:
        name = f"{kind}{'-series' if series else ''}"
        made = write_game(tmp_path_factory.mktemp(name) / "my-game", kind, series)
        data = load_game(made.folder).game
        assert data is not None, name
        out[name] = data
    return out


def _marker(layout: MapLayout, town_id: str) -> planar.Box:
    x, y = layout.positions[town_id]
    return planar.grow((x, y, x, y), TOWN_RADIUS)


def problems(layout: MapLayout, labels: tuple[Label, ...], bottom: int = 0) -> list[str]:
    """Every overlap among the labels of one board: label boxes with each other, a label with an
    area it does not name (unless wholly inside an area enclosing its own), with a town marker
    other than its own, outside the board; and an outside label far from its place with no
    leader line. The board ends at `bottom` (else where the box strip begins)."""
    found = []
    frame = (0, 0, layout.width, bottom or layout.content_bottom)
    areas = {z.id: z.polygon for z in layout.areas}
    towns = {t.id for t in layout.game_map.towns}
    for index, label in enumerate(labels):
        found += [
            f"{label.owner} label meets {other.owner} label"
            for other in labels[index + 1 :]
            if planar.boxes_overlap(label.box, other.box)
        ]
        own = areas.get(label.owner)
        for area_id, polygon in areas.items():
            if area_id == label.owner or not planar.polygon_meets_box(polygon, label.box):
                continue
            encloses = own is not None and planar.polygon_in_polygon(own, polygon)
            if not (encloses and planar.box_in_polygon(label.box, polygon)):
                found.append(f"{label.owner} label meets area {area_id}")
        found += [
            f"{label.owner} label meets town {town}"
            for town in towns
            if town != label.owner and planar.boxes_overlap(label.box, _marker(layout, town))
        ]
        if not planar.contains_box(frame, label.box):
            found.append(f"{label.owner} label leaves the board")
        if own is not None and label.inside and not planar.box_in_polygon(label.box, own):
            found.append(f"{label.owner} label is not inside its area")
        place = planar.bounds(own) if own is not None else _marker(layout, label.owner)
        if not label.inside and _distance(label.box, place) > LEADER_MIN and not label.leader:
            found.append(f"{label.owner} label is far from its place with no leader")
    return found


def _distance(a: planar.Box, b: planar.Box) -> float:
    dx = max(0.0, b[0] - a[2], a[0] - b[2])
    dy = max(0.0, b[1] - a[3], a[1] - b[3])
    return math.hypot(dx, dy)


def check_board(layout: MapLayout, plan: Schematic) -> None:
    assert plan.placed, layout.game_map.id
    assert problems(layout, plan.labels) == []
    assert problems(layout, box_labels(layout), layout.height) == []
    named = [label.owner for label in plan.labels]
    assert sorted(named) == sorted(
        [z.id for z in layout.areas] + [t.id for t in layout.game_map.towns]
    )
    assert min(label.size for label in plan.labels) >= 10
    # One line per link whose two ends are on the board, each of some length.
    on_board = {z.id for z in layout.areas} | {t.id for t in layout.game_map.towns}
    expected = Counter(
        frozenset(link.ends) for link in layout.game_map.links if set(link.ends) <= on_board
    )
    assert Counter(frozenset(line.ends) for line in plan.links) == expected
    assert all(math.dist(line.start, line.end) >= 10 for line in plan.links)


@pytest.mark.parametrize("name", SEEDS)
def test_seed_boards_have_no_overlapping_labels(name: str) -> None:
    for layout in schematic_maps(seed_game(name)):
        check_board(layout, schematic(layout))


@pytest.mark.parametrize("name", [f"{k}{'-series' if s else ''}" for k, s in TEMPLATES])
def test_new_game_boards_have_no_overlapping_labels(
    templates: dict[str, GameData], name: str
) -> None:
    layouts = schematic_maps(templates[name])
    assert layouts
    for layout in layouts:
        check_board(layout, schematic(layout))


def test_the_check_finds_labels_drawn_at_area_centres() -> None:
    """Labels set where the board used to put them (centred on each area's set-up point, one
    line at 14 px) overlap on Asia Engulfed: the check above can fail."""
    layout = schematic_maps(seed_game("asia_engulfed"))[0]
    plan = schematic(layout)
    points = {z.id: z.point for z in layout.areas}
    centred = []
    for label in plan.labels:
        x, y = points[label.owner]
        w, h = label.box[2] - label.box[0], label.box[3] - label.box[1]
        box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        centred.append(replace(label, box=box, inside=True))
    found = problems(layout, tuple(centred))
    assert len([f for f in found if "label meets" in f]) > 20


def test_template_board_draws_labels_and_links(templates: dict[str, GameData]) -> None:
    """The pixels: ink in every label's box, each link's colour along its line, and the same
    PNG bytes drawn twice."""
    data = templates["area"]
    layout = schematic_maps(data)[0]
    plan = schematic(layout)
    image = render_board(data, layout)
    for label in plan.labels:
        crop = image.crop(label.box)
        assert INK in {colour for _, colour in crop.getcolors(100000) or []}, label.owner
    for line in plan.links:
        colour = LINK_STYLES[line.kind].colour
        samples = [planar.along(line.start, line.end, t / 20) for t in range(1, 20)]
        assert any(_near(image, point, colour) for point in samples), line.ends
    assert board_png(data, layout) == board_png(data, layout)


def _near(image: Image.Image, point: planar.Pt, colour: tuple[int, int, int]) -> bool:
    x, y = int(point[0]), int(point[1])
    return any(image.getpixel((x + dx, y + dy)) == colour for dx in (-2, 0, 2) for dy in (-2, 0, 2))


def test_strip_labels_fit_their_boxes() -> None:
    layout = schematic_maps(seed_game("asia_engulfed"))[0]
    for zone, label in zip(layout.boxes, box_labels(layout), strict=True):
        assert planar.contains_box(zone.rect, label.box), zone.id
        assert "".join(label.lines).replace(" ", "") == zone.label.replace(" ", ""), zone.id
