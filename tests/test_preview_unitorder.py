"""The order of the units section and its runs' keys kept from the last build
(preview.unitorder): a warm rebuild keys again only the runs of the units that changed, a unit
moved to another formation orders the section again, and the page is what a cold build
writes; a kept order of another shape is no order."""

from __future__ import annotations

import marshal
from array import array
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.preview import sections, unitorder
from compiler.backends.sheets import runs
from compiler.cli import main
from compiler.model.units import Unit
from tests.conftest import replace_in

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"
"""b-inf-2 of the fixture game."""


def pages(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """`countermix build`; each set of outputs' page."""
    code = main(["build", str(folder), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    found = sorted(p for p in out.iterdir() if not p.name.startswith("."))
    return {p.name: (p / "index.html").read_bytes() for p in found}


@pytest.fixture
def rowed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the units whose rows (what keys their run) are worked out from here on,
    in runs of one unit (the sheets' runs too)."""
    ids: list[str] = []
    real = sections._rows

    def spy(units: list[Unit], *rest: list[str]) -> list[str]:
        ids.extend(unit.id for unit in units)
        return real(units, *rest)

    monkeypatch.setattr(sections, "_rows", spy)
    monkeypatch.setattr(sections, "RUN_UNITS", 1)
    monkeypatch.setattr(runs, "RUN_UNITS", 1)
    return ids


def test_a_warm_rebuild_keys_only_the_runs_of_the_changed_unit(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], rowed: list[str]
) -> None:
    pages(mini, tmp_path / "warm", capsys)
    units = len(rowed)
    assert units > 2
    rowed.clear()
    replace_in(mini / "units.yaml", OLD, NEW)
    warm = pages(mini, tmp_path / "warm", capsys)
    assert rowed and set(rowed) == {"b-inf-2"}
    assert warm == pages(mini, tmp_path / "cold", capsys)


def test_a_unit_moved_to_another_formation_orders_the_section_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], rowed: list[str]
) -> None:
    before = pages(mini, tmp_path / "warm", capsys)
    units = len(rowed)
    rowed.clear()
    replace_in(
        mini / "units.yaml", "formation: blue-i-2, title: AAA", "formation: blue-i-1, title: AAA"
    )
    warm = pages(mini, tmp_path / "warm", capsys)
    assert warm != before
    assert len(rowed) == units  # every unit's row: the order worked out again
    assert warm == pages(mini, tmp_path / "cold", capsys)


FACTS = unitorder.Facts("seed", 2, ("a", "b"), b"lines", "paths", ("i", "j"))


def record(**changed: object) -> bytes:
    """An order record of two units in one run (as keep_order writes it), with `changed`
    fields."""
    order = array(unitorder.INDEX, [1, 0]).tobytes()
    fields: dict[str, Any] = {
        "format": unitorder.FORMAT,
        "size": 32,
        "count": 2,
        "sources": ("a", "b"),
        "groups": ("g", "h"),
        "lines": b"lines",
        "paths": "paths",
        "images": ("i", "j"),
        "order": order,
        "positions": order,
        "rest": (((0, "<h4>"),), ("key",), "seed"),
    }
    fields.update(changed)
    return marshal.dumps(tuple(fields.values()))


def test_a_kept_order_is_read_back() -> None:
    found = unitorder._read(record(), FACTS, 32)
    assert found is not None
    sources, images, order = found
    assert (sources, images) == (("a", "b"), ("i", "j"))
    assert list(order.order) == [1, 0] and order.before == {0: "<h4>"} and order.keys == ["key"]


@pytest.mark.parametrize(
    "entry_bytes",
    [
        b"",
        b"garbage",
        marshal.dumps(["a list"]),
        record(format="other"),
        record(size=16),
        record(count=3),
        record(lines=b"other lines"),
        record(paths="other paths"),
        record(sources=("a",)),
        record(groups=("g", 1)),
        record(images=("i",)),
        record(order=b"\0" * 3),
        record(order=array(unitorder.INDEX, [2, 0]).tobytes()),
        record(positions=array(unitorder.INDEX, [-1, 0]).tobytes()),
        record(rest=(((2, "<h4>"),), ("key",), "seed")),
        record(rest=(((0, 1),), ("key",), "seed")),
        record(rest=(((0, "<h4>"),), ("key", "more"), "seed")),
        record(rest=(((0, "<h4>"),), ("key",), "other seed")),
        record(rest=(((0, "<h4>"),), ("key",))),
    ],
)
def test_a_kept_order_of_another_shape_is_no_order(entry_bytes: bytes) -> None:
    assert unitorder._read(entry_bytes, FACTS, 32) is None
