"""The render cache's index as a base and a journal: a build that changed little writes little
(its entries at the end of the pack, one small record at the end of the index), what is read
back is what was saved, ages and dropping work over many builds, and an index cut short or
damaged anywhere serves no wrong entry (a record not whole reads as the save before it)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from pathlib import Path

import pytest

from compiler.backends import rendercache
from compiler.backends.rendercache import AGE_LIMIT, INDEX_HEAD, RECORD, RenderCache

KEY = "5a37e65e1c881bf8b2f6613933814577:face:svg:64:en:"
"""The start of the keys below (faces' keys are about this long)."""


def key(number: int) -> str:
    return f"{KEY}{number:064x}"


def data(number: int) -> bytes:
    return f"entry {number} ".encode() * (number % 7 + 3)


def build(pack: Path, use: Iterable[int] = (), put: Iterable[int] = ()) -> RenderCache:
    """One build: the entries `use` read (made when missing) or counted as used, those `put`
    made; saved."""
    cache = RenderCache(pack)
    used = list(use)
    for number in used[::2]:
        assert cache.fetch(key(number), partial(data, number)) == data(number)
    cache.keep(key(number) for number in used[1::2])
    for number in put:
        cache.put(key(number), data(number))
    cache.save()
    return cache


def index_of(pack: Path) -> Path:
    return pack.with_name(pack.name + ".index")


def base_end(index: bytes) -> int:
    return INDEX_HEAD.size + int(INDEX_HEAD.unpack_from(index)[1])


def records(index: bytes) -> list[tuple[int, int]]:
    """(start, end) of each record of an index's journal."""
    found = []
    at = base_end(index)
    while at < len(index):
        length = RECORD.unpack_from(index, at)[0]
        found.append((at, at + RECORD.size + length))
        at += RECORD.size + length
    return found


def served(pack: Path, numbers: Iterable[int]) -> set[int]:
    """The entries a cache opened now serves, each checked to be its own bytes."""
    cache = RenderCache(pack)
    found = set()
    for number in numbers:
        entry = cache.get(key(number))
        assert entry in (None, data(number)), f"entry {number} served wrong bytes"
        if entry is not None:
            found.add(number)
    return found


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A pack of 2,000 entries, saved by a cold build."""
    pack = tmp_path / "faces.pack"
    build(pack, put=range(2000))
    return pack


def test_a_build_with_one_new_entry_appends_it_and_a_small_record(pack: Path) -> None:
    index = index_of(pack)
    before_pack, before_index = pack.read_bytes(), index.read_bytes()
    build(pack, use=range(2000), put=[2000])
    after_pack, after_index = pack.read_bytes(), index.read_bytes()
    assert after_pack == before_pack + data(2000)
    assert after_index.startswith(before_index)  # the base and journal left as they were
    assert len(after_index) - len(before_index) < 400  # the record: one key, no age
    assert served(pack, range(2001)) == set(range(2001))


def test_a_build_that_changed_nothing_writes_nothing(pack: Path) -> None:
    build(pack, use=range(2000), put=[2000])
    stamps = [(path.stat().st_size, path.stat().st_mtime_ns) for path in (pack, index_of(pack))]
    build(pack, use=range(2001))
    assert [(path.stat().st_size, path.stat().st_mtime_ns) for path in (pack, index_of(pack))] == (
        stamps
    )


def test_entries_unused_build_after_build_are_written_once_then_dropped(pack: Path) -> None:
    """An entry unused by a build is named in that build's record, not again in the next
    ones; it is served until it has been unused for AGE_LIMIT builds, then dropped."""
    index = index_of(pack)
    unused = range(1990, 2000)
    for round_no in range(AGE_LIMIT + 1):
        before = index.read_bytes()
        build(pack, use=range(1990), put=[3000 + round_no])
        written = index.read_bytes()[len(before) :]
        assert index.read_bytes().startswith(before)
        named = [number for number in unused if key(number).encode() in written]
        if round_no == 0:
            assert named == list(unused)  # unused from now on, since the build before
        elif round_no < AGE_LIMIT:
            assert named == []  # still unused: nothing to write about them
            assert len(written) < 400
        else:
            assert named == list(unused)  # dropped
        assert served(pack, unused) == (set(unused) if round_no < AGE_LIMIT else set())
    assert served(pack, range(1990)) == set(range(1990))
    news = range(3000, 3000 + AGE_LIMIT + 1)
    assert served(pack, news) == set(news)


def test_an_entry_used_again_is_young_again(pack: Path) -> None:
    """Unused for AGE_LIMIT - 1 builds, used once, then unused again: it stays as many builds
    more before it is dropped (ages read back from the journal, build after build)."""
    for _round in range(AGE_LIMIT - 1):
        build(pack, use=range(1999), put=[])
    build(pack, use=range(2000))
    for round_no in range(AGE_LIMIT + 1):
        assert served(pack, [1999]) == {1999}
        build(pack, use=range(1999))
        assert served(pack, [1999]) == ({1999} if round_no < AGE_LIMIT else set())


def test_ages_read_back_match_a_cache_kept_open(tmp_path: Path) -> None:
    """Builds that each use a different part of the entries: what is served after them is
    the same whether the cache is read back from disk each build (base and journal) or not
    (the pack compacted now and then, the journal folded into the base)."""
    pack = tmp_path / "faces.pack"
    build(pack, put=range(300))
    alive = set(range(300))
    last_used = dict.fromkeys(alive, 0)
    for round_no in range(1, 16):
        use = [n for n in sorted(alive) if n % (round_no % 4 + 2) == 0]
        put = range(300 + 20 * round_no, 320 + 20 * round_no)
        build(pack, use=use, put=put)
        last_used.update(dict.fromkeys([*use, *put], round_no))
        alive = {n for n, last in last_used.items() if round_no - last <= AGE_LIMIT}
        assert served(pack, range(700)) == alive, f"round {round_no}"


def test_the_journal_is_folded_into_the_base_when_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rendercache, "FOLD_AT_LEAST", 0)  # folded at half the base's size
    pack = tmp_path / "faces.pack"
    build(pack, put=range(100))
    lengths = []
    for round_no in range(1, 20):
        build(pack, use=range(100 * round_no), put=range(100 * round_no, 100 * round_no + 100))
        lengths.append(len(records(index_of(pack).read_bytes())))
    assert 0 in lengths  # folded, at least once
    assert max(lengths) > 3  # after journals of several records
    assert served(pack, range(2100)) == set(range(2000))


def saves_with_records(pack: Path) -> tuple[bytes, list[tuple[int, int]]]:
    """The index after three builds, each adding one entry (2000, 2001, 2002)."""
    for number in (2000, 2001, 2002):
        build(pack, use=range(number), put=[number])
    index = index_of(pack).read_bytes()
    assert len(records(index)) == 3
    return index, records(index)


def test_an_index_cut_short_reads_as_a_save_before(pack: Path) -> None:
    """Cut anywhere in its journal (a build interrupted while writing its record): the
    entries of the whole records are served, not those of the record cut; the next build
    writes an index that reads back whole."""
    index, spans = saves_with_records(pack)
    for cut in range(base_end(index), len(index), 7):
        index_of(pack).write_bytes(index[:cut])
        whole = sum(1 for _start, end in spans if end <= cut)
        assert served(pack, range(2003)) == set(range(2000 + whole)), f"cut at {cut}"
    index_of(pack).write_bytes(index[: spans[1][0] + 5])
    build(pack, use=range(2001), put=[2005])
    assert served(pack, [*range(2001), 2005]) == {*range(2001), 2005}


def test_a_damaged_record_reads_as_the_save_before_it(pack: Path) -> None:
    index, spans = saves_with_records(pack)
    for number, (start, end) in enumerate(spans):
        for at in range(start, end, 3):
            damaged = bytearray(index)
            damaged[at] ^= 0x55
            index_of(pack).write_bytes(bytes(damaged))
            assert served(pack, range(2003)) == set(range(2000 + number)), f"byte {at}"


def test_a_damaged_base_is_an_empty_cache(tmp_path: Path) -> None:
    """A byte changed anywhere in the index's head or base: no traceback, no entry served
    (the base is checked whole before it is read), and a build after it saves a cache that
    reads back whole."""
    pack = tmp_path / "faces.pack"
    build(pack, put=range(40))
    index = index_of(pack).read_bytes()
    for at in [*range(INDEX_HEAD.size + 8), *range(INDEX_HEAD.size + 8, len(index), 13)]:
        damaged = bytearray(index)
        damaged[at] ^= 0x21
        index_of(pack).write_bytes(bytes(damaged))
        assert served(pack, range(40)) == set(), f"byte {at}"
        cache = RenderCache(pack)
        for number in range(41):
            assert cache.fetch(key(number), partial(data, number)) == data(number)
        cache.save()
        assert served(pack, range(41)) == set(range(41))
        index_of(pack).write_bytes(index)


def test_entries_appended_without_their_record_are_not_served(pack: Path) -> None:
    """A build interrupted after appending its entries, before its record: the pack's new
    end is no entry; the next build appends after it."""
    with pack.open("ab") as handle:
        handle.write(data(2000))
    assert served(pack, range(2001)) == set(range(2000))
    build(pack, use=range(2000), put=[2001])
    assert served(pack, range(2002)) == set(range(2000)) | {2001}


def test_an_index_replaced_by_another_build_is_written_whole(pack: Path) -> None:
    """The index on disk is not the one this cache read (written whole meanwhile): the
    record is not appended to it, the index is written whole."""
    cache = RenderCache(pack)
    for number in range(2000):
        cache.get(key(number))
    cache.put(key(2000), data(2000))
    other = index_of(pack).read_bytes()
    index_of(pack).write_bytes(other + b"\0" * 3)
    cache.save()
    assert records(index_of(pack).read_bytes()) == []
    assert served(pack, range(2001)) == set(range(2001))


def test_a_missing_index_is_an_empty_cache_and_the_next_save_writes_both(pack: Path) -> None:
    os.remove(index_of(pack))
    assert served(pack, range(2000)) == set()
    build(pack, put=[1])
    assert served(pack, range(2000)) == {1}
    assert pack.stat().st_size < 1000  # written whole: only the entry this build made


def test_a_build_that_drops_most_entries_folds_the_index(pack: Path) -> None:
    """Most entries unused until they are dropped (a cold build's forms that warm builds do
    not ask for), the index folded meanwhile: the build that drops them writes the index
    whole, which then names only the entries kept (every later build read them all from
    the base and dropped them again from the journal)."""
    build(pack, use=range(900))
    RenderCache(pack)._write_index()  # folded while they are unused: the base names them
    for _round in range(AGE_LIMIT):
        build(pack, use=range(900))
    index = index_of(pack).read_bytes()
    assert records(index) == []
    assert served(pack, range(2000)) == set(range(900))
    assert len(index) < 900 * (len(key(0)) + 40)


def test_a_journal_that_drops_many_entries_is_folded(pack: Path) -> None:
    """Records that drop more than one in FOLD_DROPPED of the entries indexed: the index is
    written whole, naming only the entries kept (its base named them all, read and dropped
    again by every build that opened it); what it serves is unchanged."""
    build(pack, use=range(1400))
    RenderCache(pack)._write_index()
    for _round in range(AGE_LIMIT):
        build(pack, use=range(1400))
    index = index_of(pack).read_bytes()
    assert records(index) == []  # 600 of 2,000 dropped: folded
    assert served(pack, range(2000)) == set(range(1400))
    assert len(index) < 1400 * (len(key(0)) + 40)
    cache = RenderCache(pack)
    assert cache._journal_drops == 0


def test_keeping_keys_of_no_entry_makes_none_and_ages_nothing(pack: Path) -> None:
    """keep() counts what it is given as used without looking the keys up: keys of no entry
    are no entries after the save, and the entries kept stay young as those read do."""
    for _round in range(AGE_LIMIT + 1):
        cache = RenderCache(pack)
        cache.keep([key(n) for n in range(1000)] + [key(n) for n in range(5000, 5100)])
        cache.save()
    assert served(pack, range(6000)) == set(range(1000))
    assert not RenderCache(pack).holds(key(5000))
