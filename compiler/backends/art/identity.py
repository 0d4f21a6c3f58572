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
from collections.abc import Sequence
from operator import is_, itemgetter
from pathlib import Path
from typing import cast

from compiler.backends.pergame import PerGame
from compiler.backends.rendercache import RenderCache, renderer_fingerprint
from compiler.model.cards import Card, Deck
from compiler.model.digests import DIGEST_LENGTH, HEX_DIGITS, content_digest, content_digests
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
        self.kinds: str | None = None
        """The digest of everything a unit's identity reads besides the unit (`_kinds`)."""

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


RUN_UNITS = 64
"""Units whose identities are kept together (`unit_identities`)."""


def unit_identities(
    game: GameData, units: Sequence[Unit], kept: RenderCache | None = None
) -> list[str]:
    """`unit_identity` of each unit, remembered for it. With `kept` (a cache), worked out by
    runs of RUN_UNITS units kept there by the content digests of their units (which the
    loader tells for the units it read back) and of what else an identity reads: a warm
    build works out the identities of the runs whose units changed, not those of thousands
    of units (a sha256 each). A run whose entry is missing or not one is worked out again."""
    remembered = _remembered(game, units)
    if remembered is not None:
        return remembered
    if kept is None:
        return [unit_identity(game, unit) for unit in units]
    owns, kinds = content_digests(units), _kinds(game)
    found: list[str] = []
    for start in range(0, len(units), RUN_UNITS):
        run = units[start : start + RUN_UNITS]
        key = (
            "identities:"
            + hashlib.sha256(
                "".join([kinds, *owns[start : start + RUN_UNITS]]).encode("ascii")
            ).hexdigest()
        )
        ids = _kept_run(kept.get(key), len(run))
        if ids is None:
            ids = [_unit_identity(game, unit) for unit in run]
            kept.put(key, "".join(ids).encode("ascii"))
        found += ids
    _memo(game).units.update(zip(map(id, units), zip(units, found, strict=True), strict=True))
    return found


IDENTITIES = "identities.pack"
"""The pack, beside the faces' cache, the units' identities are kept in by runs
(`unit_identities`)."""


def keep_identities(game: GameData, cache: Path) -> None:
    """Work out the identities of the game's units (remembered for the build) by the runs
    kept in the cache folder `cache` (IDENTITIES), before the first back end asks for one:
    the charts' scenario pictures, which come before the module, asked for 2,253 of 8,000
    one by one."""
    kept = RenderCache(cache / IDENTITIES)
    unit_identities(game, game.units, kept)
    kept.save()


def _remembered(game: GameData, units: Sequence[Unit]) -> list[str] | None:
    """The identities of `units` when every one is remembered already (looked up in passes
    that stay in C); else None."""
    memo = _MEMOS.peek(game)
    if memo is None:
        return None
    found = list(map(memo.units.get, map(id, units)))
    if None in found:
        return None
    known = cast(list[tuple[Unit, str]], found)
    if not all(map(is_, map(_FIRST, known), units)):
        return None
    return list(map(_SECOND, known))


_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def _kept_run(data: bytes | None, count: int) -> list[str] | None:
    """The identities of a run of `count` units kept as `unit_identities` keeps them (their
    hexadecimal digests back to back); None when `data` is not that."""
    # translate deletes the hexadecimal digits by a table, one pass (strip looked each byte
    # up among the 22 digits: 5 ms for a large game's runs)
    if data is None or len(data) != count * DIGEST_LENGTH or data.translate(None, _HEX):
        return None
    text = data.decode("ascii")
    return [text[at : at + DIGEST_LENGTH] for at in range(0, len(text), DIGEST_LENGTH)]


_HEX = HEX_DIGITS.encode("ascii")


def _kinds(game: GameData) -> str:
    """The digest of what a unit's identity reads besides the unit itself: every unit type,
    nationality, side and layout of the game (one of them changed, every run is worked out
    again), and the code that works identities out (the renderer's fingerprint holds it)."""
    memo = _memo(game)
    if memo.kinds is None:
        parts = (game.unit_types, game.game.nationalities, game.game.sides)
        memo.kinds = hashlib.sha256(
            ":".join((renderer_fingerprint(), memo.digest(*parts), layouts_digest(game))).encode()
        ).hexdigest()
    return memo.kinds


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
