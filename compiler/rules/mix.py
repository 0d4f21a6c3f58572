"""counter-mix and marker-supply: the mix holds what the rules say and what scenarios use."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from functools import partial

from compiler.diagnostics import Finding, Related
from compiler.model.constraints import CounterMix, MarkerSupply, MixLimit
from compiler.rules.base import (
    ParamError,
    bad_expressions,
    bound,
    finding,
    fmt,
    number,
    param_finding,
    views,
)
from compiler.rules.context import Context, ScenarioView
from compiler.rules.placed import Placement
from compiler.rules.runs import RunCheck
from compiler.rules.select import matches, unit_attr


def check_counter_mix(ctx: Context, c: CounterMix) -> Iterator[Finding]:
    bad = bad_expressions(c, ((limit, "max", limit.max) for limit in c.limits), known=_nothing)
    if bad:
        yield from bad
        return
    try:
        for limit in c.limits:
            yield from _mix_limit(ctx, c, limit)
    except ParamError as err:
        yield param_finding(c, "limits", str(err))


def _nothing(_: str) -> bool:
    return False


def _mix_limit(ctx: Context, c: CounterMix, limit: MixLimit) -> Iterator[Finding]:
    game = ctx.game
    units = [u for u in game.units if matches(limit.where, partial(unit_attr, game, u))]
    most = bound(ctx, limit.max, "")
    if most is None:
        return
    total = sum(u.copies for u in units)
    if total > most.value or (limit.exact and total != most.value):
        relation = "exactly" if limit.exact else "at most"
        loc = units[-1].loc if units and total > most.value else limit.loc
        yield finding(
            c,
            loc,
            f"the counter mix holds {total} {limit.name}; the rules give {relation} {most.label}",
            (Related(limit.loc, "limit set here"),),
        )
    chosen = {u.id for u in units}
    for view in views(ctx, c):
        used = [p for p in (*view.setup, *view.arrivals) if p.piece_id in chosen]
        if used and len(used) > most.value:
            yield finding(
                c,
                used[-1].loc,
                f"scenario `{view.scenario.id}` uses {len(used)} {limit.name} (max {most.label})",
            )


def check_marker_supply(ctx: Context, c: MarkerSupply) -> Iterator[Finding]:
    available = _available(ctx, c)
    for view in views(ctx, c):
        yield from _supply(c, view, available)


def marker_supply_runs(ctx: Context, c: MarkerSupply) -> RunCheck:
    """The check of a scenario's placements as one run (compiler.rules.runs.whole: the markers
    a scenario needs are counted over all its pieces)."""
    available = _available(ctx, c)
    return lambda view, run: list(_supply(c, view, available, run.placements()))


def _available(ctx: Context, c: MarkerSupply) -> Counter[float]:
    available: Counter[float] = Counter()
    for marker in ctx.game.markers.values():
        if marker.set.id == c.markers and marker.value is not None:
            available[float(marker.value)] += marker.set.copies
    return available


def _supply(
    c: MarkerSupply,
    view: ScenarioView,
    available: Counter[float],
    pieces: Iterable[Placement] | None = None,
) -> Iterator[Finding]:
    """The findings of a scenario's pieces (all of them, unless `pieces`)."""
    needed: Counter[float] = Counter()
    last_use = {}
    for placement in (*view.setup, *view.arrivals) if pieces is None else pieces:
        value = number(placement.state.get(c.state))
        if value is None or (value == 0 and not c.zero_needs_marker):
            continue
        needed[value] += 1
        last_use[value] = placement
    for value, count in sorted(needed.items()):
        if count > available[value]:
            where = last_use[value].entry.locate(f"state.{c.state}")
            yield finding(
                c,
                where,
                f"scenario `{view.scenario.id}` needs {count} `{c.markers}` "
                f"markers of value {fmt(value)}; the mix holds "
                f"{available[value]}",
            )
