"""`countermix new`: every map kind, plain and as a series, gives a game that validates clean
and builds with no warning in English and Japanese; an existing folder is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.sheets.options import SheetOptions
from compiler.cli import main
from compiler.newgame import MAP_KINDS, NewGameError, render_game, write_game
from compiler.pipeline import build_game, check_game

KINDS = [(kind, series) for kind in MAP_KINDS for series in (False, True)]
IDS = [f"{kind}{'-series' if series else ''}" for kind, series in KINDS]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(("kind", "series"), KINDS, ids=IDS)
def test_new_game_validates_clean_in_both_languages(
    tmp_path: Path, kind: str, series: bool
) -> None:
    made = write_game(tmp_path / "my-game", kind, series)
    assert made.game_id == "my-game" and "game.yaml" in made.files
    for lang in ("en", "ja"):
        report = check_game(made.folder, build_lang=lang)
        assert report.game is not None
        assert [f.message for f in report.findings] == [], lang
    game = check_game(made.folder).game
    assert game is not None
    assert game.scenarios and game.constraints and game.charts
    assert bool(game.game.titles) == series
    if series:
        assert {s.title for s in game.scenarios} == {t.id for t in game.game.titles}


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "series"), KINDS, ids=IDS)
def test_new_game_builds_with_no_warning(tmp_path: Path, kind: str, series: bool) -> None:
    made = write_game(tmp_path / "my-game", kind, series)
    for lang in ("en", "ja"):
        report, written = build_game(made.folder, tmp_path / "build", SheetOptions(lang=lang))
        assert [f.message for f in report.findings] == [], lang
        assert written and all(module.is_file() for module in written)
    out = tmp_path / "build" / "my-game"
    # a series: one module per title, each with its own sheets and charts
    prefixes = [f"{module.stem}-" for module in written] if series else [""]
    assert len(written) == (2 if series else 1)
    for prefix in prefixes:
        assert (out / f"{prefix}charts.pdf").is_file()
        printed = {f"{prefix}{name}" for name in ("counters.pdf", "blocks.pdf", "cards.pdf")}
        assert {p.name for p in out.glob("*.pdf")} & printed


@pytest.mark.parametrize("kind", MAP_KINDS)
def test_every_game_file_is_commented(kind: str) -> None:
    files = render_game(kind, "my-game", "My Game", False)
    for name, text in files.items():
        assert text.lstrip().startswith("#"), f"{name} should open with a comment"


def test_new_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_game(tmp_path / "a" / "g", "hex", True)
    second = write_game(tmp_path / "b" / "g", "hex", True)
    assert snapshot(first.folder) == snapshot(second.folder)


def test_id_and_title_are_written_safely(tmp_path: Path) -> None:
    title = 'Odd: "quoted" #title タイトル'
    made = write_game(tmp_path / "x", "point", game_id="odd-game", title=title)
    report = check_game(made.folder)
    assert report.game is not None and report.findings == []
    assert report.game.game.id == "odd-game" and report.game.game.title.en == title


def test_an_existing_folder_is_refused_and_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "game.yaml").write_text("game: {id: mine}  # my own work\n", encoding="utf-8")
    before = snapshot(folder)
    code = main(["new", str(folder), "--map", "hex"])
    assert code == 2
    assert "already exists" in capsys.readouterr().err
    assert snapshot(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no staging folder left


def test_a_file_in_the_way_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").write_text("mine", encoding="utf-8")
    assert main(["new", str(tmp_path / "notes"), "--map", "area"]) == 2
    assert (tmp_path / "notes").read_text(encoding="utf-8") == "mine"
    assert "not a folder" in capsys.readouterr().err


def test_an_empty_folder_is_filled(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    made = write_game(tmp_path / "empty", "cards")
    assert (made.folder / "game.yaml").is_file()


@pytest.mark.parametrize(
    ("folder", "game_id", "message"),
    [
        ("ゲーム", "", "is not a game id"),
        ("ok", "Bad Id", "is not a game id"),
    ],
)
def test_bad_ids_are_usage_errors(tmp_path: Path, folder: str, game_id: str, message: str) -> None:
    with pytest.raises(NewGameError, match=message):
        write_game(tmp_path / folder, "hex", game_id=game_id)
    assert not (tmp_path / folder).exists()


def test_the_cli_tells_what_to_do_next(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", str(tmp_path / "first"), "--map", "hex", "--title", "First"]) == 0
    out = capsys.readouterr().out
    assert "game.yaml" in out
    assert f"countermix build {tmp_path / 'first'}" in out
