"""A chart's look key is made of its rows' content digests (the aids tell those of the rows
they read back) and its pieces' looks, not of the repr of every row: the same key whether the
digests were told or worked out, and a different key whenever anything the chart shows
changes (a cell, a piece's unit, the title, the terrain colours)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from itertools import chain
from pathlib import Path

import pytest

from compiler.backends.charts.build import all_charts, chart_key, paged
from compiler.backends.charts.pages import room
from compiler.backends.charts.table import RowLooks, part_identity, part_plans
from compiler.load.aids import player_aids
from compiler.load.game import load_game
from compiler.model import digests
from compiler.model.charts import Chart, Row
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import game_with_aids

loaded = game_with_aids
PAGE = (595.0, 842.0)


@pytest.fixture
def game(mini: Path) -> GameData:
    return loaded(mini)


def with_pieces(game: GameData) -> Chart:
    """An aid chart whose rows show pieces (an order of battle)."""
    return next(c for c in game.aids if any(r.pieces for r in c.rows))


def fresh(chart: Chart) -> Chart:
    """An equal chart made of new row objects (no digest told for any)."""
    return replace(chart, rows=tuple(replace(row) for row in chart.rows))


def test_told_digests_give_the_key_worked_out_digests_give(mini: Path, tmp_path: Path) -> None:
    """Rows read back from the aids' cache (their digests told) key a chart as new rows do."""
    data = load_game(mini).game
    assert data is not None
    player_aids(data, tmp_path)  # cold: kept
    charts, _ = player_aids(data, tmp_path)  # warm: read back, digests told
    game = replace(data, aids=charts)
    for chart in game.aids:
        assert all(digests._KNOWN[id(row)][0] is row for row in chart.rows[1:])
        assert chart_key(game, chart, "en") == chart_key(game, fresh(chart), "en")


def test_a_wrong_digest_told_would_show(game: GameData) -> None:
    """The key is made of the digests: a row told another row's digest keys differently (so
    the digests must be, and are, only told as worked out from the same row)."""
    chart = with_pieces(game)
    before = chart_key(game, fresh(chart), "en")
    odd = fresh(chart)
    digests.remember(odd.rows[0], digests.digest_of(odd.rows[-1]))
    assert chart_key(game, odd, "en") != before


def test_the_key_changes_with_what_the_chart_shows(game: GameData) -> None:
    chart = with_pieces(game)
    key = chart_key(game, chart, "en")
    row = chart.rows[0]
    changed_cell = replace(row, cells=(*row.cells[:-1], "changed"))
    cases = [
        replace(chart, rows=(changed_cell, *chart.rows[1:])),
        replace(chart, rows=(*chart.rows[:-1],)),
        replace(chart, rows=(chart.rows[1], chart.rows[0], *chart.rows[2:])),
        replace(chart, name=Text("Another title")),
        replace(chart, notes=(Text("A note"),)),
    ]
    keys = [chart_key(game, case, "en") for case in cases]
    assert key not in keys and len(set(keys)) == len(keys)
    assert chart_key(game, chart, "ja") != key
    terrain = replace(game.game.terrain[0], colour="#123456")
    recoloured = replace(game, game=replace(game.game, terrain=(terrain, *game.game.terrain[1:])))
    assert chart_key(recoloured, chart, "en") != key


def test_the_key_changes_with_a_piece_s_look(game: GameData) -> None:
    """A unit the chart shows changed (not the row's text: its look) keys the chart anew."""
    chart = with_pieces(game)
    shown = chart.rows[0].pieces[0].partition(":")[0]
    key = chart_key(game, chart, "en")
    units = tuple(
        replace(u, name=Text("Renamed", "改名")) if u.id == shown else u for u in game.units
    )
    assert chart_key(replace(game, units=units), chart, "en") != key


def test_a_tab_shares_its_rows_looks_with_its_chart(game: GameData) -> None:
    """The module's tabs of a chart are keyed from the looks of the pieces worked out once
    (RowLooks.shown: no row's look spelled out), the same keys as rows looked at afresh."""
    rows = RowLooks(game)
    charts = all_charts(game, "en")
    for chart in game.aids:
        chart_key(game, chart, "en", rows)
    seen = dict(rows.pieces)
    assert seen  # the orders of battle show pieces
    for tab in charts:
        chart_key(game, tab, "en", rows)
    assert rows.pieces == seen
    tabs = [tab for chart in game.aids for tab in paged(chart)]
    assert all(chart_key(game, tab, "en") == chart_key(game, fresh(tab), "en") for tab in tabs)


def test_where_pieces_are_is_part_of_the_key(game: GameData) -> None:
    """The same pieces in other rows (each row's own digest names its pieces, the count per
    row is in the key too) key the chart anew."""
    chart = with_pieces(game)
    first, second = chart.rows[0], chart.rows[1]
    moved = replace(
        chart,
        rows=(
            replace(first, pieces=first.pieces + second.pieces),
            replace(second, pieces=()),
            *chart.rows[2:],
        ),
    )
    assert chart_key(game, moved, "en") != chart_key(game, chart, "en")


def test_a_missing_piece_is_part_of_the_key(game: GameData) -> None:
    chart = with_pieces(game)
    row = chart.rows[0]
    missing = replace(chart, rows=(replace(row, pieces=("no-such-unit",)), *chart.rows[1:]))
    other = replace(chart, rows=(replace(row, pieces=("no-such-unit-2",)), *chart.rows[1:]))
    assert chart_key(game, missing, "en") != chart_key(game, other, "en")


def one_by_one(game: GameData, rows: tuple[Row, ...]) -> RowLooks:
    """Looks whose pieces were each looked up alone (RowLooks._piece), before any is looked up
    together."""
    looks = RowLooks(game)
    for ref in chain.from_iterable(row.pieces for row in rows):
        looks.piece(ref)
    return looks


def test_rows_looked_at_together_look_as_one_by_one(game: GameData) -> None:
    """RowLooks.shown works out the pieces it has not seen together: the same digest as
    with each piece looked up alone, a missing unit and a back side included, each piece
    remembered; rows that show other pieces look different, equal rows the same."""
    chart = with_pieces(game)
    first, second = chart.rows[0], chart.rows[1]
    odd = (
        replace(first, pieces=("no-such-unit",)),
        replace(second, pieces=(f"{second.pieces[0]}:back", *second.pieces)),
        replace(first, pieces=()),
    )
    rows = (*odd, *chart.rows, odd[0])
    together = RowLooks(game)
    assert together.shown(rows) == one_by_one(game, rows).shown(rows)
    assert set(together.pieces) == set(chain.from_iterable(row.pieces for row in rows))
    alone = [together.shown((row,)) for row in rows]
    assert len(set(alone[:3])) == 3 and alone[0] == alone[-1]


def test_pieces_of_units_the_game_has_look_as_one_by_one(game: GameData) -> None:
    """Every piece's unit in the game (the looks of the new pieces looked up together, see
    RowLooks._pieces), a back side among them: the same digest as piece by piece."""
    chart = with_pieces(game)
    second = chart.rows[1]
    rows = (replace(second, pieces=(f"{second.pieces[0]}:back", *second.pieces)), *chart.rows)
    together = RowLooks(game)
    assert together.shown(rows) == one_by_one(game, rows).shown(rows)
    assert together.pieces[f"{second.pieces[0]}:back"] == together.pieces[second.pieces[0]] != ""


def without_pieces(game: GameData) -> Chart:
    """A chart whose rows show no piece."""
    return next(c for c in (*game.charts, *game.aids) if not any(r.pieces for r in c.rows))


def test_what_every_face_is_drawn_with_keys_the_charts_with_pieces(game: GameData) -> None:
    """A unit type changed (what a piece is drawn with besides its unit: RowLooks.kin) keys a
    chart that shows pieces anew, and its printed parts; a chart without pieces keeps its key."""
    pieces, plain = with_pieces(game), without_pieces(game)
    kind = replace(game.unit_types[0], name=Text("Another type"))
    changed = replace(game, unit_types=(kind, *game.unit_types[1:]))
    assert chart_key(changed, pieces, "en") != chart_key(game, pieces, "en")
    assert chart_key(changed, plain, "en") == chart_key(game, plain, "en")
    assert RowLooks(changed).kin() != RowLooks(game).kin()
    width, height = room(PAGE, False)
    plan = part_plans(game, pieces, "en", width, height)[0]
    before = part_identity(game, pieces, "en", width, plan)
    assert part_identity(changed, pieces, "en", width, plan) != before


def test_a_chart_key_works_out_no_unit_identity(
    game: GameData, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A piece's look is its unit's content digest: keying the charts works out no unit's
    face identity (at 8,000 counters that was most of a warm build's chart keys)."""
    from compiler.backends.art import identity

    worked: list[str] = []
    real = identity._unit_identity

    def counted(of: GameData, unit: Unit) -> str:
        worked.append(unit.id)
        return real(of, unit)

    monkeypatch.setattr(identity, "_unit_identity", counted)
    rows = RowLooks(game)
    for chart in all_charts(game, "en"):
        chart_key(game, chart, "en", rows)
    assert worked == []
    chart = with_pieces(game)
    ref = chart.rows[0].pieces[0]
    unit = game.unit(ref.partition(":")[0])
    assert unit is not None and rows.piece(ref) == digests.content_digest(unit)


def test_a_tab_s_head_is_remembered_by_its_fields(game: GameData) -> None:
    """The tabs of a long chart share its columns and footnotes: their reprs are worked out
    once (RowLooks.head), the tab's own fields (id, title) each time; a tab's head is the
    repr of its fields but its rows."""
    rows = RowLooks(game)
    tabs = all_charts(game, "en")
    heads = [rows.head(tab) for tab in tabs]
    shared = {id(tab.columns) for tab in tabs}
    assert shared <= rows.reprs.keys()
    for tab, head in zip(tabs, heads, strict=True):
        assert repr(tab.id) in head and repr(tab.name) in head and repr(tab.columns) in head
        assert head == RowLooks(game).head(replace(tab, rows=()))
    assert len(set(heads)) == len(tabs)


def spelled_out(game: GameData, rows: tuple[Row, ...]) -> tuple[str, bool]:
    """RowLooks.shown's digest worked out row by row and piece by piece, as it is documented."""
    looks = one_by_one(game, rows)
    parts = [";".join(digests.content_digest(row) for row in rows)]
    if any(row.pieces for row in rows):
        parts.append(",".join(str(len(row.pieces)) for row in rows))
        parts.append(";".join(looks.piece(ref) for row in rows for ref in row.pieces))
    return hashlib.sha256("|".join(parts).encode("ascii")).hexdigest(), len(parts) > 1


def test_a_run_of_rows_looks_as_the_rows_looked_at_alone(game: GameData) -> None:
    """RowLooks.run slices the looks of a chart's rows worked out once (a printed chart's
    parts): each run the digest of its rows spelled out, pieces or none, empty runs too, and
    the rows' looks worked out once for the rows however many runs are asked for."""
    chart = with_pieces(game)
    first = chart.rows[0]
    rows = (replace(first, pieces=()), *chart.rows, replace(first, pieces=("no-such-unit",)))
    looks = RowLooks(game)
    ends = range(len(rows) + 1)
    for start, stop in [(s, e) for s in ends for e in ends if s <= e]:
        assert looks.run(rows, start, stop) == spelled_out(game, rows[start:stop])
    assert looks.run(rows, 0, 1)[1] is False and looks.run(rows, 0, 2)[1] is True
    assert list(looks.runs) == [id(rows)]
    assert looks.shown(rows) == spelled_out(game, rows) == RowLooks(game).shown(rows)
    tab, printed = RowLooks(game), RowLooks(game)
    assert tab.shown(rows) == printed.shown(rows, kept=True) == looks.shown(rows)
    assert not tab.runs and list(printed.runs) == [id(rows)]  # a tab's looks not spelled out


def test_a_tab_of_a_printed_chart_looks_as_its_rows_alone(game: GameData) -> None:
    """A tab's rows, the same row objects as a run of a printed chart's (RowLooks.places),
    are sliced from the printed chart's looks: the digest of the rows spelled out; rows that
    are not such a run (reordered, running past the end, other objects) looked at alone."""
    chart = with_pieces(game)
    rows = (*chart.rows, replace(chart.rows[0], pieces=()))
    looks = RowLooks(game)
    looks.shown(rows, kept=True)
    n = len(rows)
    runs = [rows[s:e] for s in range(n) for e in range(s + 1, n + 1)]
    others = [rows[::-1], (*rows[1:], rows[0]), (rows[0], rows[2]), (replace(rows[0]), rows[1])]
    for tab in (*runs, *others):
        assert looks.shown(tab) == spelled_out(game, tab)
    assert list(looks.runs) == [id(rows)]
