"""The items of a long YAML list, one by one: each item composed alone is the node the whole
text gives it, so an item whose text did not change need not be read again.

A block sequence whose items each start a line with `<indent>- `, and whose other lines are
blank, comments or indented deeper, splits into items at those lines: an item's text then
holds everything the parser reads for it (block scalars and plain scalars end at a line that
is not indented deeper; a flow collection or quoted scalar cut there leaves the first part
unclosed, which does not compose). Composed alone, an item keeps its columns (its lines keep
their indentation) and gets its lines back by a shift. Any other shape gives None: the caller
reads the text whole.
"""

from __future__ import annotations

import re
from functools import cache

import yaml

from compiler.load.nodes import MAPPING, SEQUENCE, ComposeError, YNode, compose


def items_of(lines: list[str], first_line: int, indent: int) -> list[tuple[int, str]] | None:
    """(first line, text) of each item of a block sequence at `indent` written on `lines` (with
    their line ends; the first is line `first_line` of the text); None when a line is neither
    an item's first line, nor blank, nor a comment, nor indented deeper, or there is no item.
    Blank and comment lines before the first item belong to no item. (Found by regular
    expressions over the lines joined: a large game's units file, a long chart's output hold
    tens of thousands of lines.)"""
    text = "".join(lines)
    starts, odd = _patterns(indent)
    if odd.search(text) is not None:
        return None
    found = [match.start() for match in starts.finditer(text)]
    if not found:
        return None
    items: list[tuple[int, str]] = []
    line = first_line + text.count("\n", 0, found[0])
    for start, end in zip(found, [*found[1:], len(text)], strict=True):
        items.append((line, text[start:end]))
        line += text.count("\n", start, end)
    return items


@cache
def _patterns(indent: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An item's first line at `indent`, and a line that is none of what a sequence's lines
    may be: an item's first line, a line indented deeper with something on it, a line blank
    or holding a comment (spaces, then nothing or `#`)."""
    start = " " * indent + "- "
    deeper = " " * (indent + 1)
    starts = re.compile(f"^{start}", re.MULTILINE)
    odd = re.compile(rf"^(?!{start})(?!{deeper}[^\n]*\S)(?! *(?:#[^\n]*)?$)", re.MULTILINE)
    return starts, odd


ODD_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Line breaks of YAML besides LF: a text with one is read whole (its lines are not counted
here as the parser counts them)."""


def lines_of(text: str) -> list[str] | None:
    """The lines of a text, each with its LF; None when YAML would break lines elsewhere too."""
    if any(odd in text for odd in ODD_BREAKS):
        return None
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def compose_item(text: str, first_line: int) -> YNode | None:
    """The one item of an item's text (see items_of), at its lines in the whole text; None when
    the text does not compose alone to exactly one item, or uses aliases (an anchor may lie in
    another item, and the whole text's alias check counts every item)."""
    try:
        composed = compose(text)
    except (ComposeError, yaml.YAMLError, RecursionError):
        return None
    root = composed.root
    if composed.aliased or root is None or root.kind != SEQUENCE:
        return None
    children = root.value
    if not isinstance(children, list) or len(children) != 1:
        return None
    item: YNode = children[0]
    _shift_lines(item, first_line - 1)
    return item


def _shift_lines(root: YNode, by: int) -> None:
    """Move every node of a tree (without aliases: no node is shared) down `by` lines."""
    stack = [root]
    while stack:
        node = stack.pop()
        node.line += by
        if node.kind == SEQUENCE:
            stack.extend(node.value)  # type: ignore[arg-type]
        elif node.kind == MAPPING:
            for key, value in node.value:  # type: ignore[attr-defined]
                stack.extend((key, value))
