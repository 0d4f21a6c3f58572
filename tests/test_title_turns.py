"""Per-title turn tracks in a series (issue 12 §2): each GCACW title has its own turn record
track and dates; its scenarios' turns are checked on it, the player aids print one track per
title and the module has one turn tracker per title. A title without a track uses the game's."""

from __future__ import annotations

import io
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree
from pypdf import PdfReader

from compiler.backends.charts.build import charts_pdf
from compiler.backends.charts.table import cell_text
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.vassal.module import plan_module
from compiler.backends.vassal.turns import add_turn_trackers, turn_label
from compiler.i18n import tr
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import SOURCES, findings_of, flat, line_of, replace_in, seed_game

GAME = "game.yaml"
RTG = "rtg/scenarios.yaml"
OTR = "otr/scenarios.yaml"
SIV = "siv/scenarios.yaml"
TRACKER = "VASSAL.build.module.turn.TurnTracker"
LEVEL = "VASSAL.build.module.turn.ListTurnLevel"


@pytest.fixture
def gcacw(tmp_path: Path) -> Path:
    """A fresh writable copy of the GCACW series."""
    return shutil.copytree(SOURCES / "gcacw", tmp_path / "gcacw")


def _found(folder: Path) -> set[tuple[str, int, str]]:
    return flat(folder, findings_of(folder))


def _drop_title_track(folder: Path, title_id: str) -> None:
    """Delete a title's `turns:` (and its comment) from game.yaml."""
    path = folder / GAME
    text = path.read_text(encoding="utf-8")
    start = text.index(f"    - id: {title_id}\n")
    end = text.find("    - id: ", start + 1)
    end = len(text) if end < 0 else end
    block = text[start:end]
    kept = "".join(
        line
        for line in block.splitlines(keepends=True)
        if not re.match(r"\s+(turns:|- \{n: |# .*ILLUSTRATIVE dates)", line)
    )
    assert kept != block
    path.write_text(text[:start] + kept + text[end:], encoding="utf-8")


def _add_game_track(folder: Path, count: int) -> None:
    turns = "".join(f"    - {{n: {n}, label: Day {n}, time: day}}\n" for n in range(1, count + 1))
    replace_in(folder / GAME, "  values:\n", f"  turns:\n{turns}  values:\n")


def _loaded(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return with_aids(game)[0]


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "old", "new", "rule"),
    [
        # RTG's track has 7 turns: Meade Moves North may end on turn 7, not 8
        (RTG, "last_turn: 7", "last_turn: 8", "scenario-turns"),
        # OTR's track has 5 turns, though Gaines' Mill uses 2
        (OTR, "last_turn: 2", "last_turn: 6", "scenario-turns"),
        # SIV's track has 3 turns; longer tracks of other titles do not count
        (SIV, "last_turn: 3", "last_turn: 4", "scenario-turns"),
        # Gettysburg runs on RTG's turns 4-6: a reinforcement on turn 3 comes too early
        (
            RTG,
            "{turn: 5, units: [rtg-u-stannard]",
            "{turn: 3, units: [rtg-u-stannard]",
            "reinforcement-turn",
        ),
        # a title's track numbered 1, 2, 3, 4, 6 ...
        (GAME, '{n: 5, label: {en: "Jul 2"', '{n: 6, label: {en: "Jul 2"', "turn-track"),
    ],
    ids=["rtg-too-long", "otr-too-long", "siv-too-long", "early-reinforcement", "rtg-gap"],
)
def test_a_break_of_a_title_track_is_one_finding_at_its_line(
    gcacw: Path, file: str, old: str, new: str, rule: str
) -> None:
    replace_in(gcacw / file, old, new)
    assert _found(gcacw) == {(file, line_of(gcacw / file, new), rule)}


def test_messages_name_the_title(gcacw: Path) -> None:
    replace_in(gcacw / RTG, "last_turn: 7", "last_turn: 8")
    replace_in(gcacw / GAME, '{n: 2, label: {en: "Aug 30"', '{n: 3, label: {en: "Aug 30"')
    messages = sorted(f.message for f in findings_of(gcacw))
    assert messages == [
        "scenario `rtg-meade-moves-north` runs from turn 1 to 8 (RTG's track has 7 turns)",
        "turn 3 stands where turn 2 should on SJW's turn track",
    ]


@pytest.mark.parametrize(
    ("file", "old", "new"),
    [
        (OTR, "last_turn: 2", "last_turn: 5"),  # the last turn of OTR's track
        ("sjw/scenarios.yaml", "last_turn: 3", "last_turn: 4"),  # SJW's track has 4
        (RTG, "{turn: 5, units: [rtg-u-stannard]", "{turn: 4, units: [rtg-u-stannard]"),
        (RTG, "{turn: 5, units: [rtg-c-anderson]", "{turn: 6, units: [rtg-c-anderson]"),
    ],
    ids=["otr-last-box", "sjw-last-box", "reinforcement-first", "reinforcement-last"],
)
def test_edge_values_on_a_title_track_pass(gcacw: Path, file: str, old: str, new: str) -> None:
    replace_in(gcacw / file, old, new)
    assert _found(gcacw) == set()


def test_a_title_without_a_track_falls_back_to_the_games(gcacw: Path) -> None:
    _drop_title_track(gcacw, "SIV")
    assert _found(gcacw) == set()  # no track anywhere for SIV: nothing to check against
    _add_game_track(gcacw, 2)
    # Front Royal (turns 1-3) is now checked on the game's 2-turn track; RTG (7 turns) keeps
    # its own track, longer than the game's
    assert _found(gcacw) == {(SIV, line_of(gcacw / SIV, "last_turn: 3"), "scenario-turns")}
    message = next(f.message for f in findings_of(gcacw))
    assert message == "scenario `siv-front-royal` runs from turn 1 to 3 (the track has 2 turns)"


def test_the_games_track_at_the_edge_passes_for_a_title_without_one(gcacw: Path) -> None:
    _drop_title_track(gcacw, "SIV")
    _add_game_track(gcacw, 3)
    assert _found(gcacw) == set()


def test_the_games_own_track_is_still_numbered(gcacw: Path) -> None:
    _add_game_track(gcacw, 3)
    replace_in(gcacw / GAME, "- {n: 3, label: Day 3", "- {n: 4, label: Day 3")
    assert _found(gcacw) == {(GAME, line_of(gcacw / GAME, "n: 4, label: Day 3"), "turn-track")}


def test_every_gcacw_title_has_a_track_that_starts_its_scenarios_on_their_date() -> None:
    game = seed_game("gcacw")
    assert all(title.turns for title in game.game.titles)
    assert not game.game.turns  # every title has its own: the series needs no game track
    for scenario in game.scenarios:
        track = game.game.turns_for(scenario.title)
        assert track is game.title(scenario.title).turns  # type: ignore[union-attr]
        assert track[scenario.first_turn - 1].date == scenario.date, scenario.id
        assert scenario.last_turn <= len(track), scenario.id
        assert all(turn.time == "day" for turn in track)  # one turn is one day (3.0)


# --- player aids and the charts PDF ---------------------------------------------------------


def test_the_aids_give_one_turn_track_per_title() -> None:
    game = seed_game("gcacw")
    tracks = {c.id: c for c in game.aids if c.id.startswith("turn-track")}
    assert list(tracks) == [f"turn-track-{t.id.lower()}" for t in game.game.titles]
    for title in game.game.titles:
        chart = tracks[f"turn-track-{title.id.lower()}"]
        assert chart.name.en == f"Turn record track: {title.name.en}"
        assert chart.name.ja == f"ターン記録トラック：{title.name.ja}"
        assert [(r.label.en, r.cells[1], cell_text(r.cells[2], "en")) for r in chart.rows] == [
            (str(t.n), t.date, t.time) for t in title.turns
        ]
        assert [cell_text(r.cells[2], "ja") for r in chart.rows] == [
            tr(t.time, "ja") for t in title.turns
        ]  # day and night are the tool's words


def test_a_game_without_titles_keeps_one_track() -> None:
    game = seed_game("napoleon")
    assert [c.id for c in game.aids if c.id.startswith("turn-track")] == ["turn-track"]


def test_a_title_without_a_track_adds_the_games_track_to_the_aids(gcacw: Path) -> None:
    _drop_title_track(gcacw, "SIV")
    _add_game_track(gcacw, 3)
    ids = [c.id for c in _loaded(gcacw).aids if c.id.startswith("turn-track")]
    assert "turn-track-siv" not in ids and ids[-1] == "turn-track" and len(ids) == 7


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_charts_pdf_prints_each_titles_track(lang: str) -> None:
    full = seed_game("gcacw")
    tracks = tuple(c for c in full.aids if c.id.startswith("turn-track"))
    game = replace(full, charts=(), aids=tracks)
    pages = PdfReader(io.BytesIO(charts_pdf(game, SheetOptions(lang=lang)))).pages  # type: ignore[arg-type]
    assert len(pages) < len(full.game.titles)  # the tracks share pages (charts.pdf packs tables)
    text = _squash("".join(page.extract_text() for page in pages))
    for title in full.game.titles:
        heading = "Turn record track: " if lang == "en" else "ターン記録トラック："
        track = text.partition(_squash(heading + title.name.get(lang)))[2]
        assert track, title.id
        for turn in title.turns:
            assert _squash(turn.label.get(lang)) in track and turn.date in track
    assert text.count(tr("day", lang)) >= sum(len(title.turns) for title in full.game.titles)


# --- the VASSAL module ----------------------------------------------------------------------


def _trackers(root: etree._Element) -> dict[str, tuple[str, list[str]]]:
    """Tracker name → (its turn property, its list of turns)."""
    out = {}
    for tracker in root.iter(TRACKER):
        level = tracker.find(LEVEL)
        assert level is not None
        out[tracker.get("name", "")] = (level.get("property", ""), level.get("list", "").split(","))
    return out


def test_the_module_has_a_turn_tracker_per_title_with_its_labels() -> None:
    game = seed_game("gcacw")
    _plan, files = plan_module(game)
    trackers = _trackers(etree.fromstring(files["buildFile.xml"]))
    assert list(trackers) == [f"Turn: {t.name.en}" for t in game.game.titles]
    for title in game.game.titles:
        prop, labels = trackers[f"Turn: {title.name.en}"]
        assert prop == f"Turn_{title.id}"
        assert labels == [turn_label(t) for t in title.turns]
    assert trackers["Turn: Roads to Gettysburg"][1][3] == "Jul 1 (1863-07-01)"
    assert len({prop for prop, _ in trackers.values()}) == len(trackers)


def test_a_title_without_a_track_gets_the_games_tracker(gcacw: Path) -> None:
    _drop_title_track(gcacw, "SIV")
    _add_game_track(gcacw, 3)
    game = _loaded(gcacw)
    root = etree.Element("module")
    add_turn_trackers(root, game.game)
    trackers = _trackers(root)
    assert "Turn: Stonewall in the Valley" not in trackers
    assert trackers["Turn"] == ("Turn", ["Day 1", "Day 2", "Day 3"])
    assert len(trackers) == 7


def test_a_game_without_titles_has_one_tracker_named_turn() -> None:
    root = etree.Element("module")
    add_turn_trackers(root, seed_game("napoleon").game)
    assert list(_trackers(root)) == ["Turn"]
