"""Line breaking for English and Japanese: words stay whole, Japanese breaks between characters
but never puts closing punctuation at a line start or opening brackets at a line end (kinsoku)."""

from __future__ import annotations

from collections.abc import Callable

from compiler.backends.art.fonts import is_cjk

NO_LINE_START = frozenset(
    "、。，．・：；？！ー）」』】〕〉》〟ゝゞ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    ",.;:!?)]}%"
)
NO_LINE_END = frozenset("（「『【〔〈《〝([{")


def tokens(text: str) -> list[str]:
    """Breakable units: Latin words (with their trailing space), single CJK characters, with
    kinsoku characters glued to their neighbours."""
    units: list[str] = []
    word = ""
    for char in text:
        if is_cjk(char) or char in NO_LINE_START or char in NO_LINE_END:
            if word:
                units.append(word)
                word = ""
            units.append(char)
        elif char == " ":
            units.append(word + " ")
            word = ""
        else:
            word += char
    if word:
        units.append(word)
    return _glue([u for u in units if u])


def _glue(units: list[str]) -> list[str]:
    glued: list[str] = []
    carry = ""
    for unit in units:
        if unit[0] in NO_LINE_START and glued:
            glued[-1] += unit
            continue
        if unit[-1] in NO_LINE_END:
            carry += unit
            continue
        glued.append(carry + unit)
        carry = ""
    if carry:
        glued.append(carry)
    return glued


def wrap(text: str, width: float, measure: Callable[[str], float]) -> list[str]:
    """Lines of `text` no wider than `width` (a single unit wider than that gets a line)."""
    lines: list[str] = []
    line = ""
    for unit in tokens(text):
        candidate = line + unit
        if line and measure(candidate.rstrip()) > width:
            lines.append(line.rstrip())
            line = unit
        else:
            line = candidate
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines
