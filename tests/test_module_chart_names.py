"""The module's chart PNGs on a warm build: one the charts' render cache gave is named by its
cache key from the names table of the build before (vassal.module.FaceNames), not hashed
again; the module is the bytes a cold build writes, whatever state the table, the charts'
cache or the module before are in."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compiler.backends.charts.build import ChartPng, chart_images, render_charts
from compiler.backends.rendercache import RenderCache
from compiler.backends.sheets.options import SheetOptions
from compiler.backends.vassal import module as vm
from compiler.backends.vassal.module import build_module
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import replace_in

RENAME = ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return with_aids(game)[0]


def _cache(out: Path) -> Path:
    return out / ".cache" / "mini"


def _build(mini: Path, out: Path) -> bytes:
    """The module as `countermix build` makes it: the charts rendered into their cache first
    (pipeline), then the module, which takes its chart PNGs from there."""
    game = _game(mini)
    render_charts(game, SheetOptions(), RenderCache(_cache(out) / "charts.pack"))
    return build_module(game, out).read_bytes()


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The prefixes of the images the module hashes to name them (ImageStore.add_file, which
    still runs)."""
    prefixes: list[str] = []
    real = vm.ImageStore.add_file

    def add_file(store: vm.ImageStore, data: bytes, ext: str, prefix: str) -> str:
        prefixes.append(prefix)
        return real(store, data, ext, prefix)

    monkeypatch.setattr(vm.ImageStore, "add_file", add_file)
    yield prefixes


def test_cached_charts_are_named_without_hashing_and_the_module_is_the_cold_one(
    mini: Path, tmp_path: Path, hashed: list[str]
) -> None:
    out = tmp_path / "out"
    first = _build(mini, out)
    charts = hashed.count("chart")
    assert charts > 1  # every chart drawn, hashed
    hashed.clear()
    assert _build(mini, out) == first
    assert hashed.count("chart") == 0  # each named by its key, as the build before named it
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    hashed.clear()
    warm = _build(mini, out)
    assert 1 <= hashed.count("chart") < charts  # the charts that show the unit, drawn again
    assert warm != first
    assert warm == _build(mini, tmp_path / "cold")


def test_the_names_table_holds_each_charts_name_by_its_key(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(mini, out)
    game = _game(mini)
    render_charts(game, SheetOptions(), RenderCache(_cache(out) / "charts.pack"))
    plan, images = vm.render_plan(game, _cache(out) / "faces.pack")
    (table,) = _cache(out).glob("faces.pack.names-*")
    names = vm._read_names(table)
    pngs = chart_images(game, "en")
    assert pngs and all(png.key and not png.drawn for png in pngs)
    for png, (_title, name) in zip(pngs, plan.charts, strict=True):
        assert names[png.key] == (name, plan.image_crcs[f"images/{name}"], len(png.data))
        assert images[f"images/{name}"] == png.data


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _scramble_directory(module: Path) -> None:
    data = bytearray(module.read_bytes())
    directory = data.rindex(b"PK\x01\x02")
    data[directory + 16 : directory + 28] = b"\xff" * 12  # the last entry's CRC-32 and sizes
    module.write_bytes(bytes(data))


def _names(out: Path) -> Path:
    (table,) = _cache(out).glob("faces.pack.names-*")
    return table


def _charts_pack(out: Path) -> Path:
    return _cache(out) / "charts.pack"


def _module(out: Path) -> Path:
    return out / "mini" / "mini.vmod"


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


DAMAGE: list[tuple[Callable[[Path], Path], Callable[[Path], None]]] = [
    (_names, _truncate),
    (_names, _remove),
    (_charts_pack, _truncate),
    (_charts_pack, _remove),
    (_module, _truncate),
    (_module, _scramble_directory),
    (_module, _remove),
]


@pytest.mark.parametrize(
    ("where", "damage"),
    DAMAGE,
    ids=[f"{w.__name__.strip('_')}-{d.__name__.strip('_')}" for w, d in DAMAGE],
)
def test_a_damaged_or_missing_table_cache_or_module_before_is_a_miss(
    mini: Path,
    tmp_path: Path,
    where: Callable[[Path], Path],
    damage: Callable[[Path], None],
) -> None:
    """After a unit changed, with the names table, the charts' cache or the module before
    damaged or gone: the module a cold build writes."""
    out = tmp_path / "out"
    _build(mini, out)
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    damage(where(out))
    assert _build(mini, out) == _build(mini, tmp_path / "cold")


class _Watched(ChartPng):
    """A chart whose bytes, when asked for, are noted in READS."""

    __slots__ = ()

    @property
    def data(self) -> bytes:
        READS.append(self.title)
        return super().data


READS: list[str] = []


def _watched(chart: ChartPng) -> _Watched:
    """The same chart, its bytes read (when asked for) as the chart would read them."""
    watched = _Watched(chart.title, b"", chart.key, chart.drawn)
    watched._data, watched._read = chart._data, chart._read
    return watched


@pytest.fixture
def chart_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The titles of the charts whose bytes the module asks for (each chart_images gives)."""

    def watched(game: GameData, lang: str) -> list[ChartPng]:
        return [_watched(chart) for chart in chart_images(game, lang)]

    monkeypatch.setattr(vm, "chart_images", watched)
    READS.clear()
    yield READS
    READS.clear()


def test_a_chart_copied_from_the_module_before_is_not_read(
    mini: Path, tmp_path: Path, chart_reads: list[str]
) -> None:
    """The bytes of a chart taken from the charts' cache, named as before, are not asked for
    when the module before holds its entry; they are when it does not (here: removed)."""
    out = tmp_path / "out"
    first = _build(mini, out)
    drawn = len(chart_reads)
    assert drawn > 1  # drawn by the first build, hashed
    chart_reads.clear()
    assert _build(mini, out) == first
    assert chart_reads == []
    _module(out).unlink()
    assert _build(mini, out) == first
    assert len(chart_reads) == drawn  # each read once, to be written
