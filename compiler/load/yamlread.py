"""Read one YAML file safely into a composed node tree, or explain why not.

Every failure is a finding at file:line:col: unreadable, too large, binary, not UTF-8,
empty, or not YAML. Only regular files are read: a device, a pipe or a socket is refused by
its type before it is opened (opening a pipe would wait for a writer), a symbolic link is
followed only when it stays inside the game folder, and no more than the size cap is ever
read, whatever the file says its size is. Parsing uses PyYAML's C parser when it is present.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

import yaml

from compiler.diagnostics import Finding, Location, excerpt
from compiler.load.nodes import MAPPING, SEQUENCE, ComposeError, YNode, compose
from compiler.load.paths import inside, real_root
from compiler.regularfile import MAX_FILE_BYTES, NotRegular, open_regular

_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ReadResult:
    node: YNode | None
    finding: Finding | None
    aliased: bool = False


def _failure(rule: str, loc: Location, message: str, hint: str) -> ReadResult:
    return ReadResult(None, Finding(rule, loc, message, hint))


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _too_large(loc: Location, size: str) -> ReadResult:
    return _failure(
        "file-too-large",
        loc,
        f"file is {size}; data files may be at most {MAX_FILE_BYTES // 1048576} MiB",
        "split the data over several files, or remove what is not game data",
    )


def _not_regular(loc: Location, mode: int) -> ReadResult:
    return _failure(
        "file-unreadable",
        loc,
        f"this is {file_kind(mode)}, not a regular file; it is not read",
        "data files are plain files; remove it or rename it so it does not end in .yaml",
    )


def _target(path: str, root: str | None) -> str | ReadResult:
    """The file to open for `path`: itself, or where its symbolic link leads when that lies
    inside the game folder `root` (anywhere when there is no root)."""
    loc = Location(path)
    info = os.lstat(path)
    if not stat.S_ISLNK(info.st_mode):
        return path
    real = os.path.realpath(path)
    if root is not None and not inside(real, real_root(root)):
        return _failure(
            "file-unreadable",
            loc,
            f"this is a symbolic link to {real}, outside the game folder; it is not followed",
            "keep the game's data files inside its folder (copy the file in)",
        )
    if not os.path.exists(real):
        return _failure(
            "file-unreadable", loc, f"this is a symbolic link to {real}, which does not exist", ""
        )
    return real


def read_bytes(path: str, root: str | None = None) -> bytes | ReadResult:
    """The bytes of a regular file of at most MAX_FILE_BYTES, or why they cannot be read.
    With `root`, a symbolic link must lead inside that folder."""
    loc = Location(path)
    try:
        target = _target(path, root)
        if isinstance(target, ReadResult):
            return target
        fd, info = open_regular(target)
        try:
            if info.st_size > MAX_FILE_BYTES:
                return _too_large(loc, f"{info.st_size / 1048576:.1f} MiB")
            data = _read_capped(fd)
        finally:
            os.close(fd)
    except NotRegular as err:  # refused before opening: a pipe would block
        return _not_regular(loc, err.mode)
    except FileNotFoundError:
        return _failure("file-unreadable", loc, "file not found", "check the path")
    except OSError as err:
        reason = err.strerror or str(err)
        return _failure("file-unreadable", loc, f"cannot read file: {reason}", "")
    except ValueError as err:  # a NUL in the path
        return _failure("file-unreadable", loc, f"cannot read file: {err}", "")
    if len(data) > MAX_FILE_BYTES:  # it grew, or its size was not told (/proc and the like)
        return _too_large(loc, f"larger than {MAX_FILE_BYTES // 1048576} MiB")
    return data


def _read_capped(fd: int) -> bytes:
    """At most MAX_FILE_BYTES + 1 bytes: enough to tell that a file is too large."""
    chunks: list[bytes] = []
    left = MAX_FILE_BYTES + 1
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def decode_text(path: str, data: bytes) -> str | ReadResult:
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data, nul)
        return _failure(
            "binary-file",
            Location(path, line, col),
            f"file holds a NUL byte: this is a binary file, not YAML text "
            f"(it starts `{excerpt(data)}`)",
            "data files are UTF-8 YAML; move images and other binaries out of the data files",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, col = _line_col(data, err.start)
        start = max(data.rfind(b"\n", 0, err.start) + 1, err.start - 8)
        return _failure(
            "not-utf8",
            Location(path, line, col),
            f"byte 0x{data[err.start]:02x} is not valid UTF-8 (`{excerpt(data[start:], 16)}`)",
            "save the file as UTF-8 (Shift_JIS and other encodings are not read)",
        )
    return text.removeprefix("\ufeff")


# YAML breaks lines at CR, NEL, LS and PS as well as at LF; the file's lines (in an editor, and
# under a finding) are broken at LF only. Positions in a text with such breaks are mapped back.
_ODD_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
_ANY_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class _Lines:
    """Maps a YAML line and column to the file's, for a text with CR, NEL, LS or PS breaks."""

    def __init__(self, text: str) -> None:
        self.starts = [(1, 0)]  # per YAML line: its file line, and the column it starts after
        file_line, line_start = 1, 0
        for match in _ANY_BREAK.finditer(text):
            if "\n" in match.group():
                file_line, line_start = file_line + 1, match.end()
            self.starts.append((file_line, match.end() - line_start))

    def place(self, line: int, column: int) -> tuple[int, int]:
        file_line, offset = self.starts[min(max(line, 1), len(self.starts)) - 1]
        return file_line, offset + column

    def remap(self, root: YNode) -> None:
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            node.line, node.column = self.place(node.line, node.column)
            if node.kind == SEQUENCE:
                stack.extend(node.value)  # type: ignore[arg-type]
            elif node.kind == MAPPING:
                for key, value in node.value:  # type: ignore[attr-defined]
                    stack.extend((key, value))


def compose_text(path: str, text: str) -> ReadResult:
    lines = _Lines(text) if _ODD_BREAK.search(text) else None

    def at(line: int, column: int) -> Location:
        return Location(path, *(lines.place(line, column) if lines else (line, column)))

    try:
        composed = compose(text)
    except ComposeError as err:
        return _failure("yaml-syntax", at(err.line, err.column), str(err), "fix the YAML here")
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        loc = at(mark.line + 1, mark.column + 1) if mark else Location(path)
        problem = err.problem or err.context or "invalid YAML"
        context = f" ({err.context})" if err.context and err.problem else ""
        return _failure("yaml-syntax", loc, f"{problem}{context}", "fix the YAML syntax here")
    except yaml.YAMLError as err:
        return _failure("yaml-syntax", Location(path), f"invalid YAML: {err}", "")
    except RecursionError:
        return _failure(
            "yaml-syntax",
            Location(path),
            "the document is nested too deeply to read",
            "data files need only a few levels of nesting",
        )
    if composed.root is None:
        return _failure(
            "empty-file",
            Location(path),
            "file holds no data",
            "add a section such as `units:`, or delete the file",
        )
    if lines is not None:
        lines.remap(composed.root)
    return ReadResult(composed.root, None, composed.aliased)


def read_yaml(path: str, root: str | None = None) -> ReadResult:
    """Read, decode and compose one file; never raises for bad input. With `root` (the game
    folder), a symbolic link is followed only when it leads inside that folder."""
    data = read_bytes(path, root)
    if isinstance(data, ReadResult):
        return data
    text = decode_text(path, data)
    if isinstance(text, ReadResult):
        return text
    return compose_text(path, text)
