"""Fonts for piece faces: DejaVu Sans (regular, bold) and IPAex Gothic for Japanese.

Both back ends use the same TrueType files and the same metrics: text is measured with the
advance widths in the font's own tables (via reportlab's TTF parser), the raster back end places
each glyph at those unhinted positions and the vector back end embeds the fonts as subsets, so a
face fits the same way in a PNG and in a PDF. A font that is not installed raises `MissingFont`
naming the Debian package to install; there is no silent fallback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

from compiler.backends.art.fontmetrics import FontMetrics

ELLIPSIS = "…"
DEJAVU_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
IPAEX_DIRS = (
    Path("/usr/share/fonts/opentype/ipaexfont-gothic"),
    Path("/usr/share/fonts/truetype/ipaexfont-gothic"),
    Path("/usr/share/fonts/ipaexfont-gothic"),
)


@dataclass(frozen=True, slots=True)
class FontFile:
    """One TrueType font: the name it is registered under, where to look, what installs it."""

    name: str
    file: str
    dirs: tuple[Path, ...]
    package: str

    def candidates(self) -> tuple[Path, ...]:
        """Paths to try: $COUNTERMIX_FONTS first, then the system directories."""
        extra = os.environ.get("COUNTERMIX_FONTS", "")
        dirs = (*(Path(part) for part in extra.split(os.pathsep) if part), *self.dirs)
        return tuple(folder / self.file for folder in dirs)


REGULAR = FontFile("DejaVuSans", "DejaVuSans.ttf", DEJAVU_DIRS, "fonts-dejavu-core")
BOLD = FontFile("DejaVuSans-Bold", "DejaVuSans-Bold.ttf", DEJAVU_DIRS, "fonts-dejavu-core")
JAPANESE = FontFile("IPAexGothic", "ipaexg.ttf", IPAEX_DIRS, "fonts-ipaexfont-gothic")
ALL_FONTS = (REGULAR, BOLD, JAPANESE)


class MissingFont(Exception):
    """A font needed for a face is not installed."""

    def __init__(self, font: FontFile) -> None:
        where = ", ".join(str(path) for path in font.candidates())
        super().__init__(
            f"font {font.name} ({font.file}) is not installed; install the Debian package "
            f"`{font.package}` (apt-get install {font.package}); looked in {where}"
        )
        self.font = font


@lru_cache(maxsize=8)
def font_path(font: FontFile) -> Path:
    """The installed file of `font`; MissingFont when there is none."""
    for path in font.candidates():
        if path.is_file():
            return path
    raise MissingFont(font)


def is_cjk(char: str) -> bool:
    """Whether a character is CJK (kana, kanji, CJK punctuation, full-width forms)."""
    return bool(char) and ord(char[0]) >= 0x2E80


def has_cjk(text: str) -> bool:
    """Whether any character of `text` is CJK (see is_cjk): U+2E80 or above (compiling that
    as a character class cost 2.5 ms at every start)."""
    return bool(text) and max(text) >= "\u2e80"


def font_for(text: str, bold: bool = False, lang: str = "en") -> FontFile:
    """The font a text is set in: IPAex Gothic when it has CJK characters, else DejaVu Sans.

    `lang` is kept for the caller's record; the characters decide, so Latin figures on a Japanese
    face look the same as on an English one. IPAex Gothic has no bold weight.
    """
    if has_cjk(text):
        return JAPANESE
    return BOLD if bold else REGULAR


@lru_cache(maxsize=8)
def metrics(font: FontFile) -> FontMetrics:
    """The font's metrics (character map, advance widths, ascent, cap height: see
    art.fontmetrics), read as they are asked for."""
    return FontMetrics(font_path(font))


def text_width(text: str, height: float, bold: bool = False, lang: str = "en") -> float:
    """Advance width of `text` set `height` tall (same unit as height), from the font tables."""
    return font_width(font_for(text, bold, lang), text, height)


def font_width(font: FontFile, text: str, size: float) -> float:
    """Advance width of `text` in `font` at `size` (same unit as size)."""
    return float(metrics(font).stringWidth(text, size))


def char_widths(text: str, font: FontFile, height: float) -> list[float]:
    """Advance width of each character of `text` in `font`."""
    tt = metrics(font)
    return [float(tt.stringWidth(char, height)) for char in text]


def baseline_offset(font: FontFile) -> float:
    """How far below the middle of a line its baseline is, in ems: half the cap height.

    Capitals and figures (the values, size marks) are centred on the line's middle; CJK
    glyphs, which sit between the descent and the ascent, come out centred too.
    """
    return float(metrics(font).face.capHeight) / 2000.0


@lru_cache(maxsize=16)
def pillow_font(font: FontFile, size_px: float) -> ImageFont.FreeTypeFont:
    """The same font file opened by Pillow at `size_px` pixels (quarter pixels).

    Few are kept: opening one takes 0.02–0.1 ms, but each open face maps the font file and
    touches about 0.3 MB of it, so keeping every size a build asks for (650 for the five seed
    games) held 130 MB. Drawn glyphs are kept apart (raster._glyph), so a face is opened
    again only for a glyph not drawn yet."""
    size = max(1.0, round(size_px * 4) / 4)
    return ImageFont.truetype(str(font_path(font)), size, layout_engine=ImageFont.Layout.BASIC)


def has_cjk_font() -> bool:
    """Whether the Japanese font is installed."""
    try:
        font_path(JAPANESE)
    except MissingFont:
        return False
    return True
