"""One module, two languages (issue 16): every module carries a Japanese translation the VASSAL
way, a `VASSAL.i18n.Translation` under `VASSAL.i18n.Language` with its texts in
`Module_ja.properties`, keyed as VASSAL 3.6 keys each translatable attribute
(compiler/backends/vassal/translation.py). Read back in VASSAL's own engine
(tests/vassal_harness, `--locale ja`): a player whose VASSAL speaks Japanese sees the data's
Japanese names, everyone else the English ones, and a text without Japanese stays English."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from compiler.backends.vassal import translation as tl
from compiler.backends.vassal.buildfile import REINFORCEMENTS_MAP, dice_labels
from compiler.backends.vassal.module import build_module, map_names, plan_module
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.translation import (
    Translations,
    bundle_name,
    component_key,
    data_text,
    properties,
    tool_text,
)
from compiler.i18n import tr
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.series import title_game
from compiler.newgame import write_game
from compiler.rules.engine import validate
from compiler.rules.translations import RULE, untranslated
from tests.conftest import SOURCES, seed_game
from tests.vassal_harness.run import run_harness, vassal_available

M = "VASSAL.build.module."
BUNDLE = bundle_name("ja")


def read_properties(data: bytes) -> dict[str, str]:
    """A .properties file as Java's Properties.load reads the form `properties` writes (one
    line per entry, backslash escapes, \\uXXXX)."""
    out: dict[str, str] = {}
    for line in data.decode("ascii").splitlines():
        if not line or line.startswith("#"):
            continue
        key, value, at, escaped = "", "", 0, False
        parts: list[str] = []
        chars: list[str] = []
        while at < len(line):
            ch = line[at]
            if escaped:
                if ch == "u":
                    chars.append(chr(int(line[at + 1 : at + 5], 16)))
                    at += 4
                else:
                    chars.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(ch, ch))
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "=" and not parts:
                parts.append("".join(chars))
                chars = []
            else:
                chars.append(ch)
            at += 1
        key, value = parts[0], "".join(chars)
        out[key] = value.encode("utf-16", "surrogatepass").decode("utf-16")
    return out


# --- the bundle and its keys (fast, no engine) -------------------------------------------


def test_properties_escapes_keys_and_japanese_as_java_reads_them() -> None:
    entries = {"Map.A b..Board.C: d.name": "1815年 ナポレオン", "Piece.x=y#!": " lead\ttab 𠮟"}
    data = properties(entries)
    assert data.isascii()
    text = data.decode()
    assert r"Map.A\ b..Board.C\:\ d.name=1815\u5E74 \u30CA" in text
    assert r"\uD842\uDF9F" in text  # outside the BMP: a surrogate pair, as Java writes it
    assert r"Piece.x\=y\#\!=\ lead\ttab" in text
    assert read_properties(data) == entries


def test_component_keys_follow_vassal_prefixes() -> None:
    root = etree.Element("VASSAL.build.GameModule", name="G")
    window = etree.SubElement(root, M + "PieceWindow", name="Counters")
    tabs = etree.SubElement(window, "VASSAL.build.widget.TabWidget", entryName="Counters")
    side = etree.SubElement(tabs, "VASSAL.build.widget.ListWidget", entryName="French")
    game_map = etree.SubElement(root, M + "Map", mapName="Main Map")
    picker = etree.SubElement(game_map, M + "map.BoardPicker")
    board = etree.SubElement(picker, M + "map.boardPicker.Board", name="Board 1")
    roster = etree.SubElement(root, M + "PlayerRoster")
    assert component_key(root, "name") == "name"
    assert component_key(window, "text") == "PieceWindow.Counters.text"
    assert (
        component_key(side, "entryName")
        == "PieceWindow.Counters..TabWidget.Counters..ListWidget.French.entryName"
    )
    assert component_key(board, "name") == "Map.Main Map..Board.Board 1.name"
    assert component_key(roster, "buttonText") == "PlayerRoster.buttonText"


def test_only_texts_with_their_own_japanese_get_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = {"Markers": "マーカー"}
    monkeypatch.setattr(
        tl, "tr", lambda message, lang: catalogue.get(message, message) if lang == "ja" else message
    )
    root = etree.Element("VASSAL.build.GameModule", name="Game")
    window = etree.SubElement(root, M + "PieceWindow", name="Counters", text="Counters")
    tabs = etree.SubElement(window, "VASSAL.build.widget.TabWidget", entryName="Markers")
    game_map = etree.SubElement(root, M + "Map", mapName="Plain")
    texts = Translations()
    texts.attribute(root, "name", data_text(Text("Game", "ゲーム")))
    texts.attribute(window, "text", tool_text("Counters"))  # not in the catalogue
    texts.attribute(tabs, "entryName", tool_text("Markers"))
    texts.attribute(game_map, "mapName", data_text(Text("Plain")))  # no Japanese
    texts.piece("Napoleon", data_text(Text("Napoleon", "ナポレオン")))
    texts.piece("Ney", data_text(Text("Ney")))
    assert texts.bundle("ja") == {
        "name": "ゲーム",
        "PieceWindow.Counters..TabWidget.Markers.entryName": "マーカー",
        "Piece.Napoleon": "ナポレオン",
    }
    assert texts.bundle("en") == {}


def _own_ja(text: Text) -> str | None:
    """What the bundle holds for a text: its Japanese when it has its own, else no key."""
    return text.ja if text.ja and text.ja != text.en else None


def _bundle(game: GameData) -> tuple[etree._Element, dict[str, str]]:
    _plan, files = plan_module(game)
    root = etree.fromstring(files["buildFile.xml"])
    return root, read_properties(files[BUNDLE]) if BUNDLE in files else {}


SEED_GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_module_carries_the_data_s_japanese(game_id: str) -> None:
    game = seed_game(game_id)
    root, bundle = _bundle(game)
    translations = root.findall("VASSAL.i18n.Language/VASSAL.i18n.Translation")
    assert [t.get("locale") for t in translations] == ["ja"]
    # the English module is unchanged: the build file's texts are the data's English
    assert root.get("name") == game.game.title.en
    assert bundle["name"] == game.game.title.ja
    for unit in game.units:
        key = "Piece." + unit.name.en
        assert bundle.get(key) == _own_ja(unit.name), unit.id  # no key: VASSAL shows English
    for scenario in game.scenarios:
        key = f"PredefinedSetup.{scenario.name.en}.name"
        assert bundle.get(key) == _own_ja(scenario.name), scenario.id
    names = map_names(game.maps)
    for game_map in game.maps:
        key = f"Map.{names[game_map.id]}.mapName"
        assert bundle.get(key) == _own_ja(game_map.name), game_map.id
    dice = dict(zip(dice_labels(game.game.dice), dice_labels(game.game.dice, "ja"), strict=True))
    for english, japanese in dice.items():
        assert bundle.get(f"DiceButton.{english}.text") == (
            japanese if japanese != english else None
        )
    # no key without a Japanese text of its own, none that only repeats the English
    values = {e.get(a) for e in root.iter() for a in e.attrib}
    assert all(v and v not in values for k, v in bundle.items() if not k.startswith("Piece."))


def test_tool_words_go_through_the_catalogue() -> None:
    game = seed_game("napoleon")
    _root, bundle = _bundle(game)
    counters = tr("Counters", "ja")
    if counters != "Counters":
        assert bundle["PieceWindow.Counters.text"] == counters
    else:
        assert "PieceWindow.Counters.text" not in bundle
    turn = tr("Turn", "ja")
    assert bundle.get("TurnTracker.Turn.buttonText") == (turn if turn != "Turn" else None)


def test_tool_words_of_maps_follow_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = {
        REINFORCEMENTS_MAP: "増援",
        "$pieceName$ moves $previousLocation$ -> $location$ *": "$pieceName$ 移動 $location$ *",
    }
    monkeypatch.setattr(
        tl, "tr", lambda message, lang: catalogue.get(message, message) if lang == "ja" else message
    )
    game = seed_game("twilight_in_the_east")
    _root, bundle = _bundle(game)
    name = map_names(game.maps)[game.maps[0].id]
    assert (
        bundle[f"Map.{name}.moveWithinFormat"]
        == catalogue["$pieceName$ moves $previousLocation$ -> $location$ *"]
    )
    assert f"Map.{name}.createFormat" not in bundle  # not in this catalogue: VASSAL's English
    for key in ("mapName", "buttonName"):
        assert bundle[f"Map.{REINFORCEMENTS_MAP}.{key}"] == "増援"
    assert bundle[f"Map.{REINFORCEMENTS_MAP}..Board.{REINFORCEMENTS_MAP}.name"] == "増援"


def test_untranslated_texts_are_one_warning_per_game_on_request() -> None:
    for game_id in sorted(p.name for p in SOURCES.iterdir() if p.is_dir()):
        game = load_game(SOURCES / game_id).game
        assert game is not None
        assert not [f for f in validate(game) if f.rule == RULE], game_id  # off by default
        found = [f for f in validate(game, untranslated=True) if f.rule == RULE]
        left = untranslated(game)
        assert len(found) == (1 if left else 0), game_id
        if left:
            (finding,) = found
            assert finding.severity.value == "warning"
            assert finding.message.startswith(f"{len(left)} text(s)")
            assert repr(left[0].text.en) in finding.message
            assert str(left[0].location) in finding.message


# --- in VASSAL's engine ---------------------------------------------------------------------


def _component(report: dict[str, Any], cls: str, name: str) -> dict[str, Any]:
    found = [c for c in report["i18n"]["components"] if c["class"] == cls and c["name"] == name]
    assert len(found) == 1, (cls, name, found)
    component: dict[str, Any] = found[0]
    return component


def check_in_vassal(game: GameData, vmod: Path) -> None:
    with zipfile.ZipFile(vmod) as archive:
        bundle = read_properties(archive.read(BUNDLE))
    names = map_names(game.maps)
    for lang in ("ja", "en"):
        report: dict[str, Any] = run_harness(vmod, setups=0, locale=lang)
        assert report["ok"] is True, report["warnings"][:5]
        i18n = report["i18n"]
        assert i18n["locale"] == lang
        assert [t["bundle"] for t in i18n["translations"]] == [BUNDLE]
        if lang == "ja":
            # every key written is one VASSAL looks up, and VASSAL reads our text under it
            assert set(bundle) <= set(i18n["keys"]), sorted(set(bundle) - set(i18n["keys"]))[:5]
            assert i18n["translated"] == bundle
        else:
            assert i18n["translated"] == {}
        assert i18n["title"] == game.game.title.get(lang)
        # a piece in the palette: its name in the player's language, else English
        palette = {p["name"]: p for p in i18n["palette"]}
        for unit in game.units:
            assert palette[unit.name.en]["localizedName"] == unit.name.get(lang), unit.id
            assert palette[unit.name.en]["entryName"] == unit.name.en  # not translatable
        # each scenario's File > New Game entry
        menu = {s["name"]: s["menuText"] for s in i18n["setups"]}
        assert menu == {s.name.en: s.name.get(lang) for s in game.scenarios}
        # each map and its board
        for game_map in game.maps:
            shown = _component(report, M + "Map", names[game_map.id])["localizedName"]
            assert shown == (game_map.name.get(lang) or names[game_map.id])
            board = _component(report, M + "map.boardPicker.Board", game_map.name.en or game_map.id)
            assert board["localizedName"] == (game_map.name.get(lang) or game_map.id)
        if any(s.reinforcements for s in game.scenarios):
            holding = _component(report, M + "Map", REINFORCEMENTS_MAP)
            assert holding["localizedName"] == tr(REINFORCEMENTS_MAP, lang)
        # the toolbar: dice, trays, turn track in the player's language
        buttons = [b for b in report["toolbar"] if b["visible"] and b["toolbar"] == "module"]
        dice = [b["text"] for b in buttons if b["component"] == M + "DiceButton"]
        assert dice == dice_labels(game.game.dice, lang)
        trays = [b["text"] for b in buttons if b["component"] == M + "PieceWindow"]
        assert trays == [tr("Counters", lang)]
        trackers = [b["text"] for b in buttons if b["component"] == M + "turn.TurnTracker"]
        assert len(trackers) == len(game.game.turn_tracks())
        # the tab titles a player reads: the trays' side tabs, the charts window's tabs
        tabs = i18n["tabs"]
        for side in game.game.sides:
            if any(u.side == side.id for u in game.units):
                assert side.name.get(lang) in tabs, side.id
        for chart in game.charts:
            assert chart.name.get(lang) in tabs, chart.id
        if game.game.turns and not game.game.titles:
            assert trackers == [tr("Turn", lang)]
        if lang == "ja" and game.game.turns and game.game.turns[0].label.ja:
            assert game.game.turns[0].label.ja in i18n["turnLevels"][0]["list"]


@pytest.mark.slow
@pytest.mark.parametrize("game_id", SEED_GAMES)
def test_module_speaks_the_player_s_language_in_vassal(game_id: str, tmp_path: Path) -> None:
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    game = seed_game(game_id)
    check_in_vassal(game, build_module(game, tmp_path))


@pytest.mark.slow
def test_series_title_module_speaks_the_player_s_language_in_vassal(tmp_path: Path) -> None:
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    base = load_game(SOURCES / "gcacw").game
    assert base is not None and base.game.titles
    game = with_aids(title_game(base, base.game.titles[0]))[0]
    check_in_vassal(game, build_module(game, tmp_path, name="title"))


@pytest.mark.slow
def test_card_game_decks_and_hands_in_vassal(tmp_path: Path) -> None:
    """Decks (DrawPile names) and hands (PlayerHand names) of `countermix new --map cards`, and
    the hands still dealt at start for a Japanese player (the deal filters on the English deck
    name, which a translation leaves alone)."""
    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    made = write_game(tmp_path / "new-cards", "cards", False)
    loaded = load_game(made.folder).game
    assert loaded is not None
    game = with_aids(loaded)[0]
    assert game.decks
    vmod = build_module(game, tmp_path / "out")
    with zipfile.ZipFile(vmod) as archive:
        bundle = read_properties(archive.read(BUNDLE))
    report: dict[str, Any] = run_harness(vmod, setups=1, locale="ja")
    assert report["ok"] is True, report["warnings"][:5]
    i18n = report["i18n"]
    assert set(bundle) <= set(i18n["keys"]) and i18n["translated"] == bundle
    for deck in game.decks:
        pile = _component(report, M + "map.DrawPile", deck.name.en)
        assert pile["localizedName"] == deck.name.get("ja"), deck.id
    hands = {c["name"]: c["localizedName"] for c in i18n["components"]}
    checked = 0
    for side in game.game.sides:
        english = tr("{side} hand", "en", side=side.name.en)
        if english in hands:
            assert hands[english] == tr("{side} hand", "ja", side=side.name.get("ja"))
            checked += 1
    assert checked
    (setup,) = report["setups"]
    assert any(piece.get("hand") for piece in setup["pieces"])


def test_a_bundle_kept_is_read_back_and_made_again_when_its_texts_change(tmp_path: Path) -> None:
    """translation.kept_properties: the bundle of the same entries is read from the pack, not
    escaped again; other entries make their own; a damaged entry is made again."""
    pack = tmp_path / "pieces.pack"
    entries = {"Piece.1st Infantry": "第1歩兵", "Map.Main.mapName": "主 地図"}
    made = tl.properties(entries)
    kept = PieceTexts(pack, "game")
    assert tl.kept_properties(entries, kept) == made
    kept.save()

    def escaped_again(found: dict[str, str]) -> bytes:
        raise AssertionError("escaped again")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tl, "properties", escaped_again)
        assert tl.kept_properties(entries, PieceTexts(pack, "game")) == made
    other = {**entries, "Piece.2nd Infantry": "第2歩兵"}
    assert tl.kept_properties(other, PieceTexts(pack, "game")) == tl.properties(other)
    data = bytearray(pack.read_bytes())
    data[-3] ^= 0xFF
    pack.write_bytes(bytes(data))
    assert tl.kept_properties(entries, PieceTexts(pack, "game")) == made
