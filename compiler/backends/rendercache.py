"""A content-addressed cache of rendered faces (PNGs, PDF forms), and rendering on every core.

A face's cache key is a hash of everything that decides how it looks — the records it is drawn
from (see art.identity), its size and language — plus a fingerprint of the renderer's own
source, so changing the art code invalidates the cache by itself. The cache is a pack file
(the entries back to back) with a small index, each read with one read: a warm build opens two
files instead of thousands, and appends only what it drew. Entries unused for AGE_LIMIT builds
are dropped. An unchanged counter is never drawn again; encoding is deterministic, so outputs stay
byte-identical.
"""

from __future__ import annotations

import hashlib
import marshal
import multiprocessing
import os
import signal
import weakref
import zlib
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import chain
from pathlib import Path

from compiler.backends.art.fonts import ALL_FONTS, MissingFont, font_path
from compiler.backends.keptrecord import all_of_type
from compiler.resources import shipped_layout_files

ART_SOURCES = Path(__file__).parent / "art"
PDF_SOURCES = Path(__file__).parent / "pdf"
AGE_LIMIT = 4
SMALL_PACK = 4 << 20
"""A pack this small is read whole when opened; a larger one entry by entry, when asked."""
"""Builds an entry may go unused before it leaves the pack."""


@cache
def renderer_fingerprint() -> str:
    """Hash of the renderers' code, the shared layout templates and the installed fonts (a
    cached face holds the glyph ids and metrics of the font files it was drawn with)."""
    digest = hashlib.sha256()
    sources = [*sorted(ART_SOURCES.glob("*.py")), *sorted(PDF_SOURCES.glob("*.py"))]
    for path in [*sources, *shipped_layout_files()]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for font in ALL_FONTS:
        try:
            found = font_path(font)
        except MissingFont:
            continue
        stat = found.stat()
        digest.update(f"{found}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


@cache
def _seed() -> hashlib._Hash:
    return hashlib.sha256(renderer_fingerprint().encode())


def digest_key(*parts: str) -> str:
    """A key from parts that are already digests or short words: no hashing, just joined
    after the renderer's fingerprint (cheap for thousands of faces)."""
    return renderer_fingerprint()[:32] + ":" + ":".join(parts)


def cache_key(*parts: object) -> str:
    """A stable key: repr of frozen records (positions excluded) and plain values."""
    digest = _seed().copy()
    digest.update(repr(parts).encode("utf-8"))
    return digest.hexdigest()


class RenderCache:
    """Rendered bytes by key, in memory and (given a pack file's path) on disk.

    On disk: `<pack>` holds the entries back to back and `<pack>.index` maps each key to its
    (offset, length, age, CRC-32). Opening a cache reads only the index; an entry's bytes are
    read from the pack when it is asked for (a warm build of a large game reads the few
    hundred kilobytes it uses, not the whole pack). A build appends what it drew and rewrites
    only the small index; the data is compacted when more than half of it is entries no
    longer indexed."""

    def __init__(self, pack: Path | None) -> None:
        self.pack = pack
        self.memory: dict[str, bytes] = {}
        """Entries read or made by this build."""
        self.index: dict[str, tuple[int, int, int, int]] = {}
        """key → (offset, length, age in builds, CRC-32): an entry whose bytes do not match its
        CRC (the pack rewritten by another build meanwhile) is not served."""
        self.size = 0
        self.used: set[str] = set()
        self.new: list[str] = []
        self.hits = 0
        self.misses = 0
        self._data: int | None = None
        """The pack, open for reading (entries are read at their offsets)."""
        self._whole: bytes | None = None
        """A small pack's bytes, read at once (many tiny entries: one read, not one each)."""
        if pack is not None:
            self._load(pack)

    def _index_path(self) -> Path:
        assert self.pack is not None
        return self.pack.with_name(self.pack.name + ".index")

    def _load(self, pack: Path) -> None:
        """Read the index and open the pack; a missing, damaged or mismatched pack is an empty
        cache."""
        try:
            index = _checked_index(marshal.loads(self._index_path().read_bytes()))
            handle = os.open(pack, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            weakref.finalize(self, os.close, handle)
            size = os.fstat(handle).st_size
            self.index, self._data, self.size = index, handle, size
            if size <= SMALL_PACK:
                self._whole = os.pread(handle, size, 0)
        except (OSError, EOFError, ValueError, TypeError):
            self.index.clear()
            self.size = 0

    def _read(self, key: str) -> bytes | None:
        """An indexed entry's bytes from the pack, when they are whole and match their CRC
        (else the entry is forgotten: a miss)."""
        start, length, _age, crc = self.index[key]
        entry = b""
        if start + length > self.size:
            pass  # beyond the pack's end: not this pack's entry
        elif self._whole is not None:
            entry = self._whole[start : start + length]
        elif self._data is not None:
            try:
                entry = os.pread(self._data, length, start)
            except OSError:
                pass
        if len(entry) != length or zlib.crc32(entry) != crc:
            del self.index[key]  # rewritten under us (another build, an interrupted one)
            return None
        self.memory[key] = entry
        return entry

    def get(self, key: str) -> bytes | None:
        found = self.memory.get(key)
        if found is None and key in self.index:
            found = self._read(key)
        if found is not None:
            self.used.add(key)
            self.hits += 1
        return found

    def holds(self, key: str) -> bool:
        """Whether there is an entry under `key`, without reading it (one in the pack may
        still turn out damaged when read: then `get` gives None)."""
        return key in self.memory or key in self.index

    def keep(self, keys: Iterable[str]) -> None:
        """Count entries as used by this build without reading them (they age as the entry
        that stands for them does)."""
        wanted = set(keys)
        self.used |= (wanted & self.index.keys()) | (wanted & self.memory.keys())

    def fetch(self, key: str, make: Callable[[], bytes]) -> bytes:
        """The bytes under `key`; made (here, on this core) and kept when missing."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found

    def put(self, key: str, data: bytes) -> None:
        if key not in self.memory and key not in self.index:
            self.new.append(key)
        self.memory[key] = data
        self.used.add(key)
        self.misses += 1

    def _length(self, key: str) -> int:
        found = self.memory.get(key)
        return len(found) if found is not None else self.index[key][1]

    def save(self) -> None:
        """Append what this build drew, age what it did not use, drop what is too old."""
        if self.pack is None:
            return
        ages = {key: 0 if key in self.used else self.index[key][2] + 1 for key in self.index}
        ages.update(dict.fromkeys(self.new, 0))
        ages = {key: age for key, age in ages.items() if age <= AGE_LIMIT}
        if not self.new and all(self.index[k][2] == a for k, a in ages.items()):
            if len(ages) == len(self.index):
                return
        live = sum(self._length(key) for key in ages)
        if self.size + sum(len(self.memory[k]) for k in self.new) > 2 * live + (1 << 20):
            self._rewrite(ages)
        else:
            self._append(ages)
        self.new, self.used = [], set()

    def _append(self, ages: dict[str, int]) -> None:
        """New entries at the end of the data; then the index, replaced whole."""
        assert self.pack is not None
        self.pack.parent.mkdir(parents=True, exist_ok=True)
        offset = self.size
        with self.pack.open("ab") as handle:
            handle.seek(0, os.SEEK_END)
            offset = handle.tell()
            for key in self.new:
                data = self.memory[key]
                handle.write(data)
                self.index[key] = (offset, len(data), 0, zlib.crc32(data))
                offset += len(data)
        self.size = offset
        self.index = {
            key: (self.index[key][0], self.index[key][1], age, self.index[key][3])
            for key, age in ages.items()
        }
        self._write_index()

    def _rewrite(self, ages: dict[str, int]) -> None:
        """The data with only the live entries (read from the old pack when this build did
        not use them), and its index."""
        assert self.pack is not None
        self.pack.parent.mkdir(parents=True, exist_ok=True)
        index: dict[str, tuple[int, int, int, int]] = {}
        chunks: list[bytes] = []
        offset = 0
        for key in sorted(ages):
            data = self.memory.get(key)
            if data is None:
                data = self._read(key)
            if data is None:
                continue  # damaged in the old pack: dropped
            chunks.append(data)
            index[key] = (offset, len(data), ages[key], zlib.crc32(data))
            offset += len(data)
        _replace(self.pack, b"".join(chunks))
        self.index, self.size = index, offset
        self._reopen()
        self._write_index()

    def _reopen(self) -> None:
        """After the pack was replaced: read from the new one."""
        assert self.pack is not None
        try:
            handle = os.open(self.pack, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            self._data = None  # what was read stays in memory; nothing more is served
            return
        weakref.finalize(self, os.close, handle)
        self._data, self._whole = handle, None

    def _write_index(self) -> None:
        _replace(self._index_path(), marshal.dumps(dict(sorted(self.index.items()))))

    def render_all(self, jobs: Sequence[tuple[str, Callable[[], bytes]]]) -> dict[str, bytes]:
        """Bytes for every (key, make) job: from the cache, else made — on every core when
        there are many misses."""
        makers = [make for _key, make in jobs]
        return self.render_keys([key for key, _make in jobs], makers.__getitem__)

    def render_keys(
        self, keys: Sequence[str], job: Callable[[int], Callable[[], bytes]]
    ) -> dict[str, bytes]:
        """Bytes for every key: from the cache, else made by `job(index of the key)` — asked
        for only on a miss — on every core when there are many misses."""
        out: dict[str, bytes] = {}
        todo: dict[str, Callable[[], bytes]] = {}
        for index, key in enumerate(keys):
            if key in out or key in todo:
                continue
            found = self.get(key)
            if found is None:
                todo[key] = job(index)
            else:
                out[key] = found
        for key, data in zip(list(todo), parallel_map(list(todo.values())), strict=True):
            self.put(key, data)
            out[key] = data
        return out


def _checked_index(index: object) -> dict[str, tuple[int, int, int, int]]:
    """An index read back, when it has the shape `_write_index` writes: str keys, each value
    four ints, none negative (checked in a few passes that stay in C: an index holds tens of
    thousands of entries). An entry whose bytes lie outside the pack, or are not those it
    was written with, is a miss when read (`_read`). ValueError for any other shape."""
    if type(index) is not dict:
        raise ValueError("not an index")
    values = index.values()
    if (
        not all_of_type(index, str)
        or not all_of_type(values, tuple)
        or not set(map(len, values)) <= {4}
        or not all_of_type(chain.from_iterable(values), int)
        or min(chain.from_iterable(values), default=0) < 0
    ):
        raise ValueError("not an index")
    return index


def _replace(path: Path, data: bytes) -> None:
    """Write a file next to its target and rename it over the target."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


_JOBS: list[Callable[[], bytes]] = []


def _run(index: int) -> bytes:
    return _JOBS[index]()


def _leave_ctrl_c() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it ends the pool); a worker prints no
    traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def parallel_map(jobs: Sequence[Callable[[], bytes]], minimum: int = 64) -> list[bytes]:
    """Run zero-argument jobs on every core (forked workers inherit them), in order."""
    cores = os.cpu_count() or 1
    if len(jobs) < minimum or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [job() for job in jobs]
    global _JOBS
    _JOBS = list(jobs)
    try:
        with multiprocessing.get_context("fork").Pool(cores, initializer=_leave_ctrl_c) as pool:
            return pool.map(_run, range(len(jobs)), chunksize=max(1, len(jobs) // (cores * 8)))
    finally:
        _JOBS = []
