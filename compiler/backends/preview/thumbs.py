"""Thumbnails of the pages of the print sheets, drawn from the display lists the sheets are
made of: each sheet page is the faces' drawings inset where the imposition puts them,
rasterised small. Pages that are not sheets of faces (calibration, sheet index) and the pages
of charts.pdf are shown as labelled page outlines of the PDF's own page size."""

from __future__ import annotations

import hashlib
import marshal
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from compiler.backends.art.display import Drawing, Rect
from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.pixels import packed, unpacked
from compiler.backends.art.raster import INSET_SUPERSAMPLE, SCALE, rasterize
from compiler.backends.rendercache import RenderCache, digest_key, parallel_map
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


def sheet_faces(doc: SheetDoc, options: SheetOptions) -> list[list[Face]]:
    """The faces of every sheet page the PDF starts with, in its order: fronts, then mirrored
    backs (one page each), or fronts and backs on one gutter-fold page."""
    imposition = impose([p.copies for p in doc.pieces], options, doc.slot_mm)
    pages: list[list[Face]] = []
    for sheet in range(imposition.sheets):
        placed = imposition.on_sheet(sheet)
        fronts = _faces(doc, placed, "front")
        backs = _faces(doc, placed, "back")
        if imposition.mode == "gutter-fold":
            pages.append(fronts + backs)
            continue
        pages.append(fronts)
        if _has_back_page(imposition, backs):
            pages.append(backs)
    return pages


def _has_back_page(imposition: Imposition, backs: list[Face]) -> bool:
    return imposition.mode == "mirror" and bool(backs)


def _faces(doc: SheetDoc, placed: Sequence[Placement], side: str) -> list[Face]:
    out: list[Face] = []
    for placement in placed:
        piece = doc.pieces[placement.item]
        ref = piece.front if side == "front" else piece.back
        slot = placement.front if side == "front" else placement.back
        if ref is not None and slot is not None:
            out.append((ref, slot))
    return out


def sheet_thumbs(
    pdf: bytes, doc: SheetDoc, options: SheetOptions, cache: RenderCache
) -> list[Thumb]:
    """A thumbnail of every page of a sheet PDF: its sheets drawn from the faces' display
    lists (from the cache when the page was drawn before; a page drawn again takes the faces'
    pixels from the cache too, so a warm build rasterises only the faces that changed), the
    rest as outlines."""
    sizes = page_sizes(pdf)
    pages = sheet_faces(doc, options)
    keys = [_page_key(options.page_pt, faces) for faces in pages]
    made: dict[str, bytes] = {}
    todo: dict[str, int] = {}
    for index, key in enumerate(keys):
        found = cache.get(key)
        if found is not None:
            made[key] = found
            # its faces stay as long as the page does: drawn again, it finds them
            cache.keep(_face_key(ref, slot, options.page_pt[1]) for ref, slot in pages[index])
        elif key not in todo:
            todo[key] = index
    drawings: dict[str, Drawing] = {}
    jobs = [
        partial(_draw_page, options.page_pt, pages[i], drawings, cache.get) for i in todo.values()
    ]
    for key, result in zip(todo, parallel_map(jobs), strict=True):
        png, faces = marshal.loads(result)
        for face_key, pixels in faces.items():
            cache.put(face_key, pixels)
        cache.put(key, png)
        made[key] = png
    thumbs = []
    for number, size in enumerate(sizes, start=1):
        png = made[keys[number - 1]] if number <= len(keys) else None
        thumbs.append(Thumb(number, size, png))
    return thumbs


def _page_key(page: tuple[float, float], faces: list[Face]) -> str:
    digest = hashlib.sha256(f"{page[0]:.3f}x{page[1]:.3f}:{THUMB_HEIGHT}".encode())
    for ref, slot in faces:
        digest.update(
            f"\n{ref.identity}@{slot.x:.3f},{slot.y:.3f},{slot.w:.3f},{slot.h:.3f}".encode()
        )
    return digest_key("preview-page", digest.hexdigest())


FACE_SUPERSAMPLE = max(SCALE, INSET_SUPERSAMPLE)
"""A face is supersampled as the raster back end does a drawing's insets."""


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
        mask = face if face.mode == "RGBA" else None
        image.paste(face.convert("RGB"), (round(left * scale[0]), round(top * scale[1])), mask)
    return marshal.dumps((png_bytes(image), new))
