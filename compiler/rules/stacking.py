"""stacking, mixed-sides, setup-zone: what may share a location at setup, and where."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from compiler.diagnostics import Finding, Related
from compiler.model.constraints import Cap, MixedSides, SetupZone, Stacking
from compiler.rules.base import (
    Bound,
    GroupScope,
    ParamError,
    RecordScope,
    bad_expressions,
    bound,
    finding,
    fmt,
    is_constant,
    param_finding,
    views,
)
from compiler.rules.context import Context, ScenarioView
from compiler.rules.placed import Placement
from compiler.rules.runs import Run, RunCheck
from compiler.rules.select import placement_attr


def place_name(placement: Placement) -> str:
    place = placement.place
    if place is None:
        return f"`{placement.at}`"
    name = place.name.en
    return f"{place.kind} {place.id}" + (f" ({name})" if name and name != place.id else "")


def _weight(ctx: Context, cap: Cap, placement: Placement) -> float:
    for rule in cap.weights:
        if ctx.piece_matches(rule.where, placement):
            return float(rule.weight)
    return float(cap.default)


def check_stacking(ctx: Context, c: Stacking) -> Iterator[Finding]:
    bad = _bad_caps(c)
    if bad:
        yield from bad
        return
    try:
        yield from _stacking(ctx, c)
    except ParamError as err:
        yield param_finding(c, "caps", str(err))


def _bad_caps(c: Stacking) -> list[Finding]:
    return bad_expressions(c, ((cap, "max", cap.max) for cap in c.caps), group=True)


def _stacking(ctx: Context, c: Stacking) -> Iterator[Finding]:
    limits: dict[tuple[int, str], Bound | None] = {}
    for view in views(ctx, c):
        yield from _stacks(ctx, c, view.scenario.title, view.by_location().values(), limits)


def _stacks(
    ctx: Context,
    c: Stacking,
    title: str,
    groups: Iterable[list[Placement]],
    limits: dict[tuple[int, str], Bound | None],
) -> Iterator[Finding]:
    """The findings of the pieces at each location of `groups` (a scenario's, or a run's);
    `limits` remembers the caps' bounds that read no piece's values, per series title."""
    constant = [is_constant(cap.max) for cap in c.caps]
    for pieces in groups:
        if not ctx.place_matches(c.locations, pieces[0].place):
            continue
        counted = [p for p in pieces if ctx.piece_matches(c.where, p)]
        for index, cap in enumerate(c.caps):
            if not constant[index]:
                limit = _group_bound(ctx, cap, counted, title)
            elif (index, title) in limits:
                limit = limits[index, title]
            else:
                limit = limits[index, title] = bound(ctx, cap.max, title, group=True)
            yield from _cap(ctx, c, cap, counted, limit)


def stacking_runs(ctx: Context, c: Stacking) -> RunCheck | None:
    """The check of a run (compiler.rules.runs); None when a cap's bound is malformed (a
    finding of the constraint: checked whole)."""
    if _bad_caps(c):
        return None
    return partial(_stacking_run, ctx, c, {})


def _stacking_run(
    ctx: Context,
    c: Stacking,
    limits: dict[tuple[int, str], Bound | None],
    view: ScenarioView,
    run: Run,
) -> list[Finding] | None:
    try:
        return list(_stacks(ctx, c, view.scenario.title, run.by_location(), limits))
    except ParamError:
        return None


def _group_bound(ctx: Context, cap: Cap, pieces: list[Placement], title: str) -> Bound | None:
    """A cap's bound that reads the counted pieces' values (sum(steps), count() ...)."""
    members = [RecordScope(ctx, title, partial(placement_attr, ctx.game, p)) for p in pieces]
    return bound(ctx, cap.max, title, GroupScope(ctx, title, members), group=True)


def _cap(
    ctx: Context, c: Stacking, cap: Cap, pieces: list[Placement], limit: Bound | None
) -> Iterator[Finding]:
    """A finding when the pieces weigh more than `limit`, the cap's bound for them (worked out
    once per series title when it reads none of their values)."""
    if limit is None:  # the bound reads a value the pieces do not have
        return
    total = 0.0
    heavy: list[Placement] = []
    for placement in pieces:
        weight = _weight(ctx, cap, placement)
        if weight:
            total += weight
            heavy.append(placement)
    if total > limit.value and heavy:  # a cap below zero counts only where pieces are
        last = heavy[-1]
        related = tuple(Related(p.loc, f"`{p.piece_id}` counts here") for p in heavy[:-1][:8])
        yield finding(
            c,
            last.loc,
            f"{place_name(last)} holds {fmt(total)} {cap.name} at the start of "
            f"scenario `{last.scenario.id}` (max {limit.label})",
            related,
        )


def check_mixed_sides(ctx: Context, c: MixedSides) -> Iterator[Finding]:
    for view in views(ctx, c):
        yield from _mixed(ctx, c, view, view.by_location().values())


def mixed_sides_runs(ctx: Context, c: MixedSides) -> RunCheck:
    """The check of a run (compiler.rules.runs)."""
    return lambda view, run: list(_mixed(ctx, c, view, run.by_location()))


def _mixed(
    ctx: Context, c: MixedSides, view: ScenarioView, groups: Iterable[list[Placement]]
) -> Iterator[Finding]:
    for pieces in groups:
        counted = [p for p in pieces if p.side and ctx.piece_matches(c.where, p)]
        sides = {p.side for p in counted}
        if len(sides) > 1:
            first = counted[0]
            other = next(p for p in counted if p.side != first.side)
            yield finding(
                c,
                other.loc,
                f"{place_name(other)} holds pieces of both `{first.side}` and "
                f"`{other.side}` at the start of scenario `{view.scenario.id}`",
                (Related(first.loc, f"`{first.piece_id}` ({first.side}) is here"),),
            )


def check_setup_zone(ctx: Context, c: SetupZone) -> Iterator[Finding]:
    for view in views(ctx, c):
        pieces = [*view.setup, *view.arrivals] if c.reinforcements else view.setup
        yield from _zones(ctx, c, view, pieces)


def setup_zone_runs(ctx: Context, c: SetupZone) -> RunCheck:
    """The check of a run (compiler.rules.runs)."""

    def check(view: ScenarioView, run: Run) -> list[Finding]:
        pieces = run.placements() if c.reinforcements else run.setup
        return list(_zones(ctx, c, view, pieces))

    return check


def _zones(
    ctx: Context, c: SetupZone, view: ScenarioView, pieces: Iterable[Placement]
) -> Iterator[Finding]:
    for placement in pieces:
        if placement.place is None:
            continue
        if not ctx.piece_matches(c.where, placement):
            continue
        allowed = ctx.place_matches(c.allowed, placement.place)
        forbidden = c.forbidden is not None and ctx.place_matches(c.forbidden, placement.place)
        if not allowed or forbidden:
            yield finding(
                c,
                placement.loc,
                f"`{placement.piece_id}` may not start in {place_name(placement)} "
                f"in scenario `{view.scenario.id}`",
            )
