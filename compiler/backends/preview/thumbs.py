"""Thumbnails of the pages of the print sheets, drawn from the display lists the sheets are
made of: each sheet page is the faces' drawings inset where the imposition puts them,
rasterised small. Pages that are not sheets of faces (calibration, sheet index) and the pages
of charts.pdf are shown as labelled page outlines of the PDF's own page size."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from compiler.backends.art.display import Drawing, Inset, Rect
from compiler.backends.art.pieces import png_bytes
from compiler.backends.art.raster import rasterize
from compiler.backends.rendercache import RenderCache, digest_key
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
    lists (from the cache when the page was drawn before), the rest as outlines."""
    sizes = page_sizes(pdf)
    pages = sheet_faces(doc, options)
    keys = [_page_key(options.page_pt, faces) for faces in pages]
    drawings: dict[str, Drawing] = {}

    def job(index: int) -> Callable[[], bytes]:
        return partial(_draw_page, options.page_pt, pages[index], drawings)

    made = cache.render_keys(keys, job)
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


def _draw_page(page: tuple[float, float], faces: list[Face], drawings: dict[str, Drawing]) -> bytes:
    """A sheet page as a PNG THUMB_HEIGHT tall: the paper, then each face in its slot."""
    width, height = page
    ops: list[Rect | Inset] = [Rect((0.0, 0.0, width / height, 1.0), PAPER, EDGE, 0.004)]
    for ref, slot in faces:
        top = (height - slot.top) / height
        if ref.picture is not None:
            box = (slot.x / height, top, slot.right / height, top + slot.h / height)
            ops.append(Rect(box, PICTURE))
            continue
        drawing = drawings.get(ref.identity)
        if drawing is None:
            drawing = drawings[ref.identity] = ref.make()
        face_w = drawing.width * slot.h
        left = (slot.x + (slot.w - face_w) / 2) / height
        ops.append(Inset((left, top, left + face_w / height, top + slot.h / height), drawing))
    return png_bytes(rasterize(Drawing(width / height, tuple(ops)), THUMB_HEIGHT))
