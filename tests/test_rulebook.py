"""The rulebooks' checkable rules (docs/rulebook/*.md), each broken by one edit of a seed game.

Every rule the docs list as enforced has a row here: one edit of a copy of the seed game gives
exactly that finding (rule id) at the expected file and line (`test_breaks`), and, where the rule
has an edge, the largest or smallest value the rule allows gives no finding for it
(`test_edge`). One copy per game is made per worker; each case edits it and puts the text back.
`test_docs_name_real_tests` keeps the docs' tables in step with this file and the rules."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from compiler.rules.registry import BUILTIN_RULES
from tests.conftest import SOURCES, findings_of, flat, line_of

DOCS = Path(__file__).parent.parent / "docs" / "rulebook"
GAMES = ("gcacw", "napoleon", "asia_engulfed", "twilight_in_the_east", "tank_killers")


@dataclass(frozen=True)
class Case:
    """One rule broken (or held at its edge) by replacing `old` with `new` in `file`.

    `at` is (file, text on the line) of the one expected finding; `None` for an edge case (the
    rule must then stay silent). `extra` lists further (file, text, rule) findings the same edit
    must also give, where the rulebook's rules overlap."""

    game: str
    rule: str
    file: str
    old: str
    new: str
    at: tuple[str, str] | None = None
    extra: tuple[tuple[str, str, str], ...] = ()
    variant: str = ""
    more: tuple[tuple[str, str, str], ...] = ()  # further places of the same change

    @property
    def id(self) -> str:
        return f"{self.game}/{self.rule}" + (f"/{self.variant}" if self.variant else "")


def brk(
    game: str,
    rule: str,
    file: str,
    old: str,
    new: str,
    at: tuple[str, str] | str | None = None,
    *,
    extra: tuple[tuple[str, str, str], ...] = (),
    variant: str = "",
    more: tuple[tuple[str, str, str], ...] = (),
) -> Case:
    """A breaking case; `at` defaults to the edited line (a string: text on a line of `file`)."""
    if at is None:
        at = (file, new.strip().splitlines()[0])
    elif isinstance(at, str):
        at = (file, at)
    return Case(game, rule, file, old, new, at, extra, variant, more)


def edge(
    game: str,
    rule: str,
    file: str,
    old: str,
    new: str,
    *,
    variant: str = "",
    more: tuple[tuple[str, str, str], ...] = (),
) -> Case:
    return Case(game, rule, file, old, new, None, (), variant, more)


# ---- GCACW (docs/rulebook/gcacw.md) ----------------------------------------------------------
G = "gcacw"
OS, OU = "otr/scenarios.yaml", "otr/units.yaml"
MORELL = "{at: N1523, unit: otr-u-morell, state: {manpower: 15, fatigue: 1}}"
PORTER = "{at: N1523, unit: otr-u-porter, attached_to: otr-u-morell}"
GS = "gtc/scenarios.yaml"
COLQUITT = "{at: S3531, unit: gtc-c-colquitt, state: {manpower: 3, fatigue: 0}}"
MEAGHER = "id: otr-u-meagher, name: Meagher, side: union, type: infantry, size: X,"
ENGINEER_TYPE = (
    "  - {id: leader, name: {en: Leader, ja: 司令官}, category: leader, symbol: leader}\n",
    "  - {id: leader, name: {en: Leader, ja: 司令官}, category: leader, symbol: leader}\n"
    "  - {id: engineer, name: Engineers, category: combat, symbol: infantry}\n"
    "units:\n"
    "  - {id: otr-u-pontoniers, name: Pontoniers, side: union, type: engineer, size: II,"
    " formation: otr-u-v-corps, title: OTR, front: {tactical: 0, artillery: 0}}\n",
)
GCACW = [
    brk(
        G,
        "max-manpower",
        "siv/scenarios.yaml",
        "siv-u-blenker, state: {manpower: 8,",
        "siv-u-blenker, state: {manpower: 9,",
    ),
    brk(
        G,
        "max-manpower",
        OS,
        MORELL,
        MORELL.replace("manpower: 15", "manpower: 0"),
        variant="below-1",
    ),
    brk(
        G,
        "max-manpower",
        OS,
        MORELL,
        MORELL.replace("manpower: 15", "manpower: 7.5"),
        variant="whole",
        extra=((OS, "manpower: 7.5", "strength-markers"),),
    ),
    brk(
        G,
        "max-manpower",
        OS,
        MORELL,
        MORELL.replace("state: {manpower: 15, ", "state: {"),
        variant="required",
    ),
    edge(G, "max-manpower", OS, MORELL, MORELL.replace("manpower: 15", "manpower: 21")),
    edge(
        G,
        "max-manpower",
        "siv/scenarios.yaml",
        "siv-u-blenker, state: {manpower: 8,",
        "siv-u-blenker, state: {manpower: 1,",
        variant="minimum",
    ),
    brk(
        G,
        "fatigue-range",
        OS,
        MORELL,
        MORELL.replace("fatigue: 1", "fatigue: 5"),
        extra=((OS, "fatigue: 5", "fatigue-markers"),),
    ),
    edge(G, "fatigue-range", OS, MORELL, MORELL.replace("fatigue: 1", "fatigue: 4")),
    brk(
        G,
        "strength-marker-side",
        "rtg/scenarios.yaml",
        "fatigue: 1, organization: disorganized",
        "fatigue: 1, organization: routed",
    ),
    brk(
        G,
        "demoralization-levels",
        OS,
        "fatigue: 0, demoralized: -1}",
        "fatigue: 0, demoralized: -3}",
    ),
    edge(
        G,
        "demoralization-levels",
        OS,
        "fatigue: 0, demoralized: -1}",
        "fatigue: 0, demoralized: -2}",
    ),
    brk(G, "leader-no-strength", OS, PORTER, PORTER[:-1] + ", state: {manpower: 3}}"),
    brk(G, "leader-no-fatigue", OS, PORTER, PORTER[:-1] + ", state: {fatigue: 1}}"),
    brk(G, "leader-not-demoralized", OS, PORTER, PORTER[:-1] + ", state: {demoralized: -1}}"),
    brk(
        G,
        "strength-markers",
        "markers.yaml",
        "17, 18, 19, 20, 21]",
        "17, 18, 20, 21]",
        (OS, "manpower: 19"),
    ),
    brk(
        G,
        "strength-markers",
        "markers.yaml",
        "    copies: 8\n",
        "    copies: 7\n",
        (OS, "units: [otr-u-wessells], at: N2125"),
        variant="copies",
    ),
    brk(
        G,
        "fatigue-markers",
        "markers.yaml",
        "values: [1, 2, 3, 4], copies: 12",
        "values: [1, 2, 4], copies: 12",
        ("sjw/scenarios.yaml", "sjw-u-buford"),
        extra=(("rtg/scenarios.yaml", "rtg-c-chambliss", "fatigue-markers"),),
    ),
    brk(G, "combat-unit-size", OU, MEAGHER, MEAGHER.replace("size: X,", "size: XXX,")),
    brk(G, "combat-unit-size", OU, MEAGHER, MEAGHER.replace(" size: X,", ""), variant="required"),
    brk(
        G,
        "battalion-union-only",
        OU,
        "id: otr-c-elzey, name: Elzey, side: confederate, type: infantry, size: X+,",
        "id: otr-c-elzey, name: Elzey, side: confederate, type: infantry, size: II,",
    ),
    brk(G, "demi-division-confederate-only", OU, MEAGHER, MEAGHER.replace("size: X,", "size: X+,")),
    brk(
        G,
        "combat-unit-type",
        "unit-types.yaml",
        *ENGINEER_TYPE,
        at=("unit-types.yaml", "id: otr-u-pontoniers"),
    ),
    brk(
        G,
        "tactical-value",
        OU,
        'label: "2-1", front: {tactical: 2, artillery: 0}',
        'label: "2-1", front: {tactical: 2.5, artillery: 0}',
    ),
    brk(
        G,
        "tactical-value",
        OU,
        'label: "2-1", front: {tactical: 2, artillery: 0}',
        'label: "2-1", front: {artillery: 0}',
        variant="required",
    ),
    edge(
        G,
        "tactical-value",
        OU,
        'label: "2-1", front: {tactical: 2, artillery: 0}, back: {tactical: 2,',
        'label: "2-1", front: {tactical: 0, artillery: 0}, back: {tactical: 0,',
    ),
    brk(
        G,
        "artillery-value",
        OU,
        'label: "2-1", front: {tactical: 2, artillery: 0}, back: {tactical: 2, artillery: 0}',
        'label: "2-1", front: {tactical: 2, artillery: -1}, back: {tactical: 2, artillery: -1}',
    ),
    brk(
        G,
        "exhausted-side",
        OU,
        'label: "2-1", front: {tactical: 2, artillery: 0}, back: '
        "{tactical: 2, artillery: 0}, back_kind: exhausted}",
        'label: "2-1", front: {tactical: '
        "2, artillery: 0}, back: {tactical: 2, artillery: 0}, back_kind: reduced}",
    ),
    brk(
        G,
        "exhausted-tactical-not-better",
        OU,
        "back: {tactical: 2, artillery: 0}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
        "back: {tactical: 3, artillery: 0}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
        (OU, "id: otr-u-meagher"),
    ),
    brk(
        G,
        "exhausted-artillery-not-better",
        OU,
        "back: {tactical: 2, artillery: 0}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
        "back: {tactical: 2, artillery: 1}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
        (OU, "id: otr-u-meagher"),
    ),
    edge(
        G,
        "exhausted-tactical-not-better",
        OU,
        "back: {tactical: 2, artillery: 0}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
        "back: {tactical: 2, artillery: 0}, back_kind: exhausted}\n  - {id: otr-u-sedgwick",
    ),
    brk(
        G,
        "leader-kind",
        OU,
        "leader: {kind: corps, commands: otr-u-ii-corps",
        "leader: {kind: cavalry, commands: otr-u-ii-corps",
    ),
    brk(
        G,
        "leader-command-value",
        OU,
        "commands: otr-u-ii-corps, ratings: {command: 2,",
        "commands: otr-u-ii-corps, ratings: {command: 7,",
    ),
    edge(
        G,
        "leader-command-value",
        OU,
        "commands: otr-u-ii-corps, ratings: {command: 2,",
        "commands: otr-u-ii-corps, ratings: {command: 6,",
    ),
    edge(
        G,
        "leader-command-value",
        OU,
        "commands: otr-u-ii-corps, ratings: {command: 2,",
        "commands: otr-u-ii-corps, ratings: {command: 0,",
        variant="minimum",
    ),
    brk(
        G,
        "leader-command-value",
        OU,
        "commands: otr-u-ii-corps, ratings: {command: 2, ",
        "commands: otr-u-ii-corps, ratings: {",
        variant="required",
    ),
    brk(
        G,
        "army-commander-command-only",
        OU,
        "commands: otr-c-anv, ratings: {command: 5}}",
        "commands: otr-c-anv, ratings: {command: 5, tactical: 2}}",
    ),
    brk(
        G,
        "subordinate-leader-tactical",
        OU,
        "commands: otr-u-ii-corps, ratings: {command: 2, tactical: 1}}",
        "commands: otr-u-ii-corps, ratings: {command: 2}}",
    ),
    brk(G, "leader-with-subordinate", OS, PORTER, PORTER.replace("N1523", "N1623")),
    brk(
        G,
        "army-commander-on-infantry",
        OS,
        "{at: N1629, unit: otr-u-mcclellan, attached_to: otr-u-richardson}",
        "{at: N2418, unit: otr-u-mcclellan, attached_to: otr-u-cooke}",
    ),
    brk(
        G,
        "army-commanders",
        "siv/units.yaml",
        "leader: {kind: area, commands: siv-u-dept-shen,",
        "leader: {kind: army, commands: siv-u-dept-shen,",
        ("siv/units.yaml", "id: siv-u-banks"),
        extra=(
            ("siv/units.yaml", "id: siv-u-banks", "army-commander-command-only"),
            ("siv/scenarios.yaml", "unit: siv-u-banks", "army-commanders"),
        ),
    ),
    brk(
        G,
        "army-commanders",
        OU,
        "leader: {kind: army, commands: otr-c-anv, ratings: {command: 5}}",
        "leader: {kind: area, commands: otr-c-anv, ratings: {command: 5, tactical: 1}}",
        ("rules.yaml", "OTR Confederate army"),
        variant="exactly-one",
    ),
    brk(
        G,
        "no-mixed-stacks",
        OS,
        "{at: N1423, unit: otr-c-gregg,",
        "{at: N1523, unit: otr-c-gregg,",
        (OS, "otr-c-gregg, state"),
    ),
    brk(
        G,
        "flanks-refused-one-per-hex",
        OS,
        MORELL,
        MORELL + "\n      - {at: N1523, marker: "
        "flanks-refused}\n      - {at: N1523, marker: flanks-refused, note: second}",
        (OS, "note: second"),
    ),
    edge(
        G,
        "flanks-refused-one-per-hex",
        OS,
        MORELL,
        MORELL + "\n      - {at: N1523, marker: flanks-refused}",
    ),
    brk(
        G,
        "flanks-refused-terrain",
        OS,
        MORELL,
        MORELL + "\n      - {at: N1432, marker: flanks-refused}",
        (OS, "{at: N1432, marker: flanks-refused}"),
    ),
    brk(
        G,
        "station-markers-on-stations",
        GS,
        COLQUITT,
        COLQUITT + "\n      - {at: N1008, marker: station}",
        (GS, "{at: N1008, marker: station}"),
    ),
    edge(
        G,
        "station-markers-on-stations",
        GS,
        COLQUITT,
        COLQUITT + "\n      - {at: N2929, marker: station}",
    ),
    brk(
        G,
        "no-station-markers-siv-otr",
        OS,
        MORELL,
        MORELL + "\n      - {at: N1232, marker: station}",
        (OS, "{at: N1232, marker: station}"),
    ),
    edge(
        G,
        "no-station-markers-siv-otr",
        GS,
        COLQUITT,
        COLQUITT + "\n      - {at: N2929, marker: station}",
    ),
    brk(
        G,
        "entrenchments-1864-only-in-gtc",
        OS,
        "{at: N1523, marker: breastworks, face: back,",
        "{at: N1523, marker: breastworks-1864, face: back,",
    ),
    edge(
        G,
        "entrenchments-1864-only-in-gtc",
        GS,
        "{at: N1008, marker: abatis, attached_to",
        "{at: N1008, marker: fort-1864, attached_to",
    ),
    brk(
        G,
        "unnumbered-fuc-until-1863",
        GS,
        "{at: N1008, marker: abatis, attached_to",
        "{at: N1008, marker: fort, face: back, attached_to",
    ),
    edge(
        G,
        "unnumbered-fuc-until-1863",
        GS,
        "{at: N1008, marker: abatis, attached_to",
        "{at: N1008, marker: fort, attached_to",
    ),
    brk(
        G,
        "unknown-location",
        OS,
        "{at: N1523, unit: otr-u-butterfield,",
        "{at: N9923, unit: otr-u-butterfield,",
    ),
    brk(
        G,
        "unresolved-reference",
        OU,
        MEAGHER + " formation: otr-u-ii-corps,",
        MEAGHER + " formation: otr-u-ii-korps,",
        (OU, "otr-u-ii-korps"),
    ),
    brk(
        G,
        "duplicate-id",
        OU,
        "{id: otr-u-meagher, name: Meagher,",
        "{id: otr-u-sedgwick, name: Meagher,",
        (OU, "{id: otr-u-sedgwick, name: Sedgwick"),
        extra=((OS, "unit: otr-u-meagher", "unresolved-reference"),),
    ),
    brk(
        G,
        "reinforcement-turn",
        OS,
        "{turn: 2, units: [otr-u-wessells]",
        "{turn: 3, units: [otr-u-wessells]",
    ),
    brk(
        G,
        "wrong-type",
        OS,
        "{at: N1624, unit: otr-u-mccall, face: back,",
        "{at: N1624, unit: otr-u-mccall, face: exhausted,",
    ),
    brk(
        G,
        "no-water-setup",
        OS,
        "{at: N1523, unit: otr-u-butterfield,",
        "{at: N3512, unit: otr-u-butterfield,",
    ),
]


# ---- Napoleon (docs/rulebook/napoleon.md) -----------------------------------------------------
N = "napoleon"
NU, NF, NH = "units.yaml", "scenarios/free-deployment.yaml", "scenarios/historical.yaml"
NI = "scenarios/napoleons-initiative.yaml"
FR_I_ART = "type: artillery, formation: fr-i-corps, front: {cv: 3}, steps: 3, back_kind: none}"
NEW_ARM = (
    "  - {id: leader, name: {en: Leader, ja: 指揮官}, category: leader, symbol: leader, shape: block}\n",
    "  - {id: leader, name: {en: Leader, ja: 指揮官}, category: leader, symbol: leader, shape: block}\n"
    "  - {id: engineers, name: Engineers, symbol: engineer, shape: {SHAPE}}\n",
)


def _arm(shape: str) -> tuple[str, str]:
    return NEW_ARM[0], NEW_ARM[1].replace("{SHAPE}", shape)


def _at_max(unit: str) -> tuple[tuple[str, str, str], ...]:
    """setup-at-max-cv in each scenario that sets `unit` up (its maximum changed)."""
    return tuple((f, unit, "setup-at-max-cv") for f in (NF, NH, NI))


NAPOLEON = [
    brk(
        N,
        "block-totals",
        NU,
        'id: fr-ii-foy, name: "II Corps - Foy", side: french,',
        'id: fr-ii-foy, name: "II Corps - Foy", copies: 2, side: french,',
        (NU, "id: fr-milhaud-delort"),
        extra=((NU, "id: pr-iv-art", "block-totals"),),
    ),
    brk(
        N,
        "three-leaders",
        NU,
        'id: napoleon, name: {en: "Napoleon", ja: ナポレオン},',
        'id: napoleon, copies: 2, name: {en: "Napoleon", ja: ナポレオン},',
        (NU, "id: blucher"),
        extra=(
            (NU, "id: napoleon", "three-leaders"),
            (NU, "id: fr-milhaud-delort", "block-totals"),
            (NU, "id: pr-iv-art", "block-totals"),
        ),
    ),
    brk(
        N,
        "all-blocks",
        NU,
        *_arm("counter"),
        (NU, "id: fr-i-art"),
        more=(
            (
                NU,
                "type: artillery, formation: fr-i-corps",
                "type: engineers, formation: fr-i-corps",
            ),
        ),
        extra=((NU, "id: fr-i-art", "block-arms"),),
    ),
    brk(
        N,
        "block-arms",
        NU,
        *_arm("block"),
        (NU, "id: fr-i-art"),
        more=(
            (
                NU,
                "type: artillery, formation: fr-i-corps",
                "type: engineers, formation: fr-i-corps",
            ),
        ),
    ),
    brk(
        N,
        "napoleon-commands-french",
        NU,
        "leader: {kind: army, commands: fr-army}",
        "leader: {kind: army, commands: fr-i-corps}",
    ),
    brk(
        N,
        "wellington-commands-british",
        NU,
        "leader: {kind: army, commands: al-army}",
        "leader: {kind: army, commands: pr-army}",
    ),
    brk(
        N,
        "blucher-commands-prussian",
        NU,
        "leader: {kind: army, commands: pr-army}",
        "leader: {kind: army, commands: al-army}",
        (NU, "id: blucher"),
    ),
    brk(
        N,
        "guard-is-french",
        NU,
        "size: XX, formation: al-i-corps, front: {cv: 4}, steps: 4, "
        "back_kind: none}\n  - {id: br-alten",
        "size: XX, formation: al-i-corps, front: {cv: 4}, "
        "steps: 4, back_kind: none, tags: [guard]}\n  - {id: br-alten",
        (NU, "id: br-cooke"),
    ),
    brk(
        N,
        "max-cv-values",
        NU,
        FR_I_ART,
        FR_I_ART.replace("cv: 3}, steps: 3", "cv: 5}, steps: 5"),
        extra=_at_max("fr-i-art"),
    ),
    brk(
        N,
        "max-cv-values",
        NU,
        FR_I_ART,
        FR_I_ART.replace(" front: {cv: 3},", ""),
        variant="required",
    ),
    brk(
        N,
        "leader-one-step",
        NU,
        "front: {cv: 1}, steps: 1, back_kind: none, leader: {kind: army, commands: al-army}",
        "front: {cv: 2}, steps: 2, back_kind: none, leader: {kind: army, commands: al-army}",
        (NU, "id: wellington"),
        extra=_at_max("wellington"),
    ),
    brk(N, "steps-equal-max-cv", NU, FR_I_ART, FR_I_ART.replace("steps: 3", "steps: 2")),
    brk(
        N,
        "british-ii-corps-artillery-errata",
        NU,
        "type: artillery, formation: al-ii-corps, front: {cv: 2}, steps: 2,",
        "type: artillery, formation: al-ii-corps, front: {cv: 4}, steps: 4,",
        (NU, "id: br-ii-art"),
        extra=_at_max("br-ii-art"),
    ),
    brk(
        N,
        "setup-cv-range",
        NH,
        "{at: brussels, unit: br-picton, state: {cv: 4}}",
        "{at: brussels, unit: br-picton, state: {cv: 5}}",
        extra=((NH, "br-picton, state: {cv: 5}", "setup-at-max-cv"),),
    ),
    brk(
        N,
        "setup-at-max-cv",
        NH,
        "{at: brussels, unit: br-picton, state: {cv: 4}}",
        "{at: brussels, unit: br-picton, state: {cv: 3}}",
    ),
    brk(
        N,
        "free-stacking-british",
        NF,
        "{at: ath, unit: nl-stedman,",
        "{at: brussels, unit: nl-stedman,",
    ),
    brk(
        N,
        "free-stacking-prussian",
        NF,
        "{at: namur, unit: pr-5-bde,",
        "{at: charleroi, unit: pr-5-bde,",
    ),
    brk(
        N,
        "free-stacking-french",
        NF,
        "{at: maubeuge, units: [fr-ii-jerome, fr-ii-foy]",
        "{at: beaumont, units: [fr-ii-jerome, fr-ii-foy]",
    ),
    brk(
        N,
        "free-zone-british",
        NF,
        "{at: ath, unit: nl-stedman,",
        "{at: gosselies, unit: nl-stedman,",
    ),
    brk(N, "free-zone-prussian", NF, "{at: namur, unit: pr-5-bde,", "{at: alost, unit: pr-5-bde,"),
    brk(
        N,
        "french-start-in-france",
        NF,
        "{at: beaumont, unit: napoleon,",
        "{at: thuin, unit: napoleon,",
    ),
    brk(
        N,
        "allies-not-in-france",
        NH,
        "{at: thuin, unit: pr-1-bde,",
        "{at: mariembourg, unit: pr-1-bde,",
    ),
    brk(
        N,
        "no-mixed-towns",
        NF,
        "{at: ath, unit: nl-stedman,",
        "{at: beaumont, unit: nl-stedman,",
        (NF, "{at: beaumont, units: [fr-guard-old"),
        extra=((NF, "nl-stedman", "allies-not-in-france"), (NF, "nl-stedman", "free-zone-british")),
    ),
    brk(N, "placed-twice", NH, "{at: ath, unit: br-clinton,", "{at: ath, unit: br-i-art,"),
]


def added(
    game: str,
    rule: str,
    file: str,
    anchor: str,
    line: str,
    needle: str,
    *,
    extra: tuple[tuple[str, str, str], ...] = (),
    variant: str = "",
    ok: bool = False,
) -> Case:
    """A new record (`line`) written before `anchor`: the one edit adds a counter or card."""
    if ok:
        return edge(game, rule, file, anchor, line + "\n" + anchor, variant=variant)
    return brk(
        game, rule, file, anchor, line + "\n" + anchor, (file, needle), extra=extra, variant=variant
    )


# ---- Asia Engulfed (docs/rulebook/asia_engulfed.md) ------------------------------------------
A = "asia_engulfed"
AU, AS, AG = "units.yaml", "scenarios/campaign-1941.yaml", "scenarios/guadalcanal-1942.yaml"
AA = "  - {id: jp-sub, name:"
KIDO = "{at: north-pacific, units: [jp-cv-akagi,"
AKAGI_AIR = "{at: air-group-jp-cv-akagi, units: [jp-cba-akagi]}"
UNLIST_AKAGI = ((AS, "units: [jp-cv-akagi, jp-cv-kaga,", "units: [jp-cv-kaga,"),)


def _akagi_damaged(damaged: int, full: str, reduced: str = "") -> str:
    """Akagi (3 steps) set up on its own with `damaged` steps, `full` CBA and `reduced` ones."""
    text = (
        f"{{at: north-pacific, unit: jp-cv-akagi, state: {{damaged: {damaged}}}}}"
        f"\n      - {{at: air-group-jp-cv-akagi, units: [{full}]}}"
    )
    if reduced:
        text += f"\n      - {{at: air-group-jp-cv-akagi, units: [{reduced}], steps: 1}}"
    return text


GENZAN = (
    'ja: "元山海軍航空隊"}, side: axis, nationality: japan, type: lba, front: {movement: 2}, '
    "back: {movement: 2}, steps: 2, tags: [elite]}"
)


def _unit(uid: str, nat: str, kind: str, steps: int, extra: str = "") -> str:
    side = "axis" if nat == "japan" else "allied"
    return (
        f"  - {{id: {uid}, name: Test, side: {side}, nationality: {nat}, type: {kind}, "
        f"front: {{movement: 1{extra}}}, back_kind: none, steps: {steps}}}"
    )


ASIA = [
    added(
        A, "steps-ground-units", AU, AA, _unit("cn-99", "china_nationalist", "infantry", 5), "cn-99"
    ),
    added(
        A,
        "steps-ground-units",
        AU,
        AA,
        _unit("cn-99", "china_nationalist", "infantry", 4),
        "",
        ok=True,
    ),
    added(
        A,
        "steps-ground-units",
        AU,
        AA,
        _unit("cn-99", "china_nationalist", "infantry", 1),
        "",
        ok=True,
        variant="minimum",
    ),
    added(A, "steps-fleets", AU, AA, _unit("us-ca-99", "usa", "ca", 2), "us-ca-99"),
    added(A, "steps-fleets", AU, AA, _unit("us-ca-99", "usa", "ca", 4), "", ok=True),
    added(A, "steps-air-and-submarines", AU, AA, _unit("us-lba-99", "usa", "lba", 3), "us-lba-99"),
    added(
        A,
        "steps-garrison",
        AU,
        AA,
        _unit("us-gar-99", "usa", "garrison", 2, "").replace("movement: 1", "movement: 0"),
        "us-gar-99",
    ),
    brk(
        A,
        "setup-steps-ground-units",
        AS,
        "{at: kyushu, units: [jp-western-army, jp-16th-army]}",
        "{at: kyushu, units: [jp-western-army, jp-16th-army], steps: 5}",
        extra=((AS, "at: kyushu", "steps-range"),),
    ),
    edge(
        A,
        "setup-steps-ground-units",
        AS,
        "{at: kyushu, units: [jp-western-army, jp-16th-army]}",
        "{at: kyushu, units: [jp-western-army, jp-16th-army], steps: 1}",
    ),
    brk(
        A,
        "setup-steps-fleets",
        AG,
        "{at: truk, unit: jp-cv-shokaku, steps: 2,",
        "{at: truk, unit: jp-cv-shokaku, steps: 5,",
        extra=((AG, "steps: 5", "steps-range"),),
    ),
    edge(
        A,
        "setup-steps-fleets",
        AG,
        "{at: truk, unit: jp-cv-shokaku, steps: 2,",
        "{at: truk, unit: jp-cv-shokaku, steps: 1,",
    ),
    brk(
        A,
        "setup-steps-air-and-submarines",
        AS,
        "{at: jp-sub-holding, units: [jp-sub]}",
        "{at: jp-sub-holding, units: [jp-sub], steps: 3}",
        extra=((AS, "steps: 3", "steps-range"),),
    ),
    brk(
        A,
        "setup-steps-garrison",
        AS,
        "{at: ponape, units: [jp-garrison]}",
        "{at: ponape, units: [jp-garrison], steps: 2}",
        extra=((AS, "steps: 2", "steps-range"),),
    ),
    added(
        A,
        "marines-japan-and-usa-only",
        AU,
        AA,
        _unit("cw-rm-99", "commonwealth", "marine", 2),
        "cw-rm-99",
    ),
    brk(
        A,
        "us-marines-hit-bonus",
        AU,
        'ja: "第1海兵師団"}, side: allied, nationality: usa, type: '
        'marine, size: "XX", front: {movement: 3, hit_bonus: 1}',
        'ja: "第1海兵師団"}, side: '
        'allied, nationality: usa, type: marine, size: "XX", front: {movement: 3, hit_bonus: 2}',
        (AU, "us-1st-marine-div"),
    ),
    brk(
        A,
        "us-marines-hit-bonus",
        AU,
        'ja: "第1海兵師団"}, side: allied, nationality: usa, type: '
        'marine, size: "XX", front: {movement: 3, hit_bonus: 1}',
        'ja: "第1海兵師団"}, side: '
        'allied, nationality: usa, type: marine, size: "XX", front: {movement: 3}',
        (AU, "us-1st-marine-div"),
        variant="required",
    ),
    added(
        A,
        "garrison-nationalities",
        AU,
        AA,
        _unit("dei-gar-99", "dei", "garrison", 1).replace("movement: 1", "movement: 0"),
        "dei-gar-99",
    ),
    brk(
        A,
        "garrisons-never-move",
        AU,
        "type: garrison, front: {movement: 0}, back: {movement: 0}, back_kind: disorganised",
        "type: garrison, front: {movement: 1}, back: {movement: 0}, back_kind: disorganised",
        (AU, "id: jp-garrison"),
    ),
    brk(
        A,
        "elites-japanese-only",
        AU,
        'ja: "ハワイ航空軍"}, side: allied, nationality: usa, type: '
        "lba, front: {movement: 2}, back: {movement: 2}, steps: 2}",
        'ja: "ハワイ航空軍"}, side: '
        "allied, nationality: usa, type: lba, front: {movement: 2}, back: {movement: 2}, steps: 2, "
        "tags: [elite]}",
        (AU, "id: us-lba-hawaiian-af"),
        extra=(
            (AU, "id: us-lba-hawaiian-af", "japanese-elites"),
            (AS, "us-lba-hawaiian-af", "japanese-elites"),
        ),
    ),
    brk(
        A,
        "elite-unit-types",
        AU,
        'short_name: {en: "BatDiv 1", ja: "第1戦隊"}, side: axis, '
        "nationality: japan, type: bb, front: {movement: 3}, back_kind: none, steps: 4}",
        'short_name: {en: "BatDiv 1", ja: "第1戦隊"}, side: axis, nationality: japan, type: bb, '
        "front: {movement: 3}, back_kind: none, steps: 4, tags: [elite]}",
        (AU, "id: jp-bb-batdiv1,"),
    ),
    added(A, "block-counts", AU, AA, _unit("jp-99", "japan", "infantry", 4), "jp-99"),
    added(
        A,
        "block-counts",
        AU,
        AA,
        _unit("cn-99", "china_nationalist", "infantry", 4),
        "",
        ok=True,
        variant="chinese",
    ),
    brk(
        A,
        "one-submarine-unit-per-side",
        AU,
        "type: submarine, front: {movement: 3}, back: "
        "{movement: 3}, steps: 2}\n  - {id: jp-garrison",
        "type: submarine, front: {movement: 3}, "
        "back: {movement: 3}, steps: 2, copies: 2}\n  - {id: jp-garrison",
        (AU, "id: jp-sub,"),
    ),
    brk(
        A,
        "japanese-elites",
        AU,
        GENZAN,
        GENZAN.replace(", tags: [elite]", ""),
        ("rules.yaml", "name: {en: elite LBA"),
    ),
    brk(
        A,
        "stacking-island-box",
        AS,
        "{at: palau, units: [jp-snlf-sasebo, jp-garrison, jp-lba-navy]}",
        "{at: palau, units: [jp-snlf-sasebo, jp-garrison, jp-lba-navy, jp-garrison]}",
    ),
    brk(
        A,
        "stacking-port-box",
        AS,
        "{at: hong-kong, units: [cw-hong-kong-brigade, cw-garrison]}",
        "{at: hong-kong, units: [cw-hong-kong-brigade, cw-garrison, cw-garrison]}",
    ),
    brk(
        A,
        "stacking-jungle",
        AS,
        "{at: papua, units: [cw-new-guinea-force]}",
        "{at: papua, units: [cw-new-guinea-force, cw-garrison, cw-garrison, cw-garrison, cw-garrison]}",
    ),
    edge(
        A,
        "stacking-jungle",
        AS,
        "{at: papua, units: [cw-new-guinea-force]}",
        "{at: papua, units: [cw-new-guinea-force, cw-garrison, cw-garrison, cw-garrison]}",
    ),
    brk(A, "port-capacity-small", AS, KIDO, KIDO.replace("north-pacific", "kurile-islands")),
    brk(A, "port-capacity-medium", AS, KIDO, KIDO.replace("north-pacific", "palau")),
    edge(A, "port-capacity-large", AS, KIDO, KIDO.replace("north-pacific", "truk")),
    brk(
        A,
        "port-capacity-large",
        AS,
        KIDO,
        KIDO.replace("north-pacific", "truk"),
        (AS, "{at: truk, units: [jp-snlf-kure"),
        more=(
            (AS, "jp-lba-army, jp-bb-batdiv1, jp-bb-batdiv2]", "jp-lba-army, jp-bb-batdiv2]"),
            (
                AS,
                "{at: truk, units: [jp-snlf-kure, jp-garrison, jp-lba-navy, jp-ca-crudiv6]}",
                "{at: truk, units: [jp-snlf-kure, jp-garrison, jp-lba-navy, jp-ca-crudiv6, "
                "jp-bb-batdiv1]}",
            ),
        ),
    ),
    brk(
        A,
        "cv-air-group-capacity",
        AS,
        AKAGI_AIR,
        "{at: air-group-jp-cv-akagi, units: [jp-cba-akagi, jp-cba, jp-cba]}"
        "\n      - {at: air-group-jp-cv-akagi, unit: jp-cba, steps: 1}",
        (AS, "{at: air-group-jp-cv-akagi, unit: jp-cba, steps: 1}"),
    ),
    edge(
        A,
        "cv-air-group-capacity",
        AS,
        AKAGI_AIR,
        "{at: air-group-jp-cv-akagi, units: [jp-cba-akagi, jp-cba, jp-cba]}",
    ),
    edge(
        A,
        "cv-air-group-capacity",
        AS,
        "{at: air-group-jp-cv-kaga, units: [jp-cba-kaga]}",
        "{at: air-group-jp-cv-kaga, units: [jp-cba-kaga, jp-cba, jp-cba, jp-cba]}",
        variant="4-steps",
    ),
    brk(
        A,
        "cv-air-group-capacity",
        AS,
        AKAGI_AIR,
        _akagi_damaged(1, "jp-cba-akagi, jp-cba", "jp-cba, jp-cba"),
        (AS, "{at: air-group-jp-cv-akagi, units: [jp-cba, jp-cba], steps: 1}"),
        variant="damaged",
        more=UNLIST_AKAGI,
    ),
    edge(
        A,
        "cv-air-group-capacity",
        AS,
        AKAGI_AIR,
        _akagi_damaged(1, "jp-cba-akagi, jp-cba", "jp-cba"),
        variant="damaged",
        more=UNLIST_AKAGI,
    ),
    brk(
        A,
        "cv-air-group-capacity",
        AG,
        "{at: air-group-jp-cv-shokaku, units: [jp-cba]}",
        "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba, jp-cba]}",
        variant="current-steps",
        extra=((AG, "air-group-jp-cv-shokaku, units: [jp-cba, jp-cba,", "cv-full-strength-cba"),),
    ),
    edge(
        A,
        "cv-air-group-capacity",
        AG,
        "{at: air-group-jp-cv-shokaku, units: [jp-cba]}",
        "{at: air-group-jp-cv-shokaku, units: [jp-cba, jp-cba]}",
        variant="current-steps",
    ),
    brk(
        A,
        "cv-full-strength-cba",
        AS,
        AKAGI_AIR,
        _akagi_damaged(2, "jp-cba-akagi, jp-cba"),
        (AS, "{at: air-group-jp-cv-akagi, units: [jp-cba-akagi, jp-cba]}"),
        more=UNLIST_AKAGI,
    ),
    edge(
        A,
        "cv-full-strength-cba",
        AS,
        AKAGI_AIR,
        _akagi_damaged(2, "jp-cba-akagi", "jp-cba, jp-cba"),
        more=UNLIST_AKAGI,
    ),
    brk(
        A,
        "no-mixed-sides-at-setup",
        AS,
        "{at: alaska, units: [us-alaska-defense]}",
        "{at: hokkaido, units: [us-alaska-defense]}",
    ),
    brk(
        A,
        "us-not-in-india-burma-china",
        AS,
        "{at: alaska, units: [us-alaska-defense]}",
        "{at: delhi, units: [us-alaska-defense]}",
    ),
    brk(
        A,
        "cw-not-in-china",
        AS,
        "{at: bengal, units: [cw-xv-corps]}",
        "{at: yunnan, units: [cw-xv-corps]}",
    ),
    brk(
        A,
        "cw-not-in-east-china-sea",
        AS,
        "{turn: 3, units: [cw-cv-eastern-fleet], at: bombay}",
        "{turn: 3, units: [cw-cv-eastern-fleet], at: east-china-sea}",
    ),
    brk(
        A, "dei-units-in-dei", AS, "{at: java, units: [dei-knil,", "{at: malaya, units: [dei-knil,"
    ),
    brk(
        A,
        "philippine-units-in-philippines",
        AS,
        "{at: luzon, units: [us-usaffe,",
        "{at: alaska, units: [us-usaffe,",
    ),
    brk(
        A,
        "fleets-in-port-or-sea",
        AS,
        "{turn: 4, units: [us-cv-wasp], at: usa}",
        "{turn: 4, units: [us-cv-wasp], at: delhi}",
    ),
    brk(
        A,
        "cba-in-air-group-boxes",
        AS,
        "{at: air-group-us-cv-saratoga, units: [us-cba]}",
        "{at: usa, units: [us-cba]}",
    ),
    brk(
        A,
        "lba-not-on-carriers",
        AS,
        "{at: queensland, units: [cw-lba-raaf]}",
        "{at: air-group-cw-cv-eastern-fleet, units: [cw-lba-raaf]}",
    ),
    brk(
        A,
        "ground-units-on-the-map",
        AS,
        "{at: bengal, units: [cw-xv-corps]}",
        "{at: air-group-cw-cv-eastern-fleet, units: [cw-xv-corps]}",
    ),
    brk(
        A,
        "no-setup-in-neutral-areas",
        AS,
        "{at: bengal, units: [cw-xv-corps]}",
        "{at: thailand, units: [cw-xv-corps]}",
    ),
    brk(
        A,
        "reinforcement-turn",
        AS,
        "{turn: 2, units: [jp-bb-yamato], at: honshu}",
        "{turn: 26, units: [jp-bb-yamato], at: honshu}",
    ),
    edge(
        A,
        "reinforcement-turn",
        AS,
        "{turn: 2, units: [jp-bb-yamato], at: honshu}",
        "{turn: 25, units: [jp-bb-yamato], at: honshu}",
    ),
]


# ---- 1914, Twilight in the East (docs/rulebook/twilight_in_the_east.md) -----------------------
T = "twilight_in_the_east"
TU, TM = "units.yaml", "scenarios/masurian_lakes.yaml"
TT = "scenarios/tannenberg.yaml"
T_AT = "  - {id: de-art-i, name:"
T_HEAD = "  - {id: t-x, name: T, side: central_powers, nationality: de, "
TW_INF = (
    T_HEAD + "type: infantry, size: XX, formation: de-i, steps: 8, front: {steps: 8, defence: 8, "
    "artillery: 3, movement: 7, rcp: 5, base_ce: 10}, back: {steps: 4, defence: 4, artillery: 2, "
    "movement: 7, rcp: 3, base_ce: 10}, back_kind: reduced}"
)
TW_TRAIN = (
    T_HEAD + "type: corps_train, formation: de-i, steps: 1, front: {steps: 1, defence: 1, "
    "movement: 7, rcp: 2, supply_range: 3}, back: {steps: 1, defence: 1, movement: 7, rcp: 2, "
    "supply_range: 4, ap_limit: 2}, back_kind: extended}"
)
TW_DEPOT = (
    T_HEAD + "type: small_depot, formation: de-8a, steps: 1, front: {steps: 1, defence: 1, "
    "movement: 6, rcp: 2, supply_range: 3, ap_limit: 2}, back: {steps: 1, defence: 1, "
    "movement: 6, rcp: 2, supply_range: 5, ap_limit: 1}, back_kind: extended}"
)
TW_ART = (
    T_HEAD + "type: artillery, size: II, formation: de-i, steps: 1, front: {steps: 1, "
    "defence: 1, artillery: 4, movement: 5, rcp: 2}, back_kind: none, tags: [asset]}"
)
TW_FORT = T_HEAD + "type: fortress, steps: 3, front: {steps: 3, fssm: 2}, back_kind: none}"
ODD_STEPS = ("steps: 8, front: {steps: 8,", "steps: 7, front: {steps: 7,")
R22 = '{at: "63.41", unit: ru-22-1, face: back, steps: 4, state: {ce_status: -4, cel: 5, disorder: 1}}'
D41 = "unit: de-41-xx, steps: 6, state: {ce_status: -1, cel: 9}}"


def tw(
    rule: str,
    template: str,
    *changes: tuple[str, str],
    ok: bool = False,
    variant: str = "",
    also: tuple[str, ...] = (),
) -> Case:
    """A new twilight counter: `template` with `changes` (old, new) made to it; `also` names
    further rules the new counter breaks."""
    line = template
    for old, new in changes:
        assert old in line, old
        line = line.replace(old, new, 1)
    return added(
        T,
        rule,
        TU,
        T_AT,
        line,
        "id: t-x,",
        ok=ok,
        variant=variant,
        extra=tuple((TU, "id: t-x,", r) for r in also),
    )


TWILIGHT = [
    tw("unit-size-symbols", TW_TRAIN, ("formation: de-i,", "size: XXX, formation: de-i,")),
    tw("combat-unit-size", TW_INF, (" size: XX,", "")),
    tw("printed-steps", TW_INF, ("steps: 8, front", "steps: 7, front")),
    tw("rcp-halves", TW_INF, ("rcp: 5,", "rcp: 5.25,")),
    tw("rcp-halves", TW_INF, ("rcp: 5,", "rcp: 8,"), ok=True),
    tw("rcp-halves-back", TW_INF, ("rcp: 3,", "rcp: 2.75,")),
    tw(
        "reduced-steps",
        TW_INF,
        ("back: {steps: 4,", "back: {steps: 9,"),
        also=("reduced-flip-point",),
    ),
    tw("reduced-flip-point", TW_INF, ("back: {steps: 4,", "back: {steps: 8,")),
    tw(
        "reduced-flip-point", TW_INF, ("back: {steps: 4,", "back: {steps: 3,"), variant="below-half"
    ),
    tw(
        "reduced-flip-point",
        TW_INF,
        ODD_STEPS,
        ("back: {steps: 4,", "back: {steps: 3,"),
        variant="odd",
    ),
    tw("reduced-flip-point", TW_INF, ODD_STEPS, ok=True),
    tw("reduced-defence", TW_INF, ("defence: 4,", "defence: 9,")),
    tw("reduced-defence", TW_INF, ("defence: 4,", "defence: 8,"), ok=True),
    tw("reduced-artillery", TW_INF, ("artillery: 2,", "artillery: 4,")),
    tw(
        "reduced-movement",
        TW_INF,
        ("rcp: 3,", "rcp: 3,"),
        ("movement: 7, rcp: 3", "movement: 8, rcp: 3"),
    ),
    tw("reduced-rcp", TW_INF, ("rcp: 3,", "rcp: 6,")),
    tw("reduced-base-ce", TW_INF, ("rcp: 3, base_ce: 10", "rcp: 3, base_ce: 9")),
    tw(
        "artillery-one-step", TW_ART, ("steps: 1, front: {steps: 1,", "steps: 2, front: {steps: 2,")
    ),
    tw(
        "artillery-no-back",
        TW_ART,
        ("back_kind: none, tags: [asset]", "back: {defence: 1}, back_kind: reduced"),
    ),
    tw("artillery-value-required", TW_ART, ("artillery: 4, ", "")),
    tw("asset-no-back", TW_INF, ("back_kind: reduced}", "back_kind: reduced, tags: [asset]}")),
    tw(
        "asset-base-ce",
        TW_INF,
        (
            ", base_ce: 10}, back: {steps: 4, defence: 4, artillery: 2, movement: 7, "
            "rcp: 3, base_ce: 10}, back_kind: reduced}",
            "}, back_kind: none, tags: [asset]}",
        ),
    ),
    tw(
        "detachment-withdrawal",
        TW_INF,
        ("back_kind: reduced}", "back_kind: reduced, tags: [detachment]}"),
    ),
    tw(
        "detachment-withdrawal",
        TW_INF,
        ("base_ce: 10}, back:", "base_ce: 10, withdrawal: 48}, back:"),
        ("back_kind: reduced}", "back_kind: reduced, tags: [detachment]}"),
        variant="after-last-turn",
    ),
    tw(
        "detachment-withdrawal",
        TW_INF,
        ("base_ce: 10}, back:", "base_ce: 10, withdrawal: 47}, back:"),
        ("back_kind: reduced}", "back_kind: reduced, tags: [detachment]}"),
        ok=True,
    ),
    tw("release-turn", TW_INF, ("base_ce: 10}, back:", "base_ce: 10, release: 0}, back:")),
    tw("release-turn", TW_INF, ("base_ce: 10}, back:", "base_ce: 10, release: 1}, back:"), ok=True),
    tw("supply-one-step", TW_TRAIN, ("steps: 1, front: {steps: 1,", "steps: 2, front: {steps: 2,")),
    tw("supply-two-sided", TW_TRAIN, ("back_kind: extended", "back_kind: exhausted")),
    tw("supply-range-printed", TW_TRAIN, (", supply_range: 3}", "}")),
    tw("extended-range-longer", TW_TRAIN, ("supply_range: 4,", "supply_range: 2,")),
    tw("extended-range-longer", TW_TRAIN, ("supply_range: 4,", "supply_range: 3,"), ok=True),
    tw("extended-ap-limit-lower", TW_DEPOT, ("ap_limit: 1}", "ap_limit: 3}")),
    tw("extended-ap-limit-lower", TW_DEPOT, ("ap_limit: 1}", "ap_limit: 2}"), ok=True),
    tw("extended-ap-limit-printed", TW_TRAIN, (", ap_limit: 2}", "}")),
    tw("small-depot-ap-front", TW_DEPOT, ("supply_range: 3, ap_limit: 2}", "supply_range: 3}")),
    tw(
        "large-depot-unlimited-front",
        TW_TRAIN,
        ("supply_range: 3}", "supply_range: 3, ap_limit: 2}"),
    ),
    tw(
        "fortress-no-back",
        TW_FORT,
        ("back_kind: none}", "back: {steps: 2, fssm: 2}, back_kind: reduced}"),
    ),
    tw("fortress-fssm", TW_FORT, (", fssm: 2}", "}")),
    tw(
        "base-ce-range",
        TW_INF,
        ("base_ce: 10}, back", "base_ce: 13}, back"),
        ("rcp: 3, base_ce: 10", "rcp: 3, base_ce: 13"),
    ),
    tw(
        "base-ce-range",
        TW_INF,
        ("base_ce: 10}, back", "base_ce: 12}, back"),
        ("rcp: 3, base_ce: 10", "rcp: 3, base_ce: 12"),
        ok=True,
    ),
    tw(
        "base-ce-range",
        TW_INF,
        ("base_ce: 10}, back", "base_ce: 2}, back"),
        ("rcp: 3, base_ce: 10", "rcp: 3, base_ce: 2"),
        ok=True,
        variant="minimum",
    ),
    tw(
        "formation-base-ce",
        TW_INF,
        (", base_ce: 10}, back", "}, back"),
        (", base_ce: 10}, back_kind", "}, back_kind"),
        ("back_kind: reduced}", "back_kind: reduced, tags: [formation]}"),
    ),
    brk(
        T,
        "cel-range",
        TM,
        D41,
        D41.replace("cel: 9", "cel: 1"),
        extra=((TM, "cel: 1", "cel-markers"),),
    ),
    brk(T, "cel-not-above-base", TM, D41, D41.replace("cel: 9", "cel: 11")),
    brk(T, "ce-status-boxes", TM, D41, D41.replace("ce_status: -1", "ce_status: -5")),
    edge(T, "ce-status-boxes", TM, D41, D41.replace("ce_status: -1", "ce_status: -4")),
    brk(
        T,
        "ce-status-formations-only",
        TM,
        '{at: "48.31", units: [de-1-i, de-train-i, de-art-i]}',
        '{at: "48.31", units: [de-1-i, de-train-i]}\n      - {at: "48.31", unit: de-art-i, state: '
        "{ce_status: -1}}",
        (TM, "unit: de-art-i, state"),
    ),
    brk(
        T,
        "disorder-levels",
        TM,
        R22,
        R22.replace("disorder: 1", "disorder: 3"),
        extra=((TM, "disorder: 3", "disorder-markers"),),
    ),
    brk(T, "disorder-needs-dm", TM, R22, R22.replace("ce_status: -4", "ce_status: -3")),
    brk(
        T,
        "disorder-markers",
        "markers.yaml",
        "kind: disorder, values: [1, 2], copies: 10}",
        "kind: disorder, values: [1, 2], copies: 0}",
        (TM, "unit: ru-22-1, face: back"),
    ),
    brk(
        T,
        "cel-markers",
        "markers.yaml",
        "values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], copies: 6}",
        "values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], copies: 0}",
        (TM, "de-41-xx"),
        extra=tuple(
            (TM, u, "cel-markers") for u in ("unit: ru-22-1", "unit: ru-24-1", "unit: ru-4-6")
        ),
    ),
    brk(
        T,
        "ip-levels",
        "markers.yaml",
        "kind: ip, values: [1, 2, 3, 4]",
        "kind: ip, values: [1, 2, 3, 4, 5]",
        ("markers.yaml", "kind: ip, values"),
    ),
    brk(T, "back-face-steps", TM, R22, R22.replace("steps: 4", "steps: 6")),
    edge(T, "back-face-steps", TM, R22, R22.replace("steps: 4", "steps: 5")),
    brk(
        T,
        "front-face-steps",
        TM,
        '{at: "47.31", unit: de-2-i, steps: 6}',
        '{at: "47.31", unit: de-2-i, steps: 4}',
    ),
    edge(
        T,
        "front-face-steps",
        TM,
        '{at: "47.31", unit: de-2-i, steps: 6}',
        '{at: "47.31", unit: de-2-i, steps: 5}',
    ),
    brk(
        T,
        "corps-attachment",
        TU,
        "level: corps, parent: de-8a, arm: infantry, attachment_limit: 2}\n  - {id: de-1-i,",
        "level: corps, parent: de-8a, arm: infantry, attachment_limit: 1.5}\n  - {id: de-1-i,",
        (
            TU,
            'id: de-2-i, name: {en: "2/I Infantry Division", ja: "2/I 歩兵師団"}, '
            "side: central_powers, nationality: de, level: division",
        ),
    ),
    brk(
        T,
        "army-attachment",
        TU,
        "level: army, arm: mixed, attachment_limit: 6}",
        "level: army, arm: mixed, attachment_limit: 3}",
        (
            TU,
            '  - {id: de-8k, name: {en: "8k Cavalry '
            'Division", ja: "8k 騎兵師団"}, side: central_powers, nationality: de, level: division',
        ),
    ),
    brk(
        T,
        "army-tracks",
        TU,
        "level: army, arm: mixed, attachment_limit: 6}",
        "level: army, arm: mixed, attachment_limit: 1}",
        (TU, "level: army, arm: mixed, attachment_limit: 1}"),
        extra=(
            (
                TU,
                '  - {id: de-8k, name: {en: "8k Cavalry Division", ja: "8k 騎兵師団"}, side: '
                "central_powers, nationality: de, level: division",
                "army-attachment",
            ),
        ),
    ),
    brk(
        T,
        "corps-limit-printed",
        TU,
        "level: corps, parent: de-8a, arm: infantry, attachment_limit: 2}\n  - {id: de-1-i,",
        "level: corps, parent: de-8a, arm: infantry, attachment_limit: 5}\n  - {id: de-1-i,",
        (TU, "id: de-i, name"),
    ),
    brk(
        T,
        "corps-in-army",
        TU,
        "level: corps, parent: de-8a, arm: infantry, attachment_limit: 2}\n  - {id: de-1-i,",
        "level: corps, arm: infantry, attachment_limit: 2}\n  - {id: de-1-i,",
        (TU, "id: de-i, name"),
    ),
    brk(
        T,
        "stacking-limit",
        TT,
        '{at: "41.20", units: [de-2-i, de-art-i]}',
        '{at: "41.19", units: [de-2-i, de-art-i]}',
        (TT, "units: [de-35-xvii, de-train-xvii]"),
        more=((TT, '{at: "44.21", units: [de-35-xvii,', '{at: "41.19", units: [de-35-xvii,'),),
    ),
    edge(
        T,
        "stacking-limit",
        TT,
        '{at: "41.20", units: [de-2-i, de-art-i]}',
        '{at: "41.19", units: [de-2-i, de-art-i]}',
    ),
    brk(
        T,
        "no-enemy-stacking",
        TT,
        '{at: "40.20", unit: de-1k}',
        '{at: "35.24", unit: de-1k}',
        (TT, '{at: "35.24", unit: ru-1k}'),
    ),
    brk(T, "no-water-setup", TT, '{at: "40.20", unit: de-1k}', '{at: "49.25", unit: de-1k}'),
    brk(
        T,
        "fortress-in-fortress-hex",
        TT,
        '{at: "78.41", unit: de-fortress-thorn}',
        '{at: "40.20", unit: de-fortress-thorn}',
    ),
]


# ---- Tank Killers (docs/rulebook/tank_killers.md) ----------------------------------------------
K = "tank_killers"
KT, KG, KS = "cards-tactics.yaml", "cards-german.yaml", "scenarios/german-vs-american.yaml"
T45 = '    number: 45\n    name: {en: "Forward Observer", ja: "前線観測員"}\n    category: command\n    fields: {effect: "free_action"}'
PZIV = 'fields: {pen: 9, inf: 4, def: 6, rng: "2000"}, copies: 6}'
CATEGORY_FIRST = {
    "range": (1, 6),
    "hit": (7, 11),
    "ammo": (12, 18),
    "damage": (19, 23),
    "morale": (24, 32),
    "protection": (33, 35),
    "logistics": (36, 43),
    "mine": (44, 44),
    "command": (45, 69),
    "maneuver": (70, 76),
    "terrain": (77, 92),
}


# card 14 numbered out of range: its ammo block and the numbered deck (out of range, #14 missing,
# reported at #15) see it too
TACTICS_14_OUT = (
    (KT, "# moved", "ammo-card-numbers"),
    (KT, "# moved", "tactics-numbers"),
    (KT, "    number: 15", "tactics-numbers"),
)


# the nation-only cards are checked by number: a card moved onto one of these numbers breaks it
NATION_ONLY = {n: "german-only-cards" for n in (15, 32, 74)} | {
    n: "anglo-only-cards" for n in (16, 38, 48, 51)
}


def _category(number: int) -> str:
    return next(c for c, (low, high) in CATEGORY_FIRST.items() if low <= number <= high)


def _renumber(rule: str, number: int, new: int) -> Case:
    """Cards `number` and `new` swap numbers: each lands in the other's category block, and the
    Tactics deck still holds every number once (`tactics-numbers` stays silent)."""
    extra = [(KT, "# swapped", f"{_category(new)}-card-numbers")]
    extra += [(KT, "# moved", NATION_ONLY[number])] if number in NATION_ONLY else []
    extra += [(KT, "# swapped", NATION_ONLY[new])] if new in NATION_ONLY else []
    return brk(
        K,
        rule,
        KT,
        f"    number: {number}\n",
        f"    number: {new}  # moved\n",
        (KT, "# moved"),
        extra=tuple(extra),
        more=((KT, f"    number: {new}\n", f"    number: {number}  # swapped\n"),),
    )


TANK_KILLERS = [
    brk(
        K,
        "deck-size",
        KG,
        PZIV,
        PZIV.replace("copies: 6", "copies: 7"),
        ("decks.yaml", "id: german-formation"),
    ),
    brk(
        K,
        "deck-size",
        KG,
        PZIV,
        PZIV.replace("copies: 6", "copies: 5"),
        ("decks.yaml", "id: german-formation"),
        variant="fewer",
    ),
    brk(
        K,
        "hand-size",
        KS,
        "{side: german, decks: [german-formation, tactics], hand: 3}",
        "{side: german, decks: [german-formation, tactics], hand: 4}",
    ),
    brk(
        K,
        "tactics-category",
        KT,
        '    category: ammo\n    fields: {effect: "modifier", stat: "pen_and_inf"',
        '    category: ammunition\n    fields: {effect: "modifier", stat: "pen_and_inf"',
        (KT, "category: ammunition"),
    ),
    brk(
        K,
        "tactics-number",
        KT,
        "    number: 14\n",
        "    number: 93  # moved\n",
        (KT, "# moved"),
        extra=TACTICS_14_OUT,
    ),
    brk(
        K,
        "tactics-number",
        KT,
        "    number: 14\n",
        "    number: 0  # moved\n",
        (KT, "# moved"),
        variant="below-1",
        extra=TACTICS_14_OUT,
    ),
    brk(
        K,
        "tactics-effect",
        KT,
        'fields: {effect: "modifier", stat: "pen_and_inf"',
        'fields: {effect: "bonus", stat: "pen_and_inf"',
        (KT, 'effect: "bonus"'),
    ),
    brk(
        K,
        "tactics-modifier-stat",
        KT,
        'fields: {effect: "modifier", stat: "pen_and_inf"',
        'fields: {effect: "modifier", stat: "def"',
        (KT, 'stat: "def"'),
    ),
    brk(
        K,
        "range-card-band",
        KT,
        'value_known: false, range_band: "PB"}',
        'value_known: false, range_band: "400"}',
    ),
    brk(
        K,
        "same-unit-is-free-action",
        KT,
        '    number: 47\n    name: {en: "Quick Kill", ja: "クイックキル"}\n    category: command\n'
        '    fields: {effect: "free_action", same_unit: true}',
        '    number: 47\n    name: {en: "Quick Kill", ja: "クイックキル"}\n    category: command\n'
        '    fields: {effect: "ooa", same_unit: true}',
        (KT, 'effect: "ooa", same_unit'),
    ),
    brk(
        K,
        "nation-restriction",
        KT,
        'stat: "pen", value: 5, nation: "german"',
        'stat: "pen", value: 5, nation: "soviet"',
    ),
    brk(
        K,
        "formation-type-code",
        KG,
        "{id: de-pzivh, deck: german-formation, name: {en: PzIVh, ja: IV号H型}, type: MT,",
        "{id: de-pzivh, deck: german-formation, name: {en: PzIVh, ja: IV号H型}, type: ST,",
    ),
    brk(
        K,
        "formation-card-class",
        KG,
        "name: {en: PzIVh, ja: IV号H型}, type: MT, category: unit,",
        "name: {en: PzIVh, ja: IV号H型}, type: MT, category: vehicle,",
    ),
    brk(
        K,
        "support-types",
        KG,
        "ja: 150mm歩兵砲}, type: Art, category: support,",
        "ja: 150mm歩兵砲}, type: Art, category: unit,",
    ),
    brk(K, "unit-def", KG, PZIV, PZIV.replace("def: 6", "def: 0")),
    edge(K, "unit-def", KG, PZIV, PZIV.replace("def: 6", "def: 1")),
    brk(K, "unit-rng", KG, PZIV, PZIV.replace('rng: "2000"', 'rng: "2500"')),
    brk(K, "formation-pen-factor", KG, PZIV, PZIV.replace("pen: 9", "pen: -1")),
    edge(K, "formation-pen-factor", KG, PZIV, PZIV.replace("pen: 9", "pen: 0")),
    brk(K, "formation-inf-factor", KG, PZIV, PZIV.replace("inf: 4", "inf: 4.5")),
    edge(K, "formation-inf-factor", KG, PZIV, PZIV.replace("inf: 4", "inf: 0")),
    brk(
        K,
        "card-copies",
        KG,
        PZIV,
        PZIV.replace("copies: 6", "copies: 0"),
        extra=(("decks.yaml", "id: german-formation", "deck-size"),),
    ),
    brk(
        K,
        "same-unit-cards",
        KT,
        T45,
        T45.replace('"free_action"}', '"free_action", same_unit: true}'),
        (KT, "number: 45"),
    ),
    brk(
        K,
        "end-turn-cards",
        KT,
        T45,
        T45.replace('"free_action"}', '"end_turn"}'),
        (KT, "number: 45"),
    ),
    brk(
        K,
        "vs-support-cards",
        KT,
        T45,
        T45.replace('"free_action"}', '"free_action", vs_support_ok: true}'),
        (KT, "number: 45"),
    ),
    brk(
        K,
        "german-only-cards",
        KT,
        T45,
        T45.replace('"free_action"}', '"free_action", nation: "german"}'),
        (KT, "number: 45"),
    ),
    brk(
        K,
        "anglo-only-cards",
        KT,
        T45,
        T45.replace('"free_action"}', '"free_action", nation: "anglo"}'),
        (KT, "number: 45"),
    ),
    brk(
        K,
        "hand-size",
        "game.yaml",
        "    hand_limit: 9\n",
        "    hand_limit: 2\n",
        ("game.yaml", "starting_hand: 3"),
        variant="param",
    ),
    edge(
        K, "hand-size", "game.yaml", "    hand_limit: 9\n", "    hand_limit: 3\n", variant="param"
    ),
    brk(
        K,
        "tactics-numbers",
        KT,
        "    number: 14\n",
        "    number: 13  # moved\n",
        (KT, "# moved"),
        extra=((KT, "    number: 15", "tactics-numbers"),),
    ),
    brk(
        K,
        "tactics-numbers",
        KT,
        "    number: 92\n",
        "    number: 92\n    copies: 2\n",
        (KT, "copies: 2"),
        variant="copies",
    ),
    brk(
        K,
        "formation-decks-never-in-hand",
        "decks.yaml",
        "    side: german\n    kind: formation\n",
        "    side: german\n    kind: formation\n    hand: true  # dealt\n",
        ("decks.yaml", "hand: true  # dealt"),
    ),
    brk(
        K,
        "support-no-def",
        KG,
        'fields: {pen: 2, inf: 8, rng: "2000"}, copies: 2}',
        'fields: {pen: 2, inf: 8, def: 1, rng: "2000"}, copies: 2}',
    ),
    edge(
        K,
        "support-no-def",
        KG,
        'fields: {pen: 2, inf: 8, rng: "2000"}, copies: 2}',
        'fields: {pen: 2, inf: 8, rng: "500"}, copies: 2}',
    ),
    *(
        _renumber(f"{category}-card-numbers", low, low - 1 if low > 1 else high + 1)
        for category, (low, high) in CATEGORY_FIRST.items()
    ),
]


CASES: list[Case] = [*GCACW, *NAPOLEON, *ASIA, *TWILIGHT, *TANK_KILLERS]
BREAKS = [c for c in CASES if c.at is not None]
EDGES = [c for c in CASES if c.at is None]


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One writable copy of each seed game for the module; cases restore what they edit."""
    root = tmp_path_factory.mktemp("rulebook")
    out = {}
    for game in GAMES:
        shutil.copytree(SOURCES / game, root / game)
        out[game] = root / game
    return out


def _run(folder: Path, case: Case) -> set[tuple[str, int, str]]:
    originals: dict[Path, str] = {}
    try:
        for file, old, new in ((case.file, case.old, case.new), *case.more):
            path = folder / file
            text = path.read_text(encoding="utf-8")
            originals.setdefault(path, text)
            assert text.count(old) == 1, f"{old!r} must occur once in {file}"
            path.write_text(text.replace(old, new), encoding="utf-8")
        found = flat(folder, findings_of(folder))
        if case.at is None:
            return found
        expected = {
            (file, line_of(folder / file, needle), rule)
            for file, needle, rule in ((*case.at, case.rule), *case.extra)
        }
        assert found == expected, f"{case.id}: {sorted(found)} != {sorted(expected)}"
        return found
    finally:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("case", BREAKS, ids=[c.id for c in BREAKS])
def test_breaks(copies: dict[str, Path], case: Case) -> None:
    """One edit breaks the rule: exactly its finding (and the listed overlaps), at the line."""
    _run(copies[case.game], case)


@pytest.mark.parametrize("case", EDGES, ids=[c.id for c in EDGES])
def test_edge(copies: dict[str, Path], case: Case) -> None:
    """The largest (or smallest) value the rule allows: no finding for the rule."""
    found = _run(copies[case.game], case)
    assert not [f for f in found if f[2] == case.rule], sorted(found)
    assert not found, f"the edge edit gives other findings: {sorted(found)}"


@pytest.mark.parametrize("game", GAMES)
def test_seed_game_is_clean(copies: dict[str, Path], game: str) -> None:
    assert findings_of(copies[game]) == []


_TEST_NAME = re.compile(r"tests/test_rulebook\.py::(test_breaks|test_edge)\[([^\]]+)\]")
_RULE_ID = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)*)`")


def _doc_rows(game: str) -> Iterator[list[str]]:
    for line in (DOCS / f"{game}.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("§", "---"):
            yield cells


def _constraint_ids(game: str) -> set[str]:
    data = yaml.safe_load((SOURCES / game / "rules.yaml").read_text(encoding="utf-8"))
    return {c["id"] for c in data["constraints"]}


@pytest.mark.parametrize("game", GAMES)
def test_docs_name_real_tests(game: str) -> None:
    """docs/rulebook/<game>.md: every named test exists, every rule id is defined, every enforced
    row names a test, every left-out row gives a reason; every constraint and case is listed."""
    tests = {("test_breaks", c.id) for c in BREAKS} | {("test_edge", c.id) for c in EDGES}
    known = _constraint_ids(game) | {r.id for r in BUILTIN_RULES}
    listed: set[str] = set()
    for section, rule, enforced, last in _doc_rows(game):
        assert section and rule, (game, rule)
        named = set(_TEST_NAME.findall(last))
        assert named <= tests, f"{game}: no such test {sorted(named - tests)}"
        assert not enforced.startswith("pending:"), f"{game}: `{rule}` is still pending"
        ids = set(_RULE_ID.findall(enforced))
        if not ids:
            assert enforced == "—" and last, f"{game}: `{rule}` is left out without a reason"
            continue
        assert ids <= known, f"{game}: {sorted(ids - known)} is not a rule of {game}"
        assert named, f"{game}: `{rule}` names no breaking test"
        listed |= ids
    assert _constraint_ids(game) <= listed, sorted(_constraint_ids(game) - listed)
    assert {c.rule for c in CASES if c.game == game} <= listed
