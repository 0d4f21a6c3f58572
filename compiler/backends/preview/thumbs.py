"""Thumbnails of the pages of the print sheets, drawn from the display lists the sheets are
made of: each sheet page is the faces' drawings inset where the imposition puts them,
rasterised small. Pages that are not sheets of faces (calibration, sheet index) and the pages
of charts.pdf are shown as labelled page outlines of the PDF's own page size."""

from __future__ import annotations

import functools
import hashlib
import marshal
import re
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, chain, compress, repeat
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from PIL import Image

from compiler.backends.art.display import Drawing, Rect
from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.pixels import packed, unpacked
from compiler.backends.art.raster import FACE_SUPERSAMPLE, lay, rasterize
from compiler.backends.keptrecord import all_of_type, unmarshalled
from compiler.backends.rendercache import RenderCache, digest_key, parallel_map
from compiler.backends.sheets import impose as impose_module
from compiler.backends.sheets.faces import FaceRef
from compiler.backends.sheets.impose import Imposition, Placement, impose
from compiler.backends.sheets.impose import Rect as Slot
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.pdf import Piece, Pieces, SheetDoc
from compiler.model.digests import are_digests

THUMB_HEIGHT = 220
"""Pixels: a thumbnail is this tall (its width follows the page)."""
PAPER = (255, 255, 255)
EDGE = (150, 150, 150)
PICTURE = (200, 200, 200)
"""A face printed from an image file is a grey square in a thumbnail."""
FORMAT = "2"
"""In the keys of the entries this module keeps (a plan's, a page's, its faces', the runs'
shapes): entries of another shape are never read."""
PAGE = re.compile(rb"/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]")


@dataclass(frozen=True, slots=True)
class Thumb:
    """One page of a PDF: its number (from 1), its size in points and, for a sheet of faces,
    the thumbnail PNG (None: shown as a labelled outline)."""

    number: int
    size: tuple[float, float]
    png: bytes | None


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """The size of every page of a PDF countermix wrote, in order (its writer gives every page
    its own MediaBox)."""
    return [(float(w), float(h)) for w, h in PAGE.findall(pdf)]


Face = tuple[FaceRef, Slot]


Spot = tuple[int, int, int]
"""A face on a sheet page: its piece's index in the document, 0 for the piece's front or 1
for its back, and the index of its slot in the plan's slots."""
Place = tuple[float, float, float, float]
"""A slot as x, y, width and height in points."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Where every face of a document goes: each sheet page as the spots of its faces in
    order, and the slots they name."""

    slots: tuple[Place, ...]
    pages: tuple[tuple[Spot, ...], ...]
    columns: tuple[list[int], list[int], list[int]]
    """The piece, side and slot number of every spot, page after page."""


def _plan(slots: tuple[Place, ...], pages: tuple[tuple[Spot, ...], ...]) -> Plan:
    """A plan of these slots and pages, with its columns (worked out in passes in C)."""
    spots = list(chain.from_iterable(pages))
    items, sides, numbers = (list(map(itemgetter(n), spots)) for n in range(3))
    return Plan(slots, pages, (items, sides, numbers))


def sheet_faces(doc: SheetDoc, options: SheetOptions) -> list[list[Face]]:
    """The faces of every sheet page the PDF starts with, in its order: fronts, then mirrored
    backs (one page each), or fronts and backs on one gutter-fold page."""
    plan = sheet_plan(doc, options)
    return [_page_faces(doc, plan, page) for page in range(len(plan.pages))]


def sheet_plan(doc: SheetDoc, options: SheetOptions) -> Plan:
    """The plan of the sheet pages (see sheet_faces), from the imposition."""
    imposition = impose([p.copies for p in doc.pieces], options, doc.slot_mm)
    slots: dict[Place, int] = {}
    pages: list[tuple[Spot, ...]] = []
    for placed in _by_sheet(imposition):
        fronts = _spots(doc, placed, 0, slots)
        backs = _spots(doc, placed, 1, slots)
        if imposition.mode == "gutter-fold":
            pages.append(fronts + backs)
            continue
        pages.append(fronts)
        if imposition.mode == "mirror" and backs:
            pages.append(backs)
    return _plan(tuple(slots), tuple(pages))


def _by_sheet(imposition: Imposition) -> list[list[Placement]]:
    """The placements of each sheet, in slot order (Imposition.on_sheet of every sheet, in
    one pass: a large game has a hundred sheets of thousands of placements)."""
    sheets: list[list[Placement]] = [[] for _ in range(imposition.sheets)]
    for placement in imposition.placements:
        sheets[placement.sheet].append(placement)
    return sheets


def _spots(
    doc: SheetDoc, placed: Sequence[Placement], side: int, slots: dict[Place, int]
) -> tuple[Spot, ...]:
    """The faces of one side of a sheet's placements that are printed (a piece without a
    back has none), their slots numbered in `slots` as they come."""
    out: list[Spot] = []
    for placement in placed:
        piece = doc.pieces[placement.item]
        ref = piece.back if side else piece.front
        slot = placement.back if side else placement.front
        if ref is not None and slot is not None:
            number = slots.setdefault((slot.x, slot.y, slot.w, slot.h), len(slots))
            out.append((placement.item, side, number))
    return tuple(out)


def _page_faces(doc: SheetDoc, plan: Plan, page: int) -> list[Face]:
    """The faces of one page of the plan, with their slots."""
    return [
        (_side(doc.pieces[item], side), Slot(*plan.slots[number]))
        for item, side, number in plan.pages[page]
    ]


def _plan_key(doc: SheetDoc, options: SheetOptions, shapes: Sequence[str]) -> str:
    """The cache key of a document's plan: what the imposition is made from (the options,
    the slot size, and each piece's copies and whether it has a back: the `shapes` of the
    document's runs, see `_shapes`) and the code that makes it."""
    made = repr((options, doc.slot_mm, doc.runs.total, _plan_code())).encode()
    digest = hashlib.sha256(made)
    digest.update("\0".join(shapes).encode())
    return digest_key("preview-plan", FORMAT, digest.hexdigest())


def _shape(pieces: Sequence[Piece]) -> str:
    """What the imposition takes of some pieces: their copies and whether each has a back
    (the bytes of arrays: a digest of both)."""
    digest = hashlib.sha256(array("q", map(attrgetter("copies"), pieces)).tobytes())
    digest.update(bytes(back is not None for back in map(attrgetter("back"), pieces)))
    return digest.hexdigest()


def _shapes(doc: SheetDoc, cache: RenderCache) -> list[str]:
    """The `_shape` of each run of the document's pieces: a run with a key (which decides
    its pieces) as the last build recorded it in `cache` under that key, without listing it
    (a warm build of a large game listed every counter again only to find the same plan);
    the others listed. The record is kept for the next build."""
    record = digest_key("preview-shapes", FORMAT, doc.kind)
    kept = _read_shapes(cache.get(record))
    runs = doc.runs
    shapes: list[str] = []
    now: dict[str, str] = {}
    for number, run in enumerate(runs.runs):
        shape = kept.get(run.key) if run.key is not None else None
        if shape is None:
            shape = _shape(runs.of_run(number))
        if run.key is not None:
            now[run.key] = shape
        shapes.append(shape)
    if now != kept:
        cache.put(record, marshal.dumps(now))
    return shapes


def _read_shapes(data: bytes | None) -> dict[str, str]:
    """A record of runs' shapes read back (run key → shape), when it has the shape `_shapes`
    writes; empty for any other bytes."""
    read = _read_str_keyed(data)
    return read if are_digests(list(read.values())) else {}


@functools.cache
def _plan_code() -> str:
    """A digest of the code a plan is made by (the imposition and this module)."""
    digest = hashlib.sha256()
    for path in (Path(__file__), Path(impose_module.__file__)):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Layout:
    """What a warm build needs of a plan to find its pages (each page's own spots are kept
    apart: read only for a page drawn again): the slots, the pieces each page's faces are
    of (a range of the document's pieces, from the first to past the last, and which of
    their sides: 1 for fronts, 2 for backs, 3 for both) and the heights in pixels of the
    faces in its slots."""

    slots: tuple[Place, ...]
    ranges: tuple[tuple[int, int, int], ...]
    heights: tuple[int, ...]


def _layout_of(plan: Plan, page_height: float) -> Layout:
    """The layout of a plan (see Layout)."""
    items, sides = plan.columns[:2]
    ranges = []
    start = 0
    for spots in plan.pages:
        end = start + len(spots)
        page, shown = items[start:end], set(sides[start:end])
        faces = (0 in shown) | (1 in shown) << 1
        ranges.append((min(page), max(page) + 1, faces) if page else (0, 0, 0))
        start = end
    heights = sorted({_face_pixels(Slot(*slot), page_height) for slot in plan.slots})
    return Layout(plan.slots, tuple(ranges), tuple(heights))


def _known_layout(
    doc: SheetDoc, options: SheetOptions, cache: RenderCache
) -> tuple[str, Layout, Plan | None]:
    """The document plan's key and layout from the cache (a warm build of a large game
    imposed tens of thousands of copies again to find the same pages, then read them all
    back), else the plan made, its layout and each page's spots kept there (the plan is
    given too then). The entries stay as long as the document's pages are asked for."""
    key = _plan_key(doc, options, _shapes(doc, cache))
    found = cache.get(key + LAYOUT)
    layout = _read_layout(found, doc.runs.total) if found is not None else None
    if layout is not None:
        cache.keep(key + PAGE_SPOTS + str(n) for n in range(len(layout.ranges)))
        return key, layout, None
    plan = _plan_kept(doc, options, cache, key)
    return key, _layout_of(plan, options.page_pt[1]), plan


def _plan_kept(doc: SheetDoc, options: SheetOptions, cache: RenderCache, key: str) -> Plan:
    """The document's plan made, and its layout and each page's spots kept under its `key`."""
    plan = sheet_plan(doc, options)
    layout = _layout_of(plan, options.page_pt[1])
    cache.put(key + LAYOUT, marshal.dumps((layout.slots, layout.ranges, layout.heights)))
    for number, spots in enumerate(plan.pages):
        cache.put(key + PAGE_SPOTS + str(number), marshal.dumps(spots))
    return plan


LAYOUT = ":layout"
PAGE_SPOTS = ":page:"
"""After a plan's key: the keys of its layout and of each page's spots."""


def _read_layout(data: bytes, pieces: int) -> Layout | None:
    """A layout read back, when it has the shape `_known_layout` writes and names only
    pieces there are; None for any other bytes."""
    try:
        read = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if type(read) is not tuple or len(read) != 3:
        return None
    slots, ranges, heights = read
    if not _all(slots, tuple) or not all(len(s) == 4 and _all(s, float) for s in slots):
        return None
    if not _all(ranges, tuple) or not set(map(len, ranges)) <= {3}:
        return None
    if not all_of_type(chain.from_iterable(ranges), int):
        return None
    ends = list(chain.from_iterable(map(itemgetter(slice(0, 2)), ranges)))
    if ends and (min(ends) < 0 or max(ends) > pieces):
        return None
    if not all(first <= end for first, end, _sides in ranges):
        return None
    if not set(map(itemgetter(2), ranges)) <= {0, 1, 2, 3} or not _all(heights, int):
        return None
    return Layout(slots, ranges, heights)


def _read_page(
    data: bytes | None, looks: Looks, slots: int, pieces: tuple[int, int, int]
) -> tuple[Spot, ...] | None:
    """A page's spots read back, when they have the shape `_known_layout` writes and name
    only printed faces of the page's range of `pieces` (and of its sides) and slots there
    are; None for any other bytes."""
    spots: Any = unmarshalled(data)
    if spots is None or not _all(spots, tuple) or not set(map(len, spots)) <= {3}:
        return None
    if not all_of_type(chain(*spots), int):
        return None
    items, sides, numbers = (list(map(itemgetter(n), spots)) for n in range(3))
    if items and (min(items) < pieces[0] or max(items) >= pieces[1]):
        return None
    if not set(sides) <= {side for side in (0, 1) if pieces[2] & (1 << side)}:
        return None
    return spots if _names_printed_faces(looks, (items, sides, numbers), slots) else None


def _names_printed_faces(
    looks: Looks, columns: tuple[list[int], list[int], list[int]], slots: int
) -> bool:
    """Whether each spot (of the plan's `columns`) names a piece of the document, its front
    or a back it has, and one of `slots` slots (only the runs of the pieces named are
    listed)."""
    items, sides, numbers = columns
    if not items:
        return True
    if min(items) < 0 or max(items) >= looks.total or not set(sides) <= {0, 1}:
        return False
    if min(numbers) < 0 or max(numbers) >= slots:
        return False
    return all(looks.piece(item).back is not None for item in set(compress(items, sides)))


def _all(values: object, kind: type) -> bool:
    """Whether `values` is a tuple of values of type `kind` (none of a subtype)."""
    return type(values) is tuple and all_of_type(values, kind)


class Looks:
    """A document's pieces by run, each run listed only when one of its pieces is asked for:
    a run with a key stands for its pieces' looks by that key (what decides them)."""

    def __init__(self, pieces: Pieces) -> None:
        self.pieces = pieces
        self.starts = list(accumulate((run.count for run in pieces.runs), initial=0))
        """The item each run starts at, then the number of pieces."""
        self.total = pieces.total

    def piece(self, item: int) -> Piece:
        """The piece `item` of the document (its run listed)."""
        number = bisect_right(self.starts, item) - 1
        return self.pieces.of_run(number)[item - self.starts[number]]

    def part(self, first: int, end: int, sides: int) -> bytes:
        """What decides the looks of the pieces from `first` to `end` (past the last): of
        their fronts (`sides` & 1), backs (& 2) or both. For each run they are of, the
        pieces' place in it and the run's key, or (a run without one) their identities."""
        parts = []
        for number in range(bisect_right(self.starts, first) - 1, len(self.pieces.runs)):
            start = self.starts[number]
            if start >= end:
                break
            low, high = max(first, start) - start, min(end, self.starts[number + 1]) - start
            if low >= high:
                continue
            key = self.pieces.runs[number].key
            if key is not None:
                parts.append(f"run:{number}:{low}:{high}:{key}")
                continue
            listed = self.pieces.of_run(number)[low:high]
            fronts = map(attrgetter("front.identity"), listed) if sides & 1 else ()
            backs = map(attrgetter("back"), listed) if sides & 2 else ()
            looks = map(getattr, backs, repeat("identity"), repeat(""))  # "" for none
            parts.append(f"ids:{number}:{low}:{high}:" + "\0".join(fronts))
            parts.append("\0".join(looks))
        return "\n".join(parts).encode("utf-8", "surrogatepass")


def sheet_thumbs(
    pdf: bytes, doc: SheetDoc, options: SheetOptions, cache: RenderCache
) -> list[Thumb]:
    """A thumbnail of every page of a sheet PDF (see `page_thumbs`)."""
    return page_thumbs(page_sizes(pdf), doc, options, cache)


def page_thumbs(
    sizes: Sequence[tuple[float, float]], doc: SheetDoc, options: SheetOptions, cache: RenderCache
) -> list[Thumb]:
    """A thumbnail of every page of a sheet PDF of pages of `sizes`: its sheets drawn from the
    faces' display lists (from the cache when the page was drawn before; a page drawn again
    takes the faces' pixels the cache kept of the pages at its place, so a warm build
    rasterises only the faces that changed), the rest as outlines. A warm build lists only
    the runs of pieces of the pages it draws, and of those runs that have no key."""
    looks = Looks(doc.runs)
    plan_key, layout, plan = _known_layout(doc, options, cache)
    keys = _page_keys(options.page_pt, plan_key, looks, layout.ranges)
    faces = [_faces_key(doc.kind, number) for number in range(len(keys))]
    pixels = [_pixels_key(doc.kind, number) for number in range(len(keys))]
    cache.keep(faces)  # the faces stay as long as their pages do: a page drawn again finds them
    cache.keep(pixels)  # and so do the pages' pixels: a page drawn again is patched
    made: dict[str, bytes] = {}
    todo: dict[str, int] = {}
    for index, key in enumerate(keys):
        found = cache.get(key)
        if found is not None:
            made[key] = found
        elif key not in todo:
            todo[key] = index
    drawings: dict[str, Drawing] = {}
    jobs = []
    for index in todo.values():
        spots = plan.pages[index] if plan is not None else None
        if spots is None:
            found = cache.get(plan_key + PAGE_SPOTS + str(index))
            spots = _read_page(found, looks, len(layout.slots), layout.ranges[index])
        if spots is None:  # missing or damaged: the plan made again (the same spots)
            plan = _plan_kept(doc, options, cache, plan_key)
            spots = plan.pages[index]
        shown = [(_side(looks.piece(i), side), Slot(*layout.slots[n])) for i, side, n in spots]
        known = _known_faces(cache, faces, index).get
        last = cache.get(pixels[index])
        jobs.append(partial(_draw_page, options.page_pt, shown, drawings, known, last))
    for (key, index), result in zip(todo.items(), parallel_map(jobs), strict=True):
        png, used, drawn = marshal.loads(result)
        cache.put(faces[index], marshal.dumps(used))
        cache.put(pixels[index], drawn)
        cache.put(key, png)
        made[key] = png
    thumbs = []
    for number, size in enumerate(sizes, start=1):
        png = made[keys[number - 1]] if number <= len(keys) else None
        thumbs.append(Thumb(number, size, png))
    return thumbs


def _side(piece: Piece, side: int) -> FaceRef:
    """The front (side 0) or back (1) of a piece a plan names (a printed one: _read_page)."""
    ref = piece.back if side else piece.front
    assert ref is not None
    return ref


def _faces_key(kind: str, number: int) -> str:
    """Where the faces' pixels of page `number` of a document of `kind` are kept: by the
    page's place, not its key, so that the page drawn again (its key changed) finds them."""
    return digest_key("preview-page-faces", FORMAT, kind, str(number))


def _pixels_key(kind: str, number: int) -> str:
    """Where the pixels of page `number` of a document of `kind` are kept, with what was laid
    where (see `_draw_page`): by the page's place, as its faces are (`_faces_key`)."""
    return digest_key("preview-page-pixels", FORMAT, kind, str(number))


def _known_faces(cache: RenderCache, faces: Sequence[str], index: int) -> dict[str, bytes]:
    """The faces' pixels kept of the page at `index` and of the pages beside it (a piece
    added or removed moves the faces by a few places), by face key (see `_face_key`)."""
    known: dict[str, bytes] = {}
    for number in (index - 1, index + 1, index):
        if 0 <= number < len(faces):
            known.update(_read_faces(cache.get(faces[number])))
    return known


def _read_faces(data: bytes | None) -> dict[str, bytes]:
    """A page's faces read back (face key → pixels), when they have the shape `page_thumbs`
    writes; empty for any other bytes."""
    read = _read_str_keyed(data)
    return read if all_of_type(read.values(), bytes) else {}


def _read_str_keyed(data: bytes | None) -> dict[str, Any]:
    """A marshalled dict keyed by texts read back; empty for any other bytes."""
    read = unmarshalled(data)
    if type(read) is not dict or not all_of_type(read, str):
        return {}
    return read


def _page_head(page: tuple[float, float]) -> bytes:
    """What every page key starts with: the code that draws a page (this module; the faces'
    looks are in the renderer's fingerprint, in every key), the page's size and the height."""
    return f"{_plan_code()}:{page[0]:.3f}x{page[1]:.3f}:{THUMB_HEIGHT}".encode()


def _page_keys(
    page: tuple[float, float],
    plan_key: str,
    looks: Looks,
    ranges: Sequence[tuple[int, int, int]],
) -> list[str]:
    """The cache key of every page's thumbnail: the page's size, the plan (its key: where
    each face of each page goes), the page's number, then the looks of the fronts, or the
    backs, or both, of the pieces its faces are of (its range: see `Looks.part`)."""
    head = _page_head(page) + plan_key.encode()
    keys = []
    for number, (first, end, sides) in enumerate(ranges):
        digest = hashlib.sha256(head)
        digest.update(f"\n{number}:{first}:{end}:{sides}\n".encode())
        digest.update(looks.part(first, end, sides))
        keys.append(digest_key("preview-page", FORMAT, digest.hexdigest()))
    return keys


def _face_pixels(slot: Slot, page_height: float) -> int:
    """How many pixels tall a face in `slot` is in a thumbnail."""
    return max(1, round(slot.h / page_height * THUMB_HEIGHT))


def _face_key(ref: FaceRef, slot: Slot, page_height: float) -> str:
    """The cache key of a face's pixels in a thumbnail: its look and its height there."""
    pixels = str(_face_pixels(slot, page_height))
    return digest_key("preview-face", ref.identity, pixels, str(FACE_SUPERSAMPLE))


Box = tuple[int, int, int, int]
"""Pixels of a thumbnail: left, top, right and bottom (past the last)."""
Laid = tuple[str, Place, Box]
"""A face laid on a page: its key (`_face_key`), its slot and the pixels its image covers."""
PAGE_PIXELS = "countermix-preview-page-pixels-1"
"""The shape of the record of a page's pixels (see `_draw_page`)."""
PATCH_AT_MOST = 0.5
"""The share of a page's faces that may differ from those of its kept pixels for the page to
be patched (more: it is drawn whole, as cheap then)."""


def _draw_page(
    page: tuple[float, float],
    faces: list[Face],
    drawings: dict[str, Drawing],
    known: Callable[[str], bytes | None],
    last: bytes | None = None,
) -> bytes:
    """A sheet page as a PNG THUMB_HEIGHT tall — the paper and the grey squares of faces
    printed from pictures, then each face rasterised at its size and laid in its slot, as
    the raster back end lays a drawing's insets — with the faces not in `known` (marshalled:
    the PNG, then a dict of cache key → the face's width and packed pixels of every face
    rasterised on the page; a face found in `known` is not made), then the record of the
    page's pixels. When `last` (the record of the pixels of the page last drawn at its
    place) has the same paper and faces but a few, only the pixels of those are drawn
    again over it (a warm build unpacked and laid the hundreds of faces of the page again
    for the one that changed)."""
    width, height = page
    ground = _ground(page, faces)
    todo = [(ref, slot, _face_key(ref, slot, height)) for ref, slot in faces if not ref.picture]
    drawn = _patched(_read_pixels(last, page, ground), ground, todo, drawings, known, height)
    if drawn is None:
        drawn = _drawn(page, ground, todo, drawings, known)
    image, paper, laid, used = drawn
    record = (PAGE_PIXELS, _ground_digest(page, ground), tuple(laid), packed(paper), packed(image))
    return marshal.dumps((png_bytes(image), used, marshal.dumps(record)))


def _ground(page: tuple[float, float], faces: list[Face]) -> Drawing:
    """A page's paper and the grey squares of its faces printed from pictures."""
    width, height = page
    ops: list[Rect] = [Rect((0.0, 0.0, width / height, 1.0), PAPER, EDGE, 0.004)]
    for ref, slot in faces:
        if ref.picture is not None:
            top = (height - slot.top) / height
            box = (slot.x / height, top, slot.right / height, top + slot.h / height)
            ops.append(Rect(box, PICTURE))
    return Drawing(width / height, tuple(ops))


Drawn = tuple[Image.Image, Image.Image, list[Laid], dict[str, bytes]]
"""A page drawn: its pixels, its paper's, the faces laid and the faces' kept pixels."""


def _drawn(
    page: tuple[float, float],
    ground: Drawing,
    todo: list[tuple[FaceRef, Slot, str]],
    drawings: dict[str, Drawing],
    known: Callable[[str], bytes | None],
) -> Drawn:
    """A page drawn whole: its paper, then every face laid in order."""
    height = page[1]
    paper = rasterize(ground, THUMB_HEIGHT)
    image = paper.copy()
    scale = (image.width / ground.width, float(THUMB_HEIGHT))
    used: dict[str, bytes] = {}
    laid: list[Laid] = []
    for ref, slot, key in todo:
        face_width, pixels = _face_of(ref, slot, key, drawings, used, known, height)
        at = _face_at(slot, face_width, height, scale)
        lay(image, pixels, at)
        laid.append((key, _place(slot), _box(at, pixels)))
    return image, paper, laid, used


def _face_of(
    ref: FaceRef,
    slot: Slot,
    key: str,
    drawings: dict[str, Drawing],
    used: dict[str, bytes],
    known: Callable[[str], bytes | None],
    page_height: float,
) -> tuple[float, Image.Image]:
    """A face's width and pixels: kept (in `used`, or `known`), else rasterised; kept in
    `used` either way."""
    data = used.get(key) or known(key)
    face = _face_pixels_of(data) if data is not None else None
    if data is None or face is None:
        drawing = drawings.get(ref.identity)
        if drawing is None:
            drawing = drawings[ref.identity] = ref.make()
        raster = rasterize(drawing, _face_pixels(slot, page_height), FACE_SUPERSAMPLE)
        data = marshal.dumps((drawing.width, packed(raster)))
        face = (drawing.width, raster)
    used[key] = data
    return face


def _face_at(
    slot: Slot, face_width: float, page_height: float, scale: tuple[float, float]
) -> tuple[int, int]:
    """The pixel where a face's image goes on the page: centred across its slot."""
    left = (slot.x + (slot.w - face_width * slot.h) / 2) / page_height
    top = (page_height - slot.top) / page_height
    return round(left * scale[0]), round(top * scale[1])


def _place(slot: Slot) -> Place:
    return (slot.x, slot.y, slot.w, slot.h)


def _box(at: tuple[int, int], image: Image.Image) -> Box:
    return (at[0], at[1], at[0] + image.width, at[1] + image.height)


Kept = tuple[Image.Image, Image.Image, tuple[Laid, ...]]
"""The kept pixels of a page (see `_read_pixels`): its pixels, its paper's, and the faces
laid on it."""


def _read_pixels(data: bytes | None, page: tuple[float, float], ground: Drawing) -> Kept | None:
    """The record of a page's pixels read back, when it has the shape `_draw_page` writes,
    the paper is `ground` and the images are of the page's size; None for any other bytes."""
    record = unmarshalled(data)
    if type(record) is not tuple or len(record) != 5 or record[0] != PAGE_PIXELS:
        return None
    _shape, paper_of, laid, paper_data, image_data = record
    if paper_of != _ground_digest(page, ground) or type(laid) is not tuple:
        return None
    if not all(map(_is_laid, laid)):
        return None
    paper, image = _unpacked(paper_data), _unpacked(image_data)
    size = (max(1, round(ground.width * THUMB_HEIGHT)), THUMB_HEIGHT)
    if paper is None or image is None or paper.size != size or image.size != size:
        return None
    if image.mode != paper.mode:
        return None
    return image, paper, laid


def _ground_digest(page: tuple[float, float], ground: Drawing) -> str:
    """What the kept pixels of a page must have been drawn with to be patched: the page's
    size (two sizes of one shape give one paper, but not the same places), its paper and
    the code that lays the faces (this module)."""
    return hashlib.sha256(repr((_plan_code(), page, ground)).encode()).hexdigest()


def _is_laid(laid: object) -> bool:
    """Whether `laid` has the shape of a `Laid`."""
    if type(laid) is not tuple or len(laid) != 3 or type(laid[0]) is not str:
        return False
    return _all(laid[1], float) and len(laid[1]) == 4 and _all(laid[2], int) and len(laid[2]) == 4


def _unpacked(data: object) -> Image.Image | None:
    """Pixels `packed` made, read back; None for any other bytes."""
    if type(data) is not bytes:
        return None
    try:
        return unpacked(data)
    except (ValueError, TypeError, OSError, zlib.error, UnicodeDecodeError):
        return None


def _patched(
    kept: Kept | None,
    ground: Drawing,
    todo: list[tuple[FaceRef, Slot, str]],
    drawings: dict[str, Drawing],
    known: Callable[[str], bytes | None],
    page_height: float,
) -> Drawn | None:
    """The page drawn over its `kept` pixels: the faces that differ from those kept
    (another look, or another slot) made, the pixels they covered and cover put back to the
    paper, and every face laid again over those pixels only, in order — each pixel is then
    composited as a page drawn whole composites it. None: nothing kept, other faces or too
    many differ, or a face's kept pixels are missing or damaged (drawn whole then)."""
    if kept is None or len(kept[2]) != len(todo):
        return None
    image, paper, was = kept
    changed = {
        number
        for number, ((_ref, slot, key), (kept_key, place, _box)) in enumerate(
            zip(todo, was, strict=True)
        )
        if key != kept_key or _place(slot) != place
    }
    if len(changed) > PATCH_AT_MOST * len(todo):
        return None
    scale = (image.width / ground.width, float(THUMB_HEIGHT))
    used: dict[str, bytes] = {}
    made: dict[int, Image.Image] = {}
    laid = list(was)
    for number, (ref, slot, key) in enumerate(todo):
        if number in changed:
            face_width, made[number] = _face_of(ref, slot, key, drawings, used, known, page_height)
            at = _face_at(slot, face_width, page_height, scale)
            laid[number] = (key, _place(slot), _box(at, made[number]))
            continue
        data = used.get(key) or known(key)
        if data is None:
            return None
        used[key] = data
    covered = [was[number][2] for number in changed] + [laid[number][2] for number in changed]
    regions = _regions(covered, image.size)
    for region in regions:
        image.paste(paper.crop(region), region[:2])
    for number, (key, _place_of, box) in enumerate(laid):
        parts = [part for part in map(partial(_overlap, box), regions) if part is not None]
        if not parts:
            continue
        pixels = made.get(number)
        if pixels is None:
            face = _face_pixels_of(used[key])
            if face is None:
                return None
            pixels = face[1]
        for left, top, right, bottom in parts:
            shown = (left - box[0], top - box[1], right - box[0], bottom - box[1])
            lay(image, pixels.crop(shown), (left, top))
    return image, paper, laid, used


def _overlap(one: Box, other: Box) -> Box | None:
    """The pixels two boxes share, if any."""
    box = (
        max(one[0], other[0]),
        max(one[1], other[1]),
        min(one[2], other[2]),
        min(one[3], other[3]),
    )
    return box if box[0] < box[2] and box[1] < box[3] else None


def _regions(boxes: Sequence[Box], size: tuple[int, int]) -> list[Box]:
    """Boxes that share no pixel and cover the pixels of `boxes` on an image of `size`: those
    that overlap merged into the box around them (a pixel in two regions would be
    composited twice)."""
    regions: list[Box] = []
    for box in boxes:
        region = _overlap(box, (0, 0, *size))
        while region is not None:
            hit = next((r for r in regions if _overlap(r, region) is not None), None)
            if hit is None:
                regions.append(region)
                break
            regions.remove(hit)
            region = (
                min(hit[0], region[0]),
                min(hit[1], region[1]),
                max(hit[2], region[2]),
                max(hit[3], region[3]),
            )
    return regions


def _face_pixels_of(data: bytes) -> tuple[float, Image.Image] | None:
    """A face's width and pixels read back from what `_draw_page` keeps of it; None for any
    other bytes (the face is then rasterised again)."""
    try:
        width, pixels = marshal.loads(data)
        if type(width) not in (float, int) or type(pixels) is not bytes:
            return None
        return float(width), unpacked(pixels)
    except (EOFError, ValueError, TypeError, OSError, zlib.error, UnicodeDecodeError):
        return None
