"""Per-scenario views the rules share: every piece placed, where, in which state."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from compiler.backends.pergame import PerGameMemo
from compiler.diagnostics import Finding, Location
from compiler.model.constraints import Selector
from compiler.model.gamedata import GameData, Place
from compiler.model.scenarios import Scenario, SetupEntry
from compiler.model.units import Unit
from compiler.rules.placed import Placement
from compiler.rules.select import matches, place_attr, placement_attr

if TYPE_CHECKING:
    from compiler.rules.runs import RunCheck


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


def _setup_placements(
    game: GameData, scenario: Scenario, entry: SetupEntry, place: Place | None
) -> list[Placement]:
    """The pieces a setup entry puts on `place`, the location it names (None: none)."""
    if entry.unit and not entry.units and not entry.marker:  # most entries: one unit
        unit = entry.unit
        return [
            Placement(
                scenario,
                entry,
                unit,
                entry.locate("unit"),
                entry.at,
                place,
                game.unit(unit),
                None,
                entry.face,
                entry.state,
                entry.steps,
                0,
            )
        ]
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
    """Every piece a scenario places, at setup and as reinforcements. Remembered for the last
    game asked about (by identity; the game and its scenarios are immutable): the rules and
    several back ends (set-up pictures, saved games) ask for the same scenarios, each view
    thousands of placements at 8,000 counters. A view is read, never changed, by its users."""
    views = _VIEWS.peek(game)
    if views is None:
        before, made = _VIEWS.game, _VIEWS.value
        views = _VIEWS.of(game)
        if before is not None and made and _same_placements(before, game):
            views.update(made)  # the game with its player aids: the views validation made
    found = views.get(scenario.id)
    if found is None or found.scenario is not scenario:
        found = views[scenario.id] = _scenario_view(game, scenario)
    return found


_VIEWS: PerGameMemo[str, ScenarioView] = PerGameMemo()
"""The views of the last game's scenarios (one game: no old game is kept alive in a long
`build --watch`)."""


_PLACEMENT_FIELDS = ("game", "units", "markers", "maps", "places", "scenarios")
"""What a scenario's view is made from (its places, units and markers looked up)."""


def _same_placements(before: GameData, game: GameData) -> bool:
    """Whether `game` holds the very records `before` made its views of (a copy of it that
    adds the player aids, as a build makes after validating): the views are the same."""
    return all(getattr(before, name) is getattr(game, name) for name in _PLACEMENT_FIELDS)


def _scenario_view(game: GameData, scenario: Scenario) -> ScenarioView:
    view = ScenarioView(scenario)
    place_of = _places(game, scenario)
    for entry in scenario.setup:
        view.setup.extend(_setup_placements(game, scenario, entry, place_of(entry.at)))
    for arrival in scenario.reinforcements:
        place = place_of(arrival.at)
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


def _places(game: GameData, scenario: Scenario) -> Callable[[str], Place | None]:
    """GameData.place for one scenario, its maps' tables of places looked up once (not at
    each of the thousands of entries a large scenario holds)."""
    tables = [game.places.get(m.id, {}) for m in game.scenario_maps(scenario)]
    if len(tables) == 1:
        return tables[0].get
    if not tables:
        return lambda _at: None

    def place(location_id: str) -> Place | None:
        for table in tables:
            found = table.get(location_id)
            if found is not None:
                return found
        return None

    return place


_DYNAMIC_PREFIXES = ("state.", "at", "steps")


def _static(selector: Mapping[str, object]) -> bool:
    """True when a selector reads only what a piece is (unit, face), not where or how it starts."""
    return not any(name.startswith(_DYNAMIC_PREFIXES) for name in selector)


@dataclass
class _Memo:
    """Remembered answers of one selector (kept with it, so its id is never reused)."""

    selector: Selector
    static: bool
    answers: dict[tuple[str, str], bool] = field(default_factory=dict)


def _memo(table: dict[int, _Memo], selector: Selector) -> _Memo:
    memo = table.get(id(selector))
    if memo is None or memo.selector is not selector:
        memo = _Memo(selector, _static(selector))
        table[id(selector)] = memo
    return memo


UnitCheck = Callable[[Sequence[Unit]], list[Finding]]
"""A check of units, one by one: the findings of the units given, in their order."""
KeptUnitChecks = Callable[[str, Sequence[object], UnitCheck], list[Finding]]
"""compiler.rules.kept.KeptFindings.unit_checks."""
KeptRunChecks = Callable[[str, "RunCheck"], list[Finding]]
"""compiler.rules.kept.KeptFindings.run_checks."""


@dataclass
class Context:
    """What every rule may ask: the game, lazily built scenario views, cached selector tests."""

    game: GameData
    _views: dict[str, ScenarioView] = field(default_factory=dict)
    _piece_tests: dict[int, _Memo] = field(default_factory=dict)
    _place_tests: dict[int, _Memo] = field(default_factory=dict)
    kept_units: KeptUnitChecks | None = None
    """Checks of units kept between builds (compiler.rules.kept), when validation keeps them."""
    kept_runs: KeptRunChecks | None = None
    """Checks of every scenario's pieces kept between builds run by run (compiler.rules.kept,
    compiler.rules.runs), when validation keeps them."""

    def units_checked(self, name: str, reads: Sequence[object], check: UnitCheck) -> list[Finding]:
        """`check` over the game's units. With checks kept (`kept_units`), groups of units
        found clean by the check `name` before, when the records it `reads` besides a unit
        were the same, are not checked again (see compiler.rules.kept)."""
        if self.kept_units is None:
            return check(self.game.units)
        return self.kept_units(name, reads, check)

    def piece_matches(self, selector: Selector, placement: Placement) -> bool:
        """`matches` for a placed piece; answers for a unit and face are remembered when the
        selector reads nothing else (the same counter appears in every scenario)."""
        if not selector:
            return True
        memo = _memo(self._piece_tests, selector)
        if not memo.static:
            return matches(selector, partial(placement_attr, self.game, placement))
        key = (placement.piece_id, placement.face)
        hit = memo.answers.get(key)
        if hit is None:
            hit = matches(selector, partial(placement_attr, self.game, placement))
            memo.answers[key] = hit
        return hit

    def place_matches(self, selector: Selector, place: Place | None) -> bool:
        if place is None:
            return False
        if not selector:
            return True
        memo = _memo(self._place_tests, selector)
        key = (place.map, place.id)
        hit = memo.answers.get(key)
        if hit is None:
            hit = matches(selector, partial(place_attr, self.game, place))
            memo.answers[key] = hit
        return hit

    def view(self, scenario: Scenario) -> ScenarioView:
        cached = self._views.get(scenario.id)
        if cached is None or cached.scenario is not scenario:
            cached = scenario_view(self.game, scenario)
            self._views[scenario.id] = cached
        return cached

    def views(self) -> list[ScenarioView]:
        return [self.view(s) for s in self.game.scenarios]
