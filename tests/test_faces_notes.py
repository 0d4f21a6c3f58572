"""The layout notes of every face, kept in one record of a game's cache folder
(pipeline.face_findings): a warm check reports exactly what a cold one does, lays out only
the faces it has no notes for, writes the record only when it laid one out, and takes a
damaged, foreign or stale record for no record at all."""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Literal

import pytest

from compiler import pipeline
from compiler.backends.art.display import Drawing
from compiler.backends.art.drawing import unit_drawing
from compiler.backends.sheets import faces
from compiler.diagnostics import Finding
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import LONG_NAME, loaded_game, replace_in


def shown(findings: list[Finding]) -> list[tuple[str, str, str, int, int, str]]:
    """What a report prints of each finding, in order."""
    return [
        (f.rule, f.severity.name, f.location.path, f.location.line, f.location.column, f.message)
        for f in findings
    ]


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The unit faces laid out from here on (their drawings made)."""
    made: list[str] = []

    def spy(game: GameData, unit: Unit, side: Literal["front", "back"], lang: str) -> Drawing:
        made.append(side)
        return unit_drawing(game, unit, side, lang)

    monkeypatch.setattr(faces, "unit_drawing", spy)
    return made


def test_a_warm_check_reports_what_a_cold_one_does(warned: Path, tmp_path: Path) -> None:
    cold = pipeline.face_findings(loaded_game(warned), "en")
    assert any(f.rule == "text-overflow" for f in cold)
    cache = tmp_path / "cache"
    first = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert (cache / pipeline.LAYOUT_NOTES).is_file()
    second = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert shown(first) == shown(cold) == shown(second)


def test_a_warm_check_lays_out_nothing_and_writes_nothing(
    warned: Path, tmp_path: Path, drawn: list[str]
) -> None:
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    assert drawn
    record = cache / pipeline.LAYOUT_NOTES
    before = record.stat().st_mtime_ns, record.read_bytes()
    drawn.clear()
    pipeline.face_findings(loaded_game(warned), "en", cache)
    assert drawn == []
    assert (record.stat().st_mtime_ns, record.read_bytes()) == before


def test_only_the_changed_unit_is_laid_out_again(
    warned: Path, tmp_path: Path, drawn: list[str]
) -> None:
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    replace_in(warned / "units.yaml", f"{LONG_NAME.strip()},", "Short,")
    drawn.clear()
    after = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert sorted(drawn) == ["back", "front"]
    assert shown(after) == shown(pipeline.face_findings(loaded_game(warned), "en"))
    assert not any(f.rule == "text-overflow" for f in after)
    # the old faces' notes stay in the record: changed back, the unit is not laid out again
    replace_in(warned / "units.yaml", "Short,", f"{LONG_NAME.strip()},")
    drawn.clear()
    again = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert drawn == []
    assert any(f.rule == "text-overflow" for f in again)


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not marshal at all",
        marshal.dumps(["a list"]),
        marshal.dumps(((pipeline.LAYOUT_NOTES_FORMAT, "another renderer"), {})),
        marshal.dumps((("another format", "x"), {})),
        marshal.dumps((pipeline.LAYOUT_NOTES_FORMAT,)),
    ],
)
def test_a_damaged_or_foreign_record_is_no_record(
    warned: Path, tmp_path: Path, damage: bytes
) -> None:
    cache = tmp_path / "cache"
    cold = pipeline.face_findings(loaded_game(warned), "en", cache)
    record = cache / pipeline.LAYOUT_NOTES
    record.write_bytes(damage)
    assert shown(pipeline.face_findings(loaded_game(warned), "en", cache)) == shown(cold)
    assert pipeline.read_layout_notes(record)  # written again, whole


@pytest.mark.parametrize(
    "notes",
    [
        {"unit-front:en:x": ["a list, not a tuple"]},
        {"unit-front:en:x": (1, 2)},
        {1: ("a note",)},
        ["not a dict"],
    ],
)
def test_a_record_of_another_shape_is_no_record(
    tmp_path: Path, notes: dict[object, object] | list[str]
) -> None:
    from compiler.backends.rendercache import renderer_fingerprint

    record = tmp_path / pipeline.LAYOUT_NOTES
    record.write_bytes(
        marshal.dumps(((pipeline.LAYOUT_NOTES_FORMAT, renderer_fingerprint()), notes))
    )
    assert pipeline.read_layout_notes(record) == {}


def test_stale_notes_of_a_record_that_holds_mostly_other_faces_are_dropped(
    warned: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    record = cache / pipeline.LAYOUT_NOTES
    notes = pipeline.read_layout_notes(record)
    stale = {f"unit-front:en:gone-{n}": ("old",) for n in range(2 * len(notes))}
    from compiler.backends.rendercache import renderer_fingerprint

    record.write_bytes(
        marshal.dumps(((pipeline.LAYOUT_NOTES_FORMAT, renderer_fingerprint()), {**stale, **notes}))
    )
    replace_in(warned / "units.yaml", f"{LONG_NAME.strip()},", "Short,")
    pipeline.face_findings(loaded_game(warned), "en", cache)
    kept = pipeline.read_layout_notes(record)
    assert not set(kept) & set(stale)
    assert len(kept) == len(notes)


def test_the_old_per_face_pack_is_removed_when_the_record_is_written(
    warned: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in ("layout.pack", "layout.pack.index"):
        (cache / name).write_bytes(b"old")
    pipeline.face_findings(loaded_game(warned), "en", cache)
    assert sorted(p.name for p in cache.iterdir()) == [pipeline.LAYOUT_NOTES]
