"""A chart's rows kept in runs (compiler.model.rowruns) behave as the tuple of them does, and
read a run back only when one of its rows is asked for."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest

from compiler.load.records import pickled, unpickled
from compiler.model import digests
from compiler.model.charts import Chart, Column, Row
from compiler.model.common import Text
from compiler.model.digests import content_digest, digest_of
from compiler.model.rowruns import RowRun, RowRuns, row_digests, row_pieces, row_terrain

RUN = 4


def made_rows(count: int) -> tuple[Row, ...]:
    return tuple(
        Row(
            label=Text(f"row {n}", f"行 {n}"),
            cells=(str(n), Text(f"c{n}")),
            terrain="woods" if n % 3 == 0 else "",
            pieces=(f"unit-{n}",) if n % 2 else (),
        )
        for n in range(count)
    )


def kept_runs(rows: tuple[Row, ...], reads: list[int]) -> RowRuns:
    """The rows as a head of one row and runs of RUN, each counting its reads in `reads`."""

    def reader(number: int, part: tuple[Row, ...]) -> tuple[Row, ...]:
        reads.append(number)
        return part

    runs = []
    for number, start in enumerate(range(1, len(rows), RUN)):
        part = rows[start : start + RUN]
        wanted = tuple(map(digest_of, part))
        pieces = tuple(row.pieces for row in part)
        terrain = tuple(row.terrain for row in part)
        runs.append(RowRun(wanted, pieces, terrain, partial(reader, number, part)))
    return RowRuns.of(rows[:1], runs)


@pytest.fixture
def rows() -> tuple[Row, ...]:
    return made_rows(15)


def test_the_rows_are_those_kept_and_no_run_is_read_until_asked(rows: tuple[Row, ...]) -> None:
    reads: list[int] = []
    kept = kept_runs(rows, reads)
    assert len(kept) == len(rows)
    assert row_digests(kept) == list(map(digest_of, rows))
    assert row_pieces(kept) == [row.pieces for row in rows]
    assert row_terrain(kept) == [row.terrain for row in rows]
    assert reads == [] and kept.runs_read() == 0
    assert kept[0] == rows[0] and reads == []  # the head's own row
    assert kept[6] == rows[6] and reads == [1]  # rows 5-8: the second run
    assert kept[-1] == rows[-1] and reads == [1, 3]
    assert tuple(kept) == rows and reads == [1, 3, 0, 2]  # each run read once


@pytest.mark.parametrize(
    "where",
    [slice(0, 15), slice(3, 9), slice(5, 9), slice(0, 1), slice(14, 20), slice(-4, None),
     slice(7, 3), slice(None, None, 2), slice(2, 12, 3)],
)  # fmt: skip
def test_a_slice_is_the_tuple_s_slice(rows: tuple[Row, ...], where: slice) -> None:
    reads: list[int] = []
    kept = kept_runs(rows, reads)
    part = kept[where]
    assert part == rows[where] and len(part) == len(rows[where])
    assert list(part) == list(rows[where])
    if where.step is None:
        assert isinstance(part, RowRuns) and part.whole() is kept.whole()
        assert row_digests(part) == list(map(digest_of, rows[where]))


def test_a_slice_of_a_slice_reads_only_its_runs(rows: tuple[Row, ...]) -> None:
    reads: list[int] = []
    kept = kept_runs(rows, reads)
    inner = kept[4:12][2:4]  # rows 6 and 7: the second run
    assert row_pieces(inner) == [rows[6].pieces, rows[7].pieces] and reads == []
    assert tuple(inner) == rows[6:8] and reads == [1]


@pytest.mark.parametrize("index", [15, -16, 99])
def test_an_index_out_of_range_raises_as_a_tuple_s_does(rows: tuple[Row, ...], index: int) -> None:
    kept = kept_runs(rows, [])
    with pytest.raises(IndexError):
        kept[index]


def test_equality_hash_and_repr_are_the_tuple_s(rows: tuple[Row, ...]) -> None:
    kept = kept_runs(rows, [])
    other = kept_runs(rows, [])
    assert kept == rows and rows == kept and kept == other
    assert kept != rows[:-1] and kept != kept[1:]
    assert hash(kept) == hash(rows) and repr(kept) == repr(rows)
    assert kept + (rows[0],) == (*rows, rows[0]) and (rows[0],) + kept == (rows[0], *rows)


def test_a_chart_of_kept_rows_is_the_chart_of_its_rows(rows: tuple[Row, ...]) -> None:
    """The same record: equal, the same content digest, pickled as the plain chart is."""
    column = Column(id="a", label=Text("A"))
    plain = Chart(id="oob", name=Text("OOB"), columns=(column, column), rows=rows)
    kept = replace(plain, rows=kept_runs(rows, []))  # type: ignore[arg-type]
    assert kept == plain and hash(kept) == hash(plain)
    assert content_digest(kept) == digest_of(plain)
    back = unpickled(pickled(kept))
    assert isinstance(back, Chart) and back == plain and type(back.rows) is tuple


def test_rows_read_back_are_told_their_kept_digests(rows: tuple[Row, ...]) -> None:
    kept = kept_runs(rows, [])
    for row in kept:
        assert content_digest(row) == digest_of(row)
        assert digests._KNOWN[id(row)][0] is row


def test_a_run_read_back_shorter_than_kept_is_refused(rows: tuple[Row, ...]) -> None:
    part = rows[1:5]
    run = RowRun(tuple(map(digest_of, part)), ((),) * 4, ("",) * 4, lambda: part[:3])
    with pytest.raises(ValueError, match="not as long"):
        run.rows()
    with pytest.raises(ValueError, match="one per row"):
        RowRun(tuple(map(digest_of, part)), ((),) * 3, ("",) * 4, lambda: part)
