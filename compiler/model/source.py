"""One data file: every section optional; a game's files together form the game."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.model.cards import Card, Deck
from compiler.model.charts import AidCard, Chart
from compiler.model.common import Node, doc
from compiler.model.constraints import Constraint
from compiler.model.game import Game
from compiler.model.layouts import Layout
from compiler.model.maps import GameMap
from compiler.model.scenarios import Scenario
from compiler.model.units import Formation, MarkerSet, Unit, UnitType


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile(Node):
    """One YAML data file of a game: a mapping whose top-level keys are the sections below, each
    optional. Every file under the game's folder is read and the lists merged; exactly one file
    holds `game:`."""

    game: Game | None = field(
        default=None,
        metadata=doc(
            "The game: its id, title, sides, nationalities, dice, turns, values, terrain and "
            "parameters (in exactly one file)."
        ),
    )
    unit_types: tuple[UnitType, ...] = field(
        default=(), metadata=doc("Kinds of pieces: infantry, cavalry, leader, supply ...")
    )
    formations: tuple[Formation, ...] = field(
        default=(), metadata=doc("Armies, corps, divisions and brigades, linked by `parent`.")
    )
    units: tuple[Unit, ...] = field(
        default=(), metadata=doc("Units: counters and blocks; a leader is a unit with `leader:`.")
    )
    markers: tuple[MarkerSet, ...] = field(
        default=(), metadata=doc("Marker sets; `values` makes one marker per value.")
    )
    maps: tuple[GameMap, ...] = field(
        default=(), metadata=doc("Maps: hex grids, area maps, point-to-point maps or card tables.")
    )
    scenarios: tuple[Scenario, ...] = field(
        default=(), metadata=doc("Scenarios: setup, reinforcements, withdrawals and victory.")
    )
    decks: tuple[Deck, ...] = field(default=(), metadata=doc("Decks of cards."))
    cards: tuple[Card, ...] = field(default=(), metadata=doc("Cards, each in the deck it names."))
    charts: tuple[Chart, ...] = field(default=(), metadata=doc("Charts and tables."))
    aid_cards: tuple[AidCard, ...] = field(
        default=(),
        metadata=doc("Player-aid cards: charts printed together on one page of charts.pdf."),
    )
    layouts: tuple[Layout, ...] = field(
        default=(),
        metadata=doc(
            "Face layouts for counters, blocks, markers and cards.",
            example="[{id: tall-counter, slots: [{show: name, box: [0.05, 0.4, 0.95, 0.6]}]}]",
        ),
    )
    constraints: tuple[Constraint, ...] = field(
        default=(), metadata=doc("The game's rules as constraints.")
    )
