"""The VASSAL back end: deterministic modules, golden build files, atomic writes, bad input."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from compiler.backends.vassal.module import build_module, plan_module, write_atomically
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import DATA, SOURCES

GOLDEN = Path(__file__).parent / "golden"
GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return game


def canonical(xml: bytes) -> bytes:
    """C14N of a build file, so goldens compare structure and text, not serialisation; image
    names (content hashes) are masked, since the art has golden images of its own."""
    parser = etree.XMLParser(remove_blank_text=True)
    c14n = bytes(etree.tostring(etree.fromstring(xml, parser), method="c14n2"))
    return re.sub(rb"-[0-9a-f]{16}\.png", b"-#.png", c14n)


def test_same_sources_give_byte_identical_modules(tmp_path: Path) -> None:
    game = _game(DATA / "mini")
    first = build_module(game, tmp_path / "one").read_bytes()
    second = build_module(_game(DATA / "mini"), tmp_path / "two").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "one" / "mini" / "mini.vmod") as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert "buildFile.xml" in names and "moduledata" in names


@pytest.mark.parametrize("game_id", GAMES)
def test_build_file_matches_golden(game_id: str) -> None:
    _plan, files = plan_module(_game(SOURCES / game_id))
    got = canonical(files["buildFile.xml"])
    golden = GOLDEN / f"{game_id}.buildFile.xml"
    if os.environ.get("UPDATE_GOLDENS"):
        golden.write_bytes(got)
    assert golden.exists(), f"no golden for {game_id}: run UPDATE_GOLDENS=1 pytest {__file__}"
    assert got == golden.read_bytes(), (
        f"buildFile.xml of {game_id} changed; review, then UPDATE_GOLDENS=1 to accept"
    )


def test_failed_write_keeps_the_previous_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "game.vmod"
    target.write_bytes(b"previous")

    def disk_full(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        write_atomically(target, b"new module")
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["game.vmod"]
