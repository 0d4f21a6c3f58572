"""Unit types, formations, units (counters and blocks), leaders and markers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Number, Scalar, Text, doc

Size = Literal["", "I", "II", "III", "X", "XX", "XXX", "XXXX", "X+"]
Symbol = Literal[
    "infantry",
    "cavalry",
    "artillery",
    "armour",
    "mechanised",
    "headquarters",
    "leader",
    "supply",
    "fortress",
    "air",
    "naval",
    "submarine",
    "marine",
    "garrison",
    "engineer",
    "militia",
    "none",
]
NO_VALUES: Mapping[str, Scalar] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class PieceArt(Node):
    """Pictures for a piece, under a unit's, a marker set's, a card's or a deck's `art:`: image
    files (PNG, JPEG, GIF or SVG, relative to the game folder) shown in the module and printed
    on the sheets instead of the drawn face; a side without a picture is drawn as usual. A unit
    with a `back` picture has a back even without back values. A card uses `front` (its back is
    its deck's); a deck uses `back`, the back of all its cards. SVG pictures are not printed."""

    front: str = field(
        default="",
        metadata=doc("Front image path, relative to the game folder.", example="art/ge-1-inf.png"),
    )
    back: str = field(
        default="",
        metadata=doc(
            "Back image path, relative to the game folder; empty for no back picture.",
            example="art/ge-1-inf-back.png",
        ),
    )

    def paths(self) -> tuple[tuple[str, str], ...]:
        """(field, path) of every image given."""
        return tuple(
            (key, path) for key, path in (("front", self.front), ("back", self.back)) if path
        )


ART_EXAMPLE = "{front: art/ge-1-inf.png, back: art/ge-1-inf-back.png}"


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitType(Node):
    """A kind of piece under `unit_types:` (infantry, cavalry, leader, supply train ...): its
    category, the symbol drawn on it, and whether it is a counter or a block. Every unit names its
    type."""

    id: str = field(metadata=doc("Unit type id, e.g. infantry, lba, corps-train."))
    name: Text = field(metadata=doc("Unit type name."))
    category: Literal["combat", "leader", "supply", "fortress", "air", "naval", "other"] = field(
        default="combat", metadata=doc("What kind of piece this is.")
    )
    symbol: Symbol = field(default="none", metadata=doc("NATO-style symbol drawn on the counter."))
    shape: Literal["counter", "block"] = field(default="counter", metadata=doc("Counter or block."))
    layout: str = field(
        default="",
        metadata=doc("Layout id (default: the standard one).", example="standard-leader"),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Formation(Node):
    """An army, corps, division or brigade under `formations:`; `parent` links it into the order of
    battle, and units name the formation they belong to."""

    id: str = field(metadata=doc("Formation id, e.g. usa-v-corps."))
    name: Text = field(metadata=doc("Formation name."))
    side: str = field(metadata=doc("Side id."))
    nationality: str = field(default="", metadata=doc("Nationality id."))
    level: Literal["army", "corps", "division", "brigade", "other"] = field(
        metadata=doc("Echelon.")
    )
    parent: str = field(default="", metadata=doc("Formation this one is attached to."))
    title: str = field(default="", metadata=doc("Series title the formation belongs to."))
    arm: Literal["infantry", "cavalry", "mixed"] = field(default="infantry", metadata=doc("Arm."))
    attachment_limit: Number | None = field(
        default=None, metadata=doc("Printed attachment limit (TitE corps and armies).")
    )
    cavalry_only: bool = field(default=False, metadata=doc("Takes cavalry formations only."))


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderInfo(Node):
    """What makes a unit a leader, under a unit's `leader:`: its level, the formation it commands
    and its ratings."""

    kind: Literal["army", "area", "corps", "division", "cavalry", "other"] = field(
        metadata=doc("Leader level.")
    )
    commands: str = field(default="", metadata=doc("Formation the leader commands."))
    ratings: Mapping[str, Scalar] = field(
        default_factory=lambda: NO_VALUES, metadata=doc("Ratings, e.g. command: 5, tactical: 3.")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit(Node):
    """One unit under `units:`: a counter or a block (a leader is a unit with `leader:`), with its
    side, type, front and back values and how many copies the counter mix holds."""

    id: str = field(metadata=doc("Unit id, stable and human: i-corps-durutte."))
    name: Text = field(
        metadata=doc("The unit's name: printed on the counter, shown in the module.")
    )
    short_name: Text = field(
        default=NO_TEXT,
        metadata=doc(
            "Shorter name printed on the counter or block when the full name would not fit "
            "(the full name stays the piece's name in the module and on the charts)."
        ),
    )
    side: str = field(metadata=doc("Side id."))
    nationality: str = field(default="", metadata=doc("Nationality id."))
    type: str = field(metadata=doc("Unit type id."))
    size: Size = field(default="", metadata=doc("Size mark: II, III, X, XX, X+ ..."))
    formation: str = field(default="", metadata=doc("Formation the unit belongs to."))
    title: str = field(default="", metadata=doc("Series title the counter belongs to."))
    front: Mapping[str, Scalar] = field(
        default_factory=lambda: NO_VALUES, metadata=doc("Front-side values.")
    )
    back: Mapping[str, Scalar] | None = field(
        default=None, metadata=doc("Back-side (reduced, exhausted) values; null for no back.")
    )
    back_kind: Literal["reduced", "exhausted", "disorganised", "extended", "none"] = field(
        default="reduced", metadata=doc("What the back side means.")
    )
    steps: int = field(default=1, metadata=doc("Steps at full strength."))
    copies: int = field(default=1, metadata=doc("Counters of this unit in the counter mix."))
    leader: LeaderInfo | None = field(default=None, metadata=doc("Leader ratings and command."))
    label: str = field(default="", metadata=doc("Small print: organisation number, e.g. 1-2."))
    tags: tuple[str, ...] = field(default=(), metadata=doc("Free tags for selectors."))
    notes: str = field(default="", metadata=doc("Notes; e.g. values illustrative."))
    art: PieceArt | None = field(
        default=None,
        metadata=doc(
            "Image files printed and shown instead of the drawn counter or block (a block's "
            "`back` is what the other side sees).",
            example=ART_EXAMPLE,
        ),
    )

    @property
    def has_back(self) -> bool:
        """Whether the piece has a back side: back values, or a back picture."""
        return self.back is not None or (self.art is not None and bool(self.art.back))


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkerSet(Node):
    """A family of markers under `markers:` (strength, fatigue, turn ...); with `values` it expands
    to one marker per value, with ids `<id>-<value>`."""

    id: str = field(metadata=doc("Marker id; with values, markers are <id>-<value>."))
    name: Text = field(metadata=doc("Marker name."))
    kind: str = field(default="", metadata=doc("Marker kind: strength, fatigue, cel, turn ..."))
    side: str = field(default="", metadata=doc("Owning side, if any."))
    title: str = field(default="", metadata=doc("Series title, if any."))
    values: tuple[Number, ...] = field(default=(), metadata=doc("Values printed, one marker each."))
    back: Text = field(default=NO_TEXT, metadata=doc("Text on the back side, if two-sided."))
    copies: int = field(default=1, metadata=doc("Copies of each marker in the counter mix."))
    colour: str = field(default="#ffffff", metadata=doc("Background colour, #rrggbb."))
    layout: str = field(
        default="",
        metadata=doc("Layout id (default: the standard marker).", example="standard-marker"),
    )
    art: PieceArt | None = field(
        default=None,
        metadata=doc(
            "Image files shown instead of the drawn marker, for every marker of the set.",
            example="{front: art/control.png, back: art/control-back.png}",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Marker:
    """One marker of a set (expanded from MarkerSet.values)."""

    id: str
    set: MarkerSet
    value: Number | None
