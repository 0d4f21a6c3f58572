"""value-range and field-compare: bounds and comparisons on units, setups, markers, cards."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, NamedTuple

from compiler.diagnostics import Finding, Location
from compiler.model.constraints import FieldCompare, Selector, ValueRange
from compiler.model.units import Unit
from compiler.rules.base import (
    Bound,
    ParamError,
    RecordScope,
    bad_expressions,
    bound,
    finding,
    fmt,
    in_titles,
    is_constant,
    known_name,
    number,
    param_finding,
)
from compiler.rules.base import views as scenario_views
from compiler.rules.context import Context, ScenarioView
from compiler.rules.placed import Placement
from compiler.rules.runs import Run, RunCheck
from compiler.rules.select import (
    MISSING,
    card_attr,
    formation_attr,
    marker_attr,
    matches,
    placement_attr,
    unit_attr,
)


class Subject(NamedTuple):
    """One checked record: its name in messages, attribute lookup, title, and where it is.
    (A tuple: one is made per unit for each rule over the units, cheaper than a frozen
    dataclass's __init__.)"""

    name: str
    attr: Callable[[str], Any]
    title: str
    where: Callable[[str], Location]
    placement: Placement | None = None

    def chosen(self, ctx: Context, selector: Selector) -> bool:
        if self.placement is not None:
            return ctx.piece_matches(selector, self.placement)
        return matches(selector, self.attr)


def subjects(
    ctx: Context,
    target: str,
    c: ValueRange | FieldCompare,
    units: Sequence[Unit] | None = None,
    run: tuple[ScenarioView, Run] | None = None,
) -> Iterator[Subject]:
    """The records a constraint checks (of `target`); with `units`, those units alone; with
    `run`, the pieces of that run of a scenario alone (compiler.rules.runs)."""
    game = ctx.game
    if target == "units":
        for u in game.units if units is None else units:
            yield Subject(f"unit `{u.id}`", partial(unit_attr, game, u), u.title, u.locate)
    elif target == "setup":
        placed = (
            ((view, (*view.setup, *view.arrivals)) for view in scenario_views(ctx, c))
            if run is None
            else ((run[0], run[1].placements()),)
        )
        for view, pieces in placed:
            for p in pieces:
                name = f"`{p.piece_id}` in scenario `{view.scenario.id}`"
                yield Subject(
                    name,
                    partial(placement_attr, game, p),
                    view.scenario.title,
                    partial(_setup_where, p),
                    p,
                )
    elif target == "markers":
        for m in game.markers.values():
            yield Subject(f"marker `{m.id}`", partial(marker_attr, m), m.set.title, m.set.locate)
    elif target == "cards":
        for card in game.cards:
            yield Subject(f"card `{card.id}`", partial(card_attr, card), "", card.locate)
    elif target == "formations":
        for f in game.formations:
            yield Subject(f"formation `{f.id}`", partial(formation_attr, f), f.title, f.locate)


def _setup_where(placement: Placement, key: str) -> Location:
    if key.startswith("state.") or key in ("face", "steps"):
        return placement.entry.locate(key)
    return placement.loc


def _value_path(path: str) -> str:
    head, _, rest = path.partition(".")
    return f"{head}.{rest}" if rest else head


def check_range(ctx: Context, c: ValueRange) -> Iterator[Finding]:
    known = (lambda _: True) if c.target == "cards" else known_name
    bad = bad_expressions(c, ((c, "min", c.min), (c, "max", c.max)), known=known)
    if bad:
        yield from bad
        return
    try:
        yield from _range(ctx, c)
    except ParamError as err:
        yield param_finding(c, "max", str(err))


def units_checked(
    ctx: Context, c: ValueRange | FieldCompare, units: Sequence[Unit]
) -> list[Finding] | None:
    """The findings of a value-range or field-compare over units for `units` alone, in their
    order (what the whole check finds for them); None when the constraint's own bounds are bad
    or name an unknown $param (findings of the constraint, not of units: checked whole)."""
    if isinstance(c, FieldCompare):
        return list(_compare(ctx, c, units))
    if bad_expressions(c, ((c, "min", c.min), (c, "max", c.max)), known=known_name):
        return None
    try:
        return list(_range(ctx, c, units))
    except ParamError:
        return None


def setup_runs(ctx: Context, c: ValueRange | FieldCompare) -> RunCheck | None:
    """The check of a run of a scenario's pieces (compiler.rules.runs) by a value-range or
    field-compare over `setup`; None when the constraint's own bounds are bad (checked
    whole)."""
    if isinstance(c, FieldCompare):
        return lambda view, run: list(_compare(ctx, c, run=(view, run)))
    if bad_expressions(c, ((c, "min", c.min), (c, "max", c.max)), known=known_name):
        return None
    limits: dict[str, tuple[Bound | None, Bound | None]] = {}

    def check(view: ScenarioView, run: Run) -> list[Finding] | None:
        try:
            return list(_range(ctx, c, run=(view, run), limits=limits))
        except ParamError:
            return None

    return check


def _range(
    ctx: Context,
    c: ValueRange,
    units: Sequence[Unit] | None = None,
    run: tuple[ScenarioView, Run] | None = None,
    limits: dict[str, tuple[Bound | None, Bound | None]] | None = None,
) -> Iterator[Finding]:
    """The findings of a value-range (over `units` or `run` alone, when given); `limits`
    remembers constant bounds per series title (across the runs of one validation)."""
    limits = {} if limits is None else limits
    constant = is_constant(c.min) and is_constant(c.max)
    for subject in subjects(ctx, c.target, c, units, run):
        if not in_titles(c, subject.title) or not subject.chosen(ctx, c.where):
            continue
        value = subject.attr(c.path)
        if value is MISSING:
            if c.required:
                where = subject.where(_value_path(c.path))
                yield finding(c, where, f"{subject.name} has no `{c.path}`")
            continue
        if c.absent:
            where = subject.where(_value_path(c.path))
            yield finding(c, where, f"{subject.name} sets {c.path} ({fmt(value)}); it must not")
            continue
        if not constant:
            scope = RecordScope(ctx, subject.title, subject.attr)
            low, high = (
                bound(ctx, c.min, subject.title, scope),
                bound(ctx, c.max, subject.title, scope),
            )
        elif subject.title in limits:
            low, high = limits[subject.title]
        else:
            low, high = bound(ctx, c.min, subject.title), bound(ctx, c.max, subject.title)
            limits[subject.title] = (low, high)
        for problem in _problems(c, value, low, high):  # where: only for a finding
            where = subject.where(_value_path(c.path))
            yield finding(c, where, f"{subject.name} has {c.path} {problem}")


def _problems(c: ValueRange, value: Any, low: Bound | None, high: Bound | None) -> list[str]:
    if c.allowed:
        if any(_same(value, a) for a in c.allowed):
            return []
        return [f"{fmt(value)}; allowed: " + ", ".join(fmt(a) for a in c.allowed)]
    if low is None and high is None and not c.integer:
        return []
    amount = number(value)
    if amount is None:
        return [f"`{value}`, which is not a number"]
    problems = []
    if c.integer and not amount.is_integer():
        problems.append(f"{fmt(value)}; it must be whole")
    if low is not None and amount < low.value:
        problems.append(f"{fmt(value)}, below the minimum of {low.label}")
    if high is not None and amount > high.value:
        problems.append(f"{fmt(value)}, above the maximum of {high.label}")
    return problems


def _same(value: Any, allowed: Any) -> bool:
    a, b = number(value), number(allowed)
    if a is not None and b is not None:
        return a == b
    return str(value) == str(allowed)


OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    ">": operator.gt,
}


def check_compare(ctx: Context, c: FieldCompare) -> Iterator[Finding]:
    return _compare(ctx, c)


def _compare(
    ctx: Context,
    c: FieldCompare,
    units: Sequence[Unit] | None = None,
    run: tuple[ScenarioView, Run] | None = None,
) -> Iterator[Finding]:
    for subject in subjects(ctx, c.target, c, units, run):
        if not in_titles(c, subject.title) or not subject.chosen(ctx, c.where):
            continue
        left, right = number(subject.attr(c.left)), number(subject.attr(c.right))
        if left is None or right is None:
            continue
        if not OPS[c.op](left, right):
            yield finding(
                c,
                subject.where(_value_path(c.left)),
                f"{subject.name} has {c.left} {fmt(left)}, but it must be {c.op} "
                f"{c.right} ({fmt(right)})",
            )
