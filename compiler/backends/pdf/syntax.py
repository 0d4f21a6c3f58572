"""PDF syntax: numbers, names, strings, arrays, dictionaries and references, as bytes."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_NAME_UNSAFE = re.compile(rb"[^!-~]|[#()<>\[\]{}/%]")


@dataclass(frozen=True, slots=True)
class Name:
    """A PDF name (/Type)."""

    value: str


@dataclass(frozen=True, slots=True)
class Ref:
    """An indirect reference (7 0 R)."""

    number: int


@dataclass(frozen=True, slots=True)
class Raw:
    """Bytes written as they are (a hex string, a prepared array)."""

    data: bytes


def num(value: float) -> str:
    """A number with at most four decimals, no exponent, no trailing zeros, no -0."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@functools.lru_cache(maxsize=1 << 16)
def name(value: str) -> bytes:
    """A name, with the characters PDF does not allow in names written as #xx (remembered: a
    document names the same forms, fonts and keys thousands of times)."""
    raw = value.encode("utf-8")
    return b"/" + _NAME_UNSAFE.sub(lambda m: b"#%02X" % m.group()[0], raw)


def text_string(value: str) -> bytes:
    """A text string: literal when ASCII, else UTF-16BE hex with a byte-order mark."""
    if value.isascii():
        escaped = value.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        return f"({escaped})".encode("ascii")
    return b"<FEFF" + value.encode("utf-16-be").hex().upper().encode("ascii") + b">"


def serialise(value: object) -> bytes:
    """Any supported value as PDF bytes."""
    if value is None:
        return b"null"
    if value is True:
        return b"true"
    if value is False:
        return b"false"
    if isinstance(value, int | float):
        return num(value).encode("ascii")
    if isinstance(value, Name):
        return name(value.value)
    if isinstance(value, Ref):
        return b"%d 0 R" % value.number
    if isinstance(value, Raw):
        return value.data
    if isinstance(value, str):
        return text_string(value)
    if isinstance(value, bytes):
        return b"<" + value.hex().upper().encode("ascii") + b">"
    if isinstance(value, Mapping):
        parts = [name(key) + b" " + serialise(item) for key, item in value.items()]
        return b"<< " + b" ".join(parts) + b" >>"
    if isinstance(value, Sequence):
        return b"[" + b" ".join(serialise(item) for item in value) + b"]"
    raise TypeError(f"no PDF form for {type(value).__name__}")
