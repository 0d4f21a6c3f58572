"""The render cache's pack: entries are read from it only when asked for (a large pack entry by
entry), a damaged entry is a miss, and compacting keeps the live entries this build did not
read."""

from __future__ import annotations

import marshal
import os
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.backends import rendercache
from compiler.backends.rendercache import (
    AGE_LIMIT,
    INDEX_HEAD,
    INDEX_MAGIC,
    PACK_HEAD,
    PACK_MAGIC,
    RenderCache,
)
from tests.conftest import DIES_WITH_PARENT, stderr_of_a_killed_build


@pytest.fixture(autouse=True, params=["read whole", "read by entry"])
def reading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test with a small pack read whole at its first read, and with every pack read
    entry by entry."""
    if request.param == "read by entry":
        monkeypatch.setattr(rendercache, "SMALL_PACK", 0)
    else:
        monkeypatch.setattr(rendercache, "WHOLE_AFTER", 0)


def saved(pack: Path, entries: dict[str, bytes]) -> None:
    cache = RenderCache(pack)
    for key, data in entries.items():
        cache.put(key, data)
    cache.save()


def test_opening_reads_no_entry_and_a_get_reads_one(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"alpha" * 100, "b": b"beta" * 100, "c": b"gamma"})
    cache = RenderCache(pack)
    assert cache.memory == {}
    assert cache.get("b") == b"beta" * 100
    assert set(cache.memory) == {"b"}
    assert cache.get("c") == b"gamma"
    assert cache.get("missing") is None
    assert (cache.hits, cache.misses) == (2, 0)


def test_a_damaged_entry_is_a_miss_and_the_others_are_served(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"A" * 64, "b": b"B" * 64, "c": b"C" * 64})
    data = bytearray(pack.read_bytes())
    data[PACK_HEAD + 64 + 10] ^= 0xFF  # inside b's bytes: its CRC no longer matches
    pack.write_bytes(bytes(data))
    cache = RenderCache(pack)
    assert cache.get("b") is None
    assert cache.get("a") == b"A" * 64
    assert cache.get("c") == b"C" * 64


def test_a_truncated_pack_serves_what_is_whole(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"A" * 64, "b": b"B" * 64})
    pack.write_bytes(pack.read_bytes()[:100])  # b cut short
    cache = RenderCache(pack)
    assert cache.get("a") == b"A" * 64
    assert cache.get("b") is None


def test_compacting_keeps_live_entries_this_build_did_not_read(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    big = bytes(range(256)) * 8192  # 2 MiB that goes unused until it is dropped
    saved(pack, {"kept": b"K" * 1000, "big": big})
    later = b"L" * 1000
    for build in range(AGE_LIMIT + 1):
        cache = RenderCache(pack)
        assert cache.get("kept") == b"K" * 1000
        if build == 2:
            cache.put("later", later)  # then unused, but young when "big" is dropped
        cache.save()
    assert pack.stat().st_size < 10_000  # rewritten without "big"
    cache = RenderCache(pack)
    assert cache.get("big") is None
    assert cache.get("later") == later
    assert cache.get("kept") == b"K" * 1000


def test_an_unchanged_build_leaves_the_pack_and_index_alone(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"A" * 64})
    index = pack.with_name("faces.pack.index")
    before = (pack.stat().st_mtime_ns, index.stat().st_mtime_ns)
    cache = RenderCache(pack)
    assert cache.get("a") == b"A" * 64
    cache.save()
    assert (pack.stat().st_mtime_ns, index.stat().st_mtime_ns) == before


def pack_id(pack: Path) -> bytes:
    """The name a pack's header gives it (its index's base repeats it)."""
    return pack.read_bytes()[len(PACK_MAGIC) : PACK_HEAD]


def entries_base(entries: dict[str, tuple[int, int, int]]) -> rendercache.Change:
    """A base holding `entries` (key → offset, length, CRC-32), each used by the last build."""
    keys = tuple(entries)
    offsets, lengths, crcs = (
        array("Q", (entry[column] for entry in entries.values())).tobytes() for column in range(3)
    )
    return (keys, offsets, lengths, crcs, (), {}, (), 1, sum(e[1] for e in entries.values()))


def marshalled_index(base: Any) -> bytes:
    """An index with our head and `base`, whatever its shape."""
    payload = marshal.dumps(base)
    return INDEX_HEAD.pack(INDEX_MAGIC, len(payload), zlib.crc32(payload)) + payload


def changed(change: rendercache.Change, part: int, value: object) -> tuple[object, ...]:
    """`change` with one of its parts replaced."""
    return (*change[:part], value, *change[part + 1 :])


SPOILT: dict[str, Callable[[bytes, rendercache.Change], Any]] = {
    "dict": lambda name, change: {"a": (0, 4, 0, 0)},  # the shape of an earlier index
    "name-text": lambda name, change: (name.hex(), change),
    "name-short": lambda name, change: (name[:8], change),
    "no-name": lambda name, change: change,
    "short": lambda name, change: (name, change[:8]),
    "keys-text": lambda name, change: (name, changed(change, 0, "a")),
    "int-key": lambda name, change: (name, changed(change, 0, (1,))),
    "no-offsets": lambda name, change: (name, changed(change, 1, b"")),
    "offsets-list": lambda name, change: (name, changed(change, 1, [change[1]])),
    "long-lengths": lambda name, change: (name, changed(change, 2, b"\0" * 16)),
    "dropped-int": lambda name, change: (name, changed(change, 4, (1,))),
    "unused-list": lambda name, change: (name, changed(change, 5, [("a", 1)])),
    "age-text": lambda name, change: (name, changed(change, 5, {"a": "1"})),
    "reused-list": lambda name, change: (name, changed(change, 6, ["a"])),
    "build-float": lambda name, change: (name, changed(change, 7, 1.0)),
    "live-text": lambda name, change: (name, changed(change, 8, "4")),
}
"""Bases of another shape than `_write_index` writes, each from the pack's name and a
well-formed change."""


@pytest.mark.parametrize("spoil", SPOILT.values(), ids=SPOILT.keys())
def test_an_index_of_another_shape_is_an_empty_cache(
    tmp_path: Path, spoil: Callable[[bytes, rendercache.Change], Any]
) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    base = entries_base({"a": (PACK_HEAD, 4, zlib.crc32(b"AAAA"))})
    spoilt = spoil(pack_id(pack), base)
    index = marshal.dumps(spoilt) if type(spoilt) is dict else marshalled_index(spoilt)
    pack.with_name("faces.pack.index").write_bytes(index)
    cache = RenderCache(pack)
    assert cache.index == {}
    assert cache.get("a") is None
    cache.put("b", b"BB")
    cache.save()  # and the next build's index is whole again
    assert RenderCache(pack).get("b") == b"BB"


def test_the_well_formed_base_of_these_tests_is_read(tmp_path: Path) -> None:
    """The bases above differ from one that is read in the one part named."""
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    base = entries_base({"a": (PACK_HEAD, 4, zlib.crc32(b"AAAA"))})
    pack.with_name("faces.pack.index").write_bytes(marshalled_index((pack_id(pack), base)))
    assert RenderCache(pack).get("a") == b"AAAA"


def test_an_entry_past_the_end_of_the_pack_is_a_miss(tmp_path: Path) -> None:
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    entries = {"a": (PACK_HEAD, 4, zlib.crc32(b"AAAA")), "huge": (0, 1 << 40, 0)}
    index = rendercache._index_bytes(pack_id(pack), entries_base(entries))
    pack.with_name("faces.pack.index").write_bytes(index)
    cache = RenderCache(pack)
    assert cache.get("huge") is None  # no read of a terabyte
    assert cache.get("a") == b"AAAA"


def test_an_index_read_against_another_pack_is_an_empty_cache(tmp_path: Path) -> None:
    """A pack written whole again (compacted) under an index of the pack before it (the build
    interrupted between the two): no entry is served, not even one whose bytes would match."""
    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    index = pack.with_name("faces.pack.index")
    old_index = index.read_bytes()
    cache = RenderCache(pack)
    cache.get("a")
    cache._rewrite([])  # the same entry, at the same place, in a pack of another name
    index.write_bytes(old_index)
    assert RenderCache(pack).index == {}


WORKERS_OF_A_KILLED_BUILD = """
import os, time
from compiler.backends.rendercache import parallel_map

def job() -> bytes:
    os.write(1, b"job\\n")  # one write: the workers' lines do not mix
    time.sleep(300)
    return b"drawn"

print("drawing", flush=True)
parallel_map([job] * 4, minimum=1)
"""


@DIES_WITH_PARENT
def test_the_workers_of_a_killed_build_end_with_it_silently() -> None:
    """A build killed (SIGKILL) while its workers draw: the workers end with it, and none
    prints a traceback about the pipe to a parent that is gone (they used to finish their
    jobs, then print one each; a worker still drawing holds the build's stderr open, and the
    wait times out)."""
    assert stderr_of_a_killed_build(WORKERS_OF_A_KILLED_BUILD, drawing=2) == b""


@pytest.mark.parametrize(
    ("read_first", "put", "kept"),
    [
        (True, b"new" * 50, b"new" * 50),
        (False, b"new" * 50, b"new" * 50),
        (False, b"old" * 50, b"old" * 50),
    ],
    ids=[
        "read, then put back changed: saved",
        "put unread, changed: saved (the next build reads the new bytes)",
        "put unread, the same: the kept entry stays",
    ],
)
def test_an_entry_put_back_changed_is_saved_in_its_place(
    tmp_path: Path, read_first: bool, put: bytes, kept: bytes
) -> None:
    pack = tmp_path / "charts.pack"
    saved(pack, {"page": b"old" * 50, "other": b"x" * 10})
    cache = RenderCache(pack)
    if read_first:
        assert cache.get("page") == b"old" * 50
    cache.put("page", put)
    cache.get("other")
    cache.save()
    again = RenderCache(pack)
    assert again.get("page") == kept
    assert again.get("other") == b"x" * 10


def test_compacting_moves_unread_entries_and_a_damaged_one_stays_a_miss(tmp_path: Path) -> None:
    """Compacting copies the entries this build did not read as they lie in the old pack (the
    kernel's copy, the index's CRC-32): their bytes are served after it, and one damaged in
    the old pack is still a miss (never served, never a traceback), then drawn again."""
    pack = tmp_path / "faces.pack"
    entries = {f"e{n}": bytes([n]) * (100 + n) for n in range(8)}
    saved(pack, entries)
    data = bytearray(pack.read_bytes())
    data[PACK_HEAD + 100 + 101 + 5] ^= 0xFF  # inside e2's bytes
    pack.write_bytes(bytes(data))
    cache = RenderCache(pack)
    assert cache.get("e0") == entries["e0"]
    cache.put("new", b"N" * 50)
    cache._rewrite(["new"])
    assert pack.stat().st_size == PACK_HEAD + sum(map(len, entries.values())) + 50
    again = RenderCache(pack)
    assert again.get("e2") is None
    assert again.fetch("e2", lambda: entries["e2"]) == entries["e2"]
    for key, value in entries.items():
        assert again.get(key) == value
    assert again.get("new") == b"N" * 50


def small_pack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole_after: int, count: int
) -> tuple[RenderCache, Path, dict[str, bytes]]:
    """A small pack of `count` entries, opened to be read whole after `whole_after` gets."""
    monkeypatch.setattr(rendercache, "WHOLE_AFTER", whole_after)
    monkeypatch.setattr(rendercache, "SMALL_PACK", 4 << 20)
    pack = tmp_path / "faces.pack"
    entries = {f"k{n}": f"entry {n} ".encode() * (n + 1) for n in range(count)}
    saved(pack, entries)
    return RenderCache(pack), pack, entries


def test_a_small_pack_is_read_whole_only_once_many_entries_were_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening reads no entry; a warm build that asks for a few reads those; past WHOLE_AFTER
    the small pack is read at once, and serves every entry as it was."""
    cache, pack, entries = small_pack(tmp_path, monkeypatch, whole_after=8, count=20)
    assert cache._whole is None
    for n in range(8):
        assert cache.get(f"k{n}") == entries[f"k{n}"]
    assert cache._whole is None
    assert cache.get("k8") == entries["k8"]
    assert cache._whole is not None and len(cache._whole) == pack.stat().st_size
    assert all(cache.get(key) == data for key, data in entries.items())


def test_a_pack_that_cannot_be_read_whole_is_tried_once_then_read_by_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole read that comes back short (the pack cut while the build reads it) is not
    tried again at every later get: the entries are read one by one, as they were."""
    cache, pack, entries = small_pack(tmp_path, monkeypatch, whole_after=2, count=10)
    whole_reads: list[int] = []
    real_pread = os.pread

    def pread(fd: int, length: int, offset: int) -> bytes:
        if length == cache.size:
            whole_reads.append(length)
            return real_pread(fd, length, offset)[:-1]  # one byte short
        return real_pread(fd, length, offset)

    monkeypatch.setattr(os, "pread", pread)
    assert all(cache.get(key) == data for key, data in entries.items())
    assert cache._whole is None
    assert len(whole_reads) == 1
