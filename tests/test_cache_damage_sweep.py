"""A damaged cache never gives wrong output or a traceback: a small sweep of scripts.cachefuzz.

A tiny generated game is built cold and warm; then every one of its cache files (whatever
format it has today: packs, indexes, journals, kept records, stamps ...) is damaged in one way
(cut in half, a few bytes flipped, or emptied; the kind chosen by the file's rank), the game
rebuilt as a whole process, with or without one unit changed, and every output file compared
with a cold build of the same sources. The full sweep (every kind for every file, a 500-counter
game) is `python -m scripts.cachefuzz`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripts.cachefuzz import KINDS, Sweep

ROOT = Path(__file__).resolve().parent.parent


def test_each_damaged_cache_file_is_recomputed(tmp_path: Path) -> None:
    lines: list[str] = []
    sweep = Sweep(
        sys.executable,
        ROOT,
        tmp_path,
        size=40,
        kinds=KINDS,
        per_file=1,
        variants=2,
        log=lines.append,
    )
    sweep.run()
    assert len(sweep.files) >= 10, sweep.files  # the caches are there to damage
    assert sweep.rebuilds >= len(sweep.files) // 2
    assert not sweep.failures, "\n".join(lines)
