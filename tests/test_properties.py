"""Property-based: generated valid games give no findings; breaking one limit gives exactly
that finding, where the break is."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bench.generate_game import CAP_DIVISIONS, GameSpec, Placement, random_spec, write_game
from tests.conftest import findings_of

PROFILE = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

specs = st.builds(
    random_spec,
    units_per_side=st.integers(min_value=4, max_value=40),
    scenarios=st.integers(min_value=1, max_value=3),
    per_scenario=st.integers(min_value=4, max_value=30),
    seed=st.integers(min_value=0, max_value=10_000),
)


def _check(spec: GameSpec) -> list[tuple[str, str, int]]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "generated"
        write_game(folder, spec)
        return [(f.rule, Path(f.location.path).name, f.location.line) for f in findings_of(folder)]


def _setup_line(index: int) -> int:
    return 6 + index  # five header lines, then one line per placement


def _units(spec: GameSpec) -> dict[str, str]:
    return {u.id: u.kind for u in spec.units}


@PROFILE
@given(specs)
def test_generated_valid_games_are_clean(spec: GameSpec) -> None:
    assert _check(spec) == []


@PROFILE
@given(specs, st.integers(min_value=19, max_value=21), st.data())
def test_manpower_over_the_maximum(spec: GameSpec, manpower: int, data: st.DataObject) -> None:
    kinds = _units(spec)
    setup = spec.scenarios[0]
    combat = [i for i, p in enumerate(setup) if kinds[p.unit] != "leader"]
    index = data.draw(st.sampled_from(combat))
    setup[index] = replace(setup[index], manpower=manpower)
    assert _check(spec) == [("max-manpower", "s1.yaml", _setup_line(index))]


@PROFILE
@given(specs, st.integers(min_value=5, max_value=9), st.data())
def test_fatigue_over_four(spec: GameSpec, fatigue: int, data: st.DataObject) -> None:
    kinds = _units(spec)
    setup = spec.scenarios[-1]
    combat = [i for i, p in enumerate(setup) if kinds[p.unit] != "leader"]
    index = data.draw(st.sampled_from(combat))
    setup[index] = replace(setup[index], fatigue=fatigue)
    name = f"s{len(spec.scenarios)}.yaml"
    assert _check(spec) == [("fatigue-range", name, _setup_line(index))]


@PROFILE
@given(specs, st.integers(min_value=1, max_value=5), st.data())
def test_reduced_side_stronger(spec: GameSpec, extra: int, data: st.DataObject) -> None:
    backed = [i for i, u in enumerate(spec.units) if u.kind in ("division", "brigade")]
    assume(backed)
    index = data.draw(st.sampled_from(backed))
    unit = spec.units[index]
    spec.units[index] = replace(unit, reduced=unit.strength + extra)
    line = 9 + len(spec.formations) + index  # after unit types, formations, markers, "units:"
    assert _check(spec) == [("reduced-not-stronger", "units.yaml", line)]


def _move_with_leaders(
    setup: list[Placement], index: int, hex_: str, kinds: dict[str, str]
) -> None:
    """Move a placement, and any leader standing with it, to another hex."""
    old = setup[index].hex
    for i, placement in enumerate(setup):
        if i == index or (placement.hex == old and kinds[placement.unit] == "leader"):
            setup[i] = replace(placement, hex=hex_)


big_specs = st.builds(
    random_spec,
    units_per_side=st.integers(min_value=20, max_value=40),
    scenarios=st.just(1),
    per_scenario=st.integers(min_value=24, max_value=30),
    seed=st.integers(min_value=0, max_value=10_000),
)


@PROFILE
@given(big_specs)
def test_over_stacked_hex(spec: GameSpec) -> None:
    kinds = _units(spec)
    setup = spec.scenarios[0]
    by_side = {
        side: [
            i
            for i, p in enumerate(setup)
            if kinds[p.unit] == "division" and p.unit.startswith(side)
        ]
        for side in ("blue", "red")
    }
    divisions = max(by_side.values(), key=len)
    assume(len(divisions) > CAP_DIVISIONS)
    chosen = divisions[: CAP_DIVISIONS + 1]
    target = setup[chosen[0]].hex
    for index in chosen[1:]:
        _move_with_leaders(setup, index, target, kinds)
    found = _check(spec)
    assert [(rule, name) for rule, name, _ in found] == [("stacking-limit", "s1.yaml")]
    assert found[0][2] in {_setup_line(i) for i in chosen}


@PROFILE
@given(specs, st.data())
def test_two_sides_in_one_hex(spec: GameSpec, data: st.DataObject) -> None:
    kinds = _units(spec)
    setup = spec.scenarios[0]
    blue = [
        i for i, p in enumerate(setup) if p.unit.startswith("blue") and kinds[p.unit] != "leader"
    ]
    red = [i for i, p in enumerate(setup) if p.unit.startswith("red") and kinds[p.unit] != "leader"]
    assume(blue and red)
    mover, host = data.draw(st.sampled_from(blue)), data.draw(st.sampled_from(red))
    _move_with_leaders(setup, mover, setup[host].hex, kinds)
    found = _check(spec)
    assert [(rule, name) for rule, name, _ in found] == [("no-mixed-stacks", "s1.yaml")]


@PROFILE
@given(specs, st.data())
def test_leader_alone(spec: GameSpec, data: st.DataObject) -> None:
    kinds = _units(spec)
    setup = spec.scenarios[0]
    leaders = [i for i, p in enumerate(setup) if kinds[p.unit] == "leader"]
    assume(leaders)
    index = data.draw(st.sampled_from(leaders))
    used = {p.hex for p in setup}
    free = next(
        f"{c:02d}.{r:02d}"
        for c in range(1, spec.columns + 1)
        for r in range(1, spec.rows + 1)
        if f"{c:02d}.{r:02d}" not in used
    )
    setup[index] = replace(setup[index], hex=free)
    assert _check(spec) == [("leader-with-troops", "s1.yaml", _setup_line(index))]
