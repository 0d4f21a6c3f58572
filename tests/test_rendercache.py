"""The render cache's pack: entries are read from it only when asked for (a large pack entry by
entry), a damaged entry is a miss, and compacting keeps the live entries this build did not
read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.backends import rendercache
from compiler.backends.rendercache import AGE_LIMIT, RenderCache


@pytest.fixture(autouse=True, params=["read whole", "read by entry"])
def reading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test with a small pack read at once, and with every pack read entry by entry."""
    if request.param == "read by entry":
        monkeypatch.setattr(rendercache, "SMALL_PACK", 0)


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
    data[64 + 10] ^= 0xFF  # inside b's bytes: its CRC no longer matches
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


@pytest.mark.parametrize(
    "index",
    [
        [("a", (0, 4, 0, 0))],  # not a dict
        {"a": (0, 4, 0)},  # three numbers
        {"a": (0, 4, 0, "crc")},  # not a number
        {1: (0, 4, 0, 0)},  # not a text key
        {"a": (-4, 4, 0, 0)},  # negative
        {"a": [0, 4, 0, 0]},  # a list
    ],
    ids=["list", "short", "text", "key", "negative", "list-value"],
)
def test_an_index_of_another_shape_is_an_empty_cache(tmp_path: Path, index: Any) -> None:
    import marshal

    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    pack.with_name("faces.pack.index").write_bytes(marshal.dumps(index))
    cache = RenderCache(pack)
    assert cache.index == {}
    assert cache.get("a") is None
    cache.put("b", b"BB")
    cache.save()  # and the next build's index is whole again
    assert RenderCache(pack).get("b") == b"BB"


def test_an_entry_past_the_end_of_the_pack_is_a_miss(tmp_path: Path) -> None:
    import marshal
    import zlib

    pack = tmp_path / "faces.pack"
    saved(pack, {"a": b"AAAA"})
    index = {"a": (0, 4, 0, zlib.crc32(b"AAAA")), "huge": (0, 1 << 40, 0, 0)}
    pack.with_name("faces.pack.index").write_bytes(marshal.dumps(index))
    cache = RenderCache(pack)
    assert cache.get("huge") is None  # no read of a terabyte
    assert cache.get("a") == b"AAAA"
