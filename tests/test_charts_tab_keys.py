"""The module's tabs of a player aid are keyed together: an aid that did not change reads its
tabs' keys back from one entry (kept under the printed aid's key) instead of working each
out; they are the keys worked out, and a damaged entry is worked out again."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.charts import build
from compiler.backends.charts.build import ChartPng, chart_images, chart_key, render_charts
from compiler.backends.charts.printed import printed
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from tests.conftest import game_with_aids, replace_in


def _pngs(mini: Path, cache: RenderCache) -> list[ChartPng]:
    game = game_with_aids(mini)
    render_charts(game, SheetOptions(), cache)
    return chart_images(game, "en")


def _worked_out(mini: Path) -> list[str]:
    """Each tab's key worked out on its own (as a build without kept tab keys does)."""
    game = game_with_aids(mini)
    return [chart_key(game, chart, "en") for chart in build.all_charts(game, "en")]


def _tab_entries(pack: Path) -> list[str]:
    cache = RenderCache(pack)
    return [key for key in cache.index if ":chart-tab-keys:" in key]


def test_kept_tab_keys_are_the_keys_worked_out(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    cold = _pngs(mini, RenderCache(pack))
    assert _tab_entries(pack)
    warm = _pngs(mini, RenderCache(pack))
    looks = _worked_out(mini)
    assert [png.key for png in warm] == [png.key for png in cold]
    assert len(warm) == len(looks)
    assert all(png.key.endswith(look) for png, look in zip(warm, looks, strict=True))


def test_an_aid_that_did_not_change_works_out_no_tab_key(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "charts.pack"
    _pngs(mini, RenderCache(pack))
    worked: list[str] = []
    real = build.chart_key

    def spy(*args: object, **kwargs: object) -> str:
        key = real(*args, **kwargs)  # type: ignore[arg-type]
        worked.append(key)
        return key

    monkeypatch.setattr(build, "chart_key", spy)
    game = game_with_aids(mini)
    shown = sum(len(charts) for _heading, charts in printed(game))
    render_charts(game, SheetOptions(), RenderCache(pack))
    assert len(worked) == shown  # the printed charts' keys only, no tab's


def test_a_changed_aid_s_tabs_are_keyed_again(mini: Path, tmp_path: Path) -> None:
    pack = tmp_path / "charts.pack"
    before = _pngs(mini, RenderCache(pack))
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm = _pngs(mini, RenderCache(pack))
    looks = _worked_out(mini)
    assert all(png.key.endswith(look) for png, look in zip(warm, looks, strict=True))
    assert [png.key for png in warm] != [png.key for png in before]
    cold = [png.data for png in _pngs(mini, RenderCache(tmp_path / "cold.pack"))]
    assert [png.data for png in warm] == cold


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"\xe9\x00\x00\x00\x00"])
def test_a_damaged_tab_keys_entry_is_worked_out_again(
    mini: Path, tmp_path: Path, damage: bytes
) -> None:
    pack = tmp_path / "charts.pack"
    cold = _pngs(mini, RenderCache(pack))
    cache = RenderCache(pack)
    for key in _tab_entries(pack):
        cache.put(key, damage)
    cache.save()
    warm = _pngs(mini, RenderCache(pack))
    assert [png.key for png in warm] == [png.key for png in cold]
    assert [png.data for png in warm] == [png.data for png in cold]
