"""Per-scenario views the rules share: every piece placed, where, in which state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from compiler.diagnostics import Location
from compiler.model.gamedata import GameData, Place
from compiler.model.scenarios import Reinforcement, Scenario, SetupEntry
from compiler.model.units import Marker, Unit


@dataclass(frozen=True, slots=True)
class Placement:
    """One piece put on one location, at setup (turn 0) or as a reinforcement."""

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

    def label(self) -> str:
        return self.piece_id


@dataclass
class ScenarioView:
    scenario: Scenario
    setup: list[Placement] = field(default_factory=list)
    arrivals: list[Placement] = field(default_factory=list)

    def by_location(self) -> dict[str, list[Placement]]:
        groups: dict[str, list[Placement]] = {}
        for placement in self.setup:
            groups.setdefault(placement.at, []).append(placement)
        return groups


def _setup_placements(game: GameData, scenario: Scenario, entry: SetupEntry) -> list[Placement]:
    place = game.place(scenario, entry.at)
    ids: list[tuple[str, Location]] = []
    if entry.unit:
        ids.append((entry.unit, entry.locate("unit")))
    ids.extend((uid, entry.locate(f"units.{i}")) for i, uid in enumerate(entry.units))
    out = [
        Placement(
            scenario,
            entry,
            uid,
            loc,
            entry.at,
            place,
            game.unit(uid),
            None,
            entry.face,
            entry.state,
            entry.steps,
            0,
        )
        for uid, loc in ids
    ]
    if entry.marker:
        out.append(
            Placement(
                scenario,
                entry,
                entry.marker,
                entry.locate("marker"),
                entry.at,
                place,
                None,
                game.markers.get(entry.marker),
                entry.face,
                entry.state,
                entry.steps,
                0,
            )
        )
    return out


def scenario_view(game: GameData, scenario: Scenario) -> ScenarioView:
    view = ScenarioView(scenario)
    for entry in scenario.setup:
        view.setup.extend(_setup_placements(game, scenario, entry))
    for arrival in scenario.reinforcements:
        place = game.place(scenario, arrival.at)
        for index, uid in enumerate(arrival.units):
            view.arrivals.append(
                Placement(
                    scenario,
                    arrival,
                    uid,
                    arrival.locate(f"units.{index}"),
                    arrival.at,
                    place,
                    game.unit(uid),
                    None,
                    arrival.face,
                    arrival.state,
                    None,
                    arrival.turn,
                )
            )
    return view


@dataclass
class Context:
    """What every rule may ask: the game and lazily built scenario views."""

    game: GameData
    _views: dict[str, ScenarioView] = field(default_factory=dict)

    def view(self, scenario: Scenario) -> ScenarioView:
        cached = self._views.get(scenario.id)
        if cached is None or cached.scenario is not scenario:
            cached = scenario_view(self.game, scenario)
            self._views[scenario.id] = cached
        return cached

    def views(self) -> list[ScenarioView]:
        return [self.view(s) for s in self.game.scenarios]
