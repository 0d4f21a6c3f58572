"""The loader with the records the last build kept (compiler.load.keptread): a warm load reads
again only the list items whose text changed, and gets what a load without the cache gets —
the same records, the same positions (every `loc` and `locs`), the same findings — whatever
the file holds; a planted or damaged cache file runs nothing and changes nothing."""

from __future__ import annotations

import dataclasses
import marshal
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.load import records
from compiler.load.game import load_game, read_file
from compiler.load.keptread import KEY_SIZE, KeptRecords, kept_path
from compiler.load.records import kept_chunk, pickled, read_kept, unpickled
from compiler.model import digests
from compiler.model.common import Text
from compiler.model.digests import content_digest, digest_of
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from compiler.resources import shipped_layout_files
from tests.conftest import DATA, SOURCES, every_field


def as_read(game: GameData | None) -> object:
    """Every field of a loaded game but where the loader's kept records are (GameData.sources,
    GameData.kept: a load with them has them, a load without has none)."""
    return every_field(None if game is None else dataclasses.replace(game, sources={}, kept=""))


GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def cache_folder(tmp_path: Path) -> Path:
    """A build's out folder with its .cache/ made (a check alone keeps nothing)."""
    out = tmp_path / "out"
    (out / ".cache").mkdir(parents=True)
    return out


@pytest.mark.parametrize("name", [*GAMES, "mini"])
def test_a_game_loads_the_same_cold_and_warm(name: str, tmp_path: Path) -> None:
    folder = DATA / name if name == "mini" else SOURCES / name
    plain = load_game(folder)
    stored = kept_path(cache_folder(tmp_path), folder)
    cold = load_game(folder, stored)
    assert stored.is_file()
    warm = load_game(folder, stored)
    assert cold.findings == warm.findings == plain.findings
    assert as_read(cold.game) == as_read(warm.game) == as_read(plain.game)


def test_a_check_keeps_nothing(tmp_path: Path) -> None:
    stored = kept_path(tmp_path / "out", DATA / "mini")
    load_game(DATA / "mini", stored)
    assert not (tmp_path / "out").exists()


def test_the_shipped_layouts_read_the_same(tmp_path: Path) -> None:
    stored = tmp_path / "kept.cache"
    for path in shipped_layout_files():
        for _round in range(2):
            kept = KeptRecords(stored)
            assert every_field(read_file(path, None, kept)) == every_field(read_file(path))
            kept.save()


UNITS = """\
# units of the test
unit_types:
  - {id: infantry, name: Infantry, symbol: infantry}

units:
  - {id: a-1, name: {en: Unit 1, ja: 部隊 1}, side: a, type: infantry, front: {strength: 4}}
  # a comment between items
  - {id: a-2, name: Unit 2, side: a, type: infantry,
     front: {strength: 5}}
  - id: a-3
    name: "Unit
      three"
    side: a
    type: infantry
    front: {strength: 6, movement: 4}
"""


def kept_once(tmp_path: Path) -> tuple[Path, Path]:
    """UNITS written to units.yaml and read once with the records kept (the build before):
    the file and the kept records' file."""
    path = tmp_path / "units.yaml"
    path.write_text(UNITS, encoding="utf-8")
    stored = tmp_path / "kept.cache"
    kept = KeptRecords(stored)
    read_file(path, None, kept)
    kept.save()
    return path, stored


def test_one_changed_unit_is_read_again(tmp_path: Path, item_reads: list[int]) -> None:
    path, stored = kept_once(tmp_path)
    assert item_reads == []  # nothing known: read whole, each item kept
    path.write_text(UNITS.replace("strength: 5", "strength: 3"), encoding="utf-8")
    item_reads.clear()
    again = read_file(path, None, KeptRecords(stored))
    assert item_reads == [8]
    assert every_field(again) == every_field(read_file(path))
    assert again[0] is not None and again[0].units[1].front["strength"] == 3


def test_items_moved_down_keep_their_own_lines(tmp_path: Path, item_reads: list[int]) -> None:
    path, stored = kept_once(tmp_path)
    path.write_text(UNITS.replace("  - id: a-3", "  # one more line\n  - id: a-3"), "utf-8")
    item_reads.clear()
    again = read_file(path, None, KeptRecords(stored))
    assert item_reads == [8, 11]  # the one the comment ends, and the one moved down
    assert every_field(again) == every_field(read_file(path))
    assert again[0] is not None and again[0].units[2].locate("front.movement").line == 16


def test_a_file_mostly_changed_is_read_whole(tmp_path: Path, item_reads: list[int]) -> None:
    path, stored = kept_once(tmp_path)
    path.write_text("# one more line\n" + UNITS, encoding="utf-8")  # every item moved
    item_reads.clear()
    again = read_file(path, None, KeptRecords(stored))
    assert item_reads == []
    assert every_field(again) == every_field(read_file(path))


SHAPES = {
    "anchor in one item, alias in another": UNITS.replace(
        "front: {strength: 4}", "front: &f {strength: 4}"
    ).replace("front: {strength: 5}", "front: *f"),
    "alias bomb": "units:\n  - &a [1, 2]\n  - [*a, *a]\n",
    "a quoted text cut at an item line": (
        'units:\n  - {id: a, name: "x\n  - y", side: a, type: t}\n  - {id: b, name: B, side: a,'
        " type: t}\n"
    ),
    "a flow list cut at an item line": (
        "units:\n  - {id: a, name: [x,\n  - y], side: a, type: t}\n"
    ),
    "a block text with item-like lines": (
        "units:\n  - id: a\n    name: |\n      - one\n      - two\n    side: a\n    type: t\n"
    ),
    "a section twice": "units:\n  - {id: a, name: A, side: a, type: t}\n"
    "units:\n  - {id: b, name: B, side: a, type: t}\n",
    "an unknown section": "unitz:\n  - {id: a, name: A, side: a, type: t}\n",
    "a mapping section": "game:\n  id: g\n  title: G\n  sides: [{id: a, name: A}]\n",
    "an empty list": "units: []\n",
    "a list at the key's column": "units:\n- {id: a, name: A, side: a, type: t}\n",
    "a document start": "---\nunits:\n  - {id: a, name: A, side: a, type: t}\n",
    "CRLF line ends": "units:\r\n  - {id: a, name: A, side: a, type: t}\r\n",
    "a byte order mark": "\ufeffunits:\n  - {id: a, name: A, side: a, type: t}\n",
    "a wrong type in one item": "units:\n  - {id: a, name: A, side: a, type: t}\n"
    "  - {id: b, name: B, side: a, type: t, steps: many}\n",
    "an unknown key in one item": "units:\n  - {id: a, name: A, side: a, type: t, sied: a}\n",
    "a missing key in one item": "units:\n  - {id: a, name: A, type: t}\n",
    "a duplicate key in one item": "units:\n  - {id: a, id: b, name: A, side: a, type: t}\n",
    "a YAML error in the last item": "units:\n  - {id: a, name: A, side: a, type: t}\n  - {id: [\n",
    "a tab in an item's indentation": "units:\n  - id: a\n\t name: A\n",
    "an item over two sections": "units:\n  - {id: a, name: A, side: a, type: t}\n  ]\n",
    "a comment at the top, then text": "# units\n  stray\nunits:\n  - {id: a, name: A}\n",
    "a line break YAML has and Python has not": (
        "units:\n  - {id: a, name: A\x85B, side: a, type: t}\n  - {id: b, name: B, side: a,"
        " type: t}\n"
    ),
    "a form feed": 'units:\n  - {id: a, name: "A\x0cB", side: a, type: t}\n'
    "  - {id: b, name: B, side: a, type: t}\n",
    "constraints of several kinds": (SOURCES / "napoleon" / "rules.yaml").read_text("utf-8")
    if (SOURCES / "napoleon" / "rules.yaml").is_file()
    else "constraints:\n  - {id: c, kind: mixed-sides, title: T}\n",
    "only comments": "# nothing\n",
    "nothing": "",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_reads_as_without_the_cache(shape: str, tmp_path: Path) -> None:
    path = tmp_path / "data.yaml"
    path.write_bytes(SHAPES[shape].encode("utf-8"))
    plain = every_field(read_file(path))
    for _round in range(3):  # cold, then read back
        kept = KeptRecords(tmp_path / "kept.cache")
        assert every_field(read_file(path, None, kept)) == plain
        kept.save()


def test_a_damaged_cache_reads_afresh(tmp_path: Path, item_reads: list[int]) -> None:
    path = tmp_path / "units.yaml"
    path.write_text(UNITS, encoding="utf-8")
    stored = tmp_path / "kept.cache"
    for damage in (b"not marshal", marshal.dumps([1, 2]), kept_chunk({b"k": 3})):
        stored.write_bytes(damage)
        item_reads.clear()
        assert every_field(read_file(path, None, KeptRecords(stored))) == every_field(
            read_file(path)
        )
        assert item_reads == []  # nothing known: read whole


def planted(stored: Path, change: Callable[[bytes], bytes]) -> None:
    """Every run kept in `stored` changed by `change` (what a planted or damaged file holds)."""
    kept = read_kept(stored)
    assert kept and all(len(value) > KEY_SIZE for value in kept.values())
    stored.write_bytes(kept_chunk({key: change(value) for key, value in kept.items()}))


def test_a_planted_cache_runs_nothing(tmp_path: Path, item_reads: list[int]) -> None:
    path, stored = kept_once(tmp_path)
    evil = pickle.dumps(Evil(tmp_path / "ran"), protocol=pickle.HIGHEST_PROTOCOL)
    planted(stored, lambda value: value[:KEY_SIZE] + evil)  # its run's check, then the pickle
    item_reads.clear()
    assert every_field(read_file(path, None, KeptRecords(stored))) == every_field(read_file(path))
    assert len(item_reads) == 4  # read again, nothing run
    assert not (tmp_path / "ran").exists()


def test_a_record_of_another_kind_is_not_taken(tmp_path: Path, item_reads: list[int]) -> None:
    path, stored = kept_once(tmp_path)
    other = (Text("not a unit"), (3, 5), digest_of(Text("not a unit")))

    def of_another_kind(value: bytes) -> bytes:
        found = unpickled(value[KEY_SIZE:])
        assert isinstance(found, tuple) and len(found) == 2
        keys, items = found
        return value[:KEY_SIZE] + pickled((keys, (other,) * len(items)))

    planted(stored, of_another_kind)
    item_reads.clear()
    assert every_field(read_file(path, None, KeptRecords(stored))) == every_field(read_file(path))
    assert len(item_reads) == 4


def test_records_read_back_are_whole(tmp_path: Path) -> None:
    source, _ = read_file(SOURCES / GAMES[0] / "units.yaml")
    if source is None or not source.units:
        pytest.skip("no units file")
    unit = source.units[0]
    back = unpickled(pickled(unit))
    assert isinstance(back, Unit)
    assert every_field(back) == every_field(unit)
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.id = "changed"  # type: ignore[misc]


def test_a_game_folder_copy_keeps_its_own_records(tmp_path: Path) -> None:
    out = cache_folder(tmp_path)
    first = tmp_path / "one"
    shutil.copytree(DATA / "mini", first)
    second = tmp_path / "two"
    shutil.copytree(DATA / "mini", second)
    assert kept_path(out, first) != kept_path(out, second)
    load_game(first, kept_path(out, first))
    loaded = load_game(second, kept_path(out, second))
    assert loaded.game is not None
    assert all(second.name in path for path in loaded.game.files)
    assert as_read(loaded.game) == as_read(load_game(second).game)


class Evil:
    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch '{self.mark}'",)


def test_units_read_back_come_with_their_content_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The back ends key faces on a unit's content digest (compiler.model.digests): a unit read
    back from the kept records brings the digest it was kept with, so its repr is not spelled
    out again; a unit read again from its text gets its digest then. Either is the digest of
    the record's repr."""
    path, stored = kept_once(tmp_path)
    path.write_text(UNITS.replace("strength: 5", "strength: 3"), encoding="utf-8")
    source, _ = read_file(path, None, KeptRecords(stored))
    assert source is not None and len(source.units) == 3
    worked_out: list[object] = []

    def spy(record: object) -> str:
        worked_out.append(record)
        return digest_of(record)

    monkeypatch.setattr(digests, "digest_of", spy)
    told = [content_digest(unit) for unit in source.units]
    assert worked_out == []  # told by the loader, each of them
    assert told == [digest_of(unit) for unit in source.units]
    assert len(set(told)) == 3


@pytest.mark.parametrize("digest", ["z" * 64, "ab", 7, None, "A" * 64])
def test_a_kept_item_with_a_bad_digest_is_read_again(
    digest: object, tmp_path: Path, item_reads: list[int]
) -> None:
    path, stored = kept_once(tmp_path)

    def with_bad_digests(value: bytes) -> bytes:
        found = unpickled(value[KEY_SIZE:])
        assert isinstance(found, tuple) and len(found) == 2
        keys, items = found
        assert all(isinstance(item, tuple) and len(item) == 3 for item in items)
        return value[:KEY_SIZE] + pickled((keys, tuple((i[0], i[1], digest) for i in items)))

    planted(stored, with_bad_digests)
    item_reads.clear()
    assert every_field(read_file(path, None, KeptRecords(stored))) == every_field(read_file(path))
    assert len(item_reads) == 4  # each item read again from its text


WITH_UNITS = [name for name in GAMES if any((SOURCES / name).rglob("units.yaml"))]


@pytest.mark.parametrize("name", WITH_UNITS)
def test_units_read_back_have_the_identities_of_a_plain_load(name: str, tmp_path: Path) -> None:
    """The faces' cache keys (compiler.backends.art.identity) of units read back with their
    kept digests are the keys a load without the cache gives."""
    from compiler.backends.art.identity import unit_identity

    folder = SOURCES / name
    plain = load_game(folder).game
    stored = kept_path(cache_folder(tmp_path), folder)
    load_game(folder, stored)
    warm = load_game(folder, stored).game
    assert plain is not None and warm is not None and plain.units
    assert [unit_identity(warm, u) for u in warm.units] == [
        unit_identity(plain, u) for u in plain.units
    ]


def test_a_kept_record_asking_for_a_huge_object_is_nothing_kept() -> None:
    """Damaged bytes that claim an object of 2**62 bytes read as nothing kept (a miss), not a
    MemoryError."""
    huge = b"\x80\x04\x8e" + (2**62).to_bytes(8, "little")  # BINBYTES8 of that length
    assert unpickled(huge) is None


def test_each_record_class_is_made_again_by_its_own_maker() -> None:
    """Each maker (compiler.load.records._makers: most make the record as its twin, whose
    attributes can be set, then make it one of its class) makes its own class, its fields in
    order, and takes exactly one value per field (a kept record with a value too few or too
    many reads as nothing kept); the record made is as frozen as one made by its class."""
    makers = records._makers()
    assert makers and len({maker.__name__ for maker in makers.values()}) == len(makers)
    for cls, maker in makers.items():
        names = records._field_names(cls)
        made = maker(*names)
        assert type(made) is cls
        assert [getattr(made, name) for name in names] == list(names)
        with pytest.raises(TypeError):
            maker(*names, "one too many")
        with pytest.raises(TypeError):
            maker(*names[:-1])
        if names and "__setattr__" in vars(cls):  # a frozen dataclass's
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(made, names[-1], "changed")
    text = Text("en", "ja")
    data = pickled(text)
    assert unpickled(data) == text
    shorter = data.replace(b"\x8c\x02ja", b"")  # the record's last value taken out
    assert shorter != data and unpickled(shorter) is None


def test_one_damaged_run_among_kept_ones_is_read_again_alone(
    tmp_path: Path, item_reads: list[int]
) -> None:
    """The unchanged runs of a file are read back together (KeptRecords.unchanged): one that
    does not read back whole is read again item by item, the others are still read back."""
    from compiler.load.keptread import RUN_ITEMS

    count = 3 * RUN_ITEMS
    lines = [f"  - {{id: a-{n}, name: Unit {n}, side: a, type: infantry}}\n" for n in range(count)]
    path = tmp_path / "units.yaml"
    path.write_text("units:\n" + "".join(lines), encoding="utf-8")
    stored = tmp_path / "kept.cache"
    kept = KeptRecords(stored)
    read_file(path, None, kept)
    kept.save()
    runs = read_kept(stored)
    assert len(runs) == 3
    damaged = next(iter(runs))
    found = unpickled(runs[damaged][KEY_SIZE:])
    assert isinstance(found, tuple) and len(found) == 2
    keys, items = found
    bad = tuple((item[0], item[1], "z" * 64) for item in items)
    runs[damaged] = runs[damaged][:KEY_SIZE] + pickled((keys, bad))
    stored.write_bytes(kept_chunk(runs))
    item_reads.clear()
    again = read_file(path, None, KeptRecords(stored))
    assert len(item_reads) == RUN_ITEMS  # the damaged run's items, read from their text
    assert every_field(again) == every_field(read_file(path))
