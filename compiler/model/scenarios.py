"""Scenarios: setup, reinforcements, withdrawals, victory, deck setup."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Scalar, Text, doc

NO_STATE: Mapping[str, Scalar] = MappingProxyType({})
Face = Literal["front", "back"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupEntry(Node):
    """Pieces placed at one location at the start, under a scenario's `setup:`: one `unit`, several
    `units` in the same state, or a `marker`."""

    at: str = field(metadata=doc("Location id: hex, area, town or box."))
    unit: str = field(default="", metadata=doc("One unit id."))
    units: tuple[str, ...] = field(default=(), metadata=doc("Several unit ids, same state."))
    marker: str = field(default="", metadata=doc("A marker id."))
    face: Face = field(default="front", metadata=doc("Side up."))
    steps: int | None = field(default=None, metadata=doc("Steps remaining, if reduced."))
    state: Mapping[str, Scalar] = field(
        default_factory=lambda: NO_STATE,
        metadata=doc("Starting state values: manpower, fatigue, cel ..."),
    )
    attached_to: str = field(default="", metadata=doc("Unit a leader or marker is attached to."))
    note: str = field(default="", metadata=doc("Note for the setup card."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Reinforcement(Node):
    """Units arriving during play, under a scenario's `reinforcements:`: on which turn and where
    they enter."""

    turn: int = field(metadata=doc("Turn of arrival."))
    units: tuple[str, ...] = field(metadata=doc("Arriving unit ids."))
    at: str = field(metadata=doc("Entry location."))
    face: Face = field(default="front", metadata=doc("Side up.", example="back"))
    state: Mapping[str, Scalar] = field(
        default_factory=lambda: NO_STATE, metadata=doc("State values.")
    )
    note: str = field(default="", metadata=doc("Note."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Withdrawal(Node):
    """Units leaving the game on a turn, under a scenario's `withdrawals:`."""

    turn: int = field(metadata=doc("Turn the units leave."))
    units: tuple[str, ...] = field(metadata=doc("Withdrawn unit ids."))
    note: str = field(default="", metadata=doc("Note."))


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDecks(Node):
    """The decks a side draws from and the cards in its starting hand, under a scenario's `decks:`
    (card games)."""

    side: str = field(metadata=doc("Side id."))
    decks: tuple[str, ...] = field(metadata=doc("Deck ids this side draws from."))
    hand: int = field(default=0, metadata=doc("Cards in the starting hand."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario(Node):
    """One scenario under `scenarios:`: its turns, maps, starting setup, reinforcements,
    withdrawals, victory conditions and special rules. A game may give each scenario its own
    file, `scenarios/<id>.yaml`."""

    id: str = field(metadata=doc("Scenario id."))
    name: Text = field(metadata=doc("Scenario name."))
    title: str = field(default="", metadata=doc("Series title the scenario belongs to."))
    maps: tuple[str, ...] = field(default=(), metadata=doc("Maps used (default: all)."))
    first_turn: int = field(default=1, metadata=doc("First turn."))
    last_turn: int = field(metadata=doc("Last turn."))
    year: int = field(default=0, metadata=doc("Year, where rules depend on it."))
    date: str = field(default="", metadata=doc("Date of the first turn."))
    mode: Literal["basic", "advanced", "standard"] = field(
        default="standard",
        metadata=doc("Rules the scenario is played with: basic, advanced or standard."),
    )
    description: Text = field(default=NO_TEXT, metadata=doc("Short description."))
    setup: tuple[SetupEntry, ...] = field(default=(), metadata=doc("Starting placements."))
    reinforcements: tuple[Reinforcement, ...] = field(default=(), metadata=doc("Arrivals."))
    withdrawals: tuple[Withdrawal, ...] = field(default=(), metadata=doc("Withdrawals."))
    decks: tuple[PlayerDecks, ...] = field(default=(), metadata=doc("Card games: decks per side."))
    victory: tuple[Text, ...] = field(default=(), metadata=doc("Victory conditions."))
    special_rules: tuple[Text, ...] = field(default=(), metadata=doc("Special rules."))
