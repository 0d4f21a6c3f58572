"""Positions kept packed (compiler.model.common.PackedLocs): a record read back from the
loader's kept runs has the positions of a record read from its text, unpacked only when asked
for, and a damaged packed entry reads as nothing kept (never a traceback)."""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from compiler.load.game import read_file
from compiler.load.keptread import KeptRecords
from compiler.load.records import pickled, unpickled
from compiler.model.common import PackedLocs, Text
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


def test_a_location_read_back_is_a_location() -> None:
    """A record's place is pickled as its values and made again by tuple.__new__ (no Python
    call): the same Location, of the same class, equal and with the same fields."""
    from compiler.diagnostics import Location

    unit = Unit(id="u", name=Text("U"), side="a", type="inf", loc=Location("units.yaml", 3, 5))
    back = unpickled(pickled((unit,)))
    assert isinstance(back, tuple)
    assert type(back[0].loc) is Location and back[0].loc == unit.loc
    assert back[0].loc.path == "units.yaml" and back[0].loc.line == 3 and back[0].loc.column == 5
    assert str(back[0].loc).endswith("units.yaml:3:5")


def test_equal_values_are_shared_only_when_the_same_in_every_way() -> None:
    """Records of one pickle share a Text or a mapping of plain values equal to one written
    before (fewer objects to make again), but never one that differs in type (1, 1.0, True),
    sign (0.0, -0.0) or order of keys: each reads back as it was written."""
    fronts: list[dict[str, int | float]] = [
        {"strength": 1, "movement": 4},
        {"strength": 1, "movement": 4},
        {"strength": True, "movement": 4},
        {"strength": 1.0, "movement": 4},
        {"movement": 4, "strength": 1},
        {"strength": -0.0},
        {"strength": 0.0},
    ]
    units = tuple(
        Unit(id=f"u-{n}", name=Text("Same"), side="a", type="inf", front=MappingProxyType(front))
        for n, front in enumerate(fronts)
    )
    back = unpickled(pickled(units))
    assert isinstance(back, tuple) and back == units
    for read, unit in zip(back, units, strict=True):
        assert list(read.front.items()) == list(unit.front.items())
        assert [type(v) for v in read.front.values()] == [type(v) for v in unit.front.values()]
        assert repr(read.front) == repr(unit.front) and repr(read) == repr(unit)
    assert back[0].front is back[1].front and back[0].name is back[1].name
    assert len({id(read.front) for read in back}) == len(fronts) - 1


def test_item_locs_are_the_dict_they_stand_for() -> None:
    """ItemLocs (a chart's rows' positions, made a dict only when iterated) looks up, holds
    and lists what `{**head, "rows.1": ..., ...}` does, in the same order; pickled and read
    back as records are, it is the same."""
    from compiler.model.common import ItemLocs, PackedLocs

    head = {"id": (2, 3), "rows": (4, 5), "rows.0": (5, 7), "rows.0.label": (5, 9)}
    wheres = [(6, 7), (7, 7), (8, 7)]
    plain = {**head, "rows.1": (6, 7), "rows.2": (7, 7), "rows.3": (8, 7)}
    for given in (head, PackedLocs(*(PackedLocs.pack(head) or ((), b"")))):
        locs = ItemLocs(given, "rows.", 1, wheres)
        for key in [*plain, "rows.4", "rows.01", "rows.-1", "rows.1.label", "rows.", "x", "rows.٣"]:
            assert locs.get(key) == plain.get(key)
            assert (key in locs) == (key in plain)
        assert list(locs.items()) == list(plain.items()) and len(locs) == len(plain)
        assert locs == plain and dict(locs) == plain
        assert ItemLocs(given, "rows.", 1, wheres)["rows.3"] == (8, 7)
        back = unpickled(pickled(locs))
        assert isinstance(back, Mapping) and list(back.items()) == list(plain.items())


def test_item_locs_of_sections_are_the_dict_of_a_whole_read() -> None:
    """The positions of a data file read run by run (compiler.load.keptread): each section's
    start, then its items', section after section, as the dict of a whole read has them."""
    from compiler.model.common import EMPTY_LOCS, ItemLocs

    plain: dict[str, tuple[int, int]] = {}
    locs: Mapping[str, tuple[int, int]] = EMPTY_LOCS
    for number, name in enumerate(("unit_types", "units")):
        wheres = [(10 * number + item, 3) for item in range(3)]
        plain[name] = (10 * number, 3)
        plain.update((f"{name}.{item}", where) for item, where in enumerate(wheres))
        locs = ItemLocs(locs, f"{name}.", 0, wheres, {name: (10 * number, 3)})
    for key in [*plain, "units.3", "units", "unit_types.00", "x"]:
        assert locs.get(key) == plain.get(key) and (key in locs) == (key in plain)
    assert list(locs.items()) == list(plain.items())
    assert list(unpickled(pickled(locs)).items()) == list(plain.items())  # type: ignore[attr-defined]
