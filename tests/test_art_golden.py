"""Golden PNG snapshots of representative faces, compared with a tolerance (tests/goldens.py:
on a mismatch an actual and a diff image are written; UPDATE_GOLDENS=1 regenerates)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from compiler.backends.art.drawing import (
    Drawing,
    block_drawing,
    card_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
)
from compiler.backends.art.raster import rasterize
from compiler.model.gamedata import GameData
from tests.conftest import seed_game as game
from tests.goldens import MAX_BAD_SHARE, check_golden, compare

SOURCES = Path(__file__).parent.parent / "sources"
GOLDEN = Path(__file__).parent / "golden" / "art"
HEIGHT = 128


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


@pytest.mark.parametrize("name", sorted(FACES))
def test_face_matches_golden(name: str) -> None:
    check_golden(GOLDEN, name, FACES[name]())


def test_comparison_catches_a_changed_face() -> None:
    image = FACES["gcacw-leader"]()
    changed = image.copy()
    changed.paste((255, 0, 0, 255), (0, 0, HEIGHT // 3, HEIGHT // 3))
    assert compare(image, image) == (0.0, 0.0)
    mean, bad = compare(changed, image)
    assert bad > MAX_BAD_SHARE
