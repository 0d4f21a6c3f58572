"""Benchmark: load and validate a generated game, by size (500 / 2,000 / 8,000 counters).

Each size is a game of that many counters with one scenario of 200 placements per 200
counters (10 scenarios at 2,000). In process (the tool imported from a copy taken when the
bench starts): load and validate times, best of `--repeat`, with values and placements per
second; the time to lay out every face (the text-overflow check `countermix validate` runs);
and the in-process floor, PyYAML's C loader parsing the same files. Whole process: `countermix
validate GAME` (interpreter start, imports, YAML loading, the rules, the face layout), median of
`--repeat`, beside a fresh interpreter that only parses the same files with PyYAML's C loader
(no positions, no types, no rules).

Run: python -m bench.bench_validate [--sizes 500,2000,8000] [--quick] [--repeat 3]
     (the earlier default, 10,000 counters and 50 scenarios: --sizes 10000)
Target on a 2-core machine: < 2 s in process at 10,000 counters.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from bench.generate_game import random_spec, write_game
from bench.tool import countermix, environment, parse_sizes, snapshot

PER_SCENARIO = 200

FLOOR = """
import sys, yaml
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.yaml")):
    with open(path, "rb") as f:
        yaml.load(f, Loader=yaml.CSafeLoader)
"""
"""The same files parsed by PyYAML's C loader in a fresh interpreter: no positions, no types,
no rules (a floor for the whole process)."""


def _process_times(args: list[str], tool: Path, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, cwd=tool, env=environment(), check=False, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def _count_values(folder: Path) -> int:
    from compiler.load.game import data_files
    from compiler.load.yamlread import read_yaml

    total = 0
    for path in data_files(folder):
        node = read_yaml(str(path)).node
        stack = [node] if node is not None else []
        while stack:
            current = stack.pop()
            total += 1
            if isinstance(current.value, list):
                for item in current.value:
                    stack.extend(item if isinstance(item, tuple) else (item,))
    return total


def _parse_floor(folder: Path) -> None:
    import yaml

    for path in sorted(folder.rglob("*.yaml")):
        with path.open("rb") as handle:
            yaml.load(handle, Loader=yaml.CSafeLoader)


def measure(tool: Path, root: Path, size: int, repeat: int) -> dict[str, float]:
    from compiler.load.game import load_game
    from compiler.pipeline import face_findings
    from compiler.rules.engine import validate

    folder = root / f"game-{size}"
    scenarios = max(1, size // PER_SCENARIO)
    spec = random_spec(size // 2, scenarios, PER_SCENARIO, seed=1)
    write_game(folder, spec)
    row: dict[str, float] = {
        "size": len(spec.units),
        "scenarios": scenarios,
        "placements": sum(len(s) for s in spec.scenarios),
        "values": _count_values(folder),
    }
    loads: list[float] = []
    checks: list[float] = []
    floors: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        loaded = load_game(folder)
        loaded_at = time.perf_counter()
        assert loaded.game is not None, loaded.findings[:3]
        findings = loaded.findings + validate(loaded.game)
        done = time.perf_counter()
        loads.append(loaded_at - start)
        checks.append(done - loaded_at)
        start = time.perf_counter()
        _parse_floor(folder)
        floors.append(time.perf_counter() - start)
    row["findings"] = len(findings)
    assert loaded.game is not None
    start = time.perf_counter()
    row["overflow"] = len(face_findings(loaded.game, "en"))
    row["faces"] = time.perf_counter() - start
    row["load"], row["validate"] = min(loads), min(checks)
    row["total"] = min(a + b for a, b in zip(loads, checks, strict=True))
    row["floor"] = min(floors)
    whole = _process_times(countermix("validate", str(folder)), tool, repeat)
    floor = _process_times([sys.executable, "-c", FLOOR, str(folder)], tool, repeat)
    row["process"], row["process floor"] = median(whole), median(floor)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="counters, comma-separated")
    parser.add_argument("--quick", action="store_true", help="500 counters only")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out = sys.stdout.write
    rows = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        for size in parse_sizes(args.sizes, args.quick):
            row = measure(tool, Path(tmp), size, args.repeat)
            rows.append(row)
            out(
                f"counters: {row['size']:,.0f}  scenarios: {row['scenarios']:.0f}  "
                f"placements: {row['placements']:,.0f}  YAML values: {row['values']:,.0f}  "
                f"findings: {row['findings']:.0f}  text-overflow: {row['overflow']:.0f}\n"
                f"  load {row['load']:.3f} s ({row['values'] / row['load']:,.0f} values/s), "
                f"validate {row['validate']:.3f} s "
                f"({row['placements'] / row['validate']:,.0f} placements/s)\n"
            )
            sys.stdout.flush()
    out(
        f"\nin process (best of {args.repeat}) and whole process (median of {args.repeat}), "
        "seconds:\n"
    )
    out(
        f"{'counters':>9} | {'load':>6} {'valid.':>6} {'total':>6} {'faces':>6} | "
        f"{'C parse':>7} {'ratio':>6} | {'process':>7} {'floor':>6} {'ratio':>6}\n"
    )
    for row in rows:
        out(
            f"{row['size']:>9,.0f} | {row['load']:>6.3f} {row['validate']:>6.3f} "
            f"{row['total']:>6.3f} {row['faces']:>6.3f} | {row['floor']:>7.3f} "
            f"{row['total'] / row['floor']:>5.1f}x | {row['process']:>7.3f} "
            f"{row['process floor']:>6.3f} {row['process'] / row['process floor']:>5.1f}x\n"
        )
    out(
        "  total = load + validate; faces = laying out every face (in the process figure, not "
        "in total);\n  C parse = PyYAML's C loader on the same files in process; process = "
        "`countermix validate`,\n  start-up and face layout included; floor = a fresh "
        "interpreter parsing the same files with the C loader\n"
        "target: total < 2 s in process at 10,000 counters\n"
    )
    return 0 if all(row["findings"] == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
