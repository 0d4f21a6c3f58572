"""Attributes of records by dotted name, and selector matching ("where:" clauses)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from compiler.model.cards import Card
from compiler.model.constraints import Selector
from compiler.model.gamedata import GameData, Place
from compiler.model.units import Formation, Marker, Unit
from compiler.rules.context import Placement

MISSING = object()


def _mapping_value(values: Mapping[str, Any] | None, key: str) -> Any:
    if values is None:
        return MISSING
    return values.get(key, MISSING)


def unit_attr(game: GameData, unit: Unit, name: str) -> Any:
    head, _, rest = name.partition(".")
    if head in ("front", "back") and rest:
        return _mapping_value(unit.front if head == "front" else unit.back, rest)
    if head == "leader":
        if unit.leader is None:
            return "" if not rest else MISSING
        if not rest:
            return unit.leader.kind
        if rest in ("kind", "commands"):
            return getattr(unit.leader, rest)
        return _mapping_value(unit.leader.ratings, rest.removeprefix("ratings."))
    if head in ("category", "symbol", "shape"):
        unit_type = game.unit_type(unit.type)
        return getattr(unit_type, head) if unit_type else MISSING
    if head == "has_back":
        return unit.back is not None
    if head in _UNIT_FIELDS:
        return getattr(unit, head)
    return MISSING


_UNIT_FIELDS = frozenset(
    {
        "id",
        "side",
        "nationality",
        "type",
        "size",
        "formation",
        "title",
        "steps",
        "copies",
        "tags",
        "label",
        "back_kind",
    }
)


def marker_attr(marker: Marker, name: str) -> Any:
    if name == "id":
        return marker.id
    if name == "value":
        return marker.value if marker.value is not None else MISSING
    if name == "set":
        return marker.set.id
    if name in ("kind", "side", "title"):
        return getattr(marker.set, name)
    if name == "category":
        return "marker"
    return MISSING


def placement_attr(game: GameData, placement: Placement, name: str) -> Any:
    head, _, rest = name.partition(".")
    if head == "state" and rest:
        return _mapping_value(placement.state, rest)
    if head == "face":
        return placement.face
    if head == "at":
        return placement.at
    if head == "steps" and placement.steps is not None:
        return placement.steps
    if placement.unit is not None:
        return unit_attr(game, placement.unit, name)
    if placement.marker is not None:
        return marker_attr(placement.marker, name)
    return MISSING


def formation_attr(formation: Formation, name: str) -> Any:
    if name in (
        "id",
        "side",
        "nationality",
        "level",
        "parent",
        "title",
        "arm",
        "cavalry_only",
        "attachment_limit",
    ):
        return getattr(formation, name)
    return MISSING


def card_attr(card: Card, name: str) -> Any:
    head, _, rest = name.partition(".")
    if head == "fields" and rest:
        return _mapping_value(card.fields, rest)
    if head in ("id", "deck", "category", "type", "number", "copies"):
        return getattr(card, head)
    return _mapping_value(card.fields, name)


def place_attr(game: GameData, place: Place, name: str) -> Any:
    if name == "zone":
        return place.zones
    if name == "water":
        terrain = next((t for t in game.game.terrain if t.id == place.terrain), None)
        return bool(terrain and terrain.water)
    if name in ("id", "map", "kind", "terrain", "tags", "owner"):
        return getattr(place, name)
    return MISSING


def _equal(actual: Any, wanted: Any) -> bool:
    if isinstance(actual, bool) or isinstance(wanted, bool):
        return actual is wanted
    if isinstance(actual, int | float) and isinstance(wanted, int | float):
        return actual == wanted
    return str(actual) == str(wanted)


def value_matches(actual: Any, wanted: Any) -> bool:
    """Does an attribute value satisfy one selector entry (value, list, or "!value")?"""
    if isinstance(wanted, tuple):
        return any(value_matches(actual, w) for w in wanted)
    negate = isinstance(wanted, str) and wanted.startswith("!")
    target = wanted[1:] if negate else wanted
    if actual is MISSING:
        hit = False
    elif isinstance(actual, Collection) and not isinstance(actual, str):
        hit = any(_equal(a, target) for a in actual)
    else:
        hit = _equal(actual, target)
    return hit != negate


def matches(selector: Selector, lookup: Any) -> bool:
    """`lookup(name)` gives an attribute; every selector entry must match."""
    return all(value_matches(lookup(name), wanted) for name, wanted in selector.items())
