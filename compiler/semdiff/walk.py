"""The generic comparison of two model records, field by field.

Any frozen dataclass of the model is walked through its compared fields (never `loc`/`locs`):
mappings key by key, tuples of records matched by their key (`id`, else `n`, `tag`, `side`,
the two ends of a link, a label or name, else their place), other values compared as values
(`4` equals `4.0`, `1` is not `true`). A field naming an image compares the file's bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from compiler.diagnostics import printable
from compiler.load.paths import game_path
from compiler.model.common import Text
from compiler.regularfile import open_regular

Delta = tuple[str, str, str, str]
"""(kind, dotted field, old value, new value) as printed."""

MAX_SHOWN = 72
MAX_IMAGE_BYTES = 256 * 1024 * 1024
_KEY_ATTRS = ("id", "n", "tag", "side", "between", "ends", "label", "name")
UNORDERED = frozenset(
    {"tags", "zones", "features", "titles", "scenarios", "maps", "sheets", "hexsides", "links"}
    | {"areas", "towns", "boxes", "hexes", "decks"}
)
"""Fields whose order means nothing: sets written as lists."""


def is_record(value: object) -> bool:
    return (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and not isinstance(value, Text)
    )


_FIELDS: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a record that say something about the game (not where it was written)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.compare and not f.metadata.get("internal") and f.name not in ("loc", "locs")
        )
    return found


def canon(value: object, unordered: bool = False) -> object:
    """A comparable form of a value: numbers by value, booleans apart from numbers."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("nan",) if isinstance(value, float) and math.isnan(value) else ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, Text):
        return ("t", value.en, value.ja)
    if isinstance(value, Mapping):
        pairs = ((str(k), canon(v)) for k, v in value.items())
        return ("m", tuple(sorted(pairs, key=lambda pair: pair[0])))
    if isinstance(value, tuple | list | set | frozenset):
        items = tuple(canon(v) for v in value)
        if unordered or isinstance(value, set | frozenset):
            return ("set", tuple(sorted(items, key=repr)))
        return ("l", items)
    if is_record(value):
        names = field_names(type(value))
        return ("r", type(value).__name__, tuple(canon(getattr(value, n)) for n in names))
    return ("o", repr(value))


def text(value: object) -> str:
    """A value as a module maker writes it (not yet made safe or short)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    if isinstance(value, Text):
        return f"{value.en} / {value.ja}" if value.ja else value.en
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, set | frozenset):
        return "[" + ", ".join(sorted(text(v) for v in value)) + "]"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(text(v) for v in value) + "]"
    if is_record(value):
        return "{" + record_text(value) + "}"
    return str(value)


def record_text(record: Any, skip: frozenset[str] = frozenset()) -> str:
    """`field: value, ...` of a record's fields that differ from their defaults."""
    parts = []
    for f in dataclasses.fields(record):
        if f.name not in field_names(type(record)) or f.name in skip:
            continue
        value = getattr(record, f.name)
        if f.default is not dataclasses.MISSING:
            default: object = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        if default is dataclasses.MISSING or canon(value) != canon(default):
            parts.append(f"{f.name}: {text(value)}")
    return ", ".join(parts)


def clean(value: str, limit: int = MAX_SHOWN) -> str:
    """Safe to print on one terminal line, and short."""
    shown = printable(value).replace("\n", "\\n").replace("\t", "\\t")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def show(value: object) -> str:
    return clean(text(value))


@dataclass
class Digests:
    """SHA-256 of the image files the two games name, each read once (inside its folder only)."""

    roots: tuple[str, str]
    _seen: dict[tuple[str, str], str] = field(default_factory=dict)

    def of(self, side: int, name: str) -> str:
        """The file's digest, or "" when there is none (missing, outside, unreadable, huge)."""
        root = self.roots[side]
        found = self._seen.get((root, name))
        if found is None:
            found = self._seen[(root, name)] = _digest(root, name)
        return found


def _digest(root: str, name: str) -> str:
    if not name or not root:
        return ""
    path, problem = game_path(root, name)
    if problem is not None:
        return ""
    try:
        fd, info = open_regular(path)
    except (OSError, ValueError):
        return ""
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_IMAGE_BYTES:
            return ""
        try:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        except OSError:
            return ""
    return digest.hexdigest()


def is_image(leaf: str) -> bool:
    return leaf == "image" or leaf.endswith("_image")


@dataclass
class Walk:
    """One comparison of two records: what differs, in the order the fields are declared."""

    digests: Digests
    skip: frozenset[str] = frozenset()
    out: list[Delta] = field(default_factory=list)

    def compare(self, old: object, new: object, path: str = "") -> list[Delta]:
        if path in self.skip:
            return self.out
        leaf = path.rpartition(".")[2]
        if is_record(old) and type(old) is type(new):
            for name in field_names(type(old)):
                self.compare(getattr(old, name), getattr(new, name), _join(path, name))
        elif isinstance(old, Mapping) and isinstance(new, Mapping):
            for key in sorted(set(old) | set(new), key=str):
                self.compare(old.get(key), new.get(key), _join(path, str(key)))
        elif _records(old) and _records(new):
            self._records(old, new, path, leaf not in UNORDERED)
        elif is_image(leaf) and isinstance(old, str) and isinstance(new, str):
            self._image(old, new, path)
        elif canon(old, leaf in UNORDERED) != canon(new, leaf in UNORDERED):
            self.out.append(("changed", path, show(old), show(new)))
        return self.out

    def _records(
        self, old: tuple[Any, ...], new: tuple[Any, ...], path: str, ordered: bool
    ) -> None:
        olds, news = keyed(old), keyed(new)
        if olds is None or news is None:
            olds, news = _by_place(old), _by_place(new)
        for key, record in olds.items():
            if key in news:
                self.compare(record, news[key], _join(path, key))
            else:
                self.out.append(("removed", _join(path, key), show(record), ""))
        for key, record in news.items():
            if key not in olds:
                self.out.append(("added", _join(path, key), "", show(record)))
        before = [k for k in olds if k in news]
        after = [k for k in news if k in olds]
        if ordered and before != after:
            self.out.append(("changed", f"{path} (order)", show(before), show(after)))

    def _image(self, old: str, new: str, path: str) -> None:
        """A picture changed when its bytes did; a new name for the same bytes is no change."""
        before, after = self.digests.of(0, old), self.digests.of(1, new)
        if before and after and before == after:
            return
        if before != after or old != new:
            self.out.append(("changed", path, _picture(old, before), _picture(new, after)))


def _picture(name: str, digest: str) -> str:
    if not name:
        return ""
    return clean(name, 48) + (f" #{digest[:8]}" if digest else " (unreadable)")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _records(value: object) -> TypeGuard[tuple[Any, ...]]:
    return isinstance(value, tuple) and all(is_record(v) for v in value)


def key_of(record: object) -> str:
    """The key a record is matched by inside a list ("" when it has none)."""
    for attr in _KEY_ATTRS:
        value = getattr(record, attr, None)
        if isinstance(value, tuple):
            return "–".join(sorted(str(v) for v in value))
        if value is not None and str(value):
            return str(value)
    return ""


def keyed(records: tuple[Any, ...]) -> dict[str, Any] | None:
    """Records by key, or None when some have no key or share one."""
    table = {key_of(r): r for r in records}
    return None if "" in table or len(table) != len(records) else table


def _by_place(records: tuple[Any, ...]) -> dict[str, Any]:
    return {f"#{i}": r for i, r in enumerate(records, start=1)}
