"""docs/reference/ is the generated one; the schema and the reference describe every record and key
in words (never a Python signature); the examples written in the model are valid data."""

from __future__ import annotations

import dataclasses
import re
import typing
from functools import cache
from typing import Any

import pytest

from compiler.load.convert import INVALID, Converter, discriminator, plan_for
from compiler.load.nodes import MAPPING, compose
from compiler.model.common import Text
from compiler.model.source import SourceFile
from compiler.reference import REFERENCE_DIR, generate, seed_examples, tagged_kinds
from compiler.schema import is_signature, record_description, schema
from tests.conftest import REPO

SIGNATURE = re.compile(r"^\w+\((\*|\w+:)")


@cache
def pages() -> dict[str, str]:
    return generate(REPO)


def model_records() -> list[type]:
    """Every record class reachable from SourceFile, found from the type hints alone."""
    found: list[type] = []
    todo: list[Any] = [SourceFile]
    while todo:
        hint = todo.pop()
        if isinstance(hint, type) and dataclasses.is_dataclass(hint) and hint is not Text:
            if hint in found:
                continue
            found.append(hint)
            hints = typing.get_type_hints(hint)
            todo.extend(
                hints[f.name] for f in dataclasses.fields(hint) if not f.metadata.get("internal")
            )
        else:
            todo.extend(typing.get_args(hint))
    return sorted(found, key=lambda c: c.__name__)


def public_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]


# -- (a) the pages on disk are the generated ones ------------------------------------------------
def test_reference_pages_are_current() -> None:
    folder = REPO / REFERENCE_DIR
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))}
    stale = sorted(
        name for name in set(on_disk) | set(pages()) if on_disk.get(name) != pages().get(name)
    )
    assert not stale, (
        f"docs/reference/ is stale ({', '.join(stale)}): run `python -m scripts.update_reference`"
    )


def test_one_page_per_section_and_an_index() -> None:
    sections = [f.name for f in public_fields(SourceFile)]
    assert sorted(pages()) == sorted(["README.md", *(f"{s}.md" for s in sections)])
    for section in sections:
        assert f"({section}.md)" in pages()["README.md"], section


def test_pages_are_deterministic_and_hold_no_absolute_paths() -> None:
    again = generate(REPO)
    assert again == pages()
    for name, text in pages().items():
        assert str(REPO) not in text, name
        assert not re.search(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", text), name


# -- (b) descriptions in the schema: human words, never a signature -------------------------------
def test_every_schema_definition_has_a_human_description() -> None:
    definitions = schema()["$defs"]
    assert len(definitions) >= len(model_records())
    for name, body in definitions.items():
        description = body.get("description", "")
        assert description, f"$defs/{name} has no description: give the record a docstring"
        assert not SIGNATURE.match(description), f"$defs/{name} describes itself as {description!r}"
        for key, prop in body.get("properties", {}).items():
            assert prop.get("description"), f"$defs/{name}.{key} has no description: doc(...)"


def test_every_record_has_a_docstring_of_its_own() -> None:
    for cls in model_records():
        assert record_description(cls), f"{cls.__name__} needs a docstring"
        for f in public_fields(cls):
            assert f.metadata.get("doc"), f"{cls.__name__}.{f.name} needs doc(...)"
    for cls in tagged_kinds(typing.get_type_hints(SourceFile)["constraints"]):
        base = cls.__mro__[1]
        assert record_description(base), f"{base.__name__} needs a docstring"


def test_a_signature_is_never_a_description() -> None:
    @dataclasses.dataclass(frozen=True)
    class Undocumented:
        size: int = 1

    assert is_signature(Undocumented, Undocumented.__doc__ or "")
    assert record_description(Undocumented) == ""


# -- (c) every record has its place in the reference ---------------------------------------------
def test_every_record_reachable_from_the_source_file_is_in_the_reference() -> None:
    text = "\n".join(pages().values())
    for cls in model_records():
        kind = discriminator(cls)
        title = f"`{kind}`" if kind else cls.__name__
        assert re.search(rf"^#+ {re.escape(title)}$", text, re.M), f"no heading for {title}"


def test_every_key_of_every_record_is_in_a_table() -> None:
    text = "\n".join(pages().values())
    for cls in model_records():
        for f in public_fields(cls):
            assert f"| `{f.name}` |" in text, f"{cls.__name__}.{f.name}"


# -- examples --------------------------------------------------------------------------------------
def written_examples() -> list[tuple[str, str, Any, str]]:
    out = []
    for cls in [*model_records(), *{c.__mro__[1] for c in model_records() if discriminator(c)}]:
        hints = typing.get_type_hints(cls)
        for f in public_fields(cls):
            if f.metadata.get("example"):
                out.append((cls.__name__, f.name, hints[f.name], f.metadata["example"]))
    return out


@pytest.mark.parametrize(("record", "key", "hint", "example"), written_examples())
def test_an_example_in_the_model_is_valid_data(
    record: str, key: str, hint: Any, example: str
) -> None:
    root = compose(f"{key}: {example}").root
    assert root is not None and root.kind == MAPPING
    node = root.value[0][1]  # type: ignore[index]
    converter = Converter(f"{record}.{key}")
    value = plan_for(hint)(converter, node, {}, key)
    assert value is not INVALID and not converter.findings, converter.findings


def test_examples_from_the_seed_games_are_yaml() -> None:
    examples = seed_examples(REPO)
    assert examples
    for (cls, key), example in examples.items():
        assert example.source.startswith("sources/"), (cls.__name__, key, example.source)
        root = compose(example.text).root
        assert root is not None and root.kind == MAPPING, (cls.__name__, key, example.text)
