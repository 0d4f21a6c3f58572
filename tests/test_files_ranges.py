"""Ranges of another file written by files.write_parts_atomically (a warm module is mostly
ranges of the one it replaces): copied by the kernel where the system can (copy_file_range,
else sendfile), else written from their bytes; the same file either way, and atomic as
ever. Inside files.deferred_copies, the long ranges are copied by a thread and the file is
renamed into place when the block ends (a copy that fails, or a block that raises, leaves the
file before)."""

from __future__ import annotations

import errno
import mmap
import os
import random
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from compiler.backends import files
from compiler.backends.files import FileRange, write_parts_atomically
from compiler.backends.vassal.module import write_zip_file, zip_bytes

SIZE = 3 * files.KERNEL_COPY_MIN


@pytest.fixture
def source(tmp_path: Path) -> Iterator[tuple[int, mmap.mmap]]:
    """A file of SIZE random bytes, open and mapped."""
    path = tmp_path / "source.bin"
    path.write_bytes(random.Random(5).randbytes(SIZE))
    fd = os.open(path, os.O_RDONLY)
    mapping = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    yield fd, mapping
    with suppress(BufferError):  # a view a failed test's frames still hold
        mapping.close()
    os.close(fd)


def _cannot(code: int) -> files.Copier:
    def copier(source: int, target: int, offset: int, count: int) -> int:
        raise OSError(code, os.strerror(code))

    return copier


def _partly(copier: files.Copier, then: int) -> files.Copier:
    """`copier` for its first call (at most a third of a range), then failing with `then`."""
    calls: list[int] = []

    def copy(source: int, target: int, offset: int, count: int) -> int:
        calls.append(count)
        if len(calls) > 1:
            raise OSError(then, os.strerror(then))
        return copier(source, target, offset, max(1, count // 3))

    return copy


KERNEL = files.COPIERS
COPIERS: dict[str, tuple[files.Copier, ...]] = {
    "the system's": KERNEL,
    "copy_file_range alone": (files._copy_file_range,),
    "sendfile alone": (files._sendfile,),
    "none": (),
    "refused across file systems": (_cannot(errno.EXDEV), *KERNEL),
    "not a system call here": (_cannot(errno.ENOSYS), _cannot(errno.EINVAL)),
    "part copied, then refused": (_partly(files._copy_file_range, errno.EXDEV),),
    "part copied, then the next": (
        _partly(files._copy_file_range, errno.EOPNOTSUPP),
        files._sendfile,
    ),
}


@pytest.mark.parametrize("copiers", COPIERS.values(), ids=COPIERS)
def test_ranges_are_written_whatever_the_system_can_copy(
    tmp_path: Path,
    source: tuple[int, mmap.mmap],
    monkeypatch: pytest.MonkeyPatch,
    copiers: tuple[files.Copier, ...],
) -> None:
    monkeypatch.setattr(files, "COPIERS", copiers)
    fd, mapping = source
    view = memoryview(mapping)
    ranges = [(100, SIZE - 100), (0, 10), (5, files.KERNEL_COPY_MIN + 7), (SIZE - 1, 1)]
    parts: list[files.Part] = [b"head"]
    for start, length in ranges:
        parts += [FileRange(fd, start, view[start : start + length]), b"-"]
    target = write_parts_atomically(tmp_path / "out.bin", parts)
    expected = b"head" + b"".join(mapping[s : s + n] + b"-" for s, n in ranges)
    assert target.read_bytes() == expected
    del view


@pytest.mark.parametrize(("copiers", "from_file"), [(KERNEL, True), ((), False)])
def test_a_long_range_is_copied_from_the_file_by_the_kernel(
    tmp_path: Path,
    source: tuple[int, mmap.mmap],
    monkeypatch: pytest.MonkeyPatch,
    copiers: tuple[files.Copier, ...],
    from_file: bool,
) -> None:
    """The range's bytes come from the file, not through Python (the part's `data`, here
    other bytes of its length, is not read), where the system can copy; else from `data`."""
    if not KERNEL:
        pytest.skip("no copy_file_range or sendfile on this system")
    monkeypatch.setattr(files, "COPIERS", copiers)
    fd, mapping = source
    stand_in = memoryview(bytes(SIZE))
    written = write_parts_atomically(tmp_path / "out.bin", [FileRange(fd, 0, stand_in)])
    assert written.read_bytes() == (mapping[:] if from_file else bytes(SIZE))


def test_a_short_range_is_written_from_its_bytes(
    tmp_path: Path, source: tuple[int, mmap.mmap]
) -> None:
    fd, _mapping = source
    stand_in = memoryview(b"x" * (files.KERNEL_COPY_MIN - 1))
    written = write_parts_atomically(tmp_path / "out.bin", [FileRange(fd, 0, stand_in)])
    assert written.read_bytes() == bytes(stand_in)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_a_copy_that_fails_leaves_the_file_before(
    tmp_path: Path,
    source: tuple[int, mmap.mmap],
    monkeypatch: pytest.MonkeyPatch,
    code: int,
) -> None:
    """A full disk (or an I/O error) during a copy fails the write: not taken for a system
    that cannot copy, and the file before stays, with nothing left beside it."""
    monkeypatch.setattr(files, "COPIERS", (_cannot(code), *KERNEL))
    fd, mapping = source
    target = tmp_path / "out.bin"
    target.write_bytes(b"before")
    with pytest.raises(OSError) as raised:
        write_parts_atomically(target, [b"new", FileRange(fd, 0, memoryview(mapping))])
    assert raised.value.errno == code
    assert target.read_bytes() == b"before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "source.bin"]


def test_a_warm_module_copies_its_unchanged_runs_in_the_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """write_zip_file gives the runs of entries of the module before as ranges of it: the
    kernel copies them (counted here), and the module is the one zip_bytes makes."""
    rng = random.Random(3)
    images = {f"images/unit-{n:016x}.png": rng.randbytes(4000) for n in range(100)}
    crcs = {name: zlib.crc32(data) for name, data in images.items()}
    before = tmp_path / "before.vmod"
    before.write_bytes(zip_bytes({**images, "buildFile.xml": b"<old/>"}, None, crcs))
    copied: list[int] = []

    def counted(source: int, target: int, offset: int, count: int) -> int:
        copied.append(count)
        return KERNEL[0](source, target, offset, count) if KERNEL else 0

    monkeypatch.setattr(files, "COPIERS", (counted,))
    now = {**images, "buildFile.xml": b"<new/>"}
    written = write_zip_file(tmp_path / "new.vmod", now, before, crcs)
    assert written.read_bytes() == zip_bytes(now, None, crcs)
    assert copied and copied[0] > 100 * 4000


def test_a_warm_module_in_a_deferred_block_leaves_its_runs_to_the_copying_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a deferred_copies block (a build's outputs: pipeline._write_outputs), the module's
    runs of the module before are copied by the thread, at their places (counted here), and
    the module is the one zip_bytes makes once the block ends."""
    rng = random.Random(3)
    images = {f"images/unit-{n:016x}.png": rng.randbytes(4000) for n in range(100)}
    crcs = {name: zlib.crc32(data) for name, data in images.items()}
    before = tmp_path / "before.vmod"
    before.write_bytes(zip_bytes({**images, "buildFile.xml": b"<old/>"}, None, crcs))
    copied: list[tuple[int, str]] = []

    def counted(source: int, target: int, count: int, offset: int, at: int) -> int:
        copied.append((count, threading.current_thread().name))
        return os.copy_file_range(source, target, count, offset, at)

    monkeypatch.setattr(files, "_copy_file_range_at", counted)
    now = {**images, "buildFile.xml": b"<new/>"}
    with files.deferred_copies():
        written = write_zip_file(tmp_path / "new.vmod", now, before, crcs)
        assert not written.exists()
    assert written.read_bytes() == zip_bytes(now, None, crcs)
    assert copied and copied[0][0] > 100 * 4000 and copied[0][1] == "countermix-copy"


def test_copy_errors_that_mean_cannot_are_known() -> None:
    assert {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP} <= files.CANNOT_COPY
    assert not {errno.ENOSPC, errno.EIO, errno.EDQUOT} & files.CANNOT_COPY


def _ranges(fd: int, mapping: mmap.mmap) -> tuple[list[files.Part], bytes]:
    """Parts of a file: its own bytes, two long ranges of `fd` and a short one; and the bytes
    they make."""
    long = files.KERNEL_COPY_MIN
    parts: list[files.Part] = [
        b"head",
        FileRange(fd, 5, memoryview(mapping)[5 : 5 + long]),
        b"middle",
        FileRange(fd, 7, memoryview(mapping)[7:107]),
        FileRange(fd, long, memoryview(mapping)[long : 3 * long]),
    ]
    expected = b"head" + mapping[5 : 5 + long] + b"middle" + mapping[7:107] + mapping[long:]
    return parts, expected


def _partly_then(then: int) -> Callable[[int, int, int, int, int], int]:
    """copy_file_range at a place for a first call (a third of a range), then failing."""
    calls: list[int] = []

    def copy(source: int, target: int, count: int, offset: int, at: int) -> int:
        calls.append(count)
        if len(calls) > 1:
            raise OSError(then, os.strerror(then))
        return os.copy_file_range(source, target, max(1, count // 3), offset, at)

    return copy


def _refused(code: int) -> Callable[[int, int, int, int, int], int]:
    def copy(source: int, target: int, count: int, offset: int, at: int) -> int:
        raise OSError(code, os.strerror(code))

    return copy


DEFERRED_COPIERS: dict[str, Callable[[int, int, int, int, int], int] | None] = {
    "the kernel": None,
    "refused across file systems": _refused(errno.EXDEV),
    "part copied, then refused": _partly_then(errno.EOPNOTSUPP),
}


@pytest.mark.parametrize("copier", DEFERRED_COPIERS.values(), ids=DEFERRED_COPIERS)
def test_deferred_ranges_are_copied_and_the_file_renamed_when_the_block_ends(
    tmp_path: Path,
    source: tuple[int, mmap.mmap],
    monkeypatch: pytest.MonkeyPatch,
    copier: Callable[[int, int, int, int, int], int] | None,
) -> None:
    if copier is not None:
        monkeypatch.setattr(files, "_copy_file_range_at", copier)
    target = tmp_path / "out.bin"
    target.write_bytes(b"before")
    parts, expected = _ranges(*source)
    with files.deferred_copies():
        assert write_parts_atomically(target, parts, defer=True) == target
        assert target.read_bytes() == b"before"  # renamed when the block ends
    assert target.read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "source.bin"]


def test_outside_the_block_a_deferred_write_is_done_at_once(
    tmp_path: Path, source: tuple[int, mmap.mmap]
) -> None:
    parts, expected = _ranges(*source)
    write_parts_atomically(tmp_path / "out.bin", parts, defer=True)
    assert (tmp_path / "out.bin").read_bytes() == expected


@pytest.mark.parametrize("fails", ["a copy", "the block"])
def test_a_deferred_write_whose_copy_or_block_fails_leaves_the_file_before(
    tmp_path: Path, source: tuple[int, mmap.mmap], monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """A copy that fails for another reason than `cannot` (a full disk, an I/O error) raises
    when the block ends; a block that raises raises that; either way the file is as before
    and no temporary file is left."""
    if fails == "a copy":
        monkeypatch.setattr(files, "_copy_file_range_at", _refused(errno.ENOSPC))
    target = tmp_path / "out.bin"
    target.write_bytes(b"before")
    parts, _expected = _ranges(*source)
    with pytest.raises(OSError if fails == "a copy" else ValueError) as raised:
        with files.deferred_copies():
            write_parts_atomically(target, parts, defer=True)
            if fails == "the block":
                raise ValueError("the build failed")
    if fails == "a copy":
        assert isinstance(raised.value, OSError) and raised.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "source.bin"]


def test_a_deferred_range_longer_than_its_file_fails(tmp_path: Path) -> None:
    """A range past the end of its file (the file rewritten in place since it was mapped):
    the write fails rather than leave a hole of zeros."""
    path = tmp_path / "short.bin"
    path.write_bytes(bytes(2 * files.KERNEL_COPY_MIN))
    fd = os.open(path, os.O_RDONLY)
    try:
        view = memoryview(bytes(3 * files.KERNEL_COPY_MIN))
        with pytest.raises(OSError), files.deferred_copies():
            write_parts_atomically(tmp_path / "out.bin", [FileRange(fd, 0, view)], defer=True)
    finally:
        os.close(fd)
    assert not (tmp_path / "out.bin").exists()


def test_a_deferred_write_without_a_thread_to_start_fails_and_leaks_nothing(
    tmp_path: Path, source: tuple[int, mmap.mmap], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No thread to be had (a process at its limit): the write fails, no temporary file
    stays and no file descriptor is left open."""

    def no_thread(work: Callable[[], None], name: str) -> threading.Thread:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(files, "background", no_thread)
    parts, _expected = _ranges(*source)
    open_before = len(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    with pytest.raises(RuntimeError), files.deferred_copies():
        write_parts_atomically(tmp_path / "out.bin", parts, defer=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["source.bin"]
    if open_before is not None:
        assert len(os.listdir("/proc/self/fd")) == open_before
