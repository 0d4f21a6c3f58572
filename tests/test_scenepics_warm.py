"""A warm rebuild after a placed unit changed draws only that unit's faces on the scenario
pictures (the others are laid out with the widths an earlier build kept and taken from the
caches under their look keys) and writes what a cold build writes: charts.pdf with its
setup cards, the preview's scenario pictures, everything else."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from PIL import Image

from compiler.backends import scenepics, scenepics_draw, scenepics_pdf
from compiler.backends.art import raster
from compiler.backends.art.display import Drawing, Inset
from compiler.backends.rendercache import RenderCache
from compiler.backends.scenepics import Scene, scenario_scene, scene_png
from compiler.backends.scenepics_draw import KeyedFace
from compiler.backends.sheets.options import SheetOptions
from compiler.cli import main
from tests.conftest import game_with_aids

PLACED = "b-inf-1"
"""A unit the fixture's first scenario sets up."""


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """Every file a build writes (preview folders included), by path."""
    code = main(["build", str(folder), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    built = next(p for p in out.iterdir() if not p.name.startswith("."))
    return {
        str(p.relative_to(built)): p.read_bytes() for p in sorted(built.rglob("*")) if p.is_file()
    }


def bump_front(folder: Path, unit: str) -> None:
    """Give `unit`'s front another movement (its face changes, nothing else)."""
    path = folder / "units.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f"- id: {unit}\n")
    front = text.index("front: {", start)
    end = text.index("}", front)
    old = text[front : end + 1]
    new = old.replace("movement: ", "movement: 1") if "movement: " in old else old
    assert new != old
    path.write_text(text[:front] + new + text[end + 1 :], encoding="utf-8")


def kept_then_changed(mini: Path, tmp_path: Path) -> tuple[Scene, bytes, Path]:
    """The first scenario's picture made and kept in a cache (saved), then the fixture's
    placed unit changed: the scene now (laid out with the cache, as a build lays it out), its
    PNG made without a cache, and the cache's pack."""
    pack = tmp_path / "cache" / "scenes.pack"
    cache = RenderCache(pack)
    game = game_with_aids(mini)
    scene_png(scenario_scene(game, game.scenarios[0], "en", cache), cache)
    cache.save()
    bump_front(mini, PLACED)
    game = game_with_aids(mini)
    scene = scenario_scene(game, game.scenarios[0], "en", RenderCache(pack))
    return scene, scene_png(scene), pack


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The faces the scenario pictures draw, as (kind, piece id) (spied on)."""
    made: list[tuple[str, str]] = []
    real = scenepics_draw._draw_face

    def spy(game: object, kind: str, ident: str, face: str, lang: str) -> Drawing:
        made.append((kind, ident))
        return real(game, kind, ident, face, lang)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics_draw, "_draw_face", spy)
    return made


def test_a_changed_placed_unit_is_the_only_face_drawn_and_the_bytes_are_cold(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], drawn: list[tuple[str, str]]
) -> None:
    warm = tmp_path / "warm"
    build(mini, warm, capsys)
    assert len(set(drawn)) > 1  # a cold build draws every face of the pictures
    bump_front(mini, PLACED)
    drawn.clear()
    after = build(mini, warm, capsys)
    assert drawn and {ident for _kind, ident in drawn} == {PLACED}, drawn
    assert any("charts" in name for name in after)
    assert any(name.endswith(".png") for name in after)
    cold = build(mini, tmp_path / "cold", capsys)
    assert after == cold


def test_damaged_face_widths_are_a_miss(mini: Path, tmp_path: Path) -> None:
    """A picture laid out with no widths, or a damaged table of them, is the same picture."""
    game = game_with_aids(mini)
    scenario = game.scenarios[0]
    plain = scene_png(scenario_scene(game, scenario, "en"))
    pack = tmp_path / "cache" / "scenes.pack"
    first = RenderCache(pack)
    assert scene_png(scenario_scene(game_with_aids(mini), scenario, "en", first), first) == plain
    keys = [key for key in first.memory if key.split(":")[1:2] == ["scene-face-widths"]]
    assert len(keys) == 1
    widths = marshal.loads(first.memory[keys[0]])
    assert widths and all(isinstance(width, float) for width in widths.values())
    for damaged in (b"not marshal", marshal.dumps([1, 2]), marshal.dumps({"a": "b"})):
        again = RenderCache(None)
        again.put(keys[0], damaged)
        scene = scenario_scene(game_with_aids(mini), scenario, "en", again)
        assert scene_png(scene, again) == plain
    assert scenepics._widths(b"\x00garbage") == {}


def test_a_picture_laid_out_from_kept_widths_draws_no_face(
    mini: Path, tmp_path: Path, drawn: list[tuple[str, str]]
) -> None:
    """Read back, the widths lay the picture out as drawn faces do (the same boxes), and a
    face is drawn only when its pixels are missing."""
    cache = RenderCache(tmp_path / "cache" / "scenes.pack")
    first = scenario_scene(game_with_aids(mini), game_with_aids(mini).scenarios[0], "en", cache)
    png = scene_png(first, cache)
    drawn.clear()
    game = game_with_aids(mini)
    again = scenario_scene(game, game.scenarios[0], "en", cache)
    assert drawn == []
    faces = [op.drawing for op in again.overlay.ops if isinstance(op, Inset)]
    assert faces and all(isinstance(face, KeyedFace) for face in faces)
    assert [op for op in again.overlay.ops if not isinstance(op, Inset)] == [
        op for op in first.overlay.ops if not isinstance(op, Inset)
    ]
    assert again.drawn == first.drawn
    assert scene_png(again, cache) == png
    assert drawn == []
    assert again.overlay == first.overlay  # drawn when compared: the same faces


def test_faces_laid_again_only_where_a_face_changed(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preview's picture of a scenario one of whose pieces changed lays again only the
    faces over that piece's place (the rest is the picture kept from the build before), and
    gives the bytes of a picture made without a cache; a damaged kept picture lays all."""
    cache = RenderCache(tmp_path / "cache" / "scenes.pack")
    game = game_with_aids(mini)
    scene_png(scenario_scene(game, game.scenarios[0], "en", cache), cache)
    cache.save()
    bump_front(mini, PLACED)
    laid: list[object] = []
    real = raster.lay

    def spy(result: object, image: object, at: tuple[int, int]) -> None:
        laid.append(at)
        real(result, image, at)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics, "lay", spy)
    game = game_with_aids(mini)
    scene = scenario_scene(game, game.scenarios[0], "en", RenderCache(None))
    shown = sum(isinstance(op, Inset) for op in scene.overlay.ops)
    plain = scene_png(scene)
    assert len(laid) == shown
    laid.clear()
    again = RenderCache(tmp_path / "cache" / "scenes.pack")
    assert scene_png(scene, again) == plain
    assert 0 < len(laid) < shown
    damaged = RenderCache(tmp_path / "cache" / "scenes.pack")  # as the first picture left it
    bands = [k for k in damaged.index if k.split(":")[1:2] == ["scene-laid-rows"]]
    assert bands
    for key in bands:
        damaged.memory[key] = b"\x00damaged"
    laid.clear()
    assert scene_png(scene, damaged) == plain
    assert len(laid) == shown


def test_a_png_read_back_keeps_what_it_was_made_from(mini: Path, tmp_path: Path) -> None:
    """keep_scene_png marks used the entries the scenario's PNG was made from (its faces'
    pixels, the faces laid over its boards, its compressed bands), so that they outlive builds that read the PNG
    itself back; a damaged list keeps nothing and raises nothing."""
    pack = tmp_path / "cache" / "scenes.pack"
    first = RenderCache(pack)
    game = game_with_aids(mini)
    scenario = game.scenarios[0]
    scene = scenario_scene(game, scenario, "en", first)
    scene_png(scene, first)
    made = set(first.memory)  # its faces, boards, laid rows and compressed bands
    assert {key for key in made if ":" not in key}  # the compressed bands
    first.save()
    later = RenderCache(pack)
    scenepics.keep_scene_png(later, scenario, "en")
    kinds = {kind for key in later.used for kind in key.split(":")[1:2]}
    assert {"scene-face", "scene-laid", "scene-laid-rows", "scene-face-widths"} <= kinds
    assert made <= later.used
    damaged = RenderCache(None)
    damaged.put(scene_support_key(scenario), b"\x00not a list")
    scenepics.keep_scene_png(damaged, scenario, "en")


def scene_support_key(scenario: object) -> str:
    return scenepics._support_key(scenario, "en")  # type: ignore[arg-type]


def test_a_setup_picture_read_back_keeps_its_faces_widths_and_boards(
    mini: Path, tmp_path: Path
) -> None:
    """charts.pdf's picture read back from the cache (no piece changed) keeps the widths of
    its faces and its scaled boards too: a later build with a placed unit changed finds them
    however many builds read the picture back meanwhile."""
    game = game_with_aids(mini)
    card = next(chart for chart in game.aids if chart.id.startswith("setup-"))
    pack = tmp_path / "cache" / "charts.pack"
    first = RenderCache(pack)
    made = scenepics_pdf.setup_picture(game, card, SheetOptions(), first)
    assert made is not None
    scene = scenario_scene(game, game.scenarios[0], "en")  # the scene made with `first`
    widths, *boards = scene.support[1:]
    assert boards and {widths, *boards} <= set(made.forms) <= set(first.memory)
    first.save()
    later = RenderCache(pack)
    assert scenepics_pdf.setup_picture(game_with_aids(mini), card, SheetOptions(), later) == made
    assert {widths, *boards} <= later.used


def test_pictures_over_the_same_boards_are_kept_apart(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two scenarios' pictures over the same boards (the same pixels under their faces) keep
    their laid faces under keys of their own: neither makes the other lay all its faces."""
    game = game_with_aids(mini)
    scene = scenario_scene(game, game.scenarios[0], "en")
    _under, insets, _over = scenepics._split_overlay(scene.overlay.ops)
    scale = (scene.width / scene.overlay.width, float(scene.height))
    wanted = [scenepics._wanted(inset, scale) for inset in insets]
    base = Image.new("RGB", (scene.width, scene.height), (255, 255, 255))
    cache = RenderCache(None)
    first = lay_kept(base.copy(), wanted, cache, ("one",))
    other = lay_kept(base.copy(), wanted[:-1], cache, ("two",))
    laid: list[object] = []
    real = raster.lay

    def spy(result: Image.Image, image: Image.Image, at: tuple[int, int]) -> None:
        laid.append(at)
        real(result, image, at)

    monkeypatch.setattr(scenepics, "lay", spy)
    again = lay_kept(base.copy(), wanted, cache, ("one",))
    assert laid == []
    assert again.tobytes() == first.tobytes() != other.tobytes()


def lay_kept(
    base: Image.Image, wanted: list[scenepics._Wanted], cache: RenderCache, names: tuple[str, ...]
) -> Image.Image:
    """The faces laid over `base` from the picture kept under `names`, kept again (as a whole
    picture made is: no compressed bands)."""
    laying = scenepics._lay_kept(base, wanted, cache, names)
    scenepics._keep_laid(cache, laying.key, laying.stored, (laying.laid, laying.bands, [], ""))
    return laying.image


def test_the_preview_keeps_what_its_scenario_pictures_are_made_from(
    mini: Path, tmp_path: Path
) -> None:
    """Builds that read a scenario's PNG back from the preview's cache keep the entries the
    PNG was made from, so that the build after them, one placed face changed, finds them."""
    from compiler.backends.preview.build import Files, _scenes
    from compiler.backends.rendercache import AGE_LIMIT

    pack = tmp_path / "cache" / "scenes.pack"
    scenario = game_with_aids(mini).scenarios[0]
    support = scenepics._support_key(scenario, "en")
    _scenes(game_with_aids(mini), "en", Files(), RenderCache(pack))
    keys = marshal.loads(RenderCache(pack).get(support) or b"")
    assert keys
    for _ in range(AGE_LIMIT + 2):  # builds in which nothing on the pictures changed
        _scenes(game_with_aids(mini), "en", Files(), RenderCache(pack))
    later = RenderCache(pack)
    assert all(later.holds(key) for key in [support, *keys])


@pytest.mark.parametrize(
    ("laid", "whole"),
    [
        ([], True),
        ([("key", 1, 2, 3, 4)], True),
        ([("key", 1, 2, 3, 4), ("other", 0, 0, 0, 0)], True),
        ([("key", 1, 2, 3)], False),
        ([("key", 1, 2, 3, 4, 5)], False),
        ([(1, 1, 2, 3, 4)], False),
        ([("key", 1.0, 2, 3, 4)], False),
        ([("key", True, 2, 3, 4)], False),
        ([["key", 1, 2, 3, 4]], False),
        ([("key", 1, 2, 3, "4")], False),
        (("key", 1, 2, 3, 4), False),
        (None, False),
    ],
)
def test_only_a_list_of_faces_laid_is_read_back_as_one(laid: object, whole: bool) -> None:
    assert scenepics._are_laid(laid) is whole


def test_the_boards_and_words_under_the_faces_are_kept(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A picture drawn again after one of its pieces changed takes its boards with the words
    under the faces from the cache (not pasted and rasterised again) and gives the bytes of a
    picture made without a cache; a damaged one is made again."""
    scene, plain, pack = kept_then_changed(mini, tmp_path)
    under = scenepics._split_overlay(scene.overlay.ops)[0]
    painted: list[int] = []
    real = scenepics._paint

    def spy(image: Image.Image, width: float, ops: list[object]) -> None:
        painted.append(len(ops))
        real(image, width, ops)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics, "_paint", spy)
    again = RenderCache(pack)
    assert scene_png(scene, again) == plain
    assert under and len(under) not in painted
    key = scenepics._base_key(scene, under)
    again.memory[key] = b"\x00damaged"
    painted.clear()
    assert scene_png(scene, again) == plain
    assert len(under) in painted
