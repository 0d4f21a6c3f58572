"""A damaged cache never gives wrong output or a traceback: a small sweep of scripts.cachefuzz.

A tiny generated game is built cold and warm; then every one of its cache files (whatever
format it has today: packs, indexes, journals, kept records, stamps ...) is damaged in one way
(cut in half, a few bytes flipped, or emptied; the kind chosen by the file's rank), the game
rebuilt as a whole process, with or without one unit changed (and, when unchanged, again with
one changed: damage the first rebuild left alone must not spoil the next), and every output
file compared with a cold build of the same sources. The full sweep (every kind for every file, a 500-counter
game) is `python -m scripts.cachefuzz`.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from scripts.cachefuzz import KINDS, Sweep, compare, damage, output_digests

ROOT = Path(__file__).resolve().parent.parent


def test_each_kind_damages_and_a_difference_is_seen(tmp_path: Path) -> None:
    """The sweep's own parts: each kind changes a file, and compare sees a changed output."""
    out = tmp_path / "out"
    (out / ".cache").mkdir(parents=True)
    (out / "a.txt").write_bytes(b"0123456789" * 10)
    (out / ".cache" / "c").write_bytes(b"x")
    reference = output_digests(out)
    assert list(reference) == ["a.txt"]  # the cache is no output
    for kind in KINDS:
        path = out / f"{kind}.bin"
        path.write_bytes(bytes(range(100)))
        assert damage(path, kind, random.Random(0))
        assert path.read_bytes() != bytes(range(100))
    (out / ".cache" / "c").write_bytes(b"")
    assert not damage(out / ".cache" / "c", "cut", random.Random(0))  # nothing to damage
    (out / "a.txt").write_bytes(b"changed")
    assert "1 differ: a.txt" in compare(reference, out)


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
        twice="unchanged",
        log=lines.append,
    )
    sweep.run()
    assert len(sweep.files) >= 10, sweep.files  # the caches are there to damage
    assert sweep.rebuilds >= len(sweep.files) // 2
    assert not sweep.failures, "\n".join(lines)
