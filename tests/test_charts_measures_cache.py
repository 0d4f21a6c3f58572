"""A table's measured blocks read back from the cache (table.Measures): the same layout as
measured now, the garbage collector left as it was found, and a damaged entry measured again
(a miss, never a traceback)."""

from __future__ import annotations

import gc
import marshal
from pathlib import Path

import pytest

from compiler.backends.charts.table import Measures, measures, table_height
from compiler.model.gamedata import GameData
from tests.conftest import game_with_aids

game_of = game_with_aids


def heights(game: GameData, known: dict[str, bytes] | None = None) -> list[float]:
    """Every chart's height 400 points wide, its blocks read from `known` when given; the
    blocks measured are left in `known`."""
    measured = measures(game)
    if known is not None:
        measured.known = known.get
    found = [table_height(game, chart, "en", 400.0) for chart in [*game.charts, *game.aids]]
    if known is not None:
        known.update(measured.made)
    measured.forget()
    return found


def test_blocks_read_back_give_the_layout_measured_now(mini: Path) -> None:
    kept: dict[str, bytes] = {}
    fresh = heights(game_of(mini), kept)
    assert kept  # blocks were measured and kept
    assert heights(game_of(mini), dict(kept)) == fresh == heights(game_of(mini))


@pytest.mark.parametrize("damage", [b"", b"\x00not marshal", marshal.dumps(12)[:1]])
def test_a_damaged_block_is_measured_again(mini: Path, damage: bytes) -> None:
    kept: dict[str, bytes] = {}
    fresh = heights(game_of(mini), kept)
    damaged = dict.fromkeys(kept, damage)
    assert heights(game_of(mini), damaged) == fresh
    assert damaged == kept  # each measured again (what the build puts in the cache)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    entries = {"good": marshal.dumps([["a"]]), "bad": b"\x00"}
    try:
        gc.enable() if enabled else gc.disable()
        measured = Measures(known=entries.get)
        assert measured.fetch("good", lambda: [["b"]]) == [["a"]]
        assert gc.isenabled() == enabled
        assert measured.fetch("bad", lambda: [["c"]]) == [["c"]]
        assert gc.isenabled() == enabled
        assert measured.made == {"bad": marshal.dumps([["c"]])}
    finally:
        gc.enable() if was else gc.disable()
