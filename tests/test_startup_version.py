"""`countermix --version` without importlib.metadata: the version read from the first
`countermix-*.dist-info` on sys.path is the one importlib.metadata gives, and anything
unusual is left to importlib.metadata."""

from __future__ import annotations

import importlib.metadata
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import compiler

METADATA = "Metadata-Version: 2.1\nName: countermix\nVersion: {version}\nSummary: s\n\nbody\n"


def dist_info(folder: Path, name: str, text: str | None) -> None:
    """A distribution's metadata folder `name` in `folder` (METADATA `text`, if any)."""
    (folder / name).mkdir(parents=True)
    if text is not None:
        (folder / name / "METADATA").write_text(text, encoding="utf-8")


def plain(tmp: Path) -> None:
    dist_info(tmp / "a", "countermix-1.2.3.dist-info", METADATA.format(version="1.2.3"))


def second_folder(tmp: Path) -> None:
    (tmp / "a").mkdir(parents=True)
    dist_info(tmp / "b", "countermix-2.0.dist-info", METADATA.format(version="2.0"))
    dist_info(tmp / "c", "countermix-9.0.dist-info", METADATA.format(version="9.0"))


def capitals(tmp: Path) -> None:
    dist_info(tmp / "a", "Countermix-1.0.DIST-INFO", METADATA.format(version="1.0rc1"))


def two_here(tmp: Path) -> None:
    dist_info(tmp / "a", "countermix-1.0.dist-info", METADATA.format(version="1.0"))
    dist_info(tmp / "a", "countermix-2.0.dist-info", METADATA.format(version="2.0"))


def an_egg(tmp: Path) -> None:
    dist_info(tmp / "a", "countermix.egg-info", None)
    (tmp / "a" / "countermix.egg-info" / "PKG-INFO").write_text(
        METADATA.format(version="3.0"), encoding="utf-8"
    )


def an_egg_file(tmp: Path) -> None:
    (tmp / "a").mkdir(parents=True)
    (tmp / "a" / "countermix-3.1.egg-info").write_text(
        METADATA.format(version="3.1"), encoding="utf-8"
    )


def empty_metadata(tmp: Path) -> None:
    dist_info(tmp / "a", "countermix-1.0.dist-info", "")
    (tmp / "a" / "countermix-1.0.dist-info" / "PKG-INFO").write_text(
        METADATA.format(version="4.1"), encoding="utf-8"
    )


def no_metadata_file(tmp: Path) -> None:
    dist_info(tmp / "a", "countermix-1.0.dist-info", None)
    (tmp / "a" / "countermix-1.0.dist-info" / "PKG-INFO").write_text(
        METADATA.format(version="4.0"), encoding="utf-8"
    )


def odd_headers(tmp: Path) -> None:
    text = "Metadata-Version: 2.1\nName: countermix\nSummary: a\n  folded\nVersion:\t5.0 \n\n"
    dist_info(tmp / "a", "countermix-5.0.dist-info", text)


def version_in_the_body(tmp: Path) -> None:
    text = "Metadata-Version: 2.1\nName: countermix\n\nVersion: 6.0\n"
    dist_info(tmp / "a", "countermix-6.0.dist-info", text)


def another_distribution(tmp: Path) -> None:
    dist_info(tmp / "a", "countermixer-1.0.dist-info", METADATA.format(version="1.0"))
    dist_info(tmp / "b", "countermix-7.0.dist-info", METADATA.format(version="7.0"))


def a_zip_first(tmp: Path) -> None:
    tmp.mkdir(exist_ok=True)
    with zipfile.ZipFile(tmp / "a", "w") as archive:
        archive.writestr("countermix-8.0.dist-info/METADATA", METADATA.format(version="8.0"))
    dist_info(tmp / "b", "countermix-1.0.dist-info", METADATA.format(version="1.0"))


LAYOUTS: list[Callable[[Path], None]] = [
    plain,
    second_folder,
    capitals,
    two_here,
    an_egg,
    an_egg_file,
    empty_metadata,
    no_metadata_file,
    odd_headers,
    version_in_the_body,
    another_distribution,
    a_zip_first,
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.__name__ for layout in LAYOUTS])
def test_the_quick_version_is_importlib_metadatas_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: Callable[[Path], None]
) -> None:
    layout(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path / name) for name in ("a", "b", "c")])
    quick = compiler._version_beside_the_path()
    expected = importlib.metadata.version("countermix")
    assert quick in (None, expected)
    assert (compiler._version_beside_the_path() or compiler._version_from_metadata()) == expected


def test_the_plain_cases_need_no_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for layout, version in (
        (plain, "1.2.3"),
        (second_folder, "2.0"),
        (odd_headers, "5.0 "),
        (an_egg, "3.0"),
        (no_metadata_file, "4.0"),
    ):
        folder = tmp_path / layout.__name__
        layout(folder)
        monkeypatch.setattr(sys, "path", [str(folder / name) for name in ("a", "b", "c")])
        assert compiler._version_beside_the_path() == version


def test_the_version_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted() -> str:
        calls.append("looked up")
        return "1.0"

    monkeypatch.setattr(compiler, "_version_beside_the_path", counted)
    kept = vars(compiler).pop("__version__", None)
    try:
        from compiler import __version__

        assert __version__ == compiler.__version__ == "1.0"
        assert calls == ["looked up"]
    finally:
        vars(compiler).pop("__version__", None)
        if kept is not None:
            vars(compiler)["__version__"] = kept


def test_the_installed_version_is_the_metadatas() -> None:
    try:
        expected = importlib.metadata.version("countermix")
    except importlib.metadata.PackageNotFoundError:
        expected = "0+unknown"
    assert (compiler._version_beside_the_path() or compiler._version_from_metadata()) == expected
