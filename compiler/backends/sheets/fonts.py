"""TrueType fonts for the sheets' own text (labels, calibration, index), embedded as subsets.

The PDF standard fonts (Helvetica ...) are never embedded, so every text on our pages uses these.
Japanese text needs a TrueType CJK font (IPAex Gothic); reportlab rejects CFF-based Noto CJK.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

SANS = "CountermixSans"
SANS_BOLD = "CountermixSans-Bold"
JAPANESE = "CountermixJapanese"

_FILES: dict[str, tuple[Path, ...]] = {
    SANS: (Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),),
    SANS_BOLD: (Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),),
    JAPANESE: (
        Path("/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"),
        Path("/usr/share/fonts/truetype/ipaexfont-gothic/ipaexg.ttf"),
        Path("/usr/share/fonts/truetype/fonts-japanese-gothic.ttf"),
        Path("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"),
    ),
}


@cache
def register_sheet_fonts() -> None:
    """Register the sheet fonts with reportlab once; missing Japanese falls back to Latin."""
    for name, paths in _FILES.items():
        path = next((p for p in paths if p.exists()), None)
        if path is None and name == JAPANESE:
            path = next(p for p in _FILES[SANS] if p.exists())
        if path is None:
            raise FileNotFoundError(f"no font file for {name}: install fonts-dejavu-core")
        pdfmetrics.registerFont(TTFont(name, str(path)))


def font_for(text: str, bold: bool = False) -> str:
    """The font to set `text` in: the Japanese font when it holds non-Latin characters."""
    if any(ord(char) > 0x2FF for char in text):
        return JAPANESE
    return SANS_BOLD if bold else SANS


def fit(text: str, font: str, size: float, width: float) -> str:
    """`text` shortened with an ellipsis until it fits `width` points at `size`."""
    if pdfmetrics.stringWidth(text, font, size) <= width:
        return text
    while text and pdfmetrics.stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text + "…"
