"""Image files the data names, read for every back end: board art and piece art (`art:` of a
unit, a marker set, a card or a deck).

Only a regular file inside the game folder is opened: validation reports an absolute path or
one leading out of the folder (`path-outside-game`), and this module refuses it again. Before
the build writes anything, `check_piece_art` (like the board check) reports a missing, unreadable
or huge file, or one that is not an image, at the `front:`/`back:` line (rule `art-error`).
Piece pictures go into the module as they are (PNG, JPEG, GIF or SVG) and onto the print sheets
as decoded pixels.
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lxml import etree
from PIL import Image, UnidentifiedImageError

from compiler.diagnostics import Finding, Severity
from compiler.load.paths import game_path
from compiler.load.yamlread import file_kind
from compiler.model.gamedata import GameData
from compiler.model.units import PieceArt
from compiler.regularfile import open_regular
from compiler.rules.paths import piece_art_outside, piece_art_paths

MAX_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 80_000_000
PIECE_FORMATS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif"}
"""Raster formats a piece picture may have (what VASSAL shows), by Pillow's name → extension."""
ART_HINT = (
    "give a PNG, JPEG, GIF or SVG path relative to the game folder, or drop it to get the "
    "drawn face"
)


class ArtError(Exception):
    """An image that cannot be used after all (it changed since the checks): its finding."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def open_file(path: Path) -> BinaryIO:
    """The file, opened without waiting (a pipe swapped in is refused, never waited on)."""
    return os.fdopen(open_regular(path)[0], "rb")


def file_problem(path: Path) -> str | None:
    """Why the file at `path` cannot be read as an image file at all, or None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return "is missing"
    if not stat.S_ISREG(info.st_mode):  # a pipe or a device is never opened
        return f"is {file_kind(info.st_mode)}, not an image file"
    if info.st_size > MAX_BYTES:
        return f"is {info.st_size / 1048576:.0f} MiB (at most {MAX_BYTES // 1048576} MiB)"
    return None


def raster_problem(source: BinaryIO, formats: set[str] | None = None) -> str | None:
    """Why `source` is not a sane raster image (of one of `formats`, if given), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(source) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    return f"is {width}×{height} pixels (at most {MAX_PIXELS:,} pixels)"
                if formats is not None and image.format not in formats:
                    return f"is a {image.format} image (PNG, JPEG, GIF or SVG are shown)"
                image.verify()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        return f"is too large to open safely ({err})"
    except UnidentifiedImageError:  # its text names the buffer read: an address each run
        return "is not a readable image (no image format is recognised in its bytes)"
    except (OSError, SyntaxError, ValueError) as err:
        return f"is not a readable image ({err})"
    return None


def image_problem(path: Path) -> str | None:
    """Why the raster image at `path` cannot be used (board art), or None."""
    problem = file_problem(path)
    if problem is not None:
        return problem
    try:
        with open_file(path) as handle:
            return raster_problem(handle)
    except OSError as err:
        return f"is not a readable image ({err})"


# ---- piece pictures ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PieceImage:
    """A piece picture as read: its bytes and its kind ("png", "jpg", "gif" or "svg")."""

    data: bytes
    ext: str


def _is_svg(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith((b"<?xml", b"<svg", b"<!--", b"<!DOCTYPE svg"))


def _svg_problem(data: bytes) -> str | None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as err:
        return f"is not a readable SVG image ({err})"
    if etree.QName(root).localname != "svg":
        return "is an XML file but not an SVG image"
    return None


def _read(path: Path) -> PieceImage | str:
    """The picture at `path`, or why it cannot be used."""
    problem = file_problem(path)
    if problem is not None:
        return problem
    try:
        with open_file(path) as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    if len(data) > MAX_BYTES:
        return f"is over {MAX_BYTES // 1048576} MiB"
    if _is_svg(data):
        return _svg_problem(data) or PieceImage(data, "svg")
    problem = raster_problem(io.BytesIO(data), set(PIECE_FORMATS))
    if problem is not None:
        return problem
    with Image.open(io.BytesIO(data)) as image:
        return PieceImage(data, PIECE_FORMATS[str(image.format)])


def _finding(art: PieceArt, key: str, owner: str, problem: str) -> Finding:
    return Finding(
        "art-error",
        art.locate(key),
        f"{key} image `{getattr(art, key)}` of {owner} {problem}",
        ART_HINT,
    )


def load_picture(game: GameData, art: PieceArt, key: str, owner: str) -> PieceImage:
    """One picture of a piece's art (`key` is "front" or "back"); ArtError when it cannot be
    used (checked by check_piece_art before the build)."""
    outside = piece_art_outside(game, art, key, owner)
    if outside is not None:
        raise ArtError(outside)
    path, _reason = game_path(game.root, getattr(art, key))
    read = _read(path)
    if isinstance(read, str):
        raise ArtError(_finding(art, key, owner, read))
    return read


@dataclass(frozen=True, slots=True, eq=False)
class Picture:
    """One picture of a piece's art (its `front` or `back`), read when it is needed."""

    game: GameData
    art: PieceArt
    side: str
    owner: str
    """Whose picture it is, for findings: "unit `ge-1-inf`"."""

    @property
    def path(self) -> str:
        """The image path as the data gives it."""
        return str(getattr(self.art, self.side))

    def load(self) -> PieceImage:
        """The picture's bytes; ArtError when it cannot be used."""
        return load_picture(self.game, self.art, self.side, self.owner)


def picture(game: GameData, art: PieceArt | None, side: str, owner: str) -> Picture | None:
    """The picture `art` gives for `side`, if it gives one."""
    if art is None or not getattr(art, side):
        return None
    return Picture(game, art, side, owner)


def check_piece_art(game: GameData) -> list[Finding]:
    """Every picture of piece art that cannot be used (errors), and SVG pictures, which the
    print sheets cannot hold (warnings: the sheets print the drawn face instead)."""
    findings = []
    for owner, art, key, name in piece_art_paths(game):
        outside = piece_art_outside(game, art, key, owner)
        if outside is not None:  # validation reports it; never opened here either
            findings.append(outside)
            continue
        read = _read(game_path(game.root, name)[0])
        if isinstance(read, str):
            findings.append(_finding(art, key, owner, read))
        elif read.ext == "svg":
            findings.append(
                Finding(
                    "art-error",
                    art.locate(key),
                    f"{key} image `{name}` of {owner} is SVG: the module shows it, but the print "
                    "sheets draw the face instead",
                    "give a PNG (or JPEG) picture to have it printed",
                    severity=Severity.WARNING,
                )
            )
    return findings


def pixels(picture: PieceImage) -> Image.Image:
    """A raster picture's first frame as RGB or RGBA pixels."""
    with Image.open(io.BytesIO(picture.data)) as image:
        image.seek(0)
        has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        return image.convert("RGBA" if has_alpha else "RGB")
