"""Benchmark: load and validate a generated game of 10,000 counters and 50 scenarios.

Run: python -m bench.bench_validate [--units-per-side 5000] [--scenarios 50] [--per-scenario 200]
Prints load and validate times and values per second. Target on a 2-core machine: < 2 s total.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from bench.generate_game import random_spec, write_game
from compiler.load.game import data_files, load_game
from compiler.load.yamlread import read_yaml
from compiler.rules.engine import validate


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
    return 0 if not findings else 1


if __name__ == "__main__":
    sys.exit(main())
