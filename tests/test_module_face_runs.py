"""The faces of the units a warm module takes as the build before named them are kept by runs
of units (module.FaceRun, in the identities' pack): a run none of whose units changed is taken
whole, the changed unit's run face by face; a run entry that does not hold (damaged, not one,
or holding faces the names table does not name) is worked out again. The module is always
the cold one."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from bench.bench_warm import change_unit, make_game
from compiler.backends.rendercache import RenderCache
from compiler.backends.vassal import module
from compiler.backends.vassal.module import FACE_RUN, FaceRun, build_module
from tests.conftest import cold_module, game_with_aids


@pytest.fixture
def runs_read(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each run entry read back was one (FaceRun.read), in order."""
    seen: list[bool] = []
    read = FaceRun.read.__func__  # type: ignore[attr-defined]

    def spy(cls: type[FaceRun], data: bytes | None, keys: module.FaceKeys) -> FaceRun | None:
        found: FaceRun | None = read(cls, data, keys)
        seen.append(found is not None)
        return found

    monkeypatch.setattr(FaceRun, "read", classmethod(spy))
    return seen


def _pack(out: Path) -> Path:
    (pack,) = (out / ".cache").glob("*/identities.pack")
    return pack


def test_a_changed_unit_works_out_its_run_alone(tmp_path: Path, runs_read: list[bool]) -> None:
    game = make_game(tmp_path / "games", 300)
    out = tmp_path / "out"
    build_module(game_with_aids(game.folder), out)  # cold: every face drawn, named
    build_module(game_with_aids(game.folder), out)  # every face named before: runs kept
    runs_read.clear()
    build_module(game_with_aids(game.folder), out)
    assert len(runs_read) > 2 and all(runs_read)  # nothing changed: every run taken whole
    change_unit(game, 0)
    runs_read.clear()
    warm = build_module(game_with_aids(game.folder), out).read_bytes()
    assert runs_read.count(False) == 1  # the changed unit's run: not kept under its key
    assert warm == cold_module(game.folder, tmp_path)
    for _build in range(2):  # its faces named by the build that drew them: kept by the next
        runs_read.clear()
        build_module(game_with_aids(game.folder), out)
    assert all(runs_read)


@pytest.mark.parametrize("damage", ["not a run", "unnamed faces", "uneven columns"])
def test_a_run_entry_that_does_not_hold_is_worked_out_again(tmp_path: Path, damage: str) -> None:
    game = make_game(tmp_path / "games", 150)
    out = tmp_path / "out"
    build_module(game_with_aids(game.folder), out)
    build_module(game_with_aids(game.folder), out)  # the runs kept
    kept = RenderCache(_pack(out))
    runs = [key for key in kept.index if key.startswith(FACE_RUN)]
    assert runs
    for key in runs:
        data = kept.get(key)
        assert data is not None
        ids, fronts, backs, counts = marshal.loads(data)
        if damage == "not a run":
            planted: list[str] | tuple[object, ...] = ["not", "a", "run"]
        elif damage == "unnamed faces":  # faces the names table does not name
            planted = (ids, [f"{front}:other" for front in fronts], backs, counts)
        else:  # a unit's front missing
            planted = (ids, fronts[1:], backs, counts)
        kept.put(key, marshal.dumps(planted))  # type: ignore[arg-type]
    kept.save()
    change_unit(game, 1)
    warm = build_module(game_with_aids(game.folder), out).read_bytes()
    assert warm == cold_module(game.folder, tmp_path)
