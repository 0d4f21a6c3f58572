"""Benchmark: render 2,000 counters (front and back) to module PNGs and to PDF print sheets.

Cold: empty render cache. Warm: one unit changed (renamed), everything else from the cache: the
module's PNGs, the sheets' PDF forms and pages (the PDF file is assembled again from them).
Warm is measured WARM_ROUNDS times, a different unit each time; the median and best are printed
(this machine's timings vary by ±20% from run to run). Floors: Pillow encoding the same number
of PNGs of that size, and reportlab drawing the same number of simple faces (a rectangle and a
line of text each).
Run: python -m bench.bench_render [--counters 2000]
Targets on a 2-core machine, using both cores: cold < 6 s, warm < 0.3 s, peak memory < 1 GB.
"""

from __future__ import annotations

import argparse
import io
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw
from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped,unused-ignore]

from bench.generate_game import random_spec, write_game
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.build import write_sheets
from compiler.backends.vassal.module import (
    PIECE_SIZE,
    FaceRenderer,
    ImageStore,
    PieceImages,
    _queue_units,
)
from compiler.gcpause import no_cyclic_gc
from compiler.load.game import load_game
from compiler.model.gamedata import GameData

WARM_ROUNDS = 9


def render_faces(game: GameData, cache: Path, images: PieceImages = "png") -> tuple[int, int]:
    """The module's unit faces (render_plan without boards, markers and charts)."""
    with no_cyclic_gc():
        pack = RenderCache(cache / "faces.pack")
        faces = FaceRenderer(game, ImageStore(), pack, "en", images)
        _queue_units(game, faces)
        faces.finish()
    return faces.cache.misses, faces.cache.hits


def build(game: GameData, cache: Path, out: Path) -> tuple[float, float, int]:
    start = time.perf_counter()
    drawn, _reused = render_faces(game, cache)
    faces_done = time.perf_counter()
    write_sheets(game, out, cache_dir=cache)
    return faces_done - start, time.perf_counter() - faces_done, drawn


def _warm_round(folder: Path, root: Path, name: str) -> tuple[float, float, int]:
    """Rename one unit, reload, rebuild from the cache: (PNG s, PDF s, faces drawn)."""
    units = (folder / "units.yaml").read_text(encoding="utf-8")
    assert units.count(f"{name},") == 1, name
    (folder / "units.yaml").write_text(
        units.replace(f"{name},", f"{name} renamed,"), encoding="utf-8"
    )
    changed = load_game(folder).game
    assert changed is not None
    return build(changed, root / "cache", root / "out")


def png_floor(count: int) -> float:
    image = Image.new("RGBA", (PIECE_SIZE, PIECE_SIZE), (60, 80, 160, 255))
    ImageDraw.Draw(image).text((8, 40), "2-2", fill=(0, 0, 0, 255))
    start = time.perf_counter()
    for _ in range(count):
        image.copy().save(io.BytesIO(), format="PNG", compress_level=1)
    return time.perf_counter() - start


def pdf_floor(count: int) -> float:
    start = time.perf_counter()
    canvas = Canvas(io.BytesIO(), invariant=1)
    for index in range(count):
        x, y = 30 + (index % 16) * 34, 30 + (index // 16 % 22) * 34
        canvas.setFillColorRGB(0.2, 0.3, 0.6)
        canvas.rect(x, y, 32, 32, fill=1)
        canvas.setFillColorRGB(0, 0, 0)
        canvas.drawString(x + 4, y + 4, "2-2")
        if index % 352 == 351:
            canvas.showPage()
    canvas.save()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counters", type=int, default=2000)
    args = parser.parse_args()
    out = sys.stdout.write
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "generated"
        write_game(folder, random_spec(args.counters // 2, 1, 10, seed=5), marker_copies=1)
        game = load_game(folder).game
        assert game is not None
        faces = sum(2 if u.back is not None else 1 for u in game.units)
        cold_png, cold_pdf, drawn = build(game, root / "cache", root / "out")
        started = time.perf_counter()
        render_faces(game, root / "svg-cache", "svg")
        cold_svg = time.perf_counter() - started
        names = [u.name.en for u in game.units if u.name.en.startswith("Unit ")]
        names = names[7::101][:WARM_ROUNDS]
        rounds = [_warm_round(folder, root, name) for name in names]
        shutil.rmtree(root / "cache")
    rss = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    ) / 1024
    png_base, pdf_base = png_floor(faces), pdf_floor(faces)
    out(f"counters: {len(game.units):,}  faces: {faces:,} (fronts and backs)\n")
    out(
        f"cold: {cold_png + cold_pdf:.2f} s  (PNG faces {cold_png:.2f} s for {drawn:,} drawn, "
        f"{faces / cold_png:,.0f}/s; PDF sheets {cold_pdf:.2f} s)  target < 6 s\n"
    )
    rounds.sort(key=lambda r: r[0] + r[1])
    warm_png, warm_pdf, redrawn = rounds[len(rounds) // 2]
    best = rounds[0][0] + rounds[0][1]
    out(
        f"warm, one unit changed: median {warm_png + warm_pdf:.2f} s of {len(rounds)} rounds, "
        f"best {best:.2f} s  (median round: PNG {warm_png:.2f} s, {redrawn} faces redrawn; "
        f"PDF {warm_pdf:.2f} s)  target < 0.3 s\n"
    )
    out(
        f"floors: Pillow encoding {faces:,} PNGs {png_base:.2f} s (ratio "
        f"{cold_png / png_base:.1f}x); reportlab {faces:,} simple faces {pdf_base:.2f} s "
        f"(ratio {cold_pdf / pdf_base:.1f}x)\n"
    )
    out(
        f"module faces as SVG instead (the build's default), cold: {cold_svg:.2f} s "
        f"({faces / cold_svg:,.0f}/s)\n"
    )
    out(f"peak memory: {rss:.0f} MB (this process plus its largest worker)  target < 1 GB\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
