"""A scenario's placements split into runs, so that a check of the pieces a scenario places can
be kept clean run by run between builds (compiler.rules.kept): one changed unit then checks
again the run it is placed in, not every piece of every scenario.

A run holds whole location groups of the setup (every piece a setup puts at one location is in
the same run: stacking, mixed-sides and stack-with look at a location's pieces together), or
arrivals. What a check finds in a run depends only on what the run holds (the scenario, the
units and markers it places, the places they are put) and the game's records the check reads;
so a run found clean stays clean while none of that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from compiler.diagnostics import Finding
from compiler.rules.context import ScenarioView
from compiler.rules.placed import Placement

RUN_PLACEMENTS = 32
"""Placements of a run at least (whole location groups added until it holds as many), so a
changed unit costs a check of about this many pieces, whatever the game's size."""


@dataclass(frozen=True, slots=True)
class Run:
    """Placements of one scenario checked together (see the module's docstring)."""

    setup: tuple[Placement, ...] = ()
    arrivals: tuple[Placement, ...] = ()

    def by_location(self) -> Iterator[list[Placement]]:
        """The setup's pieces at each location, as ScenarioView.by_location groups them (a run
        holds whole groups)."""
        groups: dict[str, list[Placement]] = {}
        for placement in self.setup:
            groups.setdefault(placement.at, []).append(placement)
        return iter(groups.values())

    def placements(self) -> tuple[Placement, ...]:
        return (*self.setup, *self.arrivals)


RunCheck = Callable[[ScenarioView, Run], list[Finding] | None]
"""A constraint's check of one run: its findings there, or None when the constraint must be
checked whole (a $param it names is unknown: a finding of the constraint, not of a run)."""


def scenario_runs(view: ScenarioView) -> list[Run]:
    """The runs of a scenario's placements: its setup's location groups in the order
    ScenarioView.by_location gives them, gathered RUN_PLACEMENTS at a time, then its arrivals
    RUN_PLACEMENTS at a time."""
    runs: list[Run] = []
    pending: list[Placement] = []
    for pieces in view.by_location().values():
        pending.extend(pieces)
        if len(pending) >= RUN_PLACEMENTS:
            runs.append(Run(setup=tuple(pending)))
            pending = []
    if pending:
        runs.append(Run(setup=tuple(pending)))
    arrivals = view.arrivals
    for start in range(0, len(arrivals), RUN_PLACEMENTS):
        runs.append(Run(arrivals=tuple(arrivals[start : start + RUN_PLACEMENTS])))
    return runs


def whole(view: ScenarioView) -> Run:
    """All of a scenario's placements as one run (a check that sums over the scenario)."""
    return Run(tuple(view.setup), tuple(view.arrivals))
