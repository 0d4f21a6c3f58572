"""Unit identities (art.identity.unit_identity), which every back end asks of every unit:
worked out once per unit of the game being built, and afresh for another game."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from compiler.backends.art import identity
from compiler.backends.rendercache import RenderCache
from compiler.model.digests import DIGEST_LENGTH
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import seed_game


@pytest.fixture
def worked_out(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the units whose identity was worked out (not found remembered)."""
    made: list[str] = []
    real = identity._unit_identity

    def spy(game: GameData, unit: Unit) -> str:
        made.append(unit.id)
        return real(game, unit)

    monkeypatch.setattr(identity, "_unit_identity", spy)
    return made


def test_an_identity_is_worked_out_once_per_unit_of_the_game(worked_out: list[str]) -> None:
    game = dataclasses.replace(seed_game("gcacw"))  # a game object no test asked about yet
    other = dataclasses.replace(game)  # another game object (its units are the same records)
    units = game.units[:5]
    first = [identity.unit_identity(game, unit) for unit in units]
    assert [identity.unit_identity(game, unit) for unit in units] == first
    assert worked_out == [unit.id for unit in units]
    worked_out.clear()
    assert [identity.unit_identity(other, unit) for unit in units] == first
    assert worked_out == [unit.id for unit in units]  # another game: worked out again


def test_units_of_another_look_have_another_identity() -> None:
    game = seed_game("gcacw")
    unit = game.units[0]
    renamed = dataclasses.replace(unit, copies=unit.copies + 1)
    assert identity.unit_identity(game, renamed) != identity.unit_identity(game, unit)


def _fresh(game: GameData) -> GameData:
    """Another game object (its own memo: a build of its own)."""
    return dataclasses.replace(game)


def test_identities_kept_by_runs_are_those_worked_out(
    tmp_path: Path, worked_out: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identity, "RUN_UNITS", 4)
    game = seed_game("gcacw")
    units = game.units[:10]
    expected = [identity.unit_identity(_fresh(game), unit) for unit in units]
    worked_out.clear()
    pack = tmp_path / "identities.pack"
    kept = RenderCache(pack)
    assert identity.unit_identities(_fresh(game), units, kept) == expected
    kept.save()
    assert len(worked_out) == len(units)
    worked_out.clear()
    again = _fresh(game)
    assert identity.unit_identities(again, units, RenderCache(pack)) == expected
    assert worked_out == []  # every run read back
    assert [identity.unit_identity(again, unit) for unit in units] == expected
    assert worked_out == []  # and remembered for the game


def test_one_unit_changed_works_out_its_run_again(
    tmp_path: Path, worked_out: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identity, "RUN_UNITS", 4)
    game = seed_game("gcacw")
    units = list(game.units[:10])
    pack = tmp_path / "identities.pack"
    kept = RenderCache(pack)
    identity.unit_identities(_fresh(game), units, kept)
    kept.save()
    units[5] = dataclasses.replace(units[5], copies=units[5].copies + 1)
    worked_out.clear()
    found = identity.unit_identities(_fresh(game), units, RenderCache(pack))
    assert found == [identity.unit_identity(_fresh(game), unit) for unit in units]
    assert worked_out[:4] == [unit.id for unit in units[4:8]]  # its run alone, then the check


def test_a_damaged_run_is_worked_out_again(
    tmp_path: Path, worked_out: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identity, "RUN_UNITS", 4)
    game = seed_game("gcacw")
    units = game.units[:10]
    pack = tmp_path / "identities.pack"
    kept = RenderCache(pack)
    expected = identity.unit_identities(_fresh(game), units, kept)
    damaged = RenderCache(pack)
    for key in list(kept.memory):
        damaged.memory[key] = b"not identities"  # as if read back so
    worked_out.clear()
    assert identity.unit_identities(_fresh(game), units, damaged) == expected
    assert worked_out == [unit.id for unit in units]


@pytest.mark.parametrize(
    ("data", "whole"),
    [
        (b"0123456789abcdef" * 8, True),
        (b"0123456789abcdef" * 7 + b"0123456789abcdeg", False),  # one byte not a digit
        (b" " + b"0123456789abcdef" * 8 + b" ", False),  # the right digits, too long
        (b"\x00" * 128, False),
    ],
)
def test_a_kept_run_is_read_back_only_when_made_of_hexadecimal_digests(
    data: bytes, whole: bool
) -> None:
    found = identity._kept_run(data, 128 // DIGEST_LENGTH)
    assert (found is not None) == whole
    if found is not None:
        assert "".join(found) == data.decode("ascii")
