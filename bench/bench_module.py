"""Benchmark: the VASSAL module step for a generated game of 2,000 counters.

Images are rendered first and not timed; then the module step (scenario saves, buildFile.xml,
moduledata, the zip) is timed against its floor: zipping the same images and nothing else.
Run: python -m bench.bench_module [--counters 2000] [--repeat 5]
Target on a 2-core machine: under 0.5 s and under 500 MB.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from statistics import median

from bench.generate_game import random_spec, write_game
from compiler.backends.vassal.module import assemble, render_plan, zip_bytes
from compiler.load.game import load_game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counters", type=int, default=2000)
    parser.add_argument("--scenarios", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "generated"
        write_game(folder, random_spec(args.counters // 2, args.scenarios, 200, seed=3))
        game = load_game(folder).game
        assert game is not None
        started = time.perf_counter()
        plan, images = render_plan(game)
        rendered = time.perf_counter() - started
    steps, floors = [], []
    size = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        size = len(zip_bytes(assemble(plan, images)))
        steps.append(time.perf_counter() - start)
        start = time.perf_counter()
        zip_bytes(images)
        floors.append(time.perf_counter() - start)
    tracemalloc.start()
    zip_bytes(assemble(plan, images))
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    step, floor = median(steps), median(floors)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = sys.stdout.write
    out(
        f"counters: {len(game.units):,}  scenarios: {len(game.scenarios)}  images: {len(images):,}"
        f"  module: {size / 1e6:.1f} MB  (images rendered once in {rendered:.1f} s, not timed)\n"
    )
    out(f"module step: {step:.3f} s median of {args.repeat}  (target < 0.5 s)\n")
    out(f"floor (zip the images only): {floor:.3f} s  ratio {step / floor:.2f}x\n")
    out(
        f"peak memory of the module step: {peak / 1e6:.0f} MB traced; process max RSS "
        f"{rss:.0f} MB  (target < 500 MB)\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
