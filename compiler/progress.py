"""What a build is doing, on standard error: per game and stage (load, validate, faces, module,
sheets, charts), with counts.

On a terminal it is a live display drawn with rich, one bar per game, gone when the build is
done; elsewhere (CI, a pipe) it is one line per game and stage, written when the stage is over.
With `verbose`, each stage's line gives its time (on a terminal too, above the bars); with
`quiet`, nothing is shown. Standard output is never written here: it holds the findings and
the `<game>: wrote …` lines, as it always has.

The pipeline runs one stage at a time, so a stage's time runs from its first report to the
first report of another stage; a stage reported again later (the charts of each edition of a
series) adds to its time. A stage whose count is known is over when it is all done; one whose
count is not (total 0) when another stage starts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

STAGES = ("load", "validate", "faces", "module", "sheets", "charts", "preview")
NOUNS = {"load": "file", "validate": "rule", "faces": "face"}
"""What a stage counts, when it is not the editions (modules) of the game."""


@dataclass
class Stage:
    done: int = 0
    total: int = 0
    seconds: float = 0.0
    started: float | None = None
    over: bool = False

    def counts(self, name: str) -> str:
        """The stage's counts as shown: `12 files`, `1,024 faces`, `2/7` (editions)."""
        noun = NOUNS.get(name)
        if noun is not None:
            return f"{self.done:,} {noun}{'' if self.done == 1 else 's'}"
        return f"{self.done}/{self.total}" if self.total > 1 else ""


@dataclass
class Game:
    stages: dict[str, Stage] = field(default_factory=dict)
    task: TaskID | None = None


class Reporter:
    """The pipeline's progress callback (`update`) and what it shows."""

    def __init__(self, stream: TextIO, verbose: bool = False, bars: Progress | None = None):
        self.stream = stream
        self.verbose = verbose
        self.bars = bars
        self.games: dict[str, Game] = {}
        self.active: tuple[str, str] | None = None

    def update(self, game: str, stage: str, done: int, total: int) -> None:
        """Stage `stage` of `game` has `done` of its `total` items done (0: not known)."""
        now = time.perf_counter()
        if self.active is not None and self.active != (game, stage):
            self._pause(*self.active, now)
        state = self.games.setdefault(game, Game()).stages.setdefault(stage, Stage())
        if state.started is None:
            state.started = now
        self.active = (game, stage)
        state.done, state.total, state.over = done, total, False
        if 0 < total <= done:
            self._pause(game, stage, now)
        self._draw(game, stage)

    def finish(self, game: str) -> None:
        """The game is done (built, up to date or stopped by findings)."""
        if self.active is not None and self.active[0] == game:
            self._pause(*self.active, time.perf_counter())
        found = self.games.get(game)
        if found is None:
            return
        for name, state in found.stages.items():
            if not state.over:
                self._over(game, name, state)
        if self.bars is not None and found.task is not None:
            self.bars.remove_task(found.task)
            found.task = None

    def _pause(self, game: str, stage: str, now: float) -> None:
        state = self.games[game].stages[stage]
        if state.started is not None:
            state.seconds += now - state.started
            state.started = None
        if self.active == (game, stage):
            self.active = None
        if state.total == 0 or state.done >= state.total:
            self._over(game, stage, state)

    def _over(self, game: str, stage: str, state: Stage) -> None:
        state.over = True
        if self.bars is not None and not self.verbose:
            return
        counts = state.counts(stage)
        line = f"{game}: {stage}" + (f" {counts}" if counts else "")
        if self.verbose:
            line += f" ({state.seconds:.2f} s)"
        if self.bars is not None:
            self.bars.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def _draw(self, game: str, stage: str) -> None:
        if self.bars is None:
            return
        found = self.games[game]
        state = found.stages[stage]
        over = sum(1 for s in found.stages.values() if s.over and s is not state)
        part = state.done / state.total if state.total else 0.0
        shown = f"{game}: {stage}"
        if found.task is None:
            found.task = self.bars.add_task(shown, total=len(STAGES), counts="")
        completed = min(over + part, len(STAGES))
        self.bars.update(
            found.task, description=shown, completed=completed, counts=state.counts(stage)
        )


@contextmanager
def reporting(quiet: bool = False, verbose: bool = False) -> Iterator[Reporter | None]:
    """A reporter on standard error for the length of a build: live bars on a terminal, lines
    elsewhere; None with `quiet`."""
    if quiet:
        yield None
        return
    stream = sys.stderr
    if not _terminal(stream):
        yield Reporter(stream, verbose)
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
        console=Console(file=stream),
        transient=True,
        # what the build prints goes above the bars; stdout only when it is the terminal too
        redirect_stdout=_terminal(sys.stdout),
        redirect_stderr=True,
    )
    with bars:
        yield Reporter(stream, verbose, bars)


def _terminal(stream: TextIO) -> bool:
    import os

    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False
