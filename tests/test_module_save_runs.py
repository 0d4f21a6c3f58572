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
from tests.conftest import cold_module, game_with_aids, replace_in

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


def _build(mini: Path, out: Path) -> bytes:
    from compiler.backends.vassal.module import build_module

    return build_module(game_with_aids(mini), out).read_bytes()


def test_one_piece_changed_makes_its_run_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _pieces_made(monkeypatch)
    out = tmp_path / "out"
    _build(mini, out)
    assert len(made) > 2  # every piece made cold
    made.clear()
    replace_in(mini / EDIT[0], EDIT[1], EDIT[2])
    warm = _build(mini, out)
    assert 1 <= len(made) <= 2  # the changed piece's run
    assert warm == cold_module(mini, tmp_path)


def test_a_save_kept_whole_keeps_its_runs(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _pieces_made(monkeypatch)
    out = tmp_path / "out"
    _build(mini, out)
    for _ in range(6):  # more builds than an unused entry lives (rendercache.AGE_LIMIT)
        _build(mini, out)
    made.clear()
    replace_in(mini / EDIT[0], EDIT[1], EDIT[2])
    warm = _build(mini, out)
    assert 1 <= len(made) <= 2
    assert warm == cold_module(mini, tmp_path)
