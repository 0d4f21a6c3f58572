"""What every constraint check shares: making findings, scope, $parameters, numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.diagnostics import Finding, Location, Related, Severity
from compiler.model.common import Limit, Node, is_number
from compiler.model.constraints import Constraint
from compiler.rules.context import Context, ScenarioView
from compiler.rules.expr import (
    Binary,
    Call,
    Expr,
    ExprError,
    Name,
    Neg,
    Param,
    Scope,
    check_names,
    evaluate,
    parse,
)


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


_KNOWN_HEADS = frozenset(
    {
        *("front back state leader category symbol shape has_back face at steps id side").split(),
        *("nationality type size formation title copies tags label back_kind value set").split(),
        *("kind level parent arm cavalry_only attachment_limit number fields deck").split(),
    }
)


def known_name(path: str) -> bool:
    """A value name a rule can read of a unit, placement, marker, formation or card."""
    return path.partition(".")[0] in _KNOWN_HEADS


@dataclass(frozen=True, slots=True)
class RecordScope:
    """An expression's view of one record: its values (numbers only) and the $params of its
    series title."""

    ctx: Context
    title: str
    attr: Callable[[str], Any] | None = None

    def value(self, path: str) -> float | None:
        return number(self.attr(path)) if self.attr is not None else None

    def param(self, name: str) -> float:
        found = self.ctx.game.param(name, self.title)
        if found is None:
            raise ParamError(f"${name}")
        return float(found)

    def members(self) -> Sequence[Scope]:
        return ()


@dataclass(frozen=True, slots=True)
class GroupScope:
    """An expression's view of a group (a stack, a formation, a side): its members for sum(),
    count() ..., the `holder.` values of the piece holding it, and the $params."""

    ctx: Context
    title: str
    items: Sequence[Scope]
    holder: Callable[[str], Any] | None = None

    def value(self, path: str) -> float | None:
        if self.holder is None or not path.startswith("holder."):
            return None
        return number(self.holder(path.removeprefix("holder.")))

    def param(self, name: str) -> float:
        return RecordScope(self.ctx, self.title).param(name)

    def members(self) -> Sequence[Scope]:
        return self.items


def limit_tree(limit: Limit | None) -> Expr | None:
    """The parsed expression of a bound written as text (ExprError if malformed)."""
    if limit is None or (is_number(limit)):
        return None
    return parse(str(limit))


def is_constant(limit: Limit | None) -> bool:
    """True when a bound reads no value of a record or group (a number, $params, arithmetic)."""
    tree = limit_tree(limit)
    return tree is None or not _reads_values(tree)


def _reads_values(tree: Expr) -> bool:
    if isinstance(tree, Name):
        return True
    if isinstance(tree, Call):
        return tree.fn in ("count", "sum", "product") or any(_reads_values(a) for a in tree.args)
    if isinstance(tree, Neg):
        return _reads_values(tree.operand)
    if isinstance(tree, Binary):
        return _reads_values(tree.left) or _reads_values(tree.right)
    return False


def bound(
    ctx: Context, limit: Limit | None, title: str, scope: Scope | None = None, group: bool = False
) -> Bound | None:
    """A number, the value of $name for the record's series title, or an expression over the
    scope's values (None: no bound, or a value it reads is missing)."""
    if limit is None:
        return None
    if is_number(limit):
        return Bound(float(limit), fmt(limit))
    tree = parse(str(limit))
    if isinstance(tree, Param):
        value = ctx.game.param(tree.name, title)
        if value is None:
            raise ParamError(str(limit).strip())
        where = f" for {title}" if title and ctx.game.title(title) else ""
        return Bound(float(value), f"{fmt(value)}{where}")
    result = evaluate(tree, scope or RecordScope(ctx, title), group=group)
    if result is None:
        return None
    return Bound(result, f"{fmt(result)} ({str(limit).strip()})")


def bad_expressions(
    c: Constraint,
    fields: Iterable[tuple[Node, str, Limit | None]],
    *,
    group: bool = False,
    known: Callable[[str], bool] = known_name,
) -> list[Finding]:
    """A bad-expression finding for each malformed bound or value among `fields` (record, key,
    text), at the value's own line."""
    out = []
    for node, key, limit in fields:
        if limit is None or (is_number(limit)):
            continue
        try:
            check_names(parse(str(limit)), group=group, known=known)
        except ExprError as err:
            out.append(
                Finding(
                    "bad-expression",
                    node.locate(key),
                    f"constraint `{c.id}`: `{key.rpartition('.')[2]}: {limit}` is not a valid "
                    f"expression: {err} (at character {err.offset + 1})",
                    "write a number, a $param, or an expression such as `2 * holder.steps`, "
                    "`sum(front.cv)`, `min($hand_limit, 7)` (see docs/guide.md §10)",
                    c.ref,
                )
            )
    return out


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
