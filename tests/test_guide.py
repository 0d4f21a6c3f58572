"""Every example in docs/guide.md is checked: each fenced block follows a marker comment saying
how, and the check runs against a fresh game from `countermix new`.

Markers (an HTML comment on the line before the block's opening fence):

- `<!-- check: shell -->`: each line starting with `countermix ` runs (through the CLI's main)
  in one temporary folder shared by the block; it must exit 0, or the code in a trailing
  `# exit N` comment. A line `python -m zipfile ...` runs Python's zipfile command line.
- `<!-- check: parses -->`: a command that needs files of the reader's own (a save from
  VASSAL, a module): each `countermix ` line must be a valid command line (the CLI's parser
  accepts it); it is not run.
- `<!-- check: add KIND [as FILE] [expect RULE,...] [with FILE=WxH] -->`: the YAML is written
  as a new file (`guide-example.yaml`, or FILE, which must not exist yet) into a fresh game of
  KIND (hex, area, point, cards; `+series` for a series) in a folder `my-game`; `validate` must
  then report exactly the listed rule ids (none: clean). `with` puts a blank PNG of that size
  into the game first (for board art).
- `<!-- check: replace KIND FILE [expect ...] [with ...] -->`: as `add`, but the block replaces
  FILE of the fresh game.
- `<!-- check: in KIND FILE -->`: the block is an excerpt: it appears verbatim in FILE of a
  fresh game.
- `<!-- check: output -->`: a text block of findings: each of its lines that looks like
  `my-game/FILE:LINE:COL: severity[rule]: message (rules §x)` must be the first line of one of
  the previous check's findings as `countermix validate my-game` prints it.
"""

from __future__ import annotations

import os
import re
import shlex
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

from compiler.cli import _parser, main
from compiler.diagnostics import Finding, render_text
from compiler.newgame import write_game
from compiler.pipeline import check_game
from tests.conftest import REPO

GUIDE = REPO / "docs" / "guide.md"
MARKER = re.compile(r"^<!-- check: (.+?) -->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
FINDING_LINE = re.compile(r"^\S+:\d+:\d+: (error|warning)\[[a-z0-9-]+\]: .+$")


@dataclass(frozen=True)
class Example:
    line: int
    marker: str
    lang: str
    body: str

    @property
    def words(self) -> list[str]:
        return self.marker.split()


def examples(text: str) -> Iterator[Example]:
    """Every fenced block with the marker before it (None marker: an unchecked block)."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        before = lines[index - 1] if index else ""
        marker = MARKER.match(before)
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        body = "\n".join(lines[index + 1 : end]) + "\n"
        yield Example(index + 1, marker.group(1) if marker else "", fence.group(1), body)
        index = end + 1


EXAMPLES = list(examples(GUIDE.read_text(encoding="utf-8"))) if GUIDE.is_file() else []


def test_the_guide_exists_and_every_block_is_checked() -> None:
    assert EXAMPLES, "docs/guide.md has no examples"
    unchecked = [e.line for e in EXAMPLES if not e.marker]
    assert unchecked == [], f"blocks without a check marker at lines {unchecked}"


def fresh_game(tmp_path: Path, kind: str) -> Path:
    name, _, series = kind.partition("+")
    return write_game(tmp_path / "my-game", name, series == "series").folder


def options(words: list[str]) -> tuple[str, list[str], list[tuple[str, int, int]]]:
    """The file name after `as`, the rule ids after `expect` and the images after `with`."""
    name = "guide-example.yaml"
    expect: list[str] = []
    images: list[tuple[str, int, int]] = []
    for key, value in zip(words, words[1:], strict=False):
        if key == "as":
            name = value
        elif key == "expect":
            expect = sorted(value.split(","))
        elif key == "with":
            image, size = value.split("=")
            width, height = size.split("x")
            images.append((image, int(width), int(height)))
    return name, expect, images


def shown(finding: Finding, folder: Path) -> str:
    """The finding's first line as `countermix validate my-game` prints it beside my-game/."""
    cwd = Path.cwd()
    os.chdir(folder.parent)
    try:
        return render_text(finding).splitlines()[0]
    finally:
        os.chdir(cwd)


def run_data_check(example: Example, tmp_path: Path) -> tuple[Path, list[Finding]]:
    verb, kind, *rest = example.words
    folder = fresh_game(tmp_path, kind)
    if verb == "replace":
        target, rest = folder / rest[0], rest[1:]
        assert target.is_file(), f"{target.name} is not a file of a new {kind} game"
    name, expect, images = options(rest)
    if verb == "add":
        target = folder / name
        assert not target.exists(), f"guide line {example.line}: {name} is in a new {kind} game"
    for name, width, height in images:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (width, height), (230, 220, 190)).save(folder / name)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(example.body, encoding="utf-8")
    report = check_game(folder, build_lang="")
    got = sorted(f.rule for f in report.findings)
    lines = "\n".join(shown(f, folder) for f in report.findings)
    assert got == expect, f"guide line {example.line}: {lines}"
    return folder, report.findings


def run_shell(example: Example, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        for line in example.body.splitlines():
            if line.startswith("python -m zipfile "):
                zipfile.main(shlex.split(line)[3:])  # type: ignore[attr-defined]  # its CLI
                continue
            if not line.startswith("countermix "):
                continue
            command, _, comment = line.partition("#")
            code = int(comment.split()[1]) if comment.strip().startswith("exit") else 0
            args = shlex.split(command)[1:]
            try:
                got = main(args)
            except SystemExit as done:  # --version and --help exit through argparse
                got = int(done.code or 0)
            output = capsys.readouterr()
            assert got == code, f"guide line {example.line}: `{line}`\n{output.out}{output.err}"
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_guide_example(
    example: Example, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verb = example.words[0] if example.words else ""
    if verb == "shell":
        run_shell(example, tmp_path, capsys)
    elif verb == "parses":
        lines = [line for line in example.body.splitlines() if line.startswith("countermix ")]
        assert lines, f"guide line {example.line}: no command in the block"
        for line in lines:
            args = shlex.split(line.partition("#")[0])[1:]
            _parser(args).parse_args(args)
    elif verb in ("add", "replace"):
        run_data_check(example, tmp_path)
    elif verb == "in":
        folder = fresh_game(tmp_path, example.words[1])
        text = (folder / example.words[2]).read_text(encoding="utf-8")
        assert example.body.strip() in text, f"guide line {example.line}: not in {example.words[2]}"
    elif verb == "output":
        previous = EXAMPLES[EXAMPLES.index(example) - 1]
        assert previous.words[0] in ("add", "replace"), f"guide line {example.line}"
        folder, findings = run_data_check(previous, tmp_path)
        printed = {shown(f, folder) for f in findings}
        lines = [line for line in example.body.splitlines() if FINDING_LINE.match(line)]
        assert lines, f"guide line {example.line}: no finding lines in the block"
        for line in lines:
            assert line in printed, f"guide line {example.line}: {line!r} not among {printed}"
    else:
        pytest.fail(f"guide line {example.line}: unknown check `{example.marker}`")
