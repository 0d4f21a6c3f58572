"""The locations of each map: generated hex ids, areas, towns and boxes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import cast

from compiler.diagnostics import Finding, Location, Related
from compiler.load.records import record_maker
from compiler.model.common import Text
from compiler.model.gamedata import Place
from compiler.model.maps import GameMap, HexGrid

PlaceTable = dict[str, dict[str, Place]]
MAX_HEXES = 250_000
"""Hexes a map's sheets may hold together (a monster game has tens of thousands)."""
_WIDE_FIELD = re.compile(r"\{[^{}]*:[^{}]*[0-9]{3}[^{}]*\}")


def hex_ids(grid: HexGrid) -> Iterable[tuple[str, str, int, int]]:
    """(hex id, sheet id, column, row) for every hex of every sheet, in sheet order."""
    for sheet in grid.sheets:
        first_col, last_col = sheet.columns
        first_row, last_row = sheet.rows
        for col in range(first_col, last_col + 1):
            for row in range(first_row, last_row + 1):
                yield grid.id_format.format(sheet=sheet.id, col=col, row=row), sheet.id, col, row


def _grid_problem(grid: HexGrid) -> Finding | None:
    """A grid too large to list its hexes, or an id format that makes huge ids."""
    total = 0
    for index, sheet in enumerate(grid.sheets):
        columns = sheet.columns[1] - sheet.columns[0] + 1
        rows = sheet.rows[1] - sheet.rows[0] + 1
        total += max(columns, 0) * max(rows, 0)
        if total > MAX_HEXES:
            return Finding(
                "wrong-type",
                grid.locate(f"sheets.{index}"),
                f"sheet `{sheet.id}` takes the map past {MAX_HEXES:,} hexes "
                f"({columns:,} columns × {rows:,} rows)",
                "check the sheet's first and last column and row",
            )
    if _WIDE_FIELD.search(grid.id_format):
        return Finding(
            "wrong-type",
            grid.locate("id_format"),
            "hex id format pads a field to 100 characters or more",
            "use {sheet}, {col} and {row}, e.g. '{sheet}{col:02d}{row:02d}'",
        )
    return None


def _hex_places(game_map: GameMap, grid: HexGrid, findings: list[Finding]) -> dict[str, Place]:
    problem = _grid_problem(grid)
    if problem is not None:
        findings.append(problem)
        return {}
    try:
        ids = list(hex_ids(grid))
    except (KeyError, ValueError, IndexError) as err:
        findings.append(
            Finding(
                "wrong-type",
                grid.locate("id_format"),
                f"hex id format cannot be used: {err}",
                "use {sheet}, {col} and {row}, e.g. '{sheet}{col:02d}{row:02d}'",
            )
        )
        return {}
    defaults = {sheet.id: sheet.terrain for sheet in grid.sheets}
    made = _hex_maker()
    table = {hid: made(hid, game_map.id, defaults[sheet], grid.loc) for hid, sheet, _c, _r in ids}
    for entry in grid.hexes:
        base = table.get(entry.id)
        if base is None:
            findings.append(
                Finding(
                    "unknown-location",
                    entry.locate("id"),
                    f"hex `{entry.id}` is not on any sheet of map `{game_map.id}`",
                    "check the sheet's column and row ranges",
                )
            )
            continue
        table[entry.id] = Place(
            entry.id,
            game_map.id,
            "hex",
            entry.name if entry.name.en else base.name,
            entry.terrain or base.terrain,
            frozenset(entry.zones),
            frozenset(entry.features),
            loc=entry.loc,
        )
    return table


HexMaker = Callable[[str, str, str, Location | None], Place]
"""(hex id, map id, terrain, where) → the hex's place, with its id as its name."""


@cache
def _hex_maker() -> HexMaker:
    """What `Place(hex_id, map_id, "hex", Text(hex_id), terrain, loc=where)` makes, made by
    the records' makers (compiler.load.records.record_maker): every load makes a place per
    hex of each map (some 3,400 at 8,000 counters, a fifth of a warm load), and a frozen
    dataclass's __init__ cost four times as much. The dataclasses' own when a maker is
    missing."""
    place, text = record_maker(Place), record_maker(Text)
    if place is None or text is None:
        return _hex_place
    empty: frozenset[str] = frozenset()

    def made(hex_id: str, map_id: str, terrain: str, where: Location | None) -> Place:
        return cast(
            Place,
            place(hex_id, map_id, "hex", text(hex_id, ""), terrain, empty, empty, "", "", where),
        )

    return made


def _hex_place(hex_id: str, map_id: str, terrain: str, where: Location | None) -> Place:
    return Place(hex_id, map_id, "hex", Text(hex_id), terrain, loc=where)


def _add(table: dict[str, Place], place: Place, findings: list[Finding]) -> None:
    first = table.get(place.id)
    if first is not None:
        assert place.loc is not None and first.loc is not None
        findings.append(
            Finding(
                "duplicate-id",
                place.loc,
                f"location `{place.id}` is defined twice on map `{place.map}`",
                "location ids must be unique on a map",
                related=(Related(first.loc, "first defined here"),),
            )
        )
        return
    table[place.id] = place


def build_places(maps: tuple[GameMap, ...]) -> tuple[PlaceTable, list[Finding]]:
    findings: list[Finding] = []
    places: PlaceTable = {}
    for game_map in maps:
        table: dict[str, Place] = {}
        if game_map.grid is not None:
            table.update(_hex_places(game_map, game_map.grid, findings))
        for area in game_map.areas:
            _add(
                table,
                Place(
                    area.id,
                    game_map.id,
                    area.kind,
                    area.name,
                    area.terrain,
                    frozenset(area.zones),
                    frozenset(area.tags),
                    area.owner,
                    area.port,
                    loc=area.loc,
                ),
                findings,
            )
        for town in game_map.towns:
            _add(
                table,
                Place(
                    town.id,
                    game_map.id,
                    "town",
                    town.name,
                    "",
                    frozenset(town.zones),
                    frozenset(town.tags),
                    loc=town.loc,
                ),
                findings,
            )
        for box in game_map.boxes:
            _add(
                table,
                Place(
                    box.id,
                    game_map.id,
                    "box",
                    box.name,
                    "",
                    frozenset(),
                    frozenset({box.kind, *box.tags}),
                    box.side,
                    loc=box.loc,
                ),
                findings,
            )
        places[game_map.id] = table
    return places, findings
