"""Benchmark: the VASSAL module step for a generated game of 2,000 counters, against its floor.

The floor is zip STORED (plain zipfile) writing the same entries: every image, the set-up saves,
buildFile.xml and moduledata; nothing encoded, nothing compressed.

In process (images rendered first and not timed): the module step is `assemble` (set-up saves,
buildFile.xml, moduledata) and `zip_bytes`, cold (every SVG and XML entry deflated) and warm
(the module of the build before is read from disk and the deflated images it holds are copied,
as `build_module` does on a rebuild).

Whole process (`--process`, on by default): `python -c` building just the module of that game
with `build_module` (interpreter start, imports, YAML loading, `render_plan` with a warm render
cache, the module step, the write), the module of the build before in place; against a process
that reads the same entries from files and writes them into a zip STORED.

Run: python -m bench.bench_module [--counters 2000] [--repeat 5] [--no-process]
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
from compiler.backends.vassal.module import (
    assemble,
    build_module,
    render_plan,
    reusable_entries,
    zip_bytes,
)
from compiler.backends.vassal.saves import ZIP_DATE
from compiler.load.game import load_game

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


def run(args: list[str], repeat: int) -> float:
    command = [sys.executable, "-c", *args]
    return timed(lambda: subprocess.run(command, check=True), repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counters", type=int, default=2000)
    parser.add_argument("--scenarios", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-process", dest="process", action="store_false")
    args = parser.parse_args()
    out = sys.stdout.write
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "generated"
        write_game(folder, random_spec(args.counters // 2, args.scenarios, 200, seed=3))
        game = load_game(folder).game
        assert game is not None
        started = time.perf_counter()
        plan, images = render_plan(game)
        rendered = time.perf_counter() - started
        files = assemble(plan, images)
        previous = Path(tmp) / "previous.vmod"
        previous.write_bytes(zip_bytes(files))

        def cold() -> bytes:
            return zip_bytes(assemble(plan, images))

        def warm() -> bytes:
            return zip_bytes(assemble(plan, images), reusable_entries(previous.read_bytes()))

        assert cold() == warm() == previous.read_bytes()
        step_cold = timed(cold, args.repeat)
        step_warm = timed(warm, args.repeat)
        assembled = timed(lambda: assemble(plan, images), args.repeat)
        floor = timed(lambda: stored_zip(files), args.repeat)
        tracemalloc.start()
        warm()
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        size = previous.stat().st_size
        out(
            f"counters: {len(game.units):,}  scenarios: {len(game.scenarios)}  entries: "
            f"{len(files):,} ({len(images):,} images, {sum(map(len, files.values())) / 1e6:.1f} MB)"
            f"  module: {size / 1e6:.1f} MB  (images rendered once in {rendered:.1f} s, "
            "not timed)\n"
        )
        out(f"in process, medians of {args.repeat}:\n")
        out(f"  floor, zip STORED of the same entries: {floor:.3f} s\n")
        out(f"  module step, warm (images of the last module copied): {step_warm:.3f} s  ")
        out(f"ratio {step_warm / floor:.2f}x  (goal <= 1.2x)\n")
        out(f"  module step, cold (every entry deflated):              {step_cold:.3f} s  ")
        out(f"ratio {step_cold / floor:.2f}x\n")
        out(f"  of which assemble (saves, buildFile.xml, moduledata):  {assembled:.3f} s\n")
        out(f"  peak traced memory of a warm step {peak / 1e6:.0f} MB; max RSS {rss:.0f} MB\n")
        if not args.process:
            return 0
        build = Path(tmp) / "build"
        build_module(game, build)  # warms the render cache and leaves the module to reuse
        entries = Path(tmp) / "entries"
        for name, data in files.items():
            (entries / name).parent.mkdir(parents=True, exist_ok=True)
            (entries / name).write_bytes(data)
        processes = max(3, args.repeat // 2)
        whole = run([BUILD, str(folder), str(build)], processes)
        whole_floor = run([FLOOR, str(entries), str(Path(tmp) / "floor.zip")], processes)
        out(f"whole process, medians of {processes}:\n")
        out(f"  floor, python zipping the entries' files STORED: {whole_floor:.3f} s\n")
        out(f"  build_module of the game (rebuild, warm caches):  {whole:.3f} s  ")
        out(f"ratio {whole / whole_floor:.2f}x\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
