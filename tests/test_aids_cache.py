"""The player aids' output is read chart by chart and kept: a warm build reads again only the
charts whose output changed, gets the same records (with the same output lines) as a full read,
and never runs what a planted cache file names."""

from __future__ import annotations

import marshal
import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.load import aids
from compiler.load.aids import AIDS_CACHE, player_aids
from compiler.load.records import kept_chunk, read_kept
from compiler.model.common import Text
from tests.conftest import SOURCES, every_field, loaded_seed

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first output line of every text read by the loader since the last clear."""
    seen: list[int] = []
    real = aids._read

    def spy(path: Path, rendered: str) -> tuple[object, ...]:
        seen.append(rendered.count("\n"))
        return real(path, rendered)

    monkeypatch.setattr(aids, "_read", spy)
    return seen


@pytest.mark.parametrize("name", GAMES)
def test_cached_read_equals_a_full_read(name: str, tmp_path: Path, reads: list[int]) -> None:
    game = loaded_seed(name)
    whole, findings = player_aids(game)
    assert not findings and whole
    player_aids(game, tmp_path / "none")
    assert not (tmp_path / "none").exists()  # a cache folder is made by a build, not here
    first, _ = player_aids(game, tmp_path)
    reads.clear()
    again, _ = player_aids(game, tmp_path)
    assert first == whole and again == whole
    assert [c.loc for c in again] == [c.loc for c in whole]  # lines of the output kept
    assert reads == []  # nothing read the second time


def test_one_changed_chart_is_read_again(tmp_path: Path, reads: list[int]) -> None:
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    unit = replace(game.units[0], name=Text("Renamed", "改名"))
    changed = replace(game, units=(unit, *game.units[1:]))
    reads.clear()
    charts, _ = player_aids(changed, tmp_path)
    assert charts == player_aids(changed)[0]
    assert 0 < len(reads) < len(charts)


WITH_UNITS = [name for name in GAMES if name != "tank_killers"]  # a card game: no units


@pytest.mark.parametrize("name", WITH_UNITS)
def test_a_changed_unit_reads_its_rows_alone(
    name: str, tmp_path: Path, rows_read: list[int]
) -> None:
    """A changed chart is read row by row: only the rows whose output changed are read, and
    the chart is the one a full read gives, every position included."""
    game = loaded_seed(name)
    assert game.units
    player_aids(game, tmp_path)
    rows_read.clear()  # the first read's
    unit = replace(game.units[-1], name=Text("Renamed", "改名"))
    changed = replace(game, units=(*game.units[:-1], unit))
    charts, _ = player_aids(changed, tmp_path)
    assert every_field(charts) == every_field(player_aids(changed)[0])
    assert 0 < len(rows_read) < sum(len(chart.rows) for chart in charts) / 2
    rows_read.clear()
    again, _ = player_aids(changed, tmp_path)
    assert every_field(again) == every_field(charts) and rows_read == []


def test_a_games_own_template_is_rendered_once_per_game(renders: list[int]) -> None:
    """Validation asks for the aids of a game with its own template, then the build: the
    second time, nothing is rendered again; another game is rendered afresh."""
    game = loaded_seed("napoleon")
    path, source, _own = game.aids_template
    own = replace(game, aids_template=(path, source, True))
    first = player_aids(own)
    again = player_aids(own, Path("unused"))
    assert len(renders) == 1 and first == again and first[0] == player_aids(game)[0]
    player_aids(replace(own))
    assert len(renders) == 3  # the shared template's game, then a game equal but not the same


@pytest.mark.parametrize("odd", ["\u2028", "\x85", "\r"])
def test_a_line_break_of_yaml_alone_reads_as_a_full_read(odd: str, tmp_path: Path) -> None:
    """YAML breaks lines at CR, NEL, LS and PS too: output holding one keeps its positions."""
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    unit = replace(game.units[0], name=Text(f"Line{odd}break", "改名"))
    changed = replace(game, units=(unit, *game.units[1:]))
    charts, findings = player_aids(changed, tmp_path)
    whole, whole_findings = player_aids(changed)
    assert findings == whole_findings
    assert every_field(charts) == every_field(whole)


@pytest.mark.parametrize(
    "planted",
    [
        b"not marshal",
        marshal.dumps([1, 2]),
        "planted-os-system",
    ],
)
def test_a_damaged_or_planted_cache_is_read_afresh(
    planted: bytes | str, tmp_path: Path, reads: list[int]
) -> None:
    game = loaded_seed("napoleon")
    player_aids(game, tmp_path)
    stored = tmp_path / AIDS_CACHE
    if isinstance(planted, str):  # every kept chart replaced by a pickle that calls os.system
        evil = pickle.dumps(Evil(tmp_path / "ran"), protocol=pickle.HIGHEST_PROTOCOL)
        kept = read_kept(stored)
        stored.write_bytes(kept_chunk(dict.fromkeys(kept, evil)))
    else:
        stored.write_bytes(planted)
    reads.clear()
    charts, findings = player_aids(game, tmp_path)
    assert not findings and charts == player_aids(game)[0]
    assert reads  # read again, nothing run
    assert not (tmp_path / "ran").exists()


class Evil:
    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch '{self.mark}'",)
