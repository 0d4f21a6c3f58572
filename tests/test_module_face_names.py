"""The faces' names table (vassal.module.FaceNames) is written whole when much changed, else
only its changes since it was (a warm build changes the faces of one unit among thousands);
changes that are damaged or of another table are not applied: the table read is then the
older one, whose entries are still true."""

from __future__ import annotations

from pathlib import Path

from compiler.backends.vassal.module import FaceNames


def _entries(count: int, salt: str = "") -> dict[str, tuple[str, int, int]]:
    return {f"key{n}": (f"unit-{n:016x}{salt}.svg", n * 7, 100 + n) for n in range(count)}


def _saved(pack: Path, entries: dict[str, tuple[str, int, int]]) -> FaceNames:
    table = FaceNames(pack, "en", "svg")
    for key, (name, crc, size) in entries.items():
        table.note(key, name, crc, size)
    table.save()
    return table


def _files(pack: Path) -> tuple[Path, Path]:
    table = FaceNames(pack, "en", "svg")
    assert table.path is not None and table.changes is not None
    return table.path, table.changes


def test_few_changes_are_written_alone(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    first = _entries(100)
    _saved(pack, first)
    whole, changes = _files(pack)
    written = whole.stat().st_ino
    assert not changes.exists()
    second = {**first, "key3": ("unit-new.svg", 1, 2), "key100": ("unit-more.svg", 3, 4)}
    del second["key5"]
    _saved(pack, second)
    assert whole.stat().st_ino == written and changes.exists()  # the table not written again
    assert FaceNames(pack, "en", "svg").before == second
    third = {**second, "key7": ("unit-again.svg", 5, 6)}
    _saved(pack, third)  # changes since the table was written whole, not since the last build
    assert FaceNames(pack, "en", "svg").before == third
    assert whole.stat().st_ino == written


def test_many_changes_write_the_table_whole(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    _saved(pack, _entries(100))
    whole, changes = _files(pack)
    _saved(pack, {**_entries(100), "key1": ("unit-x.svg", 1, 1)})
    assert changes.exists()
    written = whole.stat().st_ino
    many = _entries(100, salt="b")
    _saved(pack, many)
    assert whole.stat().st_ino != written and not changes.exists()
    assert FaceNames(pack, "en", "svg").before == many


def test_damaged_changes_give_the_older_table(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    first = _entries(100)
    _saved(pack, first)
    _saved(pack, {**first, "key1": ("unit-x.svg", 1, 1)})
    _whole, changes = _files(pack)
    data = changes.read_bytes()
    changes.write_bytes(data[:-3])
    assert FaceNames(pack, "en", "svg").before == first
    changes.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert FaceNames(pack, "en", "svg").before == first


def test_changes_of_another_table_are_not_applied(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    first = _entries(100)
    _saved(pack, first)
    _saved(pack, {**first, "key1": ("unit-x.svg", 1, 1)})
    whole, changes = _files(pack)
    kept = changes.read_bytes()
    other = _entries(100, salt="c")
    _saved(pack, other)  # written whole: the changes go
    changes.write_bytes(kept)  # changes of the table before, put back
    assert FaceNames(pack, "en", "svg").before == other
    whole.unlink()
    assert FaceNames(pack, "en", "svg").before == {}


def test_a_table_read_back_is_the_one_saved_whatever_was_taken_or_noted(tmp_path: Path) -> None:
    """A build's table is the entries it took from the build before's (`now` given them as
    they were, as `FaceRenderer.take` does) and those it noted: `save` works out what changed
    from the noted ones alone; the table read back is the build's, build after build."""
    import random

    rng = random.Random(5)
    pack = tmp_path / "faces.pack"
    _saved(pack, _entries(200))
    for build in range(30):
        table = FaceNames(pack, "en", "svg")
        before = table.before
        now: dict[str, tuple[str, int, int]] = {}
        for key, found in before.items():
            roll = rng.random()
            if roll < 0.9:
                table.now[key] = found  # taken as named before
                now[key] = found
            elif roll < 0.95:  # noted again, the same or changed
                same = rng.random() < 0.5
                entry = found if same else (f"unit-{build}-{key}.svg", build, 1)
                table.note(key, *entry)
                now[key] = entry
        for n in range(rng.randrange(3)):  # new faces
            table.note(f"new{build}-{n}", f"unit-new{build}{n}.svg", n, n + 1)
            now[f"new{build}-{n}"] = (f"unit-new{build}{n}.svg", n, n + 1)
        table.save()
        assert FaceNames(pack, "en", "svg").before == now


def test_a_table_taken_whole_is_not_written(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    _saved(pack, _entries(50))
    _saved(pack, {**_entries(50), "key1": ("unit-x.svg", 1, 1)})
    whole, changes = _files(pack)
    stamps = whole.stat().st_mtime_ns, changes.stat().st_mtime_ns, changes.stat().st_ino
    table = FaceNames(pack, "en", "svg")
    table.now.update(table.before)
    table.note("key2", *table.before["key2"])  # noted as it was
    table.save()
    assert (whole.stat().st_mtime_ns, changes.stat().st_mtime_ns, changes.stat().st_ino) == stamps
