"""Benchmark: charts — charts.pdf and the module's chart PNGs — for the seed games and by size.

Seed games (the copy of sources/ taken when the bench starts), English and Japanese: per game,
rendering the player-aids template (`with_aids`) and the charts (`render_charts`: the PDF and
the PNGs, on every core), loading excluded. Generated games of 500 / 2,000 / 8,000 counters
(bench.generate_game, two scenarios): their charts grow with the orders of battle and the
set-up charts (one row per unit, each with its counter), so the same figures are printed by
size, and as a whole process: `python -m bench.bench_charts --child GAME OUT` (interpreter
start, imports, YAML loading, the player aids, the charts drawn and charts.pdf written).

Floor, in the same run (bench.art_floor): the same charts' display lists (read after the
timing: reading them first would warm countermix's memo) replayed with Pillow on both cores
into PNGs of the same size (shapes at the final size, as countermix draws charts) and with
reportlab into one PDF, a chart a page (TTFs embedded); as a whole process it also starts an
interpreter, imports, parses the game's YAML with the C loader and reads the pickled charts.
It leaves out the player-aids template, splitting charts over pages and packing pages.

Run: python -m bench.bench_charts [--sizes 500,2000,8000] [--quick] [--no-seed]
Target on a 2-core machine: all five seed games' charts in under 5 s.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench import art_floor as floor
from bench.tool import parse_sizes, run_timed, snapshot

if TYPE_CHECKING:
    from compiler.model.gamedata import GameData


def build_charts(loaded: GameData, lang: str) -> tuple[GameData, float, float, int, int]:
    """(game with aids, player-aids template s, PDF and PNGs s, charts, PDF bytes)."""
    from compiler.backends.charts.build import all_charts, render_charts
    from compiler.backends.sheets.options import SheetOptions
    from compiler.load.aids import with_aids

    start = time.perf_counter()
    game, findings = with_aids(loaded)
    assert not findings, findings
    aids = time.perf_counter()
    pdf, _pngs = render_charts(game, SheetOptions(lang="ja" if lang == "ja" else "en"))
    end = time.perf_counter()
    return game, aids - start, end - aids, len(all_charts(game, lang)), len(pdf)


def chart_work(game: GameData, lang: str) -> floor.Work:
    """The charts' display lists as the floor's plain work: PNGs and a chart per page."""
    from bench.bench_art import plain
    from compiler.backends.charts.build import (
        CHART_SUPERSAMPLE,
        _png_height,
        all_charts,
        drawing_of,
    )

    drawings = [drawing_of(game, chart, lang) for chart in all_charts(game, lang)]
    pngs = []
    for drawing in drawings:
        height = _png_height(drawing)
        width = max(1, round(drawing.width * height))
        pngs.append(floor.Png(plain(drawing), width, height, CHART_SUPERSAMPLE))
    page = floor.Sheet("charts.pdf", 0.0, tuple(png.face for png in pngs), ())
    return floor.Work(tuple(pngs), (page,))


def floor_time(work: floor.Work) -> float:
    start = time.perf_counter()
    floor.pngs(work.pngs)
    for sheet in work.sheets:
        floor.pdf(sheet)
    return time.perf_counter() - start


def load(folder: Path) -> GameData:
    from compiler.load.game import load_game

    game = load_game(folder).game
    assert game is not None, folder
    return game


def child(folder: Path, out: Path) -> None:
    """The whole-process work: load, the player aids, the charts, charts.pdf written."""
    from compiler.backends.charts.build import write_charts
    from compiler.backends.sheets.options import SheetOptions

    game, *_ = build_charts(load(folder), "en")
    write_charts(game, out, SheetOptions(lang="en"))


def seed_games(tool: Path) -> None:
    out = sys.stdout.write
    games = [
        load(folder) for folder in sorted(p for p in (tool / "sources").iterdir() if p.is_dir())
    ]
    for lang in ("en", "ja"):
        total = floors = 0.0
        for loaded in games:
            game, aids_s, charts_s, charts, size = build_charts(loaded, lang)
            floor_s = floor_time(chart_work(game, lang))
            total += aids_s + charts_s
            floors += floor_s
            out(
                f"{lang} {game.game.id:22} {charts:3} charts  aids {aids_s:4.2f} s  "
                f"PDF ({size / 1024:,.0f} KiB) and PNGs {charts_s:5.2f} s  "
                f"floor {floor_s:5.2f} s ({charts_s / floor_s:.2f}x)\n"
            )
            sys.stdout.flush()
        out(
            f"{lang} all five games: {total:.2f} s  target < 5 s; floor {floors:.2f} s "
            f"(charts and aids {total / floors:.2f}x the floor)\n"
        )


def by_size(tool: Path, root: Path, sizes: list[int]) -> None:
    from bench.bench_art import make_game

    out = sys.stdout.write
    rows = []
    for size in sizes:
        folder = make_game(root, size)
        game, aids_s, charts_s, charts, pdf_size = build_charts(load(folder), "en")
        work = chart_work(game, "en")
        floor_s = floor_time(work)
        data = root / f"charts-{size}.pickle"
        data.write_bytes(pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL))
        command = [sys.executable, "-m", "bench.bench_charts", "--child", str(folder)]
        whole = run_timed([*command, str(root / f"out-{size}")], tool)
        whole_floor = run_timed(
            [sys.executable, "-m", "bench.art_floor", str(data), str(folder), str(root / "fl")],
            tool,
        )
        rows.append((size, charts, pdf_size, aids_s, charts_s, floor_s, whole, whole_floor))
        out(f"  {size:>6,} counters: {charts} charts in {charts_s:.2f} s, floor {floor_s:.2f} s\n")
        sys.stdout.flush()
    out("\ngenerated games, English (s): in process | whole process\n")
    out(
        f"{'counters':>9} {'charts':>6} {'PDF KiB':>8} | {'aids':>6} {'charts':>6} {'floor':>6} "
        f"{'ratio':>6} | {'process':>7} {'floor':>6} {'ratio':>6}\n"
    )
    for size, charts, pdf_size, aids_s, charts_s, floor_s, whole, whole_floor in rows:
        out(
            f"{size:>9,} {charts:>6} {pdf_size / 1024:>8,.0f} | {aids_s:>6.2f} {charts_s:>6.2f} "
            f"{floor_s:>6.2f} {charts_s / floor_s:>5.2f}x | {whole:>7.2f} {whole_floor:>6.2f} "
            f"{whole / whole_floor:>5.2f}x\n"
        )
    out(
        "  ratio in process: charts (PDF and PNGs, not the aids) over the floor; process: "
        "load, aids, charts, charts.pdf written,\n  beside the floor as a process (start-up, "
        "YAML parsed, pickled charts read, drawn, written)\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="counters, comma-separated")
    parser.add_argument("--quick", action="store_true", help="500 counters only")
    parser.add_argument("--no-seed", dest="seed", action="store_false", help="no seed games")
    parser.add_argument("--child", nargs=2, metavar=("GAME", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return 0
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        if args.seed:
            seed_games(tool)
        by_size(tool, Path(tmp), parse_sizes(args.sizes, args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
