"""Piece definitions (type and state strings, AddPiece commands), in VASSAL's SequenceEncoder
(`compiler.sequence`). A field ending in a backslash would swallow the next delimiter, so
callers never pass one (`clean` strips them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from compiler import sequence
from compiler.sequence import ESC as ESC
from compiler.sequence import TAB as TAB
from compiler.sequence import field as field
from compiler.sequence import split as split


def join(fields: Iterable[str], delimiter: str) -> str:
    """`compiler.sequence.join`, with the common case (no field holds the delimiter, a
    backslash or an apostrophe, so none is escaped) done in one C-level join."""
    items = fields if isinstance(fields, list | tuple) else list(fields)
    text = delimiter.join(items)
    if "\\" not in text and "'" not in text and text.count(delimiter) == len(items) - 1:
        return text
    return sequence.join(items, delimiter)


def clean(text: str) -> str:
    """Text safe for any piece field: no trailing backslash, no line breaks or tabs."""
    if text.isprintable():  # no tab, no line break of any kind: nothing to flatten
        return text.rstrip("\\")
    flat = " ".join(text.replace("\t", " ").splitlines())
    return flat.rstrip("\\")


def boolean(value: bool) -> str:
    return "true" if value else "false"


def key(code: int, modifiers: int = 130, name: str = "") -> str:
    """A NamedKeyStroke: `code,modifiers[,name]` (Ctrl = 130, Ctrl+Shift = 195)."""
    return f"{code},{modifiers}" + (f",{name}" if name else "")


@dataclass(frozen=True, slots=True)
class Trait:
    """One decorator: its type (prefix and fields) and its state."""

    type: str
    state: str = ""


def basic_piece(
    name: str,
    image: str = "",
    map_id: str = "null",
    x: int = 0,
    y: int = 0,
    gpid: str = "",
    properties: Sequence[tuple[str, str]] = (),
) -> Trait:
    type_ = _piece_type(image, name)
    props: list[str] = [map_id, str(x), str(y), gpid, str(len(properties))]
    for prop_key, prop_value in properties:
        props += [prop_key, prop_value]
    return Trait(type_, join(props, ";"))


# The trait builders below are cached: a game's pieces share most of their traits (the same
# prototypes, flip layers of the same faces, the same properties in trays and set-ups), and a
# Trait is immutable.
CACHED = 8192


@lru_cache(maxsize=CACHED)
def _piece_type(image: str, name: str) -> str:
    return join(["piece", "", "", image, clean(name)], ";")


@lru_cache(maxsize=1024)
def prototype(name: str) -> Trait:
    return Trait(join(["prototype", clean(name)], ";"))


def marker(values: Sequence[tuple[str, str]]) -> Trait:
    return _marker(tuple(values))


@lru_cache(maxsize=CACHED)
def _marker(values: tuple[tuple[str, str], ...]) -> Trait:
    keys = join((k for k, _ in values), ",")
    return Trait(join(["mark", keys], ";"), join((clean(v) for _, v in values), ","))


def layer(
    name: str,
    images: Sequence[str],
    level_names: Sequence[str],
    up_command: str,
    up_key: str,
    down_command: str = "",
    down_key: str = "",
    loop: bool = True,
    description: str = "",
) -> Trait:
    """An always-active Layer (emb2) showing level 1 first."""
    return _layer(
        name,
        tuple(images),
        tuple(level_names),
        up_command,
        up_key,
        down_command,
        down_key,
        loop,
        description,
    )


@lru_cache(maxsize=CACHED)
def _layer(
    name: str,
    images: tuple[str, ...],
    level_names: tuple[str, ...],
    up_command: str,
    up_key: str,
    down_command: str,
    down_key: str,
    loop: bool,
    description: str,
) -> Trait:
    fields = [
        "",
        "128",
        "A",
        clean(up_command),
        "128",
        "",
        clean(down_command),
        "128",
        "",
        "",
        "",
        "1",
        "false",
        "0",
        "0",
        join(images, ","),
        join(level_names, ","),
        boolean(loop),
        clean(name),
        "",
        "",
        "false",
        "",
        "1",
        "1",
        "true",
        "",
        up_key,
        down_key,
        clean(description),
        "1.0",
    ]
    return Trait(join(["emb2", *fields], ";"), "1")


@lru_cache(maxsize=256)
def delete(menu: str = "Delete", keystroke: str = "68,130") -> Trait:
    return Trait(join(["delete", menu, keystroke, ""], ";"))


@lru_cache(maxsize=256)
def rotate(
    angles: int, cw_key: str, ccw_key: str, cw_text: str, ccw_text: str, name: str = "Rotate"
) -> Trait:
    fields = [
        str(angles),
        cw_key,
        ccw_key,
        clean(cw_text),
        clean(ccw_text),
        "",
        "",
        clean(name),
        "",
        "",
        "",
        "",
        "true",
    ]
    return Trait(join(["rotate", *fields], ";"), "0")


@lru_cache(maxsize=256)
def mask(mask_image: str, menu: str, keystroke: str, peek: str = "Peek") -> Trait:
    """Obscurable: the owning side sees the piece, the others see `mask_image` (style G)."""
    fields = [
        keystroke,
        mask_image,
        clean(menu),
        f"G{mask_image}",
        "?",
        "side:",
        clean(peek),
        "",
        "true",
        "",
        "",
    ]
    return Trait(join(["obs", *fields], ";"), "null;")


def report(keystrokes: Sequence[str], text: str) -> Trait:
    return _report(tuple(keystrokes), text)


@lru_cache(maxsize=256)
def _report(keystrokes: tuple[str, ...], text: str) -> Trait:
    fields = [join(keystrokes, ","), clean(text), "", "", "Report", "false"]
    return Trait(join(["report", *fields], ";"), "-1")


def piece_type_and_state(traits: Sequence[Trait]) -> tuple[str, str]:
    """Outermost trait first, BasicPiece last; nested with TAB exactly as Decorator does."""
    return nest_types(tuple(trait.type for trait in traits)), nest([t.state for t in traits])


def nest(parts: Sequence[str]) -> str:
    """Type or state strings nested as Decorator does: `join([outer, nest(rest)], TAB)`."""
    out = parts[-1]
    for part in reversed(parts[:-1]):
        out = field(part, TAB) + TAB + field(out, TAB)
    return out


@lru_cache(maxsize=8192)
def nest_types(types: tuple[str, ...]) -> str:
    """`nest` of type strings, cached: a piece's type does not change with where it stands or
    its state, so the pieces of a set-up share those of the counter trays."""
    return nest(types)


def add_piece(traits: Sequence[Trait], piece_id: str = "null") -> str:
    """The AddPiece command text of a PieceSlot, PrototypeDefinition or saved piece."""
    type_, state = piece_type_and_state(traits)
    return "+/" + join([piece_id, type_, state], "/")
