"""The layout notes of runs of units (pipeline.face_findings): the record keeps a run's
faces with their notes, and the run each place of the sheets last held, not an entry per
face of a run; a run that changed lays out only its changed faces, the notes of the others
read from the run its place held, and reports what a cold check reports."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from compiler import pipeline
from compiler.backends.art.display import Drawing
from compiler.backends.art.drawing import unit_drawing
from compiler.backends.sheets import faces
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import loaded_game, replace_in


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The unit faces laid out from here on (their unit ids)."""
    made: list[str] = []

    def spy(game: GameData, unit: Unit, side: Literal["front", "back"], lang: str) -> Drawing:
        made.append(unit.id)
        return unit_drawing(game, unit, side, lang)

    monkeypatch.setattr(faces, "unit_drawing", spy)
    return made


def test_the_record_holds_no_entry_per_face_of_a_run(warned: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    pipeline.face_findings(loaded_game(warned), "en", cache)
    notes = pipeline.read_layout_notes(cache / pipeline.LAYOUT_NOTES)
    assert not [key for key in notes if key.startswith("unit-")]
    runs = [key for key in notes if key.startswith("run-counters:") and key.endswith(":faces")]
    assert len(runs) == 1
    faces_of_run, *noted = notes[runs[0]]
    assert len(faces_of_run.split("\n")) == 2 * len(loaded_game(warned).units)  # front and back
    assert len(noted) == 2  # the long name, shortened on both sides
    assert notes["at-counters:en:0"] == (runs[0][len("run-counters:en:") : -len(":faces")],)


def test_a_changed_run_lays_out_only_its_changed_unit(
    warned: Path, tmp_path: Path, drawn: list[str]
) -> None:
    cache = tmp_path / "cache"
    cold = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert any(f.rule == "text-overflow" for f in cold)
    replace_in(warned / "units.yaml", "name: Red Line,", "name: Red Lines,")
    drawn.clear()
    warm = pipeline.face_findings(loaded_game(warned), "en", cache)
    assert drawn == ["r-inf-2", "r-inf-2"]  # not the warned unit: its notes were kept
    assert warm == pipeline.face_findings(loaded_game(warned), "en") == cold
    drawn.clear()
    assert pipeline.face_findings(loaded_game(warned), "en", cache) == warm
    assert drawn == []


def test_a_damaged_place_lays_the_run_out_again(
    warned: Path, tmp_path: Path, drawn: list[str]
) -> None:
    import marshal

    from compiler.backends.rendercache import renderer_fingerprint

    cache = tmp_path / "cache"
    cold = pipeline.face_findings(loaded_game(warned), "en", cache)
    record = cache / pipeline.LAYOUT_NOTES
    notes = pipeline.read_layout_notes(record)
    run = next(key for key in notes if key.endswith(":faces"))
    notes[run] = (notes[run][0], "not a line\tnote")
    tag = (pipeline.LAYOUT_NOTES_FORMAT, renderer_fingerprint())
    record.write_bytes(marshal.dumps((tag, notes)))
    replace_in(warned / "units.yaml", "name: Red Line,", "name: Red Lines,")
    drawn.clear()
    assert pipeline.face_findings(loaded_game(warned), "en", cache) == cold
    assert "b-inf-2" in drawn  # the place's run damaged: its faces laid out again
