"""The package as users get it: every subpackage and run-time file is in the wheel's lists, the
version comes from the metadata, and no file of the repository names a path of one machine."""

from __future__ import annotations

import fnmatch
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from compiler import __version__
from compiler.cli import main
from compiler.resources import templates_dir
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def test_every_folder_of_code_is_a_listed_package() -> None:
    code_folders = {
        ".".join(path.parent.relative_to(REPO).parts)
        for path in (REPO / "compiler").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    catalogues = {
        ".".join(path.parent.relative_to(REPO).parts)
        for path in (REPO / "compiler" / "locale").rglob("*.mo")
    }
    data_folders = {"compiler.templates"} | {
        ".".join(folder.split(".")[:depth]) for folder in catalogues for depth in (2, 3, 4)
    }
    assert set(SETUPTOOLS["packages"]) == code_folders | data_folders


def test_every_template_file_is_package_data() -> None:
    patterns = SETUPTOOLS["package-data"]["compiler.templates"]
    root = REPO / "templates"
    files = [
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.name != "__init__.py"
    ]
    assert files
    unshipped = [f for f in files if not any(fnmatch.fnmatchcase(f, p) for p in patterns)]
    assert unshipped == [], "add patterns for these to [tool.setuptools.package-data]"


def test_templates_are_found_through_the_package() -> None:
    assert (templates_dir() / "layouts.yaml").is_file()
    assert (templates_dir() / "player_aids.yaml.j2").is_file()


def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    assert __version__ == PYPROJECT["project"]["version"]
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"countermix {__version__}"


def test_licence_is_an_spdx_expression_with_its_file() -> None:
    project = PYPROJECT["project"]
    assert isinstance(project["license"], str)
    assert not any(c.startswith("License ::") for c in project["classifiers"])
    for pattern in project["license-files"]:
        assert list(REPO.glob(pattern)), pattern


MACHINE_PATHS = re.compile(
    r"(?<![\w.~-])(?:/work/|/home/[a-z]|/root/|/Users/[A-Za-z]|/mnt/[a-z]|/opt/pypi|"
    r"[A-Z]:\\\\?Users\\)"
)
"""Absolute paths that belong to one machine (a home folder, this workplace's /work)."""


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [REPO / name for name in listed.split("\0") if name]


def test_no_file_names_a_path_of_one_machine() -> None:
    offenders = []
    for path in tracked_files():
        if not path.is_file() or path.suffix in {".png", ".pdf", ".vmod", ".ttf", ".jar"}:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATHS.search(line) and path.name != "test_package.py":
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:80]}")
    assert offenders == []


@pytest.mark.parametrize(
    "line",
    [
        "# Source: /work/shared/rules/napoleon.md",
        "see /home/alice/games/x.yaml",
        "cd /root/countermix",
        r"C:\Users\bob\countermix",
    ],
)
def test_machine_path_pattern_catches(line: str) -> None:
    assert MACHINE_PATHS.search(line)


@pytest.mark.parametrize(
    "line",
    ["/usr/share/fonts/truetype/dejavu", "sources/napoleon/game.yaml", "https://x.invalid/work/"],
)
def test_machine_path_pattern_lets_through(line: str) -> None:
    assert not MACHINE_PATHS.search(line)
