"""Kept records are written as a journal (compiler.load.records.write_kept): a warm build adds
only its new or changed entries at the end of the file, the file is written again whole once it
would hold more than twice what the build kept, a damaged chunk reads as nothing kept, and a
file of many chunks reads back exactly what a load without the cache reads."""

from __future__ import annotations

import marshal
import zlib
from pathlib import Path
from typing import Any

import pytest

from compiler.load import records
from compiler.load.game import read_file
from compiler.load.keptread import KeptRecords
from compiler.load.records import read_kept, write_kept
from tests.conftest import every_field

UNIT = "  - {{id: u-{n}, name: Unit {n}, side: a, type: infantry, front: {{strength: {s}}}}}\n"
COUNT = 300


def units_text(strengths: dict[int, int]) -> str:
    head = "unit_types:\n  - {id: infantry, name: Infantry, symbol: infantry}\n\nunits:\n"
    return head + "".join(UNIT.format(n=n, s=strengths.get(n, 4)) for n in range(COUNT))


def kept_read(path: Path, stored: Path) -> tuple[object, KeptRecords]:
    """`path` read with the records kept in `stored`, which are then saved (a build's load)."""
    kept = KeptRecords(stored)
    found = read_file(path, None, kept)
    kept.save()
    return found, kept


@pytest.fixture
def units(tmp_path: Path) -> tuple[Path, Path]:
    """A units file read once with its records kept: the file and the kept records' file."""
    path = tmp_path / "units.yaml"
    path.write_text(units_text({}), encoding="utf-8")
    stored = tmp_path / "kept.cache"
    kept_read(path, stored)
    assert stored.is_file()
    return path, stored


def test_a_changed_unit_adds_one_chunk(units: tuple[Path, Path], item_reads: list[int]) -> None:
    path, stored = units
    before = stored.read_bytes()
    path.write_text(units_text({150: 7}), encoding="utf-8")
    item_reads.clear()
    found, kept = kept_read(path, stored)
    after = stored.read_bytes()
    assert after.startswith(before)  # nothing written again
    added = marshal.loads(after[len(before) + records.CHUNK_HEAD.size :])
    assert 0 < len(added) < len(kept.kept) and len(after) - len(before) < len(before) // 4
    assert read_kept(stored) | kept.kept == read_kept(stored)  # all it kept is in the file
    assert every_field(found) == every_field(read_file(path))
    assert len(item_reads) == 1  # the changed unit alone was read


def test_nothing_changed_writes_nothing(units: tuple[Path, Path]) -> None:
    path, stored = units
    path.write_text(units_text({150: 7}), encoding="utf-8")
    kept_read(path, stored)
    before = stored.read_bytes()
    kept_read(path, stored)
    assert stored.read_bytes() == before


def test_a_file_too_large_is_written_again_whole(
    units: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "MIN_COMPACT", 0)
    path, stored = units
    sizes = [stored.stat().st_size]
    for round_no in range(30):
        path.write_text(units_text({(round_no * 37) % COUNT: 5 + round_no % 3}), encoding="utf-8")
        _found, kept = kept_read(path, stored)
        sizes.append(stored.stat().st_size)
        live = sum(map(len, kept.kept.values())) + records.ENTRY_SIZE * len(kept.kept)
        assert sizes[-1] <= 2 * live
        if sizes[-1] < sizes[-2]:  # written again whole: what this load kept, alone
            assert read_kept(stored) == kept.kept
    assert any(b < a for a, b in zip(sizes, sizes[1:], strict=False))  # it did not only grow


def test_a_damaged_chunk_reads_as_nothing_kept(
    units: tuple[Path, Path], item_reads: list[int]
) -> None:
    path, stored = units
    with stored.open("ab") as file:
        file.write(b"\x00damaged")
    assert read_kept(stored) == {}
    item_reads.clear()
    found, kept = kept_read(path, stored)
    assert every_field(found) == every_field(read_file(path))
    assert read_kept(stored) == kept.kept  # written again whole
    assert item_reads == []  # nothing known: the file was read whole


def framed(value: list[int] | dict[Any, Any], crc_flip: int = 0) -> bytes:
    """`value` marshalled as a kept file's chunk (its head: mark, length, CRC-32 ^ crc_flip)."""
    body = marshal.dumps(value)
    head = records.CHUNK_HEAD.pack(records.CHUNK_MARK, len(body), zlib.crc32(body) ^ crc_flip)
    return head + body


@pytest.mark.parametrize(
    "chunk",
    [
        marshal.dumps({b"k" * 32: b"v"}),  # no head
        framed([1, 2]),
        framed({b"k": 3}),
        framed({3: b"v"}),
        framed({b"k" * 32: b"v"}, crc_flip=1),  # a damaged chunk
        framed({b"k" * 32: b"v"})[:-1],  # cut short
    ],
)
def test_a_chunk_that_is_no_entries_is_not_taken(units: tuple[Path, Path], chunk: bytes) -> None:
    _path, stored = units
    known = read_kept(stored)
    with stored.open("ab") as file:
        file.write(chunk)
    assert read_kept(stored) in ({}, known)


def test_many_chunks_read_as_a_load_without_the_cache(units: tuple[Path, Path]) -> None:
    path, stored = units
    for round_no in range(6):
        path.write_text(units_text({round_no * 40: 9, 299 - round_no: 1}), encoding="utf-8")
        found, _kept = kept_read(path, stored)
        assert every_field(found) == every_field(read_file(path))
    assert len(stored.read_bytes()) > len(records.kept_chunk(read_kept(stored)))  # several chunks


def test_without_known_entries_the_file_is_written_whole(tmp_path: Path) -> None:
    stored = tmp_path / "kept.cache"
    write_kept(stored, {b"a" * 32: b"one"})
    write_kept(stored, {b"b" * 32: b"two"}, {})
    assert read_kept(stored) == {b"b" * 32: b"two"}
    write_kept(stored, {b"b" * 32: b"two", b"c" * 32: b"three"}, {b"b" * 32: b"two"})
    assert read_kept(stored) == {b"b" * 32: b"two", b"c" * 32: b"three"}
    assert stored.read_bytes().startswith(records.kept_chunk({b"b" * 32: b"two"}))


def test_a_record_changed_on_disk_is_not_read_back(units: tuple[Path, Path]) -> None:
    """A bit flipped in a kept record that still unmarshals and unpickles (a number of a unit
    read back as another) is found by its chunk's CRC: the file reads as nothing kept."""
    path, stored = units
    data = bytearray(stored.read_bytes())
    at = data.index(b"strength") + 20  # inside a record's bytes
    data[at] ^= 1
    stored.write_bytes(bytes(data))
    assert read_kept(stored) == {}
    found, _kept = kept_read(path, stored)
    assert every_field(found) == every_field(read_file(path))
