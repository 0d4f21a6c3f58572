"""A scenario picture made again after a few of its faces changed is patched band by band: only
the bands of rows that hold a changed face's place are read, laid again and compressed; the
others' compressed bytes are taken as they were kept. The PNG is the one a picture made
without a cache gives, and anything missing, damaged or different from what was kept (the
words over the faces, too many faces changed) makes it whole again, with the same bytes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from compiler.backends import scenepics
from compiler.backends.art.display import Text
from compiler.backends.rendercache import RenderCache
from compiler.backends.scenepics import Scene, scenario_scene, scene_png
from tests.conftest import game_with_aids
from tests.test_scenepics_warm import PLACED, bump_front, kept_then_changed

KIND = slice(1, 2)
"""A cache key's kind (the part after its first colon)."""


def kind(key: str) -> str:
    return "".join(key.split(":")[KIND])


class Reads:
    """The cache keys a picture reads, by kind."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.keys: list[str] = []
        real = RenderCache.get

        def spy(cache: RenderCache, key: str) -> bytes | None:
            self.keys.append(key)
            return real(cache, key)

        monkeypatch.setattr(RenderCache, "get", spy)

    def of(self, wanted: str) -> list[str]:
        return [key for key in self.keys if kind(key) == wanted]


def bands_of(scene: Scene) -> int:
    return scenepics._band_count(scene.height)


def test_only_the_bands_that_hold_a_changed_face_are_read_and_compressed(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene, plain, pack = kept_then_changed(mini, tmp_path)
    assert scenepics._split_overlay(scene.overlay.ops)[2]  # words over the faces: painted too
    compressed: list[int] = []
    real = scenepics._band

    def spy(rows: memoryview, *args: object) -> tuple[bytes, int]:
        compressed.append(len(rows))
        return real(rows, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics, "_band", spy)
    reads = Reads(monkeypatch)
    cache = RenderCache(pack)
    assert scene_png(scene, cache) == plain
    count = bands_of(scene)
    laid_rows, base_rows = reads.of("scene-laid-rows"), reads.of("scene-base-rows")
    assert 0 < len(laid_rows) == len(base_rows) == len(compressed) < count // 4
    assert len(reads.of("")) >= count - len(compressed)  # the others' compressed bytes
    again = RenderCache(pack)  # the pack as the first picture left it: patched the same way
    reads.keys.clear()
    assert scene_png(scene, again) == plain
    assert len(reads.of("scene-laid-rows")) == len(laid_rows)


def test_a_patched_picture_is_kept_for_the_next(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture patched is kept as a whole one is: the next build, nothing changed on
    it, reads no rows and gives the same bytes; one more change patches it again."""
    scene, plain, pack = kept_then_changed(mini, tmp_path)
    cache = RenderCache(pack)
    assert scene_png(scene, cache) == plain
    cache.save()
    reads = Reads(monkeypatch)
    assert scene_png(scene, RenderCache(pack)) == plain
    assert reads.of("scene-laid-rows") == reads.of("scene-base-rows") == []
    bump_front(mini, PLACED)
    game = game_with_aids(mini)
    changed = scenario_scene(game, game.scenarios[0], "en", RenderCache(pack))
    other = scene_png(changed)
    assert other != plain
    reads.keys.clear()
    assert scene_png(changed, RenderCache(pack)) == other
    assert 0 < len(reads.of("scene-laid-rows")) < bands_of(changed) // 4


@pytest.mark.parametrize(
    ("lost", "how"),
    [
        ("scene-laid-rows", "damaged"),
        ("scene-laid-rows", "missing"),
        ("scene-base-rows", "damaged"),
        ("scene-base-rows", "missing"),
        ("scene-laid", "damaged"),
        ("scene-laid", "missing"),
        ("", "missing"),  # the compressed bands (damaged in the pack: test_scenepics_bands)
    ],
)
def test_a_missing_or_damaged_band_or_entry_makes_the_picture_whole(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lost: str, how: str
) -> None:
    """Every kept entry of the kind `lost` (rows of the picture, rows of its boards, the
    picture kept, compressed bands) gone or read back as rubbish: the same bytes, the
    picture made whole."""
    scene, plain, pack = kept_then_changed(mini, tmp_path)
    cache = RenderCache(pack)
    keys = [key for key in cache.index if kind(key) == lost]
    assert keys
    if how == "missing":
        cache._forget(keys)
    else:
        cache.memory.update(dict.fromkeys(keys, b"\x00damaged"))
    whole = spy_whole(monkeypatch)
    assert scene_png(scene, cache) == plain
    assert len(whole) == 1


def spy_whole(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The calls of _whole_png from now on (spied on)."""
    whole: list[object] = []
    real = scenepics._whole_png

    def spy(*args: object) -> tuple[bytes, list[str]]:
        whole.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scenepics, "_whole_png", spy)
    return whole


def test_other_words_over_the_faces_make_the_picture_whole(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bands kept were compressed with the words over the faces painted: a picture whose
    words there are others is made whole (each band not changed is taken by its digest)."""
    scene, _plain, pack = kept_then_changed(mini, tmp_path)
    ops = list(scene.overlay.ops)
    last = max(n for n, op in enumerate(ops) if isinstance(op, Text))
    words = ops[last]
    assert isinstance(words, Text)
    ops[last] = dataclasses.replace(words, text="Other words")
    other = Scene.__new__(Scene)
    vars(other).update(vars(scene))
    vars(other)["overlay"] = dataclasses.replace(scene.overlay, ops=tuple(ops))
    plain = scene_png(other)
    whole = spy_whole(monkeypatch)
    assert scene_png(other, RenderCache(pack)) == plain
    assert len(whole) == 1


@pytest.mark.parametrize(
    ("places", "height", "runs"),
    [
        ([], 100, []),
        ([(0, 0, 10, 10)], 100, [(0, 1)]),
        ([(0, 30, 10, 34)], 100, [(0, 2)]),
        ([(0, 32, 10, 64)], 100, [(1, 2)]),
        ([(0, 0, 10, 10), (0, 70, 10, 90)], 100, [(0, 1), (2, 3)]),
        ([(0, 0, 10, 10), (0, 40, 10, 70)], 100, [(0, 3)]),
        ([(0, 90, 10, 200)], 100, [(2, 4)]),
        ([(0, -20, 10, 5)], 100, [(0, 1)]),
        ([(0, 120, 10, 130)], 100, []),
        ([(-30, 0, -1, 10)], 100, []),
        ([(0, 10, 10, 10)], 100, []),
    ],
)
def test_the_bands_a_change_makes_again(
    places: list[tuple[int, int, int, int]], height: int, runs: list[tuple[int, int]]
) -> None:
    assert scenepics._dirty_runs(places, 50, height) == runs


def test_bands_made_again_anywhere_give_the_same_bytes(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every band made again on its own (the words over the faces painted on each, the
    faces that reach into it laid again there) gives the bytes of the picture made whole:
    a band holds what the whole picture holds in its rows."""
    scene, plain, pack = kept_then_changed(mini, tmp_path)
    count = bands_of(scene)
    monkeypatch.setattr(scenepics, "_dirty_runs", lambda *args: [(n, n + 1) for n in range(count)])
    whole = spy_whole(monkeypatch)
    assert scene_png(scene, RenderCache(pack)) == plain
    assert whole == []
