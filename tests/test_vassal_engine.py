"""Every built module, loaded in VASSAL 3.6's own engine (tests/vassal_harness): every piece slot
and prototype decodes, every image exists and decodes, no warning, error or dialog, and every
predefined setup puts each piece exactly where its scenario says."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.vassal.buildfile import (
    REINFORCEMENTS_MAP,
    hand_deck,
    hand_map_name,
    turn_zone,
)
from compiler.backends.vassal.module import build_module, map_names
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.model.series import title_game, title_module_name
from compiler.newgame import MAP_KINDS, write_game
from compiler.pipeline import build_game
from compiler.rules.context import scenario_view
from tests.conftest import DATA, SOURCES
from tests.vassal_harness.run import run_harness, vassal_available

pytestmark = pytest.mark.slow
GAMES = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
NEW_GAMES = [(kind, series) for kind in MAP_KINDS for series in (False, True)]
"""The games `countermix new` writes, one per map kind, plain and as a series."""
Where = tuple[str, str, str]  # (piece id property, map name, location name)


@pytest.fixture(scope="module", autouse=True)
def _vassal_installed() -> None:
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")


def expected_places(game: GameData, scenario_id: str) -> Counter[Where]:
    names = map_names(game.maps)
    scenario = next(s for s in game.scenarios if s.id == scenario_id)
    view = scenario_view(game, scenario)
    wanted: Counter[Where] = Counter()
    for placement in view.setup:
        assert placement.place is not None
        wanted[(placement.piece_id, names[placement.place.map], placement.at)] += 1
    for arrival in view.arrivals:
        wanted[(arrival.piece_id, REINFORCEMENTS_MAP, turn_zone(arrival.turn))] += 1
    return wanted


def found_places(setup: dict[str, object]) -> Counter[Where]:
    found: Counter[Where] = Counter()
    pieces = setup["pieces"]
    assert isinstance(pieces, list)
    for piece in pieces:
        props = piece["props"]
        ident = props.get("UnitId") or props.get("MarkerId") or f"?{piece['name']}"
        found[(ident, piece["map"], piece["location"])] += 1
    return found


@pytest.mark.parametrize(
    ("kind", "series"), NEW_GAMES, ids=[f"new-{k}{'-series' * s}" for k, s in NEW_GAMES]
)
def test_new_game_loads_and_plays_in_vassal(kind: str, series: bool, tmp_path: Path) -> None:
    made = write_game(tmp_path / f"new-{kind}", kind, series)
    test_module_loads_and_plays_in_vassal(made.folder, tmp_path / "out")


@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_module_loads_and_plays_in_vassal(folder: Path, tmp_path: Path) -> None:
    game = load_game(folder).game
    assert game is not None
    check_module(build_module(with_aids(game)[0], tmp_path), game)


@pytest.mark.parametrize("kind", ["gcacw", "new-hex-series"])
def test_each_title_of_a_series_is_a_module_that_plays(kind: str, tmp_path: Path) -> None:
    """A series builds one module per title (the default): each loads clean in the engine
    with only its title's pieces, maps and scenarios, and every set-up where it belongs."""
    folder = SOURCES / kind if kind == "gcacw" else write_game(tmp_path / kind, "hex", True).folder
    report, modules = build_game(folder, tmp_path / "out")
    assert report.errors == 0
    base = load_game(folder).game
    assert base is not None and base.game.titles
    names = [f"{title_module_name(base, title)}.vmod" for title in base.game.titles]
    assert [module.name for module in modules] == names
    for title, vmod in zip(base.game.titles, modules, strict=True):
        game = title_game(base, title)
        assert {u.title for u in game.units} <= {"", title.id}, title.id
        assert {s.title for s in game.scenarios} <= {"", title.id} and game.scenarios
        assert len(game.units) < len(base.units)
        check_module(vmod, game)


def check_module(vmod: Path, game: GameData) -> None:
    """`vmod`, the module of `game`, loaded and every set-up started in VASSAL's engine."""
    report: dict[str, Any] = run_harness(vmod, props=("UnitId", "MarkerId", "CardId"))
    assert report["decodeErrors"] == [] and report["imageErrors"] == []
    # piece faces are SVG, drawn by VASSAL's own image ops at 100% and at 200% zoom
    faces = [n for n in report["images"] if n.endswith(".svg")]
    assert faces and report["svgImages"] == len(faces)
    assert report["warnings"] == [], report["warnings"][:5]
    assert [d for d in report["dialogs"] if not d["ignored"]] == []
    assert report["ok"] is True
    assert report["pieceSlots"] == len(game.units) + len(game.markers) + sum(
        c.copies for c in game.cards
    )
    setups = {s["name"]: s for s in report["setups"]}
    assert sorted(setups) == sorted(s.name.en for s in game.scenarios)
    for scenario in game.scenarios:
        setup = setups[scenario.name.en]
        assert setup["gameStarted"] is True
        if scenario.setup or scenario.reinforcements:
            assert found_places(setup) == expected_places(game, scenario.id), scenario.id
        if scenario.decks:
            check_decks(game, scenario, setup["pieces"])


def check_decks(game: GameData, scenario: Scenario, pieces: list[dict[str, Any]]) -> None:
    """Card games: only the scenario's decks are on the table, face down; each side's hand holds
    `hand` cards of its hand deck, face up in the private hand; deck and hands together hold
    each card as often as the mix."""
    by_deck: dict[str, Counter[str]] = {}
    hands: dict[str, Counter[str]] = {}
    for piece in pieces:
        if piece.get("hand"):
            assert piece["obscuredToOthers"] is False and piece["obscuredToMe"] is False, piece
            hands.setdefault(piece["map"], Counter())[piece["props"]["CardId"]] += 1
            continue
        assert piece.get("faceDown") is True, piece
        by_deck.setdefault(piece["deck"], Counter())[piece["props"]["CardId"]] += 1
    decks = {d.id: d for d in game.decks}
    used = {deck_id for player in scenario.decks for deck_id in player.decks}
    assert sorted(by_deck) == sorted(decks[d].name.en for d in used), scenario.id
    sides = {s.id: s.name.en for s in game.game.sides}
    dealt: dict[str, Counter[str]] = {}
    for player in scenario.decks:
        deck = hand_deck(game, player)
        hand = hands.get(hand_map_name(sides[player.side]), Counter())
        assert sum(hand.values()) == (player.hand if deck else 0), (scenario.id, player.side)
        if deck is not None:
            assert {c.deck for c in game.cards if c.id in hand} <= {deck.id}, player.side
            dealt[deck.id] = dealt.get(deck.id, Counter()) + hand
    assert sum(hands.values(), Counter()) == sum(dealt.values(), Counter())  # no other hand
    for deck_id in used:
        wanted = Counter({c.id: c.copies for c in game.cards if c.deck == deck_id})
        assert by_deck[decks[deck_id].name.en] + dealt.get(deck_id, Counter()) == wanted, deck_id
