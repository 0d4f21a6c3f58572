"""Bad input: each gives one clear finding at file:line:col, never a traceback or a hang."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.load.yamlread import read_yaml
from tests.conftest import REPO, findings_of, flat

BOMB = """\
a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
units: [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""

BAD_FILES: list[tuple[str, bytes, str, int, int]] = [
    # (name, content, rule, line, column)
    ("syntax", b"units:\n  - {id: a, name: [unclosed\n", "yaml-syntax", 3, 1),
    ("tab", b"units:\n\t- id: a\n", "yaml-syntax", 2, 1),
    ("empty", b"", "empty-file", 1, 1),
    ("comments only", b"# nothing here\n", "empty-file", 1, 1),
    ("shift-jis", "units:\n  - name: 歩兵\n".encode("shift_jis"), "not-utf8", 2, 11),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary-file", 3, 1),
    ("alias bomb", BOMB.encode(), "alias-bomb", 1, 1),
    ("recursive alias", b"units: &a\n  - *a\n", "reference-cycle", 1, 8),
    ("deep nesting", b"units: " + b"[" * 20000 + b"]" * 20000, "yaml-syntax", 1, 1007),
    ("list at top", b"- a\n- b\n", "wrong-type", 1, 1),
    ("not a section", b"unitz: []\n", "unknown-key", 1, 1),
]


@pytest.mark.parametrize(
    ("name", "content", "rule", "line", "column"), BAD_FILES, ids=[case[0] for case in BAD_FILES]
)
def test_bad_file_gives_one_clear_finding(
    mini: Path, name: str, content: bytes, rule: str, line: int, column: int
) -> None:
    """The bad file's finding is the game's only one: no cascade from what it failed to hold."""
    bad = mini / "bad.yaml"
    bad.write_bytes(content)
    found = findings_of(mini)
    assert [(f.location.path, f.rule, f.location.line, f.location.column) for f in found] == [
        (str(bad), rule, line, column)
    ]
    assert found[0].message


def test_huge_file_is_refused_without_reading_it(mini: Path) -> None:
    huge = mini / "huge.yaml"
    with open(huge, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB on paper, nothing on disk
    assert flat(mini, findings_of(mini)) == {("huge.yaml", 1, "file-too-large")}


def test_missing_file() -> None:
    result = read_yaml("/nonexistent/game.yaml")
    assert result.finding is not None and result.finding.rule == "file-unreadable"


def test_folder_without_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty-game").mkdir()
    assert main(["validate", str(tmp_path / "empty-game")]) == 1
    assert "file-unreadable" in capsys.readouterr().out


def test_unknown_game_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--sources", str(REPO / "tests" / "data"), "nosuchgame"]) == 2
    err = capsys.readouterr().err
    assert "no game `nosuchgame`" in err and "mini" in err


def test_no_game_section(mini: Path) -> None:
    (mini / "game.yaml").unlink()
    rules = {f.rule for f in findings_of(mini)}
    assert rules == {"missing-section"}


def _snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[str(path.relative_to(folder))] = (digest, os.stat(path).st_mtime_ns)
    return out


def test_validate_writes_nothing_under_the_sources(mini: Path) -> None:
    (mini / "bad.yaml").write_bytes(BOMB.encode())
    before = _snapshot(mini.parent)
    result = subprocess.run(
        [sys.executable, "-m", "compiler", "validate", "--sources", str(mini.parent)],
        capture_output=True,
        text=True,
        cwd=mini.parent,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "error[alias-bomb]" in result.stdout
    assert _snapshot(mini.parent) == before
