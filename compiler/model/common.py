"""Shared building blocks of the data model: located nodes, bilingual text, scalars."""

from __future__ import annotations

from collections.abc import Mapping
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
