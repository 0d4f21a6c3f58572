"""What decides how a face looks: the records a face is drawn from, for render-cache keys.

A face's key is a digest of these records (positions in the sources excluded by their repr),
its kind, its size and its language; the module's PNGs and the print sheets' PDF forms key
their caches on the same identities, so an unchanged counter is drawn by neither again.

Digests are remembered for the game being built (one game at a time: asking about another
game forgets the last one), since the module and the sheets ask for the same faces and the
repr of the records is the slow part. A unit's own part is its content digest
(compiler.model.digests), which the loader tells for every unit it read back from the last
build: a warm build spells out only the units that changed.
"""

from __future__ import annotations

import hashlib

from compiler.backends.pergame import PerGame
from compiler.model.cards import Card, Deck
from compiler.model.digests import content_digest
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, Unit


class _Memo:
    """Digests by the identity of the records, for one game."""

    def __init__(self) -> None:
        self.digests: dict[tuple[int, ...], tuple[tuple[object, ...], str]] = {}
        self.records: dict[int, tuple[object, str]] = {}
        self.units: dict[int, tuple[Unit, str]] = {}
        """Unit identities by the unit's id() (the unit held, so that its id stays its own)."""
        self.kin: dict[tuple[str, str, str], tuple[str, ...]] = {}
        """The digests a unit's own is made with, by its type, nationality and side."""
        self.layouts: tuple[object, str] | None = None
        """The game's layouts and their digest (every face's key holds it)."""

    def single(self, record: object) -> str:
        """The digest of one record (a unit type, a nationality ...), remembered by identity."""
        found = self.records.get(id(record))
        if found is not None and found[0] is record:
            return found[1]
        value = self.digest(record)
        self.records[id(record)] = (record, value)
        return value

    def digest(self, *parts: object) -> str:
        """sha256 of the repr of `parts`, remembered while the same objects are asked about."""
        ids = tuple(map(id, parts))
        found = self.digests.get(ids)
        if found is not None and all(a is b for a, b in zip(found[0], parts, strict=True)):
            return found[1]
        value = hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()
        self.digests[ids] = (parts, value)
        return value


_MEMOS = PerGame(_Memo)


def _memo(game: GameData) -> _Memo:
    """The memo of `game`, started afresh when the game is not the last one asked about."""
    return _MEMOS.of(game)


def layouts_digest(game: GameData) -> str:
    """One short stand-in for all the game's layouts in every face's cache key."""
    memo = _memo(game)
    if memo.layouts is None or memo.layouts[0] is not game.layouts:
        memo.layouts = (game.layouts, memo.digest(game.layouts))
    return memo.layouts[1]


def unit_identity(game: GameData, unit: Unit) -> str:
    """A unit (its content digest) with its type, nationality, side and layout."""
    if _MEMOS.game is game and _MEMOS.value is not None:  # the memo's own test, inlined:
        found = _MEMOS.value.units.get(id(unit))  # every back end asks of every unit
        if found is not None and found[0] is unit:
            return found[1]
    return _unit_identity(game, unit)


def _unit_identity(game: GameData, unit: Unit) -> str:
    memo = _memo(game)
    kin = (unit.type, unit.nationality, unit.side)
    shared = memo.kin.get(kin)
    if shared is None:
        unit_type = game.unit_type(unit.type)
        layout = game.layout(unit_type.layout) if unit_type and unit_type.layout else None
        nationality = next((n for n in game.game.nationalities if n.id == unit.nationality), None)
        side = next((s for s in game.game.sides if s.id == unit.side), None)
        parts = [memo.single(part) for part in (unit_type, nationality, side, layout)]
        shared = memo.kin[kin] = (*parts, layouts_digest(game))
    own = content_digest(unit)
    value = hashlib.sha256(":".join((own, *shared)).encode("ascii")).hexdigest()
    memo.units[id(unit)] = (unit, value)
    return value


def marker_identity(game: GameData, marker: Marker) -> str:
    """A marker: its value and its set."""
    memo = _memo(game)
    return memo.digest(marker.id, marker.value, marker.set, layouts_digest(game))


def card_identity(game: GameData, card: Card) -> str:
    """A card (its deck's layout comes with the layouts)."""
    return _memo(game).digest(card, game.deck(card.deck), layouts_digest(game))


def deck_identity(game: GameData, deck: Deck) -> str:
    """A deck's back."""
    return _memo(game).digest(deck, layouts_digest(game))
