"""A light YAML node tree with positions, composed from the C parser's events.

PyYAML's own composer builds two Mark objects per node and resolves a tag for every scalar;
we type scalars ourselves, so composing from events is several times faster. Aliases point at
the anchored node (shared, not copied); `aliased` tells the caller to check for alias bombs.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

SCALAR, SEQUENCE, MAPPING = 0, 1, 2
_STR_TAG = "tag:yaml.org,2002:str"
try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class YNode:
    """kind: SCALAR (value: str), SEQUENCE (list of nodes) or MAPPING (list of key/value pairs).
    `plain` marks an unquoted, untagged scalar (the only kind typed as number/bool/null)."""

    __slots__ = ("kind", "value", "line", "column", "plain")

    def __init__(self, kind: int, value: object, line: int, column: int, plain: bool) -> None:
        self.kind = kind
        self.value: object = value
        self.line = line
        self.column = column
        self.plain = plain


@dataclass(frozen=True, slots=True)
class Composed:
    root: YNode | None
    aliased: bool


class ComposeError(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def compose(text: str) -> Composed:
    """Compose one YAML document; raises yaml.YAMLError or ComposeError on bad input."""
    loader = _Loader(text)
    stack: list[YNode] = []
    pending: list[YNode | None] = []
    anchors: dict[str, YNode] = {}
    root: YNode | None = None
    aliased = False
    documents = 0
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    map_start, seq_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    check, get = loader.check_event, loader.get_event
    try:
        while check():
            event = get()
            cls = type(event)
            if cls is scalar_event:
                mark = event.start_mark
                node = YNode(
                    SCALAR,
                    event.value,
                    mark.line + 1,
                    mark.column + 1,
                    not event.style and event.tag != _STR_TAG,
                )
                if event.anchor is not None:
                    anchors[event.anchor] = node
            elif cls in ends:
                stack.pop()
                pending.pop()
                continue
            elif cls is map_start or cls is seq_start:
                mark = event.start_mark
                node = YNode(
                    MAPPING if cls is map_start else SEQUENCE,
                    [],
                    mark.line + 1,
                    mark.column + 1,
                    False,
                )
                if event.anchor is not None:
                    anchors[event.anchor] = node
            elif cls is alias_event:
                target = anchors.get(event.anchor)
                if target is None:
                    mark = event.start_mark
                    raise ComposeError(
                        f"alias *{event.anchor} names no anchor", mark.line + 1, mark.column + 1
                    )
                aliased = True
                node = target
            elif cls is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    mark = event.start_mark
                    raise ComposeError(
                        "a data file holds one YAML document; found a second",
                        mark.line + 1,
                        mark.column + 1,
                    )
                continue
            else:
                continue
            if not stack:
                root = node
            else:
                parent = stack[-1]
                if parent.kind == SEQUENCE:
                    parent.value.append(node)  # type: ignore[attr-defined]
                elif pending[-1] is None:
                    pending[-1] = node
                else:
                    parent.value.append((pending[-1], node))  # type: ignore[attr-defined]
                    pending[-1] = None
            if node.kind != SCALAR and cls is not alias_event:
                stack.append(node)
                pending.append(None)
    finally:
        loader.dispose()
    return Composed(root, aliased)
