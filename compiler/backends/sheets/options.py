"""Print sheet options: paper, piece sizes, margins, gutter, bleed, cut marks and duplex mode.

Lengths are millimetres here; the imposition and the PDF writer work in PostScript points.
Counter sizes are the usual presets (1/2in, 9/16in, 5/8in, 3/4in, 1in) or a free size in mm.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:  # the command line parses its sizes here before any game is loaded
    from compiler.model.game import PrintSettings

Paper = Literal["A4", "Letter"]
Duplex = Literal["mirror", "gutter-fold", "none"]
Lang = Literal["en", "ja"]

MM = 72.0 / 25.4
"""Points per millimetre."""

PAPER_MM: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
INCH_PRESETS: dict[str, float] = {
    "1/2in": 12.7,
    "9/16in": 14.2875,
    "5/8in": 15.875,
    "3/4in": 19.05,
    "1in": 25.4,
}
PRESET_LIST = ", ".join(INCH_PRESETS)
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?(?:/\d+)?)\s*(mm|in|\")\s*$")
_PAIR = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*mm\s*$")


def counter_size_mm(text: str) -> float:
    """A counter size in mm from a preset ("5/8in", "1in", '3/4"') or a free size ("16mm")."""
    match = _LENGTH.match(text)
    if match is None:
        raise ValueError(
            f"unknown counter size {text!r}: use one of {PRESET_LIST} or a size in mm (16mm)"
        )
    number, unit = match.groups()
    numerator, denominator = _ratio(number, text)
    if unit == "mm":
        return _positive(numerator / denominator, text)
    for name, size in INCH_PRESETS.items():
        preset_numerator, preset_denominator = _ratio(name.removesuffix("in"), name)
        if numerator * preset_denominator == preset_numerator * denominator:
            return size
    raise ValueError(
        f"unknown counter size preset {text!r}: use one of {PRESET_LIST} or a size in mm (16mm)"
    )


def _ratio(number: str, text: str) -> tuple[int, int]:
    """A number as _LENGTH matches it ("5", "2.5", "5/8") as an exact numerator and
    denominator: the sizes compare exactly, as fractions.Fraction compared them, without
    importing fractions and decimal (3-6 ms of every build's start-up)."""
    whole, _, below = number.partition("/")
    digits, _, decimals = whole.partition(".")
    denominator = 10 ** len(decimals) * (int(below) if below else 1)
    if (decimals and below) or denominator == 0:
        raise ValueError(f"unknown counter size {text!r}: write a fraction as 5/8in")
    return int(digits + decimals), denominator


def card_size_mm(text: str) -> tuple[float, float]:
    """A card size in mm from "63x88mm" (width x height)."""
    match = _PAIR.match(text)
    if match is None:
        raise ValueError(f"unknown card size {text!r}: write width x height in mm, e.g. 63x88mm")
    return _positive(float(match.group(1)), text), _positive(float(match.group(2)), text)


def back_offset_mm(text: str) -> tuple[float, float]:
    """A back offset "x,y" in mm (e.g. "0.5,-0.3"), as measured on the calibration page."""
    parts = text.split(",")
    try:
        x, y = (float(part) for part in parts)
    except ValueError:
        raise ValueError(f"back offset {text!r}: write x,y in mm, e.g. 0.5,-0.3") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"back offset {text!r}: both numbers must be finite")
    return x, y


def _positive(value: float, text: str) -> float:
    """The value, if it is above zero."""
    if value <= 0:
        raise ValueError(f"size {text!r} must be greater than zero")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetOptions:
    """How the print sheets are laid out. Lengths in mm; every field is checked on creation."""

    paper: Paper = "A4"
    counter_mm: float = INCH_PRESETS["5/8in"]
    block_mm: float = 22.0
    card_mm: tuple[float, float] = (63.0, 88.0)
    margin_mm: float = 10.0
    gutter_mm: float = 0.0
    bleed_mm: float = 1.0
    cut_marks: bool = True
    mark_length_mm: float = 4.0
    duplex: Duplex = "mirror"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    fold_gap_mm: float = 6.0
    calibration: bool = True
    index: bool = True
    lang: Lang = "en"

    def __post_init__(self) -> None:
        _check_choice("paper", self.paper, get_args(Paper))
        _check_choice("duplex", self.duplex, get_args(Duplex))
        _check_choice("lang", self.lang, get_args(Lang))
        for name in ("margin_mm", "gutter_mm", "bleed_mm", "mark_length_mm", "fold_gap_mm"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite length of 0 mm or more, not {value}")
        sizes = (self.counter_mm, self.block_mm, *self.card_mm, *self.back_offset_mm)
        if not all(math.isfinite(size) for size in sizes):
            raise ValueError("piece sizes and the back offset must be finite numbers")
        if self.bleed_mm > self.margin_mm:
            raise ValueError(
                f"bleed ({self.bleed_mm} mm) must fit inside the margin ({self.margin_mm} mm)"
            )
        self._check_fits("counter", (self.counter_mm, self.counter_mm))
        self._check_fits("block label", (self.block_mm, self.block_mm))
        self._check_fits("card", self.card_mm)

    @property
    def page_mm(self) -> tuple[float, float]:
        """Paper width and height in mm (portrait)."""
        return PAPER_MM[self.paper]

    @property
    def page_pt(self) -> tuple[float, float]:
        """Paper width and height in points (portrait)."""
        width, height = self.page_mm
        return width * MM, height * MM

    def _check_fits(self, what: str, size: tuple[float, float]) -> None:
        """Raise when one piece is not positive or larger than the printable area."""
        width, height = size
        if width <= 0 or height <= 0:
            raise ValueError(f"{what} size must be greater than zero")
        page_w, page_h = self.page_mm
        room_w = page_w - 2 * self.margin_mm
        room_h = page_h - 2 * self.margin_mm
        if width > room_w or height > room_h:
            raise ValueError(
                f"{what} {width:g} x {height:g} mm does not fit the {self.paper} page inside "
                f"{self.margin_mm:g} mm margins ({room_w:g} x {room_h:g} mm)"
            )

    @classmethod
    def from_settings(cls, settings: PrintSettings | None) -> SheetOptions:
        """Options from a game's `print:` settings (defaults where the game has none)."""
        if settings is None:
            return cls()
        return cls(
            paper=settings.paper,
            counter_mm=counter_size_mm(settings.counter_size),
            card_mm=card_size_mm(settings.card_size),
            margin_mm=settings.margin_mm,
            gutter_mm=settings.gutter_mm,
            bleed_mm=settings.bleed_mm,
            duplex=settings.duplex,
            back_offset_mm=settings.back_offset_mm,
            lang=settings.lang,
        )

    def with_duplex(self, duplex: Duplex) -> SheetOptions:
        """A copy with another duplex mode (blocks have no backs: "none")."""
        return replace(self, duplex=duplex)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """Raise a clear error for a value outside its choices."""
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}: use one of {', '.join(choices)}")
