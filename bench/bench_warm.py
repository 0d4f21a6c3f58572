"""Benchmark: a rebuild after one unit changed, by game size (500 / 2,000 / 8,000 counters).

For each size a game is generated (bench.generate_game: two scenarios of size/10 placements,
one marker set with copies enough for them), built once cold with `countermix build <game>
--out X`, then one unit's front movement is changed and the game rebuilt as a whole process
(`python -m compiler build`: interpreter start, imports, YAML loading, validation, every back
end; SVG faces, the default), a different unit each round; the median of `--repeat` rounds
is printed. The in-process split (load, validate, aids, faces, charts, module, sheets,
preview, write) is from one more warm round run in this process, timed from the build's own progress
calls; before the first size's, one round of that size is run untimed (a process's first build
pays once for what any build needs: the smallest game's split would carry it, and the growth by
size would read smaller than it is). Beside it, what each counter beyond the smallest game adds,
stage by stage, and what the 1.5x goal allows a counter to add to the whole process. The
tool is run and imported from a copy of `compiler/` (with `templates/`) taken when the bench
starts (bench.tool).

The floor (bench.warm_floor), timed by turns with countermix's rounds as a whole process, is
the same rebuild done with plain libraries and nothing more: the game's YAML parsed with
PyYAML's C loader, the changed unit's face drawn once with Pillow, and every output file of
the build written again (the same bytes). The ratio to it is the figure to trust on a noisy
machine.

`--compare REF` also times the same rounds with the countermix of git revision REF (extracted
with `git archive` into a temporary folder and run from there), round by round in turns with
the tool of now, so a before/after table comes from one run on the same machine state.

Beside the wall time each warm round's CPU time is printed (user + system of the build and
its workers, from `getrusage`), and the share of the CPU the host took from this machine
while the rounds ran (the "steal" of /proc/stat, on Linux): on a shared virtual machine the
wall time swings with it, the CPU time much less.

Run: python -m bench.bench_warm [--sizes 500,2000,8000] [--repeat 3] [--compare HEAD]
Goal (issue 13): one unit changed <= 0.6 s whole process at 2,000 counters, and the sizes
within 1.5x of each other.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import chdir
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING

from bench.generate_game import random_spec, write_game
from bench.tool import byte_compile, snapshot

if TYPE_CHECKING:  # the tool is imported from its copy, once the bench has taken it
    from compiler.pipeline import Progress

ROOT = Path(__file__).resolve().parent.parent
STRENGTH = re.compile(
    r"(\{id: (?P<id>[a-z]+-\d+), name: \{en: Unit [^}]*\}.*?front: \{strength: \d, movement: )(\d)"
)


@dataclass
class Game:
    size: int
    folder: Path
    units: list[str]
    """Units whose front movement can be changed (not leaders)."""


def make_game(root: Path, size: int) -> Game:
    folder = root / f"game-{size}"
    placed = max(10, size // 10)
    spec = random_spec(size // 2, 2, placed, seed=11)
    write_game(folder, spec, marker_copies=placed // 6 + 5)  # enough for every scenario
    text = (folder / "units.yaml").read_text(encoding="utf-8")
    units = [m.group("id") for m in STRENGTH.finditer(text)]
    return Game(size, folder, units)


def change_unit(game: Game, round_no: int) -> None:
    """Set one unit's front movement to a value it does not have (a different unit each round,
    spread over the file; movement is in no rule, so the game stays valid)."""
    unit = game.units[(round_no * 37 + 11) % len(game.units)]
    path = game.folder / "units.yaml"
    text = path.read_text(encoding="utf-8")

    def bump(match: re.Match[str]) -> str:
        if match.group("id") != unit:
            return match.group(0)
        value = int(match.group(3))
        return match.group(1) + str(value % 9 + 1)  # 4 -> 5 -> 6 ...

    path.write_text(STRENGTH.sub(bump, text), encoding="utf-8")


def build_process(source: Path, game: Game, out: Path) -> tuple[float, float]:
    """`countermix build <game> --out <out>` as a whole process with the tool at `source`:
    (wall s, CPU s of the process and the workers it waited for)."""
    command = [sys.executable, "-m", "compiler", "build", str(game.folder), "--out", str(out)]
    before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    cpu = _children_cpu() - before
    if done.returncode != 0 or "wrote" not in done.stdout:
        raise SystemExit(f"build failed ({source}):\n{done.stdout}\n{done.stderr}")
    return elapsed, cpu


def _children_cpu() -> float:
    """User + system seconds of this process's waited-for children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_ticks() -> tuple[int, int]:
    """(all ticks, stolen ticks) of the machine's CPUs so far (/proc/stat); (0, 0) where
    there is no such file."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return 0, 0
    ticks = [int(field) for field in fields]
    return sum(ticks[:8]), (ticks[7] if len(ticks) > 7 else 0)


@dataclass
class Side:
    """One tool's game and output folder at one size, and its timings so far (s)."""

    source: Path
    game: Game
    out: Path
    cold: float = 0.0
    runs: list[tuple[float, float]] = field(default_factory=list)
    """Each warm round's (wall, CPU)."""
    floors: list[tuple[float, float]] = field(default_factory=list)
    """The floor's (whole process, in process) after each round, for the tool of now."""


@dataclass
class Rounds:
    """One size's figures: the cold build, the median warm rebuild (wall and CPU) and (when
    timed) the median floor, whole process and in process (s)."""

    cold: float
    warm: float
    warm_cpu: float
    floor: float = 0.0
    floor_in_process: float = 0.0

    @classmethod
    def of(cls, side: Side) -> Rounds:
        wall, cpu = (median(run[i] for run in side.runs) for i in (0, 1))
        if not side.floors:
            return cls(side.cold, wall, cpu)
        floor, floor_in = (median(run[i] for run in side.floors) for i in (0, 1))
        return cls(side.cold, wall, cpu, floor, floor_in)


def warm_rounds(sides: dict[str, Side], repeat: int, floor: Path) -> dict[str, Rounds]:
    """Cold builds, then `repeat` rounds of one unit changed, the tools taking turns within
    each round (the same unit in each tool's copy of the game), the floor's process after
    the tool of now."""
    for side in sides.values():
        side.cold = build_process(side.source, side.game, side.out)[0]
    for round_no in range(repeat):
        for label, side in sides.items():
            change_unit(side.game, round_no)
            side.runs.append(build_process(side.source, side.game, side.out))
            if label == "now":
                side.floors.append(floor_process(side.game, side.out, floor))
    return {label: Rounds.of(side) for label, side in sides.items()}


def floor_process(game: Game, out: Path, scratch: Path) -> tuple[float, float]:
    """bench.warm_floor as a whole process on the game and its last build's outputs: (whole
    process s, in process s)."""
    from compiler.backends.art.fonts import REGULAR, font_path

    outputs = next(path for path in out.iterdir() if path.is_dir() and path.name[0] != ".")
    scratch.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "bench.warm_floor",
        str(game.folder),
        str(outputs),
        str(scratch),
        str(font_path(REGULAR)),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the floor failed:\n{done.stdout}\n{done.stderr}")
    return elapsed, sum(json.loads(done.stdout).values())


def split(game: Game, out: Path, round_no: int, source: Path) -> dict[str, float]:
    """One warm rebuild in this process, as `countermix build` runs it (`build_games`, stamp
    included), timed stage by stage from the build's own progress calls: each call starts the
    stage it names, or ends it (done == total); what runs after validation and before the
    faces is "aids" (the player aids made), after another stage "write" (the outputs swapped
    in, the stamp). Start-up and imports are left out (the whole-process figure has them).
    It runs in the working folder the whole-process builds ran in (`source`, the tool's): the
    preview's kept runs are made for a working folder (their links may be relative to it),
    and from another one each run was made again, timed as if a warm build did that."""
    _import_back_ends()  # imported by the whole process's figure, not timed here
    change_unit(game, round_no)
    times: dict[str, float] = {}
    current = "start"
    mark = time.perf_counter()

    def progress(_game: str, stage: str, done: int, total: int) -> None:
        nonlocal current, mark
        now = time.perf_counter()
        times[current] = times.get(current, 0.0) + now - mark
        over = total > 0 and done == total  # what follows belongs to no stage
        gap = "aids" if stage == "validate" else "write"  # the player aids; the swap, stamp
        current, mark = (gap if over else stage), now

    rebuild_in_process(game, out, source, progress)
    progress("", "write", 0, 0)
    times.pop("start", None)  # the stamp check before loading
    return times


def rebuild_in_process(
    game: Game, out: Path, source: Path, progress: Progress | None = None
) -> None:
    """Build `game` into `out` in this process as `countermix build` builds it (`build_games`,
    the cyclic collector frozen: compiler.cli), in the working folder `source` (the tool's:
    the preview's kept runs are made for a working folder); exits when the build fails."""
    from compiler.gcpause import no_cyclic_gc
    from compiler.pipeline import build_games, no_progress

    with chdir(source), no_cyclic_gc(frozen=True):
        built = list(build_games([game.folder], out, {}, progress=progress or no_progress))
    if not built or built[0].written is None:
        raise SystemExit(f"the in-process rebuild of {game.folder.name} failed: {built}")


def _import_back_ends() -> None:
    """Import what a build imports before the split is timed: the first split of a run would
    otherwise count the back ends' imports in its stages (they are in the whole-process
    figure)."""
    import jinja2  # noqa: F401  # the player aids import it when they render

    import compiler.backends.charts.build
    import compiler.backends.preview.build
    import compiler.backends.sheets.build
    import compiler.backends.vassal.module
    import compiler.load.aids
    import compiler.rules.engine  # noqa: F401


def extract(revision: str, into: Path) -> Path:
    """The tree of `revision` (git archive), to run the tool of that revision from."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", revision, "compiler", "templates"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    (into / "templates").rename(into / "compiler" / "templates")  # as the package has them
    byte_compile(into / "compiler")  # as the tool of now is (bench.tool)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", metavar="REF", help="also time the tool of git revision REF")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    out = sys.stdout.write
    results: dict[str, dict[int, Rounds]] = {}
    splits: dict[int, dict[str, float]] = {}
    # the tool as it is now, copied (bench.tool): others editing the art code meanwhile would
    # change the renderer's fingerprint between rounds (every face drawn again)
    with snapshot() as now, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sources = {"now": now}
        if args.compare:
            sources = {args.compare: extract(args.compare, root / "before"), "now": now}
        ticks_before = _cpu_ticks()
        for size in sizes:
            sides = {
                label: Side(source, make_game(root / label, size), root / label / f"out-{size}")
                for label, source in sources.items()
            }
            for label, done in warm_rounds(sides, args.repeat, root / "floor").items():
                results.setdefault(label, {})[size] = done
                out(
                    f"  {label:>8} {size:>6,} counters: cold {done.cold:.2f} s, "
                    f"warm {done.warm:.3f} s ({done.warm_cpu:.3f} s CPU)\n"
                )
            now_side = sides["now"]
            if not splits:  # the process's first build pays what any first build does once
                split(now_side.game, now_side.out, args.repeat + 1, now_side.source)  # untimed
            splits[size] = split(now_side.game, now_side.out, args.repeat, now_side.source)
        ticks_after = _cpu_ticks()
    out(f"\none unit changed, whole process (`countermix build`), median of {args.repeat}:\n")
    head = "".join(f"{size:>10,}" for size in sizes)
    out(f"{'':>22}{head}   largest/smallest\n")
    for label, by_size in results.items():
        for kind in ("cold", "warm", "warm_cpu"):
            name = f"{label} {kind.replace('_', ' ')}"
            _row(name, [getattr(by_size[size], kind) for size in sizes])
    floors = [results["now"][size].floor for size in sizes]
    _row("floor", floors)
    warm = [results["now"][size].warm for size in sizes]
    ratios = "".join(f"{w / f:>9.2f}x" for w, f in zip(warm, floors, strict=True))
    out(f"{'now warm / floor':>22}{ratios}\n")
    out("goal: warm <= 0.6 s at 2,000 counters, largest/smallest <= 1.5x\n")
    total_ticks = ticks_after[0] - ticks_before[0]
    if total_ticks > 0:
        stolen = 100 * (ticks_after[1] - ticks_before[1]) / total_ticks
        out(f"CPU taken by the host (steal) while the builds ran: {stolen:.1f}%\n")
    out(
        "floor: the game's YAML parsed with PyYAML's C loader, one face drawn with Pillow, "
        "every output file written again (bench.warm_floor)\n"
    )
    steps = list(dict.fromkeys(name for times in splits.values() for name in times))
    grows = len(sizes) > 1 and max(sizes) > min(sizes)
    out("\nin process, one warm rebuild (s):\n")
    out(f"{'':>22}{head}" + ("   us a counter more" if grows else "") + "\n")
    for name in steps:
        row = [splits[size].get(name, 0.0) for size in sizes]
        out(f"{name:>22}{_cells(row)}{_per_counter(sizes, row) if grows else ''}\n")
    totals = [sum(splits[size].values()) for size in sizes]
    out(f"{'total':>22}{_cells(totals)}{_per_counter(sizes, totals) if grows else ''}\n")
    in_floor = [results["now"][size].floor_in_process for size in sizes]
    out(f"{'floor':>22}{_cells(in_floor)}\n")
    if grows:
        out(
            "us a counter more: what each counter beyond the smallest game adds, from the "
            f"smallest to the largest; whole process {_per_counter(sizes, warm).strip()}, "
            f"where largest/smallest <= 1.5x allows {_allowed(sizes, warm):.1f}\n"
        )
    return 0


def _cells(row: list[float]) -> str:
    return "".join(f"{value:>10.3f}" for value in row)


def _per_counter(sizes: list[int], row: list[float]) -> str:
    """What each counter beyond the smallest game's adds to a figure (s) by size, from the
    smallest game to the largest, in microseconds (a cost that does not grow with the game
    adds none)."""
    low, high = sizes.index(min(sizes)), sizes.index(max(sizes))
    return f"{(row[high] - row[low]) / (sizes[high] - sizes[low]) * 1e6:>12.1f}"


def _allowed(sizes: list[int], warm: list[float]) -> float:
    """The microseconds a counter may add to the whole-process warm rebuild, from the smallest
    game to the largest, with the largest within 1.5x of the smallest."""
    low = sizes.index(min(sizes))
    return 0.5 * warm[low] / (max(sizes) - min(sizes)) * 1e6


def _row(name: str, row: list[float]) -> None:
    """One line of the whole-process table: the figures by size, largest over smallest."""
    sys.stdout.write(f"{name:>22}{_cells(row)}   {max(row) / min(row):.2f}x\n")


if __name__ == "__main__":
    sys.exit(main())
