"""Benchmark: cold art — every face drawn with an empty render cache — against a drawing floor.

For each size (500 / 2,000 / 8,000 counters) a game is generated (bench.generate_game: two
scenarios of size/10 placements, one marker set with copies enough for them) and:

- countermix in process, each in a fresh interpreter with the game already loaded (not timed),
  the back-end functions the build calls: the module's piece faces as `render_plan` queues and
  draws them (`FaceRenderer`, `_queue_units` / `_queue_markers` / `_queue_cards`, deck backs,
  `finish`: layout, drawing, encoding, on every core) as SVG — the default — and as PNG; and
  the print sheets (`write_sheets`: every face as a PDF form, imposition, cut marks, the
  calibration and index pages, the file written). Boards and charts are not in these figures.
- countermix as a whole process: `countermix build GAME --out X --force` into an empty folder
  (interpreter start, imports, YAML loading, validation, boards, every face, charts, the module
  zip, the sheets, the build stamp: all of a cold build), with SVG faces and with
  `--piece-images png`.
- the floor (bench.art_floor): each distinct face's display list, read from countermix's own
  drawing functions before any timing and copied into plain tuples, replayed with Pillow on
  both cores (the same font files at the same pixel size, PNG-encoded) and with reportlab
  (one PDF per sheet, the TTFs embedded). As a whole process it also starts an interpreter,
  imports, parses the game's YAML with PyYAML's C loader and reads the pickled faces.

Each figure is the best of `--repeat` rounds; within a round countermix and the floor are
timed by turns, so both meet the same load from whatever else runs on the machine.

Run: python -m bench.bench_art [--sizes 500,2000,8000] [--quick] [--repeat 2] [--no-process]
Goal (issue 13): cold art <= 1.4x the drawing floor.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING

from bench import art_floor as floor
from bench.generate_game import random_spec, write_game
from bench.tool import countermix, environment, parse_sizes, run_timed, snapshot

if TYPE_CHECKING:
    from compiler.backends.art.display import Drawing, Op
    from compiler.backends.sheets.faces import FaceRef
    from compiler.backends.sheets.pdf import Piece
    from compiler.backends.vassal.module import FaceRenderer, PieceImages
    from compiler.model.gamedata import GameData

GOAL = 1.4
KINDS = ("svg", "png", "pdf")


def make_game(root: Path, size: int) -> Path:
    """The generated game of `size` counters (as bench_warm makes it)."""
    folder = root / f"game-{size}"
    placed = max(10, size // 10)
    write_game(folder, random_spec(size // 2, 2, placed, seed=11), marker_copies=placed // 6 + 5)
    return folder


def load(folder: Path) -> GameData:
    from compiler.load.game import load_game

    game = load_game(folder).game
    assert game is not None, folder
    return game


def queue_faces(game: GameData, faces: FaceRenderer) -> None:
    """Queue every piece face as `render_plan` does (boards and charts aside)."""
    from functools import partial

    from compiler.backends.art.drawing import deck_back_drawing
    from compiler.backends.art.identity import deck_identity
    from compiler.backends.vassal.module import (
        CARD_HEIGHT,
        _queue_cards,
        _queue_markers,
        _queue_units,
    )

    _queue_units(game, faces, {})
    _queue_markers(game, faces)
    _queue_cards(game, faces)
    for deck in game.decks:
        draw = partial(deck_back_drawing, game, deck, faces.lang)
        want = partial(faces.want, "cardback", draw, deck_identity(game, deck), height=CARD_HEIGHT)
        faces.face(deck.art, "back", f"deck `{deck.id}`", want)


def child(kind: str, folder: Path) -> dict[str, float]:
    """In a fresh interpreter: load the game (not timed), then time one back end cold."""
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.sheets.build import write_sheets
    from compiler.backends.vassal.module import FaceRenderer, ImageStore
    from compiler.gcpause import no_cyclic_gc

    game = load(folder)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        if kind == "pdf":
            written = write_sheets(game, Path(tmp) / "out", cache_dir=Path(tmp) / "cache")
            elapsed = time.perf_counter() - started
            return {"seconds": elapsed, "bytes": sum(p.stat().st_size for p in written)}
        images: PieceImages = "svg" if kind == "svg" else "png"
        with no_cyclic_gc():
            faces = FaceRenderer(game, ImageStore(), RenderCache(None), "en", images)
            queue_faces(game, faces)
            faces.finish()
        elapsed = time.perf_counter() - started
        size = sum(len(data) for data in faces.store.files.values())
        return {"seconds": elapsed, "drawn": faces.cache.misses, "bytes": size}


def in_process(tool: Path, kind: str, folder: Path) -> dict[str, float]:
    command = [sys.executable, "-m", "bench.bench_art", "--child", kind, str(folder)]
    done = subprocess.run(
        command, cwd=tool, env=environment(), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} child failed:\n{done.stdout}\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ---- the faces as plain display lists (read before any timing) --------------------------------


def plain(drawing: Drawing) -> floor.Face:
    return floor.Face(drawing.width, tuple(_ops(drawing.ops, 1.0, 0.0, 0.0)))


def _ops(ops: tuple[Op, ...], s: float, dx: float, dy: float) -> Iterator[floor.FOp]:
    """Ops in plain tuples, scaled by `s` and moved by (dx, dy); insets flattened."""
    from compiler.backends.art.display import Ellipse, Inset, Line, Polygon, Rect, Text
    from compiler.backends.art.fonts import font_for, font_path, metrics

    def box(b: tuple[float, float, float, float]) -> floor.Box:
        return (b[0] * s + dx, b[1] * s + dy, b[2] * s + dx, b[3] * s + dy)

    def points(ps: tuple[tuple[float, float], ...]) -> floor.Points:
        return tuple((x * s + dx, y * s + dy) for x, y in ps)

    for op in ops:
        if isinstance(op, Rect):
            yield floor.FRect(box(op.box), op.fill, op.outline, op.line_width * s, op.radius * s)
        elif isinstance(op, Ellipse):
            yield floor.FEllipse(box(op.box), op.fill, op.outline, op.line_width * s)
        elif isinstance(op, Polygon):
            yield floor.FPolygon(points(op.points), op.fill, op.outline, op.line_width * s)
        elif isinstance(op, Line):
            yield floor.FLine(points(op.points), op.colour, op.width * s)
        elif isinstance(op, Text):
            font = font_for(op.text, op.bold, op.lang)
            cap = float(metrics(font).face.capHeight) / 1000.0
            yield floor.FText(
                op.x * s + dx,
                op.y * s + dy,
                op.text,
                op.height * s,
                str(font_path(font)),
                op.colour,
                op.anchor,
                cap,
            )
        elif isinstance(op, Inset):
            x0, y0, _x1, y1 = op.box
            yield from _ops(op.drawing.ops, s * (y1 - y0), x0 * s + dx, y0 * s + dy)


def floor_work(game: GameData) -> floor.Work:
    """The distinct faces the module and the sheets draw, as the floor's plain work."""
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.sheets.build import sheet_docs
    from compiler.backends.sheets.impose import impose
    from compiler.backends.sheets.options import SheetOptions
    from compiler.backends.vassal.module import PIECE_SIZE, FaceRenderer, ImageStore

    wanted: dict[str, tuple[Callable[[], Drawing], int]] = {}

    class Recorder(FaceRenderer):
        def want(
            self,
            prefix: str,
            drawing: Callable[[], Drawing],
            *identity: object,
            height: int = PIECE_SIZE,
        ) -> str:
            key = super().want(prefix, drawing, *identity, height=height)
            wanted.setdefault(key, (drawing, height))
            return key

    queue_faces(game, Recorder(game, ImageStore(), RenderCache(None), "en", "png"))
    pngs = []
    for make, height in wanted.values():
        drawing = make()
        width = max(1, round(drawing.width * height))
        pngs.append(floor.Png(plain(drawing), width, height))
    options = SheetOptions.from_settings(game.game.print)
    sheets = [
        _sheet(
            name, doc.pieces, impose([p.copies for p in doc.pieces], opts, doc.slot_mm).grid.slot_h
        )
        for name, (doc, opts) in sheet_docs(game, options).items()
    ]
    return floor.Work(tuple(pngs), tuple(sheets))


def _sheet(name: str, pieces: tuple[Piece, ...], height: float) -> floor.Sheet:
    """One sheet document's distinct drawn faces (pictures aside) and its pieces."""
    forms: dict[str, int] = {}
    faces: list[floor.Face] = []

    def form(ref: FaceRef | None) -> int | None:
        if ref is None or ref.picture is not None:
            return None
        if ref.identity not in forms:
            forms[ref.identity] = len(faces)
            faces.append(plain(ref.make()))
        return forms[ref.identity]

    placed = []
    for piece in pieces:
        front = form(piece.front)
        if front is not None:
            placed.append(floor.Piece(front, form(piece.back), piece.copies))
    return floor.Sheet(name, height, tuple(faces), tuple(placed))


# ---- one size ----------------------------------------------------------------------------------


def timed(work: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        runs.append(time.perf_counter() - started)
    return median(runs)


def measure(tool: Path, root: Path, size: int, repeat: int, process: bool) -> dict[str, float]:
    """One size's figures: each the best of `repeat` rounds, countermix and its floor timed by
    turns within a round (the least disturbed run of each, on a machine others share)."""
    folder = make_game(root, size)
    game = load(folder)
    work = floor_work(game)  # the display lists, read before any timing (countermix's own
    # figures come from fresh interpreters, so reading them here warms nothing of theirs)
    data = root / f"floor-{size}.pickle"
    data.write_bytes(pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL))
    runs: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        runs.setdefault(name, []).append(seconds)

    builds = (("whole svg", []), ("whole png", ["--piece-images", "png"])) if process else ()
    for number in range(repeat):
        for kind in KINDS:
            add(kind, in_process(tool, kind, folder)["seconds"])
        add("floor png", timed(lambda: floor.pngs(work.pngs), 1))
        add("floor pdf", timed(lambda: [floor.pdf(sheet) for sheet in work.sheets], 1))
        for name, extra in builds:
            out = root / f"out-{size}-{name[-3:]}-{number}"
            command = countermix("build", str(folder), "--out", str(out), "--force", *extra)
            add(name, run_timed(command, tool, expect="wrote"))
        if process:
            out = root / f"floor-{size}-{number}"
            command = [sys.executable, "-m", "bench.art_floor", str(data), str(folder), str(out)]
            add("whole floor", run_timed(command, tool))
    row: dict[str, float] = {name: min(times) for name, times in runs.items()}
    row["size"] = size
    row["faces"] = len(work.pngs)
    row["forms"] = sum(len(s.forms) for s in work.sheets)
    row["copies"] = sum(p.copies for s in work.sheets for p in s.pieces)
    return row


def report(rows: list[dict[str, float]], process: bool, repeat: int) -> None:
    out = sys.stdout.write
    out(
        f"\ncold art, seconds (best of {repeat}; in process: each in a fresh interpreter, "
        "the game loaded first):\n"
    )
    out(
        f"{'counters':>9} {'faces':>6} {'forms':>6} | {'cm SVG':>7} {'cm PNG':>7} {'cm PDF':>7} "
        f"| {'floor PNG':>9} {'floor PDF':>9} | {'PNG/fl':>6} {'PDF/fl':>6} "
        f"{'SVG+PDF':>8} {'PNG+PDF':>8}\n"
    )
    for row in rows:
        base = row["floor png"] + row["floor pdf"]
        out(
            f"{row['size']:>9,.0f} {row['faces']:>6,.0f} {row['forms']:>6,.0f} | "
            f"{row['svg']:>7.2f} {row['png']:>7.2f} {row['pdf']:>7.2f} | "
            f"{row['floor png']:>9.2f} {row['floor pdf']:>9.2f} | "
            f"{row['png'] / row['floor png']:>5.2f}x {row['pdf'] / row['floor pdf']:>5.2f}x "
            f"{(row['svg'] + row['pdf']) / base:>7.2f}x {(row['png'] + row['pdf']) / base:>7.2f}x\n"
        )
    out(
        "  SVG+PDF: the default path (module faces as SVG, the sheets) over the floor "
        "(Pillow PNG + reportlab PDF);\n  PNG+PDF: the same with `--piece-images png`. "
        f"goal: cold art <= {GOAL}x the drawing floor\n"
    )
    for row in rows:
        base = row["floor png"] + row["floor pdf"]
        verdicts = [
            f"{label} {ratio:.2f}x {'met' if ratio <= GOAL else 'NOT met'}"
            for label, ratio in (
                ("SVG+PDF", (row["svg"] + row["pdf"]) / base),
                ("PNG+PDF", (row["png"] + row["pdf"]) / base),
            )
        ]
        out(f"  {row['size']:>6,.0f} counters: {'; '.join(verdicts)}\n")
    if not process:
        return
    out(
        "\nwhole process, cold build (`countermix build GAME --out EMPTY --force`), seconds, "
        f"best of {repeat}:\n"
    )
    out(
        f"{'counters':>9} | {'build SVG':>9} {'build PNG':>9} | {'floor':>7} | "
        f"{'SVG/fl':>6} {'PNG/fl':>6}\n"
    )
    for row in rows:
        out(
            f"{row['size']:>9,.0f} | {row['whole svg']:>9.2f} {row['whole png']:>9.2f} | "
            f"{row['whole floor']:>7.2f} | {row['whole svg'] / row['whole floor']:>5.2f}x "
            f"{row['whole png'] / row['whole floor']:>5.2f}x\n"
        )
    out(
        "  the build includes what the floor leaves out: validation, boards, charts, the "
        "module's buildFile and saves, cut marks and index pages\n"
    )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = last["size"] / first["size"]
        out(f"\nscaling {first['size']:,.0f} -> {last['size']:,.0f} counters ({scale:.0f}x):")
        for key in ("svg", "png", "pdf", "floor png", "floor pdf"):
            out(f"  {key} {last[key] / first[key]:.1f}x")
        out("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="counters, comma-separated")
    parser.add_argument("--quick", action="store_true", help="500 counters only")
    parser.add_argument("--repeat", type=int, default=2, help="rounds (best of)")
    parser.add_argument("--no-process", dest="process", action="store_false")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "GAME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, game = args.child
        sys.stdout.write(json.dumps(child(kind, Path(game))) + "\n")
        return 0
    rows = []
    with snapshot() as tool, tempfile.TemporaryDirectory() as tmp:
        for size in parse_sizes(args.sizes, args.quick):
            row = measure(tool, Path(tmp), size, args.repeat, args.process)
            rows.append(row)
            sys.stdout.write(
                f"  {size:>6,} counters: {row['faces']:,.0f} module faces, {row['forms']:,.0f} "
                f"sheet forms, {row['copies']:,.0f} printed copies; SVG {row['svg']:.2f} s, "
                f"PNG {row['png']:.2f} s, PDF {row['pdf']:.2f} s; floor PNG "
                f"{row['floor png']:.2f} s, PDF {row['floor pdf']:.2f} s\n"
            )
            sys.stdout.flush()
    report(rows, args.process, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
