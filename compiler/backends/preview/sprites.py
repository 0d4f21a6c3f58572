"""The units section's faces in sprites: one SVG file per run of units (kept.RUN_UNITS), each of
the run's faces in it once, one below the other, at the height the page shows a face at
(CELL px). The page shows a face as an <img> of the sprite cut to the face's cell (CSS
`object-fit: none` and `object-position`: html.STYLE), so the browser fetches and decodes a
run's faces once, lazily, as it did each face's file.

A large game's preview was one file per face (12,838 at 8,000 counters): every build listed,
compared and kept them name by name. In sprites it is a few hundred files: a warm build keeps
a run's sprite by its name alone, which is a digest of the names of its faces (each the digest
of the face's bytes: vassal.module.ImageStore), of this code and of FORMAT.

Each face is embedded whole as a data: URI (`<image href="data:...;base64,...">`): a face of
any kind the module holds (SVG, PNG, JPEG, GIF, WebP: a unit's own `art:` too) is drawn as it
is, each SVG in a document of its own (two faces' ids cannot clash). Its width in the cell is
its own width for CELL px of its height, from its bytes (the <svg> tag's width and height, else
its viewBox; a raster's header, read by Pillow)."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import NamedTuple

FORMAT = "countermix-preview-sprite-1"
CELL = 64
"""The height of a face on the page, in CSS px (html.STYLE: `.faces img`)."""
GAP = 2
"""Between two cells: a browser that samples past a cell's edge finds nothing there."""
KIND = "units"
"""A sprite's file is `preview-units-<digest>.svg` (pipeline's pattern of preview files)."""

MIME = {
    "svg": "image/svg+xml",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
"""A face's type by its name's extension (the module's image names keep the source's)."""

ReadFace = Callable[[str], bytes]
"""A face's bytes by its name (in the module's images/)."""


class Cell(NamedTuple):
    """Where a face is in its sprite: the top of its cell (px) and its width (CSS px, as
    written in the sprite and on the page)."""

    top: int
    width: str


@cache
def code_digest() -> str:
    """A digest of this code (in every sprite's name: a sprite kept by name is this code's)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def distinct_faces(fronts: Iterable[str], backs: Iterable[str]) -> list[str]:
    """The faces of a run's units, each once, in the order they first come (a unit's front,
    then its back; "" is no back)."""
    seen: dict[str, None] = {}
    for front, back in zip(fronts, backs, strict=True):
        seen[front] = None
        if back:
            seen[back] = None
    return list(seen)


def sprite_name(faces: Sequence[str], prefix: str) -> str:
    """The file of the sprite of `faces` (module image names), under `prefix`."""
    digest = hashlib.sha256("\0".join((FORMAT, code_digest(), *faces)).encode("utf-8"))
    return f"{prefix}{KIND}-{digest.hexdigest()[:16]}.svg"


def cells(faces: Sequence[str], read: ReadFace) -> dict[str, Cell]:
    """Each face's cell, from its size (`read` gives its bytes)."""
    return _laid(faces, list(map(read, faces)))


def sprite_bytes(faces: Sequence[str], read: ReadFace) -> bytes:
    """The sprite of `faces`: an SVG as wide as its widest face, each face in its cell."""
    data = list(map(read, faces))
    laid = _laid(faces, data)
    width = _number(max((float(cell.width) for cell in laid.values()), default=1.0))
    height = max(len(faces) * (CELL + GAP) - GAP, 1)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">\n',
    ]
    for face, face_data in zip(faces, data, strict=True):
        cell = laid[face]
        encoded = base64.b64encode(face_data).decode("ascii")
        parts.append(
            f'<image x="0" y="{cell.top}" width="{cell.width}" height="{CELL}" '
            f'preserveAspectRatio="none" href="data:{_mime(face)};base64,{encoded}"/>\n'
        )
    parts.append("</svg>\n")
    return "".join(parts).encode("ascii")


def cells_record(laid: Mapping[str, Cell]) -> bytes:
    """The widths of a sprite's cells, to keep (a run's items made again, for another
    language or working folder, need not read its faces to know them)."""
    return "\n".join(cell.width for cell in laid.values()).encode("ascii")


def kept_cells(record: bytes | None, faces: Sequence[str]) -> dict[str, Cell] | None:
    """The cells of `faces` from their `cells_record`; None for a record of other faces (or
    none)."""
    if record is None or not record.isascii():
        return None
    widths = record.decode("ascii").split("\n")
    if len(widths) != len(faces) or not all(map(WIDTH.fullmatch, widths)):
        return None
    return _cells(faces, widths)


WIDTH = re.compile(r"[1-9][0-9]*(\.[0-9]{1,2})?")
"""A width as `_number` writes it (at least 1)."""


def _laid(faces: Sequence[str], data: Sequence[bytes]) -> dict[str, Cell]:
    return _cells(faces, list(map(_width, faces, data)))


def _cells(faces: Sequence[str], widths: Sequence[str]) -> dict[str, Cell]:
    tops = range(0, len(faces) * (CELL + GAP), CELL + GAP)
    return {face: Cell(top, width) for face, top, width in zip(faces, tops, widths, strict=True)}


def reader(images: Mapping[str, bytes], folder: str) -> ReadFace:
    """A face's bytes from the module's `images` (named `<folder><face>`)."""
    return lambda face: images[folder + face]


def _mime(face: str) -> str:
    return MIME.get(face.rpartition(".")[2].lower(), "application/octet-stream")


def _width(face: str, data: bytes) -> str:
    """The face's width for CELL px of its height."""
    size = _svg_size(data) if _mime(face) == MIME["svg"] else _raster_size(data)
    if size is None:
        return _number(CELL)
    width, height = size
    return _number(min(max(CELL * width / height, 1.0), 16.0 * CELL))


def _number(value: float) -> str:
    """A length as written: at most two decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


SVG_TAG = re.compile(rb"<svg\b[^>]*>", re.IGNORECASE)
ATTRIBUTE = r"""\s%s\s*=\s*(?:"([^"]*)"|'([^']*)')"""
LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(px)?\s*")
NUMBERS = re.compile(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?")


def _svg_size(data: bytes) -> tuple[float, float] | None:
    """An SVG's size: its root's width and height (plain or px), else its viewBox's; None
    when neither is there or usable."""
    tag = SVG_TAG.search(data[:65536])
    if tag is None:
        return None
    text = tag.group().decode("utf-8", "replace")
    width, height = _length(text, "width"), _length(text, "height")
    if width and height:
        return width, height
    box = _attribute(text, "viewBox")
    numbers = NUMBERS.findall(box or "")
    if len(numbers) == 4 and float(numbers[2]) > 0 and float(numbers[3]) > 0:
        return float(numbers[2]), float(numbers[3])
    return None


def _attribute(tag: str, name: str) -> str | None:
    found = re.search(ATTRIBUTE % name, tag)
    return None if found is None else found.group(1) or found.group(2) or ""


def _length(tag: str, name: str) -> float | None:
    value = _attribute(tag, name)
    found = None if value is None else LENGTH.fullmatch(value)
    if found is None:
        return None
    number = float(found.group(1))
    return number if number > 0 else None


def _raster_size(data: bytes) -> tuple[float, float] | None:
    """A raster image's size from its header (Pillow reads no pixels for it); None when
    Pillow cannot tell it."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return None
    return (float(width), float(height)) if width > 0 and height > 0 else None
