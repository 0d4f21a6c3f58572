"""The semantic diff: copies of the fixture game edited one way each → exactly those changes."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.semdiff import Change, changes_json, diff_games, render_changes
from tests.conftest import DATA, SOURCES, replace_in, seed_game

Edit = Callable[[Path], None]

CARDS = """\
decks:
  - {id: blue-deck, name: Blue Deck, side: blue, colour: "#203060"}
cards:
  - {id: charge, deck: blue-deck, name: Charge, number: 1, fields: {attack: 2}}
  - {id: rally, deck: blue-deck, name: Rally, number: 2, text: Remove one fatigue.}
charts:
  - id: crt
    name: Combat Results
    reference: "7.4"
    columns: [{id: die, label: Die}, {id: low, label: "1:1"}, {id: high, label: "2:1"}]
    rows:
      - {label: "1", cells: [1, AR, DR]}
      - {label: "2", cells: [2, EX, DE]}
"""


def _load(folder: Path) -> GameData:
    data = load_game(folder).game
    assert data is not None, folder
    return data


def _pair(tmp_path: Path, edit: Edit, base: Edit | None = None) -> tuple[Path, Path]:
    """Two copies of the fixture game (both first edited by `base`), the second edited."""
    old, new = tmp_path / "old", tmp_path / "new"
    for folder in (old, new):
        shutil.copytree(DATA / "mini", folder)
        (folder / "cards.yaml").write_text(CARDS, encoding="utf-8")
        if base is not None:
            base(folder)
    edit(new)
    return old, new


def _diff(tmp_path: Path, edit: Edit, base: Edit | None = None) -> list[Change]:
    old, new = _pair(tmp_path, edit, base)
    return diff_games(_load(old), _load(new))


def _edit(file: str, old: str, new: str) -> Edit:
    return lambda folder: replace_in(folder / file, old, new)


def _edits(*edits: Edit) -> Edit:
    def run(folder: Path) -> None:
        for edit in edits:
            edit(folder)

    return run


def _append(file: str, text: str) -> Edit:
    def run(folder: Path) -> None:
        path = folder / file
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")

    return run


SCENARIO = "scenarios/first.yaml"
R_INF_2 = """  - {id: r-inf-2, name: Red Line, side: red, nationality: redland, type: infantry, size: XX,
     formation: red-army, title: AAA, front: {strength: 3, movement: 3}, back: {strength: 2, movement: 3}, steps: 2}
"""


def _reformat(folder: Path) -> None:
    """The same game written differently: records reordered and moved to other files, flow
    style made block style, setup entries reordered and regrouped, 4 written 4.0."""
    replace_in(folder / "units.yaml", R_INF_2, "")
    (folder / "more-units.yaml").write_text(
        "# moved here\nunits:\n"
        "  - id: r-inf-2\n    steps: 2\n    back: {movement: 3, strength: 2.0}\n"
        "    front:\n      movement: 3\n      strength: 3\n"
        "    name: 'Red Line'\n    side: red\n    nationality: redland\n    type: infantry\n"
        "    size: XX\n    formation: red-army\n    title: AAA\n",
        encoding="utf-8",
    )
    replace_in(
        folder / "units.yaml",
        "  - {id: infantry, name: Infantry, symbol: infantry}\n"
        "  - {id: artillery, name: Artillery, symbol: artillery}\n",
        "  - {id: artillery, name: Artillery, symbol: artillery}\n"
        '  - {symbol: infantry, id: infantry, name: "Infantry"}\n',
    )
    replace_in(
        folder / SCENARIO,
        "      - {at: N0303, unit: b-inf-1, state: {manpower: 6, fatigue: 0}}\n"
        "      - {at: N0303, unit: b-ldr, attached_to: b-inf-1}\n",
        "      - {at: N0303, unit: b-ldr, attached_to: b-inf-1}\n"
        "      - at: N0303\n        units: [b-inf-1]\n        state:\n"
        "          fatigue: 0\n          manpower: 6.0\n",
    )
    replace_in(folder / "cards.yaml", '{id: low, label: "1:1"}', "{label: '1:1', id: low}")


def _grouped(folder: Path) -> None:
    replace_in(folder / SCENARIO, "units: [r-inf-1]", "units: [r-inf-1, r-inf-2]")


def _split(folder: Path) -> None:
    replace_in(
        folder / SCENARIO,
        "      - {at: N0808, units: [r-inf-1], state: {manpower: 7}}\n",
        "      - {at: N0808, unit: r-inf-2, state: {manpower: 7}}\n"
        "      - {state: {manpower: 7}, at: N0808, units: [r-inf-1]}\n",
    )


def _art(name: str, data: bytes) -> Edit:
    def run(folder: Path) -> None:
        (folder / "art").mkdir(exist_ok=True)
        (folder / "art" / name).write_bytes(data)
        replace_in(
            folder / "map.yaml",
            "    kind: hex\n",
            f"    kind: hex\n    art: {{image: art/{name}}}\n",
        )

    return run


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:8]


def test_identical_copy_has_no_changes(tmp_path: Path) -> None:
    assert _diff(tmp_path, lambda _folder: None) == []


def test_reformatted_and_reordered_yaml_has_no_changes(tmp_path: Path) -> None:
    assert _diff(tmp_path, _reformat) == []


def test_setup_grouping_and_entry_order_are_no_changes(tmp_path: Path) -> None:
    """`units: [a, b]` and two entries, in another order, set up the same pieces."""
    old, new = _pair(tmp_path, _split)
    _grouped(old)
    assert diff_games(_load(old), _load(new)) == []


def test_order_of_tags_and_zones_is_no_change(tmp_path: Path) -> None:
    def tagged(order: str) -> Edit:
        return _edits(
            _edit("units.yaml", "name: General Blue", f"name: General Blue\n    tags: [{order}]"),
            _edit("map.yaml", "zones: [west]", f"zones: [{order}]"),
        )

    old, new = _pair(tmp_path, tagged("b, a"))
    tagged("a, b")(old)
    assert diff_games(_load(old), _load(new)) == []


def test_a_second_copy_set_up_is_an_added_placement(tmp_path: Path) -> None:
    assert _diff(tmp_path, _split) == [
        Change("added", "placement", "r-inf-2", "", "", "at: N0808, state: {manpower: 7}", "first")
    ]


P = "first"
CASES: list[tuple[str, Edit, list[Change]]] = [
    (
        "unit renamed",
        _edit("units.yaml", "name: General Blue", "name: General Azure"),
        [Change("renamed", "unit", "b-ldr", "name", "General Blue", "General Azure")],
    ),
    (
        "unit value changed",
        _edit(
            "units.yaml", "front: {strength: 4, movement: 3}", "front: {strength: 5, movement: 3}"
        ),
        [Change("changed", "unit", "b-inf-1", "front.strength", "4", "5")],
    ),
    (
        "unit value added and tag",
        _edit(
            "units.yaml",
            "    steps: 2\n  - {id: b-inf-2",
            "    steps: 2\n    tags: [elite]\n    copies: 3\n  - {id: b-inf-2",
        ),
        [
            Change("changed", "unit", "b-inf-1", "copies", "1", "3"),
            Change("changed", "unit", "b-inf-1", "tags", "[]", "[elite]"),
        ],
    ),
    (
        "leader ratings",
        _edit("units.yaml", "ratings: {command: 3, tactical: 2}", "ratings: {command: 4}"),
        [
            Change("changed", "unit", "b-ldr", "leader.ratings.command", "3", "4"),
            Change("changed", "unit", "b-ldr", "leader.ratings.tactical", "2", ""),
        ],
    ),
    (
        "unit added",
        _edit(
            "units.yaml",
            "markers:\n",
            "  - {id: b-inf-3, name: 3rd Infantry, side: blue, type: infantry}\nmarkers:\n",
        ),
        [Change("added", "unit", "b-inf-3", new="3rd Infantry")],
    ),
    (
        "unit removed",
        _edit("units.yaml", R_INF_2, ""),
        [Change("removed", "unit", "r-inf-2", old="Red Line")],
    ),
    (
        "setup piece moved",
        _edit(SCENARIO, "{at: N0808, units: [r-inf-1]", "{at: N0707, units: [r-inf-1]"),
        [Change("moved", "placement", "r-inf-1", "at", "N0808", "N0707", P)],
    ),
    (
        "setup piece flipped",
        _edit(SCENARIO, "fatigue: 1}, face: back}", "fatigue: 1}}"),
        [Change("changed", "placement", "b-inf-2", "face", "back", "front", P)],
    ),
    (
        "setup piece reduced",
        _edit(SCENARIO, "unit: b-inf-1, state", "unit: b-inf-1, steps: 1, state"),
        [Change("changed", "placement", "b-inf-1", "steps", "", "1", P)],
    ),
    (
        "setup state value",
        _edit(SCENARIO, "{manpower: 7}", "{manpower: 6, fatigue: 2}"),
        [
            Change("changed", "placement", "r-inf-1", "state.fatigue", "", "2", P),
            Change("changed", "placement", "r-inf-1", "state.manpower", "7", "6", P),
        ],
    ),
    (
        "setup piece removed and added",
        _edits(
            _edit(SCENARIO, "      - {at: N0303, unit: b-ldr, attached_to: b-inf-1}\n", ""),
            _edit(
                SCENARIO,
                "    reinforcements:",
                "      - {at: N0101, marker: fatigue-2}\n    reinforcements:",
            ),
        ),
        [
            Change("removed", "placement", "b-ldr", "", "at: N0303, attached_to: b-inf-1", "", P),
            Change("added", "placement", "fatigue-2", "", "", "at: N0101", P),
        ],
    ),
    (
        "reinforcement turn and entry",
        _edit(
            SCENARIO,
            "{turn: 2, units: [r-inf-2], at: N1008",
            "{turn: 3, units: [r-inf-2], at: N1007",
        ),
        [
            Change("changed", "reinforcement", "r-inf-2", "turn", "2", "3", P),
            Change("moved", "reinforcement", "r-inf-2", "at", "N1008", "N1007", P),
        ],
    ),
    (
        "withdrawal added",
        _append(SCENARIO, "    withdrawals:\n      - {turn: 3, units: [b-art-1, b-ldr]}\n"),
        [
            Change("added", "withdrawal", "b-art-1", "", "", "turn: 3", P),
            Change("added", "withdrawal", "b-ldr", "", "", "turn: 3", P),
        ],
    ),
    (
        "scenario fields",
        _edits(
            _edit(SCENARIO, "last_turn: 3", "last_turn: 4"),
            _edit(SCENARIO, "name: {en: First Clash, ja: 最初の衝突}", "name: First Clash"),
        ),
        [
            Change(
                "renamed", "scenario", "first", "name", "First Clash / 最初の衝突", "First Clash"
            ),
            Change("changed", "scenario", "first", "last_turn", "3", "4"),
        ],
    ),
    (
        "card and deck",
        _edits(
            _edit("cards.yaml", "fields: {attack: 2}", "fields: {attack: 3}"),
            _edit("cards.yaml", "name: Rally, number: 2", "name: Rally!, number: 2"),
            _edit("cards.yaml", 'colour: "#203060"', 'colour: "#203070"'),
        ),
        [
            Change("changed", "deck", "blue-deck", "colour", "#203060", "#203070"),
            Change("changed", "card", "charge", "fields.attack", "2", "3"),
            Change("renamed", "card", "rally", "name", "Rally", "Rally!"),
        ],
    ),
    (
        "card added",
        _edit("cards.yaml", "charts:", "  - {id: feint, deck: blue-deck, name: Feint}\ncharts:"),
        [Change("added", "card", "feint", new="Feint")],
    ),
    (
        "chart cell, heading and row order",
        _edits(
            _edit("cards.yaml", "[2, EX, DE]", "[2, EX, DX]"),
            _edit("cards.yaml", 'label: "2:1"', 'label: "3:1"'),
        ),
        [
            Change("changed", "chart", "crt", "columns.high.label", "2:1", "3:1"),
            Change("changed", "chart", "crt", "rows.2.cells", "[2, EX, DE]", "[2, EX, DX]"),
        ],
    ),
    (
        "chart rows reordered",
        _edit(
            "cards.yaml",
            '      - {label: "1", cells: [1, AR, DR]}\n      - {label: "2", cells: [2, EX, DE]}\n',
            '      - {label: "2", cells: [2, EX, DE]}\n      - {label: "1", cells: [1, AR, DR]}\n',
        ),
        [Change("changed", "chart", "crt", "rows (order)", "[1, 2]", "[2, 1]")],
    ),
    (
        "map location added",
        _append("map.yaml", "      - {id: red-reserve, name: Red reserve, side: red}\n"),
        [Change("added", "location", "main/red-reserve", new="Red reserve")],
    ),
    (
        "hex terrain and name",
        _edit("map.yaml", "{id: N0505, terrain: water, name: Lake}", "{id: N0505, name: Pond}"),
        [
            Change("changed", "location", "main/N0505", "terrain", "water", "clear"),
            Change("renamed", "location", "main/N0505", "name", "Lake", "Pond"),
        ],
    ),
    (
        "hexside",
        _edit("map.yaml", "feature: water}", "feature: woods}"),
        [Change("changed", "map", "main", "grid.hexsides.N0101–N0102.feature", "water", "woods")],
    ),
    (
        "game version, params, side and title",
        _edits(
            _edit("game.yaml", 'version: "1.0"', 'version: "1.1"'),
            _edit("game.yaml", "max_manpower: 18", "max_manpower: 20"),
            _edit(
                "game.yaml",
                '{id: blue, name: Blue, colour: "#3050c0"}',
                '{id: blue, name: Azure, colour: "#3050c0"}',
            ),
            _edit("game.yaml", "params: {max_manpower: 8}", "params: {max_manpower: 9}"),
            _edit(
                "game.yaml",
                '{n: 4, date: "1862-06-04"}',
                '{n: 4, date: "1862-06-04"}\n    - {n: 5}',
            ),
        ),
        [
            Change("changed", "game", "mini", "version", "1.0", "1.1"),
            Change("changed", "game", "mini", "params.max_manpower", "18", "20"),
            Change("changed", "title", "AAA", "params.max_manpower", "8", "9"),
            Change("renamed", "side", "blue", "name", "Blue", "Azure"),
            Change("added", "turn", "5"),
        ],
    ),
    (
        "marker values and rule numbers",
        _edits(
            _edit("units.yaml", "values: [1, 2, 3, 4]}", "values: [1, 2, 3]}"),
            _edit(
                "rules.yaml",
                "        max: 1\n        weights:\n          - {where: {type: infantry, size: XX",
                "        max: 2\n        weights:\n          - {where: {type: infantry, size: XX",
            ),
        ),
        [
            Change("changed", "marker", "fatigue", "values", "[1, 2, 3, 4]", "[1, 2, 3]"),
            Change("changed", "rule", "stacking-limit", "caps.division equivalents.max", "1", "2"),
        ],
    ),
]


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_edit_gives_exactly_its_changes(
    tmp_path: Path, edit: Edit, expected: list[Change]
) -> None:
    assert _diff(tmp_path, edit) == expected


BOARD, OTHER = b"\x89PNG board one", b"\x89PNG board two"
IMAGES: list[tuple[str, Edit, Edit, list[Change]]] = [
    ("same file", _art("board.png", BOARD), _art("board.png", BOARD), []),
    ("same bytes, other name", _art("board.png", BOARD), _art("map-v2.png", BOARD), []),
    (
        "other bytes",
        _art("board.png", BOARD),
        _art("board.png", OTHER),
        [
            Change(
                "changed",
                "map",
                "main",
                "art.image",
                f"art/board.png #{_sha(BOARD)}",
                f"art/board.png #{_sha(OTHER)}",
            )
        ],
    ),
    (
        "other bytes, other name",
        _art("board.png", BOARD),
        _art("b.png", OTHER),
        [
            Change(
                "changed",
                "map",
                "main",
                "art.image",
                f"art/board.png #{_sha(BOARD)}",
                f"art/b.png #{_sha(OTHER)}",
            )
        ],
    ),
    (
        "image gone",
        _art("board.png", BOARD),
        _edits(_art("board.png", BOARD), lambda f: (f / "art" / "board.png").unlink()),
        [
            Change(
                "changed",
                "map",
                "main",
                "art.image",
                f"art/board.png #{_sha(BOARD)}",
                "art/board.png (unreadable)",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "expected"), [c[1:] for c in IMAGES], ids=[c[0] for c in IMAGES]
)
def test_pictures_compare_by_bytes(
    tmp_path: Path, before: Edit, after: Edit, expected: list[Change]
) -> None:
    old, new = _pair(tmp_path, after)
    before(old)
    assert diff_games(_load(old), _load(new)) == expected


def test_whole_sheet_added_lists_its_hexes(tmp_path: Path) -> None:
    changes = _diff(
        tmp_path, _edit("map.yaml", "{id: S, columns: [1, 10]", "{id: S, columns: [1, 11]")
    )
    assert changes[0] == Change(
        "changed", "map", "main", "grid.sheets.S.columns", "[1, 10]", "[1, 11]"
    )
    assert {(c.kind, c.section) for c in changes[1:]} == {("added", "location")}
    assert [c.id for c in changes[1:]] == [f"main/S11{row:02d}" for row in range(1, 9)]


def test_render_groups_by_section_and_ends_with_a_summary() -> None:
    changes = [
        Change("renamed", "unit", "b-ldr", "name", "General Blue", "General Azure"),
        Change("changed", "unit", "b-inf-1", "front.strength", "4", "5"),
        Change("added", "unit", "b-inf-3", new="3rd Infantry"),
        Change("moved", "placement", "r-inf-1", "at", "N0808", "N0707", "first"),
        Change("changed", "placement", "b-inf-1", "steps", "", "1", "first"),
    ]
    assert render_changes(changes) == (
        "Units\n"
        "  unit b-ldr: renamed General Blue → General Azure\n"
        "  unit b-inf-1: front.strength 4 → 5\n"
        "  unit b-inf-3 added (3rd Infantry)\n"
        "\n"
        "Setups\n"
        "  scenario first, setup r-inf-1: moved N0808 → N0707\n"
        "  scenario first, setup b-inf-1: steps (none) → 1\n"
        "\n"
        "5 changes: 1 added, 1 renamed, 2 changed, 1 moved"
    )
    assert render_changes(changes[2:3]).endswith("\n\n1 change: 1 added")
    assert render_changes([]) == "no differences"


def test_json_has_every_field() -> None:
    change = Change("moved", "placement", "r-inf-1", "at", "N0808", "N0707", "first")
    assert changes_json([change]) == [
        {
            "kind": "moved",
            "section": "placement",
            "id": "r-inf-1",
            "field": "at",
            "old": "N0808",
            "new": "N0707",
            "scenario": "first",
        }
    ]


def test_values_are_printed_safely(tmp_path: Path) -> None:
    long = "x" * 200
    changes = _diff(
        tmp_path,
        _edit("units.yaml", "name: General Blue", f'name: "Gen\\e[31m\\u202eBlue\\t{long}"'),
    )
    assert len(changes) == 1
    shown = changes[0].new
    assert shown.startswith("Gen\\x1b[31m\\u202eBlue\\t")
    assert len(shown) <= 72 and shown.endswith("…")
    assert "\x1b" not in render_changes(changes)


def test_order_is_deterministic(tmp_path: Path) -> None:
    old, new = _pair(tmp_path, _edits(*(c[1] for c in CASES[:3])))
    first = diff_games(_load(old), _load(new))
    assert first == diff_games(_load(old), _load(new))
    assert [c.section for c in first] == ["unit"] * 4


SEEDS = sorted(p.name for p in SOURCES.iterdir() if (p / "game.yaml").is_file())


@pytest.mark.parametrize("name", SEEDS)
def test_seed_game_against_itself(name: str) -> None:
    assert diff_games(seed_game(name), _load(SOURCES / name)) == []


def test_seed_games_are_all_compared() -> None:
    assert len(SEEDS) == 5
