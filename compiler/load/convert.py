"""Typed conversion of composed YAML nodes into frozen model records.

Strict: duplicate keys, unknown keys (with "did you mean"), missing keys and wrong types are
findings; only `true`/`false` are booleans; every value keeps its file:line:col.

Each type hint of the model is compiled once into a small conversion function (a plan), so a
large file costs one plain function call per value.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

from compiler.diagnostics import Finding, Location, Related
from compiler.load.nodes import MAPPING, SCALAR, SEQUENCE, YNode
from compiler.model.common import Node, Text

MAX_NODES = 4_000_000
_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null"})
Locs = dict[str, tuple[int, int]]
Plan = Callable[["Converter", YNode, Locs, str], Any]


class Invalid:
    """Marker for a value that could not be converted (a finding says why)."""


INVALID = Invalid()


def _kind_of(node: YNode) -> str:
    if node.kind == MAPPING:
        return "a mapping"
    if node.kind == SEQUENCE:
        return "a list"
    text = str(node.value)
    return f"`{text}`" if len(text) < 40 else "text"


def plain_scalar(node: YNode) -> Any:
    """The typed value of a scalar: only true/false are booleans; quoted scalars are text."""
    text = node.value
    assert isinstance(text, str)
    if not node.plain:
        return text
    if text in _NULLS:
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _is_null(node: YNode) -> bool:
    return node.kind == SCALAR and node.plain and node.value in _NULLS


@cache
def _fields(cls: type) -> tuple[dict[str, Any], frozenset[str], tuple[str, ...]]:
    hints = typing.get_type_hints(cls)
    public = [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]
    required = frozenset(
        f.name
        for f in public
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    return {f.name: hints[f.name] for f in public}, required, tuple(f.name for f in public)


def _union_args(hint: Any) -> tuple[Any, ...] | None:
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return get_args(hint)
    return None


def _is_record(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint) and hint is not Text


def discriminator(cls: type) -> str | None:
    """The literal `kind` value of a record class, if it has one."""
    hint = _fields(cls)[0].get("kind")
    if hint is not None and get_origin(hint) is Literal and len(get_args(hint)) == 1:
        value = get_args(hint)[0]
        return value if isinstance(value, str) else None
    return None


def suggest(word: str, choices: Iterable[str]) -> str:
    import difflib  # only for a misspelt key: a build whose data reads clean never loads it

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""


# -- plans -------------------------------------------------------------------------------------
_SCALAR_NAMES = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}


def _text_plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
    if node.kind != SCALAR or _is_null(node):
        return conv.wrong_type(node, "text")
    return node.value


def _int_plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
    value = plain_scalar(node) if node.kind == SCALAR else None
    return value if type(value) is int else conv.wrong_type(node, "a whole number")


def _float_plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
    value = plain_scalar(node) if node.kind == SCALAR else None
    if type(value) is int or type(value) is float:
        return float(value)
    return conv.wrong_type(node, "a number")


def _bool_plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
    value = plain_scalar(node) if node.kind == SCALAR else None
    return value if isinstance(value, bool) else conv.wrong_type(node, "true or false")


def _bilingual_plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
    return conv.text(node)


def _literal_plan(choices: tuple[Any, ...]) -> Plan:
    by_text = {str(c): c for c in choices}
    shown = ", ".join(f"`{c}`" for c in choices if c != "")

    def plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        if node.kind != SCALAR:
            return conv.wrong_type(node, "one of " + shown)
        text = str(node.value)
        if text in by_text:
            return by_text[text]
        return conv.report(
            "wrong-type", node, f"`{text}` is not one of {shown}", suggest(text, by_text)
        )

    return plan


def _tuple_plan(args: tuple[Any, ...]) -> Plan:
    if len(args) == 2 and args[1] is Ellipsis:
        item = plan_for(args[0])

        def variadic(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
            if node.kind != SEQUENCE:
                return conv.wrong_type(node, "a list")
            out = []
            children: list[YNode] = node.value  # type: ignore[assignment]
            for index, child in enumerate(children):
                key = f"{path}.{index}" if path else str(index)
                locs[key] = (child.line, child.column)
                value = item(conv, child, locs, key)
                if value is not INVALID:
                    out.append(value)
            return tuple(out)

        return variadic
    items = [plan_for(a) for a in args]

    def fixed(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        children = node.value
        if node.kind != SEQUENCE or not isinstance(children, list):
            return conv.wrong_type(node, "a list")
        if len(children) != len(items):
            return conv.report(
                "wrong-type", node, f"expected a list of {len(items)} values, found {len(children)}"
            )
        out = []
        for index, (child, item) in enumerate(zip(children, items, strict=True)):
            key = f"{path}.{index}" if path else str(index)
            locs[key] = (child.line, child.column)
            value = item(conv, child, locs, key)
            if value is INVALID:
                return INVALID
            out.append(value)
        return tuple(out)

    return fixed


def _mapping_plan(value_hint: Any) -> Plan:
    item = plan_for(value_hint)

    def plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        if node.kind != MAPPING:
            return conv.wrong_type(node, "a mapping")
        out: dict[str, Any] = {}
        for name, (_key, child) in conv.pairs(node).items():
            key = f"{path}.{name}" if path else name
            locs[key] = (child.line, child.column)
            value = item(conv, child, locs, key)
            if value is not INVALID:
                out[name] = value
        return types.MappingProxyType(out)

    return plan


def _union_plan(args: tuple[Any, ...]) -> Plan:
    nullable = type(None) in args
    options = [a for a in args if a is not type(None)]
    records = [a for a in options if _is_record(a)]
    if len(records) > 1:
        by_kind = {discriminator(c): c for c in records}
        inner: Plan = lambda conv, node, locs, path: conv.tagged(node, by_kind)  # noqa: E731
    elif len(options) == 1:
        inner = plan_for(options[0])
    else:
        inner = _mixed_plan(options)
    if not nullable:
        return inner

    def optional(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        return None if _is_null(node) else inner(conv, node, locs, path)

    return optional


def _mixed_plan(options: list[Any]) -> Plan:
    plain = tuple(a for a in options if a in (int, float, str, bool))
    names = " or ".join(_SCALAR_NAMES[a] for a in plain)
    has_text = Text in options
    seq = next((plan_for(a) for a in options if get_origin(a) is tuple), None)
    mapping = next((plan_for(a) for a in options if a is Text or get_origin(a) is Mapping), None)

    def plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        if node.kind == SCALAR:
            if plain:
                value = plain_scalar(node)
                if value is None:
                    return conv.wrong_type(node, names)
                kind = type(value)
                if kind in plain or (kind is int and float in plain):
                    return value
                if str in plain:
                    return node.value
                return conv.wrong_type(node, names)
            if has_text:
                return conv.text(node)
        if node.kind == SEQUENCE and seq is not None:
            return seq(conv, node, locs, path)
        if node.kind == MAPPING and mapping is not None:
            return mapping(conv, node, locs, path)
        return conv.wrong_type(node, names or "a value of another kind")

    return plan


def _record_plan(cls: type) -> Plan:
    def plan(conv: Converter, node: YNode, locs: Locs, path: str) -> Any:
        return conv.record(node, cls)

    return plan


_PLANS: dict[Any, Plan] = {
    str: _text_plan,
    int: _int_plan,
    float: _float_plan,
    bool: _bool_plan,
    Text: _bilingual_plan,
}


def plan_for(hint: Any) -> Plan:
    found = _PLANS.get(hint)
    if found is not None:
        return found
    if _is_record(hint):
        built = _record_plan(hint)
    elif _union_args(hint) is not None:
        built = _union_plan(get_args(hint))
    elif get_origin(hint) is tuple:
        built = _tuple_plan(get_args(hint))
    elif get_origin(hint) in (Mapping, dict):
        built = _mapping_plan(get_args(hint)[1])
    elif get_origin(hint) is Literal:
        built = _literal_plan(get_args(hint))
    else:
        raise TypeError(f"unsupported type {hint!r}")  # a bug in the model, not in the data
    _PLANS[hint] = built
    return built


@cache
def _record_fields(cls: type) -> tuple[dict[str, Plan], frozenset[str], tuple[str, ...]]:
    hints, required, names = _fields(cls)
    return {name: plan_for(hint) for name, hint in hints.items()}, required, names


# -- the converter -----------------------------------------------------------------------------
class Converter:
    """Converts the nodes of one file; collects findings instead of raising."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def loc(self, node: YNode) -> Location:
        return Location(self.path, node.line, node.column)

    def report(self, rule: str, node: YNode, message: str, hint: str = "") -> Invalid:
        self.findings.append(Finding(rule, self.loc(node), message, hint))
        return INVALID

    def wrong_type(self, node: YNode, expected: str) -> Invalid:
        return self.report("wrong-type", node, f"expected {expected}, found {_kind_of(node)}")

    def convert_root(self, node: YNode, hint: Any, aliased: bool = False) -> Any:
        if aliased:
            shape = _expanded_size(node)
            if isinstance(shape, YNode):
                return self.report(
                    "reference-cycle", shape, "this alias refers to itself (a recursive structure)"
                )
            if shape > MAX_NODES:
                return self.report(
                    "alias-bomb",
                    node,
                    f"the document expands to {shape:,} values through aliases "
                    f"(at most {MAX_NODES:,} are read)",
                    "YAML aliases (*name) must not multiply the data; write the values out",
                )
        return plan_for(hint)(self, node, {}, "")

    def text(self, node: YNode) -> Any:
        if node.kind == SCALAR:
            return self.wrong_type(node, "text") if _is_null(node) else Text(str(node.value))
        if node.kind != MAPPING:
            return self.wrong_type(node, "text or {en, ja}")
        pairs = self.pairs(node)
        for name in pairs:
            if name not in ("en", "ja"):
                self.report(
                    "unknown-key",
                    pairs[name][0],
                    f"unknown key `{name}` in a text",
                    "a text has `en` and `ja`",
                )
        values: dict[str, str] = {}
        for name in ("en", "ja"):
            if name in pairs:
                got = _text_plan(self, pairs[name][1], {}, "")
                if isinstance(got, str):
                    values[name] = got
        if not values:
            return self.report("missing-key", node, "a text needs `en` (and optionally `ja`)")
        return Text(values.get("en") or values.get("ja", ""), values.get("ja", ""))

    def pairs(self, node: YNode) -> dict[str, tuple[YNode, YNode]]:
        """Keys of a mapping (as text) with their key and value nodes; duplicates reported."""
        seen: dict[str, tuple[YNode, YNode]] = {}
        for key_node, value_node in node.value:  # type: ignore[attr-defined]
            if key_node.kind != SCALAR:
                self.report("wrong-type", key_node, "a key must be text")
                continue
            name = key_node.value
            if name == "<<" and key_node.plain:
                self.report(
                    "wrong-type",
                    key_node,
                    "YAML merge keys (<<) are not supported",
                    "write the keys out",
                )
                continue
            first = seen.get(name)
            if first is not None:
                self.findings.append(
                    Finding(
                        "duplicate-key",
                        self.loc(key_node),
                        f"key `{name}` appears twice in this mapping",
                        "remove one of them; YAML would silently keep only the last",
                        related=(Related(self.loc(first[0]), f"`{name}` first appears here"),),
                    )
                )
                continue
            seen[name] = (key_node, value_node)
        return seen

    def tagged(self, node: YNode, by_kind: dict[str | None, type]) -> Any:
        kinds = sorted(k for k in by_kind if k)
        if node.kind != MAPPING:
            return self.wrong_type(node, "a mapping with `kind`")
        pairs = self.pairs(node)
        if "kind" not in pairs:
            return self.report(
                "missing-key", node, "missing key `kind`", "kind is one of " + ", ".join(kinds)
            )
        kind_node = pairs["kind"][1]
        value = str(kind_node.value) if kind_node.kind == SCALAR else ""
        cls = by_kind.get(value)
        if cls is None:
            return self.report(
                "wrong-type",
                kind_node,
                f"unknown kind `{value}`",
                suggest(value, kinds) or "kind is one of " + ", ".join(kinds),
            )
        return self.record(node, cls)

    def record(self, node: YNode, cls: type) -> Any:
        if node.kind != MAPPING:
            return self.wrong_type(node, f"a mapping ({cls.__name__})")
        plans, required, names = _record_fields(cls)
        locs: Locs = {}
        values: dict[str, Any] = {}
        failed = False
        pairs = self.pairs(node)
        for name, (key_node, value_node) in pairs.items():
            plan = plans.get(name)
            if plan is None:
                self.report(
                    "unknown-key",
                    key_node,
                    f"unknown key `{name}` in {cls.__name__}",
                    suggest(name, names) or "allowed: " + ", ".join(names),
                )
                continue
            locs[name] = (value_node.line, value_node.column)
            value = plan(self, value_node, locs, name)
            if value is INVALID:
                failed = failed or name in required
                continue
            values[name] = value
        missing = [name for name in names if name in required and name not in pairs]
        for name in missing:
            self.report(
                "missing-key", node, f"{cls.__name__} needs key `{name}`", _missing_hint(cls, name)
            )
        if failed or missing:
            return INVALID
        if issubclass(cls, Node):
            values["loc"] = self.loc(node)
            values["locs"] = types.MappingProxyType(locs)
        return cls(**values)


def _children(node: YNode) -> list[YNode]:
    if node.kind == SEQUENCE:
        return node.value  # type: ignore[return-value]
    if node.kind == MAPPING:
        return [n for pair in node.value for n in pair]  # type: ignore[attr-defined]
    return []


def _expanded_size(root: YNode) -> int | YNode:
    """Values the tree holds once aliases are expanded (linear time, a shared node counted once
    per use); or the node where an alias refers back into itself."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[YNode, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in _children(node))
            continue
        if key in size:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                return child
            if id(child) not in size:
                stack.append((child, False))
    return size[id(root)]


def _missing_hint(cls: type, name: str) -> str:
    for f in dataclasses.fields(cls):
        if f.name == name and f.metadata.get("doc"):
            return f"{name}: {f.metadata['doc']}"
    return ""
