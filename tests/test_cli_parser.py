"""The parser set up for the command named first parses its arguments as the full parser does
(start-up builds only that command's parser)."""

from __future__ import annotations

import argparse

import pytest

from compiler.cli import COMMANDS, _commands_for, _parser

LINES = [
    ["validate", "--format", "json", "a", "b"],
    ["build", "g", "--out", "o", "-v", "--margin", "3", "--lang", "ja", "--sources", "s"],
    ["build", "--force", "--combined", "--piece-images", "png", "--duplex", "mirror"],
    ["list"],
    ["rules", "x"],
    ["new", "d", "--map", "hex", "--series"],
    ["import-save", "g", "f.vsav", "--scenario", "s", "--replace"],
    ["import-module", "m.vmod", "out"],
    ["diff", "a", "b", "--format", "json"],
    ["schema", "-o", "x.json"],
]


def _full() -> argparse.ArgumentParser:
    return _parser(["--help"])


@pytest.mark.parametrize("argv", LINES, ids=lambda argv: argv[0])
def test_one_command_parses_as_the_full_parser(argv: list[str]) -> None:
    assert _commands_for(argv) == [argv[0]]
    assert vars(_parser(argv).parse_args(argv)) == vars(_full().parse_args(argv))


def test_every_command_has_a_line_here() -> None:
    assert sorted({line[0] for line in LINES}) == sorted(COMMANDS)


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"], ["bogus"], ["--sources", "x"]])
def test_anything_else_gets_every_command(argv: list[str]) -> None:
    assert _commands_for(argv) == list(COMMANDS)


def test_the_version_needs_no_command() -> None:
    assert _commands_for(["--version"]) == []
