"""Piece definitions: prototypes per side and unit type, counters, blocks, markers and cards.

Every piece carries the properties VASSAL's filters and reports use (id, side, nationality,
type, strength). gpids derive from ids, so saved games survive a rebuild after edits.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import add, mod
from typing import NamedTuple

from compiler.backends.vassal import encode as enc
from compiler.model.cards import Card
from compiler.model.common import is_number
from compiler.model.gamedata import GameData
from compiler.model.units import Marker, Unit

FLIP_KEY = enc.key(70)  # Ctrl-F
STEP_KEY = enc.key(83)  # Ctrl-S
RESTORE_KEY = enc.key(83, 195)  # Ctrl-Shift-S
REDUCE_KEY = enc.key(82)  # Ctrl-R
RAISE_KEY = enc.key(82, 195)  # Ctrl-Shift-R
MASK_KEY = enc.key(77)  # Ctrl-M


def assign_gpids(ids: Iterable[str]) -> dict[str, int]:
    """A stable number per id: CRC-32 of the id, moved on past any collision (ids in order)."""
    ordered = sorted(set(ids))
    crcs = map(zlib.crc32, map(str.encode, ordered))  # passes that stay in C (8,000 units)
    numbers = list(map(add, map(mod, crcs, repeat(900_000_000)), repeat(1000)))
    if len(set(numbers)) == len(numbers):  # no collision (the usual): each its own CRC-32's
        return dict(zip(ordered, numbers, strict=True))
    taken: dict[int, str] = {}
    out: dict[str, int] = {}
    for ident in ordered:
        number = zlib.crc32(ident.encode("utf-8")) % 900_000_000 + 1000
        while number in taken:
            number += 1
        taken[number] = ident
        out[ident] = number
    return out


class Images(NamedTuple):
    """Image file names (inside images/) of one piece. (A named tuple: one per piece, made
    in passes that stay in C: `Images._make`.)"""

    front: str
    back: str = ""
    steps: tuple[str, ...] = ()  # overlays for 1, 2, ... steps lost


def side_name(game: GameData, side_id: str) -> str:
    for side in game.game.sides:
        if side.id == side_id:
            return side.name.en
    return side_id


def side_prototype_name(game: GameData, side_id: str) -> str:
    return f"Side {side_name(game, side_id)}"


def type_prototype_name(type_id: str) -> str:
    return f"Type {type_id}"


def prototypes(game: GameData) -> list[tuple[str, list[enc.Trait]]]:
    """One prototype per side and per unit type: the traits those pieces share."""
    out: list[tuple[str, list[enc.Trait]]] = []
    for side in game.game.sides:
        out.append(
            (
                side_prototype_name(game, side.id),
                [
                    enc.report(
                        [FLIP_KEY, STEP_KEY, REDUCE_KEY],
                        "$location$: $newPieceName$ $menuCommand$ *",
                    ),
                    enc.delete(),
                    enc.marker([("Side", side.name.en)]),
                    enc.basic_piece(""),
                ],
            )
        )
    for unit_type in game.unit_types:
        out.append(
            (
                type_prototype_name(unit_type.id),
                [
                    enc.marker([("UnitType", unit_type.id), ("Category", unit_type.category)]),
                    enc.basic_piece(""),
                ],
            )
        )
    return out


def _strength(unit: Unit) -> str:
    for value in unit.front.values():
        if is_number(value):
            return f"{value:g}" if isinstance(value, float) else str(value)
    return ""


def unit_properties(game: GameData, unit: Unit) -> list[tuple[str, str]]:
    return [
        ("UnitId", unit.id),
        ("Nationality", unit.nationality),
        ("Formation", unit.formation),
        ("Size", unit.size),
        ("Strength", _strength(unit)),
        ("Steps", str(unit.steps)),
    ]


def _step_layer(images: Images) -> list[enc.Trait]:
    if not images.steps:
        return []
    names = ["", *(f"+ (-{n})" for n in range(1, len(images.steps) + 1))]
    return [
        enc.layer(
            "Steps lost",
            ["", *images.steps],
            names,
            "Lose step",
            STEP_KEY,
            "Restore step",
            RESTORE_KEY,
            loop=False,
            description="Step losses",
        )
    ]


def counter_traits(
    game: GameData,
    unit: Unit,
    images: Images,
    *,
    face: str = "front",
    lost: int = 0,
    at: tuple[str, int, int] = ("null", 0, 0),
    gpid: int = 0,
) -> list[enc.Trait]:
    """A counter: prototypes, step-loss layer, flip layer, properties, basic piece."""
    traits = [
        enc.prototype(side_prototype_name(game, unit.side)),
        enc.prototype(type_prototype_name(unit.type)),
    ]
    steps = _step_layer(images)
    if steps:
        steps[0] = enc.Trait(steps[0].type, str(lost + 1))
    traits += steps
    basic_image = images.front
    if images.back:
        flip = enc.layer(
            "Face",
            [images.front, images.back],
            ["", "+ (back)"],
            "Flip",
            FLIP_KEY,
            description="Front and back",
        )
        traits.append(enc.Trait(flip.type, "2" if face == "back" else "1"))
        basic_image = ""
    traits.append(enc.marker(unit_properties(game, unit)))
    traits.append(enc.basic_piece(unit.name.en, basic_image, *at, gpid=str(gpid)))
    return traits


def block_traits(
    game: GameData,
    unit: Unit,
    images: Images,
    *,
    strength: int | None = None,
    at: tuple[str, int, int] = ("null", 0, 0),
    gpid: int = 0,
) -> list[enc.Trait]:
    """A block: masked from the other side, turned a quarter per step lost."""
    full = int(unit.front.get("cv", unit.steps)) if is_number(unit.front.get("cv")) else unit.steps
    turned = (full - strength) % 4 if strength is not None else 0
    rotate = enc.rotate(4, REDUCE_KEY, RAISE_KEY, "Reduce one step", "Restore one step", "Strength")
    return [
        enc.mask(images.back, "Hide from opponent", MASK_KEY),
        enc.prototype(side_prototype_name(game, unit.side)),
        enc.prototype(type_prototype_name(unit.type)),
        enc.Trait(rotate.type, str(turned)),
        enc.marker(unit_properties(game, unit)),
        enc.basic_piece(unit.name.en, images.front, *at, gpid=str(gpid)),
    ]


def marker_traits(
    marker: Marker,
    images: Images,
    *,
    face: str = "front",
    at: tuple[str, int, int] = ("null", 0, 0),
    gpid: int = 0,
) -> list[enc.Trait]:
    traits: list[enc.Trait] = [enc.delete()]
    basic_image = images.front
    if images.back:
        flip = enc.layer("Face", [images.front, images.back], ["", "+ (back)"], "Flip", FLIP_KEY)
        traits.append(enc.Trait(flip.type, "2" if face == "back" else "1"))
        basic_image = ""
    value = "" if marker.value is None else f"{marker.value:g}"
    traits.append(
        enc.marker([("MarkerId", marker.id), ("MarkerKind", marker.set.kind), ("Value", value)])
    )
    name = marker.set.name.en + (f" {value}" if value else "")
    traits.append(enc.basic_piece(name, basic_image, *at, gpid=str(gpid)))
    return traits


def card_traits(card: Card, face_image: str, back_image: str, gpid: int) -> list[enc.Trait]:
    fields = [(k, str(v)) for k, v in card.fields.items() if k.isidentifier()][:8]
    return [
        enc.Trait(
            enc.join(
                [
                    "obs",
                    FLIP_KEY,
                    back_image,
                    "Flip",
                    "B",
                    "?",
                    "player:",
                    "Peek",
                    "",
                    "true",
                    "",
                    "",
                ],
                ";",
            ),
            "null;",
        ),
        enc.delete(),
        enc.marker(
            [
                ("CardId", card.id),
                ("Deck", card.deck),
                ("Category", card.category),
                ("CardType", card.type),
                *fields,
            ]
        ),
        enc.basic_piece(card.name.en, face_image, gpid=str(gpid)),
    ]


PrototypeTable = dict[str, list[enc.Trait]]
"""The traits of each prototype (its BasicPiece left out) by the type of a reference to it."""


def prototype_table(game: GameData) -> PrototypeTable:
    return {enc.prototype(name).type: body[:-1] for name, body in prototypes(game)}


def expand_prototypes(
    game: GameData, traits: Sequence[enc.Trait], table: PrototypeTable | None = None
) -> list[enc.Trait]:
    """Prototype references replaced by the prototype's own traits, as VASSAL writes pieces in
    saves: a piece loaded from a save does not look its prototypes up again (3.6). Pass the
    `prototype_table` of the game when expanding many pieces: it is built once then."""
    if table is None:
        table = prototype_table(game)
    out: list[enc.Trait] = []
    for trait in traits:
        out.extend(table.get(trait.type, (trait,)))
    return out
