"""Data files read with the records the last build kept: a warm rebuild reads again only what
changed.

A file whose sections are all lists written item by item (`units:`, then one `  - ` item after
the other; see compiler.load.chunks) is read item by item, each item kept under a digest of its
text, its first line, its section, the file's path and the loader's code (see
compiler.load.records): when one unit of a large units file changes, that unit is read again
and the others are read back. Any other file is kept whole, under a digest of its bytes. Only
what reads clean is kept or read item by item: a file with findings is read whole, as without
the cache, so the findings are the same (text and file:line:column).
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import cache
from pathlib import Path
from types import MappingProxyType, NoneType, UnionType
from typing import Any, Union, get_args, get_origin

from compiler.diagnostics import Finding, Location
from compiler.load.chunks import compose_item, items_of, lines_of
from compiler.load.convert import INVALID, Converter, _fields, plan_for
from compiler.load.records import pickled, read_kept, record_key, unpickled, write_kept
from compiler.load.yamlread import ReadResult, compose_text, decode_text, read_bytes
from compiler.model.common import Node
from compiler.model.digests import are_digests, digest_of, remember
from compiler.model.source import SourceFile

LOADS = ".loads"
"""The kept records' folder in <out>/.cache/ (a game id never starts with a dot)."""
SECTION_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):[ ]*\n?")
SECTION_INDENT = 2
Item = tuple[Node, tuple[int, int]]
"""A list item read: its record, and where it starts (line, column)."""
KeptItem = tuple[Node, tuple[int, int], str]
"""A list item as it is kept: its record, where it starts and the record's content digest
(compiler.model.digests), told to the model when the item is read back."""


def kept_path(out_dir: Path, folder: Path) -> Path:
    """Where a build into out_dir keeps the records read from a game folder (one file per
    folder, wherever it lies: the game's id is known only once its files are read)."""
    key = hashlib.sha256(os.fsencode(os.path.realpath(folder))).hexdigest()[:32]
    return out_dir / ".cache" / LOADS / f"{key}.cache"


class KeptRecords:
    """The records the last build kept (`known`, read from `stored`), and those this load
    keeps; `save` writes them back (only what this load used, so the file does not grow)."""

    def __init__(self, stored: Path | None) -> None:
        self.stored = stored
        self.known: dict[bytes, bytes] = {} if stored is None else read_kept(stored)
        self.kept: dict[bytes, bytes] = {}

    def save(self) -> None:
        """Write the kept records when a build has made <out>/.cache/ (a check writes none)."""
        if self.stored is None or self.kept == self.known:
            return
        try:
            if self.stored.parent.parent.is_dir():
                self.stored.parent.mkdir(exist_ok=True)
        except OSError:
            return
        write_kept(self.stored, self.kept)

    def source(self, key: bytes) -> SourceFile | None:
        found = unpickled(self.known.get(key, b""))
        if not isinstance(found, SourceFile):
            return None
        self.kept[key] = self.known[key]
        return found

    def item(self, path: str, section: str, piece: Piece) -> Item | None:
        """One list item of a section, read back (its content digest told to the model) or
        read now; None unless it reads clean."""
        line, text, key = piece
        stored = self.known.get(key, b"")
        found = _as_item(unpickled(stored), section)
        if found is None:
            found = _read_item(path, section, line, text)
            if found is None:
                return None
            stored = pickled(found)
        self.kept[key] = stored
        record, where, digest = found
        remember(record, digest)
        return record, where


Piece = tuple[int, str, bytes]
"""A list item's first line, its text and its key."""
Split = list[tuple[str, list[Piece]]]
"""The list sections of a file: each one's name and items."""


def read_source(
    path: Path, root: Path | None, kept: KeptRecords
) -> tuple[SourceFile | None, list[Finding]]:
    """compiler.load.game.read_file with the records kept: the same result. A file of list
    sections whose items are mostly known is read item by item; else it is read whole, and its
    items (or the file, for another shape) are kept for the next time when it reads clean."""
    where = str(path)
    data = read_bytes(where, None if root is None else str(root))
    if isinstance(data, ReadResult):
        return None, [data.finding] if data.finding is not None else []
    key = record_key("file", where, data)
    found = kept.source(key)
    if found is not None:
        return found, []
    text = decode_text(where, data)
    if isinstance(text, ReadResult):
        return None, [text.finding] if text.finding is not None else []
    split = _split(where, text)
    if split is not None and _mostly_known(split, kept):
        by_items = _by_items(where, split, _first_line(text), kept)
        if by_items is not None:
            return by_items, []
    result = compose_text(where, text)
    if result.finding is not None:
        return None, [result.finding]
    assert result.node is not None
    converter = Converter(where)
    source = converter.convert_root(result.node, SourceFile, result.aliased)
    if not isinstance(source, SourceFile):
        return None, converter.findings
    if not converter.findings and not result.aliased:  # each item made of its own text only
        if split is None:
            kept.kept[key] = pickled(source)
        else:
            _keep_items(split, source, kept)
    return source, converter.findings


def _split(path: str, text: str) -> Split | None:
    """The items of a file made of list sections (see _sections), each with its key; None
    for another shape."""
    lines = lines_of(text)
    sections = None if lines is None else _sections(lines)
    if not sections:
        return None
    return [
        (name, [(line, item, record_key("item", path, name, line, item)) for line, item in items])
        for name, items in sections
    ]


def _mostly_known(split: Split, kept: KeptRecords) -> bool:
    """Whether at most half the items are new: reading the others one by one costs more than
    reading the file whole."""
    pieces = [piece for _name, items in split for piece in items]
    return 2 * sum(piece[2] not in kept.known for piece in pieces) <= len(pieces)


def _keep_items(split: Split, source: SourceFile, kept: KeptRecords) -> None:
    """Keep each item of a file read whole (and clean, without aliases): its record and where
    it starts, as reading it alone gives them."""
    for name, items in split:
        records = getattr(source, name, None)
        if name not in _item_types() or not isinstance(records, tuple):
            continue
        if len(records) != len(items):
            continue
        for index, (piece, record) in enumerate(zip(items, records, strict=True)):
            where = source.locs.get(f"{name}.{index}")
            if where is not None:
                digest = digest_of(record)
                remember(record, digest)
                kept.kept[piece[2]] = pickled((record, where, digest))


def _by_items(path: str, split: Split, first: int, kept: KeptRecords) -> SourceFile | None:
    """A file of list sections read item by item: the SourceFile a whole read gives (the same
    records, positions and `locs`); None when a section is not a known list, or comes twice,
    or an item does not read clean (the whole read says why)."""
    values: dict[str, Any] = {}  # section → its records
    locs: dict[str, tuple[int, int]] = {}
    for name, items in split:
        if name in values or name not in _item_types():
            return None
        locs[name] = (items[0][0], SECTION_INDENT + 1)  # the block sequence starts at its `-`
        records: list[Node] = []
        for index, piece in enumerate(items):
            read = kept.item(path, name, piece)
            if read is None:
                return None
            records.append(read[0])
            locs[f"{name}.{index}"] = read[1]
        values[name] = tuple(records)
    return SourceFile(**values, loc=Location(path, first, 1), locs=MappingProxyType(locs))


def _sections(lines: list[str]) -> list[tuple[str, list[tuple[int, str]]]] | None:
    """(name, items) of each top-level section, when every line of the file is a section's
    `name:`, a line of one of its items, blank or a comment; else None."""
    headers = [index for index, line in enumerate(lines) if _is_top_level(line)]
    if not headers or any(_has_content(line) for line in lines[: headers[0]]):
        return None
    found: list[tuple[str, list[tuple[int, str]]]] = []
    for start, end in zip(headers, [*headers[1:], len(lines)], strict=True):
        match = SECTION_LINE.fullmatch(lines[start])
        items = items_of(lines[start + 1 : end], start + 2, SECTION_INDENT)
        if match is None or items is None:
            return None
        found.append((match[1], items))
    return found


def _is_top_level(line: str) -> bool:
    """A line that starts at the first column and is neither blank nor a comment."""
    return bool(line) and line[0] not in " \n#"


def _has_content(line: str) -> bool:
    stripped = line.strip(" \n")
    return bool(stripped) and not stripped.startswith("#")


def _first_line(text: str) -> int:
    """The line of the first section: where the file's top-level mapping starts."""
    lines = lines_of(text) or []
    return next((n for n, line in enumerate(lines, 1) if _is_top_level(line)), 1)


@cache
def _item_types() -> dict[str, tuple[Any, tuple[type, ...]]]:
    """Per list section of a data file: the type hint of its items, and the record classes
    an item may be."""
    found: dict[str, tuple[Any, tuple[type, ...]]] = {}
    for name, hint in _fields(SourceFile)[0].items():
        if get_origin(hint) is not tuple:
            continue
        item = get_args(hint)[0]
        union = get_origin(item) is Union or get_origin(item) is UnionType
        options = get_args(item) if union else (item,)
        classes = tuple(o for o in options if isinstance(o, type) and o is not NoneType)
        if classes and all(issubclass(c, Node) for c in classes) and len(classes) == len(options):
            found[name] = (item, classes)
    return found


def _read_item(path: str, section: str, line: int, text: str) -> KeptItem | None:
    """A list item composed and converted alone, as the whole read converts it, with its
    content digest; None unless it reads clean."""
    node = compose_item(text, line)
    if node is None:
        return None
    hint, _classes = _item_types()[section]
    converter = Converter(path)
    scratch: dict[str, tuple[int, int]] = {}
    value = plan_for(hint)(converter, node, scratch, f"{section}.0")
    if value is INVALID or converter.findings or scratch:
        return None
    return _as_item((value, (node.line, node.column), digest_of(value)), section)


def _as_item(found: object, section: str) -> KeptItem | None:
    """`found` when it is an item of the section read before: a record of its kind, where it
    starts and its content digest (64 hexadecimal digits)."""
    if not isinstance(found, tuple) or len(found) != 3:
        return None
    record, where, digest = found
    if not isinstance(record, Node) or not isinstance(record, _item_types()[section][1]):
        return None
    if not (isinstance(where, tuple) and len(where) == 2 and all(type(n) is int for n in where)):
        return None
    if not are_digests((digest,)):
        return None
    return record, (where[0], where[1]), digest
