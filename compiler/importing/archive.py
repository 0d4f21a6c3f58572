"""A VASSAL archive (.vmod, .vsav, .vmdx) opened as untrusted data.

Modules come from anywhere, so an archive is checked whole before anything is read from it:
every entry name must be a plain relative path (no `..`, no absolute or drive name, no
backslash, no control character), the entries' declared sizes and compression ratios must be
those of a real module, and each entry is read with its real size counted (a header may lie).
XML is parsed with no DTD, no entities and no network. Every refusal is an ArchiveError with
one sentence saying why; nothing is written by this module.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from lxml import etree

from compiler.regularfile import NotRegular, open_regular

MAX_ARCHIVE_BYTES = 2 * 1024**3
MAX_ENTRIES = 100_000
MAX_ENTRY_BYTES = 256 * 1024**2
"""The largest entry unpacked (an image of 8000 × 8000 pixels is far below it)."""
MAX_TOTAL_BYTES = 1024**3
MAX_RATIO = 200
"""A larger compression ratio on an entry above RATIO_FLOOR bytes is a zip bomb."""
RATIO_FLOOR = 1024 * 1024
_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\]|^/|^[A-Za-z]:")


class ArchiveError(Exception):
    """The file is not an archive that can be read safely: one sentence, exit 2."""


class Archive:
    """The entries of one archive, read on demand with their real sizes checked."""

    def __init__(self, path: Path, data: bytes | None = None) -> None:
        self.path = path
        self._file = _open(path) if data is None else io.BytesIO(data)
        try:
            self._zip = zipfile.ZipFile(self._file)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
            self._file.close()
            raise ArchiveError(f"{path} is not a zip archive ({_why(err)})") from err
        try:
            self._entries = _checked_entries(path, self._zip)
        except ArchiveError:
            self.close()
            raise

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Archive:
        """An archive held in memory (a save inside a module), named `where` in messages."""
        return cls(Path(where), data)

    def close(self) -> None:
        self._zip.close()
        self._file.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def names(self) -> list[str]:
        """Entry names of files (not folders), in archive order."""
        return [name for name in self._entries if not name.endswith("/")]

    def has(self, name: str) -> bool:
        return name in self._entries

    def size(self, name: str) -> int:
        """The declared unpacked size of an entry."""
        return self._entries[name].file_size

    def read(self, name: str, limit: int = MAX_ENTRY_BYTES) -> bytes:
        """An entry's bytes; ArchiveError when it is missing, damaged or larger than `limit`."""
        info = self._entries.get(name)
        if info is None:
            raise ArchiveError(f"{self.path} has no entry `{name}`")
        if info.file_size > limit:
            raise ArchiveError(
                f"{self.path}: entry `{name}` unpacks to {info.file_size} bytes, "
                f"more than the {limit} read"
            )
        chunks: list[bytes] = []
        total = 0
        try:
            with self._zip.open(info) as stream:
                while chunk := stream.read(1024 * 1024):
                    total += len(chunk)
                    if total > limit:
                        raise ArchiveError(
                            f"{self.path}: entry `{name}` unpacks to more than the "
                            f"{limit} bytes its header declares or the reader allows"
                        )
                    chunks.append(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as err:
            raise ArchiveError(f"{self.path}: entry `{name}` is damaged ({_why(err)})") from err
        return b"".join(chunks)

    def xml(self, name: str, limit: int = 64 * 1024**2) -> etree._Element:
        """An entry parsed as XML with no DTD, entity or network access."""
        return parse_xml(self.read(name, limit), f"{self.path}: `{name}`")


def _open(path: Path) -> BinaryIO:
    try:
        fd, stat = open_regular(path)
    except NotRegular as err:
        raise ArchiveError(f"{path} is not a regular file") from err
    except OSError as err:
        raise ArchiveError(f"cannot read {path}: {err.strerror or err}") from err
    if stat.st_size > MAX_ARCHIVE_BYTES:
        os.close(fd)
        raise ArchiveError(f"{path} is {stat.st_size} bytes, more than {MAX_ARCHIVE_BYTES}")
    return os.fdopen(fd, "rb")


def _checked_entries(path: Path, archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ArchiveError(f"{path} holds {len(infos)} entries, more than {MAX_ENTRIES}")
    entries: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        name = info.filename
        if not safe_entry_name(name):
            raise ArchiveError(
                f"{path}: entry name {name!r} points outside the archive (a `..`, absolute "
                "or drive name, a backslash or a control character); nothing was extracted"
            )
        if name in entries:
            raise ArchiveError(f"{path}: entry `{name}` appears twice")
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise ArchiveError(
                f"{path}: entry `{name}` would unpack {ratio:.0f} times its packed size "
                f"({info.file_size} bytes): a zip bomb, not a module"
            )
        if total > MAX_TOTAL_BYTES:
            raise ArchiveError(f"{path} would unpack to more than {MAX_TOTAL_BYTES} bytes: refused")
        entries[name] = info
    return entries


def safe_entry_name(name: str) -> bool:
    """A relative path that stays inside the folder it is extracted to."""
    if not name or _BAD_NAME.search(name):
        return False
    parts = PurePosixPath(name).parts
    return ".." not in parts and not name.startswith("/")


def parse_xml(data: bytes, where: str) -> etree._Element:
    """XML with no DTD loaded, no entity resolved, no network: a DOCTYPE that declares
    entities is refused outright (billion laughs, external entities)."""
    head = data[:65536]
    if b"<!ENTITY" in head.upper() or (b"<!DOCTYPE" in head.upper() and b"[" in _doctype(head)):
        raise ArchiveError(f"{where} declares XML entities, which a module never needs: refused")
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as err:
        raise ArchiveError(f"{where} is not well-formed XML ({err.msg})") from err
    if root is None:
        raise ArchiveError(f"{where} is empty")
    return root


def _doctype(head: bytes) -> bytes:
    start = head.upper().find(b"<!DOCTYPE")
    end = head.find(b">", start)
    return head[start : end if end >= 0 else len(head)]


def _why(err: BaseException) -> str:
    return str(err) or type(err).__name__
