"""Thumbnails of the pages of the print sheets, drawn from the display lists the sheets are
made of: each sheet page is the faces' drawings inset where the imposition puts them,
rasterised small. Pages that are not sheets of faces (calibration, sheet index) and the pages
of charts.pdf are shown as labelled page outlines of the PDF's own page size."""

from __future__ import annotations

import functools
import hashlib
import marshal
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, repeat
from operator import add, attrgetter, getitem, itemgetter
from pathlib import Path

from compiler.backends.art.display import Drawing, Rect
from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.pixels import packed, unpacked
from compiler.backends.art.raster import FACE_SUPERSAMPLE, lay, rasterize
from compiler.backends.keptrecord import all_of_type
from compiler.backends.rendercache import RenderCache, digest_key, parallel_map
from compiler.backends.sheets import impose as impose_module
from compiler.backends.sheets.faces import FaceRef
from compiler.backends.sheets.impose import Imposition, Placement, impose
from compiler.backends.sheets.impose import Rect as Slot
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.sheets.pdf import SheetDoc

THUMB_HEIGHT = 220
"""Pixels: a thumbnail is this tall (its width follows the page)."""
PAPER = (255, 255, 255)
EDGE = (150, 150, 150)
PICTURE = (200, 200, 200)
"""A face printed from an image file is a grey square in a thumbnail."""
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
        (_face_ref(doc, item, side), Slot(*plan.slots[number]))
        for item, side, number in plan.pages[page]
    ]


def _face_ref(doc: SheetDoc, item: int, side: int) -> FaceRef:
    """The front (side 0) or back (1) of a piece a plan names (a printed one: _read_page)."""
    piece = doc.pieces[item]
    ref = piece.back if side else piece.front
    assert ref is not None
    return ref


def _plan_key(doc: SheetDoc, options: SheetOptions) -> str:
    """The cache key of a document's plan: what the imposition is made from (the options,
    the slot size, each piece's copies and whether it has a back) and the code that makes
    it (the pieces' parts as the bytes of arrays: thousands of pieces)."""
    copies = array("q", map(attrgetter("copies"), doc.pieces)).tobytes()
    backs = bytes(back is not None for back in map(attrgetter("back"), doc.pieces))
    made = repr((options, doc.slot_mm, len(doc.pieces), _plan_code())).encode()
    digest = hashlib.sha256(made)
    digest.update(copies)
    digest.update(backs)
    return digest_key("preview-plan", digest.hexdigest())


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
    key = _plan_key(doc, options)
    found = cache.get(key + LAYOUT)
    layout = _read_layout(found, len(doc.pieces)) if found is not None else None
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
    data: bytes | None, doc: SheetDoc, slots: int, pieces: tuple[int, int, int]
) -> tuple[Spot, ...] | None:
    """A page's spots read back, when they have the shape `_known_layout` writes and name
    only printed faces of the page's range of `pieces` (and of its sides) and slots there
    are; None for any other bytes."""
    if data is None:
        return None
    try:
        spots = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if not _all(spots, tuple) or not set(map(len, spots)) <= {3}:
        return None
    if not all_of_type(chain(*spots), int):
        return None
    items, sides, numbers = (list(map(itemgetter(n), spots)) for n in range(3))
    if items and (min(items) < pieces[0] or max(items) >= pieces[1]):
        return None
    if not set(sides) <= {side for side in (0, 1) if pieces[2] & (1 << side)}:
        return None
    return spots if _names_printed_faces(doc, (items, sides, numbers), slots) else None


def _names_printed_faces(
    doc: SheetDoc, columns: tuple[list[int], list[int], list[int]], slots: int
) -> bool:
    """Whether each spot (of the plan's `columns`) names a piece of the document, its front
    or a back it has, and one of `slots` slots (in passes that stay in C)."""
    items, sides, numbers = columns
    if not items:
        return True
    if min(items) < 0 or max(items) >= len(doc.pieces) or not set(sides) <= {0, 1}:
        return False
    if min(numbers) < 0 or max(numbers) >= slots:
        return False
    backs = list(map(attrgetter("back"), doc.pieces))
    return None not in map(backs.__getitem__, set(compress(items, sides)))


def _all(values: object, kind: type) -> bool:
    """Whether `values` is a tuple of values of type `kind` (none of a subtype)."""
    return type(values) is tuple and all_of_type(values, kind)


def sheet_thumbs(
    pdf: bytes, doc: SheetDoc, options: SheetOptions, cache: RenderCache
) -> list[Thumb]:
    """A thumbnail of every page of a sheet PDF: its sheets drawn from the faces' display
    lists (from the cache when the page was drawn before; a page drawn again takes the faces'
    pixels from the cache too, so a warm build rasterises only the faces that changed), the
    rest as outlines."""
    sizes = page_sizes(pdf)
    plan_key, layout, plan = _known_layout(doc, options, cache)
    fronts, backs = _looks(doc)
    keys = _page_keys(options.page_pt, plan_key, fronts, backs, layout.ranges)
    made: dict[str, bytes] = {}
    todo: dict[str, int] = {}
    for index, key in enumerate(keys):
        found = cache.get(key)
        if found is not None:
            made[key] = found
        elif key not in todo:
            todo[key] = index
    if len(layout.heights) > 1 and plan is None:
        plan = sheet_plan(doc, options)  # faces of several heights: each face's own key
    # the faces stay as long as their pages do: a page drawn again finds them
    cache.keep(_face_keys_kept(fronts, backs, layout, plan, options.page_pt[1]))
    drawings: dict[str, Drawing] = {}
    jobs = []
    for index in todo.values():
        spots = plan.pages[index] if plan is not None else None
        if spots is None:
            found = cache.get(plan_key + PAGE_SPOTS + str(index))
            spots = _read_page(found, doc, len(layout.slots), layout.ranges[index])
        if spots is None:  # missing or damaged: the plan made again (the same spots)
            plan = _plan_kept(doc, options, cache, plan_key)
            spots = plan.pages[index]
        faces = [(_face_ref(doc, item, side), Slot(*layout.slots[n])) for item, side, n in spots]
        jobs.append(partial(_draw_page, options.page_pt, faces, drawings, cache.get))
    for key, result in zip(todo, parallel_map(jobs), strict=True):
        png, drawn = marshal.loads(result)
        for face_key, pixels in drawn.items():
            cache.put(face_key, pixels)
        cache.put(key, png)
        made[key] = png
    thumbs = []
    for number, size in enumerate(sizes, start=1):
        png = made[keys[number - 1]] if number <= len(keys) else None
        thumbs.append(Thumb(number, size, png))
    return thumbs


def _page_head(page: tuple[float, float]) -> bytes:
    """What every page key starts with: the code that draws a page (this module; the faces'
    looks are in the renderer's fingerprint, in every key), the page's size and the height."""
    return f"{_plan_code()}:{page[0]:.3f}x{page[1]:.3f}:{THUMB_HEIGHT}".encode()


def _identities(doc: SheetDoc) -> list[tuple[str, str]]:
    """The identities of each piece's front and back ("" for none: a plan names none)."""
    return [(p.front.identity, "" if p.back is None else p.back.identity) for p in doc.pieces]


def _looks(doc: SheetDoc) -> tuple[list[str], list[str]]:
    """The identities of the pieces' fronts, and of their backs ("" for none)."""
    fronts = list(map(attrgetter("front.identity"), doc.pieces))
    backs = map(attrgetter("back"), doc.pieces)  # None for none: no identity, ""
    return fronts, list(map(getattr, backs, repeat("identity"), repeat("")))


def _page_keys(
    page: tuple[float, float],
    plan_key: str,
    fronts: list[str],
    backs: list[str],
    ranges: Sequence[tuple[int, int, int]],
) -> list[str]:
    """The cache key of every page's thumbnail: the page's size, the plan (its key: where
    each face of each page goes), the page's number, then the looks of the fronts, or the
    backs, or both, of the pieces its faces are of (its range: `fronts` and `backs` of
    every piece of the document), each page's joined in passes that stay in C."""
    head = _page_head(page) + plan_key.encode()
    keys = []
    for number, (first, end, sides) in enumerate(ranges):
        digest = hashlib.sha256(head)
        digest.update(f"\n{number}:{first}:{end}:{sides}\n".encode())
        if sides & 1:
            digest.update("\0".join(fronts[first:end]).encode())
        digest.update(b"\n")
        if sides & 2:
            digest.update("\0".join(backs[first:end]).encode())
        keys.append(digest_key("preview-page", digest.hexdigest()))
    return keys


def _face_keys_kept(
    fronts: list[str], backs: list[str], layout: Layout, plan: Plan | None, page_height: float
) -> set[str]:
    """The keys of the faces' pixels of every page: with the faces of one height, each
    face of the pieces at that height (in passes that stay in C); else each face of the
    `plan` at its own."""
    if plan is not None and len(layout.heights) > 1:
        identities = list(zip(fronts, backs, strict=True))
        return _all_face_keys(identities, plan, page_height)
    head = digest_key("preview-face", "")
    tails = [f":{height}:{FACE_SUPERSAMPLE}" for height in layout.heights]
    looks = set(filter(None, chain(fronts, backs)))
    keys = (map(head.__add__, map(add, looks, repeat(tail))) for tail in tails)
    return set(chain.from_iterable(keys))


def _spot_looks(identities: list[tuple[str, str]], plan: Plan) -> list[str]:
    """The look (identity) of every spot of the plan, page after page (in a pass in C)."""
    items, sides, _numbers = plan.columns
    return list(map(getitem, map(identities.__getitem__, items), sides))


def _all_face_keys(identities: list[tuple[str, str]], plan: Plan, page_height: float) -> set[str]:
    """The `_face_key` of every face of the plan, in passes that stay in C (a warm build keeps
    the faces of every page it finds: tens of thousands of keys)."""
    looks, numbers = _spot_looks(identities, plan), plan.columns[2]
    head = digest_key("preview-face", "")
    tails = [f":{_face_pixels(Slot(*slot), page_height)}:{FACE_SUPERSAMPLE}" for slot in plan.slots]
    return set(map(head.__add__, map(add, looks, map(tails.__getitem__, numbers))))


def _face_pixels(slot: Slot, page_height: float) -> int:
    """How many pixels tall a face in `slot` is in a thumbnail."""
    return max(1, round(slot.h / page_height * THUMB_HEIGHT))


def _face_key(ref: FaceRef, slot: Slot, page_height: float) -> str:
    """The cache key of a face's pixels in a thumbnail: its look and its height there."""
    pixels = str(_face_pixels(slot, page_height))
    return digest_key("preview-face", ref.identity, pixels, str(FACE_SUPERSAMPLE))


def _draw_page(
    page: tuple[float, float],
    faces: list[Face],
    drawings: dict[str, Drawing],
    known: Callable[[str], bytes | None],
) -> bytes:
    """A sheet page as a PNG THUMB_HEIGHT tall — the paper and the grey squares of faces
    printed from pictures, then each face rasterised at its size and laid in its slot, as
    the raster back end lays a drawing's insets — with the faces not in `known`
    (marshalled: the PNG, then a dict of cache key → the face's width and packed pixels; a
    face found in `known` is not made)."""
    width, height = page
    ops: list[Rect] = [Rect((0.0, 0.0, width / height, 1.0), PAPER, EDGE, 0.004)]
    for ref, slot in faces:
        if ref.picture is not None:
            top = (height - slot.top) / height
            box = (slot.x / height, top, slot.right / height, top + slot.h / height)
            ops.append(Rect(box, PICTURE))
    image = rasterize(Drawing(width / height, tuple(ops)), THUMB_HEIGHT)
    scale = (image.width / (width / height), float(THUMB_HEIGHT))
    new: dict[str, bytes] = {}
    for ref, slot in faces:
        if ref.picture is not None:
            continue
        key = _face_key(ref, slot, height)
        data = new.get(key) or known(key)
        if data is None:
            drawing = drawings.get(ref.identity)
            if drawing is None:
                drawing = drawings[ref.identity] = ref.make()
            raster = rasterize(drawing, _face_pixels(slot, height), FACE_SUPERSAMPLE)
            data = new[key] = marshal.dumps((drawing.width, packed(raster)))
        face_width, face_pixels = marshal.loads(data)
        face = unpacked(face_pixels)
        left = (slot.x + (slot.w - face_width * slot.h) / 2) / height
        top = (height - slot.top) / height
        lay(image, face, (round(left * scale[0]), round(top * scale[1])))
    return marshal.dumps((png_bytes(image), new))
