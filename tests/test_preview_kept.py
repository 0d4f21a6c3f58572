"""The units section of the preview page kept from the last build in runs of units
(preview.kept): a warm rebuild makes only the runs of the units that changed, writes the bytes
a cold build writes, and takes a damaged run for no run."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from compiler.backends.preview import kept, sections
from compiler.backends.preview.html import Sources
from compiler.backends.rendercache import RenderCache
from compiler.backends.vassal.buildfile import ModulePlan
from compiler.cli import main
from compiler.load.game import load_game
from compiler.model.units import Unit
from tests.conftest import replace_in

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"
"""b-inf-2 of the fixture game."""


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> bytes:
    """`countermix build`; the bytes of the page of the game's first set of outputs."""
    code = main(["build", str(folder), "--out", str(out), *extra])
    text = capsys.readouterr().out
    assert code == 0, text
    game = next(p for p in sorted(out.iterdir()) if not p.name.startswith("."))
    return (game / "index.html").read_bytes()


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the units whose items are made from here on."""
    ids: list[str] = []
    real = sections._unit_item

    def spy(ctx: sections.Context, unit: Unit, *faces: Any) -> str:
        ids.append(unit.id)
        return real(ctx, unit, *faces)

    monkeypatch.setattr(sections, "_unit_item", spy)
    return ids


def packs(out: Path) -> list[Path]:
    return sorted(out.glob(f".cache/**/{kept.RUNS}"))


@pytest.mark.parametrize("run_units", [1, 2, kept.RUN_UNITS])
def test_a_warm_rebuild_makes_only_the_changed_units_run(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    made: list[str],
    monkeypatch: pytest.MonkeyPatch,
    run_units: int,
) -> None:
    monkeypatch.setattr(sections, "RUN_UNITS", run_units)
    out = tmp_path / "warm"
    before = build(mini, out, capsys)
    assert made and packs(out)
    units = len(made)
    replace_in(mini / "units.yaml", OLD, NEW)
    made.clear()
    warm = build(mini, out, capsys)
    assert "b-inf-2" in made and len(made) <= run_units
    if run_units < units:
        assert len(made) < units
    assert warm != before  # the change is seen
    made.clear()
    assert warm == build(mini, tmp_path / "cold", capsys)
    assert len(made) == units  # a cold build makes every item


def test_the_cache_is_written_only_when_a_run_was_made(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], made: list[str]
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    found = [p for pack in packs(out) for p in (pack, pack.with_name(pack.name + ".index"))]
    before = [(p.stat().st_mtime_ns, p.stat().st_ino, p.stat().st_size) for p in found]
    made.clear()
    build(mini, out, capsys, "--force")  # every back end runs again; no run is made
    assert not made
    assert [(p.stat().st_mtime_ns, p.stat().st_ino, p.stat().st_size) for p in found] == before


@pytest.mark.parametrize("damage", [b"", b"garbage", b"\0" * 100_000])
def test_a_damaged_run_is_no_run(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    made: list[str],
    damage: bytes,
) -> None:
    out = tmp_path / "out"
    cold = build(mini, out, capsys)
    units = len(made)
    for pack in packs(out):
        data = pack.read_bytes()
        pack.write_bytes(data[: kept_head(data)] + damage)
    made.clear()
    assert build(mini, out, capsys, "--force") == cold
    assert len(made) == units  # every run made again


def kept_head(data: bytes) -> int:
    """Where a pack's entries start (its header kept: the index still names them)."""
    from compiler.backends.rendercache import PACK_HEAD

    return min(PACK_HEAD, len(data))


def test_a_run_of_the_cache_is_what_the_page_shows(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run kept is served as it is: the page is made of the kept runs (so a key must hold
    all a run is made of)."""
    out = tmp_path / "out"
    build(mini, out, capsys)
    for pack in packs(out):
        cache = RenderCache(pack)
        for key in list(cache.index):
            data = cache.get(key)
            assert data is not None
            cache.memory[key] = data.replace(b"b-inf-2", b"KEPT-ITEM")
            cache.new.append(key)
        cache.save()
    assert b"KEPT-ITEM" in build(mini, out, capsys, "--force")


def test_the_old_record_is_removed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    old = [pack.with_name(kept.OLD_RECORD) for pack in packs(out)]
    for path in old:
        path.write_bytes(b"items kept one by one")
    replace_in(mini / "units.yaml", OLD, NEW)
    build(mini, out, capsys)
    assert old and not any(path.exists() for path in old)


def reference_blocks(units: list[Unit], sides: list[str]) -> list[tuple[str, list[str]]]:
    """The page's groups of units as the page made them before runs: by side, then by
    formation in order of first appearance (side and formation ids)."""
    blocks: list[tuple[str, list[str]]] = []
    for side in sides:
        groups: dict[str, list[str]] = {}
        for unit in units:
            if unit.side == side:
                groups.setdefault(unit.formation, []).append(unit.id)
        blocks.extend((f"{side}/{formation}", ids) for formation, ids in groups.items())
    return blocks


@pytest.mark.parametrize("seed", range(6))
def test_units_are_grouped_as_the_trays_group_them(mini: Path, tmp_path: Path, seed: int) -> None:
    """Units in any order (formations interleaved, sides mixed) fall in the groups the page
    always showed, in the same order."""
    game = load_game(mini).game
    assert game is not None
    units = list(game.units)
    random.Random(seed).shuffle(units)
    if seed % 2:  # more units of one formation apart from each other
        units = units + [replace(u, id=f"{u.id}-again") for u in units]
    shuffled = replace(game, units=tuple(units))
    sources = Sources(shuffled.root, tmp_path)
    plan = cast(ModulePlan, None)  # the groups need no plan
    ctx = sections.Context(shuffled, plan, "en", "e-x", sources, lambda name: name)
    sides = [side.id for side in game.game.sides]
    expected = reference_blocks(units, sides)
    found = sections._unit_blocks(ctx)
    assert [[u.id for u in members] for _, members in found] == [ids for _, ids in expected]
    assert [heading.count("<h4>") for heading, _ in found] == [
        int(i == 0 or expected[i - 1][0].split("/")[0] != key.split("/")[0])
        for i, (key, _) in enumerate(expected)
    ]


@pytest.fixture
def charts_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of charts of each run of the charts section made from here on."""
    count: list[int] = []
    real = sections._charts_items

    def spy(ctx: sections.Context, start: int, charts: list[tuple[str, str]]) -> str:
        count.append(len(charts))
        return real(ctx, start, charts)

    monkeypatch.setattr(sections, "_charts_items", spy)
    return count


def test_the_charts_section_is_kept_whole(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], charts_made: list[int]
) -> None:
    """A build of the same charts takes the section the last build made; charts that
    changed (an order of battle shows the units' values) make it again, as a cold build
    would."""
    out = tmp_path / "out"
    before = build(mini, out, capsys)
    assert b'class="chart"' in before and charts_made
    charts_made.clear()
    assert build(mini, out, capsys, "--force") == before
    assert not charts_made
    replace_in(mini / "units.yaml", OLD, NEW)
    warm = build(mini, out, capsys)
    assert warm == build(mini, tmp_path / "cold", capsys)


@pytest.mark.parametrize("run", [1, 2, 32])
def test_charts_runs_made_again_are_those_of_the_charts_changed(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    charts_made: list[int],
    monkeypatch: pytest.MonkeyPatch,
    run: int,
) -> None:
    monkeypatch.setattr(sections, "CHART_RUN", run)
    out = tmp_path / "out"
    before = build(mini, out, capsys)
    charts = before.count(b'class="chart"')
    assert sum(charts_made) == charts
    charts_made.clear()
    replace_in(mini / "units.yaml", OLD, NEW)
    warm = build(mini, out, capsys)
    assert warm != before
    if run < charts:
        assert sum(charts_made) < charts  # the order of battle of the other side is kept
    assert warm == build(mini, tmp_path / "cold", capsys)


def test_a_damaged_charts_section_is_made_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], charts_made: list[int]
) -> None:
    out = tmp_path / "out"
    cold = build(mini, out, capsys)
    for pack in packs(out):
        cache = RenderCache(pack)
        for key in list(cache.index):
            data = cache.get(key)
            assert data is not None
            if b'class="chart"' in data:
                cache.memory[key] = b"\xff\xfe not UTF-8"
                cache.new.append(key)
        cache.save()
    charts_made.clear()
    assert build(mini, out, capsys, "--force") == cold
    assert charts_made
