"""The layout notes' record (pipeline.face_findings) added to, not written again whole: a
warm check after an edit adds only the notes that changed at the end of the record, reports
what a cold check does (a finding appearing and going away), and a record whose added part
is damaged or cut short is no record (laid out again, then written whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler import pipeline
from compiler.diagnostics import Finding
from tests.conftest import LONG_NAME, loaded_game, replace_in


def shown(findings: list[Finding]) -> list[tuple[str, str, int, int, str]]:
    """What a report prints of each finding, in order."""
    return [
        (f.rule, f.location.path, f.location.line, f.location.column, f.message) for f in findings
    ]


def cold(folder: Path) -> list[Finding]:
    return pipeline.face_findings(loaded_game(folder), "en")


def test_an_edit_adds_its_notes_at_the_end_and_reports_what_a_cold_check_does(
    warned: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert shown(first) == shown(cold(warned))
    assert any(f.rule == "text-overflow" for f in first)
    record = cache / pipeline.LAYOUT_NOTES
    whole = record.read_bytes()
    replace_in(warned / "units.yaml", f"{LONG_NAME.strip()},", "Short,")  # the warning goes
    gone = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert shown(gone) == shown(cold(warned))
    assert not any(f.rule == "text-overflow" for f in gone)
    grown = record.read_bytes()
    assert grown.startswith(whole) and len(grown) > len(whole)  # added to, not rewritten
    notes, added = pipeline._read_layout_notes(record)
    assert added == len(grown) - len(whole)
    replace_in(warned / "units.yaml", "Short,", f"{LONG_NAME.strip()} Again,")
    back = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert shown(back) == shown(cold(warned))
    assert any(f.rule == "text-overflow" for f in back)  # the warning comes again
    assert record.read_bytes().startswith(grown)


@pytest.mark.parametrize("damage", [b"\x00", b"\xe9\x02", b")\x02", b"not marshal"])
def test_a_damaged_added_part_is_no_record(warned: Path, tmp_path: Path, damage: bytes) -> None:
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    record = cache / pipeline.LAYOUT_NOTES
    replace_in(warned / "units.yaml", f"{LONG_NAME.strip()},", "Short,")
    pipeline.face_findings(loaded_game(warned), "en", cache)
    data = record.read_bytes()
    record.write_bytes(data[:-3])  # the added part cut short
    assert pipeline.read_layout_notes(record) == {}
    record.write_bytes(data + damage)
    assert pipeline.read_layout_notes(record) == {}
    again = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert shown(again) == shown(cold(warned))
    assert pipeline._read_layout_notes(record)[1] == 0  # written again, whole


def test_a_record_added_to_past_its_size_is_written_whole(
    warned: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "MOST_ADDED", 0)
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    record = cache / pipeline.LAYOUT_NOTES
    names = ["Short", "Other", "Third", "Fourth", "Fifth", "Sixth"]
    before = f"{LONG_NAME.strip()}"
    sizes = []
    for name in names:
        replace_in(warned / "units.yaml", f"{before},", f"{name},")
        before = name
        found = pipeline.face_findings(loaded_game(warned), "en", cache)
        assert shown(found) == shown(cold(warned))
        sizes.append(pipeline._read_layout_notes(record)[1])
    assert 0 in sizes[1:] and max(sizes) > 0  # added to, then written whole again
