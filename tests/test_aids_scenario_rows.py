"""A scenario's setup-card and reinforcement rows are kept as the shared template wrote them:
a warm build whose scenarios, maps and unit names did not change takes them without a template
call per row, one that changed writes them again, and a damaged entry is written again (the
charts are always those of a build without the cache)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.load import aids
from compiler.load.aids import AIDS_CACHE, player_aids
from compiler.load.records import kept_chunk, read_kept
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from tests.conftest import every_field, loaded_seed

WITH_SCENARIOS = ["asia_engulfed", "napoleon", "twilight_in_the_east"]


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """(kind, scenario) of each scenario's rows the template wrote since the last clear."""
    seen: list[tuple[str, str]] = []
    real = aids._KeptRows.scenario_rows

    def spy(
        self: aids._KeptRows, kind: str, scenario: str, shown: str, write: Callable[[], str]
    ) -> str:
        def counted() -> str:
            seen.append((kind, scenario))
            return write()

        return real(self, kind, scenario, shown, counted)

    monkeypatch.setattr(aids._KeptRows, "scenario_rows", spy)
    yield seen


def _uncached(game: GameData) -> object:
    return every_field(player_aids(game)[0])


@pytest.mark.parametrize("name", WITH_SCENARIOS)
def test_unchanged_scenarios_are_not_written_again(
    name: str, tmp_path: Path, written: list[tuple[str, str]]
) -> None:
    game = loaded_seed(name)
    first, _ = player_aids(game, tmp_path)
    assert written  # the first build writes every scenario's rows
    written.clear()
    again, _ = player_aids(game, tmp_path)
    assert written == []
    assert every_field(again) == every_field(first) == _uncached(game)


@pytest.mark.parametrize("name", WITH_SCENARIOS)
def test_a_renamed_unit_writes_its_scenarios_again(
    name: str, tmp_path: Path, written: list[tuple[str, str]]
) -> None:
    game = loaded_seed(name)
    player_aids(game, tmp_path)
    placed = next(
        e.unit or e.units[0] for s in game.scenarios for e in s.setup if e.unit or e.units
    )
    units = tuple(
        replace(u, name=Text("Renamed", "改名")) if u.id == placed else u for u in game.units
    )
    changed = replace(game, units=units)
    written.clear()
    charts, _ = player_aids(changed, tmp_path)
    assert every_field(charts) == _uncached(changed)
    naming = {s.id for s in game.scenarios for e in s.setup if placed in (e.unit, *e.units)}
    assert naming <= {scenario for _kind, scenario in written}


def test_a_changed_map_writes_the_rows_again(
    tmp_path: Path, written: list[tuple[str, str]]
) -> None:
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    first = game.maps[0]
    changed = replace(game, maps=(replace(first, name=Text("Elsewhere")), *game.maps[1:]))
    written.clear()
    charts, _ = player_aids(changed, tmp_path)
    assert written
    assert every_field(charts) == _uncached(changed)


@pytest.mark.parametrize("damage", ["flip", "cut", "check"])
def test_a_damaged_entry_is_written_again(
    damage: str, tmp_path: Path, written: list[tuple[str, str]]
) -> None:
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept = read_kept(stored)
    keys = _scenario_keys(game)
    assert keys and all(key in kept for key in keys)
    for key in keys:
        value = kept[key]
        if damage == "flip":  # a byte of the text changed: its CRC-32 does not match
            kept[key] = value[:-1] + bytes([value[-1] ^ 0x20])
        elif damage == "cut":
            kept[key] = value[: len(value) // 2]
        else:  # what it shows does not match
            kept[key] = bytes(32) + value[32:]
    stored.write_bytes(kept_chunk(kept))
    written.clear()
    charts, findings = player_aids(game, tmp_path)
    assert not findings
    assert sorted(set(written)) == sorted({(k, s) for k, s, _n in _scenario_places(game)})
    assert every_field(charts) == _uncached(game)


def _scenario_places(game: GameData) -> list[tuple[str, str, int]]:
    """(kind, scenario, call) of each scenario's rows the shared template writes."""
    found = []
    for scenario in game.scenarios:
        if scenario.setup:
            found.append(("setup", scenario.id, 1))
        if scenario.reinforcements:
            found.append(("arrivals", scenario.id, 1))
    return found


def _scenario_keys(game: GameData) -> list[bytes]:
    """Where the rows of each scenario are kept (see aids._KeptRows.scenario_rows)."""
    import hashlib

    seed = aids._KeptRows(aids._Store({}), game.aids_template[1]).scenario_seed
    return [
        hashlib.sha256(seed + json.dumps(list(place)).encode("utf-8")).digest()
        for place in _scenario_places(game)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "charts:\n",
        "  - a\n  - b",
        "charts:\n  - id: a\n    rows:\n      - x\n  - id: b\n",
        "\n  - \n  - ",
    ],
)
def test_item_starts_are_the_regular_expressions(text: str) -> None:
    assert aids._item_starts(text) == [m.start() for m in aids.CHART_ITEM.finditer(text)]
