"""Content streams: PDF drawing operators, and a display list (a face or a chart) as a stream.

`Canvas` writes operators in points (origin bottom-left) and records which characters each
font sets. `drawing_content` is the vector back end of the art package: every op of a Drawing
as paths and real text, outlines stroked half a line width inside their shape exactly as the
raster back end draws them, glyphs placed at the font's own advance widths.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from compiler.backends.art.colours import RGB
from compiler.backends.art.display import (
    Box,
    Drawing,
    Ellipse,
    Inset,
    Line,
    Op,
    Polygon,
    Rect,
    Text,
    line_start,
)
from compiler.backends.art.fonts import FontFile, baseline_offset, font_for, font_width, text_width
from compiler.backends.pdf.document import Content, compress, decode_content, encode_content
from compiler.backends.pdf.fonts import glyph_hex, resource_name
from compiler.backends.pdf.syntax import name, num
from compiler.backends.rendercache import digest_key

if TYPE_CHECKING:
    from compiler.backends.rendercache import RenderCache

KAPPA = 0.5522847498
"""Bezier handle length of a quarter circle, as a fraction of the radius."""


Form = tuple[str, Content, Box]
"""A drawing as a form XObject: its name, content and bounding box."""


class Canvas:
    """Operators for one content stream; the drawings it shows become forms by `forms`
    (default: made now, remembered while the drawing object lives)."""

    def __init__(self, forms: Callable[[Drawing], Form] | None = None) -> None:
        self.parts: list[str] = []
        self.chars: dict[str, set[str]] = {}
        self.nested: dict[str, tuple[Content, Box]] = {}
        self.forms = forms or _drawing_form

    def op(self, *words: object) -> None:
        """One operator line: numbers formatted, other words as they are."""
        self.parts.append(" ".join([w if type(w) is str else num(w) for w in words]))  # type: ignore[arg-type]

    def save(self) -> None:
        self.parts.append("q")

    def restore(self) -> None:
        self.parts.append("Q")

    def transform(self, a: float, b: float, c: float, d: float, e: float, f: float) -> None:
        self.op(a, b, c, d, e, f, "cm")

    def fill_colour(self, colour: RGB) -> None:
        self.op(colour[0] / 255, colour[1] / 255, colour[2] / 255, "rg")

    def stroke_colour(self, colour: RGB) -> None:
        self.op(colour[0] / 255, colour[1] / 255, colour[2] / 255, "RG")

    def line_width(self, width: float) -> None:
        self.op(width, "w")

    def dash(self, on: float, off: float) -> None:
        self.parts.append(f"[{num(on)} {num(off)}] 0 d")

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """A stroked straight line."""
        self.op(x0, y0, "m", x1, y1, "l", "S")

    def rect(self, x: float, y: float, w: float, h: float, paint: str) -> None:
        """A rectangle; `paint` is "f" (fill) or "S" (stroke)."""
        self.op(x, y, w, h, "re", paint)

    def round_rect(self, x: float, y: float, w: float, h: float, r: float, paint: str) -> None:
        """A rectangle with quarter-circle corners of radius `r`."""
        r = min(r, w / 2, h / 2)
        if r <= 0:
            self.rect(x, y, w, h, paint)
            return
        k = r * (1 - KAPPA)
        x1, y1 = x + w, y + h
        self.op(x + r, y, "m", x1 - r, y, "l")
        self.op(x1 - k, y, x1, y + k, x1, y + r, "c", x1, y1 - r, "l")
        self.op(x1, y1 - k, x1 - k, y1, x1 - r, y1, "c", x + r, y1, "l")
        self.op(x + k, y1, x, y1 - k, x, y1 - r, "c", x, y + r, "l")
        self.op(x, y + k, x + k, y, x + r, y, "c", "h", paint)

    def ellipse(self, x: float, y: float, w: float, h: float, paint: str) -> None:
        """An ellipse inscribed in a rectangle."""
        rx, ry = w / 2, h / 2
        cx, cy = x + rx, y + ry
        kx, ky = rx * KAPPA, ry * KAPPA
        self.op(cx + rx, cy, "m")
        self.op(cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry, "c")
        self.op(cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy, "c")
        self.op(cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry, "c")
        self.op(cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy, "c", "h", paint)

    def path(self, points: list[tuple[float, float]], *, close: bool, paint: str) -> None:
        """A polyline through `points`, closed or open."""
        (x0, y0), *rest = points
        self.op(x0, y0, "m")
        for x, y in rest:
            self.op(x, y, "l")
        if close:
            self.parts.append("h")
        self.parts.append(paint)

    def text(self, font: FontFile, size: float, x: float, y: float, text: str) -> None:
        """`text` in `font` at `size` points, its baseline starting at (x, y)."""
        self.chars.setdefault(font.name, set()).update(text)
        hexed = glyph_hex(font, text).decode("ascii")
        tag = name(resource_name(font)).decode("ascii")
        self.parts.append(f"BT {tag} {num(size)} Tf 1 0 0 1 {num(x)} {num(y)} Tm {hexed} Tj ET")

    def text_aligned(
        self, font: FontFile, size: float, x: float, y: float, text: str, align: str
    ) -> None:
        """Text whose left end ("l"), middle ("m") or right end ("r") is at x."""
        self.text(font, size, line_start(x, font_width(font, text, size), align), y, text)

    def content(self) -> Content:
        """The compressed stream and the characters each font set."""
        data = "\n".join(self.parts).encode("ascii")
        chars = {font: "".join(sorted(used)) for font, used in sorted(self.chars.items())}
        nested = tuple((key, form, box) for key, (form, box) in sorted(self.nested.items()))
        return Content(compress(data), chars, nested)

    def show_drawing(self, drawing: Drawing, x: float, y: float, height: float) -> None:
        """A drawing as a form XObject shown at (x, y), `height` points tall: defined once per
        document however often it is shown (a counter on several charts)."""
        self.show_form(self.forms(drawing), x, y, height)

    def show_form(self, shown: Form, x: float, y: float, height: float) -> None:
        """A form made by drawing_form shown at (x, y), `height` points tall."""
        form_name, form, box = shown
        self.nested[form_name] = (form, box)
        for inner, inner_form, inner_box in form.nested:
            self.nested[inner] = (inner_form, inner_box)
        k = height / FORM_HEIGHT
        tag = name(form_name).decode("ascii")
        self.parts.append(f"q {num(k)} 0 0 {num(k)} {num(x)} {num(y)} cm {tag} Do Q")


# ---- display lists ----------------------------------------------------------------------------

FORM_HEIGHT = 100.0
"""Drawings shown as forms are drawn this many points tall and scaled where shown."""
_FORMS: dict[int, tuple[Drawing, Form]] = {}


def _drawing_form(drawing: Drawing) -> Form:
    """A drawing as a form: a name made from its content, the content, its box (remembered
    while the drawing object lives)."""
    found = _FORMS.get(id(drawing))
    if found is not None and found[0] is drawing:
        return found[1]
    if len(_FORMS) > 4096:
        _FORMS.clear()
    form = _form(drawing, drawing_content(drawing, FORM_HEIGHT))
    _FORMS[id(drawing)] = (drawing, form)
    return form


def _form(drawing: Drawing, content: Content) -> Form:
    """A drawing's form from its content (drawn FORM_HEIGHT points tall): named by a digest
    of the content, so that the same look is defined once per document."""
    digest = hashlib.sha1(content.stream + repr(sorted(content.chars.items())).encode())
    box = (0.0, 0.0, drawing.width * FORM_HEIGHT, FORM_HEIGHT)
    return (f"inset.{digest.hexdigest()[:16]}", content, box)


def drawing_form(drawing: Drawing, forms: KeptForms | None = None) -> Form:
    """A drawing as a form XObject, FORM_HEIGHT points tall: a name made from its content, the
    content, its box (Canvas.show_form shows it). With `forms`, the drawings it shows (the
    faces on a scenario picture) are made forms by it: read back from its cache when made in
    an earlier build."""
    if forms is None:
        return _drawing_form(drawing)
    return _form(drawing, drawing_content(drawing, FORM_HEIGHT, forms))


@functools.cache
def pdf_fingerprint() -> str:
    """Hash of this package's source files: what decides how a drawing becomes a form."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class KeptForms:
    """Drawings made forms and kept in a render cache, each under a digest of the drawing (its
    repr: a drawing is plain frozen records, the same in every build) and of the code that
    draws it (pdf_fingerprint, the renderer's fingerprint): a drawing made again in a later
    build (a face on a scenario picture with another piece changed) is not drawn again, and
    gives the same form. `keys` lists the cache entries used, each once."""

    def __init__(self, cache: RenderCache) -> None:
        self.cache = cache
        self.keys: list[str] = []
        self._by_digest: dict[str, Form] = {}
        self._by_id: dict[int, tuple[Drawing, Form]] = {}

    def __call__(self, drawing: Drawing) -> Form:
        same = self._by_id.get(id(drawing))
        if same is not None and same[0] is drawing:
            return same[1]
        digest = hashlib.sha1(repr(drawing).encode("utf-8")).hexdigest()
        form = self._by_digest.get(digest)
        if form is None:
            key = digest_key("drawing-form", pdf_fingerprint()[:32], digest)
            form = read_form(self.cache.get(key))
            if form is None:
                form = _drawing_form(drawing)
                self.cache.put(key, encode_content(form[1], form[0], form[2]))
            self._by_digest[digest] = form
            self.keys.append(key)
        self._by_id[id(drawing)] = (drawing, form)
        return form


def read_form(data: bytes | None) -> Form | None:
    """A form read back from its cache entry; None when there is none or it is damaged."""
    if data is None:
        return None
    try:
        content, (form_name, box) = decode_content(data)
        x0, y0, x1, y1 = cast(tuple[float, float, float, float], box)
        return str(form_name), content, (float(x0), float(y0), float(x1), float(y1))
    except (TypeError, ValueError):
        return None


def drawing_content(
    drawing: Drawing, height: float, forms: Callable[[Drawing], Form] | None = None
) -> Content:
    """A drawing as a content stream, `height` points tall with its bottom-left at (0, 0)
    (the drawings it shows made forms by `forms`, see Canvas)."""
    canvas = Canvas(forms)
    draw(canvas, drawing, 0.0, 0.0, height)
    return canvas.content()


def draw(canvas: Canvas, drawing: Drawing, x: float, y: float, height: float) -> None:
    """Append a drawing's ops: its bottom-left corner at (x, y), `height` points tall."""
    frame = _Frame(x, y, height)
    canvas.save()
    canvas.parts.append("1 j 0 J")
    for op in drawing.ops:
        _op(canvas, op, frame)
    canvas.restore()


class _Frame:
    """Face units to points: (0,0) top-left of the face → (x, y + height) on the page."""

    def __init__(self, x: float, y: float, height: float) -> None:
        self.x, self.y, self.k = x, y, height

    def point(self, u: float, v: float) -> tuple[float, float]:
        return self.x + u * self.k, self.y + (1.0 - v) * self.k

    def rect(self, box: Box, inset: float = 0.0) -> tuple[float, float, float, float]:
        """Left, bottom, width, height in points of a box shrunk by `inset` face units."""
        x0, y0, x1, y1 = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
        left, bottom = self.point(x0, y1)
        return left, bottom, max(0.0, (x1 - x0) * self.k), max(0.0, (y1 - y0) * self.k)


def _op(canvas: Canvas, op: Op, frame: _Frame) -> None:
    if isinstance(op, Rect):
        if op.fill is not None:
            canvas.fill_colour(op.fill)
            canvas.round_rect(*frame.rect(op.box), op.radius * frame.k, "f")
        if op.outline is not None and op.line_width > 0:
            _stroke(canvas, op.outline, op.line_width, frame)
            radius = max(0.0, op.radius - op.line_width / 2) * frame.k
            canvas.round_rect(*frame.rect(op.box, op.line_width / 2), radius, "S")
    elif isinstance(op, Ellipse):
        if op.fill is not None:
            canvas.fill_colour(op.fill)
            canvas.ellipse(*frame.rect(op.box), "f")
        if op.outline is not None and op.line_width > 0:
            _stroke(canvas, op.outline, op.line_width, frame)
            canvas.ellipse(*frame.rect(op.box, op.line_width / 2), "S")
    elif isinstance(op, Polygon):
        _polygon(canvas, op, frame)
    elif isinstance(op, Line):
        _stroke(canvas, op.colour, op.width, frame)
        canvas.path([frame.point(u, v) for u, v in op.points], close=False, paint="S")
    elif isinstance(op, Text):
        _text(canvas, op, frame)
    elif isinstance(op, Inset):
        left, bottom, _width, height = frame.rect(op.box)
        canvas.show_drawing(op.drawing, left, bottom, height)


def _stroke(canvas: Canvas, colour: RGB, width: float, frame: _Frame) -> None:
    canvas.stroke_colour(colour)
    canvas.line_width(width * frame.k)


def _polygon(canvas: Canvas, op: Polygon, frame: _Frame) -> None:
    stroke = op.outline is not None and op.line_width > 0
    if op.fill is None and not stroke:
        return
    if op.fill is not None:
        canvas.fill_colour(op.fill)
    if op.outline is not None and stroke:
        _stroke(canvas, op.outline, op.line_width, frame)
    paint = "B" if op.fill is not None and stroke else ("f" if op.fill is not None else "S")
    canvas.path([frame.point(u, v) for u, v in op.points], close=True, paint=paint)


def _text(canvas: Canvas, op: Text, frame: _Frame) -> None:
    """One line of real text, anchored as the raster back end anchors it."""
    if not op.text:
        return
    font = font_for(op.text, op.bold, op.lang)
    total = text_width(op.text, op.height, op.bold, op.lang)
    start = op.start(total)
    px, py = frame.point(start, op.y + baseline_offset(font) * op.height)
    canvas.fill_colour(op.colour)
    canvas.text(font, op.height * frame.k, px, py, op.text)
