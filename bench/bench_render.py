"""Benchmark: drawing a game's pieces — module faces and PDF print sheets — cold and warm, by size.

For each size (500 / 2,000 / 8,000 counters, fronts and backs; one scenario, one marker set)
the tool, imported from a copy taken when the bench starts, draws in this process:

- cold (empty render cache): every module face as `render_plan` queues it, as SVG (the default
  path) and as PNG, and the print sheets (`write_sheets`); boards and charts are left out;
- warm: one unit changed (renamed), reloaded (not timed), then the SVG faces and the sheets
  again from the cache (only that unit's faces drawn; the PDF assembled again from its cached
  forms and pages); `--rounds` rounds, a different unit each time, median and best printed.

Floors, in the same run: the drawing floor of bench.art_floor — the same faces' display lists
(read before timing) replayed with Pillow on both cores into PNGs and with reportlab into the
sheet PDFs (TTFs embedded). Whole process: `python -m bench.bench_render --child` (interpreter
start, imports, YAML loading, the SVG faces and the sheets written, the cache saved) cold, then
warm after one more unit changed; beside the floor as a process (`python -m bench.art_floor`:
start, imports, the game's YAML parsed with the C loader, the pickled faces read and drawn).

Run: python -m bench.bench_render [--sizes 500,2000,8000] [--quick] [--rounds 5]
Targets on a 2-core machine, using both cores, at 2,000 counters: cold < 6 s, warm < 0.3 s,
peak memory < 1 GB.
"""

from __future__ import annotations

import argparse
import pickle
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench import art_floor as floor
from bench.generate_game import random_spec, write_game
from bench.tool import parse_sizes, run_timed, snapshot

if TYPE_CHECKING:
    from compiler.backends.vassal.module import PieceImages
    from compiler.model.gamedata import GameData


def render_faces(game: GameData, cache: Path | None, images: PieceImages = "svg") -> int:
    """The module's piece faces as render_plan draws them (boards and charts aside); how many
    were drawn (not from the cache)."""
    from bench.bench_art import queue_faces
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.vassal.module import FaceRenderer, ImageStore
    from compiler.gcpause import no_cyclic_gc

    with no_cyclic_gc():
        pack = RenderCache(None if cache is None else cache / f"faces-{images}.pack")
        faces = FaceRenderer(game, ImageStore(), pack, "en", images)
        queue_faces(game, faces)
        faces.finish()
    return faces.cache.misses


def sheets(game: GameData, cache: Path, out: Path) -> None:
    from compiler.backends.sheets.build import write_sheets

    write_sheets(game, out, cache_dir=cache)


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def rename(folder: Path, name: str) -> None:
    units = (folder / "units.yaml").read_text(encoding="utf-8")
    assert units.count(f"{name},") == 1, name
    (folder / "units.yaml").write_text(
        units.replace(f"{name},", f"{name} renamed,"), encoding="utf-8"
    )


def load(folder: Path) -> GameData:
    from compiler.load.game import load_game

    game = load_game(folder).game
    assert game is not None
    return game


def child(folder: Path, root: Path) -> None:
    """The whole-process work: load, the SVG faces and the sheets, with the cache in `root`."""
    game = load(folder)
    render_faces(game, root / "cache")
    sheets(game, root / "cache", root / "out")


def measure(tool: Path, root: Path, size: int, rounds: int) -> dict[str, float]:
    from bench.bench_art import floor_work

    folder = root / f"game-{size}"
    write_game(folder, random_spec(size // 2, 1, 10, seed=5), marker_copies=1)
    game = load(folder)
    row: dict[str, float] = {"size": len(game.units)}
    cache = root / f"cache-{size}"
    row["svg"] = timed(lambda: render_faces(game, cache, "svg"))
    row["png"] = timed(lambda: render_faces(game, None, "png"))
    row["pdf"] = timed(lambda: sheets(game, cache, root / f"out-{size}"))
    work = floor_work(game)
    row["faces"] = len(work.pngs)
    row["floor png"] = timed(lambda: floor.pngs(work.pngs))
    row["floor pdf"] = timed(lambda: [floor.pdf(sheet) for sheet in work.sheets])
    names = [u.name.en for u in game.units if u.name.en.startswith("Unit ")]
    warm: list[tuple[float, float, int]] = []
    for name in names[7::101][:rounds]:
        rename(folder, name)
        changed = load(folder)
        started = time.perf_counter()
        redrawn = render_faces(changed, cache, "svg")
        faces_done = time.perf_counter()
        sheets(changed, cache, root / f"out-{size}")
        warm.append((faces_done - started, time.perf_counter() - faces_done, redrawn))
    warm.sort(key=lambda r: r[0] + r[1])
    row["warm svg"], row["warm pdf"], row["redrawn"] = warm[len(warm) // 2]
    row["warm best"] = warm[0][0] + warm[0][1]
    row["rounds"] = len(warm)
    # whole process: cold into an empty folder, then warm with one more unit changed
    whole = root / f"whole-{size}"
    command = [sys.executable, "-m", "bench.bench_render", "--child", str(folder), str(whole)]
    row["whole cold"] = run_timed(command, tool)
    rename(folder, names[8])  # not one of the names above
    row["whole warm"] = run_timed(command, tool)
    data = root / f"floor-{size}.pickle"
    data.write_bytes(pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL))
    row["whole floor"] = run_timed(
        [sys.executable, "-m", "bench.art_floor", str(data), str(folder), str(root / "fl")], tool
    )
    return row


def report(rows: list[dict[str, float]]) -> None:
    out = sys.stdout.write
    out("\ncold, in process (s):\n")
    out(
        f"{'counters':>9} {'faces':>6} | {'SVG':>6} {'PNG':>6} {'PDF':>6} | "
        f"{'floor PNG':>9} {'floor PDF':>9} | {'PNG/fl':>6} {'PDF/fl':>6} {'SVG+PDF/fl':>10}  "
        f"{'faces/s SVG':>11}\n"
    )
    for row in rows:
        base = row["floor png"] + row["floor pdf"]
        out(
            f"{row['size']:>9,.0f} {row['faces']:>6,.0f} | {row['svg']:>6.2f} {row['png']:>6.2f} "
            f"{row['pdf']:>6.2f} | {row['floor png']:>9.2f} {row['floor pdf']:>9.2f} | "
            f"{row['png'] / row['floor png']:>5.2f}x {row['pdf'] / row['floor pdf']:>5.2f}x "
            f"{(row['svg'] + row['pdf']) / base:>9.2f}x  {row['faces'] / row['svg']:>11,.0f}\n"
        )
    out("  target at 2,000 counters: cold (SVG + PDF) < 6 s\n")
    out("\nwarm, one unit changed, in process (s), median of the rounds:\n")
    out(f"{'counters':>9} | {'SVG':>6} {'PDF':>6} {'total':>6} {'best':>6} {'redrawn':>7}\n")
    for row in rows:
        total = row["warm svg"] + row["warm pdf"]
        out(
            f"{row['size']:>9,.0f} | {row['warm svg']:>6.3f} {row['warm pdf']:>6.3f} "
            f"{total:>6.3f} {row['warm best']:>6.3f} {row['redrawn']:>7.0f}   "
            f"({row['rounds']:.0f} rounds)\n"
        )
    out("  target at 2,000 counters: warm < 0.3 s\n")
    out("\nwhole process (s): load, SVG faces and sheets written; floor as a process:\n")
    out(f"{'counters':>9} | {'cold':>6} {'warm':>6} | {'floor':>6} | {'cold/fl':>7}\n")
    for row in rows:
        out(
            f"{row['size']:>9,.0f} | {row['whole cold']:>6.2f} {row['whole warm']:>6.2f} | "
            f"{row['whole floor']:>6.2f} | {row['whole cold'] / row['whole floor']:>6.2f}x\n"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="counters, comma-separated")
    parser.add_argument("--quick", action="store_true", help="500 counters only")
    parser.add_argument("--rounds", type=int, default=5, help="warm rounds per size")
    parser.add_argument("--child", nargs=2, metavar=("GAME", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return 0
    rows = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        for size in parse_sizes(args.sizes, args.quick):
            row = measure(tool, Path(tmp), size, args.rounds)
            rows.append(row)
            sys.stdout.write(
                f"  {size:>6,} counters: cold SVG {row['svg']:.2f} s, PNG {row['png']:.2f} s, "
                f"PDF {row['pdf']:.2f} s; warm {row['warm svg'] + row['warm pdf']:.3f} s\n"
            )
            sys.stdout.flush()
    rss = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    ) / 1024
    report(rows)
    sys.stdout.write(
        f"\npeak memory: {rss:.0f} MB (this process plus its largest child)  target < 1 GB\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
