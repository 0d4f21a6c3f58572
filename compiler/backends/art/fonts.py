"""Fonts for piece images: DejaVu Sans, a CJK font for Japanese, Pillow's own font as a last resort.

Fonts are looked up once per (size, bold, lang) and cached. `fit_text` shrinks a text's font until
it fits a width and ellipsizes it when even the smallest size is too wide, so that text never
silently runs over the edge of a counter or card.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
LATIN_REGULAR = (DEJAVU / "DejaVuSans.ttf",)
LATIN_BOLD = (DEJAVU / "DejaVuSans-Bold.ttf", *LATIN_REGULAR)
CONDENSED_REGULAR = (DEJAVU / "DejaVuSansCondensed.ttf", *LATIN_REGULAR)
CONDENSED_BOLD = (DEJAVU / "DejaVuSansCondensed-Bold.ttf", *LATIN_BOLD)
CJK_REGULAR = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJKjp-Regular.otf"),
    Path("/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"),
    Path("/usr/share/fonts/truetype/ipaexfont-gothic/ipaexg.ttf"),
    Path("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"),
    Path("/usr/share/fonts/truetype/ipafont-gothic/ipag.ttf"),
    Path("/usr/share/fonts/truetype/fonts-japanese-gothic.ttf"),
)
CJK_BOLD = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJKjp-Bold.otf"),
    Path("/usr/share/fonts/truetype/noto/NotoSansCJK-Bold.ttc"),
    *CJK_REGULAR,
)
MIN_SIZE = 6
ELLIPSIS = "…"


def candidates(bold: bool, lang: str, condensed: bool = False) -> tuple[Path, ...]:
    """Font files to try, best first, for a weight, a width and a language."""
    latin: tuple[Path, ...]
    if condensed:
        latin = CONDENSED_BOLD if bold else CONDENSED_REGULAR
    else:
        latin = LATIN_BOLD if bold else LATIN_REGULAR
    if lang == "ja":
        return (*(CJK_BOLD if bold else CJK_REGULAR), *latin)
    return latin


@lru_cache(maxsize=512)
def font(size: int, bold: bool = False, lang: str = "en", *, condensed: bool = False) -> Font:
    """The font for `size` pixels: DejaVu Sans (CJK for "ja"), else Pillow's default font."""
    size = max(1, size)
    for path in candidates(bold, lang, condensed):
        if path.is_file():
            try:
                return ImageFont.truetype(str(path), size)
            except OSError:
                continue
    return ImageFont.load_default(size)


def has_cjk_font() -> bool:
    """Whether a CJK font is installed (Japanese text renders as boxes without one)."""
    return any(path.is_file() for path in CJK_REGULAR)


def text_width(face: Font, text: str) -> float:
    """Advance width of `text` in pixels."""
    return float(face.getlength(text))


def ellipsize(face: Font, text: str, max_width: float) -> str:
    """`text` cut at the end with an ellipsis so that it fits `max_width` (maybe only "…")."""
    if text_width(face, text) <= max_width:
        return text
    cut = len(text)
    while cut > 0:
        cut -= 1
        candidate = text[:cut].rstrip() + ELLIPSIS
        if text_width(face, candidate) <= max_width:
            return candidate
    return ELLIPSIS if text_width(face, ELLIPSIS) <= max_width else ""


def fit_text(
    text: str,
    max_width: float,
    start_size: int,
    lang: str = "en",
    *,
    bold: bool = False,
    min_size: int = MIN_SIZE,
    condensed: bool = False,
) -> tuple[Font, str]:
    """The largest font from `start_size` down to `min_size` that fits; at the minimum, ellipsize.

    Returns the font and the text to draw (the text itself, or cut with "…").
    """
    size = max(start_size, 1)
    floor = max(1, min(min_size, size))
    while size > floor:
        face = font(size, bold, lang, condensed=condensed)
        if text_width(face, text) <= max_width:
            return face, text
        size -= 1
    face = font(floor, bold, lang, condensed=condensed)
    return face, ellipsize(face, text, max_width)


def wrap(face: Font, text: str, max_width: float) -> list[str]:
    """Greedy word wrap of `text` to `max_width`; words wider than a line are split by character."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in _words(paragraph):
            joined = f"{line} {word}".strip() if line and not _is_cjk(word) else line + word
            if not line or text_width(face, joined) <= max_width:
                line = joined
                continue
            lines.append(line)
            line = word.strip()
        lines.extend(_split_long(face, line, max_width))
    return [line for line in lines if line] or [""]


def _words(paragraph: str) -> list[str]:
    """Words of a paragraph; CJK text breaks between any two characters."""
    words: list[str] = []
    for word in paragraph.split():
        if any(_is_cjk(char) for char in word):
            words.extend(word)
        else:
            words.append(word)
    return words


def _is_cjk(text: str) -> bool:
    """Whether the text starts with a CJK character (kana, kanji, full-width forms)."""
    return bool(text) and ord(text[0]) >= 0x2E80


def _split_long(face: Font, line: str, max_width: float) -> list[str]:
    """A line broken by character where it is wider than `max_width` on its own."""
    out: list[str] = []
    while len(line) > 1 and text_width(face, line) > max_width:
        cut = len(line) - 1
        while cut > 1 and text_width(face, line[:cut]) > max_width:
            cut -= 1
        out.append(line[:cut])
        line = line[cut:]
    if line:
        out.append(line)
    return out


def fit_lines(
    text: str,
    max_width: float,
    max_height: float,
    start_size: int,
    lang: str = "en",
    *,
    bold: bool = False,
    min_size: int = MIN_SIZE,
    max_lines: int = 2,
    condensed: bool = False,
) -> tuple[Font, list[str]]:
    """Largest font at which `text` wraps into `max_lines` within the box; else clip, ellipsize."""
    size = max(start_size, 1)
    floor = max(1, min(min_size, size))
    while True:
        face = font(size, bold, lang, condensed=condensed)
        lines = wrap(face, text, max_width)
        fits_height = len(lines) * line_height(face) <= max_height
        whole_words = _words_fit(face, text, max_width)
        fits = whole_words and _lines_fit(face, lines, max_width)
        if len(lines) <= max_lines and fits_height and fits:
            return face, lines
        if size <= floor:
            return face, _clip_lines(face, lines, max_width, max_height, max_lines)
        size -= 1


def _lines_fit(face: Font, lines: list[str], max_width: float) -> bool:
    """Whether every line fits the width."""
    return all(text_width(face, line) <= max_width for line in lines)


def _words_fit(face: Font, text: str, max_width: float) -> bool:
    """Whether every word fits a line on its own (so wrapping breaks no word)."""
    return all(text_width(face, word) <= max_width for word in _words(text))


def _clip_lines(
    face: Font, lines: list[str], max_width: float, max_height: float, max_lines: int
) -> list[str]:
    """At most as many lines as fit; the last one ellipsized when text was cut."""
    room = max(1, min(max_lines, int(max_height // max(line_height(face), 1))))
    kept = lines[:room]
    if len(lines) > room:
        kept[-1] = ellipsize(face, kept[-1] + ELLIPSIS, max_width)
    return [ellipsize(face, line, max_width) for line in kept]


def line_height(face: Font) -> int:
    """Tight line pitch: the font size plus 8 %, or the ink height for Pillow's bitmap font."""
    if isinstance(face, ImageFont.FreeTypeFont):
        return math.ceil(face.size * 1.08)
    box = face.getbbox("Ag")
    return int(box[3] - box[1]) + 1
