"""The data-format reference, generated from compiler/model/: one Markdown page per section.

Every top-level key of a data file (a field of `SourceFile`) gets `docs/reference/<section>.md`:
the section's record and each record reachable from it, each under its own heading, with a table
of its keys: type in words, required or the default (as YAML), description and an example. An
example is the first place a seed game under `sources/` writes that key of that record (games,
then files, in load order, then line and column), else the `example` in the field's metadata.
`docs/reference/README.md` is the index. `python -m scripts.update_reference` writes the pages.
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import yaml

from compiler.load.convert import _fields, discriminator
from compiler.load.game import data_files, load_game
from compiler.model.common import Node, Text
from compiler.model.constraints import Selector
from compiler.model.source import SourceFile
from compiler.schema import record_description

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_DIR = Path("docs") / "reference"
SOURCES = Path("sources")
INDEX = "README.md"
KINDS_ANCHOR = "kinds"
COMMON_ANCHOR = "common-keys"
EXAMPLE_WIDTH = 60
NOTICE = (
    "<!-- Generated from compiler/model/ by `python -m scripts.update_reference`; "
    "do not edit by hand. -->"
)
_SCALAR_WORDS: dict[Any, str] = {
    str: "string",
    int: "whole number",
    float: "number",
    bool: "true/false",
}
# What a plain scalar inside a flow collection ([a, b], {k: v}) may not hold or start with.
_FLOW_SPECIAL = re.compile(r"[,\[\]{}]|: |:$| #|^[-?:#&*!|>'\"%@`]|^\s|\s$|[\x00-\x1f]")
_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YAML_WORDS = frozenset({"yes", "no", "on", "off", "~", "null", "true", "false"})


# -- the model's shape -------------------------------------------------------------------------
def is_record(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint) and hint is not Text


def union_args(hint: Any) -> tuple[Any, ...]:
    origin = get_origin(hint)
    return get_args(hint) if origin is Union or origin is types.UnionType else ()


def records_in(hint: Any) -> list[type]:
    """The record classes a type hint holds (through unions, lists and maps), in order."""
    if is_record(hint):
        return [hint]
    if hint is Text or get_origin(hint) is Literal:
        return []
    found: list[type] = []
    for arg in get_args(hint):
        found.extend(c for c in records_in(arg) if c not in found)
    return found


def reachable(hint: Any) -> list[type]:
    """Every record reachable from a hint, depth first in field order, each once."""
    seen: list[type] = []

    def visit(cls: type) -> None:
        if cls in seen:
            return
        seen.append(cls)
        hints, _required, names = _fields(cls)
        for name in names:
            for inner in records_in(hints[name]):
                visit(inner)

    for cls in records_in(hint):
        visit(cls)
    return seen


def sections() -> list[dataclasses.Field[Any]]:
    """The top-level keys of a data file, in the model's order."""
    names = set(_fields(SourceFile)[2])
    return [f for f in dataclasses.fields(SourceFile) if f.name in names]


def section_hint(name: str) -> Any:
    return _fields(SourceFile)[0][name]


def common_base(kinds: list[type]) -> type | None:
    """The record class every kind of a tagged union derives from (constraints: ConstraintBase)."""
    for base in kinds[0].__mro__[1:]:
        if base is Node or not dataclasses.is_dataclass(base):
            continue
        if all(issubclass(k, base) for k in kinds):
            return base
    return None


def tagged_kinds(hint: Any) -> list[type]:
    """The records of a union told apart by `kind` (the constraint kinds), else []."""
    inner = get_args(hint)[0] if get_origin(hint) is tuple else hint
    kinds = [a for a in union_args(inner) if is_record(a)]
    return kinds if len(kinds) > 1 and all(discriminator(k) for k in kinds) else []


def public_names(cls: type) -> tuple[str, ...]:
    return _fields(cls)[2]


# -- anchors and links -------------------------------------------------------------------------
def anchor(cls: type) -> str:
    kind = discriminator(cls)
    return kind if kind else cls.__name__.lower()


def heading(cls: type) -> str:
    kind = discriminator(cls)
    return f"`{kind}`" if kind else cls.__name__


@dataclass(frozen=True)
class Site:
    """Which page documents each record, so links can point across pages."""

    pages: Mapping[type, str]

    def link(self, cls: type, page: str) -> str:
        target = self.pages.get(cls, page)
        prefix = "" if target == page else target
        return f"[{heading(cls)}]({prefix}#{anchor(cls)})"


def site() -> Site:
    pages: dict[type, str] = {SourceFile: INDEX}
    for section in sections():
        for cls in reachable(section_hint(section.name)):
            pages.setdefault(cls, f"{section.name}.md")
        base = common_base(tagged_kinds(section_hint(section.name)) or [Node])
        if base is not None:
            pages.setdefault(base, f"{section.name}.md")
    return Site(pages)


# -- types in words ----------------------------------------------------------------------------
def type_words(hint: Any, links: Site, page: str) -> str:
    """A type hint as a module maker reads it: `list of Sheet`, `one of: flat, pointy` ..."""
    if hint is Text:
        return "text"
    if hint == Selector:
        return "[selector](../data-format.md#selectors)"
    if is_record(hint):
        return links.link(hint, page)
    if hint in _SCALAR_WORDS:
        return _SCALAR_WORDS[hint]
    args = union_args(hint)
    if args:
        return _union_words(args, links, page)
    origin = get_origin(hint)
    if origin is Literal:
        return _literal_words(get_args(hint))
    if origin is tuple:
        return _tuple_words(get_args(hint), links, page)
    if origin in (Mapping, dict):
        return "map of name → " + _grouped(type_words(get_args(hint)[1], links, page))
    raise TypeError(f"no words for the type {hint!r}")


def _union_words(args: tuple[Any, ...], links: Site, page: str) -> str:
    options = [a for a in args if a is not type(None)]
    kinds = [a for a in options if is_record(a) and discriminator(a)]
    if len(kinds) > 1:
        base = common_base(kinds)
        name = base.__name__.removesuffix("Base").lower() if base else "record"
        target = links.pages.get(kinds[0], page)
        return f"[{name}]({'' if target == page else target}#{KINDS_ANCHOR}) (by `kind`)"
    nullable = len(options) < len(args)
    if int in options and float in options:
        options = [a for a in options if a is not int]
    words = [type_words(a, links, page) for a in options]
    if nullable:
        words.append("null")
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _grouped(words: str) -> str:
    """Words of a choice in parentheses, so that `list of` and `map of` take all of it."""
    return f"({words})" if " or " in words or words.startswith("one of:") else words


def _literal_words(choices: tuple[Any, ...]) -> str:
    shown = [str(c) for c in choices if c != ""]
    if len(shown) == 1:
        return f"`{shown[0]}`"
    return "one of: " + ", ".join(shown)


def _tuple_words(args: tuple[Any, ...], links: Site, page: str) -> str:
    if len(args) == 2 and args[1] is Ellipsis:
        return "list of " + _grouped(type_words(args[0], links, page))
    return "[" + ", ".join(type_words(a, links, page) for a in args) + "]"


# -- values as YAML ----------------------------------------------------------------------------
def yaml_scalar(value: Any) -> str:
    """A scalar as YAML that any reader (this one and editors') reads back as the same value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return yaml_string(str(value))


@lru_cache(maxsize=65536)
def yaml_string(text: str) -> str:
    """Text as a YAML scalar: plain where every YAML reader reads it back as this text."""
    plain = (
        text != ""
        and text.lower() not in _YAML_WORDS
        and not _FLOW_SPECIAL.search(text)
        and yaml.load(text, Loader=_LOADER) == text
    )
    if plain:
        return text
    if re.search(r"[\x00-\x1f]", text):
        return json.dumps(text, ensure_ascii=False)
    return "'" + text.replace("'", "''") + "'"


def _short(text: str, budget: int) -> str:
    limit = max(budget, 16)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _entries(value: Any) -> list[tuple[str, Any]] | None:
    """The keys and values of a mapping, a record (its keys as written) or a bilingual text."""
    if isinstance(value, Text):
        return [("en", value.en), ("ja", value.ja)] if value.ja else None
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, Node):
        names = public_names(type(value))
        written = [n for n in names if n in value.locs] if value.locs else list(names)
        return [(n, getattr(value, n)) for n in written]
    return None


def yaml_flow(value: Any, budget: int = EXAMPLE_WIDTH) -> str:
    """A value as flow-style YAML, shortened with `…` past about `budget` characters."""
    whole = _fitting(value, max(budget, 24))
    if whole is not None:
        return whole
    entries = _entries(value)
    if entries is not None:
        parts = [f"{yaml_string(k)}: " for k, _ in entries]
        return _flow_join("{", "}", parts, [v for _, v in entries], budget)
    if isinstance(value, tuple | list):
        return _flow_join("[", "]", ["" for _ in value], list(value), budget)
    if isinstance(value, Text):
        return yaml_string(_short(value.en, budget - 2))
    if isinstance(value, str):
        return yaml_string(_short(value, budget - 2))
    return yaml_scalar(value)


def _fitting(value: Any, budget: int) -> str | None:
    """A value as flow-style YAML in full, or None as soon as it is longer than `budget`."""
    entries = _entries(value)
    if entries is None and isinstance(value, tuple | list):
        entries = [("", item) for item in value]
        start, end = "[", "]"
    else:
        start, end = "{", "}"
    if entries is None:
        text = yaml_string(value.en) if isinstance(value, Text) else yaml_scalar(value)
        return text if len(text) <= budget else None
    parts: list[str] = []
    used = 2
    for key, item in entries:
        head = f"{yaml_string(key)}: " if start == "{" else ""
        inner = _fitting(item, budget - used - len(head))
        if inner is None:
            return None
        parts.append(head + inner)
        used += len(parts[-1]) + 2
    return start + ", ".join(parts) + end


def _flow_join(start: str, end: str, keys: list[str], values: list[Any], budget: int) -> str:
    parts: list[str] = []
    used = 2
    for key, item in zip(keys, values, strict=True):
        room = budget - used - len(key) - (2 if parts else 0)
        if parts and room < 8:
            parts.append("…")
            break
        part = key + yaml_flow(item, max(room, 16))
        parts.append(part)
        used += len(part) + 2
    return start + ", ".join(parts) + end


def default_yaml(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "**required**"
    if isinstance(value, Text) and not value.ja:
        return "`" + yaml_string(value.en) + "`"
    return "`" + yaml_flow(value) + "`"


# -- examples from the seed games ----------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Example:
    """Where a key is first written, and the `key: value` it shows."""

    order: tuple[int, int, int, int]
    text: str
    source: str


Examples = dict[tuple[type, str], Example]


def _walk(value: Any, seen: set[int]) -> Iterator[Node]:
    """Every model record inside a value, each once."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Node):
        yield value
        for name in public_names(type(value)):
            yield from _walk(getattr(value, name), seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type | Text):
        for f in dataclasses.fields(value):
            yield from _walk(getattr(value, f.name), seen)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _walk(item, seen)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _walk(item, seen)


def _beats(found: Examples, key: tuple[type, str], order: tuple[int, int, int, int]) -> bool:
    return key not in found or order < found[key].order


def _section_of(cls: type) -> str:
    """The section a record is written in directly (`units` for Unit), else ""."""
    for section in sections():
        if cls in records_in(section_hint(section.name)):
            return section.name
    return ""


def _record_examples(
    record: Node, game_file: tuple[int, int], source: str, found: Examples
) -> None:
    """Keep the keys a record writes (and the record itself, for its section) as examples where
    they come first."""
    section = _section_of(type(record))
    start = (*game_file, record.loc.line, record.loc.column)
    if section and _beats(found, (SourceFile, section), start):
        value = (record,) if get_origin(section_hint(section)) is tuple else record
        found[(SourceFile, section)] = Example(start, f"{section}: {yaml_flow(value)}", source)
    for name in public_names(type(record)):
        if name in record.locs:
            at = (*game_file, *record.locs[name])
            if _beats(found, (type(record), name), at):
                text = f"{yaml_string(name)}: {yaml_flow(getattr(record, name))}"
                found[(type(record), name)] = Example(at, text, source)


def seed_examples(root: Path = ROOT) -> Examples:
    """The first `key: value` written in the seed games for each key of each record (and each
    section, as a key of SourceFile)."""
    found: Examples = {}
    folders = sorted(p for p in (root / SOURCES).iterdir() if p.is_dir() and p.name[0] != ".")
    for game_index, folder in enumerate(folders):
        data = load_game(folder).game
        if data is None:
            continue
        files = {str(p): i for i, p in enumerate(data_files(folder))}
        for record in _walk(data, set()):
            file_index = files.get(record.loc.path)
            if file_index is None:  # a template (templates/), not the game's own data
                continue
            source = Path(record.loc.path).resolve().relative_to(root.resolve()).as_posix()
            _record_examples(record, (game_index, file_index), source, found)
    return found


def example_cell(examples: Examples, classes: list[type], field: dataclasses.Field[Any]) -> str:
    found = [examples[(c, field.name)] for c in classes if (c, field.name) in examples]
    if found:
        best = min(found)
        return f"{code(best.text)} <sub>{best.source}</sub>"
    written = field.metadata.get("example")
    if written:
        return code(f"{yaml_string(field.name)}: {written}")
    return "—"


# -- markdown ----------------------------------------------------------------------------------
def code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def key_table(
    cls: type, names: list[str], links: Site, page: str, examples: Examples, classes: list[type]
) -> list[str]:
    """The table of a record's keys: type, required or default, description, example."""
    hints = _fields(cls)[0]
    by_name = {f.name: f for f in dataclasses.fields(cls)}
    rows = [
        "| key | type | required / default | description | example |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        field = by_name[name]
        parts = (
            f"`{name}`",
            type_words(hints[name], links, page),
            default_yaml(field),
            field.metadata.get("doc", ""),
            example_cell(examples, classes, field),
        )
        rows.append("| " + " | ".join(cell(part) for part in parts) + " |")
    return rows


def record_block(
    cls: type, links: Site, page: str, examples: Examples, level: str = "##"
) -> list[str]:
    base = common_base([cls]) if discriminator(cls) else None
    names = list(public_names(cls))
    lines = [f"{level} {heading(cls)}", ""]
    description = record_description(cls)
    if description:
        lines += [description, ""]
    if base is not None:
        inherited = set(public_names(base))
        names = [n for n in names if n not in inherited]
        lines += [
            f"Record `{cls.__name__}`: the [common keys](#{COMMON_ANCHOR}) and these.",
            "",
        ]
    return lines + key_table(cls, names, links, page, examples, [cls]) + [""]


def kinds_block(kinds: list[type], links: Site, page: str, examples: Examples) -> list[str]:
    base = common_base(kinds)
    lines = ["## Kinds", "", "Each entry is one of these, chosen by its `kind` key:", ""]
    lines += [f"- {links.link(k, page)}: {record_description(k)}" for k in kinds] + [""]
    if base is not None:
        lines += ["## Common keys", ""]
        description = record_description(base)
        lines += [description, ""] if description else []
        names = list(public_names(base))
        lines += key_table(base, names, links, page, examples, kinds) + [""]
    for kind in kinds:
        lines += record_block(kind, links, page, examples, "###")
    return lines


def section_page(section: dataclasses.Field[Any], links: Site, examples: Examples) -> str:
    page = f"{section.name}.md"
    hint = section_hint(section.name)
    kinds = tagged_kinds(hint)
    lines = [
        f"# `{section.name}`",
        "",
        NOTICE,
        "",
        f"[Reference index]({INDEX}) · `{section.name}:` in a data file: "
        f"{type_words(hint, links, page)}. {section.metadata.get('doc', '')}",
        "",
    ]
    own = [c for c in reachable(hint) if links.pages.get(c) == page and c not in kinds]
    if kinds:
        lines += kinds_block(kinds, links, page, examples)
    for cls in own:
        lines += record_block(cls, links, page, examples)
    return "\n".join(lines).rstrip() + "\n"


def index_page(links: Site, examples: Examples) -> str:
    lines = [
        "# Data format reference",
        "",
        NOTICE,
        "",
        "One page per top-level key (*section*) of a data file, generated from `compiler/model/`;"
        " [data-format.md](../data-format.md) explains how the files fit together.",
        "",
        "| section | holds | description |",
        "|---|---|---|",
    ]
    for section in sections():
        holds = type_words(section_hint(section.name), links, INDEX)
        lines.append(
            f"| [`{section.name}`]({section.name}.md) | {cell(holds)} "
            f"| {cell(section.metadata.get('doc', ''))} |"
        )
    lines += ["", *record_block(SourceFile, links, INDEX, examples), *type_legend()]
    return "\n".join(lines).rstrip() + "\n"


def type_legend() -> list[str]:
    return [
        "## Types",
        "",
        "- `text`: text people read, a string (English) or `{en: …, ja: …}`.",
        "- `string`: an id, a path, a colour (`#rrggbb`) or other text not translated.",
        "- `whole number`, `number`; `true/false`: only `true` and `false` are booleans.",
        "- `list of X`: a YAML list; `[number, number]`: a list of exactly that many values.",
        "- `map of name → X`: a mapping from names you choose to values.",
        "- `one of: a, b`: exactly one of the words listed.",
        "- Examples marked with a file are the first use in a seed game under `sources/`;"
        " `…` marks where a long example is cut.",
        "",
    ]


def generate(root: Path = ROOT) -> dict[str, str]:
    """File name under docs/reference/ → its content."""
    links = site()
    examples = seed_examples(root)
    pages = {f"{s.name}.md": section_page(s, links, examples) for s in sections()}
    pages[INDEX] = index_page(links, examples)
    return dict(sorted(pages.items()))


def write(root: Path = ROOT) -> list[Path]:
    """Write the reference pages (and remove pages of sections that no longer exist)."""
    target = root / REFERENCE_DIR
    target.mkdir(parents=True, exist_ok=True)
    pages = generate(root)
    for stale in sorted(target.glob("*.md")):
        if stale.name not in pages:
            stale.unlink()
    written = []
    for name, text in pages.items():
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
