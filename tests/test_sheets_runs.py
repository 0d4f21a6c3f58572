"""Runs of units (sheets.runs): the faces' checks and the print sheets keep what they made of
each run of RUN_UNITS units under a key of its units' content, so a warm build lists the
pieces of the runs that changed and no other, and writes the bytes a build from scratch
writes; a changed unit's faces are still seen (its notes, its sheet)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_warm import Game, change_unit, make_game
from compiler import pipeline
from compiler.backends.sheets import build
from compiler.backends.sheets.build import counter_runs, write_sheets
from compiler.backends.sheets.pdf import Piece
from compiler.backends.sheets.runs import RUN_UNITS, UnitRun, unit_runs
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import loaded_game, replace_in

SIZE = 200
"""A generated game of several runs of units."""


@pytest.fixture
def generated(tmp_path: Path) -> Game:
    return make_game(tmp_path, SIZE)


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The runs of units whose counters were listed from here on (their unit ids)."""
    seen: list[tuple[str, ...]] = []
    real = build.run_counter_pieces

    def spy(game: GameData, run: UnitRun, lang: str) -> tuple[Piece, ...]:
        seen.append(tuple(unit.id for unit in run.units))
        return real(game, run, lang)

    monkeypatch.setattr(build, "run_counter_pieces", spy)
    return seen


def sheets(game: GameData, out: Path, cache: Path) -> dict[str, bytes]:
    """The sheet PDFs of `game` written into `out` with the caches in `cache`."""
    written = write_sheets(game, out, cache_dir=cache)
    return {path.name: path.read_bytes() for path in written}


def changed_unit(game: Game, round_no: int) -> str:
    """Change a unit (bench.bench_warm.change_unit); its id."""
    before = (game.folder / "units.yaml").read_text(encoding="utf-8")
    change_unit(game, round_no)
    after = (game.folder / "units.yaml").read_text(encoding="utf-8")
    assert before != after
    return game.units[(round_no * 37 + 11) % len(game.units)]


def test_the_units_are_in_runs_keyed_by_their_content(generated: Game) -> None:
    game = loaded_game(generated.folder)
    runs = unit_runs(game)
    assert len(runs) > 2
    assert [u for run in runs for u in run.units] == list(game.units)
    assert all(len(run.units) == RUN_UNITS for run in runs[:-1])
    again = unit_runs(loaded_game(generated.folder))
    assert [run.key for run in again] == [run.key for run in runs]
    changed = changed_unit(generated, 0)
    after = unit_runs(loaded_game(generated.folder))
    differ = [i for i, (a, b) in enumerate(zip(runs, after, strict=True)) if a.key != b.key]
    assert len(differ) == 1
    assert changed in {unit.id for unit in after[differ[0]].units}


def test_a_warm_sheet_lists_only_the_changed_run_and_writes_the_cold_bytes(
    generated: Game, tmp_path: Path, listed: list[tuple[str, ...]]
) -> None:
    cache = tmp_path / "cache"
    first = sheets(loaded_game(generated.folder), tmp_path / "first", cache)
    runs = len(unit_runs(loaded_game(generated.folder)))
    assert len(listed) == runs
    listed.clear()
    assert sheets(loaded_game(generated.folder), tmp_path / "again", cache) == first
    assert listed == []  # nothing changed: no run listed
    changed = changed_unit(generated, 1)
    warm = sheets(loaded_game(generated.folder), tmp_path / "warm", cache)
    assert len(listed) == 1 and changed in listed[0]
    cold = sheets(loaded_game(generated.folder), tmp_path / "cold", tmp_path / "fresh")
    assert warm == cold
    assert warm["counters.pdf"] != first["counters.pdf"]


def test_the_runs_list_the_pieces_a_listing_has(generated: Game) -> None:
    game = loaded_game(generated.folder)
    runs = counter_runs(game, "en")
    pieces = runs.listed()
    assert len(pieces) == runs.total
    assert [p.id for p in pieces[: len(game.units)]] == [u.id for u in game.units]
    assert [p.id for p in pieces[len(game.units) :]] == list(game.markers)


def test_a_warm_check_lists_only_the_changed_run_and_reports_as_a_cold_one(
    generated: Game, tmp_path: Path, listed: list[tuple[str, ...]]
) -> None:
    cache = tmp_path / "cache"
    first = pipeline.face_findings(loaded_game(generated.folder), "en", cache)
    listed.clear()
    again = pipeline.face_findings(loaded_game(generated.folder), "en", cache)
    assert listed == []
    assert again == first
    changed = changed_unit(generated, 2)
    warm = pipeline.face_findings(loaded_game(generated.folder), "en", cache)
    assert len(listed) == 1 and changed in listed[0]
    assert warm == pipeline.face_findings(loaded_game(generated.folder), "en")


def test_a_changed_units_notes_are_reported(generated: Game, tmp_path: Path) -> None:
    """A unit renamed to a name too long for its counter: the warm check reports it."""
    cache = tmp_path / "cache"
    assert not pipeline.face_findings(loaded_game(generated.folder), "en", cache)
    game = loaded_game(generated.folder)
    unit: Unit = game.units[RUN_UNITS + 3]
    long = "Extraordinarily Overlong Provisional Division of the Line " * 3
    replace_in(generated.folder / "units.yaml", f"en: {unit.name.get('en')},", f"en: {long},")
    warm = pipeline.face_findings(loaded_game(generated.folder), "en", cache)
    assert [f.location.line for f in warm if f.rule == "text-overflow"] == [unit.loc.line]
    assert warm == pipeline.face_findings(loaded_game(generated.folder), "en")


def test_the_checks_and_the_sheets_list_a_changed_run_once(
    generated: Game, tmp_path: Path, listed: list[tuple[str, ...]]
) -> None:
    cache = tmp_path / "cache"
    game = loaded_game(generated.folder)
    pipeline.face_findings(game, "en", cache)
    sheets(game, tmp_path / "first", cache)
    changed_unit(generated, 3)
    listed.clear()
    game = loaded_game(generated.folder)
    pipeline.face_findings(game, "en", cache)
    sheets(game, tmp_path / "warm", cache)
    assert len(listed) == 1


def test_a_cold_sheet_draws_its_faces_at_once_and_a_warm_one_only_the_changed(
    generated: Game, tmp_path: Path, sheet_faces_drawn: list[int]
) -> None:
    """A cold build draws every face of every run in one go (on every core: a pool started per
    run doubled the cold sheets' time); a warm build after a change draws only that unit's."""
    game = loaded_game(generated.folder)
    assert len(counter_runs(game, "en").runs) > 1
    sheets(game, tmp_path / "out", tmp_path / "cache")
    assert len(sheet_faces_drawn) == 1 and sheet_faces_drawn[0] > 2 * RUN_UNITS
    sheet_faces_drawn.clear()
    changed_unit(generated, 3)
    sheets(loaded_game(generated.folder), tmp_path / "out", tmp_path / "cache")
    assert 0 < sum(sheet_faces_drawn) <= 2
