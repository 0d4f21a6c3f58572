"""Golden PNG snapshots of representative faces, compared with a tolerance.

On a mismatch `<name>.actual.png` and `<name>.diff.png` (differences amplified) are written next
to the golden. Regenerate the goldens with UPDATE_GOLDENS=1.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from compiler.backends.art.drawing import (
    Drawing,
    block_drawing,
    card_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
)
from compiler.backends.art.raster import rasterize
from compiler.load.game import load_game
from compiler.model.gamedata import GameData

SOURCES = Path(__file__).parent.parent / "sources"
GOLDEN = Path(__file__).parent / "golden" / "art"
HEIGHT = 128
MAX_MEAN_DIFF = 2.0
MAX_BAD_SHARE = 0.005
BAD_DIFF = 40


@cache
def game(name: str) -> GameData:
    """A seed game, loaded once per test run."""
    data = load_game(SOURCES / name).game
    assert data is not None, name
    return data


def gcacw_infantry(face: str) -> Drawing:
    """A GCACW infantry division with an exhausted back."""
    data = game("gcacw")
    unit = next(u for u in data.units if u.back_kind == "exhausted" and u.leader is None)
    return unit_drawing(data, unit, "front" if face == "front" else "back")


def gcacw_leader() -> Drawing:
    """A GCACW leader."""
    data = game("gcacw")
    return unit_drawing(data, next(u for u in data.units if u.leader is not None), "front")


def tite_division(lang: str = "en") -> Drawing:
    """A Twilight in the East division, reduced side (or front in another language)."""
    data = game("twilight_in_the_east")
    unit = next(u for u in data.units if u.back is not None and u.steps > 1)
    return unit_drawing(data, unit, "back" if lang == "en" else "front", lang)


def reduced_with_overlay() -> Image.Image:
    """The reduced division with the step-loss badge laid over it."""
    image = rasterize(tite_division(), HEIGHT).convert("RGBA")
    return Image.alpha_composite(image, rasterize(step_drawing(1), HEIGHT))


def napoleon_block() -> Drawing:
    """A Napoleon block label at strength 4."""
    data = game("napoleon")
    unit = next(u for u in data.units if u.front.get("cv") == 4)
    return block_drawing(data, unit, "label")


def asia_engulfed_naval() -> Drawing:
    """An Asia Engulfed naval block."""
    data = game("asia_engulfed")
    unit = next(u for u in data.units if _symbol(data, u.type) == "naval")
    return block_drawing(data, unit, "label")


def _symbol(data: GameData, type_id: str) -> str:
    """A unit type's symbol."""
    unit_type = data.unit_type(type_id)
    return unit_type.symbol if unit_type is not None else ""


def gcacw_marker() -> Drawing:
    """A GCACW strength marker (value and back text)."""
    data = game("gcacw")
    return marker_drawing(data, next(m for m in data.markers.values() if m.value), "front")


def tank_killers_card() -> Drawing:
    """A Tank Killers unit card with value boxes."""
    data = game("tank_killers")
    return card_drawing(data, next(c for c in data.cards if c.fields and c.number is None))


def render(make: Callable[[], Drawing]) -> Callable[[], Image.Image]:
    """A face maker turned into an image maker."""
    return lambda: rasterize(make(), HEIGHT)


FACES: dict[str, Callable[[], Image.Image]] = {
    "gcacw-infantry-front": render(lambda: gcacw_infantry("front")),
    "gcacw-infantry-exhausted": render(lambda: gcacw_infantry("back")),
    "gcacw-leader": render(gcacw_leader),
    "tite-reduced-step": reduced_with_overlay,
    "napoleon-block": render(napoleon_block),
    "asia-engulfed-naval": render(asia_engulfed_naval),
    "gcacw-marker": render(gcacw_marker),
    "tank-killers-card": render(tank_killers_card),
    "tite-division-ja": render(lambda: tite_division("ja")),
}


def compare(actual: Image.Image, golden: Image.Image) -> tuple[float, float]:
    """Mean absolute difference per channel and the share of pixels differing by > BAD_DIFF."""
    diff = ImageChops.difference(actual.convert("RGBA"), golden.convert("RGBA"))
    bands = diff.split()
    pixels = actual.width * actual.height
    mean = sum(sum(i * n for i, n in enumerate(band.histogram())) for band in bands) / (
        pixels * len(bands)
    )
    worst = bands[0]
    for band in bands[1:]:
        worst = ImageChops.lighter(worst, band)
    bad = sum(worst.histogram()[BAD_DIFF + 1 :])
    return mean, bad / pixels


def write_failure(name: str, actual: Image.Image, golden: Image.Image) -> Path:
    """The actual image and an amplified diff next to the golden."""
    actual.save(GOLDEN / f"{name}.actual.png")
    if actual.size == golden.size:
        diff = ImageChops.difference(actual.convert("RGB"), golden.convert("RGB"))
        diff.point(lambda value: min(255, value * 4)).save(GOLDEN / f"{name}.diff.png")
    return GOLDEN / f"{name}.diff.png"


@pytest.mark.parametrize("name", sorted(FACES))
def test_face_matches_golden(name: str) -> None:
    actual = FACES[name]()
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1" or not path.is_file():
        GOLDEN.mkdir(parents=True, exist_ok=True)
        actual.save(path)
        if os.environ.get("UPDATE_GOLDENS") != "1":
            pytest.fail(f"golden {path.name} was missing and has been written; check it in")
        return
    golden = Image.open(path)
    golden.load()
    assert actual.size == golden.size, (name, actual.size, golden.size)
    mean, bad = compare(actual, golden)
    if mean >= MAX_MEAN_DIFF or bad > MAX_BAD_SHARE:
        diff = write_failure(name, actual, golden)
        pytest.fail(f"{name}: mean diff {mean:.2f}, {bad:.2%} pixels off; see {diff}")
    for stale in (GOLDEN / f"{name}.actual.png", GOLDEN / f"{name}.diff.png"):
        stale.unlink(missing_ok=True)


def test_comparison_catches_a_changed_face() -> None:
    image = FACES["gcacw-leader"]()
    changed = image.copy()
    changed.paste((255, 0, 0, 255), (0, 0, HEIGHT // 3, HEIGHT // 3))
    assert compare(image, image) == (0.0, 0.0)
    mean, bad = compare(changed, image)
    assert bad > MAX_BAD_SHARE
