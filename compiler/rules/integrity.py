"""Built-in integrity rules: references resolve, locations exist, turns fit, no double use."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from compiler.diagnostics import Finding, Location, Related
from compiler.load.convert import suggest
from compiler.model.common import Node
from compiler.model.game import Turn
from compiler.model.gamedata import GameData
from compiler.model.layouts import Slot
from compiler.model.scenarios import Reinforcement, Scenario, SetupEntry, Withdrawal
from compiler.model.units import Unit
from compiler.rules.context import Context, ScenarioView
from compiler.rules.paths import check_paths
from compiler.rules.placed import Placement
from compiler.rules.runs import Run, whole

COLOUR = re.compile(r"#[0-9a-fA-F]{6}\Z")


def _ref(rule_what: str, value: str, known: Iterable[str], loc: Location) -> Finding:
    choices = list(known)
    hint = suggest(value, choices) or (
        f"defined {rule_what}s: "
        + ", ".join(sorted(choices)[:12])
        + (" ..." if len(choices) > 12 else "")
        if choices
        else f"no {rule_what} is defined yet"
    )
    return Finding("unresolved-reference", loc, f"unknown {rule_what} `{value}`", hint)


class Refs:
    """Collects unresolved-reference findings against the game's id tables."""

    def __init__(self, tables: dict[str, set[str]], findings: list[Finding]) -> None:
        self.tables = tables
        self.findings = findings

    @classmethod
    def for_game(cls, game: GameData) -> Refs:
        g = game.game
        tables: dict[str, set[str]] = {
            "side": {s.id for s in g.sides},
            "nationality": {n.id for n in g.nationalities},
            "unit type": {t.id for t in game.unit_types},
            "formation": {f.id for f in game.formations},
            "title": {t.id for t in g.titles},
            "unit": {u.id for u in game.units},
            "marker": set(game.markers),
            "map": {m.id for m in game.maps},
            "deck": {d.id for d in game.decks},
            "terrain": {t.id for t in g.terrain},
            "scenario": {s.id for s in game.scenarios},
            "marker set": {m.id for m in game.marker_sets},
            "layout": {lay.id for lay in game.layouts},
            "chart": {c.id for c in game.charts},
        }
        return cls(tables, [])

    def scoped(self, **extra: set[str]) -> Refs:
        """The same tables plus map-local ones (zones, locations); findings are shared."""
        return Refs({**self.tables, **extra}, self.findings)

    def check(self, what: str, record: Node, key: str, value: str) -> None:
        if value and value not in self.tables[what]:
            self.findings.append(_ref(what, value, self.tables[what], record.locate(key)))

    def check_all(self, what: str, record: Node, key: str, values: Iterable[str]) -> None:
        for index, value in enumerate(values):
            self.check(what, record, f"{key}.{index}", value)


def _game_refs(ctx: Context, refs: Refs) -> None:
    game = ctx.game
    for nat in game.game.nationalities:
        refs.check("side", nat, "side", nat.side)
    reads = (game.game, *game.unit_types, *game.formations)  # the tables a unit's refs use
    refs.findings.extend(ctx.units_checked("unit-refs", reads, partial(_unit_refs, refs)))
    for formation in game.formations:
        refs.check("side", formation, "side", formation.side)
        refs.check("nationality", formation, "nationality", formation.nationality)
        refs.check("formation", formation, "parent", formation.parent)
        refs.check("title", formation, "title", formation.title)
    for unit_type in game.unit_types:
        refs.check("layout", unit_type, "layout", unit_type.layout)
    for marker_set in game.marker_sets:
        refs.check("layout", marker_set, "layout", marker_set.layout)
        refs.check("side", marker_set, "side", marker_set.side)
        refs.check("title", marker_set, "title", marker_set.title)
    for deck in game.decks:
        refs.check("side", deck, "side", deck.side)
        refs.check("layout", deck, "layout", deck.layout)
    for card in game.cards:
        refs.check("deck", card, "deck", card.deck)
    for chart in game.charts:
        refs.check("title", chart, "title", chart.title)
        for row in chart.rows:
            refs.check("terrain", row, "terrain", row.terrain)
            refs.check_all("unit", row, "pieces", [p.partition(":")[0] for p in row.pieces])
    for aid_card in game.aid_cards:
        refs.check_all("chart", aid_card, "charts", aid_card.charts)


def _unit_refs(refs: Refs, units: Sequence[Unit]) -> list[Finding]:
    """The unresolved references of `units`, in their order."""
    found = Refs(refs.tables, [])
    for unit in units:
        found.check("side", unit, "side", unit.side)
        found.check("nationality", unit, "nationality", unit.nationality)
        found.check("unit type", unit, "type", unit.type)
        found.check("formation", unit, "formation", unit.formation)
        found.check("title", unit, "title", unit.title)
        if unit.leader is not None:
            found.check("formation", unit.leader, "commands", unit.leader.commands)
    return found.findings


def _map_refs(game: GameData, refs: Refs) -> None:
    for game_map in game.maps:
        refs.check("title", game_map, "title", game_map.title)
        local = refs.scoped(
            zone={z.id for z in game_map.zones},
            location=set(game.places.get(game_map.id, {})),
        )
        if game_map.grid is not None:
            for sheet in game_map.grid.sheets:
                local.check("terrain", sheet, "terrain", sheet.terrain)
            for hex_ in game_map.grid.hexes:
                local.check("terrain", hex_, "terrain", hex_.terrain)
                local.check_all("zone", hex_, "zones", hex_.zones)
            for side in game_map.grid.hexsides:
                local.check("terrain", side, "feature", side.feature)
                local.check_all("location", side, "between", side.between)
        for area in game_map.areas:
            local.check("terrain", area, "terrain", area.terrain)
            local.check_all("zone", area, "zones", area.zones)
            local.check("nationality", area, "owner", area.owner)
        for town in game_map.towns:
            local.check_all("zone", town, "zones", town.zones)
        for link in game_map.links:
            local.check_all("location", link, "ends", link.ends)
        for box in game_map.boxes:
            local.check("side", box, "side", box.side)


def _scenario_refs(game: GameData, refs: Refs) -> None:
    for scenario in game.scenarios:
        refs.check("title", scenario, "title", scenario.title)
        refs.check_all("map", scenario, "maps", scenario.maps)
        for entry in scenario.setup:  # its pieces: _scenario_entries
            refs.check("unit", entry, "attached_to", entry.attached_to)
        for leaving in scenario.withdrawals:
            refs.check_all("unit", leaving, "units", leaving.units)
        for player in scenario.decks:
            refs.check("side", player, "side", player.side)
            refs.check_all("deck", player, "decks", player.decks)


def _constraint_refs(game: GameData, refs: Refs) -> None:
    for constraint in game.constraints:
        refs.check_all("title", constraint, "titles", constraint.titles)
        refs.check_all("scenario", constraint, "scenarios", constraint.scenarios)
        if constraint.kind == "marker-supply":
            refs.check("marker set", constraint, "markers", constraint.markers)
        if constraint.kind == "deck-size":
            for limit in constraint.decks:
                refs.check("deck", limit, "deck", limit.deck)


def references(ctx: Context) -> list[Finding]:
    refs = Refs.for_game(ctx.game)
    _game_refs(ctx, refs)
    _map_refs(ctx.game, refs)
    _scenario_refs(ctx.game, refs)
    _constraint_refs(ctx.game, refs)
    return refs.findings


def formation_cycles(ctx: Context) -> Iterator[Finding]:
    parents = {f.id: f for f in ctx.game.formations}
    reported: set[str] = set()
    for formation in ctx.game.formations:
        chain = [formation.id]
        current = parents.get(formation.parent)
        while current is not None and current.id not in chain:
            chain.append(current.id)
            current = parents.get(current.parent)
        if current is not None and current.id == formation.id and formation.id not in reported:
            reported.update(chain)
            yield Finding(
                "reference-cycle",
                formation.locate("parent"),
                "formation parents form a cycle: " + " → ".join([*chain, formation.id]),
                "a formation's parent chain must end at a top formation",
            )


def _value_keys(ctx: Context) -> Iterator[Finding]:
    declared = {v.id for v in ctx.game.game.values}
    yield from ctx.units_checked("unit-values", (ctx.game.game,), partial(_unit_values, declared))


def _unit_values(declared: set[str], units: Sequence[Unit]) -> list[Finding]:
    """The undeclared value names of `units`, in their order."""
    found: list[Finding] = []
    for unit in units:
        found.extend(_unknown_values(declared, unit, "front", unit.front))
        found.extend(_unknown_values(declared, unit, "back", unit.back))
    return found


def _unknown_values(
    declared: set[str], record: Node, prefix: str, values: Mapping[str, Any] | None
) -> Iterator[Finding]:
    for key in values or {}:
        if key not in declared:
            yield Finding(
                "unknown-value",
                record.locate(f"{prefix}.{key}"),
                f"value `{key}` is not declared in the game's `values`",
                suggest(key, declared) or "declare it under game: values:",
            )


def _entries(scenario: Scenario) -> tuple[SetupEntry | Reinforcement, ...]:
    return (*scenario.setup, *scenario.reinforcements)


def _scenario_entries(ctx: Context) -> list[Finding]:
    """The findings of every scenario's setup entries and arrivals (compiler.rules.runs: kept
    clean run by run between builds, when validation keeps them; see _run_entries), and of
    the entries that place no piece (in no run)."""
    game = ctx.game
    declared = {v.id for v in game.game.values}
    check = partial(_run_entries, game, declared)
    if ctx.kept_runs is None:
        found = [f for view in ctx.views() for f in check(view, whole(view))]
    else:
        found = ctx.kept_runs("scenario-entries", check)
    for scenario in game.scenarios:
        for entry in _entries(scenario):
            if not _pieces(entry):
                found.extend(_entry_findings(game, declared, scenario, entry, None))
    return found


def _pieces(entry: SetupEntry | Reinforcement) -> bool:
    """Whether the entry places a piece (ScenarioView: a unit, units or a marker)."""
    if isinstance(entry, SetupEntry):
        return bool(entry.unit or entry.units or entry.marker)
    return bool(entry.units)


def _run_entries(game: GameData, declared: set[str], view: ScenarioView, run: Run) -> list[Finding]:
    """The findings of the entries that place the pieces of `run` (the pieces they name, the
    names of their state values, their location: what a run's digest covers, with the game's
    records) and of the run's setup pieces (face and steps). An arrival whose pieces two runs
    share is checked in each: the same findings, made one by sort_findings."""
    found: list[Finding] = []
    seen: set[int] = set()
    for placement in run.placements():
        entry = placement.entry
        if id(entry) not in seen:
            seen.add(id(entry))
            found.extend(_entry_findings(game, declared, view.scenario, entry, placement))
    found.extend(_states(run.setup))
    return found


def _entry_findings(
    game: GameData,
    declared: set[str],
    scenario: Scenario,
    entry: SetupEntry | Reinforcement,
    placement: Placement | None,
) -> Iterator[Finding]:
    """An entry's unknown pieces (the unit ids or marker it names), state value names and
    location; `placement`: one of its pieces (where it is put), None when it places none."""
    if isinstance(entry, SetupEntry):
        yield from _unknown_ids(game, "unit", entry, "unit", (entry.unit,) if entry.unit else ())
        yield from _unknown_ids(game, "unit", entry, "units.", entry.units)
        if entry.marker and entry.marker not in game.markers:
            marker = entry.marker
            yield _ref("marker", marker, set(game.markers), entry.locate("marker"))
    else:
        yield from _unknown_ids(game, "unit", entry, "units.", entry.units)
    yield from _unknown_values(declared, entry, "state", entry.state)
    place = game.place(scenario, entry.at) if placement is None else placement.place
    if place is None:
        yield _unknown_location(game, scenario, entry)


def _unknown_ids(
    game: GameData, what: str, entry: Node, key: str, ids: Sequence[str]
) -> Iterator[Finding]:
    """unresolved-reference for each of `ids` (at `key`, or `key`+index when it ends in a dot)
    that names no unit (as Refs.check_all and Refs.check over the game's table of units)."""
    for index, uid in enumerate(ids):
        if uid and game.unit(uid) is None:
            where = f"{key}{index}" if key.endswith(".") else key
            yield _ref(what, uid, {u.id for u in game.units}, entry.locate(where))


def _unknown_location(
    game: GameData, scenario: Scenario, entry: SetupEntry | Reinforcement
) -> Finding:
    maps = game.scenario_maps(scenario)
    known = [pid for m in maps for pid in game.places.get(m.id, {})]
    names = ", ".join(m.id for m in maps) or "none"
    return Finding(
        "unknown-location",
        entry.locate("at"),
        f"location `{entry.at}` is not on the maps of scenario `{scenario.id}` ({names})",
        suggest(entry.at, known) or "check the id against the map data",
    )


def _turns(ctx: Context) -> Iterator[Finding]:
    game = ctx.game.game
    yield from _track_numbers(game.turns, "")
    for title in game.titles:
        yield from _track_numbers(title.turns, title.id)
    for scenario in ctx.game.scenarios:
        found = ctx.game.title(scenario.title)
        owner = found.id if found is not None and found.turns else ""
        yield from _scenario_turns(scenario, len(game.turns_for(scenario.title)), owner)


def _track_numbers(turns: tuple[Turn, ...], title_id: str) -> Iterator[Finding]:
    """Turn n stands in place n: the first turn out of place is a finding (title's or game's)."""
    for expected, turn in enumerate(turns, start=1):
        if turn.n != expected:
            where = f" on {title_id}'s turn track" if title_id else ""
            yield Finding(
                "turn-track",
                turn.locate("n"),
                f"turn {turn.n} stands where turn {expected} should{where}",
                "number the turn track 1, 2, 3 ... in order",
            )
            return


def _scenario_turns(scenario: Scenario, last_on_track: int, title_id: str) -> Iterator[Finding]:
    first, last = scenario.first_turn, scenario.last_turn
    if first < 1 or last < first or (last_on_track and last > last_on_track):
        owner = f"{title_id}'s track" if title_id else "the track"
        track = f" ({owner} has {last_on_track} turns)" if last_on_track else ""
        yield Finding(
            "scenario-turns",
            scenario.locate("last_turn"),
            f"scenario `{scenario.id}` runs from turn {first} to {last}{track}",
            "first_turn ≥ 1, last_turn ≥ first_turn and on the turn track"
            + (f" of its title {title_id}" if title_id else ""),
        )
    timed: tuple[Reinforcement | Withdrawal, ...] = (
        *scenario.reinforcements,
        *scenario.withdrawals,
    )
    for record in timed:
        if not first <= record.turn <= last:
            what = "reinforcement" if record in scenario.reinforcements else "withdrawal"
            yield Finding(
                "reinforcement-turn",
                record.locate("turn"),
                f"{what} on turn {record.turn} falls outside scenario "
                f"`{scenario.id}` (turns {first}–{last})",
                "move it inside the scenario's turns or drop it from this scenario",
            )


def _uses(ctx: Context) -> Iterator[Finding]:
    for view in ctx.views():
        seen: dict[str, list[Placement]] = {}
        for placement in (*view.setup, *view.arrivals):
            if placement.unit is not None:
                seen.setdefault(placement.piece_id, []).append(placement)
        for uid, uses in seen.items():
            copies = max(uses[0].unit.copies if uses[0].unit else 1, 0)
            if len(uses) <= copies:
                continue
            extra = uses[copies]
            related = tuple(Related(u.loc, f"`{uid}` is also placed here") for u in uses[:copies])
            if copies == 1:
                yield Finding(
                    "placed-twice",
                    extra.loc,
                    f"unit `{uid}` is placed twice in scenario `{view.scenario.id}`",
                    "a unit starts in one place, or arrives once",
                    related=related,
                )
            else:
                yield Finding(
                    "too-many-copies",
                    extra.loc,
                    f"scenario `{view.scenario.id}` uses {len(uses)} of `{uid}`, "
                    f"but the counter mix holds {copies}",
                    "raise `copies` if the mix really holds more",
                    related=related,
                )


def _states(setup: Iterable[Placement]) -> Iterator[Finding]:
    """A setup's pieces on a back they lack, or with steps they do not have."""
    for placement in setup:
        unit = placement.unit
        if unit is None:
            continue
        if placement.face == "back" and not unit.has_back:
            yield Finding(
                "no-back-side",
                placement.entry.locate("face"),
                f"`{unit.id}` is set up on its back but has no back side",
                "give the unit `back:` values or set it up face: front",
            )
        steps = placement.steps
        if steps is not None and not 1 <= steps <= unit.steps:
            yield Finding(
                "steps-range",
                placement.entry.locate("steps"),
                f"`{unit.id}` starts with {steps} steps; it has {unit.steps}",
                "steps lie between 1 and the unit's `steps`",
            )


def _charts(ctx: Context) -> Iterator[Finding]:
    for chart in ctx.game.charts:
        width = len(chart.columns)
        for row in chart.rows:
            if len(row.cells) != width:
                yield Finding(
                    "chart-shape",
                    row.locate("cells"),
                    f"row `{row.label.en}` of chart `{chart.id}` has {len(row.cells)} "
                    f"cells for {width} columns",
                    "give every row one cell per column (use '' or '—' for empty)",
                )
            for number, piece in enumerate(row.pieces):
                side = piece.partition(":")[2]
                if side not in ("", "front", "back"):
                    yield Finding(
                        "chart-shape",
                        row.locate(f"pieces.{number}"),
                        f"piece `{piece}`: the side after the colon must be front or back",
                        "write `unit-id` for the front or `unit-id:back` for the back",
                    )
            for index in row.shaded:
                if not 0 <= index < width:
                    yield Finding(
                        "chart-shape",
                        row.locate("shaded"),
                        f"shaded cell {index} is outside the {width} columns",
                        "",
                    )


def _colour_fields(ctx: Context) -> Iterator[tuple[Node, str, str]]:
    g = ctx.game.game
    for side in g.sides:
        yield side, "colour", side.colour
    for terrain in g.terrain:
        yield terrain, "colour", terrain.colour
    for nat in g.nationalities:
        yield nat, "colour", nat.colour
        yield nat, "text_colour", nat.text_colour
        for record in (nat, *nat.variants):
            for key in ("colour", "text_colour", "centre_colour"):
                value = getattr(record, key)
                if value and (record is not nat or key == "centre_colour"):
                    yield record, key, value
    for marker_set in ctx.game.marker_sets:
        yield marker_set, "colour", marker_set.colour
    for deck in ctx.game.decks:
        yield deck, "colour", deck.colour


def _colours(ctx: Context) -> Iterator[Finding]:
    for record, key, value in _colour_fields(ctx):
        if not COLOUR.match(value):
            yield Finding(
                "bad-colour",
                record.locate(key),
                f"`{value}` is not a colour",
                "write colours as #rrggbb, e.g. #3b5ba5",
            )


def _layout_slots(ctx: Context) -> Iterator[Finding]:
    """Text sizes are fractions of the face height: 0 < size <= 1 and min_size > 0 (a
    min_size above the size means the text never shrinks); boxes lie on the face (0..1) with
    x0 < x1 and y0 < y1."""
    for layout in ctx.game.layouts:
        for slot in layout.slots:
            if not 0 < slot.size <= 1:
                yield _slot_finding(slot, "size", f"text size {slot.size:g}")
            elif not 0 < slot.min_size <= 1:
                yield _slot_finding(slot, "min_size", f"smallest text size {slot.min_size:g}")
            x0, y0, x1, y1 = slot.box
            if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
                yield _slot_finding(slot, "box", f"box {list(slot.box)} is not on the face")


def _slot_finding(slot: Slot, key: str, what: str) -> Finding:
    return Finding(
        "layout-slot",
        slot.locate(key),
        f"{what} in the `{slot.show}` slot cannot be laid out",
        "sizes are fractions of the face height, above 0 and at most 1; "
        "boxes are x0, y0, x1, y1 between 0 and 1",
    )


def _paths(ctx: Context) -> Iterator[Finding]:
    return check_paths(ctx.game)


CHECKS: tuple[Callable[[Context], Iterable[Finding]], ...] = (
    _paths,
    references,
    formation_cycles,
    _value_keys,
    _scenario_entries,
    _turns,
    _uses,
    _charts,
    _colours,
    _layout_slots,
)


def check(ctx: Context) -> Iterator[Finding]:
    for run in CHECKS:
        yield from run(ctx)
