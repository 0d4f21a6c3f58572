"""Tables per constraint kind added for issue 12: expressions in bounds (a carrier's current steps),
`aggregate`, `deck-numbers`, `deck-rules`, `value-range` with `absent`, and hand and deck sizes
read from the game's params. Each case edits a copy of a seed game (whose rules use the new
kinds) or the fixture game (with the rules below appended): a breaking edit gives exactly its
findings at their lines; an edge value gives none."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.rules.expr import ExprError, evaluate, parse
from tests.conftest import DATA, SOURCES, findings_of, flat, line_of, replace_in

# -- rules added to the fixture game -------------------------------------------------------------
MINI_RULES = """
  - id: stack-manpower
    kind: aggregate
    title: A stack holds at most 8 manpower
    group: location
    value: state.manpower
    bound: 8
  - id: corps-strength
    kind: aggregate
    title: A corps' units add up to at most 8 strength points
    target: units
    group: formation
    groups: {level: corps}
    value: front.strength
    bound: 8
  - id: red-product
    kind: aggregate
    title: Red's strengths multiply to 15
    target: units
    group: side
    groups: {id: red}
    value: front.strength
    total: product
    op: "=="
    bound: 15
  - id: manpower-per-step
    kind: value-range
    title: Blue manpower is at most 3 per current step
    target: setup
    where: {side: blue, category: "!leader"}
    path: state.manpower
    max: 3 * steps
  - id: artillery-has-no-back
    kind: value-range
    title: Artillery prints no reduced strength
    target: units
    where: {type: artillery}
    path: back.strength
    absent: true
"""

TESTED = frozenset(
    ["cv-air-group-capacity", "cv-full-strength-cba", "tactics-numbers"]
    + ["formation-decks-never-in-hand", "hand-size", "deck-size", "bad-expression"]
    + ["unknown-param"]
)
"""Rule ids whose findings the seed-game cases compare (the seed rules change under them)."""

AE_SCEN = "scenarios/guadalcanal-1942.yaml"
SHOKAKU = "{at: truk, unit: jp-cv-shokaku, steps: 2,"
BOX = "{at: air-group-jp-cv-shokaku, units: [jp-cba]}"
DAMAGED = (
    "    - {id: air_group, name: {en: CV air-group box letter, ja: 航空部隊ボックス}, kind: text}\n"
)
SCEN = "scenarios/first.yaml"

Edit = tuple[str, str, str]
Where = tuple[str, str, int, str]  # (file, text on the line, lines below it, rule id)


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    edits: tuple[Edit, ...]
    expected: tuple[Where, ...]


def _game_copy(tmp_path: Path, game: str) -> Path:
    target = tmp_path / game
    if game == "mini":
        shutil.copytree(DATA / "mini", target)
        with (target / "rules.yaml").open("a", encoding="utf-8") as out:
            out.write(MINI_RULES)
        return target
    shutil.copytree(SOURCES / game, target)  # the seed rules hold the kinds under test
    return target


CASES = [
    # --- aggregate with a bound over the holder's current state (Asia Engulfed §4.24) ---
    Case("ae clean", "asia_engulfed", (), ()),
    Case(
        "ae edge: 2-step CV, two full CBA",
        "asia_engulfed",
        ((AE_SCEN, BOX, "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba]}"),),
        (),
    ),
    Case(
        "ae edge: CV set up reduced to 1 step carries one full CBA",
        "asia_engulfed",
        ((AE_SCEN, SHOKAKU, "{at: truk, unit: jp-cv-shokaku, steps: 1,"),),
        (),
    ),
    Case(
        "ae: CV reduced to 1 step cannot carry two full CBA",
        "asia_engulfed",
        (
            (AE_SCEN, SHOKAKU, "{at: truk, unit: jp-cv-shokaku, steps: 1,"),
            (AE_SCEN, BOX, "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba]}"),
        ),
        (
            (AE_SCEN, "units: [jp-cba, jp-cba]", 0, "cv-air-group-capacity"),
            (AE_SCEN, "units: [jp-cba, jp-cba]", 0, "cv-full-strength-cba"),
        ),
    ),
    Case(
        "ae: five CBA steps on a 2-step CV",
        "asia_engulfed",
        (
            (
                AE_SCEN,
                BOX,
                "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba]}\n"
                "      - {at: air-group-jp-cv-shokaku, unit: jp-cba, steps: 1}",
            ),
        ),
        ((AE_SCEN, "unit: jp-cba, steps: 1", 0, "cv-air-group-capacity"),),
    ),
    Case(
        "ae: a damaged CV step carries no full CBA",
        "asia_engulfed",
        (
            ("game.yaml", DAMAGED, DAMAGED + "    - {id: damaged, name: Damaged steps, min: 0}\n"),
            (AE_SCEN, SHOKAKU, "{at: truk, unit: jp-cv-shokaku, state: {damaged: 2},"),
            (AE_SCEN, BOX, "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba]}"),
        ),
        ((AE_SCEN, "units: [jp-cba, jp-cba]", 0, "cv-full-strength-cba"),),
    ),
    Case(
        "ae: a misspelt holder value",
        "asia_engulfed",
        (("rules.yaml", "bound: 2 * holder.steps", "bound: 2 * holder.stpes"),),
        (("rules.yaml", "holder.stpes", 0, "bad-expression"),),
    ),
    Case(
        "ae: a member value outside sum()",
        "asia_engulfed",
        (("rules.yaml", "bound: 2 * holder.steps", "bound: 2 * steps"),),
        (("rules.yaml", "bound: 2 * steps", 0, "bad-expression"),),
    ),
    # --- hand-size and deck-size from the game's params (Tank Killers p.2) ---
    Case("tk clean", "tank_killers", (), ()),
    Case(
        "tk: hand limit below the starting hand",
        "tank_killers",
        (("game.yaml", "hand_limit: 9", "hand_limit: 2"),),
        (("game.yaml", "starting_hand: 3", 0, "hand-size"),),
    ),
    Case(
        "tk edge: hand limit 3",
        "tank_killers",
        (("game.yaml", "hand_limit: 9", "hand_limit: 3"),),
        (),
    ),
    Case(
        "tk: a scenario deals other than the param",
        "tank_killers",
        (
            (
                "scenarios/german-vs-american.yaml",
                "{side: american, decks: [american-formation, tactics], hand: 3}",
                "{side: american, decks: [american-formation, tactics], hand: 4}",
            ),
        ),
        (("scenarios/german-vs-american.yaml", "hand: 4", 0, "hand-size"),),
    ),
    Case(
        "tk: deck size param changed",
        "tank_killers",
        (("game.yaml", "german_deck: 40", "german_deck: 41"),),
        (("decks.yaml", "id: german-formation", 0, "deck-size"),),
    ),
    # --- deck-numbers ---
    Case(
        "tk: a number used twice (and so one missing)",
        "tank_killers",
        (("cards-tactics.yaml", "    number: 3\n", "    number: 2\n"),),
        (
            ("cards-tactics.yaml", "id: t03-750-yards", 2, "tactics-numbers"),
            ("cards-tactics.yaml", "id: t04-1000-yards", 2, "tactics-numbers"),
        ),
    ),
    Case(
        "tk: a number above the range (and the last one missing)",
        "tank_killers",
        (("cards-tactics.yaml", "    number: 92\n", "    number: 93\n"),),
        (
            ("cards-tactics.yaml", "number: 93", 0, "tactics-numbers"),
            ("rules.yaml", "last: 92", 0, "tactics-numbers"),
        ),
    ),
    Case(
        "tk: a copy count other than the printed one",
        "tank_killers",
        (("cards-tactics.yaml", "    number: 5\n", "    number: 5\n    copies: 2\n"),),
        (("cards-tactics.yaml", "copies: 2", 0, "tactics-numbers"),),
    ),
    # --- deck-rules ---
    Case(
        "tk: the Formation deck marked as a hand deck",
        "tank_killers",
        (
            (
                "decks.yaml",
                "    kind: formation\n    back: {en: German",
                "    kind: formation\n    hand: true\n    back: {en: German",
            ),
        ),
        (("decks.yaml", "id: german-formation", 4, "formation-decks-never-in-hand"),),
    ),
    # --- the fixture game: aggregate by location, formation, side; expressions; absent ---
    Case("mini clean", "mini", (), ()),
    Case(
        "mini: a stack above 8 manpower",
        "mini",
        ((SCEN, "unit: b-art-1, state: {manpower: 2}", "unit: b-art-1, state: {manpower: 3}"),),
        ((SCEN, "manpower: 3}", 0, "stack-manpower"),),
    ),
    Case(
        "mini: a corps above 8 strength points (copies count)",
        "mini",
        (
            (
                "units.yaml",
                "front: {strength: 2, movement: 3}, back",
                "front: {strength: 3, movement: 3}, back",
            ),
        ),
        (("units.yaml", "front: {strength: 1, movement: 2}, copies: 2", 0, "corps-strength"),),
    ),
    Case(
        "mini: a side's product",
        "mini",
        (
            (
                "units.yaml",
                "front: {strength: 3, movement: 3}, back: {strength: 2",
                "front: {strength: 4, movement: 3}, back: {strength: 2",
            ),
        ),
        (
            (
                "units.yaml",
                "front: {strength: 4, movement: 3}, back: {strength: 2",
                0,
                "red-product",
            ),
        ),
    ),
    Case(
        "mini: manpower above 3 per current step",
        "mini",
        (
            (
                SCEN,
                "{at: N0303, unit: b-inf-1, state:",
                "{at: N0303, unit: b-inf-1, steps: 1, state:",
            ),
        ),
        ((SCEN, "unit: b-inf-1, steps: 1", 0, "manpower-per-step"),),
    ),
    Case(
        "mini: an artillery unit prints a back strength",
        "mini",
        (
            (
                "units.yaml",
                "front: {strength: 1, movement: 2}, copies: 2}",
                "front: {strength: 1, movement: 2}, back: {strength: 1}, copies: 2}",
            ),
        ),
        (("units.yaml", "back: {strength: 1}, copies", 0, "artillery-has-no-back"),),
    ),
    Case(
        "mini: a malformed bound",
        "mini",
        (("rules.yaml", "max: 3 * steps", "max: 3 *"),),
        (("rules.yaml", "max: 3 *", 0, "bad-expression"),),
    ),
    Case(
        "mini: sum() in a record's bound",
        "mini",
        (("rules.yaml", "max: 3 * steps", "max: sum(steps)"),),
        (("rules.yaml", "max: sum(steps)", 0, "bad-expression"),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_constraint_kind_table(tmp_path: Path, case: Case) -> None:
    game = _game_copy(tmp_path, case.game)
    for file, old, new in case.edits:
        replace_in(game / file, old, new)
    expected = {
        (file, line_of(game / file, needle) + below, rule)
        for file, needle, below, rule in case.expected
    }
    found = flat(game, findings_of(game))
    if case.game != "mini":  # seed data moves on: only the rules under test, exactly
        found = {f for f in found if f[2] in TESTED}
    assert found == expected


EXPRESSIONS = [
    ("2 * 3 + 1", 7.0),
    ("2 * (3 + 1)", 8.0),
    ("-2 + 5", 3.0),
    ("7 / 2", 3.5),
    ("1 / 0", None),
    ("3 >= 2", 1.0),
    ("ceil(5 / 2)", 3.0),
    ("floor(5 / 2)", 2.0),
    ("min(4, 2, 9)", 2.0),
    ("max(4, 2, 9)", 9.0),
    ("abs(-3)", 3.0),
    ("default(x, 4)", 4.0),
    ("x + 1", None),
]


class _Empty:
    def value(self, path: str) -> float | None:
        return None

    def param(self, name: str) -> float:
        return 10.0

    def members(self) -> list[_Empty]:
        return []


@pytest.mark.parametrize(("text", "value"), EXPRESSIONS)
def test_expression_values(text: str, value: float | None) -> None:
    assert evaluate(parse(text), _Empty()) == value


@pytest.mark.parametrize(
    "text", ["", "2 *", "(1", "1 2", "eval(1)", "__import__('os')", "2 ** 3", "a..b", "min()"]
)
def test_malformed_expressions_raise(text: str) -> None:
    with pytest.raises(ExprError):
        parse(text)


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(ExprError):
        parse("(" * 100 + "1" + ")" * 100)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.+-*/()<>=!, $abcdefghijklmnopqrstuvwxyz_", max_size=60))
def test_any_text_parses_or_is_refused_and_evaluates_without_raising(text: str) -> None:
    try:
        tree = parse(text)
    except ExprError:
        return
    result = evaluate(tree, _Empty(), group=True)
    assert result is None or isinstance(result, float)
