"""compiler.load.chunks.items_of, which looks at the lines in C passes when each is an item's
first line or indented deeper, splits exactly as reading the lines one by one does (the
reference below)."""

from __future__ import annotations

import random

import pytest

from compiler.load.chunks import items_of


def one_by_one(lines: list[str], first_line: int, indent: int) -> list[tuple[int, str]] | None:
    start = " " * indent + "- "
    deeper = " " * (indent + 1)
    items: list[tuple[int, str]] = []
    current: list[str] = []
    for number, line in enumerate(lines, first_line):
        stripped = line.strip(" \n")
        if line.startswith(start):
            if current:
                items.append((number - len(current), "".join(current)))
            current = [line]
        elif line.startswith(deeper) and line.strip() or not stripped or stripped[0] == "#":
            if current:
                current.append(line)
        else:
            return None
    if current:
        items.append((first_line + len(lines) - len(current), "".join(current)))
    return items or None


PIECES = [
    *("  - a: 1\n", "    b: 2\n", "   c\n", "\n", "  # x\n", "   \n", "  \t\n", "\t\n"),
    *(" - z\n", "x\n", "      - r\n", "  -x\n", "  - \n", "   \x0c\n", "    \x0c\n"),
    *("  #\n", " #\n", "#\n", "     \xa0\n", "   \xa0x\n", "  -\n", "        cells: [1]\n"),
]


@pytest.mark.parametrize("seed", range(4))
def test_items_split_as_line_by_line(seed: int) -> None:
    rng = random.Random(seed)
    for _round in range(5000):
        lines = [rng.choice(PIECES) for _ in range(rng.randint(0, 8))]
        if rng.random() < 0.2 and lines:
            lines[-1] = lines[-1].rstrip("\n")  # the text's last line has no line end
        indent = rng.choice([0, 2, 6])
        assert items_of(lines, 7, indent) == one_by_one(lines, 7, indent), (indent, lines)
