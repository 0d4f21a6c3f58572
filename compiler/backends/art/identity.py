"""What decides how a face looks: the records a face is drawn from, for render-cache keys.

A face's key is a digest of these records (positions in the sources excluded by their repr),
its kind, its size and its language; the module's PNGs and the print sheets' PDF forms key
their caches on the same identities, so an unchanged counter is drawn by neither again.
"""

from __future__ import annotations

import hashlib

from compiler.model.cards import Card, Deck
from compiler.model.gamedata import GameData
from compiler.model.layouts import Layout
from compiler.model.units import Marker, Unit

_DIGESTS: dict[int, tuple[tuple[Layout, ...], str]] = {}


def layouts_digest(game: GameData) -> str:
    """One short stand-in for all the game's layouts in every face's cache key.

    Remembered by the identity of the layouts tuple (hashing it is as slow as the digest)."""
    layouts = game.layouts
    found = _DIGESTS.get(id(layouts))
    if found is None or found[0] is not layouts:
        if len(_DIGESTS) > 16:
            _DIGESTS.clear()
        found = (layouts, hashlib.sha256(repr(layouts).encode("utf-8")).hexdigest())
        _DIGESTS[id(layouts)] = found
    return found[1]


_MEMO: dict[tuple[int, ...], tuple[tuple[object, ...], str]] = {}


def _digest(*parts: object) -> str:
    """The digest of some records, remembered while the same record objects are alive
    (the module and the sheets ask for the same faces; repr of a record is the slow part)."""
    ids = tuple(map(id, parts))
    found = _MEMO.get(ids)
    if found is not None and all(a is b for a, b in zip(found[0], parts, strict=True)):
        return found[1]
    if len(_MEMO) > 100_000:
        _MEMO.clear()
    value = hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()
    _MEMO[ids] = (parts, value)
    return value


_UNITS: dict[tuple[int, int], tuple[GameData, Unit, str]] = {}


def unit_identity(game: GameData, unit: Unit) -> str:
    """A unit with its type, nationality, side and layout."""
    found = _UNITS.get((id(game), id(unit)))
    if found is not None and found[0] is game and found[1] is unit:
        return found[2]
    if len(_UNITS) > 100_000:
        _UNITS.clear()
    value = _unit_digest(game, unit)
    _UNITS[(id(game), id(unit))] = (game, unit, value)
    return value


def _unit_digest(game: GameData, unit: Unit) -> str:
    unit_type = game.unit_type(unit.type)
    layout = game.layout(unit_type.layout) if unit_type and unit_type.layout else None
    nationality = next((n for n in game.game.nationalities if n.id == unit.nationality), None)
    side = next((s for s in game.game.sides if s.id == unit.side), None)
    return _digest(unit, unit_type, nationality, side, layout, layouts_digest(game))


def marker_identity(game: GameData, marker: Marker) -> str:
    """A marker: its value and its set."""
    return _digest(marker.id, marker.value, marker.set, layouts_digest(game))


def card_identity(game: GameData, card: Card) -> str:
    """A card (its deck's layout comes with the layouts)."""
    return _digest(card, game.deck(card.deck), layouts_digest(game))


def deck_identity(game: GameData, deck: Deck) -> str:
    """A deck's back."""
    return _digest(deck, layouts_digest(game))
