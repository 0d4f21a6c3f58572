"""The assembled game: every record of every file, with lookups by id. Frozen after loading."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from compiler.diagnostics import Location
from compiler.model.cards import Card, Deck
from compiler.model.charts import AidCard, Chart
from compiler.model.common import Number, Text
from compiler.model.constraints import Constraint
from compiler.model.game import Game, Title
from compiler.model.layouts import Layout
from compiler.model.maps import GameMap
from compiler.model.scenarios import Scenario
from compiler.model.units import Formation, Marker, MarkerSet, Unit, UnitType


@dataclass(frozen=True, slots=True)
class Place:
    """A location a piece can be put on: a hex, area, town or box, with what rules ask of it."""

    id: str
    map: str
    kind: str
    name: Text
    terrain: str = ""
    zones: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    owner: str = ""
    port: str = ""
    loc: Location | None = None


@dataclass(frozen=True, slots=True)
class GameData:
    """A whole game as the checks and back ends see it: every record of every data file merged, with
    lookups by id. Built by the loader and frozen after loading; not written in YAML."""

    root: str
    files: tuple[str, ...]
    game: Game
    unit_types: tuple[UnitType, ...]
    formations: tuple[Formation, ...]
    units: tuple[Unit, ...]
    marker_sets: tuple[MarkerSet, ...]
    maps: tuple[GameMap, ...]
    scenarios: tuple[Scenario, ...]
    decks: tuple[Deck, ...]
    cards: tuple[Card, ...]
    charts: tuple[Chart, ...]
    constraints: tuple[Constraint, ...]
    layouts: tuple[Layout, ...] = ()
    aid_cards: tuple[AidCard, ...] = ()
    """Player-aid cards: charts printed together on one page."""
    aids: tuple[Chart, ...] = ()
    """Player aids derived from the data by the player-aids template (compiler.load.aids);
    filled in by `with_aids` before the back ends run."""
    aids_template: tuple[str, str, bool] = ("", "", False)
    """The player-aids template: (path, text, whether it is the game's own)."""
    markers: Mapping[str, Marker] = field(default_factory=dict)
    places: Mapping[str, Mapping[str, Place]] = field(default_factory=dict)
    sources: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    """Per data file the loader read with the last build's kept records: a key of its path,
    its bytes and the loader's code (compiler.load.keptread); empty when loaded without them.
    Validation keeps findings under these keys (compiler.rules.kept)."""
    kept: str = field(default="", repr=False, compare=False)
    """The file the loader keeps its records in (compiler.load.keptread.kept_path), "" for
    none: validation keeps its findings next to it."""
    _units: dict[str, Unit] = field(default_factory=dict, repr=False)
    _types: dict[str, UnitType] = field(default_factory=dict, repr=False)
    _formations: dict[str, Formation] = field(default_factory=dict, repr=False)
    _titles: dict[str, Title] = field(default_factory=dict, repr=False)
    _decks: dict[str, Deck] = field(default_factory=dict, repr=False)
    _scenario_maps: dict[str, tuple[GameMap, ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name, records in (
            ("_units", self.units),
            ("_types", self.unit_types),
            ("_formations", self.formations),
            ("_titles", self.game.titles),
            ("_decks", self.decks),
        ):
            table: dict[str, object] = {}
            for record in records:
                table.setdefault(record.id, record)
            object.__setattr__(self, name, table)

    # -- lookups (first record wins; duplicates are findings) -------------------------------
    def unit_type(self, type_id: str) -> UnitType | None:
        return self._types.get(type_id)

    def unit(self, unit_id: str) -> Unit | None:
        return self._units.get(unit_id)

    def formation(self, formation_id: str) -> Formation | None:
        return self._formations.get(formation_id)

    def title(self, title_id: str) -> Title | None:
        return self._titles.get(title_id)

    def layout(self, layout_id: str) -> Layout | None:
        return next((lay for lay in self.layouts if lay.id == layout_id), None)

    def deck(self, deck_id: str) -> Deck | None:
        return self._decks.get(deck_id)

    def param(self, name: str, title_id: str = "") -> Number | None:
        title = self.title(title_id) if title_id else None
        if title is not None and name in title.params:
            return title.params[name]
        return self.game.params.get(name)

    def scenario_maps(self, scenario: Scenario) -> tuple[GameMap, ...]:
        """The maps a scenario uses: its `maps`, else its title's and untitled maps."""
        key = f"{scenario.title}|{'|'.join(scenario.maps)}"
        found = self._scenario_maps.get(key)
        if found is None:
            if scenario.maps:
                found = tuple(m for m in self.maps if m.id in scenario.maps)
            elif scenario.title:
                found = tuple(m for m in self.maps if m.title in ("", scenario.title))
            else:
                found = self.maps
            self._scenario_maps[key] = found
        return found

    def place(self, scenario: Scenario, location_id: str) -> Place | None:
        for game_map in self.scenario_maps(scenario):
            found = self.places.get(game_map.id, {}).get(location_id)
            if found is not None:
                return found
        return None
