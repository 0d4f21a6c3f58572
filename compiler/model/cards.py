"""Decks and cards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Scalar, Text, doc
from compiler.model.units import PieceArt

NO_FIELDS: Mapping[str, Scalar] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class Deck(Node):
    """A deck of cards under `decks:`: its owner, kind, card back and colour. Cards name the deck
    they belong to."""

    id: str = field(metadata=doc("Deck id."))
    name: Text = field(metadata=doc("Deck name."))
    side: str = field(default="", metadata=doc("Owning side; empty for a shared deck."))
    kind: Literal["formation", "tactics", "event", "other"] = field(
        default="other", metadata=doc("Deck kind.")
    )
    back: Text = field(default=NO_TEXT, metadata=doc("Text on the card back."))
    colour: str = field(default="#404040", metadata=doc("Card back colour, #rrggbb."))
    hand: bool = field(default=False, metadata=doc("Cards of this deck go into hands."))
    layout: str = field(
        default="", metadata=doc("Layout id (default: the standard card).", example="standard-card")
    )
    art: PieceArt | None = field(
        default=None,
        metadata=doc(
            "A picture for the back of every card of the deck (only `back` is used), instead "
            "of the drawn back.",
            example="{back: art/tactics-back.png}",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Card(Node):
    """One card under `cards:`, in the deck it names, with its printed fields, rules text and number
    of copies."""

    id: str = field(metadata=doc("Card id."))
    deck: str = field(metadata=doc("Deck id."))
    name: Text = field(metadata=doc("Card name."))
    number: int | None = field(default=None, metadata=doc("Printed card number."))
    category: str = field(default="", metadata=doc("Category (tactics) or card class."))
    type: str = field(default="", metadata=doc("Type code: MT, HT, Inf, Art ..."))
    fields: Mapping[str, Scalar] = field(
        default_factory=lambda: NO_FIELDS, metadata=doc("Printed values.")
    )
    text: Text = field(
        default=NO_TEXT,
        metadata=doc(
            "Effect or rules text, printed in the card's `text` slot: wrapped (Japanese between "
            "any two characters), shrunk down to the slot's min_size, and a `text-overflow` "
            "warning when it still does not fit. A card with text or abilities prints only "
            "its value boxes, not its other fields."
        ),
    )
    abilities: tuple[Text, ...] = field(
        default=(),
        metadata=doc(
            "Special abilities and restrictions, each a short line printed in bold above the text.",
            example="[{en: Same unit, ja: 同一ユニット}, {en: German only, ja: 独軍のみ}]",
        ),
    )
    copies: int = field(default=1, metadata=doc("Copies in the deck."))
    art: PieceArt | None = field(
        default=None,
        metadata=doc(
            "A picture shown and printed instead of the drawn card face (only `front` is "
            "used; the back is the deck's).",
            example="{front: art/ambush.png}",
        ),
    )
