"""One record a back end keeps between builds in a game's cache folder: a tag saying what
it was written from (its format, the code's fingerprint, what every part shares) and its
payload, marshalled (plain values only: reading one back runs no code).

A record is written whole, atomically, only when it changed; a record whose payload is a dict
may then be added to at its end (append_record) and is read back with its additions
(read_appended). One that is missing, damaged, of another shape or written under another tag
is no record: what it kept is made again."""

from __future__ import annotations

import io
import marshal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from compiler.backends.files import write_atomically


def read_appended(record: Path | None, tag: tuple[str, ...]) -> tuple[dict[Any, Any] | None, int]:
    """The payload of a record whose payload is a dict, written by `write_record` and then
    added to by `append_record`: each part's dict over the ones before; and how many bytes
    of the file the parts added hold. (None, 0) when there is none, or a part is damaged, cut
    short, of another shape or under another tag (the whole record is then no record)."""
    if record is None:
        return None, 0
    try:
        data = record.read_bytes()
    except OSError:
        return None, 0
    stream, merged, first = io.BytesIO(data), {}, 0
    try:
        while stream.tell() < len(data):
            read = marshal.load(stream)
            if type(read) is not tuple or len(read) != 2 or read[0] != tag:
                return None, 0
            if type(read[1]) is not dict:
                return None, 0
            merged.update(read[1])
            first = first or stream.tell()
    except (EOFError, ValueError, TypeError):
        return None, 0
    return (merged, len(data) - first) if first else (None, 0)


def append_record(record: Path, tag: tuple[str, ...], payload: dict[Any, Any]) -> bool:
    """Add `payload` (the entries that are new or changed) at the end of a record that
    `write_record` wrote under `tag` (see read_appended): a build that changed a few entries
    writes those, not the whole record again; False when it cannot be written."""
    try:
        with record.open("ab") as file:  # one write, at the end
            file.write(marshal.dumps((tag, payload)))
    except (OSError, ValueError):
        return False
    return True


def unmarshalled(data: bytes | None) -> object | None:
    """What a cache entry holds, marshalled; None when there is no entry or its bytes are not
    marshal's (the caller checks the value's own shape)."""
    if data is None:
        return None
    try:
        value: object = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return value


def write_record(record: Path, tag: tuple[str, ...], payload: Any) -> bool:
    """Write the record (beside it, then renamed over it: an interrupted build leaves the last
    one); False when the cache folder cannot be written (the build reports its output folder's
    own error when it writes there)."""
    try:
        write_atomically(record, marshal.dumps((tag, payload)))
    except (OSError, ValueError):
        return False
    return True


def all_of_type(values: Iterable[object], kind: type) -> bool:
    """Whether every value is exactly of type `kind` (not a subtype; true of none), in a pass
    that stays in C: what is read back from a cache holds tens of thousands of values."""
    return set(map(type, values)) <= {kind}
