"""Findings of the scenario constraints kept between builds (compiler.rules.kept): a warm
validation reports exactly what a cold one reports, a rule broken in a warm rebuild is still
reported and one fixed is no longer, and the constraints are checked again only when what they
read changed."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from compiler.diagnostics import Finding
from compiler.load.game import load_game
from compiler.load.keptread import kept_path
from compiler.model.gamedata import GameData
from compiler.rules import engine, integrity, runs, values
from compiler.rules.context import scenario_view
from compiler.rules.engine import validate
from compiler.rules.kept import SUFFIX, kept_here


class Generated:
    """A generated game (bench.generate_game) and the loader's kept records of its builds."""

    def __init__(self, root: Path) -> None:
        from bench.bench_warm import make_game

        self.folder = make_game(root / "game", 200).folder
        out = root / "out"
        (out / ".cache").mkdir(parents=True)
        self.stored = kept_path(out, self.folder)

    def warm(self) -> list[Finding]:
        return validate(self.loaded(self.stored))

    def cold(self) -> list[Finding]:
        return validate(self.loaded(None))

    def loaded(self, stored: Path | None) -> GameData:
        game = load_game(self.folder, stored).game
        assert game is not None
        return game

    def set_unit(self, unit: str, old: str, new: str) -> None:
        """Change `old` to `new` in the line of unit `unit`."""
        path = self.folder / "units.yaml"
        text = path.read_text(encoding="utf-8")
        line = re.search(rf"^  - \{{id: {re.escape(unit)}, .*$", text, re.MULTILINE)
        assert line is not None and old in line[0]
        start, end = line.span()
        path.write_text(text[:start] + line[0].replace(old, new, 1) + text[end:], "utf-8")


@pytest.fixture(autouse=True)
def small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of 4 pieces (compiler.rules.runs): the small game's scenarios have several."""
    monkeypatch.setattr(runs, "RUN_PLACEMENTS", 4)


@pytest.fixture
def generated(tmp_path: Path) -> Generated:
    game = Generated(tmp_path)
    assert game.warm() == game.cold()  # the first build keeps the findings
    return game


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each constraint kind was checked."""
    counted: Counter[str] = Counter()
    for kind, check in list(engine.KIND_CHECKS.items()):

        def spy(ctx: object, c: object, kind: str = kind, check: object = check) -> object:
            counted[kind] += 1
            return check(ctx, c)  # type: ignore[operator]

        monkeypatch.setitem(engine.KIND_CHECKS, kind, spy)
    return counted


@pytest.fixture
def runs_checked(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many runs of pieces (compiler.rules.runs) each scenario constraint kind checked."""
    counted: Counter[str] = Counter()
    for kind, made in list(engine.RUN_CHECKS.items()):

        def spy(ctx: object, c: object, kind: str = kind, made: object = made) -> object:
            check = made(ctx, c)  # type: ignore[operator]
            if check is None:
                return None

            def counting(view: object, run: object) -> object:
                counted[kind] += 1
                return check(view, run)

            return counting

        monkeypatch.setitem(engine.RUN_CHECKS, kind, spy)
    return counted


def runs_holding(game: GameData, unit: str) -> int:
    """The runs of pieces of all scenarios that place `unit`."""
    return sum(
        any(p.piece_id == unit for p in run.placements())
        for s in game.scenarios
        for run in runs.scenario_runs(scenario_view(game, s))
    )


def all_runs(game: GameData) -> int:
    return sum(len(runs.scenario_runs(scenario_view(game, s))) for s in game.scenarios)


def lone_unit(game: GameData) -> str:
    """A combat unit placed alone at its location in the first scenario."""
    view = scenario_view(game, game.scenarios[0])
    for pieces in view.by_location().values():
        if len(pieces) == 1 and pieces[0].unit is not None and pieces[0].unit.leader is None:
            if pieces[0].unit.type != "leader":
                return pieces[0].piece_id
    raise AssertionError("no unit placed alone")


def unplaced_unit(game: GameData) -> str:
    placed = {p.piece_id for s in game.scenarios for p in scenario_view(game, s).setup}
    return next(u.id for u in game.units if u.id not in placed and u.leader is None)


def scenario_kinds(game: GameData) -> int:
    return sum(kept_here(c) for c in game.constraints)


def test_a_rule_broken_warm_is_reported_and_fixed_is_not(generated: Generated) -> None:
    game = generated.loaded(None)
    unit = lone_unit(game)
    kind = next(u.type for u in game.units if u.id == unit)
    generated.set_unit(unit, f"type: {kind}", "type: leader")  # a leader alone: stack-with
    broken = generated.warm()
    assert broken == generated.cold()
    assert any(f.rule == "leader-with-troops" and f"`{unit}`" in f.message for f in broken)
    generated.set_unit(unit, "type: leader", f"type: {kind}")
    fixed = generated.warm()
    assert fixed == generated.cold()
    assert not any(f"`{unit}`" in f.message for f in fixed)


def test_a_unit_no_scenario_places_checks_no_scenario_rule_again(
    generated: Generated, checked: Counter[str], runs_checked: Counter[str]
) -> None:
    game = generated.loaded(None)
    assert scenario_kinds(game) >= 5
    unit = unplaced_unit(game)
    generated.set_unit(unit, "movement: ", "movement: 1")
    assert generated.warm() == generated.cold()
    checked.clear()
    runs_checked.clear()
    generated.set_unit(unit, "movement: 1", "movement: 2")
    generated.warm()
    assert not checked  # the one other, over units, checks the changed unit's group alone
    assert not runs_checked


def test_a_placed_unit_changed_checks_its_runs_alone(
    generated: Generated, checked: Counter[str], runs_checked: Counter[str]
) -> None:
    game = generated.loaded(None)
    unit = lone_unit(game)
    holding = runs_holding(game, unit)
    assert 1 <= holding < all_runs(game) // 4
    generated.set_unit(unit, "movement: ", "movement: 1")
    checked.clear()
    assert generated.warm() == generated.cold()
    assert checked["stacking"] == 1  # the cold validation alone checks the whole constraint
    for kind in ("stacking", "stack-with", "mixed-sides"):
        assert runs_checked[kind] == holding
    assert runs_checked["marker-supply"] == 0  # it reads no unit


def test_a_scenario_changed_checks_its_runs_again(
    generated: Generated, runs_checked: Counter[str]
) -> None:
    game = generated.loaded(None)
    scenario = Path(game.scenarios[0].loc.path)
    text = scenario.read_text(encoding="utf-8")
    scenario.write_text(text.replace("fatigue: 0}", "fatigue: 9}", 1), "utf-8")
    runs_checked.clear()
    broken = generated.warm()
    assert broken == generated.cold()
    assert any(f.rule == "fatigue-range" for f in broken)
    first = len(runs.scenario_runs(scenario_view(game, game.scenarios[0])))
    assert runs_checked["stacking"] == first  # the other scenario's runs are kept
    assert runs_checked["marker-supply"] == 1
    scenario.write_text(text, "utf-8")
    fixed = generated.warm()
    assert fixed == generated.cold()
    assert not any(f.rule == "fatigue-range" for f in fixed)


def lone_units(game: GameData, count: int) -> list[tuple[str, str]]:
    """`count` combat units (no leader, not artillery), each alone at its location in the
    first scenario: (unit id, location id)."""
    view = scenario_view(game, game.scenarios[0])
    found = [
        (pieces[0].piece_id, pieces[0].at)
        for pieces in view.by_location().values()
        if len(pieces) == 1
        and pieces[0].unit is not None
        and pieces[0].unit.leader is None
        and pieces[0].unit.type not in ("leader", "artillery")
    ]
    assert len(found) >= count
    return found[:count]


def test_stacking_broken_warm_is_reported_and_fixed_is_not(generated: Generated) -> None:
    game = generated.loaded(None)
    crowd = lone_units(game, 3)
    scenario = Path(game.scenarios[0].loc.path)
    text = scenario.read_text(encoding="utf-8")
    for unit, at in crowd[1:]:  # the three at the first one's location
        text = text.replace(f"{{at: {at}, unit: {unit},", f"{{at: {crowd[0][1]}, unit: {unit},")
    scenario.write_text(text, "utf-8")
    assert generated.warm() == generated.cold()
    kinds = {u.id: u.type for u in game.units}
    for unit, _ in crowd:  # three artillery units where two may stand: units changed alone
        generated.set_unit(unit, f"type: {kinds[unit]}", "type: artillery")
    broken = generated.warm()
    assert broken == generated.cold()
    assert any(f.rule == "stacking-limit" and "artillery" in f.message for f in broken)
    unit = crowd[0][0]
    generated.set_unit(unit, "type: artillery", f"type: {kinds[unit]}")
    fixed = generated.warm()
    assert fixed == generated.cold()
    assert not any(f.rule == "stacking-limit" and "artillery" in f.message for f in fixed)


def test_an_unknown_param_in_a_scenario_rule_is_checked_whole(generated: Generated) -> None:
    rules = generated.folder / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text.replace("$max_manpower", "$no_such_param", 1), "utf-8")
    found = generated.warm()
    assert found == generated.cold()
    assert any(f.rule == "unknown-param" or "no_such_param" in f.message for f in found)
    assert generated.warm() == found


def test_a_comment_that_moves_a_scenarios_pieces_moves_its_findings(generated: Generated) -> None:
    game = generated.loaded(None)
    unit = lone_unit(game)
    kind = next(u.type for u in game.units if u.id == unit)
    generated.set_unit(unit, f"type: {kind}", "type: leader")
    before = generated.warm()
    scenario = Path(game.scenarios[0].loc.path)
    text = scenario.read_text(encoding="utf-8")  # the scenario starts where it did
    scenario.write_text(text.replace("    setup:\n", "    setup:\n      # a note\n", 1), "utf-8")
    after = generated.warm()
    assert after == generated.cold() != before


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", None])
def test_damaged_kept_findings_are_found_again(
    generated: Generated, damage: bytes | None, runs_checked: Counter[str]
) -> None:
    game = generated.loaded(None)
    unit = lone_unit(game)
    kind = next(u.type for u in game.units if u.id == unit)
    generated.set_unit(unit, f"type: {kind}", "type: leader")
    expected = generated.warm()
    stored = Path(str(generated.stored) + SUFFIX)
    if damage is None:  # each entry's findings damaged, the file whole
        import marshal

        known = marshal.loads(stored.read_bytes())
        stored.write_bytes(marshal.dumps({k: v[:-3] for k, v in known.items()}))
    else:
        stored.write_bytes(damage)
    runs_checked.clear()
    assert generated.warm() == expected
    assert runs_checked["stack-with"] == all_runs(game)  # every run checked again


@pytest.fixture
def groups_checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The units of each group a constraint over units checked (compiler.rules.kept)."""
    counted: list[int] = []
    real = values.units_checked

    def spy(ctx: object, c: object, units: list[object]) -> object:
        counted.append(len(units))
        return real(ctx, c, units)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "units_checked", spy)
    return counted


def strengths(game: GameData) -> tuple[str, int, int]:
    """A unit with a back side: its id, front and back strength."""
    unit = next(u for u in game.units if u.back and "strength" in u.back)
    assert unit.back is not None
    return unit.id, int(unit.front["strength"]), int(unit.back["strength"])


def test_a_unit_value_broken_warm_is_reported_and_fixed_is_not(
    generated: Generated, groups_checked: list[int]
) -> None:
    game = generated.loaded(None)
    unit, front, back = strengths(game)
    stronger = f"back: {{strength: {front + 1}"
    generated.set_unit(unit, f"back: {{strength: {back}", stronger)
    groups_checked.clear()
    broken = generated.warm()
    assert groups_checked == [32]  # the changed unit's group alone
    assert broken == generated.cold()
    assert any(f.rule == "reduced-not-stronger" and f"`{unit}`" in f.message for f in broken)
    generated.set_unit(unit, stronger, f"back: {{strength: {back}")
    groups_checked.clear()
    fixed = generated.warm()
    assert groups_checked == [32]  # a group with a finding is checked again
    assert fixed == generated.cold()
    assert not any(f"`{unit}`" in f.message for f in fixed)
    groups_checked.clear()
    assert generated.warm() == fixed and groups_checked == []


def test_a_unit_moved_down_moves_its_finding(generated: Generated) -> None:
    game = generated.loaded(None)
    unit, front, back = strengths(game)
    generated.set_unit(unit, f"back: {{strength: {back}", f"back: {{strength: {front + 1}")
    before = generated.warm()
    path = generated.folder / "units.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nunits:\n", "\nunits:\n  # a note\n", 1), "utf-8")
    after = generated.warm()
    assert after == generated.cold() != before


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ("formation: ", "formation: nowhere-", "unresolved-reference"),
        ("front: {", "front: {bogus: 1, ", "unknown-value"),
    ],
)
def test_a_unit_check_broken_warm_is_reported_and_fixed_is_not(
    generated: Generated, old: str, new: str, rule: str
) -> None:
    game = generated.loaded(None)
    unit = next(u.id for u in game.units if u.formation and u.leader is None)
    generated.set_unit(unit, old, new)
    broken = generated.warm()
    assert broken == generated.cold()
    assert any(f.rule == rule for f in broken)
    generated.set_unit(unit, new, old)
    fixed = generated.warm()
    assert fixed == generated.cold()
    assert not any(f.rule == rule for f in fixed)


@pytest.fixture
def entry_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pieces of each run the integrity checks of scenario entries checked."""
    counted: list[int] = []
    real = integrity._run_entries

    def spy(game: GameData, declared: set[str], view: object, run: runs.Run) -> object:
        counted.append(len(run.placements()))
        return real(game, declared, view, run)  # type: ignore[arg-type]

    monkeypatch.setattr(integrity, "_run_entries", spy)
    return counted


def test_a_placed_unit_renamed_warm_is_an_unknown_unit_and_back_is_not(
    generated: Generated, entry_runs: list[int]
) -> None:
    game = generated.loaded(None)
    unit = lone_unit(game)
    holding = runs_holding(game, unit)
    generated.set_unit(unit, f"id: {unit},", f"id: {unit}-gone,")
    entry_runs.clear()
    broken = generated.warm()
    assert len(entry_runs) == holding  # the runs that place it alone
    assert broken == generated.cold()
    assert any(f.rule == "unresolved-reference" and f"`{unit}`" in f.message for f in broken)
    generated.set_unit(f"{unit}-gone", f"id: {unit}-gone,", f"id: {unit},")
    entry_runs.clear()
    fixed = generated.warm()
    assert len(entry_runs) == holding
    assert fixed == generated.cold()
    assert not any(f.rule == "unresolved-reference" for f in fixed)
    entry_runs.clear()
    assert generated.warm() == fixed and entry_runs == []


@pytest.mark.parametrize("placed", [True, False])
def test_an_unknown_location_warm_is_reported_and_fixed_is_not(
    generated: Generated, placed: bool
) -> None:
    game = generated.loaded(None)
    scenario = Path(game.scenarios[1].loc.path)
    text = scenario.read_text(encoding="utf-8")
    first = re.search(r"\{at: ([0-9.]+), unit: ", text)
    assert first is not None
    if placed:  # a piece put where no map has a location
        broken_text = text.replace(first[0], "{at: 99.99, unit: ", 1)
    else:  # an entry that places nothing, at no location
        broken_text = text.replace("    setup:\n", "    setup:\n      - {at: 98.98}\n", 1)
    scenario.write_text(broken_text, "utf-8")
    broken = generated.warm()
    assert broken == generated.cold()
    assert any(f.rule == "unknown-location" for f in broken)
    scenario.write_text(text, "utf-8")
    fixed = generated.warm()
    assert fixed == generated.cold()
    assert not any(f.rule == "unknown-location" for f in fixed)
