"""Toolbar labels (issue 14): every toolbar button of a built module says what the data says —
each dice button its die's name (or what it rolls, `4d6`), the trays "Counters", the charts
window "Charts", every map that opens from the toolbar its map's name, each hand its side's, each
turn tracker its title — read back from the toolbars of VASSAL 3.6's running player window
(tests/vassal_harness), not from the build file. VASSAL shows a default ("2d6", "Pieces",
"Chart Window Menu", "Map") when the attribute it reads for the button text is missing, and
loads such a module without a word."""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from compiler.backends.vassal.buildfile import (
    REINFORCEMENTS_MAP,
    dice_labels,
    hand_map_name,
    hand_sides,
)
from compiler.backends.vassal.module import build_module, map_names, plan_module
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.common import NO_TEXT, Text
from compiler.model.game import Die
from compiler.model.gamedata import GameData
from compiler.newgame import MAP_KINDS, write_game
from tests.conftest import DATA, SOURCES
from tests.vassal_harness.run import run_harness, vassal_available

GAMES = [DATA / "mini", *sorted(p for p in SOURCES.iterdir() if p.is_dir())]
NEW_GAMES = [(kind, series) for kind in MAP_KINDS for series in (False, True)]
M = "VASSAL.build.module."
DEFAULTS = {"2d6", "Pieces", "Chart Window Menu", "Map", "Turn Tracker"}
"""The texts VASSAL 3.6 shows on these buttons when the build file gives none."""
NOTATION = re.compile(r"[0-9]+d[0-9]+\Z")
Label = tuple[str, str]  # (component class, button text)


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None, folder
    return with_aids(game)[0]


def notation(die: Die) -> str:
    return f"{die.count}d{die.faces}"


def expected_labels(game: GameData) -> Counter[Label]:
    """Every button the module's components put on the toolbar, as the data names it."""
    want: Counter[Label] = Counter({(M + "PlayerRoster", "Retire"): 1})
    want[(M + "PieceWindow", "Counters")] += 1
    want[(M + "ChartWindow", "Charts")] += 1
    names = map_names(game.maps)
    for game_map in game.maps[1:]:  # the first map docks in the main window: no button
        want[(M + "Map", names[game_map.id])] += 1
    if any(s.reinforcements for s in game.scenarios):
        want[(M + "Map", REINFORCEMENTS_MAP)] += 1
    for _side_id, side_name in hand_sides(game):
        want[(M + "PlayerHand", hand_map_name(side_name))] += 1
    for die in game.game.dice:
        want[(M + "DiceButton", die.name.en or notation(die))] += 1
    for track in game.game.turn_tracks():
        text = f"{track.title.id} turn" if track.title is not None else "Turn"
        want[(M + "turn.TurnTracker", text)] += 1
    return want


def shown_labels(buttons: list[dict[str, Any]]) -> Counter[Label]:
    """The visible buttons of the module's own components (VASSAL's built-in undo, log and
    server buttons and the maps' zoom buttons belong to no module component or to a map
    component) on the main toolbar."""
    return Counter(
        (b["component"], b["text"])
        for b in buttons
        if b["visible"] and b["toolbar"] == "module" and b["component"]
    )


def build_file_elements(vmod: Path) -> etree._Element:
    with zipfile.ZipFile(vmod) as archive:
        return etree.fromstring(archive.read("buildFile.xml"))


def element_of(root: etree._Element, button: dict[str, Any]) -> etree._Element:
    """The build-file element of the component that owns `button` (by class and name)."""
    found = [
        e
        for e in root.iter(button["component"])
        if button["componentName"] is None
        or button["componentName"] in (e.get("name"), e.get("mapName"))
    ]
    assert len(found) == 1, (button, len(found))
    return found[0]


def check_toolbar(game: GameData, vmod: Path) -> None:
    report: dict[str, Any] = run_harness(vmod, setups=1)
    assert report["ok"] is True, report["warnings"][:5]
    toolbar: list[dict[str, Any]] = report["toolbar"]
    visible = [b for b in toolbar if b["visible"]]
    # what the player sees on the main toolbar is what the data names
    want = expected_labels(game)
    assert shown_labels(toolbar) == want
    # no button falls back to VASSAL's default text (unless the data says just that, as
    # GCACW's die named `2d6` that rolls 2d6), and none is blank
    defaults = [b for b in visible if b["component"] and b["text"] in DEFAULTS]
    assert all((b["component"], b["text"]) in want for b in defaults), defaults
    assert all(b["text"] or b["icon"] for b in visible), visible
    # dice buttons: one label each, and a label like `2d6` is what that button rolls
    dice = {die.name.en or notation(die): die for die in game.game.dice}
    dice_texts = [b["text"] for b in visible if b["component"] == M + "DiceButton"]
    assert len(dice_texts) == len(set(dice_texts)) == len(game.game.dice)
    for text in dice_texts:
        assert not NOTATION.match(text) or text == notation(dice[text]), text
    # every toolbar button a component of ours owns takes its text from the attribute VASSAL
    # reads for it (DiceButton/PieceWindow/ChartWindow `text`, Map `buttonName`, ...)
    root = build_file_elements(vmod)
    ours = [b for b in visible if b["component"] and b["toolbar"] == "module"]
    for button in ours:
        attribute = button["textAttribute"]
        assert attribute, button
        assert element_of(root, button).get(attribute) == button["text"], button
    # the maps' own toolbars hold VASSAL's icon buttons (zoom, save as image) only
    maps = {*map_names(game.maps).values(), REINFORCEMENTS_MAP}
    maps |= {hand_map_name(name) for _, name in hand_sides(game)}
    on_maps = [b for b in visible if b["toolbar"] != "module"]
    assert on_maps and {b["toolbar"] for b in on_maps} <= maps
    assert all(b["icon"] and b["component"].startswith(M + "map.") for b in on_maps), on_maps
    # a game in progress shows the same labels (the player roster's button hides for the
    # harness, which plays without a side)
    in_game = report["toolbarInGame"]
    if game.scenarios:
        assert in_game is not None
        roster = (M + "PlayerRoster", "Retire")
        assert shown_labels(in_game) + Counter([roster]) == expected_labels(game)


# --- the build file (fast, no engine) -------------------------------------------------------


@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_build_file_gives_every_toolbar_button_its_text(folder: Path) -> None:
    game = _game(folder)
    _plan, files = plan_module(game)
    root = etree.fromstring(files["buildFile.xml"])
    for tag, attribute in (
        ("DiceButton", "text"),
        ("PieceWindow", "text"),
        ("ChartWindow", "text"),
        ("turn.TurnTracker", "buttonText"),
        ("PlayerHand", "buttonName"),
    ):
        for element in root.iter(M + tag):
            assert element.get(attribute), (tag, element.attrib)
            # the text is an attribute, never the element's own text (lxml's `text`)
            assert not (element.text or "").strip(), (tag, element.text)
    for element in root.iter(M + "Map"):
        if element.get("launch") == "true":
            assert element.get("buttonName") == element.get("mapName"), element.attrib
    dice = [e.get("text") for e in root.iter(M + "DiceButton")]
    assert dice == [d.name.en or notation(d) for d in game.game.dice]


def _die(ident: str, count: int, name: str = "") -> Die:
    return Die(id=ident, count=count, faces=6, name=Text(name) if name else NO_TEXT)


def test_dice_labels_say_what_each_button_rolls_and_never_repeat() -> None:
    named = [_die("fire", 4, "Fire"), _die("1d6", 1, "1 die")]
    assert dice_labels(named) == ["Fire", "1 die"]
    assert dice_labels([_die("a", 2), _die("b", 1)]) == ["2d6", "1d6"]
    # two buttons with one name: what each rolls is added, then (same roll) the id
    assert dice_labels([_die("a", 2, "Combat"), _die("b", 1, "Combat")]) == [
        "Combat (2d6)",
        "Combat (1d6)",
    ]
    assert dice_labels([_die("a", 2), _die("b", 2)]) == ["2d6 (a)", "2d6 (b)"]
    assert dice_labels([_die("a", 2, "X"), _die("b", 2, "X")]) == ["X (2d6) (a)", "X (2d6) (b)"]


# --- in VASSAL's engine ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("folder", GAMES, ids=[p.name for p in GAMES])
def test_toolbar_buttons_in_vassal_say_what_the_data_says(folder: Path, tmp_path: Path) -> None:
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    game = _game(folder)
    check_toolbar(game, build_module(game, tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "series"), NEW_GAMES, ids=[f"new-{k}{'-series' * s}" for k, s in NEW_GAMES]
)
def test_new_game_toolbar_in_vassal(kind: str, series: bool, tmp_path: Path) -> None:
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    made = write_game(tmp_path / f"new-{kind}", kind, series)
    game = _game(made.folder)
    check_toolbar(game, build_module(game, tmp_path / "out"))
