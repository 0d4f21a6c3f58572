"""Shared building blocks of the data model: located nodes, bilingual text, scalars."""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeGuard

from compiler.diagnostics import NOWHERE, Location

Scalar = int | float | str | bool
Number = int | float
# A number, or "$name" naming a game/title parameter (GCACW's max manpower per title).
Limit = int | float | str


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether a value is a number (a boolean is not, though Python counts it as an int)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


INTERNAL: Mapping[str, Any] = MappingProxyType({"internal": True})
EMPTY_LOCS: Mapping[str, tuple[int, int]] = MappingProxyType({})


def doc(text: str, *, example: str = "", **extra: Any) -> dict[str, Any]:
    """Field metadata: a description for the JSON Schema and the docs. `example`, a value written
    as YAML, shows the key in docs/reference/ where no seed game under sources/ writes it."""
    return {"doc": text, **({"example": example} if example else {}), **extra}


Position = tuple[int, int]
"""Where a value starts in its file: (line, column)."""


class _LazyLocs(Mapping[str, Position]):
    """Positions by name kept in a compact form: one looked up without making the whole
    dict, which is made (`_mapping`) only when they are iterated or counted."""

    __slots__ = ()

    def _mapping(self) -> dict[str, Position]:
        raise NotImplementedError

    def get(self, key: str, default: Position | None = None) -> Position | None:  # type: ignore[override]
        raise NotImplementedError

    def __getitem__(self, key: str) -> Position:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._mapping()!r})"


class PackedLocs(_LazyLocs):
    """A record's `locs` as a build keeps it between builds (compiler.load.records): the field
    paths (one tuple shared by the records of one shape) and their positions packed in bytes,
    made into a dict only when a position is asked for (a finding's place). A warm load reads
    back thousands of records whose positions nothing asks for: a dict of pairs each cost most
    of what reading a record back costs."""

    __slots__ = ("_names", "_packed", "_found")

    def __init__(self, names: tuple[str, ...], packed: bytes) -> None:
        # checked when read back (thousands at a warm load); the names' type when unpacked
        if type(names) is not tuple or type(packed) is not bytes:
            raise TypeError("packed positions are a tuple of names and bytes")
        if len(packed) != PACKED_SIZE * len(names):
            raise ValueError("packed positions that do not match their names")
        self._names = names
        self._packed = packed
        self._found: dict[str, Position] | None = None

    @staticmethod
    def pack(locs: Mapping[str, Position]) -> tuple[tuple[str, ...], bytes] | None:
        """(names, packed positions) of `locs`; None when a position is not a pair of
        numbers that fit."""
        values = [number for pair in locs.values() for number in pair]
        if len(values) != 2 * len(locs) or set(map(type, values)) - {int}:
            return None
        try:
            return tuple(locs), struct.pack(f"<{len(values)}I", *values)
        except struct.error:
            return None

    def _mapping(self) -> dict[str, Position]:
        found = self._found
        if found is None:
            numbers = struct.unpack(f"<{2 * len(self._names)}I", self._packed)
            pairs = zip(self._names, zip(numbers[::2], numbers[1::2], strict=True), strict=True)
            found = self._found = {name: pair for name, pair in pairs if type(name) is str}
        return found

    def get(self, key: str, default: Position | None = None) -> Position | None:  # type: ignore[override]
        """The position of one name, unpacked alone (a finding, a placement asks for one)."""
        if self._found is not None:
            return self._found.get(key, default)
        try:
            index = self._names.index(key)
        except ValueError:
            return default
        if type(key) is not str:
            return default
        return _PAIR.unpack_from(self._packed, index * PACKED_SIZE)

    def __contains__(self, key: object) -> bool:
        return type(key) is str and self.get(key) is not None

    def __reduce__(self) -> tuple[type[PackedLocs], tuple[tuple[str, ...], bytes]]:
        return PackedLocs, (self._names, self._packed)


class ItemLocs(_LazyLocs):
    """A record's `locs` whose most entries are the positions of a list's items: `head`'s,
    then `own`'s, then `prefix` and the item's number (from `first` on) for each of
    `wheres` (what `{**head, **own, "rows.1": wheres[0], ...}` holds, in that order), made
    into a dict only when iterated; one item's position is looked up by its number. A warm
    build assembles charts of thousands of rows, and data files of thousands of units, whose
    positions nothing asks for (compiler.load.aids, compiler.load.keptread): their dicts cost
    a tenth of what reading them back cost."""

    __slots__ = ("_head", "_own", "_prefix", "_first", "_wheres", "_found")

    def __init__(
        self,
        head: Mapping[str, Position],
        prefix: str,
        first: int,
        wheres: Sequence[Position],
        own: Mapping[str, Position] = EMPTY_LOCS,
    ) -> None:
        # (checked: a kept record read back could name this class with any values)
        if not isinstance(head, Mapping) or not isinstance(own, Mapping):
            raise TypeError("item positions are read-only mappings")
        if type(prefix) is not str or type(first) is not int:
            raise TypeError("item positions have a prefix and a first number")
        self._head = head
        self._own = own
        self._prefix = prefix
        self._first = first
        self._wheres = tuple(wheres)
        self._found: dict[str, Position] | None = None

    def _mapping(self) -> dict[str, Position]:
        found = self._found
        if found is None:
            found = dict(self._head)
            found.update(self._own)
            numbers = range(self._first, self._first + len(self._wheres))
            found.update(zip(map(f"{self._prefix}{{}}".format, numbers), self._wheres, strict=True))
            self._found = found
        return found

    def _index(self, key: object) -> int | None:
        """The index in `wheres` of the item `key` names, if it names one."""
        if type(key) is not str or not key.startswith(self._prefix):
            return None
        number = key[len(self._prefix) :]
        if not (number.isascii() and number.isdigit()) or str(int(number)) != number:
            return None  # (`rows.01` is no item's)
        index = int(number) - self._first
        return index if 0 <= index < len(self._wheres) else None

    def get(self, key: str, default: Position | None = None) -> Position | None:  # type: ignore[override]
        index = self._index(key)
        if index is not None:
            return self._wheres[index]
        found = self._own.get(key)
        return found if found is not None else self._head.get(key, default)

    def __contains__(self, key: object) -> bool:
        return self._index(key) is not None or key in self._own or key in self._head

    def __reduce__(self) -> tuple[type[ItemLocs], tuple[Any, ...]]:
        own = self._own
        return ItemLocs, (self._head, self._prefix, self._first, self._wheres, own)


_PAIR = struct.Struct("<2I")
PACKED_SIZE = _PAIR.size
"""Bytes of one packed position."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """Base of every record read from YAML: where it starts and where each field's value sits."""

    loc: Location = field(default=NOWHERE, metadata=INTERNAL, compare=False, repr=False)
    locs: Mapping[str, tuple[int, int]] = field(
        default_factory=lambda: EMPTY_LOCS, metadata=INTERNAL, compare=False, repr=False
    )

    def locate(self, path: str) -> Location:
        """Location of a field value ("front.strength", "units.2"), else of the record."""
        probe = path
        while probe:
            found = self.locs.get(probe)
            if found is not None:
                return Location(self.loc.path, found[0], found[1])
            probe = probe.rpartition(".")[0]
        return self.loc


@dataclass(frozen=True, slots=True)
class Text:
    """Text people read: English, and Japanese where given. YAML: a string or {en, ja}."""

    en: str
    ja: str = ""

    def get(self, lang: str = "en") -> str:
        return self.ja if lang == "ja" and self.ja else self.en

    def __str__(self) -> str:
        return self.en


NO_TEXT = Text("")
