"""Data files read with the records the last build kept: a warm rebuild reads again only what
changed.

A file whose sections are all lists written item by item (`units:`, then one `  - ` item after
the other; see compiler.load.chunks) is kept in runs of RUN_ITEMS items: each run is one
pickle, under a key of its place (the file's path, its section, its number) and checked by a
digest of its items' text and first line, its section, the file's path and the loader's code
(see compiler.load.records). An unchanged run is read back as one pickle (at 8,000 counters,
a pickle per item was most of what a warm load cost); a run that changed reads again only its
items whose text or line changed (each item's own digest is kept in the run). Any other file
is kept whole, under a digest of its bytes. Only what reads clean is kept or read item by item:
a file with findings is read whole, as without the cache, so the findings are the same (text
and file:line:column).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from itertools import chain, compress, count, repeat
from operator import itemgetter, not_
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin

from compiler.diagnostics import Finding, Location
from compiler.load.chunks import compose_item, items_of, lines_of
from compiler.load.convert import Converter, _fields, plan_for
from compiler.load.records import pickled, read_kept, record_key, unpickled, write_kept
from compiler.load.yamlread import ReadResult, compose_text, decode_text, read_bytes
from compiler.model.common import EMPTY_LOCS, ItemLocs, Node
from compiler.model.digests import are_digests, digest_of, remember, remember_all
from compiler.model.source import SourceFile

LOADS = ".loads"
"""The kept records' folder in <out>/.cache/ (a game id never starts with a dot)."""
SECTION_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):[ ]*\n?")
SECTION_INDENT = 2
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
    keeps; `save` writes them back (what this load used: see write_kept)."""

    def __init__(self, stored: Path | None) -> None:
        self.stored = stored
        self.known: dict[bytes, bytes] = {} if stored is None else read_kept(stored)
        self.kept: dict[bytes, bytes] = {}
        self.files: dict[str, bytes] = {}
        """Per file read: the key of its path and bytes (GameData.sources)."""

    def save(self) -> None:
        """Write the kept records when a build has made <out>/.cache/ (a check writes none)."""
        if self.stored is None or self.kept == self.known:
            return
        try:
            if self.stored.parent.parent.is_dir():
                self.stored.parent.mkdir(exist_ok=True)
        except OSError:
            return
        write_kept(self.stored, self.kept, self.known)

    def source(self, key: bytes) -> SourceFile | None:
        found = unpickled(self.known.get(key, b""))
        if not isinstance(found, SourceFile):
            return None
        self.kept[key] = self.known[key]
        return found

    def same(self, run: Run) -> bool:
        """Whether the run is kept as it is now (its check matches: nothing read)."""
        return self.known.get(run.key, b"")[:KEY_SIZE] == run.check

    def unchanged(self, section: str, runs: list[Run]) -> list[list[KeptItem] | None]:
        """The items of each run kept as it is now (its check matches), read back and checked
        together, their content digests told to the model in one pass (per run, the checks'
        and the telling's own cost was a fifth of reading a kept units file back); None for
        the others, and for all when one does not read back whole (KeptRecords.run then
        reads each alone)."""
        stored = [self.known.get(run.key, b"") for run in runs]
        same = [data[:KEY_SIZE] == run.check for data, run in zip(stored, runs, strict=True)]
        found = [
            unpickled(data[KEY_SIZE:]) if ok else None
            for data, ok in zip(stored, same, strict=True)
        ]
        sizes = [len(run.items) for run, ok in zip(runs, same, strict=True) if ok]
        read = _as_runs([run for run, ok in zip(found, same, strict=True) if ok], sizes, section)
        if read is None:
            return [None] * len(runs)
        items = iter(read)
        result = [list(next(items)) if ok else None for ok in same]
        for run, data, ok in zip(runs, stored, same, strict=True):
            if ok:
                self.kept[run.key] = data
        every = list(chain.from_iterable(read))
        remember_all(list(map(_RECORD, every)), list(map(_DIGEST, every)))
        return result

    def run(self, path: str, section: str, run: Run) -> list[KeptItem] | None:
        """The items of a run, read back (their content digests told to the model) or, those
        whose text or line changed, read now; None unless each reads clean."""
        stored = self.known.get(run.key, b"")
        found = _as_run(unpickled(stored[KEY_SIZE:]), section)
        if found is not None and stored[:KEY_SIZE] == run.check:
            keys, items = found
            if len(items) == len(run.items):
                self.kept[run.key] = stored
                remember_all([item[0] for item in items], [item[2] for item in items])
                return items
        before = {} if found is None else dict(zip(*found, strict=True))
        keys = _item_keys(path, section, run)
        read: list[KeptItem] = []
        for (line, text), key in zip(run.items, keys, strict=True):
            item = before.get(key)
            if item is None:
                item = _read_item(path, section, line, text)
                if item is None:
                    return None
            remember(item[0], item[2])
            read.append(item)
        self.keep(path, section, run, read, keys)
        return read

    def keep(
        self,
        path: str,
        section: str,
        run: Run,
        items: list[KeptItem],
        keys: tuple[bytes, ...] | None = None,
    ) -> None:
        """Keep a run's items (records, where each starts, content digests) with its check and
        each item's own key (what a later run that changed reads back item by item)."""
        keys = keys or _item_keys(path, section, run)
        self.kept[run.key] = run.check + pickled((keys, tuple(items)))


RUN_ITEMS = 32
"""Items kept together: a changed item costs one run read back and the changed item read again;
an unchanged file costs one pickle read back per this many items."""
KEY_SIZE = 32


@dataclass(frozen=True, slots=True)
class Run:
    """Up to RUN_ITEMS items of a section, one after the other: their first lines and texts;
    `key`, where it is kept (its place in the file); `check`, a digest of its items."""

    items: list[tuple[int, str]]
    key: bytes
    check: bytes


Split = list[tuple[str, list[Run]]]
"""The list sections of a file: each one's name and runs of items."""


def read_source(
    path: Path, root: Path | None, kept: KeptRecords
) -> tuple[SourceFile | None, list[Finding]]:
    """compiler.load.game.read_file with the records kept: the same result. A file of list
    sections whose runs of items are mostly kept as they are is read run by run; else it is
    read whole, and its runs (or the file, for another shape) are kept for the next time when
    it reads clean."""
    where = str(path)
    data = read_bytes(where, None if root is None else str(root))
    if isinstance(data, ReadResult):
        return None, [data.finding] if data.finding is not None else []
    key = record_key("file", where, data)
    kept.files[where] = key
    found = kept.source(key)
    if found is not None:
        return found, []
    text = decode_text(where, data)
    if isinstance(text, ReadResult):
        return None, [text.finding] if text.finding is not None else []
    lines = lines_of(text)
    split = None if lines is None else _split(where, lines)
    if split is not None and lines is not None and _mostly_known(split, kept):
        by_runs = _by_runs(where, split, _first_line(lines), kept)
        if by_runs is not None:
            return by_runs, []
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
            _keep_runs(where, split, source, kept)
    return source, converter.findings


def _split(path: str, lines: list[str]) -> Split | None:
    """The items of a file made of list sections (see _sections), in runs; None for another
    shape."""
    sections = _sections(lines)
    if not sections:
        return None
    return [(name, _runs(path, name, items)) for name, items in sections]


def _runs(path: str, section: str, items: list[tuple[int, str]]) -> list[Run]:
    """A section's items in runs of RUN_ITEMS, each with its key and check: the check holds
    the items' lengths and texts (so no two runs give the same text) and the run's first line
    (the items' lines follow from their texts)."""
    runs: list[Run] = []
    for number, start in enumerate(range(0, len(items), RUN_ITEMS)):
        group = items[start : start + RUN_ITEMS]
        texts = [item for _line, item in group]
        lengths = ",".join(map(str, map(len, texts)))
        check = record_key("run-items", path, section, group[0][0], lengths, "".join(texts))
        runs.append(Run(group, record_key("run", path, section, number), check))
    return runs


def _item_keys(path: str, section: str, run: Run) -> tuple[bytes, ...]:
    """The key of each item of a run: of its text at its first line."""
    return tuple(record_key("item", path, section, line, text) for line, text in run.items)


def _mostly_known(split: Split, kept: KeptRecords) -> bool:
    """Whether at most half the runs changed: reading the items of the others one by one
    costs more than reading the file whole."""
    runs = [run for _name, section in split for run in section]
    return 2 * sum(not kept.same(run) for run in runs) <= len(runs)


def _keep_runs(path: str, split: Split, source: SourceFile, kept: KeptRecords) -> None:
    """Keep the runs of a file read whole (and clean, without aliases): each item's record and
    where it starts, as reading it alone gives them."""
    for name, runs in split:
        records = getattr(source, name, None)
        if name not in _item_types() or not isinstance(records, tuple):
            continue
        if len(records) != sum(len(run.items) for run in runs):
            continue
        index = 0
        for run in runs:
            items: list[KeptItem] = []
            for record in records[index : index + len(run.items)]:
                where = source.locs.get(f"{name}.{index}")
                index += 1
                if where is not None:
                    digest = digest_of(record)
                    remember(record, digest)
                    items.append((record, where, digest))
            if len(items) == len(run.items):
                kept.keep(path, name, run, items)


def _by_runs(path: str, split: Split, first: int, kept: KeptRecords) -> SourceFile | None:
    """A file of list sections read run by run: the SourceFile a whole read gives (the same
    records, positions and `locs`); None when a section is not a known list, or comes twice,
    or an item does not read clean (the whole read says why)."""
    values: dict[str, Any] = {}  # section → its records
    locs: Mapping[str, tuple[int, int]] = EMPTY_LOCS
    for name, runs in split:
        if name in values or name not in _item_types():
            return None
        start = {name: (runs[0].items[0][0], SECTION_INDENT + 1)}  # the sequence's `-`
        records: list[Node] = []
        wheres: list[tuple[int, int]] = []
        for run, unchanged in zip(runs, kept.unchanged(name, runs), strict=True):
            items = unchanged if unchanged is not None else kept.run(path, name, run)
            if items is None:
                return None
            wheres.extend(map(_WHERE, items))  # passes that stay in C
            records.extend(map(_RECORD, items))
        values[name] = tuple(records)
        # the section's start, then each item's (`units.12`), made a dict only when asked
        locs = ItemLocs(locs, f"{name}.", 0, wheres, start)
    return SourceFile(**values, loc=Location(path, first, 1), locs=locs)


_RECORD, _WHERE, _DIGEST = itemgetter(0), itemgetter(1), itemgetter(2)
"""A kept item's record, where it starts and its content digest."""


def _sections(lines: list[str]) -> list[tuple[str, list[tuple[int, str]]]] | None:
    """(name, items) of each top-level section, when every line of the file is a section's
    `name:`, a line of one of its items, blank or a comment; else None."""
    # _is_top_level of each line, in C (a large game's units file holds thousands of lines;
    # lines_of gives no empty line)
    headers = list(compress(count(), map(not_, map(str.startswith, lines, repeat(NOT_TOP)))))
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


NOT_TOP = (" ", "\n", "#")
"""How a line that is not at the top level starts (see _is_top_level)."""


def _is_top_level(line: str) -> bool:
    """A line that starts at the first column and is neither blank nor a comment."""
    return bool(line) and line[0] not in " \n#"


def _has_content(line: str) -> bool:
    stripped = line.strip(" \n")
    return bool(stripped) and not stripped.startswith("#")


def _first_line(lines: list[str]) -> int:
    """The line of the first section: where the file's top-level mapping starts."""
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
    hint, classes = _item_types()[section]
    converter = Converter(path)
    scratch: dict[str, tuple[int, int]] = {}
    value = plan_for(hint)(converter, node, scratch, f"{section}.0")
    if converter.findings or scratch or not isinstance(value, Node):
        return None  # INVALID is no Node
    if not isinstance(value, classes):
        return None
    return value, (node.line, node.column), digest_of(value)


def _as_runs(
    found: list[object], sizes: list[int], section: str
) -> list[tuple[KeptItem, ...]] | None:
    """The items of runs kept by KeptRecords.keep (see _as_run), of `sizes` items each, when
    every one reads back whole: each run's shape checked, then all their keys and items at
    once (in passes that stay in C); None when one does not."""
    runs: list[tuple[KeptItem, ...]] = []
    keys: list[tuple[bytes, ...]] = []
    for run, size in zip(found, sizes, strict=True):
        if type(run) is not tuple or len(run) != 2:
            return None
        run_keys, items = run
        if type(run_keys) is not tuple or type(items) is not tuple:
            return None
        if len(run_keys) != size or len(items) != size or not size:
            return None
        keys.append(run_keys)
        runs.append(items)
    if not runs:
        return runs
    joined = (tuple(chain.from_iterable(keys)), tuple(chain.from_iterable(runs)))
    return runs if _as_run(joined, section) is not None else None


def _as_run(found: object, section: str) -> tuple[tuple[bytes, ...], list[KeptItem]] | None:
    """`found` when it is a run of a section kept by KeptRecords.keep: each item's key, then
    the items (a record of the section's kinds, where it starts, its content digest of 64
    hexadecimal digits), as many of each (checked in passes that stay in C: a large game's
    units file holds thousands of items)."""
    if type(found) is not tuple or len(found) != 2:
        return None
    keys, items = found
    if type(keys) is not tuple or type(items) is not tuple or len(keys) != len(items) or not keys:
        return None
    if set(map(type, keys)) != {bytes} or set(map(len, keys)) != {KEY_SIZE}:
        return None
    if set(map(type, items)) != {tuple} or set(map(len, items)) != {3}:
        return None
    records, wheres, digests = zip(*items, strict=True)
    if not set(map(type, records)) <= set(_item_types()[section][1]):
        return None
    if set(map(type, wheres)) != {tuple} or set(map(len, wheres)) != {2}:
        return None
    if set(map(type, chain.from_iterable(wheres))) != {int} or not are_digests(digests):
        return None
    return keys, list(items)
