"""Golden images of one chart of each kind, as the module's charts window shows them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from compiler.backends.art.raster import rasterize
from compiler.backends.charts.build import all_charts
from compiler.backends.charts.table import chart_drawing
from tests.conftest import seed_game as game
from tests.goldens import check_golden

GOLDEN = Path(__file__).parent / "golden" / "charts"
WIDTH = 600


def chart_image(name: str, chart_id: str, lang: str = "en") -> Callable[[], Image.Image]:
    """The chart `chart_id` of game `name` rendered WIDTH pixels wide."""

    def make() -> Image.Image:
        data = game(name)
        chart = next(c for c in all_charts(data, lang) if c.id == chart_id)
        drawing = chart_drawing(data, chart, lang)
        return rasterize(drawing, round(WIDTH / drawing.width))

    return make


CHARTS: dict[str, Callable[[], Image.Image]] = {
    "combat-napoleon-fire": chart_image("napoleon", "fire-classes"),
    "terrain-gcacw": chart_image("gcacw", "terrain-effects"),
    "table-tite-stacking-ja": chart_image("twilight_in_the_east", "stacking-weights", "ja"),
    "turn-track-napoleon": chart_image("napoleon", "turn-track-1"),
    "setup-card-tite": chart_image("twilight_in_the_east", "setup-grand_campaign-1"),
    "reinforcements-gcacw-sjw": chart_image("gcacw", "reinforcements-sjw-second-manassas-1"),
    "oob-napoleon-blocks": chart_image("napoleon", "oob-french-1"),
    "deck-list-tank-killers": chart_image("tank_killers", "deck-american-formation-1"),
}


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_matches_golden(name: str) -> None:
    check_golden(GOLDEN, name, CHARTS[name]())
