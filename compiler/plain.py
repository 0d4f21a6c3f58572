"""Model records back into plain data (dicts, lists, scalars) as the YAML format writes them:
fields left at their default are omitted, Text is a string or {en, ja}, tuples are lists.
What the importers write, and what a reader compares, goes through here."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from compiler.model.common import Text


def plain(value: Any) -> Any:
    """The YAML-shaped form of a model value."""
    if isinstance(value, Text):
        return {"en": value.en, "ja": value.ja} if value.ja else value.en
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for spec in dataclasses.fields(value):
            if spec.metadata.get("internal"):
                continue
            item = getattr(value, spec.name)
            if _is_default(spec, item):
                continue
            out[spec.name] = plain(item)
        return out
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def _is_default(spec: dataclasses.Field[Any], item: Any) -> bool:
    if spec.default is not dataclasses.MISSING:
        return bool(item == spec.default)
    if spec.default_factory is not dataclasses.MISSING:
        return bool(item == spec.default_factory())
    return False
