"""A long chart's rows kept in runs, each run read back only when one of its rows is asked for.

A warm build reads a large order of battle back from the loader's kept runs of rows (compiler.
load.aids): at 8,000 counters some 10,000 rows, which the back ends mostly do not look at one by
one. What decides how a row looks, and what its neighbours lay out by, is kept beside each run
(each row's content digest, its pieces and its terrain): a chart's keys, its layout's blocks and
its parts' identities are worked out from those (`row_digests`, `row_pieces`, `row_terrain`),
and only the runs whose rows are drawn or measured again are read back.

`RowRuns` is a read-only sequence of rows that behaves as the tuple of them does (equality,
hashing and repr are the tuple's, so a record's content digest is the same), and a slice of it
is a `RowRuns` of the same runs: the module's tabs of a long chart are slices of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, overload

from compiler.model.charts import Row
from compiler.model.digests import content_digests, remember_all

ReadRun = Callable[[], tuple[Row, ...]]
"""What reads a run's rows back (each row's content digest is the run's own: see RowRun)."""


class RowRun:
    """A run of rows not read yet: how many, each one's content digest, pieces and terrain,
    and what reads them (its rows are remembered with those digests once read)."""

    __slots__ = ("count", "digests", "pieces", "terrain", "_read", "_rows")

    def __init__(
        self,
        digests: tuple[str, ...],
        pieces: tuple[tuple[str, ...], ...],
        terrain: tuple[str, ...],
        read: ReadRun,
    ) -> None:
        if not len(digests) == len(pieces) == len(terrain):
            raise ValueError("a run's digests, pieces and terrain are one per row")
        self.count = len(digests)
        self.digests, self.pieces, self.terrain = digests, pieces, terrain
        self._read = read
        self._rows: tuple[Row, ...] | None = None

    @classmethod
    def at_hand(cls, rows: tuple[Row, ...], digests: tuple[str, ...]) -> RowRun:
        """A run of rows read already (with their content digests)."""
        run = cls(digests, tuple(map(_PIECES, rows)), tuple(map(_TERRAIN, rows)), lambda: rows)
        run._rows = rows
        return run

    def rows(self) -> tuple[Row, ...]:
        """The run's rows, read back the first time they are asked for."""
        rows = self._rows
        if rows is None:
            rows = self._read()
            if len(rows) != self.count:
                raise ValueError("a run read back is not as long as it was kept")
            remember_all(rows, self.digests)
            self._rows = rows
        return rows

    @property
    def read(self) -> bool:
        """Whether its rows were read back."""
        return self._rows is not None


class _Source:
    """The rows of a whole chart: some rows at hand (the first ones), then runs; each row's
    digest, pieces and terrain in lists over all of them, and where each run starts."""

    __slots__ = ("head", "runs", "starts", "digests", "pieces", "terrain", "whole")

    def __init__(self, head: tuple[Row, ...], runs: Sequence[RowRun]) -> None:
        self.head = head
        self.runs = tuple(runs)
        starts = [len(head)]
        for run in self.runs:
            starts.append(starts[-1] + run.count)
        self.starts = starts
        self.digests: list[str] = [*content_digests(head), *_joined(r.digests for r in runs)]
        self.pieces: list[tuple[str, ...]] = [
            *map(_PIECES, head),
            *_joined(r.pieces for r in runs),
        ]
        self.terrain: list[str] = [*map(_TERRAIN, head), *_joined(r.terrain for r in runs)]
        self.whole = RowRuns(self, 0, len(self.digests))

    def rows(self, start: int, stop: int) -> Iterator[Row]:
        """Rows `start` to `stop` (0-based, stop out), their runs read back as reached."""
        at = start
        while at < stop:
            if at < len(self.head):
                yield from self.head[at : min(stop, len(self.head))]
                at = min(stop, len(self.head))
                continue
            number = _run_of(self.starts, at)
            first = self.starts[number]
            rows = self.runs[number].rows()
            end = min(stop, first + len(rows))
            yield from rows[at - first : end - first]
            at = end


def _joined(parts: Iterator[tuple[Any, ...]]) -> list[Any]:
    return list(chain.from_iterable(parts))


def _run_of(starts: list[int], at: int) -> int:
    """The number of the run holding row `at` (not one of the head's), by bisection."""
    low, high = 0, len(starts) - 2
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= at:
            low = middle
        else:
            high = middle - 1
    return low


_PIECES = attrgetter("pieces")
_TERRAIN = attrgetter("terrain")


class RowRuns(Sequence[Row]):
    """Rows `start` to `stop` of a chart's rows kept in runs (see the module's docstring)."""

    __slots__ = ("source", "start", "stop")

    def __init__(self, source: _Source, start: int, stop: int) -> None:
        self.source, self.start, self.stop = source, start, stop

    @classmethod
    def of(cls, head: tuple[Row, ...], runs: Sequence[RowRun]) -> RowRuns:
        """The rows `head`, then those of `runs`."""
        return _Source(head, runs).whole

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> RowRuns: ...
    def __getitem__(self, index: int | slice) -> Row | RowRuns:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return tuple(self)[index]  # type: ignore[return-value]  # (nothing steps)
            stop = max(start, stop)
            return RowRuns(self.source, self.start + start, self.start + stop)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("row index out of range")
        return next(self.source.rows(self.start + index, self.start + index + 1))

    def __iter__(self) -> Iterator[Row]:
        return self.source.rows(self.start, self.stop)

    def whole(self) -> RowRuns:
        """All the rows of the chart this is a slice of (the same object every time)."""
        return self.source.whole

    def rows(self) -> tuple[Row, ...]:
        """The rows as a tuple (every run of them read back)."""
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowRuns):
            if other.source is self.source and (other.start, other.stop) == (
                self.start,
                self.stop,
            ):
                return True
            return self.rows() == other.rows()
        if isinstance(other, tuple):
            return self.rows() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rows())

    def __repr__(self) -> str:
        return repr(self.rows())

    def __add__(self, other: object) -> tuple[Row, ...]:
        if isinstance(other, (tuple, RowRuns)):
            return (*self, *other)
        return NotImplemented

    def __radd__(self, other: object) -> tuple[Row, ...]:
        if isinstance(other, tuple):
            return (*other, *self)
        return NotImplemented

    def digests(self) -> list[str]:
        """Each row's content digest, without reading a run back."""
        return self.source.digests[self.start : self.stop]

    def pieces(self) -> list[tuple[str, ...]]:
        """Each row's pieces, without reading a run back."""
        return self.source.pieces[self.start : self.stop]

    def terrain(self) -> list[str]:
        """Each row's terrain, without reading a run back."""
        return self.source.terrain[self.start : self.stop]

    def runs_read(self) -> int:
        """How many of the source's runs were read back (for tests and benches)."""
        return sum(run.read for run in self.source.runs)


def row_digests(rows: Sequence[Row]) -> list[str]:
    """Each row's content digest (compiler.model.digests), a kept run's without reading it."""
    return rows.digests() if isinstance(rows, RowRuns) else content_digests(rows)


def row_pieces(rows: Sequence[Row]) -> list[tuple[str, ...]]:
    """Each row's pieces, a kept run's without reading it."""
    return rows.pieces() if isinstance(rows, RowRuns) else list(map(_PIECES, rows))


def row_terrain(rows: Sequence[Row]) -> list[str]:
    """Each row's terrain, a kept run's without reading it."""
    return rows.terrain() if isinstance(rows, RowRuns) else list(map(_TERRAIN, rows))
