"""Write a synthetic but rule-abiding game folder of any size.

Used by the validate benchmark (10,000 counters, 50 scenarios) and by the property-based tests,
which generate valid games and then break exactly one limit.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

SIDES = ("blue", "red")
MAX_MANPOWER = 18
CAP_DIVISIONS = 3


@dataclass
class UnitSpec:
    id: str
    side: str
    kind: str  # "division", "brigade", "artillery" or "leader"
    strength: int
    reduced: int
    formation: str


@dataclass
class Placement:
    unit: str
    hex: str
    manpower: int
    fatigue: int
    face: str = "front"


@dataclass
class GameSpec:
    units: list[UnitSpec]
    scenarios: list[list[Placement]]
    columns: int
    rows: int
    formations: dict[str, str] = field(default_factory=dict)  # formation id -> side


def hex_id(col: int, row: int) -> str:
    return f"{col:02d}.{row:02d}"


def _unit_line(u: UnitSpec) -> str:
    if u.kind == "leader":
        return (
            f"  - {{id: {u.id}, name: {u.id}, side: {u.side}, nationality: {u.side}land, "
            f"type: leader, leader: {{kind: corps, commands: {u.formation}}}}}\n"
        )
    size = {"division": "XX", "brigade": "X", "artillery": "III"}[u.kind]
    unit_type = "artillery" if u.kind == "artillery" else "infantry"
    back = "" if u.kind == "artillery" else f", back: {{strength: {u.reduced}, movement: 4}}"
    return (
        f"  - {{id: {u.id}, name: {{en: Unit {u.id}, ja: 部隊 {u.id}}}, side: {u.side}, "
        f"nationality: {u.side}land, type: {unit_type}, size: {size}, formation: {u.formation}, "
        f"front: {{strength: {u.strength}, movement: 4}}{back}, steps: 2}}\n"
    )


GAME_YAML = """\
game:
  id: generated
  title: {en: Generated War, ja: 生成戦争}
  notes: Synthetic data for benchmarks and property tests.
  sides:
    - {id: blue, name: Blue, colour: "#3050c0"}
    - {id: red, name: Red, colour: "#c03030"}
  nationalities:
    - {id: blueland, name: Blueland, side: blue, colour: "#a0b0f0"}
    - {id: redland, name: Redland, side: red, colour: "#f0a0a0"}
  dice: [{id: 1d6}]
  turns:
%(turns)s
  values:
    - {id: strength, name: Strength}
    - {id: movement, name: Movement}
    - {id: manpower, name: Manpower}
    - {id: fatigue, name: Fatigue}
  terrain:
    - {id: clear, name: Clear}
  params: {max_manpower: %(max_manpower)d}
"""

RULES_YAML = """\
constraints:
  - {id: max-manpower, kind: value-range, title: Manpower within the maximum, ref: "2.2",
     target: setup, path: state.manpower, where: {category: combat}, min: 1, max: $max_manpower}
  - {id: fatigue-range, kind: value-range, title: Fatigue 0 to 4, ref: "2.2", target: setup,
     path: state.fatigue, min: 0, max: 4, integer: true}
  - {id: reduced-not-stronger, kind: field-compare, title: Reduced side not stronger, ref: "3.4",
     left: back.strength, op: "<=", right: front.strength}
  - id: stacking-limit
    kind: stacking
    title: At most 3 division equivalents and 2 artillery per hex
    ref: "4.2"
    caps:
      - name: division equivalents
        max: %(cap)d
        weights:
          - {where: {size: XX, face: front}, weight: 1}
          - {where: {size: [XX, X]}, weight: 0.5}
      - name: artillery units
        max: 2
        weights: [{where: {type: artillery}, weight: 1}]
  - {id: no-mixed-stacks, kind: mixed-sides, title: One side per hex, ref: "4.2"}
  - {id: leader-with-troops, kind: stack-with, title: Leaders stack with their troops, ref: "2.2",
     where: {category: leader}, partner: {category: combat}, subordinate: true}
  - {id: strength-markers, kind: marker-supply, title: Enough strength markers, ref: "2.2",
     state: manpower, markers: strength}
"""


def write_game(folder: Path, spec: GameSpec, turns: int = 20, marker_copies: int = 200) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scenarios").mkdir(exist_ok=True)
    turn_lines = "\n".join(f"    - {{n: {n}}}" for n in range(1, turns + 1))
    (folder / "game.yaml").write_text(
        GAME_YAML % {"turns": turn_lines, "max_manpower": MAX_MANPOWER}, encoding="utf-8"
    )
    (folder / "rules.yaml").write_text(RULES_YAML % {"cap": CAP_DIVISIONS}, encoding="utf-8")
    (folder / "map.yaml").write_text(
        "maps:\n  - id: main\n    name: Main\n    kind: hex\n    grid:\n"
        '      id_format: "{col:02d}.{row:02d}"\n'
        f"      sheets: [{{id: A, columns: [1, {spec.columns}], rows: [1, {spec.rows}]}}]\n",
        encoding="utf-8",
    )
    parts = [
        "unit_types:\n  - {id: infantry, name: Infantry, symbol: infantry}\n"
        "  - {id: artillery, name: Artillery, symbol: artillery}\n"
        "  - {id: leader, name: Leader, category: leader, symbol: leader}\n",
        "formations:\n",
    ]
    parts += [
        f"  - {{id: {fid}, name: {fid}, side: {side}, level: division}}\n"
        for fid, side in spec.formations.items()
    ]
    parts.append(
        "markers:\n  - {id: strength, name: Strength, kind: strength, "
        f"values: [{', '.join(str(v) for v in range(1, 22))}], copies: {marker_copies}}}\n"
    )
    parts.append("units:\n")
    parts += [_unit_line(u) for u in spec.units]
    (folder / "units.yaml").write_text("".join(parts), encoding="utf-8")
    for index, placements in enumerate(spec.scenarios, start=1):
        lines = [
            f"scenarios:\n  - id: s{index}\n    name: Scenario {index}\n"
            f"    last_turn: {turns}\n    setup:\n"
        ]
        for p in placements:
            face = "" if p.face == "front" else f", face: {p.face}"
            state = (
                f", state: {{manpower: {p.manpower}, fatigue: {p.fatigue}}}" if p.manpower else ""
            )
            lines.append(f"      - {{at: {p.hex}, unit: {p.unit}{face}{state}}}\n")
        (folder / "scenarios" / f"s{index}.yaml").write_text("".join(lines), encoding="utf-8")


def random_spec(units_per_side: int, scenarios: int, per_scenario: int, seed: int) -> GameSpec:
    """A valid game: divisions, brigades, artillery and leaders; one unit per hex per scenario,
    leaders with a unit of their own division."""
    rng = random.Random(seed)
    units: list[UnitSpec] = []
    formations: dict[str, str] = {}
    for side in SIDES:
        for n in range(units_per_side):
            formation = f"{side}-div-{n // 10}"
            formations[formation] = side
            kind = "leader" if n % 10 == 0 else rng.choice(("division", "brigade", "artillery"))
            strength = rng.randint(1, 9)
            units.append(
                UnitSpec(f"{side}-{n}", side, kind, strength, rng.randint(0, strength), formation)
            )
    side_units = math.ceil(per_scenario / 2)
    columns = max(10, math.ceil(math.sqrt(side_units * 2)) * 2)
    rows = columns
    all_scenarios = [_scenario(rng, units, per_scenario, columns, rows) for _ in range(scenarios)]
    return GameSpec(units, all_scenarios, columns, rows, formations)


def _scenario(
    rng: random.Random, units: list[UnitSpec], count: int, columns: int, rows: int
) -> list[Placement]:
    combat = [u for u in units if u.kind != "leader"]
    chosen = rng.sample(combat, min(count, len(combat)))
    cells = rng.sample(
        [(c, r) for c in range(1, columns + 1) for r in range(1, rows + 1)], len(chosen)
    )
    placements = [
        Placement(u.id, hex_id(c, r), rng.randint(1, MAX_MANPOWER), rng.randint(0, 4))
        for u, (c, r) in zip(chosen, cells, strict=True)
    ]
    leaders = {u.formation: u for u in units if u.kind == "leader"}
    for placement, unit in zip(list(placements), chosen, strict=True):
        leader = leaders.pop(unit.formation, None)
        if leader is not None:
            placements.append(Placement(leader.id, placement.hex, 0, 0))
    return placements
