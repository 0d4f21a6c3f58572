"""aggregate: a value summed (multiplied, least, greatest) over a stack, a formation or a side,
compared with a bound that may read the group's current state (a carrier's current steps)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from compiler.diagnostics import Finding, Location, Related
from compiler.model.constraints import Aggregate
from compiler.model.units import Unit
from compiler.rules.base import (
    GroupScope,
    ParamError,
    RecordScope,
    bad_expressions,
    bound,
    finding,
    fmt,
    param_finding,
    views,
)
from compiler.rules.context import Context, ScenarioView
from compiler.rules.expr import COMPARE, evaluate, parse, plain_name
from compiler.rules.placed import Placement
from compiler.rules.placement import formation_chain
from compiler.rules.select import MISSING, formation_attr, matches, placement_attr, unit_attr
from compiler.rules.stacking import place_name

_FIELD = re.compile(r"\{([A-Za-z_][\w.]*)\}")


@dataclass
class _Member:
    attr: Callable[[str], Any]
    loc: Location
    value_loc: Location
    name: str
    copies: int = 1


@dataclass
class _Group:
    name: str
    title: str
    members: list[_Member] = field(default_factory=list)
    holder: Placement | None = None


def check_aggregate(ctx: Context, c: Aggregate) -> Iterator[Finding]:
    bad = bad_expressions(c, ((c, "value", c.value),))
    bad += bad_expressions(c, ((c, "bound", c.bound),), group=True)
    if bad:
        yield from bad
        return
    if c.group == "location" and c.target == "units":
        yield Finding(
            "wrong-type",
            c.locate("target"),
            f"constraint `{c.id}`: location groups are stacks at setup: `target: units` "
            "cannot have them",
            "write `target: setup`, or group by formation or side",
        )
        return
    try:
        for group, where in _groups(ctx, c):
            yield from _check_group(ctx, c, group, where)
    except ParamError as err:
        yield param_finding(c, "bound", str(err))


def _groups(ctx: Context, c: Aggregate) -> Iterator[tuple[_Group, str]]:
    if c.target == "units":
        yield from ((g, "in the counter mix") for g in _unit_groups(ctx, c).values())
        return
    for view in views(ctx, c):
        where = f"at the start of scenario `{view.scenario.id}`"
        yield from ((g, where) for g in _setup_groups(ctx, c, view).values())


def _setup_groups(ctx: Context, c: Aggregate, view: ScenarioView) -> dict[str, _Group]:
    game, title = ctx.game, view.scenario.title
    groups: dict[str, _Group] = {}
    path = plain_name(parse(c.value))
    for p in view.setup:
        if not ctx.piece_matches(c.where, p):
            continue
        member = _Member(
            partial(placement_attr, game, p), p.loc, _setup_where(p, path), f"`{p.piece_id}`"
        )
        for key, name in _setup_keys(ctx, c, p):
            groups.setdefault(key, _Group(name, title)).members.append(member)
    if c.holder is not None and c.group == "location":
        for p in view.setup:
            if ctx.piece_matches(c.holder.where, p):
                key = _box_id(c.holder.at, partial(placement_attr, game, p))
                if key in groups:
                    groups[key].holder = p
    return groups


def _setup_keys(ctx: Context, c: Aggregate, p: Placement) -> list[tuple[str, str]]:
    if c.group == "location":
        ok = p.place is not None and ctx.place_matches(c.groups, p.place)
        return [(p.at, place_name(p))] if ok else []
    if c.group == "side":
        return [(p.side, f"side `{p.side}`")] if _side_ok(c, p.side) else []
    return _formation_keys(ctx, c, p.unit)


def _side_ok(c: Aggregate, side: str) -> bool:
    return bool(side) and matches(c.groups, lambda n: side if n == "id" else MISSING)


def _formation_keys(ctx: Context, c: Aggregate, unit: Unit | None) -> list[tuple[str, str]]:
    if unit is None or not unit.formation:
        return []
    out = []
    for formation_id in formation_chain(ctx.game, unit.formation):
        formation = ctx.game.formation(formation_id)
        if formation is not None and matches(c.groups, partial(formation_attr, formation)):
            out.append((formation_id, f"formation `{formation_id}`"))
    return out


def _unit_groups(ctx: Context, c: Aggregate) -> dict[str, _Group]:
    game = ctx.game
    path = plain_name(parse(c.value))
    groups: dict[str, _Group] = {}
    for unit in game.units:
        attr = partial(unit_attr, game, unit)
        if not matches(c.where, attr):
            continue
        member = _Member(attr, unit.loc, unit.locate(path) if path else unit.loc, f"`{unit.id}`")
        member.copies = max(unit.copies, 0)
        keys = (
            ([(unit.side, f"side `{unit.side}`")] if _side_ok(c, unit.side) else [])
            if c.group == "side"
            else _formation_keys(ctx, c, unit)
        )
        for key, name in keys:
            groups.setdefault(key, _Group(name, unit.title)).members.append(member)
    return groups


def _setup_where(placement: Placement, path: str) -> Location:
    """The line of a value the setup entry writes (steps: 1), else of the piece's own id."""
    if path in placement.entry.locs:
        return placement.entry.locate(path)
    return placement.loc


def _box_id(template: str, attr: Callable[[str], Any]) -> str:
    def field_value(match: re.Match[str]) -> str:
        value = attr(match.group(1))
        return "\0" if value is MISSING else fmt(value)

    return _FIELD.sub(field_value, template)


def _check_group(ctx: Context, c: Aggregate, group: _Group, where: str) -> Iterator[Finding]:
    tree = parse(c.value)
    scopes = [RecordScope(ctx, group.title, m.attr) for m in group.members]
    valued = []
    for member, scope in zip(group.members, scopes, strict=True):
        value = evaluate(tree, scope)
        if value is not None:
            valued.append((member, value))
    if not valued:
        return
    total = _combine(c.total, valued)
    holder_attr = None
    if group.holder is not None:
        holder_attr = partial(placement_attr, ctx.game, group.holder)
    elif c.holder is not None:
        return  # a box whose holder is not set up: nothing to compare with
    limit = bound(
        ctx, c.bound, group.title, GroupScope(ctx, group.title, scopes, holder_attr), True
    )
    if limit is None or COMPARE[c.op](total, limit.value):
        return
    last = valued[-1][0]
    related = [Related(m.value_loc, f"{m.name} counts here") for m, _ in valued[:-1][:8]]
    if group.holder is not None:
        holder = group.holder
        related.append(Related(_setup_where(holder, "steps"), f"held by `{holder.piece_id}`"))
    yield finding(
        c,
        last.value_loc,
        f"{group.name} holds {fmt(total)} ({c.total} of `{c.value}`) {where}; the rules "
        f"give {c.op} {limit.label}",
        tuple(related),
    )


def _combine(total: str, valued: list[tuple[_Member, float]]) -> float:
    if total == "sum":
        return float(sum(v * m.copies for m, v in valued))
    if total == "product":
        try:
            return float(math.prod(v**m.copies for m, v in valued))
        except OverflowError:
            return math.inf
    values = [v for _, v in valued]
    return min(values) if total == "min" else max(values)
