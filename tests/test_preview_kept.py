"""The units' items of the preview page kept from the last build (preview.kept): a warm
rebuild makes only the items of the units that changed, writes the bytes a cold build
writes, and takes a damaged or foreign record for no record."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from compiler.backends.preview import kept, sections
from compiler.cli import main
from compiler.model.units import Unit
from tests.conftest import replace_in

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"
"""b-inf-2 of the fixture game."""


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> bytes:
    """`countermix build`; the bytes of the page of the game's first set of outputs."""
    code = main(["build", str(folder), "--out", str(out), *extra])
    text = capsys.readouterr().out
    assert code == 0, text
    game = next(p for p in sorted(out.iterdir()) if not p.name.startswith("."))
    return (game / "index.html").read_bytes()


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the units whose items are made from here on."""
    ids: list[str] = []
    real = sections._unit_item

    def spy(ctx: sections.Context, unit: Unit, front_image: str, back_image: str) -> str:
        ids.append(unit.id)
        return real(ctx, unit, front_image, back_image)

    monkeypatch.setattr(sections, "_unit_item", spy)
    return ids


def records(out: Path) -> list[Path]:
    return sorted(out.glob(f".cache/**/{kept.RECORD}"))


def test_a_warm_rebuild_makes_only_the_changed_units_item(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], made: list[str]
) -> None:
    out = tmp_path / "warm"
    build(mini, out, capsys)
    assert made and records(out)
    units = len(made)
    replace_in(mini / "units.yaml", OLD, NEW)
    made.clear()
    warm = build(mini, out, capsys)
    assert set(made) == {"b-inf-2"} and len(made) < units
    made.clear()
    assert warm == build(mini, tmp_path / "cold", capsys)
    assert len(made) == units  # a cold build makes every item


def test_a_record_is_written_only_when_an_item_was_made(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    found = records(out)
    before = [(p.stat().st_mtime_ns, p.stat().st_ino) for p in found]
    build(mini, out, capsys, "--force")  # every back end runs again; no item is made
    assert [(p.stat().st_mtime_ns, p.stat().st_ino) for p in records(out)] == before


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"garbage",
        marshal.dumps((kept.FORMAT, "another build's shared part", {})),
        marshal.dumps(("another format", "x", {})),
        marshal.dumps(["a list"]),
    ],
)
def test_a_damaged_or_foreign_record_is_no_record(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: bytes
) -> None:
    out = tmp_path / "out"
    cold = build(mini, out, capsys)
    for record in records(out):
        record.write_bytes(damage)
    assert build(mini, out, capsys, "--force") == cold


def test_items_of_another_shape_are_no_items(tmp_path: Path) -> None:
    record = tmp_path / kept.RECORD
    for items in ({"key": b"bytes"}, {1: "html"}, ["html"]):
        record.write_bytes(marshal.dumps(((kept.FORMAT, "shared"), items)))
        assert kept.read_items(record, "shared") == {}
    record.write_bytes(marshal.dumps(((kept.FORMAT, "shared"), {"key": "<li>"})))
    assert kept.read_items(record, "shared") == {"key": "<li>"}
    assert kept.read_items(record, "other") == {}


def test_an_item_of_the_record_is_what_the_page_shows(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record's item is served as it is: the page is made of the kept items (so a key
    must hold all an item is made of)."""
    out = tmp_path / "out"
    build(mini, out, capsys)
    for record in records(out):
        tag, items = marshal.loads(record.read_bytes())
        items = {key: html.replace("b-inf-2", "KEPT-ITEM") for key, html in items.items()}
        record.write_bytes(marshal.dumps((tag, items)))
    assert b"KEPT-ITEM" in build(mini, out, capsys, "--force")
