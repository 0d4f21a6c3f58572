"""One data file: every section optional; a game's files together form the game."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.model.cards import Card, Deck
from compiler.model.charts import Chart
from compiler.model.common import Node, doc
from compiler.model.constraints import Constraint
from compiler.model.game import Game
from compiler.model.layouts import Layout
from compiler.model.maps import GameMap
from compiler.model.scenarios import Scenario
from compiler.model.units import Formation, MarkerSet, Unit, UnitType


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile(Node):
    game: Game | None = field(default=None, metadata=doc("The game (in exactly one file)."))
    unit_types: tuple[UnitType, ...] = field(default=(), metadata=doc("Unit types."))
    formations: tuple[Formation, ...] = field(default=(), metadata=doc("Formations."))
    units: tuple[Unit, ...] = field(default=(), metadata=doc("Units, leaders and blocks."))
    markers: tuple[MarkerSet, ...] = field(default=(), metadata=doc("Markers."))
    maps: tuple[GameMap, ...] = field(default=(), metadata=doc("Maps."))
    scenarios: tuple[Scenario, ...] = field(default=(), metadata=doc("Scenarios."))
    decks: tuple[Deck, ...] = field(default=(), metadata=doc("Decks."))
    cards: tuple[Card, ...] = field(default=(), metadata=doc("Cards."))
    charts: tuple[Chart, ...] = field(default=(), metadata=doc("Charts and tables."))
    layouts: tuple[Layout, ...] = field(
        default=(), metadata=doc("Face layouts for counters, blocks, markers and cards.")
    )
    constraints: tuple[Constraint, ...] = field(
        default=(), metadata=doc("The game's rules as constraints.")
    )
