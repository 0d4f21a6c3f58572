"""Benchmark: the VASSAL module step for a generated game, by size (500 / 2,000 / 8,000
counters), against its floor. The tool is imported and run from a copy taken at the start.

The floor is zip STORED (plain zipfile) writing the same entries: every image, the set-up saves,
buildFile.xml and moduledata; nothing encoded, nothing compressed.

In process (images rendered first and not timed): the module step is `assemble` (set-up saves,
buildFile.xml, moduledata) and `zip_bytes`, cold (every piece text made, every SVG and XML
entry deflated) and warm (as `build_module` does on a rebuild: the piece texts of the build
before come from its pack, each set-up save whose scenario, placed pieces and maps did not
change is read from it whole, the module of the build before is read from disk and the deflated
entries it holds are copied where they hold the same content: every image, and here the build
file too, nothing having changed; a rebuild after a unit changed deflates again the piece of it
that changed, the others kept in deflated.pack). In both,
the faces' CRC-32 are those `render_plan` found (a build keeps them in the render cache with the
faces), as `build_module` passes them.

Whole process (`--process`, on by default): `python -c` building just the module of that game
with `build_module` (interpreter start, imports, YAML loading, `render_plan` with a warm render
cache, the module step, the write), the module of the build before in place; against a process
that reads the same entries from files and writes them into a zip STORED.

Run: python -m bench.bench_module [--sizes 500,2000,8000] [--quick] [--repeat 5] [--no-process]
Goal (issue 13): the module step within 1.2x of its floor.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from statistics import median

from bench.generate_game import random_spec, write_game
from bench.tool import environment, parse_sizes, snapshot

SCENARIOS = 5

BUILD = """
import sys
from pathlib import Path
from compiler.backends.vassal.module import build_module
from compiler.load.game import load_game
build_module(load_game(Path(sys.argv[1])).game, Path(sys.argv[2]))
"""

FLOOR = """
import sys, zipfile
from pathlib import Path
root = Path(sys.argv[1])
with zipfile.ZipFile(sys.argv[2], "w") as archive:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
        archive.writestr(info, path.read_bytes())
"""


def stored_zip(files: dict[str, bytes]) -> bytes:
    """The floor: zipfile writing the same entries STORED."""
    from compiler.backends.vassal.saves import ZIP_DATE  # imported with the module already

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, date_time=ZIP_DATE), files[name])
    return buffer.getvalue()


def timed(work: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return median(runs)


def run(args: list[str], tool: Path, repeat: int) -> float:
    """Median seconds of a `python -c` child run from the copy of the tool."""
    command = [sys.executable, "-c", *args]
    return timed(lambda: subprocess.run(command, cwd=tool, env=environment(), check=True), repeat)


def measure(tool: Path, root: Path, size: int, repeat: int, process: bool) -> dict[str, float]:
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.vassal.module import (
        assemble,
        build_module,
        render_plan,
        reusable_entries,
        zip_bytes,
    )
    from compiler.load.game import load_game

    tmp = root / f"size-{size}"
    folder = tmp / "generated"
    write_game(folder, random_spec(size // 2, SCENARIOS, 200, seed=3))
    game = load_game(folder).game
    assert game is not None
    started = time.perf_counter()
    plan, images = render_plan(game)
    row: dict[str, float] = {"size": len(game.units), "rendered": time.perf_counter() - started}
    pieces = tmp / "cache" / "pieces.pack"
    files = assemble(plan, images, pieces)  # the build before: its piece texts kept
    previous = tmp / "previous.vmod"
    deflated = pieces.with_name("deflated.pack")
    first = RenderCache(deflated)  # the build before: the deflated pieces of long files kept
    previous.write_bytes(zip_bytes(files, None, None, first))
    first.save()

    def cold() -> bytes:
        return zip_bytes(assemble(plan, images), None, plan.image_crcs)

    def warm() -> bytes:
        reuse = reusable_entries(previous.read_bytes())
        kept = RenderCache(deflated)
        module = zip_bytes(assemble(plan, images, pieces), reuse, plan.image_crcs, kept)
        kept.save()
        return module

    assert cold() == warm() == previous.read_bytes()
    row["entries"], row["images"] = len(files), len(images)
    row["MB"] = sum(map(len, files.values())) / 1e6
    row["module MB"] = previous.stat().st_size / 1e6
    row["cold"] = timed(cold, repeat)
    row["warm"] = timed(warm, repeat)
    row["assemble"] = timed(lambda: assemble(plan, images, pieces), repeat)
    row["floor"] = timed(lambda: stored_zip(files), repeat)
    tracemalloc.start()
    warm()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    row["traced MB"] = peak / 1e6
    if not process:
        return row
    build = tmp / "build"
    build_module(game, build)  # warms the render cache and leaves the module to reuse
    entries = tmp / "entries"
    for name, data in files.items():
        (entries / name).parent.mkdir(parents=True, exist_ok=True)
        (entries / name).write_bytes(data)
    processes = max(3, repeat // 2)
    row["processes"] = processes
    row["whole"] = run([BUILD, str(folder), str(build)], tool, processes)
    row["whole floor"] = run([FLOOR, str(entries), str(tmp / "floor.zip")], tool, processes)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="counters, comma-separated")
    parser.add_argument("--quick", action="store_true", help="500 counters only")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-process", dest="process", action="store_false")
    args = parser.parse_args()
    out = sys.stdout.write
    rows = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        for size in parse_sizes(args.sizes, args.quick):
            row = measure(tool, Path(tmp), size, args.repeat, args.process)
            rows.append(row)
            out(
                f"counters: {row['size']:,.0f}  scenarios: {SCENARIOS}  entries: "
                f"{row['entries']:,.0f} ({row['images']:,.0f} images, {row['MB']:.1f} MB)  "
                f"module: {row['module MB']:.1f} MB  (images rendered once in "
                f"{row['rendered']:.1f} s, not timed)\n"
            )
            sys.stdout.flush()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out(f"\nin process, medians of {args.repeat} (s):\n")
    out(
        f"{'counters':>9} | {'floor':>6} | {'warm':>6} {'ratio':>6} | {'cold':>6} {'ratio':>6} | "
        f"{'assemble':>8} | {'traced MB':>9}\n"
    )
    for row in rows:
        out(
            f"{row['size']:>9,.0f} | {row['floor']:>6.3f} | {row['warm']:>6.3f} "
            f"{row['warm'] / row['floor']:>5.2f}x | {row['cold']:>6.3f} "
            f"{row['cold'] / row['floor']:>5.2f}x | {row['assemble']:>8.3f} | "
            f"{row['traced MB']:>9.0f}\n"
        )
    out(
        "  floor: zip STORED of the same entries; warm: the module step with the piece texts "
        "and images of the\n  last build reused; cold: every piece made, every entry deflated; "
        "assemble: set-up saves, buildFile.xml,\n  moduledata (warm)\n"
        f"  goal: warm <= 1.2x the floor; max RSS of this process {rss:.0f} MB\n"
    )
    if args.process:
        out(f"\nwhole process, medians of {rows[0]['processes']:.0f} (s):\n")
        out(f"{'counters':>9} | {'build_module':>12} | {'floor':>6} | {'ratio':>6}\n")
        for row in rows:
            out(
                f"{row['size']:>9,.0f} | {row['whole']:>12.3f} | {row['whole floor']:>6.3f} | "
                f"{row['whole'] / row['whole floor']:>5.2f}x\n"
            )
        out(
            "  build_module: a rebuild of just the module (start-up, YAML, render_plan with a "
            "warm cache, the step, the write);\n  floor: python zipping the entries' files "
            "STORED\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
