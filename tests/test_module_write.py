"""Writing a module file: streamed to disk from the entries of the module before (mapped, not
read whole), the same bytes a cold build writes, atomically."""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.backends.vassal.module import (
    build_module,
    reusable_entries,
    write_zip_file,
    zip_bytes,
)
from tests.conftest import cold_module, game_with_aids, replace_in

RENAME = ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")


_game = game_with_aids
_cold = cold_module


def test_a_warm_module_is_the_cold_one_after_a_unit_changed(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = build_module(_game(mini), out).read_bytes()
    assert build_module(_game(mini), out).read_bytes() == first  # all copied from before
    file, old, new = RENAME
    replace_in(mini / file, old, new)
    warm = build_module(_game(mini), out).read_bytes()
    assert warm != first
    assert warm == _cold(mini, tmp_path)
    assert (out / "mini" / "mini.vmod").stat().st_mode & 0o777 == 0o644


def _truncated(module: Path) -> None:
    module.write_bytes(module.read_bytes()[: module.stat().st_size // 2])


def _directory_scrambled(module: Path) -> None:
    data = bytearray(module.read_bytes())
    directory = data.rindex(b"PK\x01\x02")  # the last entry's central record
    data[directory + 16 : directory + 28] = b"\xff" * 12  # its CRC-32 and sizes
    module.write_bytes(bytes(data))


def _local_headers_moved(module: Path) -> None:
    data = bytearray(module.read_bytes())
    first = data.index(b"PK\x03\x04", 1)  # the second entry's local header
    data[first : first + 4] = b"XXXX"
    module.write_bytes(bytes(data))


def _empty(module: Path) -> None:
    module.write_bytes(b"")


def _not_a_zip(module: Path) -> None:
    module.write_bytes(b"this is not a module" * 100)


def _missing(module: Path) -> None:
    module.unlink()


@pytest.mark.parametrize(
    "damage",
    [_truncated, _directory_scrambled, _local_headers_moved, _empty, _not_a_zip, _missing],
)
def test_a_damaged_module_before_gives_the_cold_bytes(
    mini: Path, tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    """The module before is only a source of entries to copy: damaged, it is copied from no
    more than it can be read, and the module written is the cold one."""
    out = tmp_path / "out"
    module = build_module(_game(mini), out)
    file, old, new = RENAME
    replace_in(mini / file, old, new)
    damage(module)
    assert build_module(_game(mini), out).read_bytes() == _cold(mini, tmp_path)
    with zipfile.ZipFile(module) as archive:
        assert archive.testzip() is None


def test_a_failed_write_keeps_the_module_before(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    module = build_module(_game(mini), out)
    before = module.read_bytes()
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])

    def disk_full(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="disk full"):
        build_module(_game(mini), out)
    assert module.read_bytes() == before
    assert [p.name for p in module.parent.iterdir()] == [module.name]


def test_written_file_is_what_zip_bytes_makes(tmp_path: Path) -> None:
    """Streamed to the file or made in memory, with or without a module before to copy from
    (here holding some of the entries, one of them changed since): the same bytes."""
    svg = b'<?xml version="1.0"?><svg>' + b"<rect/>" * 300 + b"</svg>"
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    files = {
        "buildFile.xml": b"<module>the build file</module>\n" * 50,
        "images/unit-0123456789abcdef.svg": svg,
        "images/chart-0123456789abcdef.png": png,
        "moduledata": b"<m/>",
        "sc\u00e9nario.vsav": png,
    }
    crcs = {"images/unit-0123456789abcdef.svg": zlib.crc32(svg)}
    cold = zip_bytes(files, None, crcs)
    missing = tmp_path / "none.vmod"
    assert write_zip_file(tmp_path / "a.vmod", files, missing, crcs).read_bytes() == cold
    before = tmp_path / "before.vmod"
    before.write_bytes(zip_bytes({**files, "buildFile.xml": b"<module>old</module>\n"}))
    written = write_zip_file(tmp_path / "b.vmod", files, before, crcs).read_bytes()
    assert written == cold == zip_bytes(files, reusable_entries(before.read_bytes()), crcs)
    assert write_zip_file(before, files, before, crcs).read_bytes() == cold  # over itself
    with zipfile.ZipFile(before) as archive:
        assert archive.testzip() is None
        assert {n: archive.read(n) for n in archive.namelist()} == files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.vmod", "b.vmod", "before.vmod"]


def test_entries_of_the_module_before_are_copied_as_they_lie(tmp_path: Path) -> None:
    """An image of the module before with the same name, size and CRC-32 is written from it:
    here deflated at another level than a build deflates, its bytes show in the new file."""
    svg = b"".join(b'<?xml version="1.0"?><svg><text>%d</text>' % (n * n) for n in range(400))
    name = "images/unit-0123456789abcdef.svg"
    before = tmp_path / "before.vmod"
    with zipfile.ZipFile(before, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr(name, svg)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    kept = packer.compress(svg) + packer.flush()
    assert kept not in zip_bytes({name: svg})
    written = write_zip_file(tmp_path / "new.vmod", {name: svg}, before).read_bytes()
    assert kept in written
    with zipfile.ZipFile(tmp_path / "new.vmod") as archive:
        assert archive.read(name) == svg


def _names_table(pack: Path) -> Path:
    (table,) = pack.parent.glob(f"{pack.name}.names-*")
    return table


def _renamed(table: bytes) -> bytes:
    """The table with the last digit of a face's name changed."""
    at = table.index(b".svg") - 1
    return table[:at] + (b"0" if table[at : at + 1] != b"0" else b"1") + table[at + 1 :]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: _renamed(data),  # the payload changed under its checksum
        lambda data: b"",
        lambda data: zlib.crc32(b"\x00").to_bytes(4, "little") + b"\x00",  # a table of None
    ],
    ids=["truncated", "changed", "empty", "not-a-table"],
)
def test_a_damaged_names_table_is_read_as_none(
    mini: Path, tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    """The faces' names and CRC-32 kept for the next build (FaceNames): a damaged table is
    not read, every face is hashed again, and the plan and module are those of a cold build."""
    from compiler.backends.vassal.module import render_plan

    pack = tmp_path / "out" / ".cache" / "mini" / "faces.pack"
    cold_plan, cold_images = render_plan(_game(mini))
    build_module(_game(mini), tmp_path / "out")
    table = _names_table(pack)
    table.write_bytes(damage(table.read_bytes()))
    plan, images = render_plan(_game(mini), pack)
    assert plan.faces_drawn == 0 and plan.faces_reused > 0
    assert images == cold_images and plan.image_crcs == cold_plan.image_crcs
    assert build_module(_game(mini), tmp_path / "out").read_bytes() == _cold(mini, tmp_path)


def test_the_names_table_is_written_when_it_changes(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build_module(_game(mini), out)
    table = _names_table(out / ".cache" / "mini" / "faces.pack")
    written = table.stat()
    build_module(_game(mini), out)
    assert table.stat().st_ino == written.st_ino  # the same faces: not written again
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    build_module(_game(mini), out)
    assert table.stat().st_ino != written.st_ino
    assert build_module(_game(mini), out).read_bytes() == _cold(mini, tmp_path)
