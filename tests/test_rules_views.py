"""Scenario views (compiler.rules.context.scenario_view) are worked out once per game and
scenario, and are what a fresh computation gives: the rules and the back ends that ask for
the same scenario get the same placements; another game, or another scenario object of the
same id, is worked out again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.rules import context
from compiler.rules.context import scenario_view
from tests.conftest import SOURCES

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def with_scenarios(name: str) -> GameData:
    game = load_game(SOURCES / name).game
    if game is None or not game.scenarios:
        pytest.skip("no scenarios")
    return game


@pytest.mark.parametrize("name", GAMES)
def test_a_view_is_worked_out_once_and_is_a_fresh_one(name: str) -> None:
    game = with_scenarios(name)
    for scenario in game.scenarios:
        view = scenario_view(game, scenario)
        assert scenario_view(game, scenario) is view
        fresh = context._scenario_view(game, scenario)
        assert (view.setup, view.arrivals) == (fresh.setup, fresh.arrivals)


@pytest.mark.parametrize("name", GAMES)
def test_another_game_or_scenario_is_worked_out_again(name: str) -> None:
    game = with_scenarios(name)
    scenario = game.scenarios[0]
    view = scenario_view(game, scenario)
    other = replace(game, places=dict(game.places))  # equal, but another mapping
    assert scenario_view(other, scenario) is not view
    changed = replace(scenario, setup=scenario.setup[:1])
    again = scenario_view(other, changed)
    assert again.scenario is changed
    assert len(again.setup) <= len(view.setup)
    assert scenario_view(game, scenario) is not view  # the memo holds the last game only


@pytest.mark.parametrize(
    ("changes", "shared"),
    [
        ({"aids": ()}, True),  # the copy a build makes with its player aids
        ({"charts": ()}, True),
        ({"units": "copy"}, False),
        ({"places": "copy"}, False),
        ({"maps": "copy"}, False),
        ({"markers": "copy"}, False),
        ({"scenarios": "copy"}, False),
    ],
)
def test_a_copy_of_the_game_with_the_same_records_shares_its_views(
    changes: dict[str, object], shared: bool
) -> None:
    """Validation makes the views of the game loaded; the back ends ask with its copy that adds
    the player aids: the views are those, unless a record they are made from is another."""
    game = with_scenarios("napoleon")
    scenario = game.scenarios[0]
    view = scenario_view(game, scenario)
    fields = {
        name: (copied(getattr(game, name)) if value == "copy" else value)
        for name, value in changes.items()
    }
    copy = replace(game, **fields)  # type: ignore[arg-type]
    found = scenario_view(copy, copy.scenarios[0])
    assert (found is view) is shared
    assert (found.setup, found.arrivals) == (view.setup, view.arrivals)


def copied(records: Mapping[str, object] | tuple[object, ...]) -> object:
    """Equal records in another container (not the same object)."""
    return tuple(list(records)) if isinstance(records, tuple) else dict(records)
