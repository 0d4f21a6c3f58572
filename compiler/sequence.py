"""VASSAL's SequenceEncoder: the one escaping rule of every piece definition, save and module.

Inside a field, a backslash goes before every delimiter; a field that starts with a backslash,
or starts and ends with an apostrophe, is wrapped in apostrophes. Nested lists apply the rule
again with another delimiter. Both the module writer and the readers of modules and saves use
this module.
"""

from __future__ import annotations

from collections.abc import Iterable

TAB = "\t"
ESC = "\x1b"


def field(text: str, delimiter: str) -> str:
    """One field, escaped for a list joined with `delimiter`."""
    if not text:
        return ""
    out = text.replace(delimiter, "\\" + delimiter)
    if text[0] == "\\" or (text[0] == "'" and text[-1] == "'"):
        out = f"'{out}'"
    return out


def join(fields: Iterable[str], delimiter: str) -> str:
    return delimiter.join(field(f, delimiter) for f in fields)


def split(text: str, delimiter: str) -> list[str]:
    """VASSAL's decoder: split at unescaped delimiters, drop the escapes, unwrap apostrophes."""
    if "\\" + delimiter not in text:
        return [_unwrap(token) for token in text.split(delimiter)]
    parts: list[str] = []
    current: list[str] = []
    start = 0
    while True:
        at = text.find(delimiter, start)
        if at < 0:
            current.append(text[start:])
            parts.append(_unwrap("".join(current)))
            return parts
        if at > 0 and text[at - 1] == "\\":
            current.append(text[start : at - 1] + delimiter)
        else:
            current.append(text[start:at])
            parts.append(_unwrap("".join(current)))
            current = []
        start = at + 1


def _unwrap(token: str) -> str:
    if len(token) > 1 and token[0] == "'" and token[-1] == "'":
        return token[1:-1]
    return token
