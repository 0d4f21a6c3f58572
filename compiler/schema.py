"""A JSON Schema of the data files, derived from the model's type hints and field docs."""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

from compiler.load.convert import _fields
from compiler.model.common import Text
from compiler.model.source import SourceFile

SCHEMA_ID = "https://countermix.invalid/schema/data-file.json"
_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": ["string", "number"]},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
}


def is_signature(cls: type, text: str) -> bool:
    """Whether `text` is the signature a dataclass without a docstring gets as its __doc__."""
    return text.startswith(f"{cls.__name__}(")


def record_description(cls: type) -> str:
    """A record's docstring on one line; "" when it has none of its own (never its signature)."""
    text = " ".join((cls.__doc__ or "").split())
    return "" if is_signature(cls, text) else text


class _Builder:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, hint: Any) -> dict[str, Any]:
        if hint is Text:
            return {"$ref": "#/$defs/Text"}
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self.record(hint)
        origin = get_origin(hint)
        if origin is Union or origin is types.UnionType:
            options = [a for a in get_args(hint) if a is not type(None)]
            nullable = len(options) < len(get_args(hint))
            schemas = [self.of(a) for a in options] + ([{"type": "null"}] if nullable else [])
            return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
        if origin is tuple:
            args = get_args(hint)
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0])}
            return {
                "type": "array",
                "prefixItems": [self.of(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        if origin is Mapping or origin is dict:
            return {"type": "object", "additionalProperties": self.of(get_args(hint)[1])}
        if origin is Literal:
            return {"enum": [c for c in get_args(hint) if c != ""] or [""]}
        return dict(_SCALARS[hint])

    def record(self, cls: type) -> dict[str, Any]:
        name = cls.__name__
        if name not in self.defs:
            self.defs[name] = {}
            hints, required, names = _fields(cls)
            docs = {f.name: f.metadata.get("doc", "") for f in dataclasses.fields(cls)}
            props = {}
            for field_name in names:
                schema = self.of(hints[field_name])
                if docs.get(field_name):
                    schema = {**schema, "description": docs[field_name]}
                props[field_name] = schema
            body: dict[str, Any] = {
                "type": "object",
                "properties": props,
                "additionalProperties": False,
            }
            needed = [n for n in names if n in required]
            if needed:
                body["required"] = needed
            description = record_description(cls)
            if description:
                body["description"] = description
            self.defs[name] = body
        return {"$ref": f"#/$defs/{name}"}


def schema() -> dict[str, Any]:
    builder = _Builder()
    root = builder.record(SourceFile)
    builder.defs["Text"] = {
        "description": "Text people read: a string (English) or {en, ja}.",
        "anyOf": [
            {"type": ["string", "number"]},
            {
                "type": "object",
                "properties": {"en": {"type": "string"}, "ja": {"type": "string"}},
                "additionalProperties": False,
            },
        ],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "countermix game data file",
        **root,
        "$defs": dict(sorted(builder.defs.items())),
    }


def schema_json() -> str:
    return json.dumps(schema(), ensure_ascii=False, indent=2, sort_keys=False)
