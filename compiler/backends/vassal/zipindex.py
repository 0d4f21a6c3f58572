"""Where every entry of the last module written lies, kept beside the render cache: a warm
build reads it instead of walking the module's central directory record by record (13,000
entries at 8,000 counters), and copies each run of unchanged entries (their headers and data
in one range, their central records in one) without making a record per entry.

The index is one marshalled tuple after its CRC-32, written whole and atomically once the
module is. It names the module it describes by its length, its end record and the CRC-32 of
its central directory: an index that does not match the module at hand (another module, a
module written by another version, a damaged index) is not used, and the module's entries
are then read from its central directory as before."""

from __future__ import annotations

import marshal
import mmap
import os
import struct
import zlib
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

TAG = "countermix-zip-index-1"
"""What an index starts with: another version's index is not read."""
CHECKSUM = struct.Struct("<I")
END = struct.Struct("<4s4H2LH")
"""The end of central directory record (no comment: the modules written have none)."""
Module = bytes | mmap.mmap


@dataclass
class ZipIndex:
    """The entries of a module, in the order they lie (by name): their names, the CRC-32 and
    length of their content, whether deflated, where their local header starts (`at`) and
    their data ends (`end`), and where their central record starts and ends, counted from
    the central directory's start (`record`, `record_end`). Every entry lies as the module
    writer writes it (no extra field, no comment; deflated unless its name says stored)."""

    names: list[str] = field(default_factory=list)
    crcs: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    deflated: list[bool] = field(default_factory=list)
    at: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    record: list[int] = field(default_factory=list)
    record_end: list[int] = field(default_factory=list)
    directory: int = 0
    """Where the central directory starts in the module (once it is read or written)."""
    tail: bytes = b""
    """The module's central directory and end record, once written (not kept: the index is
    told apart by them)."""

    def add(
        self, name: str, crc: int, size: int, deflated: bool, spans: tuple[int, int, int, int]
    ) -> None:
        """One entry: its local header's start, data's end, central record's start and end."""
        self.names.append(name)
        self.crcs.append(crc)
        self.sizes.append(size)
        self.deflated.append(deflated)
        at, end, record, record_end = spans
        self.at.append(at)
        self.end.append(end)
        self.record.append(record)
        self.record_end.append(record_end)

    def extend(self, other: ZipIndex, start: int, stop: int, shift: int, moved: int) -> None:
        """The entries `start` to `stop` of `other`, their data `shift` bytes further on and
        their central records `moved` bytes further on in the directory."""
        self.names += other.names[start:stop]
        self.crcs += other.crcs[start:stop]
        self.sizes += other.sizes[start:stop]
        self.deflated += other.deflated[start:stop]
        self.at += _shifted(other.at[start:stop], shift)
        self.end += _shifted(other.end[start:stop], shift)
        self.record += _shifted(other.record[start:stop], moved)
        self.record_end += _shifted(other.record_end[start:stop], moved)


def _shifted(values: list[int], shift: int) -> list[int]:
    return [value + shift for value in values] if shift else values


FIELDS = ("names", "crcs", "sizes", "deflated", "at", "end", "record", "record_end")


def write_index(path: Path, index: ZipIndex, tail: bytes) -> None:
    """Keep `index` of the module whose central directory and end record are `tail` (its
    last bytes, as written). Replaced whole, atomically; a failed write leaves no index (the
    next build reads the module's directory)."""
    lists = tuple(getattr(index, name) for name in FIELDS)
    payload = marshal.dumps((TAG, tail[-END.size :], zlib.crc32(tail), lists))
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(CHECKSUM.pack(zlib.crc32(payload)) + payload)
        os.replace(temporary, path)
    except OSError:
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
            path.unlink(missing_ok=True)


def read_index(path: Path, module: Module) -> ZipIndex | None:
    """The index kept of `module` (mapped), when there is one and it is of that module (its
    end record, and its central directory's CRC-32); else None."""
    try:
        data = path.read_bytes()
        (crc,) = CHECKSUM.unpack_from(data)
        payload = memoryview(data)[CHECKSUM.size :]
        if zlib.crc32(payload) != crc:
            return None
        found = marshal.loads(payload)
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None
    if type(found) is not tuple or len(found) != 4 or found[0] != TAG:
        return None
    _tag, end, directory_crc, lists = found
    return _matching(module, end, directory_crc, lists)


def _matching(module: Module, end: object, directory_crc: object, lists: object) -> ZipIndex | None:
    """The index of these lists when `end` and `directory_crc` are those of `module`."""
    size = len(module)
    if type(end) is not bytes or len(end) != END.size or size < END.size:
        return None
    if bytes(module[size - END.size :]) != end:
        return None
    (sign, _disk, _first, count, total, length, offset, _comment) = END.unpack(end)
    if sign != b"PK\x05\x06" or count != total or offset + length + END.size != size:
        return None
    if zlib.crc32(module[offset:size]) != directory_crc:
        return None
    if type(lists) is not tuple or len(lists) != len(FIELDS):
        return None
    if not all(type(values) is list and len(values) == count for values in lists):
        return None
    index = ZipIndex(*lists)
    index.directory = offset
    return index
