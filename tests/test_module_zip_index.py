"""The index of the module written (where each entry lies: zipindex) is kept beside it; a warm
module is found from it, not from the module's central directory, and copies its unchanged
entries as runs: byte for byte the cold module, whatever changed. An index that is not of the
module before (damaged, another module's, missing) is not used."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.backends.vassal import module as vm
from compiler.backends.vassal.module import KeptRun, write_zip_file, zip_bytes
from compiler.backends.vassal.zipindex import read_index
from tests.test_module_warm_runs import CHANGES, Files, _crcs, _files


def _written(tmp_path: Path, files: Files, index: Path) -> Path:
    """`files` written as the module before, its index kept in `index`."""
    before = tmp_path / "before.vmod"
    write_zip_file(before, files, tmp_path / "none.vmod", _crcs(files), None, index)
    return before


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A count of the module's central directories read entry by entry."""
    calls: list[int] = []
    real = vm.reusable_entries

    def spy(previous: vm.Module) -> dict[str, vm.ZipEntry]:
        calls.append(1)
        return real(previous)

    monkeypatch.setattr(vm, "reusable_entries", spy)
    return calls


@pytest.mark.parametrize("change", CHANGES)
def test_a_module_from_its_index_is_the_cold_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Files], Files]
) -> None:
    before_files = _files(count=60)
    index = tmp_path / "module.entries"
    before = _written(tmp_path, before_files, index)
    assert before.read_bytes() == zip_bytes(before_files, None, _crcs(before_files))
    calls = _spied(monkeypatch)
    files = change(before_files)
    written = write_zip_file(tmp_path / "new.vmod", files, before, _crcs(files), None, index)
    assert written.read_bytes() == zip_bytes(files, None, _crcs(files))
    assert calls == []  # found from the index
    with zipfile.ZipFile(written) as archive:
        assert archive.testzip() is None
        assert {n: archive.read(n) for n in archive.namelist()} == files
    assert read_index(index, written.read_bytes()) is not None  # now the new module's


def test_unchanged_entries_are_runs_of_the_index(tmp_path: Path) -> None:
    """One face changed: the rest of the faces go as a few runs, not an entry each."""
    before_files = _files(count=60)
    index = tmp_path / "module.entries"
    before = _written(tmp_path, before_files, index)
    files = CHANGES[1](before_files)
    listed = read_index(index, before.read_bytes())
    assert listed is not None
    items = vm._indexed_entries(files, listed, before.read_bytes(), _crcs(files))
    assert items is not None
    runs = [item for item in items if isinstance(item, KeptRun)]
    assert sum(run.stop - run.start for run in runs) >= len(files) - 5
    assert len(runs) <= 3


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-10],
        lambda data: data[:20] + bytes([data[20] ^ 1]) + data[21:],
        lambda data: b"",
        lambda data: b"\x00" * 64,
    ],
)
def test_a_damaged_index_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[bytes], bytes]
) -> None:
    before_files = _files()
    index = tmp_path / "module.entries"
    before = _written(tmp_path, before_files, index)
    index.write_bytes(damage(index.read_bytes()))
    calls = _spied(monkeypatch)
    files = CHANGES[1](before_files)
    written = write_zip_file(tmp_path / "new.vmod", files, before, _crcs(files), None, index)
    assert written.read_bytes() == zip_bytes(files, None, _crcs(files))
    assert calls == [1]  # the module's directory read instead


def test_the_index_of_another_module_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module before replaced by another (a build without the index, by hand): its
    index is not of it (its end record and directory differ)."""
    before_files = _files()
    index = tmp_path / "module.entries"
    before = _written(tmp_path, before_files, index)
    other = CHANGES[4](before_files)
    before.write_bytes(zip_bytes(other, None, _crcs(other)))
    calls = _spied(monkeypatch)
    files = CHANGES[1](before_files)
    written = write_zip_file(tmp_path / "new.vmod", files, before, _crcs(files), None, index)
    assert written.read_bytes() == zip_bytes(files, None, _crcs(files))
    assert calls == [1]


def test_a_warm_build_writes_its_module_from_the_index(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build keeps the index of its module beside its cache; the next build, a unit
    renamed, reads that index (not the module's directory) and writes the cold module."""
    from compiler.backends.vassal.module import build_module
    from tests.conftest import cold_module, game_with_aids, replace_in

    out = tmp_path / "out"
    first = build_module(game_with_aids(mini), out).read_bytes()
    (index,) = (out / ".cache" / "mini").glob("*.vmod.entries")
    assert read_index(index, first) is not None
    calls = _spied(monkeypatch)
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm = build_module(game_with_aids(mini), out).read_bytes()
    assert calls == []
    assert warm != first
    assert warm == cold_module(mini, tmp_path)
