"""A hex block's positions worked out at once (HexBlock.positions) are those of naming and
placing each hex with a call of each (numbering.name, HexBlock.centre), in the same order."""

from __future__ import annotations

import random

import pytest

from compiler.backends.vassal import geometry as g
from compiler.model.maps import Sheet

FORMATS = [
    "{sheet}{col:02d}{row:02d}",
    "N{col:02d}{row:02d}",
    "{col:d}.{row:d}",
    "{col:03d}-{row:02d}x{sheet}",
]


def _sheet(rng: random.Random, sheet_id: str) -> Sheet:
    col, row = rng.randint(-3, 10), rng.randint(-2, 10)
    return Sheet(
        id=sheet_id,
        columns=(col, col + rng.randint(0, 15)),
        rows=(row, row + rng.randint(0, 15)),
    )


@pytest.mark.parametrize("id_format", FORMATS)
def test_positions_are_each_hex_named_and_placed(id_format: str) -> None:
    rng = random.Random(id_format)
    for _trial in range(20):
        sheets = tuple(_sheet(rng, sheet_id) for sheet_id in "ABC"[: rng.randint(1, 3)])
        block = g.HexBlock(
            "block",
            sheets,
            g.numbering(id_format),
            min(s.columns[0] for s in sheets) - rng.randint(0, 2),
            max(s.columns[1] for s in sheets),
            min(s.rows[0] for s in sheets) - rng.randint(0, 2),
            max(s.rows[1] for s in sheets),
            rng.uniform(20, 90),
            rng.randint(0, 100),
            rng.randint(0, 100),
            0,
        )
        one_by_one = {
            block.numbering.name(sheet, col, row): block.centre(col, row)
            for sheet, col, row in block.hexes()
        }
        assert list(block.positions().items()) == list(one_by_one.items())
