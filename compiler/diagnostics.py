"""Source locations, findings and their rendering (text and JSON)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class Location(NamedTuple):
    """A place in a source file; line and column are 1-based. (A tuple: cheap to make.)"""

    path: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{display_path(self.path)}:{self.line}:{self.column}"


NOWHERE = Location("<unknown>", 0, 0)


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

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.rule, self.message)


def display_path(path: str) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _source_line(path: str, line: int) -> str | None:
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if number == line:
                    return raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if number > line:
                    break
    except OSError:
        return None
    return None


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
    lines = [head]
    src = _source_line(finding.location.path, finding.location.line)
    if src is not None and finding.location.line > 0 and len(src) <= 400:
        lines.append(f"    {src}")
        lines.append(f"    {_caret_line(src, finding.location.column)}")
    for rel in finding.related:
        lines.append(f"{rel.location}: note: {rel.message}")
    if finding.hint:
        lines.append(f"  hint: {finding.hint}")
    return "\n".join(lines)


def _location_json(loc: Location) -> dict[str, object]:
    return {"file": display_path(loc.path), "line": loc.line, "column": loc.column}


def finding_json(finding: Finding) -> dict[str, object]:
    return {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "hint": finding.hint,
        "reference": finding.reference,
        **_location_json(finding.location),
        "related": [
            {"message": rel.message, **_location_json(rel.location)} for rel in finding.related
        ],
    }


def render_json(findings: Iterable[Finding]) -> str:
    return json.dumps([finding_json(f) for f in findings], ensure_ascii=False, indent=2)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(set(findings), key=Finding.sort_key)


def summary(findings: Sequence[Finding]) -> str:
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    return f"{errors} error(s), {warnings} warning(s)"
