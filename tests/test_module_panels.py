"""Tray panels kept whole between builds (buildfile._panel_run, PieceTexts.lines and
lists_of): a warm build looks up one entry per run of panels; a panel whose pieces changed is
made again, the others of its run read on their own; the build file is the one a build
without a pack writes."""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.rendercache import AGE_LIMIT
from compiler.backends.vassal import pieces as pc
from compiler.backends.vassal.buildfile import ModulePlan, build_file, build_file_xml
from compiler.backends.vassal.encode import Trait
from compiler.backends.vassal.module import assemble, render_plan
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.xml import serialise
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from compiler.model.units import Unit
from tests.conftest import replace_in

Traits = list[Trait]
RENAME = ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return with_aids(game)[0]


@pytest.fixture
def counters(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ids of the units whose counter traits are made (pieces.counter_traits, which still
    runs): every tray slot and placed piece made rather than kept."""
    made: list[str] = []
    real = pc.counter_traits

    def counter_traits(game: GameData, unit: Unit, images: pc.Images, **kwargs: Any) -> Traits:
        made.append(unit.id)
        return real(game, unit, images, **kwargs)

    monkeypatch.setattr(pc, "counter_traits", counter_traits)
    yield made


def test_only_the_panel_of_a_changed_unit_is_made_again(
    mini: Path, tmp_path: Path, counters: list[str]
) -> None:
    pieces = tmp_path / "cache" / "pieces.pack"
    plan, images = render_plan(_game(mini))
    first = assemble(plan, images, pieces)
    everyone = set(counters)
    assert everyone  # every counter made once, the pack filled
    counters.clear()
    assert assemble(plan, images, pieces) == first
    assert counters == []  # every panel and save from the pack
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    plan, images = render_plan(_game(mini))
    warm = assemble(plan, images, pieces)
    assert "b-inf-2" in counters and set(counters) < everyone  # its panel, not every one
    assert warm == assemble(plan, images)  # what a build without the pack writes
    assert warm["buildFile.xml"] == serialise(build_file(plan))  # and the tree as lxml writes it


def test_a_panel_kept_is_read_back_whole(tmp_path: Path) -> None:
    pack = tmp_path / "pieces.pack"
    texts = PieceTexts(pack, "game")
    lines = ["Flip", '<slot entryName="a"/>', "text\nwith a newline"]
    assert texts.lines(lambda: list(lines), "panel", ["a"]) == lines
    texts.save()

    def not_again() -> list[str]:
        raise AssertionError("made again")

    assert PieceTexts(pack, "game").lines(not_again, "panel", ["a"]) == lines


@pytest.mark.parametrize(
    "kept",
    [b"", b"not marshal", b"\xe9\x01\x00\x00\x00", bytes([0x5B, 1, 0, 0, 0, 0xE9, 1, 0, 0, 0])],
    ids=["empty", "garbage", "an-int", "a-list-of-ints"],
)
def test_an_entry_that_is_not_a_list_of_texts_is_made_again(tmp_path: Path, kept: bytes) -> None:
    """Whatever the pack holds under a panel's key, what is served is a list of texts: one
    that does not read back as one is made again."""
    pack = tmp_path / "pieces.pack"
    texts = PieceTexts(pack, "game")
    texts.data(lambda: kept, "panel", ["a"])
    texts.save()
    made: Callable[[], list[str]] = lambda: ["", "<slot/>"]  # noqa: E731
    assert PieceTexts(pack, "game").lines(made, "panel", ["a"]) == ["", "<slot/>"]


def test_the_build_file_from_kept_panels_is_the_tree_lxml_writes(
    mini: Path, tmp_path: Path
) -> None:
    plan, _images = render_plan(_game(mini))
    plan.piece_texts = PieceTexts(tmp_path / "pieces.pack", "game")
    made = build_file_xml(plan)
    plan.piece_texts.save()
    plan.piece_texts = PieceTexts(tmp_path / "pieces.pack", "game")
    assert build_file_xml(plan) == made == serialise(build_file(plan))


def test_a_run_of_panels_kept_whole_reads_no_panel_on_its_own(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm build reads the tray panels by runs (buildfile._panel_run): one entry a run, no
    panel's own."""
    plan, _images = render_plan(_game(mini))
    plan.piece_texts = PieceTexts(tmp_path / "pieces.pack", "game")
    made = build_file_xml(plan)
    plan.piece_texts.save()

    def one_by_one(*args: object) -> list[str]:
        raise AssertionError("a panel read on its own")

    monkeypatch.setattr(PieceTexts, "lines", one_by_one)
    plan.piece_texts = PieceTexts(tmp_path / "pieces.pack", "game")
    assert build_file_xml(plan) == made


def test_panels_of_a_run_kept_whole_do_not_age(
    mini: Path, tmp_path: Path, counters: list[str]
) -> None:
    """Builds that read a run whole keep its panels' own entries: when a unit changes after
    more builds than an unused entry lives, only its panel is made again."""
    pack = tmp_path / "pieces.pack"

    def built(plan: ModulePlan) -> bytes:
        plan.piece_texts = PieceTexts(pack, "game")
        made = build_file_xml(plan)
        plan.piece_texts.save()
        return made

    plan, _images = render_plan(_game(mini))
    for _build in range(AGE_LIMIT + 3):
        built(plan)
    everyone = set(counters)
    counters.clear()
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    plan, _images = render_plan(_game(mini))
    warm = built(plan)
    assert "b-inf-2" in counters and set(counters) < everyone
    plan.piece_texts = PieceTexts()
    assert warm == build_file_xml(plan)


@pytest.mark.parametrize(
    "kept",
    [
        b"not marshal",
        marshal.dumps(["a"]),
        marshal.dumps([["a"]]),  # one list where two are asked for
        marshal.dumps([["a"], []]),  # an empty panel: no menu commands' line
        marshal.dumps([["a"], ["b", 1]]),
    ],
    ids=["garbage", "texts", "too-few", "an-empty-list", "not-texts"],
)
def test_a_run_entry_that_is_not_lists_of_texts_is_made_again(tmp_path: Path, kept: bytes) -> None:
    pack = tmp_path / "pieces.pack"
    texts = PieceTexts(pack, "game")
    key = texts.digest("panel run", ["a", "b"])
    texts.data(lambda: kept, "panel run", ["a", "b"])  # the bytes kept under `key`
    texts.save()
    made = [["", "<slot/>"], ["Flip", "<slot/>"]]
    assert PieceTexts(pack, "game").lists_of(key, lambda: made, 2) == made


def test_a_damaged_run_entry_is_made_again(tmp_path: Path) -> None:
    """An entry whose bytes in the pack no longer match its checksum is a miss."""
    pack = tmp_path / "pieces.pack"
    texts = PieceTexts(pack, "game")
    key = texts.digest("panel run", ["a"])
    assert texts.lists_of(key, lambda: [["", "<slot/>"]], 1) == [["", "<slot/>"]]
    texts.save()
    data = bytearray(pack.read_bytes())
    data[-3] ^= 0xFF
    pack.write_bytes(bytes(data))
    assert PieceTexts(pack, "game").lists_of(key, lambda: [["Flip", "<x/>"]], 1) == [
        ["Flip", "<x/>"]
    ]


def test_a_text_digest_is_no_digest_of_parts(tmp_path: Path) -> None:
    """`text_digest` keys never meet `digest`'s, differ by kind and text, and are empty
    without a pack (nothing kept)."""
    texts = PieceTexts(tmp_path / "pieces.pack", "game")
    token = "slot\x1fa\x1fb\x1e'name'"
    found = {
        texts.text_digest("panel-2", token),
        texts.text_digest("panel-3", token),
        texts.text_digest("panel-2", token + "x"),
        texts.digest("panel-2", token),
    }
    assert len(found) == 4
    assert PieceTexts().text_digest("panel-2", token) == ""
