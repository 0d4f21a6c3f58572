"""Writing an imported scenario into the game's sources, touching no other file.

A scenario already in the data is replaced where it is written (its own `scenarios/<id>.yaml`
or a series title's `scenarios.yaml` beside others), the rest of that file kept byte for byte:
comments, other scenarios, other keys. A new scenario gets its own file under the game's (or its
title's) `scenarios/` folder. An existing scenario or file is replaced only when asked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario

BLOCK_LISTS = ("setup", "reinforcements", "withdrawals", "decks", "victory", "special_rules")


class WriteBackError(Exception):
    """The scenario cannot be written where it belongs without losing something: exit 2."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the scenario goes: a file of its own, or its place among others in a file."""

    path: Path
    shared: bool  # the scenario is in the file already: replaced in place, the rest kept
    exists: bool


def flow(value: Any) -> str:
    """One value on one line, YAML flow style."""
    text = yaml.safe_dump(
        [value], default_flow_style=True, allow_unicode=True, width=math.inf, sort_keys=False
    )
    return text.strip()[1:-1]


def scenario_lines(data: dict[str, Any], indent: int) -> list[str]:
    """The scenario as a block-sequence item (`- id: ...`) indented `indent` spaces."""
    pad = " " * (indent + 2)
    lines: list[str] = []
    for key, value in data.items():
        if key in BLOCK_LISTS and isinstance(value, list):
            lines.append(f"{pad}{key}:")
            lines += [f"{pad}  - {flow(item)}" for item in value]
        else:
            lines.append(f"{pad}{key}: {flow(value)}")
    lines[0] = " " * indent + "- " + lines[0][len(pad) :]
    return lines


def own_file_text(data: dict[str, Any], source: str) -> str:
    header = [f"# Imported from {source} by `countermix import-save`.", "scenarios:"]
    return "\n".join([*header, *scenario_lines(data, 2)]) + "\n"


def find_target(
    game: GameData, folder: Path, scenario_id: str, title: str, existing: Scenario | None
) -> Target:
    if existing is not None and existing.loc.path:
        return Target(Path(existing.loc.path), shared=True, exists=True)
    base = folder
    if title:
        titled = [s for s in game.scenarios if s.title == title and s.loc.path]
        if titled:
            base = _title_folder(folder, Path(titled[0].loc.path))
    path = base / "scenarios" / f"{scenario_id}.yaml"
    return Target(path, shared=False, exists=path.exists())


def _title_folder(game_folder: Path, scenario_file: Path) -> Path:
    """The folder of a title: the scenario file's folder (or its parent, for `scenarios/`)."""
    parent = scenario_file.parent
    if parent.name == "scenarios" and parent.parent != game_folder.parent:
        parent = parent.parent
    return parent


def spliced(text: str, scenario_id: str, data: dict[str, Any]) -> str:
    """`text` with the item of `scenarios:` whose id is `scenario_id` replaced by `data`."""
    root = yaml.compose(text)
    item = _scenario_item(root, scenario_id)
    if item is None:
        raise WriteBackError(f"scenario `{scenario_id}` is no longer in the file")
    lines = text.splitlines(keepends=True)
    start = item.start_mark.line
    end = item.end_mark.line
    if end < len(lines) and lines[end][: item.end_mark.column].strip():
        end += 1  # the item ends inside this line: keep the line with it
    end = _before_trailing_comments(lines, start, min(end, len(lines)))
    indent = max(item.start_mark.column - 2, 0)
    new = [line + "\n" for line in scenario_lines(data, indent)]
    first = lines[start]
    dash = first[: item.start_mark.column - 2]
    if dash.strip():
        raise WriteBackError("the scenario does not start its own line; cannot replace it")
    return "".join([*lines[:start], *new, *lines[end:]])


def _scenario_item(root: yaml.Node | None, scenario_id: str) -> yaml.MappingNode | None:
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if key.value != "scenarios" or not isinstance(value, yaml.SequenceNode):
            continue
        for item in value.value:
            if isinstance(item, yaml.MappingNode) and _id_of(item) == scenario_id:
                return item
    return None


def _id_of(item: yaml.MappingNode) -> str:
    for key, value in item.value:
        if key.value == "id" and isinstance(value, yaml.ScalarNode):
            return str(value.value)
    return ""


def _before_trailing_comments(lines: Sequence[str], start: int, end: int) -> int:
    """Comments and blank lines at the end of an item belong to what follows it."""
    while end > start + 1:
        stripped = lines[end - 1].strip()
        if stripped and not stripped.startswith("#"):
            break
        end -= 1
    return end
