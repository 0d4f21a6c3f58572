"""What every constraint check shares: making findings, scope, $parameters, numbers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from compiler.diagnostics import Finding, Location, Related, Severity
from compiler.model.common import Limit
from compiler.model.constraints import Constraint
from compiler.rules.context import Context, ScenarioView


def finding(
    c: Constraint, loc: Location, message: str, related: tuple[Related, ...] = (), hint: str = ""
) -> Finding:
    severity = Severity.WARNING if c.severity == "warning" else Severity.ERROR
    return Finding(c.id, loc, message, hint or c.hint or str(c.title), c.ref, severity, related)


def in_titles(c: Constraint, title: str) -> bool:
    return not c.titles or title in c.titles


def views(ctx: Context, c: Constraint) -> Iterator[ScenarioView]:
    for view in ctx.views():
        scenario = view.scenario
        if c.scenarios and scenario.id not in c.scenarios:
            continue
        if in_titles(c, scenario.title):
            yield view


class ParamError(Exception):
    """A $parameter a constraint names is not defined (reported once as unknown-param)."""


@dataclass(frozen=True, slots=True)
class Bound:
    value: float
    label: str


def bound(ctx: Context, limit: Limit | None, title: str) -> Bound | None:
    """A number, or the value of $name for the record's series title."""
    if limit is None:
        return None
    if isinstance(limit, int | float) and not isinstance(limit, bool):
        return Bound(float(limit), fmt(limit))
    text = str(limit)
    if not text.startswith("$"):
        raise ParamError(text)
    value = ctx.game.param(text[1:], title)
    if value is None:
        raise ParamError(text)
    where = f" for {title}" if title and ctx.game.title(title) else ""
    return Bound(float(value), f"{fmt(value)}{where}")


def param_finding(c: Constraint, key: str, name: str) -> Finding:
    return Finding(
        "unknown-param",
        c.locate(key),
        f"constraint `{c.id}` names `{name}`, which is not a number or a defined parameter",
        "define it under game: params: (or a title's params:)",
    )


def fmt(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
