"""A setup picture's overlay is printed as runs of its ops, each a form kept in the cache under
its ops' keys: a picture drawn again because one piece changed draws only the run holding the
piece, reads the others back, and gives the bytes a build without a cache gives (which cuts
the same runs). A damaged run is drawn again. A picture drawn again reads its boards' sizes
and digests from the cache instead of digesting their pixels."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from compiler.backends import scenepics_pdf
from compiler.backends.art.display import Drawing, Inset, Op, Rect, Text
from compiler.backends.charts import build as charts_build
from compiler.backends.charts.build import render_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.scenepics import KeyedFace, picture_key
from compiler.backends.scenepics_pdf import overlay_form
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import RecordingCache, game_with_aids, replace_in

game_of = game_with_aids


def face(number: int, colour: int) -> KeyedFace:
    """A keyed face drawn as a filled square (its look key names its colour)."""
    drawing = Drawing(1.0, (Rect((0.0, 0.0, 1.0, 1.0), (colour, 40, 40), None),))
    return KeyedFace(f"test-{number}-{colour}", 1.0, lambda: drawing)


def overlay(colours: dict[int, int]) -> Drawing:
    """An overlay of 400 faces in rows, with a few words: face n coloured colours.get(n, 0)."""
    ops: list[Op] = [Text(0.01, 0.01, "Map", 0.02, True, (0, 0, 0), "lm", "en")]
    for n in range(400):
        x, y = (n % 40) * 0.05, (n // 40) * 0.05
        ops.append(Inset((x, y, x + 0.04, y + 0.04), face(n, colours.get(n, 0))))
    return Drawing(2.0, tuple(ops))


Recording = RecordingCache


def run_keys(cache: RenderCache) -> list[str]:
    return [key for key in cache.new if ":scene-run:" in key]


def test_one_face_changed_draws_one_run_again(tmp_path: Path) -> None:
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    made, _kept = overlay_form(overlay({}), first)
    assert made == overlay_form(overlay({}), None)[0]
    runs = len(run_keys(first))
    assert runs > 5  # cut into runs
    first.save()
    changed = overlay({217: 200})
    again = RenderCache(pack)
    form, kept = overlay_form(changed, again)
    assert form == overlay_form(changed, None)[0]
    assert len(run_keys(again)) == 1
    assert set(kept) <= again.used
    assert form != made


def test_a_changed_op_count_changes_the_runs_near_it_only(tmp_path: Path) -> None:
    """A face added (a step-loss badge) shifts the ops after it: the runs are cut by their
    ops' keys, not their number, so the runs after it are read back."""
    cache = RenderCache(tmp_path / "charts.pack")
    base = overlay({})
    overlay_form(base, cache)
    cache.save()
    extra = Inset((0.5, 0.5, 0.54, 0.54), face(999, 9))
    ops = (*base.ops[:120], extra, *base.ops[120:])
    added = Drawing(base.width, ops)
    again = RenderCache(tmp_path / "charts.pack")
    form, _kept = overlay_form(added, again)
    assert form == overlay_form(added, None)[0]
    assert len(run_keys(again)) <= 2


@pytest.mark.parametrize("damage", [b"", b"\x00not a run", b"\xe3\x00\x00"])
def test_a_damaged_run_is_drawn_again(tmp_path: Path, damage: bytes) -> None:
    cache = RenderCache(None)
    made, _kept = overlay_form(overlay({}), cache)
    for key in [key for key in cache.memory if ":scene-run:" in key][::3]:
        cache.memory[key] = damage
    assert overlay_form(overlay({}), cache)[0] == made


def test_a_picture_drawn_again_does_not_digest_its_boards(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "cache" / "charts.pack"
    render_charts(game_of(mini), SheetOptions(), RenderCache(pack))
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    digested: list[object] = []
    real = scenepics_pdf.Board.of

    def spy(image: object) -> scenepics_pdf.Board:
        digested.append(image)
        return real(image)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics_pdf.Board, "of", spy)
    cache = Recording(pack)
    pdf, _pngs = render_charts(game_of(mini), SheetOptions(), cache)
    assert any(":setup-picture-4:" in key for key in cache.put_keys)  # the picture drawn again
    assert digested == []
    monkeypatch.undo()
    assert pdf == charts_build._pdf(game_of(mini), SheetOptions())


def test_a_damaged_board_digest_is_made_again(mini: Path) -> None:
    cache = RenderCache(None)
    render_charts(game_of(mini), SheetOptions(), cache)
    for key in [key for key in cache.memory if ":picture-board-digest:" in key]:
        cache.memory[key] = b"\x00damaged"
    for key in [key for key in cache.memory if ":setup-picture-4:" in key]:
        del cache.memory[key]
    options = SheetOptions(bleed_mm=2.0)
    pdf, _pngs = render_charts(game_of(mini), options, cache)
    assert pdf == charts_build._pdf(game_of(mini), options)


def _first_picture_key(mini: Path) -> str:
    """The picture key of the game's first scenario, the game loaded afresh."""
    game = game_of(mini)
    return picture_key(game, game.scenarios[0], "en")


def test_the_picture_key_follows_the_placed_units_and_their_kin(mini: Path) -> None:
    """The picture's key (read from each unit's content digest and one digest of what every
    unit is drawn with) changes with a placed unit, with a unit type, not with a unit the
    scenario does not place."""

    key = partial(_first_picture_key, mini)

    first = key()
    assert key() == first
    replace_in(
        mini / "units.yaml", "{id: artillery, name: Artillery,", "{id: artillery, name: Guns,"
    )
    second = key()
    assert second != first
    replace_in(mini / "units.yaml", "name: Red Line,", "name: Red Line Regiment,")  # arrives
    third = key()
    assert third != second
    units = (mini / "units.yaml").read_text(encoding="utf-8")
    spare = (
        "  - {id: b-spare, name: Spare, side: blue, nationality: blueland, type: infantry,"
        " size: X, formation: blue-i-2, title: AAA, front: {strength: 1, movement: 3}}\n"
    )
    (mini / "units.yaml").write_text(units.replace("markers:\n", spare + "markers:\n"), "utf-8")
    assert key() == third


def test_the_picture_key_follows_the_maps_layout(mini: Path) -> None:
    """The picture's key holds what decides the maps' layouts (each map and its art's size)
    instead of the layouts: a map laid out otherwise (one more column) changes it."""

    key = partial(_first_picture_key, mini)

    first = key()
    assert key() == first
    replace_in(
        mini / "map.yaml",
        "{id: S, columns: [1, 10], rows: [1, 8], terrain: woods}",
        "{id: S, columns: [1, 11], rows: [1, 8], terrain: woods}",
    )
    assert key() != first
