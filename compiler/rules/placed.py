"""A piece put on a location in a scenario: what the placement rules look at."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from compiler.diagnostics import Location
from compiler.model.gamedata import Place
from compiler.model.scenarios import Reinforcement, Scenario, SetupEntry
from compiler.model.units import Marker, Unit


class Placement(NamedTuple):
    """One piece put on one location, at setup (turn 0) or as a reinforcement.
    (A tuple: tens of thousands are made per validation.)"""

    scenario: Scenario
    entry: SetupEntry | Reinforcement
    piece_id: str
    loc: Location
    at: str
    place: Place | None
    unit: Unit | None
    marker: Marker | None
    face: str
    state: Mapping[str, object]
    steps: int | None
    turn: int

    @property
    def side(self) -> str:
        if self.unit is not None:
            return self.unit.side
        return self.marker.set.side if self.marker is not None else ""
