"""The scenario pictures of the preview page kept with their files' names and sizes
(preview.build._scenes): a warm build names a kept picture's file without reading the
picture, reads it only to write the file, and draws it again when the kept bytes are
damaged or not the file's."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.preview import build
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.scenepics import picture_key
from compiler.backends.vassal.module import Read
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario


def scenes(game: GameData, pack: Path) -> tuple[dict[str, str], build.Files]:
    files = build.Files()
    return build._scenes(game, "en", files, RenderCache(pack)), files


@pytest.fixture
def game(mini: Path) -> GameData:
    found = load_game(mini).game
    assert found is not None and found.scenarios
    return found


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the kept pictures read from here on."""
    names: list[str] = []
    real = build._scene_bytes

    def spy(pack: Path | None, key: str, name: str, redraw: Read) -> bytes:
        names.append(name)
        return real(pack, key, name, redraw)

    monkeypatch.setattr(build, "_scene_bytes", spy)
    return names


def test_a_kept_picture_is_named_unread_and_read_as_drawn(
    game: GameData, tmp_path: Path, read: list[str]
) -> None:
    pack = tmp_path / "scenes.pack"
    drawn, cold = scenes(game, pack)
    warm_names, warm = scenes(game, pack)
    assert warm_names == drawn
    assert not read  # named from the record
    for name in drawn.values():
        assert warm.files[name] == cold.files[name]
    assert sorted(read) == sorted(drawn.values())


@pytest.mark.parametrize("damage", ["other bytes", "lost"])
def test_a_damaged_kept_picture_is_drawn_again(
    game: GameData,
    tmp_path: Path,
    read: list[str],
    damage: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    redrawn: list[str] = []
    real = build._scene_drawn

    def spy(game: GameData, scenario: Scenario, lang: str, pack: Path | None) -> bytes:
        redrawn.append(scenario.id)
        return real(game, scenario, lang, pack)

    monkeypatch.setattr(build, "_scene_drawn", spy)
    pack = tmp_path / "scenes.pack"
    drawn, cold = scenes(game, pack)
    cache = RenderCache(pack)
    for scenario in game.scenarios:
        key = digest_key("preview-scene", picture_key(game, scenario, "en"))
        assert cache.holds(key)
        if damage == "other bytes":  # whole entries (their CRC holds), not the file's
            cache.memory[key] = b"\x89PNG not the picture"
            cache.new.append(key)
        else:  # an entry the index names, its bytes spoilt in the pack (its CRC fails)
            start = cache._offsets[cache.index[key]]
            with open(pack, "r+b") as data:
                data.seek(start + 10)
                data.write(b"spoilt")
    cache.save()
    names, warm = scenes(game, pack)
    assert names == drawn
    for name in drawn.values():
        assert warm.files[name] == cold.files[name]
    assert sorted(read) == sorted(drawn.values())
    assert sorted(redrawn) == sorted(drawn)
