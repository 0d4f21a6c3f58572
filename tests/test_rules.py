"""Rule table: one change to the fixture game → exactly the expected (file, line, rule) findings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import findings_of, flat, line_of, replace_in

SCEN = "scenarios/first.yaml"


@dataclass(frozen=True)
class Case:
    name: str
    edits: tuple[tuple[str, str, str], ...]  # (file, old text, new text)
    expected: tuple[tuple[str, str, str], ...]  # (file, text on the line, rule id)


CASES = [
    Case("clean", (), ()),
    Case(
        "manpower above the title's maximum (AAA: 8)",
        (
            (
                SCEN,
                "units: [r-inf-1], state: {manpower: 7}",
                "units: [r-inf-1], state: {manpower: 9}",
            ),
        ),
        ((SCEN, "manpower: 9", "max-manpower"),),
    ),
    Case(
        "fatigue above 4",
        ((SCEN, "manpower: 6, fatigue: 0", "manpower: 6, fatigue: 5"),),
        ((SCEN, "fatigue: 5", "fatigue-range"),),
    ),
    Case(
        "fatigue must be whole",
        ((SCEN, "manpower: 6, fatigue: 0", "manpower: 6, fatigue: 1.5"),),
        ((SCEN, "fatigue: 1.5", "fatigue-range"),),
    ),
    Case(
        "reduced side stronger than the full side",
        (
            (
                "units.yaml",
                "back: {strength: 2, movement: 3}\n    steps: 2",
                "back: {strength: 5, movement: 3}\n    steps: 2",
            ),
        ),
        (("units.yaml", "back: {strength: 5", "reduced-not-stronger"),),
    ),
    Case(
        "over-stacked hex: a division and a brigade",
        ((SCEN, "{at: N0404, units: [b-inf-2]", "{at: N0303, units: [b-inf-2]"),),
        ((SCEN, "units: [b-inf-2]", "stacking-limit"),),
    ),
    Case(
        "a reduced division and a brigade weigh 1: not over-stacked",
        (
            (
                SCEN,
                "{at: N0303, unit: b-inf-1, state: {manpower: 6, fatigue: 0}}",
                "{at: N0404, unit: b-inf-1, face: back, state: {manpower: 6, fatigue: 0}}",
            ),
            (SCEN, "{at: N0303, unit: b-ldr, attached_to: b-inf-1}", "{at: N0404, unit: b-ldr}"),
        ),
        (),
    ),
    Case(
        "two sides in one hex",
        ((SCEN, "{at: N0303, unit: b-art-1,", "{at: N0808, unit: b-art-1,"),),
        ((SCEN, "units: [r-inf-1]", "no-mixed-stacks"),),
    ),
    Case(
        "set up in a water hex",
        ((SCEN, "{at: N0808, units: [r-inf-1]", "{at: N0505, units: [r-inf-1]"),),
        ((SCEN, "units: [r-inf-1]", "no-water-setup"),),
    ),
    Case(
        "counter mix holds more Blue counters than the rules give",
        (
            (
                "units.yaml",
                "title: AAA, front: {strength: 1, movement: 2}, copies: 2}",
                "title: AAA, front: {strength: 1, movement: 2}, copies: 3}",
            ),
        ),
        (("units.yaml", "id: b-ldr", "counter-mix-blue"),),
    ),
    Case(
        "setup needs three strength-6 markers; the mix has two",
        (
            (SCEN, "unit: b-art-1, state: {manpower: 2}", "unit: b-art-1, state: {manpower: 6}"),
            (SCEN, "state: {manpower: 5}", "state: {manpower: 6}"),
        ),
        ((SCEN, "turn: 2", "strength-markers"),),
    ),
    Case(
        "a leader alone",
        ((SCEN, "{at: N0303, unit: b-ldr, attached_to: b-inf-1}", "{at: N0606, unit: b-ldr}"),),
        ((SCEN, "unit: b-ldr", "leader-with-troops"),),
    ),
    Case(
        "a leader attached to a unit elsewhere",
        ((SCEN, "attached_to: b-inf-1", "attached_to: b-inf-2"),),
        ((SCEN, "attached_to: b-inf-2", "leader-with-troops"),),
    ),
    Case(
        "a leader with troops that are not his",
        (("units.yaml", "commands: blue-i,", "commands: blue-i-2,"),),
        ((SCEN, "unit: b-ldr", "leader-with-troops"),),
    ),
    Case(
        "corps over its attachment limit",
        (("units.yaml", "attachment_limit: 1.5", "attachment_limit: 1"),),
        (("units.yaml", "id: blue-i-2,", "corps-attachment"),),
    ),
    Case(
        "duplicate unit id",
        (("units.yaml", "id: r-inf-2,", "id: r-inf-1,"),),
        (
            ("units.yaml", "name: Red Line", "duplicate-id"),
            (SCEN, "units: [r-inf-2]", "unresolved-reference"),
        ),
    ),
    Case(
        "unknown formation",
        (("units.yaml", "formation: blue-i-2,", "formation: blue-ii-2,"),),
        (("units.yaml", "blue-ii-2", "unresolved-reference"),),
    ),
    Case(
        "location not on the map",
        ((SCEN, "at: N1008", "at: N1108"),),
        ((SCEN, "N1108", "unknown-location"),),
    ),
    Case(
        "reinforcement after the last turn",
        ((SCEN, "turn: 2", "turn: 4"),),
        ((SCEN, "turn: 4", "reinforcement-turn"),),
    ),
    Case(
        "unit placed twice",
        ((SCEN, "units: [r-inf-2]", "units: [r-inf-1]"),),
        ((SCEN, "turn: 2", "placed-twice"),),
    ),
    Case(
        "more copies used than exist",
        (
            (
                SCEN,
                "    reinforcements:",
                "      - {at: N0202, unit: b-art-1}\n"
                "      - {at: N0203, unit: b-art-1}\n    reinforcements:",
            ),
        ),
        ((SCEN, "at: N0203", "too-many-copies"), (SCEN, "at: N0203", "counter-mix-blue")),
    ),
    Case(
        "set up on a back side it does not have",
        (
            (
                SCEN,
                "unit: b-art-1, state: {manpower: 2}}",
                "unit: b-art-1, face: back, state: {manpower: 2}}",
            ),
        ),
        ((SCEN, "unit: b-art-1", "no-back-side"),),
    ),
    Case(
        "more steps than the unit has",
        ((SCEN, "unit: b-inf-1, state:", "unit: b-inf-1, steps: 3, state:"),),
        ((SCEN, "steps: 3", "steps-range"),),
    ),
    Case(
        "undeclared counter value",
        (("units.yaml", "front: {strength: 4, movement: 3}", "front: {strenght: 4, movement: 3}"),),
        (("units.yaml", "strenght", "unknown-value"),),
    ),
    Case(
        "formation cycle",
        (
            (
                "units.yaml",
                "level: army, attachment_limit: 2}",
                "level: army, parent: blue-i, attachment_limit: 2}",
            ),
        ),
        (("units.yaml", "id: blue-army", "reference-cycle"),),
    ),
    Case(
        "scenario longer than the turn track",
        ((SCEN, "last_turn: 3", "last_turn: 9"),),
        ((SCEN, "last_turn: 9", "scenario-turns"),),
    ),
    Case(
        "turn track with a gap",
        (("game.yaml", "- {n: 3,", "- {n: 5,"),),
        (("game.yaml", "n: 5", "turn-track"),),
    ),
    Case(
        "colour that is not a colour",
        (("game.yaml", 'colour: "#3050c0"', "colour: blueish"),),
        (("game.yaml", "blueish", "bad-colour"),),
    ),
    Case(
        "colour variant with a colour that is not a colour",
        (
            (
                "game.yaml",
                '- {id: blueland, name: Blueland, side: blue, colour: "#a0b0f0"}',
                '- {id: blueland, name: Blueland, side: blue, colour: "#a0b0f0", '
                "variants: [{tag: guard, centre_colour: greenish}]}",
            ),
        ),
        (("game.yaml", "greenish", "bad-colour"),),
    ),
    Case(
        "unknown parameter",
        (("rules.yaml", "max: $max_manpower", "max: $max_manpowr"),),
        (("rules.yaml", "max: $max_manpowr", "unknown-param"),),
    ),
    Case(
        "duplicate key",
        (
            (
                "units.yaml",
                "    steps: 2\n  - {id: b-inf-2",
                "    steps: 2\n    steps: 3\n  - {id: b-inf-2",
            ),
        ),
        (("units.yaml", "steps: 3", "duplicate-key"),),
    ),
    Case(
        "unknown key",
        (("units.yaml", "    steps: 2\n  - {id: b-inf-2", "    stpes: 2\n  - {id: b-inf-2"),),
        (("units.yaml", "stpes", "unknown-key"),),
    ),
    Case(
        "yes is not a boolean",
        (("game.yaml", "water: true", "water: yes"),),
        (("game.yaml", "water: yes", "wrong-type"),),
    ),
    Case(
        "a number that is text",
        (("units.yaml", "    steps: 2\n  - {id: b-inf-2", "    steps: two\n  - {id: b-inf-2"),),
        (("units.yaml", "steps: two", "wrong-type"),),
    ),
    Case(
        "missing required key",
        ((SCEN, "    last_turn: 3\n", ""),),
        ((SCEN, "- id: first", "missing-key"),),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_table(mini: Path, case: Case) -> None:
    for file, old, new in case.edits:
        replace_in(mini / file, old, new)
    expected = {(file, line_of(mini / file, needle), rule) for file, needle, rule in case.expected}
    assert flat(mini, findings_of(mini)) == expected


def test_per_title_override_allows_more_in_another_title(mini: Path) -> None:
    """GCACW-style: the same value breaks one title's maximum and not another's."""
    (mini / "scenarios" / "second.yaml").write_text(
        "scenarios:\n"
        "  - id: second\n"
        "    name: Second\n"
        "    title: BBB\n"
        "    last_turn: 2\n"
        "    setup:\n"
        "      - {at: N0101, unit: b-inf-1, state: {manpower: 12}}\n",
        encoding="utf-8",
    )
    assert findings_of(mini) == []
    replace_in(mini / "scenarios" / "second.yaml", "manpower: 12", "manpower: 18")
    assert findings_of(mini) == []
    replace_in(mini / "scenarios" / "second.yaml", "manpower: 18", "manpower: 19")
    line = line_of(mini / "scenarios" / "second.yaml", "manpower: 19")
    assert flat(mini, findings_of(mini)) == {
        ("scenarios/second.yaml", line, "max-manpower"),
        ("scenarios/second.yaml", line, "strength-markers"),  # no marker 19 in the mix
    }
