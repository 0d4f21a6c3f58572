"""Per-scenario decks and starting hands (issue 12 §2-§3): a card game's scenario save holds only
the decks the scenario names, and its starting hands are dealt when the scenario starts, by
Startup Global Key Commands, so that every game deals a different hand. The build is checked
here; the engine test starts each Tank Killers scenario twice in VASSAL 3.6 and reads the table
and the hands."""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from compiler.backends.vassal.buildfile import (
    SCENARIO_PROPERTY,
    deal_key,
    hand_deck,
    hand_map_name,
)
from compiler.backends.vassal.module import build_module
from compiler.importing.saves import SaveContents, read_commands
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.sequence import ESC, split
from tests.conftest import SOURCES
from tests.test_vassal_engine import check_decks
from tests.vassal_harness.run import run_harness, vassal_available

GAME = SOURCES / "tank_killers"
MODULE = "VASSAL.build.module."


@pytest.fixture(scope="module")
def game() -> GameData:
    loaded = load_game(GAME).game
    assert loaded is not None
    return loaded


@pytest.fixture(scope="module")
def vmod(game: GameData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_module(with_aids(game)[0], tmp_path_factory.mktemp("tank_killers"))


def _build_file(vmod: Path) -> etree._Element:
    with zipfile.ZipFile(vmod) as archive:
        return etree.fromstring(archive.read("buildFile.xml"))


def test_each_scenario_save_holds_only_its_decks_and_no_hand(game: GameData, vmod: Path) -> None:
    decks = {d.id: d for d in game.decks}
    setups = {
        e.get("name"): e.get("file") for e in _build_file(vmod).iter(MODULE + "PredefinedSetup")
    }
    for scenario in game.scenarios:
        file = setups[scenario.name.en]
        assert file == f"{scenario.id}.vsav"
        with zipfile.ZipFile(vmod) as archive, archive.open(file) as save:
            with zipfile.ZipFile(save) as inner:
                text = inner.read("savedGame").decode("utf-8")
        contents = read_commands(text, SaveContents(Path(file)))
        used = {deck_id for player in scenario.decks for deck_id in player.decks}
        full = {d.name: len(d.members) for d in contents.decks if d.members}
        assert full == {
            decks[d].name.en: sum(c.copies for c in game.cards if c.deck == d) for d in used
        }
        # every card lies in a deck: the hands are dealt by VASSAL, not stored
        assert all(p.deck for p in contents.pieces)
        # the empty discard piles of the table's shared boxes and of the scenario's sides
        sides = {player.side for player in scenario.decks}
        other = [s.name.en for s in game.game.sides if s.id not in sides]
        empty = [d.name for d in contents.decks if not d.members]
        assert empty and not [n for n in empty if any(n.startswith(o) for o in other)]
        commands = split(text, ESC)
        assert f"GlobalProperty\t;{SCENARIO_PROPERTY};{scenario.id}" in commands
        assert commands[-2:] == ["SETUP_STACK\t", "end_save"]


def test_the_deal_runs_at_start_for_the_scenarios_that_name_it(game: GameData, vmod: Path) -> None:
    root = _build_file(vmod)
    commands = list(root.iter(MODULE + "StartupGlobalKeyCommand"))
    sides = {s.id: s.name.en for s in game.game.sides}
    for scenario in game.scenarios:
        for player in scenario.decks:
            deck = hand_deck(game, player)
            assert deck is not None and player.hand == 3
            hand = hand_map_name(sides[player.side])
            deal = [c for c in commands if c.get("hotkey") == deal_key(player.side)]
            assert len(deal) == 1
            assert deal[0].get("deckCount") == str(player.hand)
            assert f'DeckName=="{deck.name.en}"' in deal[0].get("filter", "")
            assert f'{SCENARIO_PROPERTY}=="{scenario.id}"' in deal[0].get("filter", "")
            assert deal[0].get("whenToApply") == "startOfGameOnly"
            show = [c for c in commands if f'CurrentMap=="{hand}"' in c.get("filter", "")]
            assert len(show) == 1 and commands.index(show[0]) > commands.index(deal[0])
    # a card of the hand deck can be sent to every hand; a Formation card to none
    slots = {s.get("entryName"): s.text or "" for s in root.iter("VASSAL.build.widget.CardSlot")}
    tactics = next(c for c in game.cards if c.deck == "tactics")
    formation = next(c for c in game.cards if c.deck == "german-formation")
    assert slots[tactics.name.en].count("sendto;") == len(sides)
    assert "sendto;" not in slots[formation.name.en]


def _hands(pieces: list[dict[str, Any]]) -> tuple[tuple[str, frozenset[str]], ...]:
    hands: dict[str, set[str]] = {}
    for piece in pieces:
        if piece.get("hand"):
            hands.setdefault(piece["map"], set()).add(piece["props"]["CardId"])
    return tuple(sorted((name, frozenset(ids)) for name, ids in hands.items()))


@pytest.mark.slow
def test_vassal_deals_a_different_hand_at_each_start(game: GameData, vmod: Path) -> None:
    """Each scenario started twice in the engine: the table holds only the scenario's decks,
    each side's hand the rules' number of cards of its hand deck, face up in the private hand,
    and the two starts deal different hands. Both sides' hands are compared as sets of card ids
    (the Tactics deck has one copy of each of its 92 cards): two deals of 3 + 3 cards agree by
    chance with probability 1 / (C(92,3) * C(89,3)), about 7e-11."""
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    report: dict[str, Any] = run_harness(vmod, props=("CardId",), starts=2)
    assert report["ok"] is True, report["warnings"][:5]
    setups = {s["name"]: s for s in report["setups"]}
    for scenario in game.scenarios:
        setup = setups[scenario.name.en]
        starts = [setup, *setup["restarts"]]
        assert len(starts) == 2 and all(s["gameStarted"] for s in starts)
        for start in starts:
            check_decks(game, scenario, start["pieces"])
        first, second = (_hands(s["pieces"]) for s in starts)
        assert len(first) == len(scenario.decks) and Counter(len(h) for _, h in first) == Counter(
            {3: len(scenario.decks)}
        )
        assert first != second, scenario.id
