"""Piece definitions (type and state strings, AddPiece commands), in VASSAL's SequenceEncoder
(`compiler.sequence`). A field ending in a backslash would swallow the next delimiter, so
callers never pass one (`clean` strips them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.sequence import ESC as ESC
from compiler.sequence import TAB as TAB
from compiler.sequence import field as field
from compiler.sequence import join as join
from compiler.sequence import split as split


def clean(text: str) -> str:
    """Text safe for any piece field: no trailing backslash, no line breaks or tabs."""
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
    type_ = join(["piece", "", "", image, clean(name)], ";")
    props: list[str] = [map_id, str(x), str(y), gpid, str(len(properties))]
    for prop_key, prop_value in properties:
        props += [prop_key, prop_value]
    return Trait(type_, join(props, ";"))


def prototype(name: str) -> Trait:
    return Trait(join(["prototype", clean(name)], ";"))


def marker(values: Sequence[tuple[str, str]]) -> Trait:
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


def delete(menu: str = "Delete", keystroke: str = "68,130") -> Trait:
    return Trait(join(["delete", menu, keystroke, ""], ";"))


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
    fields = [join(keystrokes, ","), clean(text), "", "", "Report", "false"]
    return Trait(join(["report", *fields], ";"), "-1")


def piece_type_and_state(traits: Sequence[Trait]) -> tuple[str, str]:
    """Outermost trait first, BasicPiece last; nested with TAB exactly as Decorator does."""
    type_, state = traits[-1].type, traits[-1].state
    for trait in reversed(traits[:-1]):
        type_ = join([trait.type, type_], TAB)
        state = join([trait.state, state], TAB)
    return type_, state


def add_piece(traits: Sequence[Trait], piece_id: str = "null") -> str:
    """The AddPiece command text of a PieceSlot, PrototypeDefinition or saved piece."""
    type_, state = piece_type_and_state(traits)
    return "+/" + join([piece_id, type_, state], "/")
