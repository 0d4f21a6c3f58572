"""Colour helpers: parse #rrggbb, mix, and pick text colours that stay readable."""

from __future__ import annotations

RGB = tuple[int, int, int]
BLACK: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)
GREY: RGB = (128, 128, 128)
MIN_CONTRAST = 2.6


def parse_colour(colour: str) -> RGB | None:
    """`#rrggbb` (or `#rgb`) as an RGB tuple; None when the text is not a colour."""
    text = colour.strip().removeprefix("#")
    if len(text) == 3:
        text = "".join(char * 2 for char in text)
    if len(text) != 6 or any(char not in "0123456789abcdefABCDEF" for char in text):
        return None
    value = int(text, 16)
    return ((value >> 16) & 255, (value >> 8) & 255, value & 255)


def rgb(colour: str, fallback: RGB = GREY) -> RGB:
    """`#rrggbb` (or `#rgb`) as an RGB tuple; anything else gives `fallback`."""
    parsed = parse_colour(colour)
    return fallback if parsed is None else parsed


def mix(first: RGB, second: RGB, amount: float) -> RGB:
    """`first` moved `amount` (0..1) of the way towards `second`."""
    r = round(first[0] + (second[0] - first[0]) * amount)
    g = round(first[1] + (second[1] - first[1]) * amount)
    b = round(first[2] + (second[2] - first[2]) * amount)
    return (r, g, b)


def luminance(colour: RGB) -> float:
    """Relative luminance (WCAG) of an sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else float(((c + 0.055) / 1.055) ** 2.4)

    return 0.2126 * channel(colour[0]) + 0.7152 * channel(colour[1]) + 0.0722 * channel(colour[2])


def contrast(first: RGB, second: RGB) -> float:
    """WCAG contrast ratio between two colours (1 to 21)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def black_or_white(background: RGB) -> RGB:
    """Black or white, whichever reads better on `background`."""
    return BLACK if contrast(background, BLACK) >= contrast(background, WHITE) else WHITE


def readable(background: RGB, preferred: RGB) -> RGB:
    """`preferred` when it reads on `background`, else black or white."""
    if contrast(background, preferred) >= MIN_CONTRAST:
        return preferred
    return black_or_white(background)


def darker(colour: RGB, amount: float = 0.35) -> RGB:
    """`colour` mixed towards black."""
    return mix(colour, BLACK, amount)


def lighter(colour: RGB, amount: float = 0.5) -> RGB:
    """`colour` mixed towards white."""
    return mix(colour, WHITE, amount)


def rgba(colour: RGB, alpha: int = 255) -> tuple[int, int, int, int]:
    """An RGB colour with an alpha channel."""
    return (colour[0], colour[1], colour[2], alpha)
