"""Positions kept packed (compiler.model.common.PackedLocs): a record read back from the
loader's kept runs has the positions of a record read from its text, unpacked only when asked
for, and a damaged packed entry reads as nothing kept (never a traceback)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from compiler.load.game import read_file
from compiler.load.keptread import KeptRecords
from compiler.load.records import pickled, unpickled
from compiler.model.common import PackedLocs
from compiler.model.units import Unit

UNITS = "unit_types:\n  - {id: infantry, name: Infantry, symbol: infantry}\nunits:\n" + "".join(
    f"  - {{id: u-{n}, name: {{en: Unit {n}}}, side: a, type: infantry,"
    f" front: {{strength: {n % 9}, movement: 4}}}}\n"
    for n in range(40)
)


def units_of(path: Path, kept: KeptRecords | None = None) -> tuple[Unit, ...]:
    source, findings = read_file(path, None, kept)
    assert source is not None and not findings
    return source.units


def test_units_read_back_have_packed_positions_as_read(tmp_path: Path) -> None:
    path, stored = tmp_path / "units.yaml", tmp_path / "kept.cache"
    path.write_text(UNITS, encoding="utf-8")
    kept = KeptRecords(stored)
    units_of(path, kept)
    kept.save()
    warm = units_of(path, KeptRecords(stored))
    cold = units_of(path)
    assert all(type(unit.locs) is PackedLocs for unit in warm)
    for back, read in zip(warm, cold, strict=True):
        assert back.locs.get("front.movement") == read.locs["front.movement"]  # one unpacked
        assert back.locs["id"] == read.locs["id"] and "name" in back.locs
        assert "nowhere" not in back.locs and back.locs.get("nowhere") is None
        with pytest.raises(KeyError):
            back.locs["nowhere"]
        assert dict(back.locs) == dict(read.locs)
        assert back.locs.get("front.movement") == read.locs["front.movement"]  # all unpacked
        assert list(back.locs) == list(read.locs)  # the same order
        assert back.locate("front.movement") == read.locate("front.movement")
        assert back.locate("nowhere") == read.locate("nowhere") == read.loc


def test_records_of_one_shape_share_their_names() -> None:
    packed = PackedLocs.pack({"id": (1, 5), "name": (1, 9)})
    assert packed is not None
    one = PackedLocs(*packed)
    both = unpickled(pickled((one, PackedLocs(*packed))))
    assert isinstance(both, tuple)
    first: PackedLocs = both[0]
    second: PackedLocs = both[1]
    assert first == second == {"id": (1, 5), "name": (1, 9)}
    assert "id" in first and "locs" not in first and len(first) == 2
    assert pickle.loads(pickle.dumps(first)) == first


def test_positions_that_do_not_fit_stay_a_mapping() -> None:
    assert PackedLocs.pack({"id": (1, -1)}) is None
    assert PackedLocs.pack({"id": (1, 1 << 40)}) is None
    assert PackedLocs.pack({"id": (1, 2.5)}) is None  # type: ignore[dict-item]


def test_damaged_packed_positions_read_as_nothing_kept() -> None:
    good = pickled(PackedLocs(("id",), bytes(8)))
    short = good.replace(bytes(8), bytes(7))
    assert unpickled(short) is None  # its length does not match its names
    with pytest.raises(ValueError):
        PackedLocs(("id", "name"), bytes(8))
    odd = PackedLocs((1,), bytes(8))  # type: ignore[arg-type]
    assert dict(odd) == {} and odd.get("id") is None  # damaged names: no positions
