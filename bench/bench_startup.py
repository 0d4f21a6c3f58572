"""Benchmark: what a user waits for before countermix does any real work.

Three whole processes, each the median of `--repeat` runs, printed beside a floor that does the
same work with plain Python and libraries, timed by turns in the same run:

- `countermix --version`: floor, the interpreter starting and exiting (`python -c pass`).
- `countermix validate GAME` of one small game (`tests/data/mini`): floor, a process that
  imports PyYAML and parses the same data files with its C loader.
- `countermix build` of every game under sources/ with nothing changed since the last build
  (the build stamps decide there is nothing to do): floor, a process that reads the same stamp
  files with `json` and stats every input and output they name (what deciding "up to date"
  cannot do without).

The tool and the seed games are a copy taken when the bench starts (bench.tool); the first
build into the temporary output folder (cold, every game drawn) is not timed.
Run: python -m bench.bench_startup [--repeat 7]
Goals (issue 13): --version <= 0.15 s, validate of a small game <= 0.4 s, nothing changed
<= 0.5 s (five games), each whole process.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from statistics import median

from bench.tool import ROOT, countermix, run_timed, snapshot

MINI = ROOT / "tests" / "data" / "mini"

YAML_FLOOR = """
import sys, yaml
from pathlib import Path
for path in sorted(Path(sys.argv[1]).rglob("*.yaml")):
    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
"""

STAMP_FLOOR = """
import json, os, sys
from pathlib import Path
for stamp in sorted(Path(sys.argv[1]).glob("*.json")):
    record = json.loads(stamp.read_bytes())
    for path, entry in record["inputs"].items():
        os.stat(path) if entry is not None else os.path.lexists(path)
    for where in record["folders"]:
        os.listdir(where)
    for name in os.listdir(record["target"]):
        os.stat(os.path.join(record["target"], name))
"""


def timed_pairs(
    tool: Path, mine: list[str], floor: list[str], repeat: int, expect: str = ""
) -> tuple[float, float]:
    """Median seconds of countermix's command and of its floor, run by turns."""
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeat):
        ours.append(run_timed(mine, tool, expect))
        theirs.append(run_timed(floor, tool))
    return median(ours), median(theirs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    python = sys.executable
    rows: list[tuple[str, float, float, float]] = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        sources = tool / "sources"
        run_timed(countermix("build", str(sources), "--out", str(out)), tool, "wrote")
        version = timed_pairs(
            tool, countermix("--version"), [python, "-c", "pass"], args.repeat, "countermix"
        )
        rows.append(("countermix --version", *version, 0.15))
        validate = timed_pairs(
            tool,
            countermix("validate", str(MINI)),
            [python, "-c", YAML_FLOOR, str(MINI)],
            args.repeat,
        )
        rows.append(("validate tests/data/mini", *validate, 0.4))
        stamps = out / ".cache" / ".stamps"
        nothing = timed_pairs(
            tool,
            countermix("build", str(sources), "--out", str(out)),
            [python, "-c", STAMP_FLOOR, str(stamps)],
            args.repeat,
            "up to date",
        )
        rows.append(("build, nothing changed (5 games)", *nothing, 0.5))
    write = sys.stdout.write
    write(f"whole process, median of {args.repeat} (s):\n")
    write(f"{'':>34}{'countermix':>12}{'floor':>10}{'ratio':>8}{'goal':>8}\n")
    for label, ours, floor, goal in rows:
        met = "met" if ours <= goal else "NOT met"
        write(f"{label:>34}{ours:>12.3f}{floor:>10.3f}{ours / floor:>7.1f}x{goal:>8.2f}  {met}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
