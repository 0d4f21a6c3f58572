"""A content-addressed cache of rendered faces (PNGs, PDF forms), and rendering on every core.

A face's cache key is a hash of everything that decides how it looks — the records it is drawn
from (see art.identity), its size and language — plus a fingerprint of the renderer's own
source, so changing the art code invalidates the cache by itself. The cache is a pack file
(the entries back to back) with an index, each read with one read: a warm build opens two
files instead of thousands, and appends only what it drew and a record of what changed (see
RenderCache). Entries unused for AGE_LIMIT builds are dropped. An unchanged counter is never
drawn again; encoding is deterministic, so outputs stay byte-identical.
"""

from __future__ import annotations

import hashlib
import marshal
import mmap
import os
import signal
import struct
import sys
import weakref
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import cast

from compiler.backends.art.fonts import ALL_FONTS, MissingFont, font_path
from compiler.backends.keptrecord import all_of_type
from compiler.resources import shipped_layout_files

ART_SOURCES = Path(__file__).parent / "art"
PDF_SOURCES = Path(__file__).parent / "pdf"
AGE_LIMIT = 4
"""Builds an entry may go unused before it leaves the pack."""
SMALL_PACK = 4 << 20
"""A pack this small is read whole once a build has asked for more than WHOLE_AFTER of its
entries; a larger one entry by entry, when asked."""
WHOLE_AFTER = 64
"""Entries read one by one from a small pack before it is read whole: a warm build, which
asks for a few, does not read megabytes of entries it does not use (a game of 500 counters
read 14 MB of small packs at every opening: 7 ms of its 10 caches' 9.5)."""
FOLD_AT_LEAST = 64 << 10
"""Bytes an index's journal may reach, however small its base, before it is folded in."""
FOLD_DROPPED = 4
"""An index's journal is folded in once the entries its records drop are more than one in
this many of those indexed: each build that opens it reads the base's keys, then drops them
again (a large game's faces: a base of 25,700 keys, half of them dropped by one record,
opened in 29 ms by every build instead of 12)."""
PACK_ID = 16
PACK_MAGIC = b"cmxpack2"
PACK_HEAD = len(PACK_MAGIC) + PACK_ID
"""A pack starts with its magic and its own name (random bytes, new each time it is written
whole), which its index's base repeats: an index is never read against another pack."""
INDEX_MAGIC = b"cmxidx2" + sys.byteorder[0].encode()
INDEX_HEAD = struct.Struct("<8sQI")
"""An index starts with its magic (the byte order of its numbers included), its base's length
and CRC-32 (damaged data is never unmarshalled: a damaged length in it could ask for gigabytes);
the base follows, then the journal's records."""
RECORD = struct.Struct("<II")
"""A journal record's head: its length and its CRC-32 (a record cut short is not read)."""
COLUMN = array("Q")
"""The type of the offsets, lengths and CRCs kept in an index: 8-byte numbers."""


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

    On disk: `<pack>` holds the entries back to back after a header naming it, and
    `<pack>.index` maps each key to where its bytes are (offset, length, CRC-32): a base, then a
    journal of the changes each build made since (see `_save_changes`). Opening a cache reads
    only the index, in passes that stay in C; an entry's bytes are read from the pack when it is
    asked for (a warm build of a large game reads the few hundred kilobytes it uses, not the
    whole pack). A build appends what it drew to the pack and one small record to the index;
    the journal is folded into a new base when it has grown to half the base's size, and the
    data compacted when more than half of it is entries no longer indexed.

    Ages: saves are numbered (`builds`); an entry the last build used is of age 0 and has no
    number of its own, the others keep the number of the build that last used them
    (`last_used`). A record holds only the entries whose state changed (unused for the first
    time, used again, dropped): a warm build, which uses almost every entry, writes almost no
    age, and an entry left unused build after build is not written again until it is dropped."""

    def __init__(self, pack: Path | None) -> None:
        self.pack = pack
        self.memory: dict[str, bytes] = {}
        """Entries read or made by this build."""
        self.index: dict[str, int] = {}
        """key → its slot in `_offsets`, `_lengths` and `_crcs`: an entry whose bytes do not
        match its CRC (the pack rewritten by another build meanwhile) is not served."""
        self.builds = 0
        """The number of the last build that saved this cache."""
        self.last_used: dict[str, int] = {}
        """For each indexed entry the last build did not use, the build that last used it."""
        self.live = 0
        """Bytes of the indexed entries (what compacting would keep)."""
        self.size = 0
        self.used: set[str] = set()
        self.new: list[str] = []
        self.hits = 0
        self.misses = 0
        self._offsets: array[int] = array("Q")
        self._lengths: array[int] = array("Q")
        self._crcs: array[int] = array("Q")
        self._lost: set[str] = set()
        """Indexed entries found damaged this build: dropped from the index when it is saved."""
        self._pack_id: bytes | None = None
        """The pack's own name, from its header and the index's base (None: no cache on disk
        that this one can add to; the next save writes both whole)."""
        self._base_end = 0
        self._index_end = 0
        """Where the index's base ends, and its journal: what follows is no record of ours."""
        self._journal_drops = 0
        """How many entries the journal's records drop (see FOLD_DROPPED)."""
        self._data: int | None = None
        """The pack, open for reading (entries are read at their offsets)."""
        self._close: Callable[[], object] | None = None
        self._whole: bytes | None = None
        """A small pack's bytes, read at once (many tiny entries: one read, not one each)
        once more than WHOLE_AFTER entries were read."""
        self._reads = 0
        """Entries read from the pack one by one."""
        if pack is not None:
            self._load(pack)

    def _index_path(self) -> Path:
        assert self.pack is not None
        return self.pack.with_name(self.pack.name + ".index")

    def _load(self, pack: Path) -> None:
        """Read the index and open the pack; a missing, damaged or mismatched index or pack is
        an empty cache."""
        try:
            data = memoryview(self._index_path().read_bytes())
            magic, length, crc = INDEX_HEAD.unpack_from(data)
            self._base_end = INDEX_HEAD.size + length
            base = data[INDEX_HEAD.size : self._base_end]
            if magic != INDEX_MAGIC or len(base) != length or zlib.crc32(base) != crc:
                raise ValueError("not an index")
            pack_id, change = _checked_base(marshal.loads(base))
            self._apply(change)
            self._index_end = self._replay(data, self._base_end)
            self._open_pack(pack, pack_id)
        except (OSError, EOFError, ValueError, TypeError, struct.error):
            self._empty()

    def _replay(self, index: memoryview, at: int) -> int:
        """Apply the journal's records from `at` on, up to the first that is not whole (a save
        interrupted while writing it: the cache reads as that save's build left it undone);
        where the last whole record ends."""
        while at + RECORD.size <= len(index):
            length, crc = RECORD.unpack_from(index, at)
            payload = index[at + RECORD.size : at + RECORD.size + length]
            if len(payload) != length or zlib.crc32(payload) != crc:
                break
            try:
                change = _checked_change(marshal.loads(payload))
            except (EOFError, ValueError, TypeError):
                break
            self._apply(change)
            self._journal_drops += len(change[4])
            at += RECORD.size + length
        return at

    def _apply(self, change: Change) -> None:
        """One base or record read back: its entries dropped, then its entries added (a key
        both dropped and added is the added one), its entries unused and used again, and the
        build and live bytes it ends with."""
        keys, offsets, lengths, crcs, dropped, unused, reused, build, live = change
        _pop_all(self.index, dropped)
        _pop_all(self.last_used, dropped)
        start = len(self._offsets)
        self._offsets.frombytes(offsets)
        self._lengths.frombytes(lengths)
        self._crcs.frombytes(crcs)
        self.index.update(zip(keys, range(start, start + len(keys)), strict=True))
        self.last_used.update(unused)
        _pop_all(self.last_used, reused)
        self.builds, self.live = build, live

    def _open_pack(self, pack: Path, pack_id: bytes) -> None:
        """Open the pack for reading, when it is the one the index was written for (its header
        names it)."""
        handle = os.open(pack, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        close = weakref.finalize(self, os.close, handle)
        size = os.fstat(handle).st_size
        if os.pread(handle, PACK_HEAD, 0) != PACK_MAGIC + pack_id:
            close()
            raise ValueError("not the pack of this index")
        self._data, self._close, self.size, self._whole = handle, close, size, None
        self._pack_id, self._reads = pack_id, 0

    def _empty(self) -> None:
        """No cache on disk to add to: every entry is made again, and saved whole."""
        self.index, self.last_used, self.builds, self.live, self.size = {}, {}, 0, 0, 0
        self._offsets, self._lengths, self._crcs = array("Q"), array("Q"), array("Q")
        self._pack_id, self._base_end, self._index_end = None, 0, 0
        self._journal_drops = 0

    def _read(self, key: str) -> bytes | None:
        """An indexed entry's bytes from the pack, when they are whole and match their CRC
        (else the entry is forgotten: a miss)."""
        slot = self.index[key]
        start, length, crc = self._offsets[slot], self._lengths[slot], self._crcs[slot]
        entry = b""
        if start + length > self.size:
            pass  # beyond the pack's end: not this pack's entry
        elif self._whole is not None or self._read_whole():
            assert self._whole is not None
            entry = self._whole[start : start + length]
        elif self._data is not None:
            try:
                entry = os.pread(self._data, length, start)
            except OSError:
                pass
        if len(entry) != length or zlib.crc32(entry) != crc:
            self._forget([key])  # rewritten under us (another build, an interrupted one)
            self._lost.add(key)
            return None
        self.memory[key] = entry
        return entry

    def _read_whole(self) -> bool:
        """Whether the pack is now read whole: a small one, once more than WHOLE_AFTER of its
        entries were asked for (see SMALL_PACK)."""
        self._reads += 1
        if self._reads <= WHOLE_AFTER or self.size > SMALL_PACK or self._data is None:
            return False
        self._reads = -sys.maxsize  # one try a build: a pack that fails it is read by entry
        try:
            whole = os.pread(self._data, self.size, 0)
        except OSError:
            return False
        if len(whole) != self.size:
            return False
        self._whole = whole
        return True

    def _forget(self, keys: Iterable[str]) -> None:
        """Drop indexed entries (their bytes stay in the pack until it is compacted)."""
        for key in keys:
            self.live -= self._lengths[self.index.pop(key)]
            self.last_used.pop(key, None)

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
        that stands for them does). A key of no entry counted too is never asked about: ages
        are those of the indexed keys not used (see `save`). One pass in C over the keys, not
        a set of them intersected with the index and the memory (15,000 keys: 1 ms, not 11).
        """
        self.used.update(keys)

    def fetch(self, key: str, make: Callable[[], bytes]) -> bytes:
        """The bytes under `key`; made (here, on this core) and kept when missing."""
        found = self.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found

    def put(self, key: str, data: bytes) -> None:
        """Keep `data` under `key` for this build and the next (saved by `save`). An entry
        this build read and now puts back changed (a kept page that failed to replay, kept
        again) is saved too, in place of the old one; so is one in the pack this build had
        not read, when its bytes there are not `data` (read to compare: left as it was, the next
        build would have read the old bytes)."""
        if key not in self.memory and key in self.index:
            self._read(key)  # in memory when whole; forgotten (a miss) when damaged
        if self.memory.get(key) != data:
            self.new.append(key)
        self.memory[key] = data
        self.used.add(key)
        self.misses += 1

    def save(self) -> None:
        """Append what this build drew, age what it did not use, drop what is too old: on disk,
        what changed (see `_save_changes`), or the pack and its index whole when there is no
        cache to add to or the pack is more than half dead entries."""
        if self.pack is None:
            return
        new = [key for key in dict.fromkeys(self.new) if key in self.memory]
        unused = self.index.keys() - self.used
        if not new and not unused and not self.last_used and not self._lost:
            return  # every entry used, as by the last build, none new: nothing to write
        build = self.builds + 1
        newly = dict.fromkeys(unused - self.last_used.keys(), self.builds)
        reused = self.last_used.keys() - unused
        self.last_used.update(newly)
        for key in reused:
            del self.last_used[key]
        dropped = [key for key, last in self.last_used.items() if build - last > AGE_LIMIT]
        self._forget(dropped)
        self.builds = build
        drawn = sum(len(self.memory[key]) for key in new)
        replaced = sum(self._lengths[self.index[key]] for key in new if key in self.index)
        live = self.live + drawn - replaced
        if self._pack_id is None or self.size + drawn > 2 * live + (1 << 20):
            self._rewrite(new)
        else:
            self._save_changes(new, [*dropped, *self._lost], newly, tuple(reused))
        self.new, self.used, self._lost = [], set(), set()

    def _save_changes(
        self, new: list[str], dropped: list[str], unused: dict[str, int], reused: tuple[str, ...]
    ) -> None:
        """The new entries at the end of the pack; then one record at the end of the index's
        journal: the entries added and dropped, those unused for the first time (with the
        build that last used them) and those used again, the build's number and the live
        bytes. Written after the entries it names, and read back only when whole: an
        interrupted save reads as the one before."""
        assert self.pack is not None
        columns = (array("Q"), array("Q"), array("Q"))
        with self.pack.open("ab") as handle:
            offset = handle.tell()
            for key in new:
                data = self.memory[key]
                handle.write(data)
                entry = (offset, len(data), zlib.crc32(data))
                self._index_entry(key, entry)
                for column, value in zip(columns, entry, strict=True):
                    column.append(value)
                offset += len(data)
        self.size = offset
        offsets, lengths, crcs = (column.tobytes() for column in columns)
        added = (tuple(new), offsets, lengths, crcs)
        change = (*added, tuple(dropped), unused, reused, self.builds, self.live)
        # dropping many of the entries: the base names them, read and dropped again by every
        # build that opens the cache (16,000 forms of a cold build): see FOLD_DROPPED
        self._journal_drops += len(dropped)
        fold = self._journal_drops * FOLD_DROPPED > len(self.index)
        self._append_record(marshal.dumps(change), fold=fold)

    def _index_entry(self, key: str, entry: tuple[int, int, int]) -> None:
        """Index an entry written to the pack at (offset, length, CRC-32), in place of the one
        under its key if any."""
        if key in self.index:
            self._forget([key])
        self.index[key] = len(self._offsets)
        for column, value in zip((self._offsets, self._lengths, self._crcs), entry, strict=True):
            column.append(value)
        self.live += entry[1]

    def _append_record(self, record: bytes, fold: bool = False) -> None:
        """Add a record to the index's journal; or, when the journal has grown to half the
        base (or the index on disk is not the one this cache read), or when told to `fold`,
        write the index whole."""
        frame = RECORD.pack(len(record), zlib.crc32(record)) + record
        journal = self._index_end - self._base_end + len(frame)
        if fold or journal > max(self._base_end // 2, FOLD_AT_LEAST):
            self._write_index()
            return
        with self._index_path().open("ab") as handle:
            if handle.tell() == self._index_end:
                handle.write(frame)
                self._index_end += len(frame)
                return
        self._write_index()  # a torn record at its end, or not the index read: written whole

    def _rewrite(self, new: list[str]) -> None:
        """The pack with only the live entries under a new name, and its index. The entries
        this build did not draw are moved as they lie in the old pack, runs of neighbours
        copied by the kernel with the CRC-32 the index holds (not read through Python, nor
        checked: a damaged one stays damaged, a miss when read, as it was); what this build
        drew follows. (A large game's 117 MB of chart parts were read entry by entry, joined
        and written: 0.5-0.8 s of the build that compacted.)"""
        assert self.pack is not None
        self.pack.parent.mkdir(parents=True, exist_ok=True)
        fresh = [key for key in dict.fromkeys(new) if key in self.memory]
        pack_id = os.urandom(PACK_ID)
        moved = self._moved(set(fresh))
        self.index, self.live = {}, 0
        self._offsets, self._lengths, self._crcs = array("Q"), array("Q"), array("Q")
        offset = PACK_HEAD
        for key, _start, length, crc in moved:
            self._index_entry(key, (offset, length, crc))
            offset += length
        drawn = [self.memory[key] for key in fresh]
        for key, data in zip(fresh, drawn, strict=True):
            self._index_entry(key, (offset, len(data), zlib.crc32(data)))
            offset += len(data)
        self._write_pack([PACK_MAGIC + pack_id], moved, drawn)
        self.last_used = {k: last for k, last in self.last_used.items() if k in self.index}
        self.size, self._pack_id = offset, pack_id
        self._reopen()
        self._write_index()

    def _moved(self, fresh: set[str]) -> list[tuple[str, int, int, int]]:
        """The indexed entries a compacted pack keeps from the old one (key, offset, length,
        CRC-32), in the old pack's order: those that lie within it, when it can be read."""
        if self._whole is None and self._data is None:
            return []
        offsets, lengths, crcs, size = self._offsets, self._lengths, self._crcs, self.size
        moved = [
            (key, offsets[slot], lengths[slot], crcs[slot])
            for key, slot in self.index.items()
            if key not in fresh and offsets[slot] + lengths[slot] <= size
        ]
        moved.sort(key=itemgetter(1))
        return moved

    def _write_pack(
        self, head: list[bytes], moved: list[tuple[str, int, int, int]], drawn: list[bytes]
    ) -> None:
        """Write the compacted pack over the old one: `head`, the `moved` entries' bytes
        (neighbours as one range of the old pack), then `drawn`."""
        from compiler.backends.files import FileRange, Part, write_parts_atomically

        assert self.pack is not None
        source = self._whole if self._whole is not None else self._mapped()
        view = memoryview(source) if source is not None else None
        parts: list[Part] = list(head)
        by_kernel = self._data if self._whole is None else None
        try:
            for start, end in _ranges(moved) if view is not None else ():
                assert view is not None
                if by_kernel is not None:  # a large pack's ranges: copied by the kernel
                    parts.append(FileRange(by_kernel, start, view[start:end]))
                else:
                    parts.append(view[start:end])
            parts.extend(drawn)
            write_parts_atomically(self.pack, parts)
        finally:
            for part in parts:
                if isinstance(part, FileRange):
                    part.data.release()
                elif isinstance(part, memoryview):
                    part.release()
            parts.clear()
            if view is not None:
                view.release()
            if isinstance(source, mmap.mmap):
                try:
                    source.close()
                except BufferError:  # a view still held (by an error's traceback): the GC's
                    pass

    def _mapped(self) -> mmap.mmap | None:
        """The open pack mapped for reading (None when it cannot be)."""
        if self._data is None or self.size == 0:
            return None
        try:
            return mmap.mmap(self._data, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None

    def _reopen(self) -> None:
        """After the pack was replaced: read from the new one."""
        assert self.pack is not None
        if self._close is not None:
            self._close()
        self._data, self._close, self._whole = None, None, None
        try:
            handle = os.open(self.pack, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return  # what was read stays in memory; nothing more is served
        self._data, self._close = handle, weakref.finalize(self, os.close, handle)

    def _write_index(self) -> None:
        """The index whole: a base of every entry (the journal folded in), replacing the old
        index at once."""
        assert self._pack_id is not None
        slots = list(self.index.values())
        offsets, lengths, crcs = (
            array("Q", map(column.__getitem__, slots)).tobytes()
            for column in (self._offsets, self._lengths, self._crcs)
        )
        added = (tuple(self.index), offsets, lengths, crcs)
        change = (*added, (), self.last_used, (), self.builds, self.live)
        index = _index_bytes(self._pack_id, change)
        _replace(self._index_path(), index)
        self._base_end = self._index_end = len(index)
        self._journal_drops = 0

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


Change = tuple[
    tuple[str, ...], bytes, bytes, bytes, tuple[str, ...], dict[str, int], tuple[str, ...], int, int
]
"""What an index's base or one of its journal's records holds: the keys added and their offsets,
lengths and CRC-32s (each an array of 8-byte numbers, as bytes), the keys dropped, the keys
unused (each with the build that last used it: `RenderCache.last_used`), the keys used again,
and the build's number and the live bytes after it."""


def _pop_all(found: dict[str, int], keys: Iterable[str]) -> None:
    """Remove the keys from `found` (those it holds), in a pass that stays in C."""
    deque(map(found.pop, keys, repeat(None)), maxlen=0)


def _ranges(moved: Sequence[tuple[str, int, int, int]]) -> list[tuple[int, int]]:
    """The (start, end) ranges of the old pack that entries in its order (key, offset,
    length, CRC-32) take, neighbours joined."""
    ranges: list[tuple[int, int]] = []
    for _key, start, length, _crc in moved:
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], start + length)
        else:
            ranges.append((start, start + length))
    return ranges


def _index_bytes(pack_id: bytes, base: Change) -> bytes:
    """An index with no journal: its head, then its base (the pack's name and every entry)."""
    payload = marshal.dumps((pack_id, base))
    return INDEX_HEAD.pack(INDEX_MAGIC, len(payload), zlib.crc32(payload)) + payload


def _checked_base(read: object) -> tuple[bytes, Change]:
    """An index's base read back, when it has the shape `_write_index` writes: the pack's name
    and a change. ValueError for any other shape."""
    if type(read) is not tuple or len(read) != 2:
        raise ValueError("not an index")
    pack_id, change = read
    if type(pack_id) is not bytes or len(pack_id) != PACK_ID:
        raise ValueError("not an index")
    return pack_id, _checked_change(change)


def _checked_change(read: object) -> Change:
    """A base's or a record's change read back, when it has the shape `Change` says (checked in
    passes that stay in C: a base holds tens of thousands of keys). An entry whose bytes lie
    outside the pack, or are not those it was written with, is a miss when read (`_read`).
    ValueError for any other shape."""
    if type(read) is not tuple or len(read) != 9:
        raise ValueError("not an index")
    keys, offsets, lengths, crcs, dropped, unused, reused, build, live = read
    columns = (offsets, lengths, crcs)
    if (
        not all_of_type((keys, dropped, reused), tuple)
        or not all_of_type(columns, bytes)
        or set(map(len, columns)) != {COLUMN.itemsize * len(keys)}
        or type(unused) is not dict
        or not all_of_type((build, live), int)
        or not all_of_type(keys, str)
        or not all_of_type(dropped, str)
        or not all_of_type(reused, str)
        or not all_of_type(unused, str)
        or not all_of_type(unused.values(), int)
    ):
        raise ValueError("not an index")
    return cast(Change, read)


def _replace(path: Path, data: bytes) -> None:
    """Write a file next to its target and rename it over the target."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


_JOBS: list[Callable[[], bytes]] = []


def _run(index: int) -> bytes:
    return _JOBS[index]()


PR_SET_PDEATHSIG = 1


def leave_ctrl_c(parent: int) -> None:
    """In a pool's worker: Ctrl-C is the parent's to handle (it ends the pool); a worker prints
    no traceback of its own. And it ends with its parent: a build killed (SIGKILL) while its
    workers drew left them to finish their jobs and print a traceback each about the broken
    pipe to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (elsewhere nothing is done); end now
    when the parent is gone already."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def parallel_map(jobs: Sequence[Callable[[], bytes]], minimum: int = 64) -> list[bytes]:
    """Run zero-argument jobs on every core (forked workers inherit them), in order."""
    cores = os.cpu_count() or 1
    if len(jobs) < minimum or cores < 2:
        return [job() for job in jobs]
    import multiprocessing  # here: with socket, selectors and threading, 5 ms at every start

    if "fork" not in multiprocessing.get_all_start_methods():
        return [job() for job in jobs]
    global _JOBS
    _JOBS = list(jobs)
    try:
        pool = multiprocessing.get_context("fork").Pool(
            cores, initializer=leave_ctrl_c, initargs=(os.getpid(),)
        )
        with pool:
            return pool.map(_run, range(len(jobs)), chunksize=max(1, len(jobs) // (cores * 8)))
    finally:
        _JOBS = []
