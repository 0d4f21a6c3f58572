"""`countermix import-module`: fixture modules of several structures, modules countermix
built, hostile archives; the slow tests compare set-ups in the real VASSAL engine."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from compiler.backends.vassal.module import build_module
from compiler.importing.archive import ArchiveError
from compiler.importing.modulecmd import import_module
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.pipeline import UsageError, check_game
from compiler.semdiff import diff_games
from tests.modules import FIXTURES, HOSTILE, hostile
from tests.test_import_save import placements

REPO = Path(__file__).resolve().parents[1]


def _errors(folder: Path) -> list[str]:
    report = check_game(folder)
    return [f.message for f in report.findings if f.severity.name == "ERROR"]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_imports_and_validates(tmp_path: Path, name: str) -> None:
    vmod = FIXTURES[name](tmp_path)
    result = import_module(vmod, tmp_path / "game")
    assert result.folder.is_dir()
    assert not [f for f in result.findings if f.severity.name == "ERROR"], result.findings
    assert _errors(tmp_path / "game") == []
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_old_buildfile_is_read_by_moduledata(tmp_path: Path) -> None:
    result = import_module(FIXTURES["old_hex"](tmp_path), tmp_path / "game")
    game = load_game(result.folder).game
    assert game is not None
    assert game.game.title.en == "Old Hex"
    assert {u.name.en: u.side for u in game.units} == {
        "1st Infantry": "allies",
        "2nd Panzer": "axis",
    }
    assert [m.id for m in game.marker_sets] == ["control"]
    assert game.maps[0].kind == "hex"
    setup = {(e.unit or e.marker, e.at, e.face) for e in game.scenarios[0].setup}
    assert setup == {("1st-infantry", "0302", "back"), ("2nd-panzer", "0503", "front"),
                     ("control", "0101", "front")}  # fmt: skip
    assert (result.folder / "art" / "inf1b.png").is_file()


def test_layered_nested_prototypes_and_two_boards(tmp_path: Path) -> None:
    result = import_module(FIXTURES["layered"](tmp_path), tmp_path / "game")
    game = load_game(result.folder).game
    assert game is not None
    guard = next(u for u in game.units if u.name.en == "Red Guard")
    assert guard.side == "red" and guard.type == "infantry" and guard.front["strength"] == 5
    setup = {(e.unit, e.at, e.face) for e in game.scenarios[0].setup}
    assert setup == {("red-guard", "0203", "back"), ("blue-line", "C-2", "front")}
    assert any("2 boards joined" in line for line in result.unsupported)
    assert any("SquareGrid" in line for line in result.unsupported)


def test_zoned_boxes_and_unsupported_traits(tmp_path: Path) -> None:
    result = import_module(FIXTURES["zoned"](tmp_path), tmp_path / "game")
    game = load_game(result.folder).game
    assert game is not None
    at: Counter[str] = Counter()
    for placed, count in placements(game, game.scenarios[0].id).items():
        at[placed[1]] += count
    assert at == {"0302": 1, "Reserve": 2}
    assert "trait `calcProp` (Calculated Property) on 1 pieces" in result.unsupported
    assert game.units[0].front == {"morale": 4}


def test_points_cards_extension(tmp_path: Path) -> None:
    points = import_module(FIXTURES["points"](tmp_path), tmp_path / "p")
    game = load_game(points.folder).game
    assert game is not None
    assert {(e.unit, e.at) for e in game.scenarios[0].setup} == {
        ("ney", "Paris"),
        ("blucher", "Ligny"),
    }
    cards = import_module(FIXTURES["cards"](tmp_path), tmp_path / "c")
    assert cards.counts["cards"] == 3 and cards.counts["decks"] == 1
    ext = import_module(FIXTURES["extension"](tmp_path), tmp_path / "e")
    text = "\n".join(ext.unsupported)
    assert "prototype `FromExtension`" in text and "scout.png" in text
    assert "piece not in the palette" in text


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_module_is_refused(tmp_path: Path, kind: str) -> None:
    vmod = hostile(tmp_path, kind)
    before = set(tmp_path.iterdir())
    with pytest.raises(ArchiveError):
        import_module(vmod, tmp_path / "out")
    assert set(tmp_path.iterdir()) == before


def test_busy_out_dir_is_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(UsageError):
        import_module(FIXTURES["old_hex"](tmp_path), out)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


SLOW = pytest.mark.slow
SEEDS = [
    "tests/data/mini",
    "sources/napoleon",
    "sources/tank_killers",
    pytest.param("sources/gcacw", marks=SLOW),
    pytest.param("sources/asia_engulfed", marks=SLOW),
    pytest.param("sources/twilight_in_the_east", marks=SLOW),
]
"""The seed games whose modules import-module reads back."""


@pytest.mark.parametrize("source", SEEDS)
def test_countermix_module_round_trip(tmp_path: Path, source: str) -> None:
    """import(M) and import(build(import(M))) are the same game: the box strip is cut off
    the imported boards and laid out again, the Reinforcements map's turn boxes become
    reinforcements and come back as that map, art keeps its name by its bytes."""
    game = load_game(REPO / source).game
    assert game is not None
    vmod = build_module(with_aids(game)[0], tmp_path / "build")
    first = import_module(vmod, tmp_path / "a")
    assert _errors(first.folder) == []
    again = load_game(first.folder).game
    assert again is not None
    second = import_module(build_module(with_aids(again)[0], tmp_path / "build2"), tmp_path / "b")
    a, b = load_game(first.folder).game, load_game(second.folder).game
    assert a is not None and b is not None
    changes = [c for c in diff_games(a, b) if (c.section, c.field) != ("game", "id")]
    assert not changes, changes[:10]


@pytest.mark.parametrize("source", SEEDS)
def test_countermix_module_set_ups_import_as_the_original_scenarios(
    tmp_path: Path, source: str
) -> None:
    """Every set-up of a module countermix built is read by import-save's reader into the
    scenario it was built from: same id, name, and placements (piece, location, face, steps,
    state, turn, note, attachment), with unit, marker and map ids kept."""
    game = load_game(REPO / source).game
    assert game is not None
    vmod = build_module(with_aids(game)[0], tmp_path / "build")
    result = import_module(vmod, tmp_path / "a")
    assert _errors(result.folder) == []
    assert not [u for u in result.unsupported if u.startswith("set-up ")], result.unsupported
    imported = load_game(result.folder).game
    assert imported is not None
    expected = [s for s in game.scenarios if s.setup or s.reinforcements or s.decks]
    assert sorted(s.id for s in imported.scenarios) == sorted(s.id for s in expected)
    for scenario in expected:
        again = next(s for s in imported.scenarios if s.id == scenario.id)
        assert again.name.en == scenario.name.en
        assert placements(imported, scenario.id) == placements(game, scenario.id), scenario.id
        # the decks on the table hold the same cards and each side is dealt the same hand;
        # which side draws from a shared-looking pile is not in the module (each may)
        assert _hands(again) == _hands(scenario) and _tabled(imported, again) == _tabled(
            game, scenario
        )


def _hands(scenario: Scenario) -> dict[str, int]:
    return {d.side: d.hand for d in scenario.decks}


def _tabled(game: GameData, scenario: Scenario) -> set[frozenset[str]]:
    """The decks of a scenario as the sets of card names they hold."""
    used = {deck for player in scenario.decks for deck in player.decks}
    return {frozenset(c.name.en for c in game.cards if c.deck == deck) for deck in used}


def test_countermix_module_keeps_hexes_boxes_and_reinforcements(tmp_path: Path) -> None:
    game = load_game(REPO / "tests/data/mini").game
    assert game is not None
    result = import_module(build_module(with_aids(game)[0], tmp_path / "build"), tmp_path / "a")
    imported = load_game(result.folder).game
    assert imported is not None
    assert [m.id for m in imported.maps] == ["main-map"]  # no Reinforcements map
    main = imported.maps[0]
    assert main.kind == "hex" and main.grid is not None and main.art is not None
    assert main.grid.id_format == "{sheet}{col:02d}{row:02d}"
    assert [(s.id, s.columns, s.rows) for s in main.grid.sheets] == [
        ("N", (1, 10), (1, 8)),
        ("S", (1, 10), (1, 8)),
    ]
    assert [b.id for b in main.boxes] == ["blue-reinforcements"]
    scenario = imported.scenarios[0]
    assert [(r.turn, r.units, r.at) for r in scenario.reinforcements] == [
        (2, ("r-inf-2",), "N1008")
    ]
    assert scenario.last_turn == 2


def _placements(report: dict[str, object]) -> dict[str, Counter[tuple[str, str, str]]]:
    setups = report["setups"]
    assert isinstance(setups, list)
    return {
        # countermix's Face layer names a flipped piece "<name> (back)"; the original's did not
        s["name"]: Counter(
            (p["name"].removesuffix(" (back)"), p["map"], p["location"]) for p in s["pieces"]
        )
        for s in setups
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "old_hex",
        "zoned",
        "points",
        "layered",
        "cards",
    ],
)
def test_rebuilt_module_places_like_the_original(tmp_path: Path, name: str) -> None:
    from tests.vassal_harness.run import run_harness, vassal_available

    if not vassal_available():
        pytest.skip("VASSAL is not installed")
    vmod = FIXTURES[name](tmp_path)
    result = import_module(vmod, tmp_path / "game")
    game = load_game(result.folder).game
    assert game is not None
    rebuilt = build_module(game, tmp_path / "build")
    assert _placements(run_harness(rebuilt)) == _placements(run_harness(vmod))


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_game_builds_module_and_print_sheets(tmp_path: Path, name: str) -> None:
    """The imported folder builds as it is, through the command a user runs: the module and
    the print sheets (piece pictures placed on them), with no error."""
    from compiler.cli import main

    folder = import_module(FIXTURES[name](tmp_path), tmp_path / "game").folder
    assert main(["build", str(folder), "--out", str(tmp_path / "out")]) == 0
    built = sorted(p.name for p in (tmp_path / "out" / "game").iterdir())
    assert "game.vmod" in built and "charts.pdf" in built
    assert any(n in built for n in ("counters.pdf", "blocks.pdf", "cards.pdf")), built
