"""Source locations, findings and their rendering (text and JSON)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import NamedTuple

from compiler.regularfile import MAX_FILE_BYTES, open_regular


class Location(NamedTuple):
    """A place in a source file; line and column are 1-based. (A tuple: cheap to make.)"""

    path: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{display_path(self.path)}:{self.line}:{self.column}"


NOWHERE = Location("<unknown>", 0, 0)

FILE_RULES = frozenset(
    {
        "file-unreadable",
        "file-too-large",
        "binary-file",
        "not-utf8",
        "empty-file",
        "yaml-syntax",
        "alias-bomb",
    }
)
"""Rules that say a whole file (or folder) could not be read: the root causes, sorted first."""

_NO_SOURCE_LINE = frozenset(
    {
        "file-unreadable",
        "file-too-large",
        "import-unknown-piece",
        "import-off-location",
        "import-no-entry",
        "import-card",
    }
)
"""A file that could not or may not be read is not quoted under its finding, nor an archive
(an imported save's findings count commands of its stream, not lines of a text file)."""


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Related:
    """A second place a finding is about (the other copy of a duplicate, say)."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in the data: where, which rule, what, and how to fix it."""

    rule: str
    location: Location
    message: str
    hint: str = ""
    reference: str = ""
    severity: Severity = Severity.ERROR
    related: tuple[Related, ...] = field(default=())

    def sort_key(
        self, consequences: frozenset[str] = frozenset()
    ) -> tuple[int, str, int, int, str, str]:
        """Files that could not be read first (the root causes), then the data's own faults,
        then the findings of the rules named in `consequences`; each by place."""
        loc = self.location
        rank = 0 if self.rule in FILE_RULES else 2 if self.rule in consequences else 1
        return (
            rank,
            loc.path,
            loc.line,
            loc.column,
            self.rule,
            self.message,
        )


def display_path(path: str) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


# C0 and C1 controls but tab and newline, the invisible format characters that can reorder or
# hide text on a terminal (bidi overrides and isolates, zero-width characters, the BOM), and
# lone surrogates (the bytes of a file name that is not UTF-8, which cannot even be printed).
@cache
def _unprintable() -> re.Pattern[str]:
    """The pattern, compiled when first needed, not at import (about 1 ms, which a build that
    prints no finding would spend for nothing)."""
    return re.compile(
        "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
        "\u2060-\u2069\ufeff\ud800-\udfff]"
    )


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        code -= 0xDC00
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` safe to print on a terminal: control and invisible characters written as
    `\\x1b` or `\\u202e`; tabs and newlines kept."""
    unprintable = _unprintable()
    return unprintable.sub(_escape, text) if unprintable.search(text) else text


def excerpt(data: bytes, limit: int = 16) -> str:
    """A short, printable quotation of raw file bytes: at most `limit` bytes, invalid UTF-8
    and control bytes escaped (`\\x00\\x1b…`)."""
    shown = data[:limit].decode("utf-8", errors="backslashreplace")
    shown = printable(shown).replace("\t", "\\t").replace("\n", "\\n").replace("\\x0d", "\\r")
    return shown + ("…" if len(data) > limit else "")


_SOURCE_MAX_LINE = 4096  # longer lines are not shown (only lines up to 400 characters are)


def _source_line(path: str, line: int) -> str | None:
    """Line `line` of a regular data file, read with a bound; None for anything else (a device,
    a pipe, a folder, a file too large or a line too long to show). The file's lines are read
    once for all its findings (`_source_lines`)."""
    if line <= 0:
        return None
    lines = _source_lines(path)
    if lines is None or line > len(lines):
        return None
    raw = lines[line - 1]
    if line == len(lines) and not raw:  # after the last line break (or an empty file)
        return None
    if len(raw) >= _SOURCE_MAX_LINE:
        return None
    return raw.decode("utf-8", errors="replace").rstrip("\r\n")


def _source_lines(path: str) -> list[bytes] | None:
    """A regular data file's lines (split at each \\n), read whole once while the file stays
    as it was (its device, inode, size and times): a file of 8,000 lines with a finding on
    each was read up to each finding's line again, 30 s of a 32 s `validate`. None for
    anything but a regular file of at most the loader's cap."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    kept = _SOURCES.pop(path, None)
    if kept is not None and kept[0] == _file_identity(info):
        _SOURCES[path] = kept  # the most recent last
        return kept[1]
    try:
        fd, opened = open_regular(path)  # never waits on a pipe
    except (OSError, ValueError):
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if opened.st_size > MAX_FILE_BYTES:  # the loader's cap: a larger file was never read
                return None
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    lines = data.split(b"\n")
    _SOURCES[path] = (_file_identity(opened), lines)
    while len(_SOURCES) > _SOURCES_KEPT:
        del _SOURCES[next(iter(_SOURCES))]  # the least recent
    return lines


def _file_identity(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


_SOURCES: dict[str, tuple[tuple[int, ...], list[bytes]]] = {}
"""The files whose lines were read last (`_source_lines`), by path: each with its identity."""
_SOURCES_KEPT = 4


def _caret_line(text: str, column: int) -> str:
    prefix = text[: max(column - 1, 0)]
    pad = "".join("\t" if ch == "\t" else " " for ch in prefix)
    return pad + "^"


def section(reference: str) -> str:
    """ "2.2" → "§2.2"; page or named references ("p.2", "Components") stay as written."""
    return f"§{reference}" if reference[:1].isdigit() else reference


def render_text(finding: Finding) -> str:
    """Compiler-style text: position, rule, message, source line, hint, related places."""
    ref = f" (rules {section(finding.reference)})" if finding.reference else ""
    head = f"{finding.location}: {finding.severity.value}[{finding.rule}]: {finding.message}{ref}"
    lines = [printable(head)]
    loc = finding.location
    src = None if finding.rule in _NO_SOURCE_LINE else _source_line(loc.path, loc.line)
    if src is not None:
        shown = printable(src)
        if len(shown) <= 400:
            lines.append(f"    {shown}")
            column = len(printable(src[: max(loc.column - 1, 0)])) + 1
            lines.append(f"    {_caret_line(shown, column)}")
    for rel in finding.related:
        lines.append(printable(f"{rel.location}: note: {rel.message}"))
    if finding.hint:
        lines.append(printable(f"  hint: {finding.hint}"))
    return "\n".join(lines)


def _location_json(loc: Location) -> dict[str, object]:
    return {"file": printable(display_path(loc.path)), "line": loc.line, "column": loc.column}


def finding_json(finding: Finding) -> dict[str, object]:
    """One finding as JSON values; text is made printable as in `render_text`."""
    return {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": printable(finding.message),
        "hint": printable(finding.hint),
        "reference": finding.reference,
        **_location_json(finding.location),
        "related": [
            {"message": printable(rel.message), **_location_json(rel.location)}
            for rel in finding.related
        ],
    }


def render_json(findings: Iterable[Finding]) -> str:
    return json.dumps([finding_json(f) for f in findings], ensure_ascii=False, indent=2)


def sort_findings(
    findings: Iterable[Finding], consequences: Collection[str] = frozenset()
) -> list[Finding]:
    """The findings once each, causes first: files that could not be read, then what is wrong
    in the data itself (its shape, its references), then what the game's own rules (whose ids
    are `consequences`) find in it; each group by place. A rule checked on a broken value or
    an unknown reference reports a consequence of it, wherever the rule's finding is placed
    (on the same line, or on a placement that names the unit)."""
    rules = frozenset(consequences)
    return sorted(set(findings), key=lambda finding: finding.sort_key(rules))


def summary(findings: Sequence[Finding]) -> str:
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    return f"{errors} error(s), {warnings} warning(s)"
