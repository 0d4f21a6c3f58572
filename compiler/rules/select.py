"""Attributes of records by dotted name, and selector matching ("where:" clauses)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from compiler.model.cards import Card
from compiler.model.constraints import Selector
from compiler.model.gamedata import GameData, Place
from compiler.model.units import Formation, Marker, Unit
from compiler.rules.placed import Placement

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
    if name in ("id", "map", "kind", "terrain", "tags", "owner", "port"):
        return getattr(place, name)
    return MISSING


def _norm(value: Any) -> tuple[str, Any]:
    """Selector comparison key: numbers compare as numbers, booleans as booleans, else text."""
    kind = type(value)
    if kind is str:  # most values a selector reads: tested by type first, without isinstance
        return ("s", value)
    if kind is int or kind is float:
        return ("n", float(value))
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value))
    return ("s", str(value))


@dataclass(frozen=True, slots=True)
class _Test:
    """One selector entry: a value matches if it is one of `accept`, or if there are "!" entries
    and it is none of them (`[!a, !b]` means neither a nor b)."""

    name: str
    accept: frozenset[tuple[str, Any]]
    reject: frozenset[tuple[str, Any]]

    def ok(self, actual: Any) -> bool:
        if actual is MISSING:
            return bool(self.reject)
        if (
            type(actual) not in _SCALARS
            and isinstance(actual, Collection)
            and not isinstance(actual, str)
        ):
            keys = {_norm(a) for a in actual}
            return bool(self.accept & keys) or bool(self.reject and not self.reject & keys)
        key = _norm(actual)
        return key in self.accept or bool(self.reject and key not in self.reject)


_SCALARS = frozenset({str, int, float, bool})
"""The types of most values a selector reads: none a collection of values (a string is one
value), told apart without the ABC check that `isinstance(..., Collection)` makes."""


def _compile_entry(name: str, wanted: Any) -> _Test:
    options = wanted if isinstance(wanted, tuple) else (wanted,)
    accept = frozenset(_norm(w) for w in options if not (isinstance(w, str) and w[:1] == "!"))
    reject = frozenset(_norm(w[1:]) for w in options if isinstance(w, str) and w[:1] == "!")
    return _Test(name, accept, reject)


_COMPILED: dict[int, tuple[Selector, tuple[_Test, ...]]] = {}


def compiled(selector: Selector) -> tuple[_Test, ...]:
    """The selector's tests, built once per selector object."""
    cached = _COMPILED.get(id(selector))
    if cached is None or cached[0] is not selector:
        cached = (selector, tuple(_compile_entry(n, w) for n, w in selector.items()))
        _COMPILED[id(selector)] = cached
    return cached[1]


def matches(selector: Selector, lookup: Callable[[str], Any]) -> bool:
    """`lookup(name)` gives an attribute; every selector entry must match."""
    if not selector:
        return True
    for test in compiled(selector):
        if not test.ok(lookup(test.name)):
            return False
    return True
