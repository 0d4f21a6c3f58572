"""The round trip through the real engine: for every scenario of every seed game, the module is
built, VASSAL 3.6 starts the set-up and saves it (GameState.saveGame, the `!VCSK` form VASSAL
writes), and `countermix import-save` gives back an equal scenario. Then the harness moves a
piece, flips a counter and turns a block through VASSAL's own commands, saves again, and the
import shows exactly those changes."""

from __future__ import annotations

import shutil
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.vassal.module import build_module
from compiler.cli import main
from compiler.importing.commands import command_text
from compiler.importing.saves import SaveContents, read_commands
from compiler.load.aids import with_aids
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.model.units import Unit
from tests.conftest import DATA, SOURCES
from tests.test_import_save import load, placements
from tests.test_vassal_engine import (  # _vassal_installed: autouse, fails without VASSAL
    _vassal_installed,  # noqa: F401
    expected_places,
)
from tests.vassal_harness.run import run_harness

pytestmark = pytest.mark.slow
GAMES = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
PROPS = ("UnitId", "MarkerId", "CardId")


@dataclass
class Played:
    """One game's module as the engine played it: the harness report and a copy of the game."""

    folder: Path
    game: GameData
    setups: dict[str, dict[str, Any]]


@pytest.fixture(scope="module", params=GAMES, ids=[g.name for g in GAMES])
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Played:
    source: Path = request.param
    work = tmp_path_factory.mktemp(source.name)
    folder = shutil.copytree(source, work / source.name)
    game = load(folder)
    vmod = build_module(with_aids(game)[0], work / "module")
    report = run_harness(vmod, props=PROPS, save_dir=work / "saves", moves=True)
    assert report["ok"] is True, report["warnings"]
    setups: list[dict[str, Any]] = report["setups"]  # type: ignore[assignment]
    return Played(folder, game, {s["name"]: s for s in setups})


def _import(
    played: Played, save: str, scenario_id: str, like: str, codes: tuple[int, ...] = (0,)
) -> GameData:
    """Import a save; a moved set-up may break the game's rules (a block turned below its
    starting strength): exit 1, the scenario written and its findings shown."""
    args = ["import-save", str(played.folder), save, "--scenario", scenario_id, "--like", like]
    assert main(args) in codes
    assert any(s.id == scenario_id for s in load(played.folder).scenarios)
    return load(played.folder)


def _ident(piece: dict[str, Any]) -> str:
    props = piece["props"]
    return str(props.get("UnitId") or props.get("MarkerId") or props.get("CardId") or "")


def _where_found(pieces: list[dict[str, Any]]) -> Counter[tuple[str, str, str]]:
    """Where the engine shows each piece on a map (cards in decks are the deck set-up)."""
    return Counter(
        (_ident(p), p["map"], p["location"])
        for p in pieces
        if _ident(p) and not p.get("deck") and not p.get("hand")
    )


def test_every_scenario_saved_by_vassal_imports_equal_and_so_do_its_moves(
    played: Played,
) -> None:
    scenarios = [s for s in played.game.scenarios if s.setup or s.reinforcements or s.decks]
    assert scenarios
    for scenario in scenarios:
        setup = played.setups[scenario.name.en]
        back = f"{scenario.id}-vassal"
        game = _import(played, setup["save"], back, scenario.id)
        assert placements(game, back) == placements(game, scenario.id), scenario.id
        assert _decks(game, back) == _decks(game, scenario.id)
        if scenario.decks:
            _check_card_in_another_deck(played, Path(setup["save"]), scenario.id)
            # without a scenario to take them from, the hands VASSAL dealt give each `hand:`
            fresh = f"{scenario.id}-fresh"
            args = ["import-save", str(played.folder), setup["save"], "--scenario", fresh]
            assert main(args) == 0
            dealt = {d.side: d.hand for d in _scenario(load(played.folder), fresh).decks}
            assert dealt == {d.side: d.hand for d in scenario.decks}

        moved = f"{scenario.id}-moved"
        game = _import(played, setup["movedSave"], moved, scenario.id, codes=(0, 1))
        assert expected_places(game, moved) == _where_found(setup["afterMoves"]), scenario.id
        _check_moves(game, setup, before=back, after=moved)


def _check_card_in_another_deck(played: Played, save: Path, like: str) -> None:
    """A card moved into another deck (the save edited as VASSAL writes it) is a finding."""
    with zipfile.ZipFile(save) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    text = command_text(entries["savedGame"], str(save))
    contents = read_commands(text, SaveContents(save))
    full = [d for d in contents.decks if len(d.members) > 1]
    first, second = full[0], full[1]
    card = first.members[0]
    text = text.replace(f";{','.join(first.members)}", f";{','.join(first.members[1:])}")
    text = text.replace(f";{','.join(second.members)}", f";{card},{','.join(second.members)}")
    entries["savedGame"] = text.encode("utf-8")
    changed = save.with_name(f"swapped-{save.name}")
    with zipfile.ZipFile(changed, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    args = ["import-save", str(played.folder), str(changed), "--scenario", "swap", "--like", like]
    assert main(args) == 1
    assert not any(s.id == "swap" for s in load(played.folder).scenarios)


def _scenario(game: GameData, scenario_id: str) -> Scenario:
    return next(s for s in game.scenarios if s.id == scenario_id)


def _decks(game: GameData, scenario_id: str) -> list[tuple[str, tuple[str, ...], int]]:
    return sorted((d.side, d.decks, d.hand) for d in _scenario(game, scenario_id).decks)


def _check_moves(game: GameData, setup: dict[str, Any], before: str, after: str) -> None:
    """The moved save differs from the saved set-up in exactly what the harness did."""
    by_id = {p["id"]: _ident(p) for p in setup["afterMoves"]}
    touched = {by_id[m["id"]] for m in setup["moves"]}
    assert setup["moves"] == [] or touched - {""}
    old, new = placements(game, before), placements(game, after)
    assert _others(old, touched) == _others(new, touched)
    for move in setup["moves"]:
        ident = by_id[move["id"]]
        states = [p for p in new if p[0] == ident]
        if move["action"] == "move":
            assert any(p[1] == move["to"] for p in states), move
        elif move["action"] == "flip":
            assert any(p[2] == "back" for p in states), move
        elif move["action"] == "rotate":  # a block turned one step down: cv or steps
            unit = game.unit(ident)
            assert unit is not None
            was = [_strength(unit, p) for p in old if p[0] == ident]
            assert [_strength(unit, p) for p in states] == [was[0] - 1], (move, was)


def _strength(unit: Unit, placed: tuple[Any, ...]) -> int:
    """A block's strength in one placement: its cv state, else its steps."""
    cv = dict(placed[4]).get("cv")
    if "cv" in unit.front:
        return int(cv) if cv is not None else int(str(unit.front["cv"]))
    return int(placed[3]) if placed[3] is not None else unit.steps


def _others(placed: Counter[tuple[Any, ...]], touched: set[str]) -> Counter[tuple[Any, ...]]:
    """The placements of pieces the harness left alone; an attachment to a moved piece is
    left out (a piece moved away is no longer attached)."""
    out: Counter[tuple[Any, ...]] = Counter()
    for p, n in placed.items():
        if p[0] not in touched:
            out[(*p[:-1], "" if p[-1] in touched else p[-1])] += n
    return out
