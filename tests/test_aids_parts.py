"""The player aids kept as parts (a chart's head, then runs of rows) give exactly the charts a
plain whole render and read gives, for the seed games and generated ones, cold, warm and after
a change; a changed unit reads one run again, and a damaged part is read afresh."""

from __future__ import annotations

import json
import marshal
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from bench.generate_game import random_spec, write_game
from compiler.load import aids
from compiler.load.aids import AIDS_CACHE, RUN_ROWS, player_aids
from compiler.load.game import load_game
from compiler.load.records import kept_chunk, pickled, read_kept
from compiler.model import digests
from compiler.model.charts import Row
from compiler.model.common import Text
from compiler.model.digests import digest_of
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import SOURCES, every_field

GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def loaded(folder: Path) -> GameData:
    data = load_game(folder).game
    assert data is not None
    return data


def whole_read(game: GameData) -> object:
    """The aids of a plain render of the whole template, read whole (no cache, no parts)."""
    path, source, _own = game.aids_template
    rendered = aids._render(aids._shared_template(source), aids._names(game))
    charts, findings = aids._read(Path(path), rendered)
    assert not findings
    return every_field(charts)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GameData:
    folder = tmp_path_factory.mktemp("generated") / "game"
    write_game(folder, random_spec(150, 2, 40, seed=5), marker_copies=20)
    return loaded(folder)


def renamed(game: GameData, index: int) -> GameData:
    unit = replace(game.units[index], name=Text("Renamed", "改名"))
    return replace(game, units=(*game.units[:index], unit, *game.units[index + 1 :]))


def check_equal_to_whole_reads(game: GameData, cache: Path) -> None:
    expected = whole_read(game)
    for _round in range(2):  # cold, then warm
        charts, findings = player_aids(game, cache)
        assert not findings and every_field(charts) == expected
    for index in (0, len(game.units) // 2, -1):
        changed = renamed(game, index)
        charts, findings = player_aids(changed, cache)
        assert not findings and every_field(charts) == whole_read(changed)


@pytest.mark.parametrize("name", GAMES)
def test_seed_games_aids_equal_a_whole_read(name: str, tmp_path: Path) -> None:
    game = loaded(SOURCES / name)
    if not game.units:
        charts, _ = player_aids(game, tmp_path)
        assert every_field(charts) == whole_read(game)
        return
    check_equal_to_whole_reads(game, tmp_path)


def test_generated_game_aids_equal_a_whole_read(generated: GameData, tmp_path: Path) -> None:
    check_equal_to_whole_reads(generated, tmp_path)


def test_a_changed_unit_reads_one_run_again(
    generated: GameData, tmp_path: Path, rows_read: list[int]
) -> None:
    """One unit's values changed: its order of battle reads one run of rows again, nothing
    else is read."""
    player_aids(generated, tmp_path)
    rows_read.clear()  # the first read's
    unit = generated.units[len(generated.units) // 2 + 1]
    assert unit.front and unit.leader is None
    front = MappingProxyType({**unit.front, "movement": 9})
    changed = replace(
        generated,
        units=tuple(replace(u, front=front) if u is unit else u for u in generated.units),
    )
    charts, _ = player_aids(changed, tmp_path)
    assert every_field(charts) == whole_read(changed)
    assert 0 < len(rows_read) <= RUN_ROWS


def test_a_damaged_part_is_read_afresh(generated: GameData, tmp_path: Path) -> None:
    """Each kept part in turn damaged: the charts are those of a whole read."""
    expected = whole_read(generated)
    player_aids(generated, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept = read_kept(stored)
    for index, key in enumerate(sorted(kept)[:40]):
        damaged = dict(kept)
        damaged[key] = kept[key][: len(kept[key]) // 2] if index % 2 else b"\x80\x05junk"
        stored.write_bytes(kept_chunk(damaged))
        charts, findings = player_aids(generated, tmp_path)
        assert not findings and every_field(charts) == expected


@pytest.mark.parametrize(
    "value",
    ["", "plain", 'quo"te\\', "改名", "tab\tnew\nline", "\u2028", 3, 2.5, None, True],
)
def test_the_t_filter_writes_what_json_dumps_writes(value: object) -> None:
    plain = "" if value is None else str(value)
    assert aids._yaml_value(value) == json.dumps(plain, ensure_ascii=False)
    text = Text(plain, "" if value is None else f"ja {plain}")
    written = {"en": text.en, "ja": text.ja or text.en}
    assert aids._yaml_value(text) == json.dumps(written, ensure_ascii=False)
    assert aids._yaml_value(Text(plain)) == json.dumps(
        {"en": plain, "ja": plain}, ensure_ascii=False
    )


@pytest.mark.parametrize(
    "values", [[], ["a"], ["blue-1", "red-2:back", 'q"u\\o'], ("改名",), [1, "a"], [None]]
)
def test_the_ids_filter_writes_what_json_dumps_writes(values: list[object]) -> None:
    assert aids._ids(values) == json.dumps(list(values), ensure_ascii=False)


def _entry_values(run: aids.Run) -> list[Any]:
    """The values a kept run of rows holds (aids._run_entry), to damage one of them."""
    return list(marshal.loads(aids._run_entry(run)))


def _odd_entries(run: aids.Run) -> list[tuple[str, bytes]]:
    values = _entry_values(run)
    digests_of, pieces_of, terrain_of, wheres = values[1], values[2], values[3], values[4]

    def changed(at: int, value: object) -> bytes:
        odd = list(values)
        odd[at] = value
        return marshal.dumps(tuple(odd))

    digest, pieces, terrain, where = digests_of[0], pieces_of[0], terrain_of[0], wheres[0]
    return [
        ("nothing", b""),
        ("not marshal", b"\x00garbage"),
        ("a list", marshal.dumps(values)),
        ("one value short", marshal.dumps(tuple(values[:-1]))),
        ("another format", changed(0, "countermix-aid-rows-1")),
        ("no rows", changed(1, ())),
        ("a digest cut", changed(1, (digest[:-1], *digests_of[1:]))),
        ("a digest in capitals", changed(1, (digest.upper(), *digests_of[1:]))),
        ("a digest not hexadecimal", changed(1, (digest[:-1] + "g", *digests_of[1:]))),
        ("a digest as bytes", changed(1, (digest.encode(), *digests_of[1:]))),
        ("a digest too many", changed(1, (*digests_of, digest))),
        ("pieces a list", changed(2, [pieces, *pieces_of[1:]])),
        ("a piece not text", changed(2, ((1,), *pieces_of[1:]))),
        ("pieces not a tuple", changed(2, ("a", *pieces_of[1:]))),
        ("terrain not text", changed(3, (None, *terrain_of[1:]))),
        ("a place of three", changed(4, ((*where, 1), *wheres[1:]))),
        ("a place as text", changed(4, ((where[0], "9"), *wheres[1:]))),
        ("a place as a list", changed(4, ([*where], *wheres[1:]))),
        ("the rows not bytes", changed(5, "rows")),
        ("terrain a row short", changed(3, terrain_of[1:])),
        ("a single value", marshal.dumps((aids.RUN_FORMAT, digest, pieces, terrain, where, b""))),
    ]


def _a_run(rows: int = 2) -> aids.Run:
    made = [Row(label=Text(f"r{n}"), cells=("1",), pieces=(f"u{n}",)) for n in range(rows)]
    return tuple((row, (3 + 2 * n, 9), digest_of(row)) for n, row in enumerate(made))


def test_a_kept_run_of_rows_reads_back_lazily() -> None:
    """A kept run gives its rows' digests, pieces and places at once, its rows when asked."""
    run = _a_run(3)
    read_again: list[int] = []

    def again() -> None:
        read_again.append(1)

    kept = aids._kept_row_run(aids._run_entry(run), again)
    assert kept is not None
    assert kept.wheres == tuple(at for _row, at, _digest in run)
    assert kept.run.digests == tuple(digest for _row, _at, digest in run)
    assert kept.run.pieces == (("u0",), ("u1",), ("u2",))
    assert not kept.run.read
    assert kept.run.rows() == tuple(row for row, _at, _digest in run)
    assert kept.run.read and not read_again


@pytest.mark.parametrize("name", [name for name, _data in _odd_entries(_a_run())])
def test_a_kept_run_of_another_shape_is_no_run(name: str) -> None:
    data = dict(_odd_entries(_a_run()))[name]
    assert aids._kept_row_run(data, lambda: None) is None


@pytest.mark.parametrize("name", [name for name, _data in _odd_entries(_a_run())])
def test_runs_checked_together_with_one_of_another_shape_are_checked_alone(name: str) -> None:
    good = aids._run_entry(_a_run())
    odd = dict(_odd_entries(_a_run()))[name]
    assert aids._whole_runs([good, odd], [lambda: None] * 2) is None
    alone = aids._Store({b"g": good, b"o": odd}).runs([b"g", b"o"], [lambda: None] * 2)
    assert alone[0] is not None and alone[1] is None


def test_whole_runs_checked_together_are_each_one_s() -> None:
    runs = [_a_run(2), _a_run(3)]
    found = aids._whole_runs([aids._run_entry(run) for run in runs], [lambda: None] * 2)
    assert found is not None
    for kept, run in zip(found, runs, strict=True):
        assert kept is not None and kept.wheres == tuple(at for _row, at, _d in run)
        assert kept.run.rows() == tuple(row for row, _at, _d in run)


def _kept_runs(stored: Path) -> tuple[dict[bytes, bytes], list[bytes]]:
    """What the aids' cache `stored` keeps, and the keys of the charts' runs of rows in it."""
    kept = read_kept(stored)
    listed = [key for key in kept if key.endswith(aids.PARTS)]
    run_keys = [
        run_key
        for key in listed
        for run_key in (aids._part_keys(key[: -len(aids.PARTS)], kept[key]) or [])[1:]
    ]
    return kept, run_keys


def _damaged_rows(data: bytes) -> bytes:
    """A kept run whose rows' pickle is cut short (its digests, pieces and places whole)."""
    values = list(marshal.loads(data))
    values[5] = values[5][: len(values[5]) // 2]
    return marshal.dumps(tuple(values))


def test_a_kept_run_whose_rows_are_damaged_reads_them_again() -> None:
    run = _a_run(2)
    rows = tuple(row for row, _at, _digest in run)
    kept = aids._kept_row_run(_damaged_rows(aids._run_entry(run)), lambda: rows)
    assert kept is not None and kept.run.rows() == rows
    values = list(marshal.loads(aids._run_entry(run)))
    values[5] = pickled(rows[:1])  # whole, but a row short
    short = aids._kept_row_run(marshal.dumps(tuple(values)), lambda: rows)
    assert short is not None and short.run.rows() == rows
    lost = aids._kept_row_run(_damaged_rows(aids._run_entry(run)), lambda: None)
    assert lost is not None
    with pytest.raises(ValueError, match="could not be read again"):
        lost.run.rows()


def test_rows_read_back_tell_their_content_digests(generated: GameData, tmp_path: Path) -> None:
    """A warm read takes its rows from the kept runs, each with the digest of its repr, told to
    the model (compiler.model.digests): the digests are those the rows' repr gives."""
    player_aids(generated, tmp_path)
    charts, _ = player_aids(generated, tmp_path)
    rows = [row for chart in charts for row in chart.rows[1:]]
    assert len(rows) > RUN_ROWS
    told = [digests._KNOWN.get(id(row)) for row in rows]
    assert all(found is not None and found[0] is row for found, row in zip(told, rows, strict=True))
    assert [found[1] for found in told if found] == [digest_of(row) for row in rows]


def test_a_run_with_a_damaged_digest_is_read_again(generated: GameData, tmp_path: Path) -> None:
    """A kept run whose digests are not digests (cut, or not hexadecimal) is a miss: the rows
    are read again and the charts are those of a whole read."""
    expected = whole_read(generated)
    player_aids(generated, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept, run_keys = _kept_runs(stored)
    damaged = dict(kept)
    assert run_keys
    for key in run_keys:
        values = list(marshal.loads(kept[key]))
        values[1] = tuple(digest[:-1] + "z" for digest in values[1])
        damaged[key] = marshal.dumps(tuple(values))
    stored.write_bytes(kept_chunk(damaged))
    charts, findings = player_aids(generated, tmp_path)
    assert not findings and every_field(charts) == expected
    rows = [row for chart in charts for row in chart.rows]
    assert all(digests.content_digest(row) == digest_of(row) for row in rows)


def test_a_warm_build_writes_only_the_changed_units_rows(
    generated: GameData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of battle's rows are taken from the last build but the changed unit's."""
    player_aids(generated, tmp_path)
    written: list[str] = []
    real = aids._KeptRows.row

    def spy(self: aids._KeptRows, unit: Unit, formation: object, write: Any) -> str:
        def counted(shown: Unit) -> object:
            written.append(shown.id)
            return write(shown)

        return real(self, unit, formation, counted)

    monkeypatch.setattr(aids._KeptRows, "row", spy)
    changed = renamed(generated, 7)
    charts, _ = player_aids(changed, tmp_path)
    assert every_field(charts) == whole_read(changed)
    assert written == [generated.units[7].id]


def test_a_renamed_formation_writes_its_units_rows_again(
    generated: GameData, tmp_path: Path
) -> None:
    player_aids(generated, tmp_path)
    formation = replace(generated.formations[1], name=Text("Renamed", "改名"))
    formations = (generated.formations[0], formation, *generated.formations[2:])
    changed = replace(generated, formations=formations)
    charts, findings = player_aids(changed, tmp_path)
    assert not findings and every_field(charts) == whole_read(changed)
    assert every_field(charts) != whole_read(generated)


def test_rows_kept_for_another_template_are_not_taken(generated: GameData, tmp_path: Path) -> None:
    """The shared template changed (a new version of countermix): its rows are its own."""
    player_aids(generated, tmp_path)
    path, source, own = generated.aids_template
    other = source.replace(
        "pieces: {{ [unit.id] | ids }}", "pieces: {{ [unit.id, unit.id] | ids }}"
    )
    assert other != source
    changed = replace(generated, aids_template=(path, other, own))
    charts, findings = player_aids(changed, tmp_path)
    assert not findings and every_field(charts) == whole_read(changed)
    oob = next(chart for chart in charts if chart.id.startswith("oob-"))
    assert all(len(row.pieces) == 2 for row in oob.rows)


def kept_rows(stored: Path) -> dict[bytes, bytes]:
    """The runs of rows kept in the aids' store: their check, the CRC-32 of what follows,
    then what each row shows and its text (marshalled)."""
    kept = read_kept(stored)
    return {
        key: value
        for key, value in kept.items()
        if aids._kept_run(value[aids.KEY_SIZE :]) is not None
    }


@pytest.mark.parametrize("damage", ["text", "check", "crc", "cut"])
def test_damaged_kept_rows_are_written_again(
    damage: str, generated: GameData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    player_aids(generated, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept = read_kept(stored)
    runs = kept_rows(stored)
    sides = {unit.side for unit in generated.units}
    assert len(runs) == sum(
        -(-sum(u.side == side for u in generated.units) // aids.RUN_UNITS) for side in sides
    )
    for key, value in runs.items():
        if damage == "text":  # a row's text changed, its CRC not
            kept[key] = value.replace(b"label:", b"lable:", 1)
        elif damage == "check":
            kept[key] = bytes([value[0] ^ 1]) + value[1:]
        elif damage == "crc":
            kept[key] = value[:32] + bytes([value[32] ^ 1]) + value[33:]
        else:
            kept[key] = value[: len(value) // 2]
        assert kept[key] != value
    stored.write_bytes(kept_chunk(kept))
    written: list[str] = []
    real = aids._KeptRows.row

    def spy(self: aids._KeptRows, unit: Unit, formation: object, write: Any) -> str:
        written.append(unit.id)
        return real(self, unit, formation, write)

    monkeypatch.setattr(aids._KeptRows, "row", spy)
    charts, findings = player_aids(generated, tmp_path)
    assert not findings and every_field(charts) == whole_read(generated)
    expected = len(generated.units) if damage != "check" else 0  # the rows themselves are whole
    assert len(written) == expected


def test_an_unchanged_warm_build_writes_no_row(
    generated: GameData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    player_aids(generated, tmp_path)
    written: list[str] = []
    real = aids._KeptRows.row

    def spy(self: aids._KeptRows, unit: Unit, formation: object, write: Any) -> str:
        written.append(unit.id)
        return real(self, unit, formation, write)

    monkeypatch.setattr(aids._KeptRows, "row", spy)
    charts, findings = player_aids(generated, tmp_path)
    assert not findings and every_field(charts) == whole_read(generated)
    assert written == []


def test_one_damaged_run_among_kept_ones_is_read_again_alone(
    generated: GameData, tmp_path: Path, rows_read: list[int]
) -> None:
    """A chart's runs are read back together (aids._Store.runs): one whose digests are not
    digests is read again row by row, the others are still read back."""
    expected = whole_read(generated)
    player_aids(generated, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept, run_keys = _kept_runs(stored)
    assert len(run_keys) > 1
    values = list(marshal.loads(kept[run_keys[1]]))
    values[1] = ("z" * 64,) * len(values[1])
    damaged = dict(kept)
    damaged[run_keys[1]] = marshal.dumps(tuple(values))
    stored.write_bytes(kept_chunk(damaged))
    rows_read.clear()
    charts, findings = player_aids(generated, tmp_path)
    assert not findings and every_field(charts) == expected
    assert len(rows_read) == len(values[1])


@pytest.mark.parametrize("changed", [False, True])
def test_kept_runs_whose_rows_are_damaged_are_read_again_from_the_output(
    generated: GameData, tmp_path: Path, rows_read: list[int], changed: bool
) -> None:
    """Runs kept with their rows' pickle damaged (their digests and pieces whole) are taken
    as kept; their rows, asked for later, are read again from the output: the charts are
    those of a whole read, whether the chart changed (read by runs) or not (kept whole)."""
    game = renamed(generated, 3) if changed else generated
    expected = whole_read(game)
    player_aids(generated, tmp_path)
    stored = tmp_path / AIDS_CACHE
    kept, run_keys = _kept_runs(stored)
    damaged = dict(kept)
    for key in run_keys:
        damaged[key] = _damaged_rows(kept[key])
    stored.write_bytes(kept_chunk(damaged))
    rows_read.clear()
    charts, findings = player_aids(game, tmp_path)
    assert not findings
    assert len(rows_read) <= (2 * RUN_ROWS if changed else 0)  # the runs not read yet
    assert every_field(charts) == expected
    assert len(rows_read) >= len(run_keys)  # each damaged run read again when asked for
