"""A set-up save's commands are kept by runs (saves.SAVE_RUN): a save in which one piece
changed makes that piece's run again and reads the others, and a save kept whole keeps its
runs in the pack (they do not age out while it is unchanged), so that a save made again
builds later still finds them. The module is the cold one."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.vassal import encode as enc
from compiler.backends.vassal import saves
from compiler.backends.vassal.buildfile import ModulePlan
from compiler.rules.placed import Placement
from tests.conftest import cold_module, game_with_aids, module_built, replace_in

EDIT = ("scenarios/first.yaml", "state: {manpower: 7}", "state: {manpower: 8}")


def _pieces_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The placed pieces whose commands are made (not read from the pack) from here on."""
    made: list[str] = []
    real = saves.piece_traits

    def spy(plan: ModulePlan, placement: Placement, at: tuple[str, int, int]) -> list[enc.Trait]:
        made.append(placement.piece_id)
        return real(plan, placement, at)

    monkeypatch.setattr(saves, "piece_traits", spy)
    monkeypatch.setattr(saves, "SAVE_RUN", 2)
    return made


def test_one_piece_changed_makes_its_run_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _pieces_made(monkeypatch)
    out = tmp_path / "out"
    module_built(mini, out)
    assert len(made) > 2  # every piece made cold
    made.clear()
    replace_in(mini / EDIT[0], EDIT[1], EDIT[2])
    warm = module_built(mini, out)
    assert 1 <= len(made) <= 2  # the changed piece's run
    assert warm == cold_module(mini, tmp_path)


def test_a_save_kept_whole_keeps_its_runs(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _pieces_made(monkeypatch)
    out = tmp_path / "out"
    module_built(mini, out)
    for _ in range(6):  # more builds than an unused entry lives (rendercache.AGE_LIMIT)
        module_built(mini, out)
    made.clear()
    replace_in(mini / EDIT[0], EDIT[1], EDIT[2])
    warm = module_built(mini, out)
    assert 1 <= len(made) <= 2
    assert warm == cold_module(mini, tmp_path)


def test_record_tokens_are_each_units_record_token(mini: Path) -> None:
    """The units' records in the placed pieces' keys, worked out for all units at once
    (`ModulePlan.record_tokens`), are each unit's `record_token` worked out on its own, and
    the trays' slot tokens are made of them (the same fields)."""
    from compiler.backends.vassal.buildfile import image_names, record_token, slot_tokens
    from compiler.backends.vassal.module import render_plan

    game = game_with_aids(mini)
    plan, _images = render_plan(game)
    tokens = plan.record_tokens
    assert set(tokens) == {unit.id for unit in game.units}
    slots = slot_tokens(plan, list(game.units))
    for unit in game.units:
        images, gpid = plan.unit_images[unit.id], plan.gpids[f"unit:{unit.id}"]
        one = record_token("unit", plan.identity(unit), *image_names(images), gpid)
        assert tokens[unit.id] == one
        assert slots[unit.id] == "slot" + one[len("unit") :] + "\x1f" + repr(unit.name.en)


def test_a_units_edit_changes_its_placed_pieces(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit whose record changed is placed anew in every save that places it (its record
    token is in its pieces' keys); the warm module is the cold one."""
    made = _pieces_made(monkeypatch)
    out = tmp_path / "out"
    module_built(mini, out)
    made.clear()
    before, after = "front: {strength: 4, movement: 3}", "front: {strength: 5, movement: 3}"
    replace_in(mini / "units.yaml", before, after)
    warm = module_built(mini, out)
    assert set(made) == {"b-inf-1"}  # only the pieces placing the unit made again
    assert warm == cold_module(mini, tmp_path)


def _piece(record: str, face: str = "front", piece_id: str = "1000001") -> saves.SavedPiece:
    values: dict[str, object] = {}
    key = ("saved-1", record, face, values, ("Map", 1, 2), piece_id)
    return saves.SavedPiece(key, lambda: "")


RECORD = "\x1f".join(["unit", "a" * 64, "unit-1.svg", "", "", "1234"])


def test_a_run_token_tells_runs_apart() -> None:
    """Runs whose keys differ in any field, or whose commands are split otherwise, give
    different texts (what a run is kept by)."""
    runs: list[list[saves.Command]] = [
        [_piece(RECORD)],
        [_piece(RECORD.replace("1234", "1235"))],
        [_piece(RECORD, face="back")],
        [_piece(RECORD, piece_id="1000002")],
        [_piece(RECORD), "end_save"],
        ["end_save", _piece(RECORD)],
        ["end_save\x1e" + "saved-1\x1f" + RECORD],
        ["begin_save", "end_save"],
        ["begin_save\x1e'end_save'"],
    ]
    tokens = [saves._run_token(run) for run in runs]
    assert len(set(tokens)) == len(tokens)
