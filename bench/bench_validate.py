"""Benchmark: load and validate a generated game of 10,000 counters and 50 scenarios.

Run: python -m bench.bench_validate [--units-per-side 5000] [--scenarios 50] [--per-scenario 200]
Prints load and validate times and values per second, the time to lay out every face (the
text-overflow check `countermix validate` runs), and what a user waits for: the whole
`countermix validate` process, start-up included, beside a floor that only parses the same
files with PyYAML's C loader. Target on a 2-core machine: < 2 s in process.
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
from compiler.load.game import data_files, load_game
from compiler.load.yamlread import read_yaml
from compiler.pipeline import face_findings
from compiler.rules.engine import validate

FLOOR = """
import sys, yaml
from compiler.load.game import data_files
from pathlib import Path
for path in data_files(Path(sys.argv[1])):
    with open(path, "rb") as f:
        yaml.load(f, Loader=yaml.CSafeLoader)
"""
"""The same files parsed by PyYAML's C loader in a fresh interpreter: no positions, no types,
no rules (a floor for the whole process)."""


def _process_times(args: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=False, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def _count_values(folder: Path) -> int:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--units-per-side", type=int, default=5000)
    parser.add_argument("--scenarios", type=int, default=50)
    parser.add_argument("--per-scenario", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "generated"
        spec = random_spec(args.units_per_side, args.scenarios, args.per_scenario, seed=1)
        write_game(folder, spec)
        values = _count_values(folder)
        loads: list[float] = []
        checks: list[float] = []
        findings = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            loaded = load_game(folder)
            loaded_at = time.perf_counter()
            assert loaded.game is not None, loaded.findings[:3]
            findings = loaded.findings + validate(loaded.game)
            done = time.perf_counter()
            loads.append(loaded_at - start)
            checks.append(done - loaded_at)
        faces_start = time.perf_counter()
        assert loaded.game is not None
        overflow = face_findings(loaded.game, "en")
        faces = time.perf_counter() - faces_start
        command = [sys.executable, "-m", "compiler", "validate", str(folder)]
        whole = _process_times(command, args.repeat)
        floor = _process_times([sys.executable, "-c", FLOOR, str(folder)], args.repeat)
    placements = sum(len(s) for s in spec.scenarios)
    totals = [a + b for a, b in zip(loads, checks, strict=True)]
    out = sys.stdout.write
    out(
        f"counters: {len(spec.units):,}  scenarios: {len(spec.scenarios)}  "
        f"placements: {placements:,}  YAML values: {values:,}  findings: {len(findings)}\n"
    )
    load, check = min(loads), min(checks)
    out(
        f"load:     {load:6.3f} s best, {median(loads):6.3f} s median  "
        f"({values / load:,.0f} values/s)\n"
    )
    out(
        f"validate: {check:6.3f} s best, {median(checks):6.3f} s median  "
        f"({placements / check:,.0f} placements/s)\n"
    )
    out(
        f"total:    {min(totals):6.3f} s best, {median(totals):6.3f} s median  "
        f"(target < 2 s; {args.repeat} runs)\n"
    )
    out(f"faces:    {faces:6.3f} s to lay out every face ({len(overflow)} text-overflow)\n")
    out(
        f"process:  {min(whole):6.3f} s best, {median(whole):6.3f} s median  "
        f"`countermix validate`, start-up and face layout included\n"
    )
    out(
        f"floor:    {min(floor):6.3f} s best, {median(floor):6.3f} s median  "
        f"PyYAML C loader on the same files, start-up included "
        f"(ratio {median(whole) / median(floor):.1f}x)\n"
    )
    return 0 if not findings else 1


if __name__ == "__main__":
    sys.exit(main())
