"""A small, safe expression language for constraint bounds and aggregate values (no eval).

    2 * holder.steps - default(holder.state.damaged, 0)      a bound over a holder's state
    sum(steps)   count(steps >= 2)   max(front.cv)           over the members of a group
    ceil(front.steps / 2)   min($hand_limit, 7)   state.cv + 1 <= 12

Numbers, dotted value names (`steps`, `state.cv`, `front.attack`, `holder.steps`), `$params`,
`+ - * /`, comparisons (`<= < == != >= >`, giving 1 or 0), parentheses and the functions of
`FUNCTIONS`. A value that is missing (a unit without `front.cv`) makes the result missing, and
a missing bound or value is not checked; `default(x, 0)` gives 0 instead. Division by zero is
missing too. Text values are not numbers (missing).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

MAX_LENGTH = 400
MAX_DEPTH = 40

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?|\.\d+)|(?P<param>\$[A-Za-z_]\w*)"
    r"|(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)|(?P<op><=|>=|==|!=|[<>+\-*/(),]))"
)

COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    ">": operator.gt,
}

AGGREGATES = frozenset({"sum", "product", "count", "min", "max"})
"""Functions that, with one argument (count: none or one) in a group, run over its members."""

FUNCTIONS: dict[str, tuple[int, int]] = {
    "sum": (1, 1),
    "product": (1, 1),
    "count": (0, 1),
    "min": (1, 8),
    "max": (1, 8),
    "abs": (1, 1),
    "ceil": (1, 1),
    "floor": (1, 1),
    "default": (2, 2),
}
"""Function name → (fewest, most) arguments."""


class ExprError(Exception):
    """A malformed expression: the message says what is wrong, `offset` where (0-based)."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Num:
    value: float


@dataclass(frozen=True, slots=True)
class Name:
    path: str
    offset: int


@dataclass(frozen=True, slots=True)
class Param:
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    fn: str
    args: tuple[Expr, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Expr
    right: Expr


Expr = Num | Name | Param | Call | Neg | Binary


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None or match.lastgroup is None:
            start = pos + len(text[pos:]) - len(text[pos:].lstrip())
            raise ExprError(f"unexpected `{text[start]}`", start)
        out.append((match.lastgroup, match.group(match.lastgroup), match.start(match.lastgroup)))
        pos = match.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.index = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index]

    def take(self) -> tuple[str, str, int]:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, op: str) -> None:
        kind, value, offset = self.take()
        if value != op or kind != "op":
            raise ExprError(f"expected `{op}`, found {_shown(kind, value)}", offset)

    def expression(self) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExprError("the expression nests too deeply", self.peek()[2])
        left = self.additive()
        kind, value, _ = self.peek()
        if kind == "op" and value in COMPARE:
            self.take()
            left = Binary(value, left, self.additive())
        self.depth -= 1
        return left

    def additive(self) -> Expr:
        left = self.term()
        while self.peek()[0] == "op" and self.peek()[1] in "+-":
            op = self.take()[1]
            left = Binary(op, left, self.term())
        return left

    def term(self) -> Expr:
        left = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in "*/":
            op = self.take()[1]
            left = Binary(op, left, self.unary())
        return left

    def unary(self) -> Expr:
        if self.peek()[:2] == ("op", "-"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ExprError("the expression nests too deeply", self.peek()[2])
            operand = self.unary()
            self.depth -= 1
            return Neg(operand)
        return self.primary()

    def primary(self) -> Expr:
        kind, value, offset = self.take()
        if kind == "num":
            return Num(float(value))
        if kind == "param":
            return Param(value[1:])
        if kind == "name":
            if self.peek()[:2] == ("op", "("):
                return self.call(value, offset)
            return Name(value, offset)
        if (kind, value) == ("op", "("):
            inner = self.expression()
            self.expect(")")
            return inner
        raise ExprError(f"expected a number, a name or `(`, found {_shown(kind, value)}", offset)

    def call(self, fn: str, offset: int) -> Expr:
        if fn not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            raise ExprError(f"`{fn}` is not a function (functions: {known})", offset)
        self.expect("(")
        args: list[Expr] = []
        if self.peek()[:2] != ("op", ")"):
            args.append(self.expression())
            while self.peek()[:2] == ("op", ","):
                self.take()
                args.append(self.expression())
        self.expect(")")
        fewest, most = FUNCTIONS[fn]
        if not fewest <= len(args) <= most:
            wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise ExprError(f"`{fn}` takes {wanted} argument(s), not {len(args)}", offset)
        return Call(fn, tuple(args), offset)


def _shown(kind: str, value: str) -> str:
    return "the end" if kind == "end" else f"`{value}`"


@lru_cache(maxsize=512)
def parse(text: str) -> Expr:
    """The expression written in `text`, or ExprError."""
    if len(text) > MAX_LENGTH:
        raise ExprError(f"the expression is longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ExprError("the expression is empty")
    parser = _Parser(text)
    tree = parser.expression()
    kind, value, offset = parser.peek()
    if kind != "end":
        raise ExprError(f"unexpected {_shown(kind, value)} after the expression", offset)
    return tree


def check_names(tree: Expr, *, group: bool, known: Callable[[str], bool]) -> None:
    """Static checks: value names the rules can read; aggregates only over a group's members;
    in a group, a bare value name only inside an aggregate (or under `holder.`)."""
    _check(tree, group=group, inside=False, known=known)


def _check(tree: Expr, *, group: bool, inside: bool, known: Callable[[str], bool]) -> None:
    if isinstance(tree, Name):
        member_scope = inside or not group
        if tree.path.startswith("holder."):
            if not group or inside:
                raise ExprError(f"`{tree.path}`: `holder.` is only read outside sum() ...", 0)
            if not known(tree.path.removeprefix("holder.")):
                raise ExprError(f"`{tree.path}` is not a value the rules can read", tree.offset)
            return
        if not member_scope:
            raise ExprError(
                f"`{tree.path}` is a value of each member: write sum({tree.path}), "
                f"min({tree.path}) ... or holder.{tree.path}",
                tree.offset,
            )
        if not known(tree.path):
            raise ExprError(f"`{tree.path}` is not a value the rules can read", tree.offset)
    elif isinstance(tree, Call):
        aggregate = _is_aggregate(tree, group)
        if aggregate and inside:
            raise ExprError(f"`{tree.fn}` over members inside another one", tree.offset)
        if tree.fn in ("sum", "product") and not group:
            raise ExprError(f"`{tree.fn}` needs a group of members (kind: aggregate)", tree.offset)
        if tree.fn == "count" and not group:
            raise ExprError("`count` needs a group of members (kind: aggregate)", tree.offset)
        for arg in tree.args:
            _check(arg, group=group, inside=inside or aggregate, known=known)
    elif isinstance(tree, Neg):
        _check(tree.operand, group=group, inside=inside, known=known)
    elif isinstance(tree, Binary):
        _check(tree.left, group=group, inside=inside, known=known)
        _check(tree.right, group=group, inside=inside, known=known)


def _is_aggregate(call: Call, group: bool) -> bool:
    if not group or call.fn not in AGGREGATES:
        return False
    return call.fn in ("sum", "product", "count") or len(call.args) == 1


class Scope(Protocol):
    """What an expression reads: values by name, $params, and (in a group) its members."""

    def value(self, path: str) -> float | None: ...

    def param(self, name: str) -> float: ...

    def members(self) -> Sequence[Scope]: ...


def evaluate(tree: Expr, scope: Scope, *, group: bool = False) -> float | None:
    """The value of the expression, or None where a value it reads is missing."""
    if isinstance(tree, Num):
        return tree.value
    if isinstance(tree, Param):
        return scope.param(tree.name)
    if isinstance(tree, Name):
        return scope.value(tree.path)
    if isinstance(tree, Neg):
        inner = evaluate(tree.operand, scope, group=group)
        return None if inner is None else -inner
    if isinstance(tree, Binary):
        return _binary(tree, scope, group)
    return _call(tree, scope, group)


def _binary(tree: Binary, scope: Scope, group: bool) -> float | None:
    left = evaluate(tree.left, scope, group=group)
    right = evaluate(tree.right, scope, group=group)
    if left is None or right is None:
        return None
    if tree.op in COMPARE:
        return 1.0 if COMPARE[tree.op](left, right) else 0.0
    if tree.op == "+":
        return left + right
    if tree.op == "-":
        return left - right
    if tree.op == "*":
        return left * right
    return None if right == 0 else left / right


def _call(tree: Call, scope: Scope, group: bool) -> float | None:
    if _is_aggregate(tree, group):
        return _aggregate(tree, scope)
    if tree.fn == "default":
        first = evaluate(tree.args[0], scope, group=group)
        return first if first is not None else evaluate(tree.args[1], scope, group=group)
    values = [evaluate(arg, scope, group=group) for arg in tree.args]
    if any(v is None for v in values):
        return None
    numbers = [v for v in values if v is not None]
    if tree.fn == "min":
        return min(numbers)
    if tree.fn == "max":
        return max(numbers)
    if tree.fn == "abs":
        return abs(numbers[0])
    if not math.isfinite(numbers[0]):
        return None
    if tree.fn == "ceil":
        return float(math.ceil(numbers[0]))
    return float(math.floor(numbers[0]))


def _aggregate(tree: Call, scope: Scope) -> float | None:
    members = scope.members()
    if tree.fn == "count":
        if not tree.args:
            return float(len(members))
        return float(sum(1 for m in members if evaluate(tree.args[0], m)))
    values = [v for m in members if (v := evaluate(tree.args[0], m)) is not None]
    if tree.fn == "sum":
        return float(sum(values))
    if tree.fn == "product":
        return float(math.prod(values)) if values else None
    if not values:
        return None
    return min(values) if tree.fn == "min" else max(values)


def plain_name(tree: Expr) -> str:
    """The value name when the expression is just one name (for finding its line), else ""."""
    return tree.path if isinstance(tree, Name) else ""
