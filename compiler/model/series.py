"""One title of a series as a game of its own: what a player of that boxed game gets.

A series (a game with `game: titles:`) is built as one module per title by default: each holds
its title's maps, counters, markers, scenarios, charts and turn track, and what the series
shares (records with no `title:`). The title's game is made here, below the back ends, from the
loaded model; the back ends draw it as they draw any game and never see the others.
"""

from __future__ import annotations

import re
from dataclasses import replace

from compiler.model.common import Text
from compiler.model.game import Title
from compiler.model.gamedata import GameData


def title_slug(title: Title) -> str:
    """The title's id as a file-name part: lower case, letters, digits and hyphens."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.id.lower()).strip("-")
    return slug or "title"


def title_module_name(game: GameData, title: Title) -> str:
    """The module file's name (without `.vmod`) of one title: `<game>-<title>`."""
    return f"{game.game.id}-{title_slug(title)}"


def title_game(game: GameData, title: Title) -> GameData:
    """`game` as the boxed game `title` is: the records of that title and those of none, with
    the title the only one of the series (its turn track and parameters); a unit another title
    holds is kept when one of this title's scenarios names it, so every set-up stays whole.
    The game's name becomes the title's, followed by the series' in brackets."""

    def ours(record_title: str) -> bool:
        return record_title in ("", title.id)

    scenarios = tuple(s for s in game.scenarios if ours(s.title))
    named = {
        unit
        for scenario in scenarios
        for unit in (
            *(e.unit for e in scenario.setup if e.unit),
            *(u for e in scenario.setup for u in e.units),
            *(u for r in scenario.reinforcements for u in r.units),
        )
    }
    units = tuple(u for u in game.units if ours(u.title) or u.id in named)
    formation_ids = {u.formation for u in units}
    formations = tuple(f for f in game.formations if ours(f.title) or f.id in formation_ids)
    maps = tuple(m for m in game.maps if ours(m.title))
    map_ids = {m.id for m in maps}
    marker_sets = tuple(s for s in game.marker_sets if ours(s.title))
    set_ids = {s.id for s in marker_sets}
    series = game.game.title
    name = Text(
        f"{title.name.en} ({series.en})",
        f"{title.name.ja or title.name.en}（{series.ja or series.en}）",
    )
    return replace(
        game,
        game=replace(game.game, titles=(title,), title=name),
        formations=formations,
        units=units,
        marker_sets=marker_sets,
        maps=maps,
        scenarios=scenarios,
        charts=tuple(c for c in game.charts if ours(c.title)),
        aids=(),
        markers={k: m for k, m in game.markers.items() if m.set.id in set_ids},
        places={k: v for k, v in game.places.items() if k in map_ids},
        _scenario_maps={},  # the maps of each scenario are looked up again among these
    )
