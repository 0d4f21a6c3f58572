"""Benchmark: `countermix build --watch`, from one unit edited to the rebuild's output line.

For each size a game is generated (bench.generate_game: two scenarios of size/10 placements)
and built once cold with `countermix build GAME --out X`. The floor is then a plain rebuild
with one unit's front movement changed, a whole process (`countermix build`: interpreter start,
imports, YAML, validation, every back end), `--repeat` rounds, a different unit each time.
Then `countermix build --watch GAME --out X` is started (its first build writes watch.js, so it
builds once, warm), and in `--repeat` rounds one unit is changed and the time from the end of
the file write until the process prints `GAME: wrote …` is taken: the process is already
running, which is what a user of --watch waits for. The tool is run from a copy of
`compiler/` (bench.tool).

Run: python -m bench.bench_watch [--sizes 500,2000] [--repeat 5] [--quick]
Goal (issue 15): about a second from the edit to the rebuilt outputs at 500 and 2,000 counters.
"""

from __future__ import annotations

import argparse
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median
from typing import IO

from bench.generate_game import random_spec, write_game
from bench.tool import countermix, environment, parse_sizes, run_timed, snapshot

MOVEMENT = re.compile(
    r"(\{id: (?P<id>[a-z]+-\d+), name: \{en: Unit [^}]*\}.*?front: \{strength: \d, movement: )(\d)"
)
TIMEOUT = 600.0
"""Seconds a watched rebuild (or the first build) may take before the bench gives up."""


def make_game(root: Path, size: int) -> tuple[Path, list[str]]:
    """A generated game of `size` counters and the units whose movement can change."""
    folder = root / f"game-{size}"
    placed = max(10, size // 10)
    write_game(folder, random_spec(size // 2, 2, placed, seed=11), marker_copies=placed // 6 + 5)
    text = (folder / "units.yaml").read_text(encoding="utf-8")
    return folder, [match.group("id") for match in MOVEMENT.finditer(text)]


def change_unit(folder: Path, units: list[str], round_no: int) -> None:
    """One unit's front movement set to a value it does not have (movement is in no rule)."""
    unit = units[(round_no * 37 + 11) % len(units)]
    path = folder / "units.yaml"

    def bump(match: re.Match[str]) -> str:
        if match.group("id") != unit:
            return match.group(0)
        return match.group(1) + str(int(match.group(3)) % 9 + 1)

    path.write_text(MOVEMENT.sub(bump, path.read_text(encoding="utf-8")), encoding="utf-8")


class Lines:
    """A child's output lines as they come, each with the time it was read."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.every: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.every.append(line)
            self.lines.put((time.perf_counter(), line))

    def wait_for(self, needle: str, timeout: float = TIMEOUT) -> float:
        """The time the first line holding `needle` was read; exits after `timeout`."""
        ends = time.perf_counter() + timeout
        while True:
            try:
                read, line = self.lines.get(timeout=max(0.01, ends - time.perf_counter()))
            except queue.Empty:
                raise SystemExit(f"no line with {needle!r} in {timeout:.0f} s") from None
            if needle in line:
                return read
            if "not built" in line:
                raise SystemExit(f"the watched build failed: {line}")


def plain_rounds(tool: Path, folder: Path, units: list[str], out: Path, repeat: int) -> list[float]:
    """A plain whole-process rebuild after one unit changed, `repeat` times."""
    command = countermix("build", str(folder), "--out", str(out))
    times = []
    for round_no in range(repeat):
        change_unit(folder, units, round_no)
        times.append(run_timed(command, tool, expect="wrote"))
    return times


STAGE_TIME = re.compile(r"^\S+: (?P<stage>[a-z]+)\b.*\((?P<seconds>\d+\.\d+) s\)$")


def watched_rounds(
    tool: Path, folder: Path, units: list[str], out: Path, repeat: int, first: int
) -> tuple[list[float], dict[str, list[float]]]:
    """From one unit written to `GAME: wrote` under a running `build --watch -v`, `repeat`
    times; and each round's stage times, as the watch reports them (-v)."""
    command = countermix("build", str(folder), "--out", str(out), "--watch", "-v")
    child = subprocess.Popen(
        command,
        cwd=tool,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    out_lines, err_lines = Lines(child.stdout), Lines(child.stderr)
    try:
        out_lines.wait_for(": wrote ")
        err_lines.wait_for("watching")
        times = []
        stages: dict[str, list[float]] = {}
        for round_no in range(first, first + repeat):
            time.sleep(0.5)  # quiet files, as between two edits
            said = len(err_lines.every)
            change_unit(folder, units, round_no)
            written = time.perf_counter()
            times.append(out_lines.wait_for(": wrote ") - written)
            for line in err_lines.every[said:]:
                if found := STAGE_TIME.match(line.strip()):
                    stages.setdefault(found["stage"], []).append(float(found["seconds"]))
        child.send_signal(signal.SIGINT)
        if child.wait(timeout=60) != 130:
            raise SystemExit(f"--watch ended with {child.returncode}, not 130, after Ctrl-C")
        return times, stages
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="500 counters, 3 rounds")
    args = parser.parse_args()
    sizes = parse_sizes(args.sizes, args.quick)
    repeat = 3 if args.quick else args.repeat
    write = sys.stdout.write
    rows = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            folder, units = make_game(Path(tmp), size)
            out = Path(tmp) / f"out-{size}"
            cold = run_timed(countermix("build", str(folder), "--out", str(out)), tool, "wrote")
            plain = plain_rounds(tool, folder, units, out, repeat)
            watched, stages = watched_rounds(tool, folder, units, out, repeat, first=repeat)
            rows.append((size, cold, plain, watched))
            split = ", ".join(f"{name} {median(times):.3f}" for name, times in stages.items())
            write(f"  {size:>6,} counters, watched rebuild by stage (median s): {split}\n")
            write(
                f"  {size:>6,} counters: cold {cold:.2f} s; plain rebuild median "
                f"{median(plain):.3f} s; watched median {median(watched):.3f} s\n"
            )
    write(f"\none unit changed, seconds (median and best of {repeat}):\n")
    write(f"{'counters':>10}{'--watch median':>16}{'best':>8}{'plain build':>13}")
    write(f"{'best (floor)':>14}{'watch/plain':>13}\n")
    for size, _cold, plain, watched in rows:
        ratio = median(watched) / median(plain)
        write(
            f"{size:>10,}{median(watched):>16.3f}{min(watched):>8.3f}{median(plain):>13.3f}"
            f"{min(plain):>14.3f}{ratio:>12.2f}x\n"
        )
    write("--watch: from the end of the file write to the `wrote` line (process running);\n")
    write("plain build: a whole `countermix build` process after the same kind of change\n")
    write("goal: about a second at 500 and 2,000 counters\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
