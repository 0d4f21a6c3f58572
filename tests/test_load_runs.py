"""The loader's runs of kept items (compiler.load.keptread): a warm load of a file of many
items reads back each unchanged run as one pickle and reads again only the items whose text
or line changed, and whatever the change (an item edited, added, removed, moved, made
invalid) gives exactly what a load without the cache gives: the same records, positions and
findings."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from compiler.load import keptread, records
from compiler.load.game import load_game, read_file
from compiler.load.keptread import RUN_ITEMS, KeptRecords, kept_path
from compiler.model.gamedata import GameData
from tests.conftest import every_field


def as_read(game: GameData | None) -> object:
    """Every field of a loaded game but where the loader's kept records are (GameData.sources,
    GameData.kept: a load with them has them, a load without has none)."""
    return every_field(None if game is None else dataclasses.replace(game, sources={}, kept=""))


COUNT = 3 * RUN_ITEMS + 5


def unit_line(n: int, strength: int = 4) -> str:
    return (
        f"  - {{id: u-{n}, name: {{en: Unit {n}, ja: 部隊 {n}}}, side: a, type: infantry,"
        f" front: {{strength: {strength}, movement: 4}}}}\n"
    )


def units_text(lines: list[str]) -> str:
    return "unit_types:\n  - {id: infantry, name: Infantry, symbol: infantry}\nunits:\n" + "".join(
        lines
    )


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many kept pickles were read back (one per run)."""
    counted: list[int] = []
    real = records.unpickled

    def spy(data: bytes) -> object:
        counted.append(len(data))
        return real(data)

    monkeypatch.setattr(keptread, "unpickled", spy)
    return counted


def read_twice(path: Path, stored: Path, text: str) -> None:
    """`text` written to `path`, read once with the records kept (the build before)."""
    path.write_text(text, encoding="utf-8")
    kept = KeptRecords(stored)
    read_file(path, None, kept)
    kept.save()


def test_an_unchanged_file_reads_back_one_pickle_per_run(
    tmp_path: Path, item_reads: list[int], loads: list[int]
) -> None:
    path, stored = tmp_path / "units.yaml", tmp_path / "kept.cache"
    read_twice(path, stored, units_text([unit_line(n) for n in range(COUNT)]))
    item_reads.clear()
    loads.clear()
    again = read_file(path, None, KeptRecords(stored))
    assert item_reads == []
    assert len(loads) == 1 + 4 + 1  # the file whole (not kept), the units' runs, the types'
    assert every_field(again) == every_field(read_file(path))


def test_one_changed_unit_reads_that_unit_alone(
    tmp_path: Path, item_reads: list[int], loads: list[int]
) -> None:
    path, stored = tmp_path / "units.yaml", tmp_path / "kept.cache"
    lines = [unit_line(n) for n in range(COUNT)]
    read_twice(path, stored, units_text(lines))
    for changed in (0, RUN_ITEMS - 1, RUN_ITEMS, COUNT - 1):
        lines[changed] = unit_line(changed, strength=7 if "strength: 4" in lines[changed] else 4)
        item_reads.clear()
        kept = KeptRecords(stored)
        path.write_text(units_text(lines), encoding="utf-8")
        again = read_file(path, None, kept)
        kept.save()
        assert item_reads == [4 + changed]
        assert every_field(again) == every_field(read_file(path))


EDITS = ["edit", "insert", "delete", "invalid", "comment", "swap", "append"]


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_read_as_without_the_cache(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    path, stored = tmp_path / "units.yaml", tmp_path / "kept.cache"
    lines = [unit_line(n) for n in range(COUNT)]
    read_twice(path, stored, units_text(lines))
    for _round in range(8):
        for _edit in range(rng.randint(1, 3)):
            at = rng.randrange(len(lines))
            edit = rng.choice(EDITS)
            if edit == "edit":
                lines[at] = unit_line(at, strength=rng.randint(1, 9))
            elif edit == "insert":
                lines.insert(at, unit_line(1000 + rng.randrange(1000)))
            elif edit == "delete" and len(lines) > 1:
                del lines[at]
            elif edit == "invalid":
                lines[at] = lines[at].replace("strength: ", "strength: x", 1)
            elif edit == "comment":
                lines.insert(at, "  # a note\n")
            elif edit == "swap":
                other = rng.randrange(len(lines))
                lines[at], lines[other] = lines[other], lines[at]
            else:
                lines.append(unit_line(2000 + rng.randrange(1000)))
        path.write_text(units_text(lines), encoding="utf-8")
        kept = KeptRecords(stored)
        warm = read_file(path, None, kept)
        kept.save()
        assert every_field(warm) == every_field(read_file(path))


def test_a_generated_game_loads_the_same_after_changes(tmp_path: Path) -> None:
    from bench.bench_warm import change_unit, make_game

    game = make_game(tmp_path / "game", 200)
    out = tmp_path / "out"
    (out / ".cache").mkdir(parents=True)
    stored = kept_path(out, game.folder)
    load_game(game.folder, stored)
    for round_no in range(3):
        change_unit(game, round_no)
        warm = load_game(game.folder, stored)
        plain = load_game(game.folder)
        assert warm.findings == plain.findings
        assert as_read(warm.game) == as_read(plain.game)


@pytest.mark.parametrize(
    "broken", ["  - {id: u-x, name: [unclosed\n", "  - {id: u-x, id: u-y, name: X}\n", "\tbad\n"]
)
def test_a_kept_file_made_invalid_reports_as_without_the_cache(broken: str, tmp_path: Path) -> None:
    """A file kept clean, then broken in one item: the finding (rule, file:line:column, text)
    a load without the cache gives, and no traceback."""
    path, stored = tmp_path / "units.yaml", tmp_path / "kept.cache"
    lines = [unit_line(n) for n in range(COUNT)]
    read_twice(path, stored, units_text(lines))
    lines[RUN_ITEMS + 3] = broken
    path.write_text(units_text(lines), encoding="utf-8")
    warm = read_file(path, None, KeptRecords(stored))
    plain = read_file(path)
    assert every_field(warm) == every_field(plain)
    assert warm[1] == plain[1] and warm[1]
    assert warm[1][0].location.line in (4 + RUN_ITEMS + 3, 4 + RUN_ITEMS + 4)  # the item, its end
