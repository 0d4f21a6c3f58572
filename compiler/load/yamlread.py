"""Read one YAML file safely into a composed node tree, or explain why not.

Every failure is a finding at file:line:col: unreadable, too large, binary, not UTF-8,
empty, or not YAML. Parsing uses PyYAML's C parser when it is present.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import yaml

from compiler.diagnostics import Finding, Location
from compiler.load.nodes import ComposeError, YNode, compose

MAX_FILE_BYTES = 16 * 1024 * 1024


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


def _read_bytes(path: str) -> bytes | ReadResult:
    loc = Location(path)
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            return _failure(
                "file-too-large",
                loc,
                f"file is {size / 1048576:.1f} MiB; data files may be at most "
                f"{MAX_FILE_BYTES // 1048576} MiB",
                "split the data over several files, or remove what is not game data",
            )
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return _failure("file-unreadable", loc, "file not found", "check the path")
    except OSError as err:
        return _failure("file-unreadable", loc, f"cannot read file: {err.strerror}", "")


def _decode(path: str, data: bytes) -> str | ReadResult:
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data, nul)
        return _failure(
            "binary-file",
            Location(path, line, col),
            "file holds a NUL byte: this is a binary file, not YAML text",
            "data files are UTF-8 YAML; move images and other binaries out of the data files",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, col = _line_col(data, err.start)
        return _failure(
            "not-utf8",
            Location(path, line, col),
            f"byte 0x{data[err.start]:02x} is not valid UTF-8",
            "save the file as UTF-8 (Shift_JIS and other encodings are not read)",
        )
    return text.removeprefix("\ufeff")


def _compose(path: str, text: str) -> ReadResult:
    try:
        composed = compose(text)
    except ComposeError as err:
        return _failure(
            "yaml-syntax", Location(path, err.line, err.column), str(err), "fix the YAML here"
        )
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        loc = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path)
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
    return ReadResult(composed.root, None, composed.aliased)


def read_yaml(path: str) -> ReadResult:
    """Read, decode and compose one file; never raises for bad input."""
    data = _read_bytes(path)
    if isinstance(data, ReadResult):
        return data
    text = _decode(path, data)
    if isinstance(text, ReadResult):
        return text
    return _compose(path, text)
