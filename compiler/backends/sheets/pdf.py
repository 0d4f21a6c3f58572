"""Write an imposed sheet document as a print-ready PDF (our own writer: compiler.backends.pdf).

Every distinct face is one Form XObject ("cm.front.<n>.<id>" / "cm.back.<n>.<id>"), drawn at its
slot with a plain translation, so copies share one definition and the placement of each face can
be read back from the page content (the tests do). A face printed from a picture (piece art) is
an Image XObject ("cm.img.<digest>", once per picture) scaled into its slot, keeping its aspect.
Face forms come from the render cache when unchanged, RUN faces at a time as the PDF objects
they made (a changed face makes its run again); a run of units' pieces, the sheet pages, the
calibration pair and the index are kept as the bytes of the objects they made and spliced into
the file as they are (compiler.backends.sheets.splice), so a warm build of a large game writes
its unchanged parts without making or serialising them again. Each page carries MediaBox =
paper, TrimBox = the piece grid and BleedBox = TrimBox grown by the bleed. Bleed: under every
face lies a copy of it scaled up by the bleed, so a slightly-off cut shows the face's edge
colour, not white paper; the faces themselves are drawn after all bleeds, so neighbours packed
edge to edge stay intact.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain

from compiler.backends.art.fonts import REGULAR, font_width
from compiler.backends.keptrecord import all_of_type
from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import (
    Box,
    Content,
    FormRun,
    PdfDocument,
    decode_content,
    encode_content,
)
from compiler.backends.pdf.syntax import name, num
from compiler.backends.pieceart import PieceImage, pixels
from compiler.backends.rendercache import RenderCache, cache_key, digest_key
from compiler.backends.sheets.faces import FaceRef, face_keys, render_forms
from compiler.backends.sheets.fonts import fit, font_for
from compiler.backends.sheets.impose import (
    Imposition,
    Placement,
    Rect,
    bounding,
    impose,
    mirror,
    sheet_grid,
)
from compiler.backends.sheets.options import MM, SheetOptions
from compiler.backends.sheets.splice import (
    KeptDamaged,
    Segment,
    SplicedDocument,
    join_segments,
    numbering,
)
from compiler.i18n import N_, tr

MARK_GAP = 0.5 * MM
"""Space between the bleed edge and the start of a cut mark."""
EDGE_KEEP = 3.0 * MM
"""Cut marks stop this far from the paper edge (most printers cannot print closer)."""
MARK_WIDTH = 0.25
LABEL_SIZE = 6.0
CROSS = 24.0 * MM
"""Side of the calibration cross's square."""
PICTURE = "cm.img."
"""Names of piece pictures (images named by their content)."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of a sheet document: its faces and how many copies to print."""

    id: str
    name: str
    front: FaceRef
    back: FaceRef | None
    copies: int


@dataclass(frozen=True, slots=True)
class PieceRun:
    """Pieces listed together (the counters of a run of units, say): `count` of them, listed
    by `make`. With a `key` (the digest of what decides the pieces and their faces), the
    document keeps the forms they made under it: an unchanged run is not listed at all."""

    key: str | None
    count: int
    make: Callable[[], tuple[Piece, ...]]


class Pieces:
    """A document's pieces as runs, listed only when asked for (a warm build of a large game
    reads its unchanged runs' forms, pages and index back by their keys)."""

    def __init__(self, runs: Iterable[PieceRun]) -> None:
        self.runs = tuple(runs)
        self.total = sum(run.count for run in self.runs)
        self._listed: dict[int, tuple[Piece, ...]] = {}
        self._all: tuple[Piece, ...] | None = None

    def of_run(self, number: int) -> tuple[Piece, ...]:
        """The pieces of run `number` (listed once)."""
        found = self._listed.get(number)
        if found is None:
            found = self._listed[number] = self.runs[number].make()
            if len(found) != self.runs[number].count:
                raise ValueError("a run listed another number of pieces than it counts")
        return found

    def listed(self) -> tuple[Piece, ...]:
        """Every piece, in order."""
        if self._all is None:
            self._all = tuple(chain.from_iterable(map(self.of_run, range(len(self.runs)))))
        return self._all


def piece_runs(pieces: Iterable[Piece]) -> Pieces:
    """Some pieces as one run without a key."""
    listed = tuple(pieces)
    return Pieces([PieceRun(None, len(listed), lambda: listed)])


class _Listing:
    """SheetDoc.pieces: given listed or as runs (Pieces), read listed (the runs listed the
    first time)."""

    def __get__(self, doc: SheetDoc | None, owner: type | None = None) -> tuple[Piece, ...]:
        if doc is None:
            return ()  # no pieces: the field's default
        return doc.runs.listed()

    def __set__(self, doc: SheetDoc, pieces: Iterable[Piece] | Pieces) -> None:
        runs = pieces if isinstance(pieces, Pieces) else piece_runs(pieces)
        doc.__dict__["runs"] = runs


@dataclass(frozen=True, eq=False)
class SheetDoc:
    """What one PDF holds: a title, the pieces in print order and the slot size in mm. The
    pieces are given listed or as runs (see Pieces); `pieces` lists them, `runs` does not."""

    title: str
    kind: str
    pieces: _Listing = _Listing()
    slot_mm: tuple[float, float] = (0.0, 0.0)

    @property
    def runs(self) -> Pieces:
        """The pieces as runs."""
        found: Pieces = self.__dict__["runs"]
        return found


@dataclass(frozen=True, slots=True)
class Drawn:
    """One face to draw on a page: its form's name and the rectangle it fills."""

    form: str
    rect: Rect


def render(
    doc: SheetDoc,
    options: SheetOptions,
    cache: RenderCache | None = None,
) -> bytes:
    """The whole PDF of `doc`: sheets, then the calibration pair, then the sheet index.

    Faces come from `cache` when drawn before (text that will not fit is reported before the
    build draws anything: pipeline.face_findings); so do the objects the runs of pieces and
    the pages made, spliced as they were written (made again when what was kept does not fit
    together)."""
    return b"".join(render_parts(doc, options, cache))


def render_parts(
    doc: SheetDoc, options: SheetOptions, cache: RenderCache | None = None
) -> list[bytes]:
    """The PDF of `doc` (as render makes it) as parts to write one after another."""
    cache = cache if cache is not None else RenderCache(None)
    try:
        return _render(doc, options, cache, kept=True)
    except KeptDamaged:
        return _render(doc, options, cache, kept=False)


def _render(doc: SheetDoc, options: SheetOptions, cache: RenderCache, *, kept: bool) -> list[bytes]:
    """render, reading back the objects the cache kept only when `kept`."""
    imposing = functools.cache(partial(_imposed, doc, options))
    pdf = SplicedDocument()
    pdf.kept_fonts, pdf.keep_font = cache.get, cache.put  # font subsets made before
    grid = sheet_grid(options, doc.slot_mm)
    slot = (grid.slot_w, grid.slot_h)
    defined = _define_forms(pdf, doc.runs, slot, cache, kept, doc.kind)
    key = _sheet_pages_key(doc, defined, options)
    pages = partial(_all_sheet_pages, cache, key, doc, imposing, defined, options)
    _add_pages(pdf, cache, (key, defined.numbered()), pages, kept)
    if options.duplex == "mirror" and options.calibration and defined.backs:
        calibration = partial(_calibration_pages, pdf, options)
        _spliced(pdf, cache, (cache_key("sheet-calibration", options),), calibration, kept)
    if options.index:
        key = _index_key(doc, options, defined.listed)
        index = partial(_all_index_pages, cache, key, doc, imposing, options)
        _add_pages(pdf, cache, (key,), index, kept)
    return pdf.write_parts(
        {
            "Title": doc.title,
            "Author": "countermix",
            "Creator": "countermix",
            "Subject": tr("{kind} print sheets", options.lang, kind=doc.kind),
        }
    )


Imposing = Callable[[], Imposition]
"""The imposition of a document, placed when first asked for (the pages read back from the
cache do not need it)."""


def _imposed(doc: SheetDoc, options: SheetOptions) -> Imposition:
    """Where every copy of every piece goes."""
    return impose([p.copies for p in doc.pieces], options, doc.slot_mm)


# ---- faces as forms ---------------------------------------------------------------------------


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
"""What a piece id may hold that a form name does not."""


def form_name(side: str, item: int, piece_id: str) -> str:
    """The form of one piece's side: a valid PDF name that says what it holds."""
    return f"cm.{side}.{item:04d}.{_UNSAFE.sub('_', piece_id)}"


Forms = dict[tuple[int, str], tuple[str, float, float]]
"""(item, side) → (form or image name, face width and height in points)."""


@dataclass
class Defined:
    """What defining a document's faces tells the rest of it: each face's form (as parts: a
    run's faces and their forms, made into one table when the pages are drawn), and per run
    of pieces a digest of how its faces are shown (form names, sizes, copies) and one of what
    the index says of its pieces (ids, names, copies, backs), from which the pages and the
    index are keyed without listing the pieces again; and whether any piece has a back."""

    parts: list[Part | bytes] = field(default_factory=list)
    """Each run's faces and their forms, or those of a run read back, as cache bytes (read
    only when the pages are drawn again)."""
    shown: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    backs: bool = False
    numbering: list[str] = field(default_factory=list)
    """Per part of the document's forms, a digest of their names and object numbers."""
    run_backs: list[bool] = field(default_factory=list)
    """Per run, whether a piece of it has a back."""
    kept_faces: list[str] = field(default_factory=list)
    """Where the faces of the runs read back are kept, and their places (cache keys)."""

    def forms(self) -> Forms:
        """(item, side) → each face's form or image and its size."""
        forms: Forms = {}
        for part in self.parts:
            ats, shows = _part(part) if isinstance(part, bytes) else part
            forms.update(zip(ats, shows, strict=True))
        return forms

    def numbered(self) -> str:
        """A digest of every form's name and object number (what the pages are written
        with)."""
        return hashlib.sha256("\n".join(self.numbering).encode()).hexdigest()


Part = tuple[Sequence[tuple[int, str]], Sequence[tuple[str, float, float]]]
"""A run's faces as (item, side) and their forms as (name, width, height)."""


def _part(data: bytes) -> Part:
    """A run's part kept as cache bytes; KeptDamaged when they are not one."""
    try:
        ats, shows = marshal.loads(data)
    except (EOFError, TypeError, ValueError) as err:
        raise KeptDamaged("a kept run of pieces") from err
    if not (all_of_type(ats, tuple) and all_of_type(shows, tuple)) or len(ats) != len(shows):
        raise KeptDamaged("a kept run of pieces")
    return ats, shows


def _define_forms(
    pdf: SplicedDocument,
    pieces: Pieces,
    slot: tuple[float, float],
    cache: RenderCache,
    kept: bool,
    kind: str = "",
) -> Defined:
    """Define every face once: drawn faces as forms `slot[1]` points tall, pictures as images
    fitted into the slot. A run of pieces with a key is defined as a whole, from the cache when
    the same run made its forms at the same place of the document before (its pieces are then
    not listed); the others RUN faces at a time, each run's objects from the cache likewise.

    The forms of a keyed run's faces are kept with it (not face by face: the cache would
    count tens of thousands of faces used on every build), and found there by the run that
    takes its place (the place of run n of a `kind` of document) when the run changes."""
    runs = pieces.runs
    unkeyed = [number for number, run in enumerate(runs) if run.key is None]
    pictures = _define_pictures(pdf, chain.from_iterable(map(pieces.of_run, unkeyed)))
    places = [_place_key(kind, number, slot[1]) for number in range(len(runs))]
    if not kept or not _first_run_kept(pdf, pieces, slot[1], cache):
        _draw_all_missing(pieces, pictures, slot[1], cache, places)
    defined = Defined()
    defined.numbering.append(_numbering_since(pdf, 0))
    item = 0
    for start in range(0, len(runs), GROUP):
        group = runs[start : start + GROUP]
        key = _group_key(pdf, group, item, slot[1]) if kept else None
        if key is not None and _define_kept_group(pdf, group, key, cache, defined):
            item += sum(run.count for run in group)
            continue
        made: list[RunMade | None] = []
        for number, run in enumerate(group, start=start):
            before = len(pdf.defined)
            found = _define_kept_run(pdf, run, item, slot[1], cache, defined) if kept else None
            if found is None:
                listed = pieces.of_run(number)
                place = None if run.key is None else places[number]
                args = (pdf, listed, item, slot, cache, pictures, defined, run.key, place)
                found = _define_pieces(*args)
                defined.numbering.append(_numbering_since(pdf, before))
            else:
                defined.kept_faces.append(places[number])
            made.append(found)
            item += run.count
        if key is not None:
            _keep_group(cache, key, group, made, defined, places[start : start + len(group)])
    cache.keep(defined.kept_faces)  # the runs' faces, and the places, while the runs are kept
    return defined


GROUP = 8
"""Keyed runs of pieces kept together as well, back to back: a warm build of a large game
reads an unchanged group as one entry, not run by run."""

RunMade = tuple[str, Segment]
"""What a keyed run defined: where it is kept, and its objects."""


def _group_key(
    pdf: PdfDocument, group: Sequence[PieceRun], first: int, height: float
) -> str | None:
    """Where a group of runs is kept (None for a group that is not GROUP keyed runs): their
    keys, the item they start at, the faces' height, the object number the group starts at
    and the fonts reserved before it (what decides every run's place and objects)."""
    keys = [run.key for run in group]
    if len(group) != GROUP or None in keys:
        return None
    runs = hashlib.sha256(":".join(map(str, keys)).encode()).hexdigest()
    return digest_key(
        "sheet-run-group", runs, str(first), repr(height), str(pdf.next_number), _fonts(pdf)
    )


def _define_kept_group(
    pdf: SplicedDocument,
    group: Sequence[PieceRun],
    key: str,
    cache: RenderCache,
    defined: Defined,
) -> bool:
    """Define a group of keyed runs from what the cache kept of it here; False when it kept
    nothing that fits (its runs are then defined one by one)."""
    found = cache.get(key)
    if found is None:
        return False
    try:
        values = marshal.loads(found)
        runs, keeps = values[:2]
    except (EOFError, TypeError, ValueError):
        return False
    if type(runs) is not tuple or len(runs) != len(group) or not all_of_type(runs, tuple):
        return False
    if type(keeps) is not tuple or not all_of_type(keeps, str):
        return False
    for run, values_of in zip(group, runs, strict=True):
        if len(values_of) != 6 or values_of[0] != run.count:
            return False
        if not all_of_type(values_of[1:2], bytes) or not all_of_type(values_of[2:4], str):
            return False
        if type(values_of[5]) is not str:
            return False
    segment = Segment.of(values[2:])
    if segment is None or not pdf.replay(segment):
        return False
    for _count, part, shown, listed, backs, numbered in runs:
        _add_defined(defined, part, shown, listed, bool(backs))
        defined.numbering.append(numbered)
    defined.kept_faces.extend(keeps)  # its runs, their faces and places stay cached
    return True


def _keep_group(
    cache: RenderCache,
    key: str,
    group: Sequence[PieceRun],
    made: Sequence[RunMade | None],
    defined: Defined,
    places: Sequence[str],
) -> None:
    """Keep a group of keyed runs, each defined (read back or made) and kept apart, under
    `key` (_group_key): their objects as one segment (their chunks as they are: the file's
    identifier is taken over the chunks), what each run tells the document, and the entries
    the group stands for (kept while it is)."""
    recorded = [found for found in made if found is not None]
    if len(recorded) != len(group):
        return  # a run whose objects could not be recorded: the group is not kept
    runs = []
    for offset, run in enumerate(group):
        at = len(defined.parts) - len(group) + offset
        part = defined.parts[at]
        packed = part if isinstance(part, bytes) else marshal.dumps(tuple(map(tuple, part)))
        backs = defined.run_backs[at]
        numbered = defined.numbering[at + 1]
        runs.append((run.count, packed, defined.shown[at], defined.listed[at], backs, numbered))
    kept = [kept for kept, _segment in recorded]
    keeps = (*kept, *map(_faces_key, kept), *places)
    cache.put(
        key,
        marshal.dumps(
            (tuple(runs), keeps, *join_segments([seg for _kept, seg in recorded]).values())
        ),
    )


def _place_key(kind: str, number: int, height: float) -> str:
    """Where the key of the run last made at a place of a document is kept (run `number` of
    a `kind` of document, faces `height` points tall)."""
    return digest_key("sheet-run-place", kind, str(number), repr(height))


def _faces_key(kept: str) -> str:
    """Where the forms of a keyed run's faces are kept (`kept`: where the run is)."""
    return kept + ":faces"


def _recover_faces(
    cache: RenderCache, keys: Sequence[str], faces: Sequence[FaceRef], places: Iterable[str]
) -> None:
    """Faces the cache lacks, put back from the forms kept with the runs some places held
    (those it has not there are drawn)."""
    missing = {face.identity: key for face, key in zip(faces, keys, strict=True)}
    missing = {identity: key for identity, key in missing.items() if not cache.holds(key)}
    for place in places:
        if not missing:
            return
        for identity, form in _kept_faces(cache, cache.get(place)):
            key = missing.pop(identity, None)
            if key is not None:
                cache.put(key, form)


def _kept_faces(cache: RenderCache, kept: bytes | None) -> list[tuple[str, bytes]]:
    """The faces kept with a run (identity, form as cache bytes), where a place's entry
    (`kept`) says the run is; none when there are none, or they are damaged."""
    if kept is None:
        return []
    found = cache.get(_faces_key(kept.decode("utf-8", "replace")))
    if found is None:
        return []
    try:
        pairs = marshal.loads(found)
    except (EOFError, TypeError, ValueError):
        return []
    if type(pairs) is not tuple or not all_of_type(pairs, tuple):
        return []
    if any(
        len(pair) != 2 or type(pair[0]) is not str or type(pair[1]) is not bytes for pair in pairs
    ):
        return []
    return list(pairs)


def _numbering_since(pdf: PdfDocument, defined: int) -> str:
    """The numbering digest of the forms the document defined since it had `defined`."""
    names = pdf.defined[defined:]
    return numbering(names, [pdf.forms[name].number for name in names])


def _first_run_kept(pdf: PdfDocument, pieces: Pieces, height: float, cache: RenderCache) -> bool:
    """Whether the cache kept the first run's forms where this document starts them (a warm
    build's sheets: the runs are then defined one by one, most of them read back)."""
    runs = pieces.runs
    if not runs or runs[0].key is None:
        return False
    return cache.holds(_kept_run_key(runs[0].key, 0, height, pdf.next_number, _fonts(pdf)))


def _draw_all_missing(
    pieces: Pieces,
    pictures: dict[str, tuple[str, float]],
    height: float,
    cache: RenderCache,
    places: Sequence[str],
) -> None:
    """Draw every drawn face the cache lacks at once, on every core, before the runs are
    defined (a cold build's sheets: drawing each run's faces apart started a pool of workers
    per run, which doubled the cold sheets' time)."""
    faces = [
        face
        for piece in pieces.listed()
        for face in (piece.front, piece.back)
        if face is not None and face.identity not in pictures
    ]
    keys = face_keys(faces, height)
    _recover_faces(cache, keys, faces, places)
    _draw_missing(cache, keys, faces, height)


def _define_pieces(
    pdf: SplicedDocument,
    pieces: Sequence[Piece],
    first: int,
    slot: tuple[float, float],
    cache: RenderCache,
    pictures: dict[str, tuple[str, float]],
    defined: Defined,
    key: str | None,
    place: str | None = None,
) -> RunMade | None:
    """Define the faces of some pieces (the first one item `first` of the document); with
    `key` (a run's), their forms are drawn as one run and kept under it (where, and its
    objects, are returned)."""
    height = slot[1]
    forms: Forms = {}
    drawn: list[tuple[tuple[int, str], str, FaceRef]] = []
    for item, piece in enumerate(pieces, start=first):
        for side, face in (("front", piece.front), ("back", piece.back)):
            if face is None:
                continue
            if face.identity in pictures:
                image, aspect = pictures[face.identity]
                width = min(slot[0], height * aspect)
                forms[(item, side)] = (image, width, width / aspect)
                continue
            form = form_name(side, item, piece.id)
            forms[(item, side)] = (form, 0.0, height)  # its width once defined, in this order
            drawn.append(((item, side), form, face))
    faces = [face for _at, _name, face in drawn]
    keys = face_keys(faces, height)
    _recover_faces(cache, keys, faces, () if place is None else (place,))
    _draw_missing(cache, keys, faces, height)
    step = RUN if key is None else max(1, len(drawn))
    start_number, names_before = pdf.next_number, len(pdf.defined)
    fonts, fonts_before = _fonts(pdf), dict(pdf.font_numbers())
    recorded: list[FormRun | None] = []
    for start in range(0, len(drawn), step):
        run = drawn[start : start + step]
        part = keys[start : start + step]
        widths, made = _define_run(pdf, run, part, height, cache, kept=key is None)
        recorded.append(made)
        for (at, form, _face), width in zip(run, widths, strict=True):
            forms[at] = (form, width, height)
    shown = _shown_digest(forms, pieces)
    listed = _listed_digest(pieces)
    backs = any(piece.back is not None for piece in pieces)
    ats, shows = tuple(forms), tuple(forms.values())
    if key is not None and len(recorded) == 1 and recorded[0] is not None:
        chars = recorded[0].chars
        pages = len(pdf.pages)
        segment = pdf.segment_since(start_number, fonts_before, pages, names_before, chars)
        lazy = marshal.dumps((ats, shows))
        entry = (len(pieces), shown, listed, backs, lazy, *segment.values())
        kept = _kept_run_key(key, first, height, start_number, fonts)
        cache.put(kept, marshal.dumps(entry))
        _keep_faces(cache, kept, faces, keys, place)
        _add_defined(defined, (ats, shows), shown, listed, backs)
        return kept, segment
    _add_defined(defined, (ats, shows), shown, listed, backs)
    return None


def _keep_faces(
    cache: RenderCache, kept: str, faces: Sequence[FaceRef], keys: Sequence[str], place: str | None
) -> None:
    """Keep the forms of a keyed run's faces with it (`kept`: where the run is), and the run
    as the one its place holds."""
    forms = [(face.identity, cache.get(key)) for face, key in zip(faces, keys, strict=True)]
    pairs = tuple((identity, form) for identity, form in forms if form is not None)
    cache.put(_faces_key(kept), marshal.dumps(pairs))
    if place is not None:
        cache.put(place, kept.encode("utf-8"))


def _add_defined(
    defined: Defined,
    part: Part | bytes,
    shown: str,
    listed: str,
    backs: bool,
) -> None:
    defined.parts.append(part)
    defined.shown.append(shown)
    defined.listed.append(listed)
    defined.run_backs.append(backs)
    defined.backs = defined.backs or backs


def _fonts(pdf: PdfDocument) -> str:
    """The fonts the document has reserved so far (part of what decides a run's objects)."""
    return ",".join(f"{font}={number}" for font, number in pdf.font_numbers())


def _kept_run_key(key: str, first: int, height: float, number: int, fonts: str) -> str:
    """Where the forms of a keyed run of pieces are kept: the run's key, the item it starts
    at, the faces' height, the object number it starts at and the fonts reserved before it."""
    return digest_key("sheet-piece-run-4", key, str(first), repr(height), str(number), fonts)


def _define_kept_run(
    pdf: SplicedDocument,
    run: PieceRun,
    first: int,
    height: float,
    cache: RenderCache,
    defined: Defined,
) -> RunMade | None:
    """Define a keyed run of pieces from what the cache kept of it here (its objects spliced
    as they were written): where it is kept and its objects; None when it kept nothing that
    fits, or the run has no key (the run is then listed and defined again)."""
    if run.key is None:
        return None
    kept = _kept_run_key(run.key, first, height, pdf.next_number, _fonts(pdf))
    found = cache.get(kept)
    if found is None:
        return None
    try:
        values = marshal.loads(found)
        count, shown, listed, backs, part = values[:5]
    except (EOFError, TypeError, ValueError):
        return None
    if not (all_of_type((shown, listed), str) and type(part) is bytes and count == run.count):
        return None
    segment = Segment.of(values[5:])
    if segment is None or not pdf.replay(segment):
        return None
    defined.kept_faces.append(_faces_key(kept))  # its faces stay cached while it is
    _add_defined(defined, part, shown, listed, bool(backs))
    defined.numbering.append(segment.numbered)
    return kept, segment


def _shown_digest(forms: Forms, pieces: Sequence[Piece]) -> str:
    """How some pieces' faces are shown: each face's form or image and its size, and the
    pieces' copies (what the sheet pages are drawn from)."""
    shown = "\n".join(
        f"{item}.{side}:{name}:{width:.4f}:{height:.4f}"
        for (item, side), (name, width, height) in forms.items()
    )
    copies = ",".join(str(p.copies) for p in pieces)
    return hashlib.sha256(f"{shown}\n{copies}".encode()).hexdigest()


def _listed_digest(pieces: Sequence[Piece]) -> str:
    """What the sheet index says of some pieces: ids, names, copies and backs."""
    rows = tuple((p.id, p.name, p.copies, p.back is not None) for p in pieces)
    return hashlib.sha256(repr(rows).encode("utf-8")).hexdigest()


RUN = 64
"""Faces per cached run of form objects: a changed face makes its run's forms again."""


def _draw_missing(
    cache: RenderCache, keys: Sequence[str], faces: Sequence[FaceRef], height: float
) -> None:
    """Draw every face the cache does not hold, all at once (on every core), so the runs
    that need them find them drawn."""
    absent = [i for i, key in enumerate(keys) if not cache.holds(key)]
    if absent:
        render_forms([faces[i] for i in absent], height, cache)


def _run_key(pdf: PdfDocument, keys: Sequence[str], names: Sequence[str], height: float) -> str:
    """What decides a run's objects: its faces' looks and form names, their height, the
    object number it starts at and the fonts the document has reserved before it."""
    faces = hashlib.sha256("\n".join([*keys, *names]).encode("utf-8")).hexdigest()
    fonts = ",".join(f"{font}={number}" for font, number in pdf.font_numbers())
    return digest_key("sheet-form-run", repr(height), str(pdf.next_number), fonts, faces)


def _define_run(
    pdf: PdfDocument,
    run: Sequence[tuple[tuple[int, str], str, FaceRef]],
    keys: Sequence[str],
    height: float,
    cache: RenderCache,
    kept: bool = True,
) -> tuple[list[float], FormRun | None]:
    """Define a run of faces as forms: their objects from the cache when it holds them, else
    made from the faces' forms (and kept, unless not `kept`: a keyed run of pieces keeps its
    own); the faces' widths and the objects as a run (None when they could not be recorded)."""
    names = [form for _at, form, _face in run]
    key = _run_key(pdf, keys, names, height)
    found = _kept_run(cache.get(key), pdf, len(run)) if kept else None
    if found is not None:
        pdf.replay_forms(found[1])
        cache.keep(keys)  # the faces stay cached while their run is
        return found[0], found[1]
    made = render_forms([face for _at, _name, face in run], height, cache)
    forms = [made[face.identity] for _at, _name, face in run]
    widths = [form.width for form in forms]
    recorded = pdf.record_forms(
        [
            (label, form.content, (0.0, 0.0, form.width, height))
            for label, form in zip(names, forms, strict=True)
        ]
    )
    if recorded is not None and kept:
        cache.put(key, marshal.dumps((tuple(widths), recorded.encode())))
    return widths, recorded


def _kept_run(
    found: bytes | None, pdf: PdfDocument, count: int
) -> tuple[list[float], FormRun] | None:
    """A cached run's widths and objects, when the entry is one that fits here (`count`
    faces, starting at the document's next object number); None for anything else, which is
    then made again."""
    if found is None:
        return None
    try:
        widths, objects = marshal.loads(found)
        recorded = FormRun.decode(objects)
        shown = [float(width) for width in widths]
    except (EOFError, TypeError, ValueError):
        return None
    if len(shown) != count or len(recorded.names) != count or recorded.start != pdf.next_number:
        return None
    return shown, recorded


def _define_pictures(pdf: PdfDocument, pieces: Iterable[Piece]) -> dict[str, tuple[str, float]]:
    """Every raster picture of piece art once (named by its content); face identity → (image
    name, width / height). SVG pictures are left out: their faces are drawn."""
    loaded: dict[str, tuple[str, float] | None] = {}
    out: dict[str, tuple[str, float]] = {}
    for piece in pieces:
        for face in (piece.front, piece.back):
            if face is None or face.picture is None:
                continue
            path = face.picture.path
            if path not in loaded:
                loaded[path] = _add_picture(pdf, face.picture.load())
            found = loaded[path]
            if found is not None:
                out[face.identity] = found
    return out


def _add_picture(pdf: PdfDocument, picture: PieceImage) -> tuple[str, float] | None:
    """A raster picture as an image of the document (once per content): its name and width /
    height; None for an SVG picture."""
    if picture.ext == "svg":
        return None
    image = pixels(picture)
    name = f"{PICTURE}{hashlib.sha1(picture.data).hexdigest()[:16]}"
    if name not in pdf.forms:
        bands = image.split()
        alpha = bands[3].tobytes() if image.mode == "RGBA" else None
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        pdf.add_image(name, image.size, rgb.tobytes(), alpha)
    return name, image.width / image.height


def is_picture(name: str) -> bool:
    """Whether a face's name is an image (a unit square), not a form (drawn at its size)."""
    return name.startswith(PICTURE)


def _face_rect(slot: Rect, width: float, height: float) -> Rect:
    """Where a face `width` × `height` sits in its slot: centred (drawn faces are full height)."""
    return Rect(slot.x + (slot.w - width) / 2, slot.y + (slot.h - height) / 2, width, height)


def _drawn(placements: Iterable[Placement], forms: Forms, side: str) -> list[Drawn]:
    """The faces of one side of some placements (pieces without that side are skipped)."""
    out: list[Drawn] = []
    for placement in placements:
        slot = placement.front if side == "front" else placement.back
        form = forms.get((placement.item, side))
        if slot is not None and form is not None:
            out.append(Drawn(form[0], _face_rect(slot, form[1], form[2])))
    return out


def _draw_faces(canvas: Canvas, faces: Sequence[Drawn], bleed: float) -> None:
    """Bleed under every face first, then every face on top (an image is drawn into the unit
    square, so it is scaled to its rectangle)."""
    if bleed > 0:
        for face in faces:
            at = (face.rect.x - bleed, face.rect.y - bleed)
            if is_picture(face.form):
                _place(canvas, face.form, (face.rect.w + 2 * bleed, face.rect.h + 2 * bleed), at)
                continue
            sx = (face.rect.w + 2 * bleed) / face.rect.w
            sy = (face.rect.h + 2 * bleed) / face.rect.h
            _place(canvas, face.form, (sx, sy), at)
    for face in faces:
        scale = (face.rect.w, face.rect.h) if is_picture(face.form) else (1.0, 1.0)
        _place(canvas, face.form, scale, (face.rect.x, face.rect.y))


def _place(canvas: Canvas, form: str, scale: tuple[float, float], at: tuple[float, float]) -> None:
    """Show a form scaled and moved (a plain translation when the scale is 1)."""
    tag = name(form).decode("ascii")
    if scale == (1.0, 1.0):
        canvas.parts.append(f"q 1 0 0 1 {num(at[0])} {num(at[1])} cm {tag} Do Q")
    else:
        sx, sy, x, y = (num(v) for v in (*scale, *at))
        canvas.parts.append(f"q {sx} 0 0 {sy} {x} {y} cm {tag} Do Q")


# ---- sheet pages ------------------------------------------------------------------------------


def _cached_content(
    cache: RenderCache, parts: tuple[object, ...], draw: Callable[[Canvas], None]
) -> Content:
    """A page's content from the cache when the same inputs drew it before, else drawn."""

    def drawn() -> bytes:
        canvas = Canvas()
        draw(canvas)
        return encode_content(canvas.content())

    return decode_content(cache.fetch(cache_key("sheet-page", *parts), drawn))[0]


Page = tuple[tuple[float, float], Content, tuple[str, ...], dict[str, Box]]
"""A page to add: its size, content, the forms it shows and its boxes."""


def _add_pages(
    pdf: SplicedDocument,
    cache: RenderCache,
    decided: tuple[str, ...],
    pages: Callable[[], list[Page]],
    kept: bool,
) -> None:
    """Add some pages (pages showing forms: see _spliced), the cache keeping their objects
    under what decides them (`decided`: their contents' key first, the numbering of the forms
    they show)."""

    def add() -> Iterator[tuple[str, str]]:
        pdf.name_forms()
        added = pages()
        for page in added:
            pdf.add_page(*page)
        return chain.from_iterable(content.chars.items() for _size, content, _f, _b in added)

    _spliced(pdf, cache, decided, add, kept)


def _spliced(
    pdf: SplicedDocument,
    cache: RenderCache,
    decided: tuple[str, ...],
    add: Callable[[], Iterable[tuple[str, str]]],
    kept: bool,
) -> None:
    """Add a part of the document: as the objects it made when the cache kept them for this
    place of the document (what decides the part, `decided`, its contents' key first; the
    next object number and the fonts reserved), else by `add()` (which gives the text it
    set: font name, text), and kept so."""
    key = digest_key("sheet-part-objects", *decided, str(pdf.next_number), _fonts(pdf))
    segment = Segment.decode(cache.get(key)) if kept else None
    if segment is not None and pdf.replay(segment):
        cache.keep(decided[:1])  # its contents stay cached while its objects are
        return
    start, fonts, count, names = (
        pdf.next_number,
        dict(pdf.font_numbers()),
        len(pdf.pages),
        len(pdf.defined),
    )
    chars = add()
    segment = pdf.segment_since(start, fonts, count, names, chars)
    cache.put(key, segment.encode())


def _sheet_pages_key(doc: SheetDoc, defined: Defined, options: SheetOptions) -> str:
    """What decides every sheet's pages: pieces, copies, the faces' forms and widths (each
    run's digest of them), the options."""
    digest = hashlib.sha256("\n".join(defined.shown).encode()).hexdigest()
    return cache_key("sheet-pages", doc.title, doc.slot_mm, options, digest)


def _all_sheet_pages(
    cache: RenderCache,
    key: str,
    doc: SheetDoc,
    imposing: Imposing,
    defined: Defined,
    options: SheetOptions,
) -> list[Page]:
    """Every sheet's pages: remembered as a whole under `key` (_sheet_pages_key), so a
    rebuild after a change to some face's look — not to the sheet layout — reads them back in
    one piece."""

    def drawn() -> bytes:
        imposition = imposing()
        forms = defined.forms()
        return _encode_pages(
            [
                page
                for sheet in range(imposition.sheets)
                for page in _sheet_pages(cache, doc, imposition, forms, sheet, options)
            ]
        )

    return _decode_pages(cache.fetch(key, drawn))


def _encode_pages(pages: list[Page]) -> bytes:
    return marshal.dumps(
        [
            (size, encode_content(content), forms, tuple(boxes.items()))
            for size, content, forms, boxes in pages
        ]
    )


def _decode_pages(data: bytes) -> list[Page]:
    return [
        (tuple(size), decode_content(content)[0], tuple(forms), dict(boxes))
        for size, content, forms, boxes in marshal.loads(data)
    ]


def _sheet_pages(
    cache: RenderCache,
    doc: SheetDoc,
    imposition: Imposition,
    forms: Forms,
    sheet: int,
    options: SheetOptions,
) -> list[Page]:
    """One sheet: a front page and a mirrored back page, or one gutter-fold or front-only page."""
    placements = imposition.on_sheet(sheet)
    fields = {"title": doc.title, "sheet": sheet + 1, "sheets": imposition.sheets}
    lang = options.lang
    fronts = _drawn(placements, forms, "front")
    backs = _drawn(placements, forms, "back")
    if imposition.mode == "gutter-fold":
        label = tr("{title} — sheet {sheet} of {sheets} (fold)", lang, **fields)
        return [_sheet_page(cache, fronts + backs, placements, options, label, fold=True)]
    label = tr("{title} — sheet {sheet} of {sheets}, front", lang, **fields)
    pages = [_sheet_page(cache, fronts, placements, options, label)]
    if imposition.mode == "mirror" and backs:
        label = tr("{title} — sheet {sheet} of {sheets}, back", lang, **fields)
        pages.append(_sheet_page(cache, backs, placements, options, label, back=True))
    return pages


def _sheet_page(
    cache: RenderCache,
    faces: Sequence[Drawn],
    placements: Sequence[Placement],
    options: SheetOptions,
    label: str,
    *,
    back: bool = False,
    fold: bool = False,
) -> Page:
    """One page of faces with its cut marks, boxes and label."""
    slots = _slots(placements, back=back, fold=fold)
    trim = bounding(slots)

    def draw(canvas: Canvas) -> None:
        _draw_faces(canvas, faces, options.bleed_mm * MM)
        if options.cut_marks:
            _cut_marks(canvas, slots, trim, options)
        if fold:
            _fold_line(canvas, options)
        _page_label(canvas, label, options)

    coordinates = array("d")
    for face in faces:
        coordinates.extend((face.rect.x, face.rect.y, face.rect.w, face.rect.h))
    for slot in slots:
        coordinates.extend((slot.x, slot.y, slot.w, slot.h))
    layout = hashlib.sha256(coordinates.tobytes())
    layout.update("\n".join(face.form for face in faces).encode("utf-8"))
    content = _cached_content(cache, (layout.hexdigest(), label, options, fold), draw)
    forms = tuple(face.form for face in faces)
    return options.page_pt, content, forms, _boxes(trim, options)


def _slots(placements: Sequence[Placement], *, back: bool, fold: bool) -> list[Rect]:
    """The slot rectangles a page shows: fronts, backs, or both (gutter-fold)."""
    fronts = [p.front for p in placements]
    backs = [p.back for p in placements if p.back is not None]
    if fold:
        return fronts + backs
    return backs if back else fronts


def _boxes(trim: Rect, options: SheetOptions) -> dict[str, Box]:
    """TrimBox = `trim`, BleedBox = trim grown by the bleed, both inside the MediaBox."""
    page_w, page_h = options.page_pt
    media = Rect(0.0, 0.0, page_w, page_h)
    trim = trim.clipped(media)
    grown = trim.grown(options.bleed_mm * MM).clipped(media)
    return {"TrimBox": _box(trim), "BleedBox": _box(grown)}


def _box(rect: Rect) -> Box:
    """A rectangle as a PDF box (x0, y0, x1, y1), rounded to what the PDF will hold."""
    return (round(rect.x, 4), round(rect.y, 4), round(rect.right, 4), round(rect.top, 4))


def _cut_marks(canvas: Canvas, slots: Sequence[Rect], trim: Rect, options: SheetOptions) -> None:
    """Marks in the margin along every column and row edge, outside the bleed."""
    page_w, page_h = options.page_pt
    start = options.bleed_mm * MM + MARK_GAP
    length = options.mark_length_mm * MM
    xs = sorted({round(v, 3) for r in slots for v in (r.x, r.right)})
    ys = sorted({round(v, 3) for r in slots for v in (r.y, r.top)})
    canvas.save()
    canvas.line_width(MARK_WIDTH)
    canvas.stroke_colour((0, 0, 0))
    top = min(length, page_h - trim.top - start - EDGE_KEEP)
    bottom = min(length, trim.y - start - EDGE_KEEP)
    left = min(length, trim.x - start - EDGE_KEEP)
    right = min(length, page_w - trim.right - start - EDGE_KEEP)
    for x in xs:
        _mark(canvas, (x, trim.top + start), (x, trim.top + start + top), top)
        _mark(canvas, (x, trim.y - start), (x, trim.y - start - bottom), bottom)
    for y in ys:
        _mark(canvas, (trim.x - start, y), (trim.x - start - left, y), left)
        _mark(canvas, (trim.right + start, y), (trim.right + start + right, y), right)
    canvas.restore()


def _mark(
    canvas: Canvas, start: tuple[float, float], end: tuple[float, float], length: float
) -> None:
    """One cut mark, if there is at least a millimetre of room for it."""
    if length >= 1.0 * MM:
        canvas.line(start[0], start[1], end[0], end[1])


def _fold_line(canvas: Canvas, options: SheetOptions) -> None:
    """The dashed fold line down the middle of a gutter-fold page."""
    page_w, page_h = options.page_pt
    canvas.save()
    canvas.line_width(MARK_WIDTH)
    canvas.stroke_colour((102, 102, 102))
    canvas.dash(3, 2)
    canvas.line(page_w / 2, EDGE_KEEP, page_w / 2, page_h - EDGE_KEEP)
    canvas.restore()


def _page_label(canvas: Canvas, label: str, options: SheetOptions) -> None:
    """A small label at the bottom edge of the page saying what the page is."""
    page_w, _ = options.page_pt
    font = font_for(label)
    canvas.fill_colour((77, 77, 77))
    text = fit(label, font, LABEL_SIZE, page_w - 2 * EDGE_KEEP)
    canvas.text(font, LABEL_SIZE, EDGE_KEEP, 2.0 * MM, text)


# ---- calibration ------------------------------------------------------------------------------

CALIBRATION_TEXT = (
    N_("Duplex calibration. Print this pair of pages double-sided, flipping on the long edge,"),
    N_(
        "at 100% scale (no 'fit to page'). Hold the sheet against a light and look at the BACK side."  # noqa: E501
    ),
    N_(
        "Read on the back's rulers where each cross of the front lies: x to the right, y up, in mm."
    ),
    N_("Add those numbers to the back offset and rebuild (current back offset: {x:g}, {y:g} mm)."),
    N_("If the two crosses give different readings, the printer scales or rotates the back."),
)
CALIBRATION_LABEL = {
    "front": N_("Duplex calibration, front"),
    "back": N_("Duplex calibration, back"),
}


def _calibration_pages(pdf: PdfDocument, options: SheetOptions) -> list[tuple[str, str]]:
    """A front page with two crosses and a back page with crosses and rulers behind them;
    the text they set (font name, text)."""
    page_w, page_h = options.page_pt
    offset = (options.back_offset_mm[0] * MM, options.back_offset_mm[1] * MM)
    chars: list[tuple[str, str]] = []
    for side, rulers in (("front", False), ("back", True)):
        cross = _cross(rulers).content()
        pdf.add_form(f"cm.{side}.calibration", cross, (0, 0, CROSS, CROSS))
        chars.extend(cross.chars.items())
    spots = [
        Rect(page_w / 3 - CROSS / 2, page_h * 0.55 - CROSS / 2, CROSS, CROSS),
        Rect(2 * page_w / 3 - CROSS / 2, page_h * 0.3 - CROSS / 2, CROSS, CROSS),
    ]
    for side in ("front", "back"):
        rects = spots if side == "front" else [mirror(r, page_w, offset) for r in spots]
        canvas = Canvas()
        _draw_faces(canvas, [Drawn(f"cm.{side}.calibration", r) for r in rects], 0.0)
        _instructions(canvas, options)
        _page_label(canvas, tr(CALIBRATION_LABEL[side], options.lang), options)
        boxes = _boxes(_inside_margins(options), options)
        content = canvas.content()
        pdf.add_page(options.page_pt, content, (f"cm.{side}.calibration",), boxes)
        chars.extend(content.chars.items())
    return chars


def _cross(rulers: bool) -> Canvas:
    """A cross through the centre of a CROSS-sized square, with mm rulers on the back one."""
    centre = CROSS / 2
    canvas = Canvas()
    canvas.line_width(0.3)
    canvas.stroke_colour((0, 0, 0))
    canvas.line(0, centre, CROSS, centre)
    canvas.line(centre, 0, centre, CROSS)
    canvas.ellipse(centre - MM, centre - MM, 2 * MM, 2 * MM, "S")
    if rulers:
        _rulers(canvas, centre)
    return canvas


def _rulers(canvas: Canvas, centre: float) -> None:
    """Millimetre ticks along both arms of the cross, numbered every 5 mm."""
    canvas.fill_colour((0, 0, 0))
    for mm in range(-10, 11):
        if mm == 0:
            continue
        at = centre + mm * MM
        tick = (1.2 if mm % 5 == 0 else 0.6) * MM
        canvas.line(at, centre - tick, at, centre + tick)
        canvas.line(centre - tick, at, centre + tick, at)
        if mm % 5 == 0:
            canvas.text_aligned(REGULAR, 4, at, centre - 3.0 * MM, str(mm), "m")
            canvas.text(REGULAR, 4, centre + 1.6 * MM, at - 1.0, str(mm))


def _instructions(canvas: Canvas, options: SheetOptions) -> None:
    """The calibration instructions at the top of the page."""
    area = _inside_margins(options)
    x, y = options.back_offset_mm
    canvas.fill_colour((0, 0, 0))
    for line_no, message in enumerate(CALIBRATION_TEXT):
        text = tr(message, options.lang).format(x=x, y=y)
        canvas.text(font_for(text), 8, area.x, area.top - 10 - line_no * 11, text)


def _inside_margins(options: SheetOptions) -> Rect:
    """The page inside its margins."""
    page_w, page_h = options.page_pt
    margin = options.margin_mm * MM
    return Rect(margin, margin, page_w - 2 * margin, page_h - 2 * margin)


# ---- sheet index ------------------------------------------------------------------------------

INDEX_SIZE = 7.5
INDEX_LEADING = 10.0
INDEX_COLUMNS = (
    (N_("Page"), 0.0),
    (N_("Positions (row, column)"), 0.08),
    (N_("Id"), 0.42),
    (N_("Name"), 0.64),
)
INDEX_COPIES = N_("Copies")


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One line of the sheet index: a piece's copies on one sheet."""

    page: str
    positions: str
    id: str
    name: str
    copies: str


def index_rows(doc: SheetDoc, imposition: Imposition, lang: str = "en") -> list[IndexRow]:
    """Which piece sits where: one row per piece and sheet, in print order."""
    rows: list[IndexRow] = []
    for sheet in range(imposition.sheets):
        by_item: dict[int, list[Placement]] = {}
        for placement in imposition.on_sheet(sheet):
            by_item.setdefault(placement.item, []).append(placement)
        for item, mine in sorted(by_item.items()):
            piece = doc.pieces[item]
            copies = f"{len(mine)}" if len(mine) == piece.copies else f"{len(mine)}/{piece.copies}"
            page = _page_numbers(imposition, sheet, piece.back is not None)
            rows.append(IndexRow(page, _positions(mine, lang), piece.id, piece.name, copies))
    return rows


def _page_numbers(imposition: Imposition, sheet: int, has_back: bool) -> str:
    """The PDF page of a sheet's front, and of its back in mirror mode ("3/4")."""
    if imposition.mode != "mirror":
        return str(sheet + 1)
    if has_back:
        return f"{2 * sheet + 1}/{2 * sheet + 2}"
    return str(2 * sheet + 1)


def _positions(placements: Sequence[Placement], lang: str) -> str:
    """Rows and column ranges of some placements, e.g. "R1 C1–8, R2 C1–3" (1-based)."""
    runs: dict[int, list[int]] = {}
    for placement in placements:
        runs.setdefault(placement.row, []).append(placement.col)
    parts = []
    for row, cols in sorted(runs.items()):
        lo, hi = min(cols) + 1, max(cols) + 1
        columns = f"{lo}" if lo == hi else f"{lo}–{hi}"
        parts.append(tr("R{row} C{columns}", lang, row=row + 1, columns=columns))
    return tr(", ", lang).join(parts)


def _index_key(doc: SheetDoc, options: SheetOptions, listed: Sequence[str]) -> str:
    """What decides the index pages: pieces, their names, copies and backs (each run's digest
    of them, `listed`), the options."""
    digest = hashlib.sha256("\n".join(listed).encode()).hexdigest()
    return cache_key("sheet-index", doc.title, doc.slot_mm, options, digest)


def _all_index_pages(
    cache: RenderCache,
    key: str,
    doc: SheetDoc,
    imposing: Imposing,
    options: SheetOptions,
) -> list[Page]:
    """The index pages, remembered as a whole under `key` (_index_key)."""

    def drawn() -> bytes:
        return _encode_pages(_index_pages(cache, doc, imposing(), options))

    return _decode_pages(cache.fetch(key, drawn))


def _index_pages(
    cache: RenderCache,
    doc: SheetDoc,
    imposition: Imposition,
    options: SheetOptions,
) -> list[Page]:
    """The sheet index as a table over as many pages as it needs."""
    area = _inside_margins(options)
    lang = options.lang
    rows = index_rows(doc, imposition, lang)
    per_page = max(1, int((area.h - 3 * INDEX_LEADING) // INDEX_LEADING))
    chunks = [rows[i : i + per_page] for i in range(0, len(rows), per_page)] or [[]]
    pages: list[Page] = []
    for number, chunk in enumerate(chunks, start=1):
        title = tr(
            "{title} — sheet index ({page}/{pages})",
            lang,
            title=doc.title,
            page=number,
            pages=len(chunks),
        )
        header = _header(lang)
        draw = partial(_index_page, area, title, header, chunk)
        cells = tuple((r.page, r.positions, r.id, r.name, r.copies) for r in (header, *chunk))
        content = _cached_content(cache, ("index", area, title, cells), draw)
        pages.append((options.page_pt, content, (), _boxes(area, options)))
    return pages


def _index_page(
    area: Rect, title: str, header: IndexRow, rows: Sequence[IndexRow], canvas: Canvas
) -> None:
    """One page of the index: its title, the column headings and the rows."""
    canvas.fill_colour((0, 0, 0))
    canvas.text(font_for(title, bold=True), 11, area.x, area.top - 11, title)
    _index_line(canvas, area, area.top - 2.5 * INDEX_LEADING, header, bold=True)
    for line_no, row in enumerate(rows, start=1):
        y = area.top - (2.5 + line_no) * INDEX_LEADING
        _index_line(canvas, area, y, row, bold=False)


def _header(lang: str) -> IndexRow:
    """The index's column headings."""
    names = [tr(heading, lang) for heading, _ in INDEX_COLUMNS]
    return IndexRow(names[0], names[1], names[2], names[3], tr(INDEX_COPIES, lang))


def _index_line(canvas: Canvas, area: Rect, y: float, row: IndexRow, *, bold: bool) -> None:
    """One table line: each cell cut to its column's width."""
    cells = (row.page, row.positions, row.id, row.name)
    starts = [area.x + area.w * frac for _, frac in INDEX_COLUMNS] + [area.right - 30]
    for col, text in enumerate(cells):
        font = font_for(text, bold=bold)
        room = starts[col + 1] - starts[col] - 4
        canvas.text(font, INDEX_SIZE, starts[col], y, fit(text, font, INDEX_SIZE, room))
    copies_font = font_for(row.copies, bold=bold)
    canvas.text(
        copies_font,
        INDEX_SIZE,
        area.right - font_width(copies_font, row.copies, INDEX_SIZE),
        y,
        row.copies,
    )
