"""A set-up save whose scenario, placed pieces' records and maps are those of the build before
is read whole by them (saves._scenario_token): its commands are not worked out again. Every
edit that changes the save (the scenario, a placed unit, where a location lies on the board,
a map's name) makes it again, and the warm module is the cold one."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from compiler.backends.vassal import saves
from compiler.backends.vassal.buildfile import ModulePlan
from compiler.model.scenarios import Scenario
from tests.conftest import cold_module, module_built, replace_in


def _commands_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scenarios whose save commands are worked out from here on."""
    made: list[str] = []
    real = saves._commands

    def spy(plan: ModulePlan, scenario: Scenario) -> list[saves.Command]:
        made.append(scenario.id)
        return real(plan, scenario)

    monkeypatch.setattr(saves, "_commands", spy)
    return made


def _save(module: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(module)) as archive:
        return archive.read("first.vsav")


def test_an_unchanged_scenario_is_read_whole(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _commands_made(monkeypatch)
    out = tmp_path / "out"
    first = module_built(mini, out)
    assert made == ["first"]
    made.clear()
    assert module_built(mini, out) == first
    assert made == []


EDITS = {
    "a piece moved": ("scenarios/first.yaml", "{at: N0808, units:", "{at: N0707, units:"),
    "a placed unit's record": (
        "units.yaml",
        "front: {strength: 4, movement: 3}",
        "front: {strength: 5, movement: 3}",
    ),
    "where the hexes lie": (
        "map.yaml",
        "{id: N, columns: [1, 10], rows: [1, 8]}",
        "{id: N, columns: [1, 10], rows: [0, 8]}",
    ),
    "a map's name": ("map.yaml", "name: Main Map", "name: Main Board"),
    "a reinforcement's entry": ("scenarios/first.yaml", "at: N1008", "at: N0908"),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_edit_that_changes_the_save_makes_it_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str, str]
) -> None:
    made = _commands_made(monkeypatch)
    out = tmp_path / "out"
    before = _save(module_built(mini, out))
    made.clear()
    path, old, new = edit
    replace_in(mini / path, old, new)
    warm = module_built(mini, out)
    assert made == ["first"]
    assert _save(warm) != before  # the edit reaches the save
    assert warm == cold_module(mini, tmp_path)


def test_a_damaged_whole_entry_is_made_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys of a save's runs kept under its scenario's token, read back as anything but a
    list of texts, are not used: the save's commands are worked out, the module is the same."""
    from compiler.backends.vassal.piececache import PieceTexts

    made = _commands_made(monkeypatch)
    out = tmp_path / "out"
    first = module_built(mini, out)
    made.clear()
    real = PieceTexts.kept_lines

    def damaged(self: PieceTexts, key: str) -> list[str] | None:
        found = real(self, key)
        return None if found is None else found[:-1] + ["not a key"]

    monkeypatch.setattr(PieceTexts, "kept_lines", damaged)
    assert module_built(mini, out) == first
    assert made == ["first"]
