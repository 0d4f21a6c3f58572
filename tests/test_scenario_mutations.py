"""Property-based: scenario data mutated at random (locations, ids, faces, steps, turns, state
values of every type, entries duplicated or dropped, keys deleted or misspelt) never makes
validation raise, and every finding points at a file that exists, at a line and column that
exist in it."""

from __future__ import annotations

import copy
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.pipeline import check_game
from tests.conftest import DATA, SOURCES

PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCENARIO_FILES = [
    (DATA / "mini", "scenarios/first.yaml"),
    (SOURCES / "napoleon", "scenarios/historical.yaml"),
    (SOURCES / "gcacw", "otr/scenarios.yaml"),
    (SOURCES / "asia_engulfed", "scenarios/guadalcanal-1942.yaml"),
    (SOURCES / "twilight_in_the_east", "scenarios/tannenberg.yaml"),
    (SOURCES / "tank_killers", "scenarios/german-vs-british.yaml"),
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["N1523", "brussels", "0", "", "front", "back", "$max", "!x", "~"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = ["at", "unit", "units", "marker", "face", "steps", "state", "attached_to", "note",
          "turn", "decks", "side", "hand", "id", "last_turn", "first_turn", "maps", "title"]  # fmt: skip
mutations = st.lists(
    st.tuples(
        st.sampled_from(["set", "delete", "duplicate", "drop", "rename", "state"]),
        st.sampled_from(FIELDS),
        values,
        st.integers(min_value=0, max_value=10_000),
    ),
    min_size=1,
    max_size=6,
)


def _entries(scenario: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for key in ("setup", "reinforcements", "withdrawals", "decks"):
        items = scenario.get(key)
        if isinstance(items, list):
            out.extend(items)
    return out


def mutate(data: Any, steps: list[tuple[str, str, Any, int]]) -> Any:
    """The scenarios file's data with each mutation applied to a scenario or one of its
    entries (chosen by the number drawn)."""
    data = copy.deepcopy(data)
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(scenarios, list) or not scenarios:
        return data
    for action, key, value, pick in steps:
        scenario = scenarios[pick % len(scenarios)]
        if not isinstance(scenario, dict):
            continue
        entries = _entries(scenario)
        target: Any = scenario if not entries or pick % 5 == 0 else entries[pick % len(entries)]
        if not isinstance(target, dict):
            continue
        if action == "set":
            target[key] = value
        elif action == "delete":
            target.pop(key, None)
        elif action == "rename" and key in target:
            target[key + "x"] = target.pop(key)
        elif action == "state":
            state = target.setdefault("state", {})
            if isinstance(state, dict):
                state[str(value)[:10] if pick % 2 else "cv"] = value
            else:
                target["state"] = value
        elif entries and action in ("duplicate", "drop"):
            for listing in ("setup", "reinforcements"):
                items = scenario.get(listing)
                if isinstance(items, list) and items:
                    if action == "duplicate":
                        items.append(copy.deepcopy(items[pick % len(items)]))
                    else:
                        items.pop(pick % len(items))
                    break
    return data


@contextmanager
def game_copy(folder: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as work:
        yield Path(shutil.copytree(folder, Path(work) / folder.name))


def assert_findings_point_at_real_places(folder: Path) -> None:
    report = check_game(folder)  # must not raise
    lines: dict[str, list[str]] = {}
    for finding in report.findings:
        path = Path(finding.location.path)
        assert path.is_file(), finding
        # lines end at "\n" only, as editors count them (not at U+0085 or U+2028)
        text = lines.setdefault(str(path), path.read_text(encoding="utf-8").split("\n"))
        line, column = finding.location.line, finding.location.column
        assert 1 <= line <= max(len(text), 1), finding
        assert 1 <= column <= len(text[line - 1]) + 1 if text else column == 1, finding


@pytest.mark.parametrize(("game", "name"), SCENARIO_FILES, ids=[g.name for g, _ in SCENARIO_FILES])
def test_mutated_scenarios_never_raise_and_findings_point_at_real_lines(
    game: Path, name: str
) -> None:
    original = yaml.safe_load((game / name).read_text(encoding="utf-8"))
    with game_copy(game) as folder:

        @PROFILE
        @given(steps=mutations)
        def check(steps: list[tuple[str, str, Any, int]]) -> None:
            text = yaml.safe_dump(mutate(original, steps), allow_unicode=True, sort_keys=False)
            (folder / name).write_text(text, encoding="utf-8")
            assert_findings_point_at_real_places(folder)

        check()
