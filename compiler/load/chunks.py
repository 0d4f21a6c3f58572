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

from itertools import compress, count, repeat
from operator import not_

import yaml

from compiler.load.nodes import MAPPING, SEQUENCE, ComposeError, YNode, compose


def items_of(lines: list[str], first_line: int, indent: int) -> list[tuple[int, str]] | None:
    """(first line, text) of each item of a block sequence at `indent` written on `lines` (with
    their line ends; the first is line `first_line` of the text); None when a line is neither
    an item's first line, nor blank, nor a comment, nor indented deeper, or there is no item.
    Blank and comment lines before the first item belong to no item."""
    start = " " * indent + "- "
    deeper = " " * (indent + 1)
    flags = list(map(str.startswith, lines, repeat(start)))
    firsts = list(compress(count(), flags))
    if len(firsts) == len(lines):  # an item a line (a large game's units file)
        return list(zip(count(first_line), lines)) or None
    others = list(compress(lines, map(not_, flags)))
    # (a line indented deeper is blank when it is all spaces: str.isspace makes no new string,
    # str.strip made one for each of an order of battle's 16,000 such lines)
    if firsts and all(map(str.startswith, others, repeat(deeper))) and not any(map(BLANK, others)):
        # every other line indented deeper, with something on it (a long chart's output)
        ends = [*firsts[1:], len(lines)]
        return [(first_line + a, "".join(lines[a:b])) for a, b in zip(firsts, ends, strict=True)]
    return _one_by_one(lines, first_line, start, deeper)


BLANK = str.isspace
"""Whether a line that starts with spaces has nothing else on it."""


def _one_by_one(
    lines: list[str], first_line: int, start: str, deeper: str
) -> list[tuple[int, str]] | None:
    """items_of, line by line (blank and comment lines between the items)."""
    items: list[tuple[int, str]] = []
    current: list[str] = []
    for number, line in enumerate(lines, first_line):
        if line.startswith(start):
            if current:
                items.append((number - len(current), "".join(current)))
            current = [line]
        elif line.startswith(deeper) and line.strip() or _blank_or_comment(line):
            if current:
                current.append(line)
        else:
            return None
    if current:
        items.append((first_line + len(lines) - len(current), "".join(current)))
    return items or None


def _blank_or_comment(line: str) -> bool:
    stripped = line.strip(" \n")
    return not stripped or stripped.startswith("#")


ODD_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Line breaks of YAML besides LF: a text with one is read whole (its lines are not counted
here as the parser counts them)."""


def lines_of(text: str) -> list[str] | None:
    """The lines of a text, each with its LF; None when YAML would break lines elsewhere too."""
    if "\r" in text:
        return None
    # str.splitlines also breaks at other characters (the other ODD_BREAKS, and some YAML
    # does not break at): when it made as many lines as the text has LFs (and one more for a
    # last line without one, which does not end in a space, as those characters count), it
    # broke at the LFs only. One pass in C; splitting at LF and putting each LF back cost
    # three times as much (a large game's units file has 9,000 lines, an order of battle's
    # output 30,000).
    lines = text.splitlines(keepends=True)
    last = text[-1:]
    if last == "\n" or not last.isspace():
        if len(lines) == text.count("\n") + (last not in ("", "\n")):
            return lines
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
