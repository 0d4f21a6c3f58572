"""What is compared: the game's records section by section, keyed by id, and each scenario's
placements normalised per piece (entry order and grouping do not count)."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from compiler.model.gamedata import GameData
from compiler.model.maps import Hex
from compiler.model.scenarios import Scenario
from compiler.semdiff.walk import Delta, Digests, Walk, canon, clean, record_text, show

Found = tuple[str, str, str, Delta]
"""(section, id, scenario, (kind, field, old, new))."""


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    records: Callable[[GameData], Mapping[str, Any]]
    skip: frozenset[str] = frozenset()
    rename: str = "name"
    """The field whose change is a renaming."""


def by_id(records: Iterable[Any], attr: str = "id") -> dict[str, Any]:
    """Records by id; the first wins, as in the game's lookups (a duplicate is a finding)."""
    table: dict[str, Any] = {}
    for record in records:
        table.setdefault(str(getattr(record, attr)), record)
    return table


def _locations(game: GameData) -> dict[str, Any]:
    """Every location of every map, `map/location`: each hex of the grid as it ends up (sheet
    terrain unless its `hexes:` entry says otherwise), areas, towns and boxes as written."""
    table: dict[str, Any] = {}
    for game_map in game.maps:
        if game_map.grid is not None:
            entries = by_id(game_map.grid.hexes)
            for place in game.places.get(game_map.id, {}).values():
                if place.kind != "hex":
                    continue
                entry = entries.get(place.id)
                base = entry if isinstance(entry, Hex) else Hex(id=place.id)
                table.setdefault(
                    f"{game_map.id}/{place.id}",
                    dataclasses.replace(base, terrain=place.terrain, name=place.name),
                )
        records: tuple[Any, ...] = (*game_map.areas, *game_map.towns, *game_map.boxes)
        for record in records:
            table.setdefault(f"{game_map.id}/{record.id}", record)
    return table


_GAME_LISTS = frozenset({"sides", "nationalities", "dice", "turns", "values", "terrain", "titles"})
SECTIONS = (
    Section("game", lambda g: {"": g.game}, _GAME_LISTS, rename="title"),
    Section("title", lambda g: by_id(g.game.titles)),
    Section("side", lambda g: by_id(g.game.sides)),
    Section("nationality", lambda g: by_id(g.game.nationalities)),
    Section("die", lambda g: by_id(g.game.dice)),
    Section("turn", lambda g: by_id(g.game.turns, "n")),
    Section("value", lambda g: by_id(g.game.values)),
    Section("terrain", lambda g: by_id(g.game.terrain)),
    Section("unit-type", lambda g: by_id(g.unit_types)),
    Section("formation", lambda g: by_id(g.formations)),
    Section("unit", lambda g: by_id(g.units)),
    Section("marker", lambda g: by_id(g.marker_sets)),
    Section("map", lambda g: by_id(g.maps), frozenset({"areas", "towns", "boxes", "grid.hexes"})),
    Section("location", _locations),
    Section("deck", lambda g: by_id(g.decks)),
    Section("card", lambda g: by_id(g.cards)),
    Section("chart", lambda g: by_id(g.charts)),
    Section("layout", lambda g: by_id(g.layouts)),
    Section("rule", lambda g: by_id(g.constraints)),
    Section(
        "scenario",
        lambda g: by_id(g.scenarios),
        frozenset({"setup", "reinforcements", "withdrawals"}),
    ),
)
PIECE_SECTIONS = ("placement", "reinforcement", "withdrawal")
ORDER = (*(s.name for s in SECTIONS), *PIECE_SECTIONS)


def natural(key: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: numbers inside ids by value (turn 10 after turn 9)."""
    parts: list[tuple[int, int | str]] = []
    digits = ""
    for char in key + "\0":
        if char.isdigit() and char.isascii():
            digits += char
            continue
        if digits:
            parts.append((0, int(digits)))
            digits = ""
        parts.append((1, char))
    return tuple(parts)


def _what(record: Any) -> str:
    """How an added or removed record is named: its name, if it has one."""
    name = getattr(record, "name", None) or getattr(record, "title", None)
    return show(name) if name is not None and not isinstance(name, str) else ""


def diff_section(
    section: Section, old: GameData, new: GameData, digests: Digests
) -> Iterator[Found]:
    olds, news = section.records(old), section.records(new)
    for key in sorted(olds.keys() | news.keys(), key=natural):
        ident = new.game.id if section.name == "game" else key
        before, after = olds.get(key), news.get(key)
        if before is None:
            yield section.name, ident, "", ("added", "", "", _what(after))
        elif after is None:
            yield section.name, ident, "", ("removed", "", _what(before), "")
        else:
            for kind, path, was, now in Walk(digests, section.skip).compare(before, after):
                kind = "renamed" if kind == "changed" and path == section.rename else kind
                yield section.name, ident, "", (kind, path, was, now)


def aids_template(old: GameData, new: GameData) -> Iterator[Found]:
    """The game's own player-aids template (the shipped one is the same for both)."""
    before, after = _template(old), _template(new)
    if before != after:
        yield "game", new.game.id, "", ("changed", "player aids template", before, after)


def _template(game: GameData) -> str:
    path, body, own = game.aids_template
    if not own:
        return "shipped"
    name = path.replace("\\", "/").rpartition("/")[2]
    return f"{clean(name, 40)} #{hashlib.sha256(body.encode('utf-8', 'replace')).hexdigest()[:8]}"


# -- placements ---------------------------------------------------------------------------------
_PIECE_FIELDS = frozenset({"unit", "units", "marker"})


def _setups(scenario: Scenario) -> dict[str, list[Any]]:
    pieces: dict[str, list[Any]] = {}
    for entry in scenario.setup:
        for unit in (entry.unit, *entry.units):
            if unit:
                one = dataclasses.replace(entry, unit=unit, units=(), marker="")
                pieces.setdefault(unit, []).append(one)
        if entry.marker:
            one = dataclasses.replace(entry, unit="", units=())
            pieces.setdefault(entry.marker, []).append(one)
    return pieces


def _per_unit(entries: Iterable[Any]) -> dict[str, list[Any]]:
    pieces: dict[str, list[Any]] = {}
    for entry in entries:
        for unit in entry.units:
            pieces.setdefault(unit, []).append(dataclasses.replace(entry, units=(unit,)))
    return pieces


def diff_placements(old: GameData, new: GameData, digests: Digests) -> Iterator[Found]:
    olds, news = by_id(old.scenarios), by_id(new.scenarios)
    for sid in sorted(olds.keys() & news.keys(), key=natural):
        before, after = olds[sid], news[sid]
        for section, pieces in (
            ("placement", _setups),
            ("reinforcement", lambda s: _per_unit(s.reinforcements)),
            ("withdrawal", lambda s: _per_unit(s.withdrawals)),
        ):
            yield from _diff_pieces(section, sid, pieces(before), pieces(after), digests)


def _diff_pieces(
    section: str, sid: str, olds: dict[str, list[Any]], news: dict[str, list[Any]], digests: Digests
) -> Iterator[Found]:
    for piece in sorted(olds.keys() | news.keys(), key=natural):
        pairs, gone, came = _pair(olds.get(piece, []), news.get(piece, []))
        for record in gone:
            yield section, piece, sid, ("removed", "", record_text(record, _PIECE_FIELDS), "")
        for record in came:
            yield section, piece, sid, ("added", "", "", record_text(record, _PIECE_FIELDS))
        for before, after in pairs:
            for kind, path, was, now in Walk(digests, _PIECE_FIELDS).compare(before, after):
                yield section, piece, sid, ("moved" if path == "at" else kind, path, was, now)


def _pair(olds: list[Any], news: list[Any]) -> tuple[list[tuple[Any, Any]], list[Any], list[Any]]:
    """Match a piece's placements: identical ones drop out, then same location, then in order;
    what is left was removed or added. The order of the entries never matters."""
    left = sorted(olds, key=lambda r: repr(canon(r)))
    right = sorted(news, key=lambda r: repr(canon(r)))
    for record in list(left):
        same = next((r for r in right if canon(r) == canon(record)), None)
        if same is not None:
            left = [r for r in left if r is not record]
            right = [r for r in right if r is not same]
    pairs: list[tuple[Any, Any]] = []
    for record in list(left):
        here = getattr(record, "at", None)
        match = next((r for r in right if getattr(r, "at", None) == here), None)
        if match is not None:
            pairs.append((record, match))
            left = [r for r in left if r is not record]
            right = [r for r in right if r is not match]
    pairs.extend(zip(left, right, strict=False))
    return pairs, left[len(right) :], right[len(left) :]
