"""The drawing floor: the faces countermix draws, drawn again with plain libraries.

A face here is its display list copied into plain tuples (no countermix types): rectangles,
polygons, lines, ellipses and lines of text, in face units (the face 1.0 tall, y down), each
text with the font file countermix sets it in. The floor replays them:

- PNG: Pillow on every core (a fork pool of 2 processes); shapes drawn SCALE times larger on
  one layer and shrunk (the same antialiasing countermix gives its shapes), then the texts at
  the final size with `ImageFont.truetype` of the same font file at the same pixel size and
  Pillow's own anchors, then `Image.save(format="PNG", compress_level=1)`;
- PDF: reportlab, one form per distinct face (the TTFs registered, so embedded as subsets),
  every copy placed on a grid of A4 pages, fronts then backs, the document saved.

It leaves out what countermix does beyond drawing: text fitting (the display lists are already
laid out), the render cache, cut marks, bleed, the calibration and index pages.

As a whole process (`python -m bench.art_floor FACES GAME OUT`): interpreter start, imports,
PyYAML's C loader parsing the game's files, reading the pickled faces (which countermix does
not need: it lays them out), the PNGs written into a zip STORED and the PDFs to files.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import pickle
import sys
import time
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4  # type: ignore[import-untyped,unused-ignore]
from reportlab.pdfbase.pdfmetrics import (  # type: ignore[import-untyped,unused-ignore]
    registerFont,
    stringWidth,
)
from reportlab.pdfbase.ttfonts import TTFont  # type: ignore[import-untyped,unused-ignore]
from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped,unused-ignore]

SCALE = 4
CORES = 2
RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]
Points = tuple[tuple[float, float], ...]


class FRect(NamedTuple):
    box: Box
    fill: RGB | None
    outline: RGB | None
    line_width: float
    radius: float


class FPolygon(NamedTuple):
    points: Points
    fill: RGB | None
    outline: RGB | None
    line_width: float


class FLine(NamedTuple):
    points: Points
    colour: RGB
    width: float


class FEllipse(NamedTuple):
    box: Box
    fill: RGB | None
    outline: RGB | None
    line_width: float


class FText(NamedTuple):
    x: float
    y: float
    text: str
    height: float
    font: str
    """The font file."""
    colour: RGB
    anchor: str
    cap_height: float
    """The font's cap height in ems (for the PDF's baseline, as countermix places it)."""


FOp = FRect | FPolygon | FLine | FEllipse | FText


class Face(NamedTuple):
    width: float
    ops: tuple[FOp, ...]


class Png(NamedTuple):
    """One module image: a face drawn `width` × `height` pixels."""

    face: Face
    width: int
    height: int
    supersample: int = SCALE
    """Shapes drawn this many times larger and shrunk (countermix: 4 for pieces, 1 for charts)."""


class Piece(NamedTuple):
    front: int
    back: int | None
    copies: int


class Sheet(NamedTuple):
    """One sheet PDF: its distinct faces (forms), `height` points tall, and its pieces; with
    `height` 0, each form on a page of its own, as large as the page's margins allow (charts)."""

    name: str
    height: float
    forms: tuple[Face, ...]
    pieces: tuple[Piece, ...]


class Work(NamedTuple):
    pngs: tuple[Png, ...]
    sheets: tuple[Sheet, ...]


# ---- PNG with Pillow ---------------------------------------------------------------------------

_FONTS: dict[tuple[str, float], ImageFont.FreeTypeFont] = {}


def _font(path: str, size: float) -> ImageFont.FreeTypeFont:
    key = (path, round(size * 4) / 4)
    found = _FONTS.get(key)
    if found is None:
        found = _FONTS[key] = ImageFont.truetype(path, max(1.0, key[1]))
    return found


def _rgba(colour: RGB | None) -> tuple[int, int, int, int] | None:
    return None if colour is None else (*colour, 255)


def _background(face: Face) -> RGB | None:
    first = face.ops[0] if face.ops else None
    if not isinstance(first, FRect) or first.fill is None or first.radius > 0:
        return None
    x0, y0, x1, y1 = first.box
    return first.fill if x0 <= 0 and y0 <= 0 and x1 >= face.width and y1 >= 1.0 else None


def png(job: Png) -> bytes:
    """One face as PNG bytes."""
    face, k = job.face, job.supersample
    sx, sy = job.width / face.width * k, float(job.height * k)
    background = _background(face)
    if background is None:
        layer = Image.new("RGBA", (job.width * k, job.height * k), (0, 0, 0, 0))
    else:
        layer = Image.new("RGB", (job.width * k, job.height * k), background)
    draw = ImageDraw.Draw(layer)
    for op in face.ops:
        if isinstance(op, FRect):
            box = (op.box[0] * sx, op.box[1] * sy, op.box[2] * sx - 1, op.box[3] * sy - 1)
            box = (box[0], box[1], max(box[0], box[2]), max(box[1], box[3]))
            width = max(1, round(op.line_width * sy)) if op.outline else 0
            fill, outline = _rgba(op.fill), _rgba(op.outline)
            if op.radius * sy >= 1:
                draw.rounded_rectangle(
                    box, radius=op.radius * sy, fill=fill, outline=outline, width=width
                )
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=width)
        elif isinstance(op, FEllipse):
            box = (op.box[0] * sx, op.box[1] * sy, op.box[2] * sx - 1, op.box[3] * sy - 1)
            box = (box[0], box[1], max(box[0], box[2]), max(box[1], box[3]))
            width = max(1, round(op.line_width * sy)) if op.outline else 0
            draw.ellipse(box, fill=_rgba(op.fill), outline=_rgba(op.outline), width=width)
        elif isinstance(op, FPolygon):
            points = [(x * sx, y * sy) for x, y in op.points]
            width = max(1, round(op.line_width * sy)) if op.outline else 1
            draw.polygon(points, fill=_rgba(op.fill), outline=_rgba(op.outline), width=width)
        elif isinstance(op, FLine):
            points = [(x * sx, y * sy) for x, y in op.points]
            width = max(1, round(op.width * sy))
            draw.line(points, fill=_rgba(op.colour), width=width, joint="curve")
    image = layer.reduce(k) if k > 1 else layer
    draw = ImageDraw.Draw(image)
    sx, sy = sx / k, sy / k
    for op in face.ops:
        if isinstance(op, FText) and op.text:
            font = _font(op.font, op.height * sy)
            ink = op.colour if image.mode == "RGB" else (*op.colour, 255)
            draw.text((op.x * sx, op.y * sy), op.text, font=font, fill=ink, anchor=op.anchor)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


_JOBS: tuple[Png, ...] = ()


def _png_at(index: int) -> bytes:
    return png(_JOBS[index])


def pngs(jobs: tuple[Png, ...]) -> list[bytes]:
    """Every PNG, on CORES forked processes (they inherit the jobs, as countermix's do)."""
    global _JOBS
    _JOBS = jobs
    try:
        with multiprocessing.get_context("fork").Pool(CORES) as pool:
            chunk = max(1, len(jobs) // (CORES * 8))
            return pool.map(_png_at, range(len(jobs)), chunksize=chunk)
    finally:
        _JOBS = ()


# ---- PDF with reportlab ------------------------------------------------------------------------


def _colour(canvas: Any, colour: RGB, stroke: bool = False) -> None:
    r, g, b = (c / 255 for c in colour)
    if stroke:
        canvas.setStrokeColorRGB(r, g, b)
    else:
        canvas.setFillColorRGB(r, g, b)


def _box(canvas: Any, op: FRect | FEllipse, k: float, inset: float, fill: int) -> None:
    """A rectangle or ellipse filled (`fill`) or stroked, shrunk by `inset` face units."""
    x0, y0, x1, y1 = op.box[0] + inset, op.box[1] + inset, op.box[2] - inset, op.box[3] - inset
    left, bottom, width, height = x0 * k, (1.0 - y1) * k, (x1 - x0) * k, (y1 - y0) * k
    if isinstance(op, FEllipse):
        canvas.ellipse(left, bottom, left + width, bottom + height, stroke=1 - fill, fill=fill)
    elif op.radius > 0:
        radius = max(0.0, op.radius - inset) * k
        canvas.roundRect(left, bottom, width, height, radius, stroke=1 - fill, fill=fill)
    else:
        canvas.rect(left, bottom, width, height, stroke=1 - fill, fill=fill)


def _draw_pdf(canvas: Any, face: Face, k: float, fonts: dict[str, str]) -> None:
    """A face's ops on a reportlab canvas, `k` points tall, its bottom-left at (0, 0)."""
    canvas.setLineJoin(1)
    for op in face.ops:
        if isinstance(op, FRect | FEllipse):
            if op.fill is not None:
                _colour(canvas, op.fill)
                _box(canvas, op, k, 0.0, fill=1)
            if op.outline is not None and op.line_width > 0:
                _colour(canvas, op.outline, stroke=True)
                canvas.setLineWidth(op.line_width * k)
                _box(canvas, op, k, op.line_width / 2, fill=0)
        elif isinstance(op, FPolygon | FLine):
            path = canvas.beginPath()
            (x, y), *rest = op.points
            path.moveTo(x * k, (1.0 - y) * k)
            for x, y in rest:
                path.lineTo(x * k, (1.0 - y) * k)
            if isinstance(op, FPolygon):
                path.close()
                if op.fill is not None:
                    _colour(canvas, op.fill)
                if op.outline is not None:
                    _colour(canvas, op.outline, stroke=True)
                    canvas.setLineWidth(op.line_width * k)
                stroke, fill = int(op.outline is not None), int(op.fill is not None)
                canvas.drawPath(path, stroke=stroke, fill=fill)
            else:
                _colour(canvas, op.colour, stroke=True)
                canvas.setLineWidth(op.width * k)
                canvas.drawPath(path, stroke=1, fill=0)
        elif isinstance(op, FText) and op.text:
            name = fonts[op.font]
            size = op.height * k
            width = stringWidth(op.text, name, size)
            x = op.x * k - {"l": 0.0, "m": width / 2, "r": width}[op.anchor[0]]
            baseline = (1.0 - op.y - op.cap_height / 2 * op.height) * k
            _colour(canvas, op.colour)
            canvas.setFont(name, size)
            canvas.drawString(x, baseline, op.text)


def pdf(sheet: Sheet) -> bytes:
    """One sheet document: a form per distinct face, every copy placed, fronts then backs."""
    files = sorted({op.font for face in sheet.forms for op in face.ops if isinstance(op, FText)})
    fonts = {path: Path(path).stem for path in files}
    for path, name in fonts.items():
        registerFont(TTFont(name, path))
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    margin, gap = 28.35, 0.0
    if sheet.height <= 0:
        for face in sheet.forms:
            k = min((A4[0] - 2 * margin) / face.width, A4[1] - 2 * margin)
            canvas.translate(margin, A4[1] - margin - k)
            _draw_pdf(canvas, face, k, fonts)
            canvas.showPage()
        canvas.save()
        return buffer.getvalue()
    k = sheet.height
    for index, face in enumerate(sheet.forms):
        canvas.beginForm(f"f{index}", 0, 0, face.width * k, k)
        _draw_pdf(canvas, face, k, fonts)
        canvas.endForm()
    slot_w = max(face.width for face in sheet.forms) * k + gap
    columns = max(1, int((A4[0] - 2 * margin) // slot_w))
    rows = max(1, int((A4[1] - 2 * margin) // (k + gap)))
    copies = [(p.front, p.back) for p in sheet.pieces for _ in range(p.copies)]
    per_page = columns * rows
    for start in range(0, len(copies), per_page):
        page = copies[start : start + per_page]
        for side in (0, 1):
            if side == 1 and all(back is None for _front, back in page):
                continue
            for slot, faces in enumerate(page):
                form = faces[side]
                if form is None:
                    continue
                column = slot % columns if side == 0 else columns - 1 - slot % columns
                canvas.saveState()
                canvas.translate(
                    margin + column * slot_w, A4[1] - margin - (slot // columns + 1) * k
                )
                canvas.doForm(f"f{form}")
                canvas.restoreState()
            canvas.showPage()
    canvas.save()
    return buffer.getvalue()


# ---- as a whole process ------------------------------------------------------------------------


def whole(work_file: Path, game: Path, out: Path) -> dict[str, float]:
    """What the whole-process floor does after its imports: parse the game's YAML, read the
    faces, draw and write them; seconds of each part."""
    import yaml

    times: dict[str, float] = {}
    mark = time.perf_counter()
    for path in sorted(game.rglob("*.yaml")):
        with path.open("rb") as handle:
            yaml.load(handle, Loader=yaml.CSafeLoader)
    times["yaml"] = time.perf_counter() - mark
    mark = time.perf_counter()
    work: Work = pickle.loads(work_file.read_bytes())
    times["read faces"] = time.perf_counter() - mark
    mark = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out / "faces.zip", "w") as archive:
        for index, data in enumerate(pngs(work.pngs)):
            archive.writestr(zipfile.ZipInfo(f"images/{index}.png"), data)
    times["png"] = time.perf_counter() - mark
    mark = time.perf_counter()
    for sheet in work.sheets:
        (out / sheet.name).write_bytes(pdf(sheet))
    times["pdf"] = time.perf_counter() - mark
    return times


if __name__ == "__main__":
    sys.stdout.write(json.dumps(whole(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))))
    sys.stdout.write("\n")
