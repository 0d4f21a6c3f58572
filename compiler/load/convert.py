"""Typed conversion of composed YAML nodes into frozen model records.

Strict: duplicate keys, unknown keys (with "did you mean"), missing keys and wrong types are
findings; only `true`/`false` are booleans; every value keeps its file:line:col.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

import yaml

from compiler.diagnostics import Finding, Location, Related
from compiler.model.common import Node, Text

MAX_NODES = 4_000_000
_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null"})


class Invalid:
    """Marker for a value that could not be converted (a finding says why)."""


INVALID = Invalid()


class _TooBig(Exception):
    pass


def _kind_of(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"`{node.value}`" if len(node.value) < 40 else "text"


def _is_plain(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and not node.style


def plain_scalar(node: yaml.ScalarNode) -> Any:
    """The typed value of a scalar: only true/false are booleans; quoted scalars are text."""
    text = node.value
    if node.style:
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


def discriminator(cls: type) -> str | None:
    """The literal `kind` value of a record class, if it has one."""
    hint = _fields(cls)[0].get("kind")
    if hint is not None and get_origin(hint) is Literal and len(get_args(hint)) == 1:
        value = get_args(hint)[0]
        return value if isinstance(value, str) else None
    return None


def suggest(word: str, choices: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""


class Converter:
    """Converts the nodes of one file; collects findings instead of raising."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []
        self._visited = 0
        self._active: set[int] = set()

    # -- helpers -------------------------------------------------------------------------
    def loc(self, node: yaml.Node) -> Location:
        mark = node.start_mark
        return Location(self.path, mark.line + 1, mark.column + 1)

    def report(self, rule: str, node: yaml.Node, message: str, hint: str = "") -> Invalid:
        self.findings.append(Finding(rule, self.loc(node), message, hint))
        return INVALID

    def wrong_type(self, node: yaml.Node, expected: str) -> Invalid:
        return self.report("wrong-type", node, f"expected {expected}, found {_kind_of(node)}")

    def convert_root(self, node: yaml.Node, hint: Any) -> Any:
        shape = _expanded_size(node)
        if isinstance(shape, yaml.Node):
            return self.report(
                "reference-cycle", shape, "this alias refers to itself (a recursive structure)"
            )
        try:
            if shape > MAX_NODES:
                raise _TooBig
            return self.convert(node, hint, {}, "")
        except _TooBig:
            return self.report(
                "alias-bomb",
                node,
                f"the document expands to {shape:,} values through aliases "
                f"(at most {MAX_NODES:,} are read)",
                "YAML aliases (*name) must not multiply the data; write the values out",
            )
        except RecursionError:
            return self.report("yaml-syntax", node, "the document is nested too deeply", "")

    # -- dispatch ------------------------------------------------------------------------
    def convert(self, node: yaml.Node, hint: Any, locs: dict[str, Location], path: str) -> Any:
        self._visited += 1
        if self._visited > MAX_NODES:
            raise _TooBig
        key = id(node)
        if key in self._active:
            return self.report(
                "reference-cycle", node, "this alias refers to itself (a recursive structure)"
            )
        self._active.add(key)
        try:
            return self._dispatch(node, hint, locs, path)
        finally:
            self._active.discard(key)

    def _dispatch(self, node: yaml.Node, hint: Any, locs: dict[str, Location], path: str) -> Any:
        if path:
            locs[path] = self.loc(node)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self.record(node, hint) if hint is not Text else self.text(node)
        args = _union_args(hint)
        if args is not None:
            return self.union(node, args, locs, path)
        origin = get_origin(hint)
        if origin is tuple:
            return self.tuple_(node, get_args(hint), locs, path)
        if origin is Mapping or origin is dict:
            return self.mapping(node, get_args(hint)[1], locs, path)
        if origin is Literal:
            return self.literal(node, get_args(hint))
        return self.scalar(node, hint)

    # -- scalars -------------------------------------------------------------------------
    def scalar(self, node: yaml.Node, hint: Any) -> Any:
        names = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}
        if not isinstance(node, yaml.ScalarNode):
            return self.wrong_type(node, names.get(hint, str(hint)))
        if hint is str:
            if _is_plain(node) and node.value in _NULLS:
                return self.wrong_type(node, "text")
            return node.value
        value = plain_scalar(node)
        if hint is bool:
            return value if isinstance(value, bool) else self.wrong_type(node, "true or false")
        if hint is int:
            return value if type(value) is int else self.wrong_type(node, "a whole number")
        if hint is float:
            if type(value) in (int, float):
                return float(value)
            return self.wrong_type(node, "a number")
        raise TypeError(f"unsupported type {hint!r}")  # a bug in the model, not in the data

    def text(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if _is_plain(node) and node.value in _NULLS:
                return self.wrong_type(node, "text")
            return Text(node.value)
        if isinstance(node, yaml.MappingNode):
            pairs = self.pairs(node)
            unknown = [k for k in pairs if k not in ("en", "ja")]
            for name in unknown:
                self.report(
                    "unknown-key",
                    pairs[name][0],
                    f"unknown key `{name}` in a text",
                    "a text has `en` and `ja`",
                )
            values: dict[str, str] = {}
            for name in ("en", "ja"):
                if name in pairs:
                    got = self.scalar(pairs[name][1], str)
                    if isinstance(got, str):
                        values[name] = got
            if not values:
                return self.report("missing-key", node, "a text needs `en` (and optionally `ja`)")
            return Text(values.get("en") or values.get("ja", ""), values.get("ja", ""))
        return self.wrong_type(node, "text or {en, ja}")

    def literal(self, node: yaml.Node, choices: tuple[Any, ...]) -> Any:
        if isinstance(node, yaml.ScalarNode):
            for choice in choices:
                if node.value == str(choice) or plain_scalar(node) == choice and choice != "":
                    return choice
            shown = ", ".join(f"`{c}`" for c in choices if c != "")
            return self.report(
                "wrong-type",
                node,
                f"`{node.value}` is not one of {shown}",
                suggest(node.value, [str(c) for c in choices]),
            )
        return self.wrong_type(node, "one of " + ", ".join(str(c) for c in choices))

    # -- containers ----------------------------------------------------------------------
    def pairs(self, node: yaml.MappingNode) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """Keys of a mapping (as text) with their key and value nodes; duplicates reported."""
        seen: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.report("wrong-type", key_node, "a key must be text")
                continue
            if key_node.value == "<<" and key_node.tag == "tag:yaml.org,2002:merge":
                self.report(
                    "wrong-type",
                    key_node,
                    "YAML merge keys (<<) are not supported",
                    "write the keys out",
                )
                continue
            name = key_node.value
            if name in seen:
                first = self.loc(seen[name][0])
                self.findings.append(
                    Finding(
                        "duplicate-key",
                        self.loc(key_node),
                        f"key `{name}` appears twice in this mapping",
                        "remove one of them; YAML would silently keep only the last",
                        related=(Related(first, f"`{name}` first appears here"),),
                    )
                )
                continue
            seen[name] = (key_node, value_node)
        return seen

    def mapping(
        self, node: yaml.Node, value_hint: Any, locs: dict[str, Location], path: str
    ) -> Any:
        if not isinstance(node, yaml.MappingNode):
            return self.wrong_type(node, "a mapping")
        out: dict[str, Any] = {}
        for name, (_key, value_node) in self.pairs(node).items():
            value = self.convert(value_node, value_hint, locs, f"{path}.{name}" if path else name)
            if value is not INVALID:
                out[name] = value
        return types.MappingProxyType(out)

    def tuple_(
        self, node: yaml.Node, args: tuple[Any, ...], locs: dict[str, Location], path: str
    ) -> Any:
        if not isinstance(node, yaml.SequenceNode):
            return self.wrong_type(node, "a list")
        items = node.value
        fixed = not (len(args) == 2 and args[1] is Ellipsis)
        if fixed and len(items) != len(args):
            return self.report(
                "wrong-type", node, f"expected a list of {len(args)} values, found {len(items)}"
            )
        out = []
        for index, item in enumerate(items):
            hint = args[index] if fixed else args[0]
            value = self.convert(item, hint, locs, f"{path}.{index}" if path else str(index))
            if value is not INVALID:
                out.append(value)
            elif fixed:
                return INVALID
        return tuple(out)

    def union(
        self, node: yaml.Node, args: tuple[Any, ...], locs: dict[str, Location], path: str
    ) -> Any:
        if type(None) in args and _is_plain(node) and node.value in _NULLS:
            return None
        options = [a for a in args if a is not type(None)]
        records = [
            a
            for a in options
            if isinstance(a, type) and dataclasses.is_dataclass(a) and a is not Text
        ]
        if len(records) > 1:
            return self.tagged(node, records)
        if len(options) == 1:
            return self.convert_same(node, options[0], locs, path)
        if isinstance(node, yaml.ScalarNode):
            plain = [a for a in options if a in (int, float, str, bool)]
            if plain:
                value = plain_scalar(node)
                if value is None:
                    return self.wrong_type(node, "a value")
                if type(value) in plain or (type(value) is int and float in plain):
                    return value
                if str in plain:
                    return node.value
                return self.wrong_type(node, " or ".join(a.__name__ for a in plain))
            if Text in options:
                return self.text(node)
        for option in options:
            origin = get_origin(option)
            if isinstance(node, yaml.SequenceNode) and origin is tuple:
                return self.convert_same(node, option, locs, path)
            if isinstance(node, yaml.MappingNode) and (option is Text or origin is Mapping):
                return self.convert_same(node, option, locs, path)
        return self.wrong_type(node, "a value of another kind")

    def convert_same(self, node: yaml.Node, hint: Any, locs: dict[str, Location], path: str) -> Any:
        """Convert without counting the node twice or tripping the cycle check."""
        return self._dispatch(node, hint, locs, path)

    def tagged(self, node: yaml.Node, classes: list[type]) -> Any:
        by_kind = {discriminator(c): c for c in classes}
        if not isinstance(node, yaml.MappingNode):
            return self.wrong_type(node, "a mapping with `kind`")
        pairs = self.pairs(node)
        if "kind" not in pairs:
            return self.report(
                "missing-key",
                node,
                "missing key `kind`",
                "kind is one of " + ", ".join(sorted(k for k in by_kind if k)),
            )
        kind_node = pairs["kind"][1]
        cls = by_kind.get(kind_node.value) if isinstance(kind_node, yaml.ScalarNode) else None
        if cls is None:
            value = kind_node.value if isinstance(kind_node, yaml.ScalarNode) else ""
            hint = suggest(value, [k for k in by_kind if k]) or (
                "kind is one of " + ", ".join(sorted(k for k in by_kind if k))
            )
            return self.report("wrong-type", kind_node, f"unknown kind `{value}`", hint)
        return self.record(node, cls)

    # -- records -------------------------------------------------------------------------
    def record(self, node: yaml.Node, cls: type) -> Any:
        if not isinstance(node, yaml.MappingNode):
            return self.wrong_type(node, f"a mapping ({cls.__name__})")
        hints, required, names = _fields(cls)
        pairs = self.pairs(node)
        locs: dict[str, Location] = {}
        values: dict[str, Any] = {}
        failed = False
        for name, (key_node, value_node) in pairs.items():
            hint = hints.get(name)
            if hint is None:
                self.report(
                    "unknown-key",
                    key_node,
                    f"unknown key `{name}` in {cls.__name__}",
                    suggest(name, names) or "allowed: " + ", ".join(names),
                )
                continue
            value = self.convert(value_node, hint, locs, name)
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


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _expanded_size(root: yaml.Node) -> int | yaml.Node:
    """Values the tree holds once aliases are expanded (linear time, shared nodes counted once
    per use); or the node where an alias refers back into itself."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in _children(node))
            continue
        if key in size:
            continue
        if key in open_nodes:
            return node
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
