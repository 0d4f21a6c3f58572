"""Fitting text into a box: shrink from a start size to a minimum, wrap, then ellipsize.

All lengths are in face units and measured with the font's own advance widths (fonts.py), so a
text that fits here fits the same way in the PNG and in the PDF. `Fitted.shortened` tells the
caller that text was cut with "…" (a warning for the user, never silent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from compiler.backends.art.fonts import ELLIPSIS, has_cjk, is_cjk, text_width

LINE_PITCH = 1.1
SHRINK = 0.95


@dataclass(frozen=True, slots=True)
class Fitted:
    """Text set to fit: its font size, its lines, and whether it had to be cut."""

    height: float
    lines: tuple[str, ...]
    shortened: bool

    @property
    def shown(self) -> str:
        """The lines joined with spaces (for messages)."""
        return " ".join(self.lines)


@dataclass(frozen=True, slots=True)
class Room:
    """Where text goes: width, height, sizes to try, weight, language, line limit."""

    width: float
    height: float
    size: float
    min_size: float
    bold: bool = False
    lang: str = "en"
    max_lines: int = 1


MAX_SIZES = 64
"""Sizes tried at the most (from 1 to 0.05 of the face takes 59 steps of 5%)."""


def sizes(start: float, floor: float) -> list[float]:
    """Font sizes to try, largest first, ending at the floor (at most MAX_SIZES of them, so a
    size the data got wrong can never make the list endless)."""
    floor = min(floor, start)
    out: list[float] = []
    size = start
    while size > floor and len(out) < MAX_SIZES - 1:
        out.append(size)
        size *= SHRINK
    out.append(floor)
    return out


@lru_cache(maxsize=1 << 16)
def fit(text: str, room: Room) -> Fitted:
    """The largest size at which `text` fits the room whole; at the minimum size, cut with "…"."""
    candidates = sizes(room.size, room.min_size)
    for size in candidates:
        lines = _layout(text, room, size)
        if _fits(text, lines, room, size):
            return Fitted(size, tuple(lines), False)
    size = candidates[-1]
    lines = _layout(text, room, size)
    kept = _clip(lines, room, size)
    return Fitted(size, tuple(kept), kept != lines or "".join(kept) != "".join(lines))


def _layout(text: str, room: Room, size: float) -> list[str]:
    """One line, or word-wrapped lines when more than one is allowed (Japanese that takes two
    lines is broken where the two come out most even: see balanced)."""
    if room.max_lines <= 1:
        return [" ".join(text.split())] if text.strip() else []
    lines = wrap(text, room.width, size, room.bold, room.lang)
    if len(lines) == 2 and has_cjk(text) and len(text.splitlines()) == 1:
        return balanced(text, room.width, size, room.bold, room.lang) or lines
    return lines


def balanced(text: str, max_width: float, size: float, bold: bool, lang: str) -> list[str]:
    """`text` in two lines no wider than `max_width`, broken between two words (a CJK
    character is a word) where the wider line is narrowest, never before a character that may
    not start a line nor after one that may not end it (kinsoku): `第1近衛歩兵師団` gives
    `第1近衛` / `歩兵師団`, not `第1近衛歩兵師` / `団`. A break where the script changes
    (kanji, kana, katakana, Latin) is preferred unless the lines come out much less even, so a
    katakana word stays whole. Empty when no break fits."""
    tokens = words(text)
    best: tuple[float, list[str]] | None = None
    for cut in range(1, len(tokens)):
        before, after = tokens[cut - 1][-1], tokens[cut][0]
        if after in NO_LINE_START or before in NO_LINE_END:
            continue
        lines = [_joined(tokens[:cut]), _joined(tokens[cut:])]
        widest = max(text_width(line, size, bold, lang) for line in lines)
        if widest > max_width:
            continue
        score = widest * (1.0 if _script(before) != _script(after) else MID_WORD)
        if best is None or score < best[0] - 1e-9:
            best = (score, lines)
    return best[1] if best is not None else []


MID_WORD = 1.15
"""How much wider a line may come out to keep the break where the script changes."""


def _script(char: str) -> str:
    """A character's script, for where a Japanese name breaks best (`・` is a sign)."""
    if char == "・":
        return "sign"
    if "\u3040" <= char <= "\u309f":
        return "hiragana"
    if "\u30a0" <= char <= "\u30ff":
        return "katakana"
    if is_cjk(char) and char.isalpha():
        return "kanji"
    return "latin" if char.isalnum() else "sign"


def _joined(tokens: list[str]) -> str:
    """Words set on one line: a space between two words unless either side is CJK."""
    line = ""
    for word in tokens:
        line += ("" if not line or is_cjk(word) or is_cjk(line[-1]) else " ") + word
    return line


def _fits(text: str, lines: list[str], room: Room, size: float) -> bool:
    """Whether lines fit in number, width and height, and no word had to be broken."""
    if len(lines) > room.max_lines:
        return False
    if any(_width(line, size, room) > room.width for line in lines):
        return False
    if room.max_lines > 1:
        if len(lines) * size * LINE_PITCH > room.height + 1e-9:
            return False
        return all(_width(word, size, room) <= room.width for word in words(text))
    return True


def _width(text: str, size: float, room: Room) -> float:
    """Advance width of a line at `size`."""
    return text_width(text, size, room.bold, room.lang)


def _clip(lines: list[str], room: Room, size: float) -> list[str]:
    """As many lines as fit, the last one ending in "…" when text was cut."""
    fit_lines = int((room.height + 1e-9) // (size * LINE_PITCH)) if room.max_lines > 1 else 1
    count = max(1, min(room.max_lines, fit_lines))
    kept = lines[:count]
    if len(lines) > count:
        kept[-1] = kept[-1].rstrip() + ELLIPSIS
    return [ellipsize(line, room.width, size, room.bold, room.lang) for line in kept]


def ellipsize(text: str, max_width: float, size: float, bold: bool, lang: str) -> str:
    """`text` cut at the end with "…" so that it fits `max_width` (maybe only "…", maybe "")."""
    if text_width(text, size, bold, lang) <= max_width:
        return text
    body = text.removesuffix(ELLIPSIS)
    for cut in range(len(body) - 1, 0, -1):
        candidate = body[:cut].rstrip() + ELLIPSIS
        if text_width(candidate, size, bold, lang) <= max_width:
            return candidate
    return ELLIPSIS if text_width(ELLIPSIS, size, bold, lang) <= max_width else ""


_CJK_OR_RUN = re.compile("[^\x00-\u2e7f]|[\x00-\u2e7f]+")  # compiles in 0.6 ms, not 2.4
"""One CJK character, or a run of other characters (Latin letters, digits, signs)."""


def words(paragraph: str) -> list[str]:
    """Words of a paragraph; CJK text breaks between any two characters, but a run of Latin
    letters or digits inside it stays whole (`ANZAC戦隊` → ANZAC, 戦, 隊; `第10戦区` → 第, 10 …)."""
    out: list[str] = []
    for word in paragraph.split():
        if has_cjk(word):
            out.extend(_CJK_OR_RUN.findall(word))
        else:
            out.append(word)
    return out


NO_LINE_START = frozenset(
    "、。，．・：；？！）」』】〕〉》ー々"  # closing punctuation, long vowel, repeat mark
    "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"  # small kana
)
"""Japanese characters that never start a line (kinsoku): the character before goes down too."""
NO_LINE_END = frozenset("（「『【〔〈《［｛〘〖")
"""Japanese opening brackets, which never end a line (kinsoku): they go down with what follows."""


def wrap(text: str, max_width: float, size: float, bold: bool, lang: str) -> list[str]:
    """Greedy word wrap; paragraphs start new lines; words wider than a line split by character;
    a line never starts with closing Japanese punctuation or a small kana (see NO_LINE_START)
    nor ends with an opening bracket (NO_LINE_END)."""
    lines: list[str] = []
    for paragraph in text.splitlines():
        line = ""
        for word in words(paragraph):
            glue = "" if not line or is_cjk(word) or is_cjk(line[-1]) else " "
            joined = line + glue + word
            if not line or text_width(joined, size, bold, lang) <= max_width:
                line = joined
                continue
            if word[0] in NO_LINE_START and len(line) > 1 and is_cjk(line[-1]):
                line, word = line[:-1], line[-1] + word
            while len(line) > 1 and line[-1] in NO_LINE_END:
                line, word = line[:-1], line[-1] + word
            lines.extend(_split_long(line, max_width, size, bold, lang))
            line = word
        lines.extend(_split_long(line, max_width, size, bold, lang))
    return [line for line in lines if line]


def _split_long(line: str, max_width: float, size: float, bold: bool, lang: str) -> list[str]:
    """A line broken by character where it is wider than `max_width` on its own."""
    out: list[str] = []
    while len(line) > 1 and text_width(line, size, bold, lang) > max_width:
        cut = len(line) - 1
        while cut > 1 and text_width(line[:cut], size, bold, lang) > max_width:
            cut -= 1
        out.append(line[:cut])
        line = line[cut:]
    if line:
        out.append(line)
    return out


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One paragraph of a text block, bold or regular, `gap` lines below the one before."""

    text: str
    bold: bool = False
    gap: float = 0.0


@dataclass(frozen=True, slots=True)
class BlockLine:
    """One line of a fitted block: its text, weight, and row (in line pitches from the top)."""

    text: str
    bold: bool
    row: float


@dataclass(frozen=True, slots=True)
class FittedBlock:
    """Paragraphs set at one size, and whether text had to be cut."""

    height: float
    lines: tuple[BlockLine, ...]
    shortened: bool

    @property
    def shown(self) -> str:
        """The lines joined with spaces (for messages)."""
        return " ".join(line.text for line in self.lines)


@lru_cache(maxsize=1 << 12)
def fit_block(paragraphs: tuple[Paragraph, ...], room: Room) -> FittedBlock:
    """Paragraphs of mixed weight wrapped at one size, the largest at which all fit whole (the
    room's `bold` is not used); at the minimum size the lines that fit, the last ending in "…"."""
    candidates = sizes(room.size, room.min_size)
    for size in candidates:
        lines = _block_lines(paragraphs, room, size)
        if _block_fits(paragraphs, lines, room, size):
            return FittedBlock(size, tuple(lines), False)
    size = candidates[-1]
    lines = _block_lines(paragraphs, room, size)
    rows = (room.height + 1e-9) / (size * LINE_PITCH)
    kept = [line for line in lines if line.row + 1 <= rows] or lines[:1]
    if len(kept) < len(lines):
        last = kept[-1]
        cut = ellipsize(last.text.rstrip() + ELLIPSIS, room.width, size, last.bold, room.lang)
        kept[-1] = BlockLine(cut, last.bold, last.row)
    return FittedBlock(size, tuple(kept), kept != lines)


def _block_lines(paragraphs: tuple[Paragraph, ...], room: Room, size: float) -> list[BlockLine]:
    """Every paragraph wrapped to the room's width at `size`, in its own weight, a paragraph's
    gap above its first line (none above the block's first line)."""
    out: list[BlockLine] = []
    row = 0.0
    for para in paragraphs:
        lines = wrap(para.text, room.width, size, para.bold, room.lang)
        if out and lines:
            row += para.gap
        for line in lines:
            out.append(BlockLine(line, para.bold, row))
            row += 1
    return out


def _block_fits(
    paragraphs: tuple[Paragraph, ...], lines: list[BlockLine], room: Room, size: float
) -> bool:
    """Whether the lines fit in number and height, and no word had to be broken."""
    rows = lines[-1].row + 1 if lines else 0
    if len(lines) > room.max_lines or rows * size * LINE_PITCH > room.height + 1e-9:
        return False
    return all(
        text_width(word, size, para.bold, room.lang) <= room.width
        for para in paragraphs
        for word in words(para.text)
    )
