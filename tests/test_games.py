"""The seed games: each validates clean, and a broken copy of each gives exactly the expected
findings (file, line, rule)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import SOURCES, findings_of, flat, line_of, replace_in

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())

# game -> (edits (file, old, new), expected (file, text on the line, rule id))
BROKEN: dict[str, tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]] = {
    "gcacw": (
        [
            (
                "rtg/scenarios.yaml",  # RTG's maximum manpower is 17 (rules 2.2), not the series' 18
                "{at: N2630, unit: rtg-u-barlow, state: {manpower: 6, fatigue: 0}}",
                "{at: N2630, unit: rtg-u-barlow, state: {manpower: 18, fatigue: 0}}",
            ),
            (
                "rtg/scenarios.yaml",
                "{at: S2310, unit: rtg-u-howard, attached_to: rtg-u-barlow}",
                "{at: S2311, unit: rtg-u-howard}",
            ),
        ],
        [
            ("rtg/scenarios.yaml", "manpower: 18", "max-manpower"),
            ("rtg/scenarios.yaml", "unit: rtg-u-howard}", "leader-with-subordinate"),
        ],
    ),
    "napoleon": (
        [
            (
                "scenarios/free-deployment.yaml",
                "{at: ath, unit: nl-anthing,",
                "{at: brussels, unit: nl-anthing,",
            ),
            (
                "scenarios/free-deployment.yaml",
                "{at: namur, unit: pr-5-bde, state: {cv: 4}}",
                "{at: namur, unit: pr-5-bde, state: {cv: 5}}",
            ),
            (
                "units.yaml",
                "type: artillery, formation: al-ii-corps, front: {cv: 2}",
                "type: artillery, formation: al-ii-corps, front: {cv: 4}",
            ),
        ],
        [
            ("scenarios/free-deployment.yaml", "unit: nl-anthing", "free-stacking-british"),
            ("scenarios/free-deployment.yaml", "unit: pr-5-bde", "setup-cv-range"),
            ("scenarios/free-deployment.yaml", "unit: pr-5-bde", "setup-at-max-cv"),
            ("units.yaml", "id: br-ii-art", "british-ii-corps-artillery-errata"),
            ("units.yaml", "id: br-ii-art", "steps-equal-max-cv"),
            ("scenarios/free-deployment.yaml", "unit: br-ii-art", "setup-at-max-cv"),
            ("scenarios/historical.yaml", "unit: br-ii-art", "setup-at-max-cv"),
            ("scenarios/napoleons-initiative.yaml", "unit: br-ii-art", "setup-at-max-cv"),
        ],
    ),
    "asia_engulfed": (
        [
            (
                "scenarios/campaign-1941.yaml",
                "{at: kyushu, units: [jp-western-army, jp-16th-army]}",
                "{at: saipan, units: [jp-western-army, jp-16th-army]}",
            ),
        ],
        [
            (
                "scenarios/campaign-1941.yaml",
                "units: [jp-south-seas, jp-garrison]",
                "stacking-island-box",
            )
        ],
    ),
    "twilight_in_the_east": (
        [  # 41.19 already holds a division and a corps train: 1 + ½ + 1 + 1 > 3 (rules 4.2)
            (
                "scenarios/tannenberg.yaml",
                '{at: "44.24", unit: de-36r-ir}',
                '{at: "41.19", unit: de-36r-ir}',
            ),
            (
                "scenarios/tannenberg.yaml",
                '{at: "49.24", unit: de-3r}',
                '{at: "41.19", unit: de-3r}',
            ),
            (
                "units.yaml",  # the reduced side may not be stronger than the full side (rules 3.4)
                'label: "3r", steps: 7, front: {steps: 7, defence: 7, artillery: 2, movement: 7, rcp: 5, base_ce: 9}, back: {steps: 4, defence: 4,',
                'label: "3r", steps: 7, front: {steps: 7, defence: 7, artillery: 2, movement: 7, rcp: 5, base_ce: 9}, back: {steps: 4, defence: 8,',
            ),
        ],
        [
            ("scenarios/tannenberg.yaml", "unit: de-3r}", "stacking-limit"),
            ("units.yaml", 'label: "3r"', "reduced-defence"),
        ],
    ),
    "tank_killers": (
        [
            (
                "cards-german.yaml",
                'fields: {pen: 12, inf: 3, def: 8, rng: "2000"}, copies: 2}',
                'fields: {pen: 12, inf: 3, def: 8, rng: "2000"}, copies: 1}',
            ),
            (
                "scenarios/german-vs-american.yaml",
                "{side: american, decks: [american-formation, tactics], hand: 3}",
                "{side: american, decks: [american-formation, tactics], hand: 4}",
            ),
        ],
        [
            ("decks.yaml", "id: german-formation", "deck-size"),
            ("scenarios/german-vs-american.yaml", "hand: 4", "hand-size"),
        ],
    ),
}


@pytest.mark.parametrize("game", GAMES)
def test_seed_game_validates_clean(game: str) -> None:
    findings = findings_of(SOURCES / game)
    assert findings == [], "\n".join(f"{f.location}: {f.rule}: {f.message}" for f in findings)


def test_every_seed_game_has_a_broken_copy_case() -> None:
    assert sorted(BROKEN) == GAMES


@pytest.mark.parametrize("game", sorted(BROKEN))
def test_broken_copy_gives_exactly_the_expected_findings(game: str, tmp_path: Path) -> None:
    copy = tmp_path / game
    shutil.copytree(SOURCES / game, copy)
    edits, expected = BROKEN[game]
    for file, old, new in edits:
        replace_in(copy / file, old, new)
    wanted = {(file, line_of(copy / file, needle), rule) for file, needle, rule in expected}
    assert flat(copy, findings_of(copy)) == wanted
