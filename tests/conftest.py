"""Shared fixtures: copies of the fixture game and helpers to run the pipeline on them."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.rendercache import RenderCache
from compiler.diagnostics import Finding
from compiler.load import keptread
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.rowruns import RowRuns
from compiler.pipeline import check_game

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent
SOURCES = REPO / "sources"


@cache
def seed_game(name: str) -> GameData:
    """A seed game from sources/, with its player aids, loaded once per test run (shared:
    tests must not change it)."""
    data = load_game(SOURCES / name).game
    assert data is not None, name
    return with_aids(data)[0]


def loaded_game(folder: Path) -> GameData:
    """The game of `folder` loaded afresh, without its player aids."""
    data = load_game(folder).game
    assert data is not None, folder
    return data


def loaded_seed(name: str) -> GameData:
    """A seed game from sources/ loaded afresh, without its player aids."""
    return loaded_game(SOURCES / name)


def game_with_aids(folder: Path) -> GameData:
    """The game of `folder` with its player aids, loaded afresh (nothing remembered from
    another build)."""
    data = load_game(folder).game
    assert data is not None, folder
    return with_aids(data)[0]


def module_built(folder: Path, out: Path) -> bytes:
    """The module `build_module` writes of the game in `folder` (loaded afresh) into `out`,
    with the caches and the module a build before left there."""
    from compiler.backends.vassal.module import build_module

    return build_module(game_with_aids(folder), out).read_bytes()


def cold_module(folder: Path, tmp_path: Path) -> bytes:
    """The module a build with no cache and no module before writes of the game in `folder`."""
    return module_built(folder, tmp_path / "cold")


@pytest.fixture
def rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first line of every player-aids chart row read from its text (not read back) from
    here on."""
    from compiler.load import aids

    seen: list[int] = []
    real = aids._row_alone

    def spy(path: Path, line: int, text: str) -> object:
        seen.append(line)
        return real(path, line, text)

    monkeypatch.setattr(aids, "_row_alone", spy)
    return seen


def findings_of(folder: Path) -> list[Finding]:
    return check_game(folder).findings


def flat(folder: Path, findings: list[Finding]) -> set[tuple[str, int, str]]:
    """(file relative to the game folder, line, rule id) per finding."""
    out = set()
    for finding in findings:
        path = Path(finding.location.path)
        try:
            name = str(path.relative_to(folder))
        except ValueError:
            name = str(path)
        out.add((name, finding.location.line, finding.rule))
    return out


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A fresh writable copy of the fixture game."""
    target = tmp_path / "mini"
    shutil.copytree(DATA / "mini", target)
    return target


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line holding `needle` (the tests' way to name a place)."""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in text:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


Mutation = Callable[[Path], None]


def every_field(value: object) -> object:
    """A value with every field of its records, positions too (records compare without them)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple((f.name, every_field(getattr(value, f.name))) for f in dataclasses.fields(value)),
        )
    if isinstance(value, tuple | list | RowRuns):  # (a chart's rows kept in runs: read back)
        return tuple(every_field(item) for item in value)
    if isinstance(value, Mapping):
        return tuple((key, every_field(item)) for key, item in value.items())
    return value


@pytest.fixture
def item_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first line of every list item read from its text (not read back) since a clear."""
    seen: list[int] = []
    real = keptread._read_item

    def spy(path: str, section: str, line: int, text: str) -> object:
        seen.append(line)
        return real(path, section, line, text)

    monkeypatch.setattr(keptread, "_read_item", spy)
    return seen


DIES_WITH_PARENT = pytest.mark.skipif(
    not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
    reason="drawing processes end with their parent on Linux; one core draws in process",
)
"""For the tests of killed builds: a forked drawer ends with its parent only on Linux."""


def stderr_of_a_killed_build(script: str, drawing: int) -> bytes:
    """Run `script` (it prints "drawing", then starts jobs that each print "job" and sleep 300 s
    in forked processes), kill it (SIGKILL) once `drawing` jobs run, and give its stderr: the
    drawers hold that pipe, so a drawer left running makes the wait time out (the test fails);
    they are killed at the end whatever happened."""
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    drawers: list[str] = []
    try:
        assert process.stdout is not None and process.stdout.readline() == b"drawing\n"
        assert [process.stdout.readline() for _ in range(drawing)] == [b"job\n"] * drawing
        drawers = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        process.kill()
        return process.communicate(timeout=60)[1]
    finally:
        process.kill()
        for pid in drawers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


@pytest.fixture
def sheet_faces_drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many faces the cache lacked at each call of the print sheets that draws the missing
    ones (calls that find them all are not counted), from here on."""
    from compiler.backends.sheets import pdf

    seen: list[int] = []
    real = pdf._draw_missing

    def spy(cache: object, keys: list[str], faces: object, height: float) -> None:
        absent = sum(not cache.holds(key) for key in keys)  # type: ignore[attr-defined]
        if absent:
            seen.append(absent)
        real(cache, keys, faces, height)  # type: ignore[arg-type]

    monkeypatch.setattr(pdf, "_draw_missing", spy)
    return seen


LONG_NAME = "Extraordinarily Overlong Provisional Division of the Line " * 3


@pytest.fixture
def warned(mini: Path) -> Path:
    """The fixture game with a unit name the faces must shorten (a warning)."""
    replace_in(mini / "units.yaml", "2nd Infantry,", f"{LONG_NAME.strip()},")
    return mini


@pytest.fixture
def pdf_forms_drawn(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The drawings the PDF writer made forms of from here on (spied on)."""
    from compiler.backends.pdf import content

    made: list[object] = []
    real = content._drawing_form

    def spy(drawing: object) -> object:
        made.append(drawing)
        return real(drawing)  # type: ignore[arg-type]

    monkeypatch.setattr(content, "_drawing_form", spy)
    return made


class RecordingCache(RenderCache):
    """A render cache that lists the keys put in it."""

    def __init__(self, pack: Path | None) -> None:
        super().__init__(pack)
        self.put_keys: list[str] = []

    def put(self, key: str, data: bytes) -> None:
        self.put_keys.append(key)
        super().put(key, data)


def spy_on_parts_drawn(monkeypatch: pytest.MonkeyPatch, seen: list[str]) -> None:
    """From here on, add to `seen` the id of each chart whose printed part is drawn (the real
    part is still drawn, with the same arguments)."""
    from compiler.backends.charts import printed
    from compiler.backends.charts.table import Part, draw_part
    from compiler.model.charts import Chart

    def spy(game: GameData, chart: Chart, *rest: Any, **options: Any) -> Part:
        seen.append(chart.id)
        return draw_part(game, chart, *rest, **options)

    monkeypatch.setattr(printed, "draw_part", spy)


def spy_on_thumbnail_rasterize(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From here on, the height of each drawing the preview's thumbnails rasterise (the real
    drawing is still rasterised, with the same arguments), in a list given back."""
    from compiler.backends.art.raster import rasterize
    from compiler.backends.preview import thumbs

    heights: list[int] = []

    def spy(drawing: Any, height: int, supersample: int = 4) -> Any:
        heights.append(height)
        return rasterize(drawing, height, supersample)

    monkeypatch.setattr(thumbs, "rasterize", spy)
    return heights


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per render of a player-aids template (compiler.load.aids._render) since the
    last clear."""
    from compiler.load import aids

    seen: list[int] = []
    real = aids._render

    def spy(template: Any, names: dict[str, object]) -> str:
        seen.append(1)
        return real(template, names)

    monkeypatch.setattr(aids, "_render", spy)
    return seen


def chart_cache_after_an_edit(mini: Path, tmp_path: Path) -> tuple[RenderCache, list[str]]:
    """The mini game's charts rendered into a cache in `tmp_path`, then one unit renamed: the
    cache opened again, and the keys of its chart PNGs' band tables (some)."""
    from compiler.backends.charts.bandpng import decode_table
    from compiler.backends.charts.build import render_charts
    from compiler.backends.sheets.options import SheetOptions

    pack = tmp_path / "charts.pack"
    render_charts(game_with_aids(mini), SheetOptions(), RenderCache(pack))
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    cache = RenderCache(pack)
    tables = [key for key in list(cache.index) if decode_table(cache.get(key)) is not None]
    assert tables
    return cache, tables


def assert_warm_chart_pngs_are_cold(mini: Path, tmp_path: Path, cache: RenderCache) -> None:
    """The mini game's chart PNGs rendered with `cache` are those rendered with none."""
    from compiler.backends.charts.build import chart_images, render_charts
    from compiler.backends.sheets.options import SheetOptions

    game = game_with_aids(mini)
    render_charts(game, SheetOptions(), cache)
    warm = [png.data for png in chart_images(game, "en")]
    cold_game = game_with_aids(mini)
    render_charts(cold_game, SheetOptions(), RenderCache(tmp_path / "cold.pack"))
    assert warm == [png.data for png in chart_images(cold_game, "en")]


def modules_imported_by(code: str, watched: str) -> str:
    """Which of the `watched` modules (a Python expression: a collection of names, or a test
    on `m`) are imported after `code` runs in a fresh interpreter, as its printed list."""
    check = f"print(sorted(m for m in sys.modules if {watched}))\n"
    run = [sys.executable, "-c", "import sys\n" + code + check]
    return subprocess.run(run, capture_output=True, text=True, check=True).stdout.strip()
