"""A finding's source line: read once per file for all its findings, the same line the
readline-based reading gave, read again when the file changes.

The reference below is how a finding's line was read before (each finding read its file up
to its line again: 33,000 findings in a file of 8,000 lines took 30 s to print)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import compiler.diagnostics as diagnostics
from compiler.diagnostics import Finding, Location, render_text
from compiler.regularfile import open_regular

LIMIT = 4096  # diagnostics._SOURCE_MAX_LINE


def reference_line(path: Path, line: int) -> str | None:
    """The line as the readline-based reading gave it."""
    if line <= 0:
        return None
    with path.open("rb") as handle:
        number = 1
        while True:
            raw = handle.readline(LIMIT)
            if not raw:
                return None
            complete = raw.endswith(b"\n")
            if number == line:
                if not complete and len(raw) == LIMIT:
                    return None
                return raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if complete:
                number += 1


CONTENTS: list[tuple[str, bytes]] = [
    ("empty", b""),
    ("one line, no break", b"a: 1"),
    ("one line", b"a: 1\n"),
    ("two lines, no last break", b"a: 1\nb: 2"),
    ("CRLF", b"a: 1\r\nb: 2\r\n"),
    ("CR only", b"a: 1\rb: 2\r"),
    ("blank lines", b"\n\n\na\n\n"),
    ("4,095 bytes", b"x" * (LIMIT - 1) + b"\nnext\n"),
    ("4,096 bytes", b"x" * LIMIT + b"\nnext\n"),
    ("4,097 bytes", b"x" * (LIMIT + 1) + b"\nnext\n"),
    ("4,096 bytes at the end, no break", b"a\n" + b"x" * LIMIT),
    ("4,095 bytes at the end, no break", b"a\n" + b"x" * (LIMIT - 1)),
    ("a long line before", b"y" * (3 * LIMIT + 7) + b"\nafter\n"),
    ("not UTF-8", b"a: \xff\xfe\n\xe6\x97\xa5\xe6\x9c\xac\n"),
    ("many lines", b"".join(b"- {id: u%d}\n" % n for n in range(300))),
]


@pytest.mark.parametrize(("name", "data"), CONTENTS, ids=[name for name, _ in CONTENTS])
def test_each_line_is_the_one_the_readline_reading_gave(
    tmp_path: Path, name: str, data: bytes
) -> None:
    path = tmp_path / "data.yaml"
    path.write_bytes(data)
    lines = data.count(b"\n") + 3
    for line in range(-1, lines + 1):
        assert diagnostics._source_line(str(path), line) == reference_line(path, line), line


def test_a_file_is_read_once_for_all_its_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "units.yaml"
    path.write_bytes(b"".join(b"- {id: u%d, strength: x}\n" % n for n in range(2000)))
    opened: list[str] = []

    def counted(name: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
        opened.append(os.fspath(name))
        return open_regular(name)

    monkeypatch.setattr(diagnostics, "open_regular", counted)
    for line in range(1, 2001, 4):
        text = render_text(Finding("wrong-type", Location(str(path), line, 20), "m"))
        assert f"u{line - 1}, strength" in text
    assert opened == [str(path)]


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_bytes(b"first: 1\n")
    finding = Finding("wrong-type", Location(str(path), 1, 1), "m")
    assert "first: 1" in render_text(finding)
    path.write_bytes(b"second: 22\n")
    assert "second: 22" in render_text(finding)
    path.unlink()
    assert render_text(finding).splitlines() == [f"{path}:1:1: error[wrong-type]: m"]
