"""Unit identities (art.identity.unit_identity), which every back end asks of every unit:
worked out once per unit of the game being built, and afresh for another game."""

from __future__ import annotations

import dataclasses

import pytest

from compiler.backends.art import identity
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
