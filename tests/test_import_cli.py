"""The commands of the way back, as a user runs them: `import-module` and `diff` exit codes,
one-line refusals, and nothing written where a command refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compiler.cli import main
from tests.conftest import DATA, replace_in


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def mini_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built")
    assert main(["build", str(DATA / "mini"), "--out", str(out), "--combined"]) == 0
    return out / "mini" / "mini.vmod"


def test_import_module_writes_a_game_that_validates(
    mini_module: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["import-module", str(mini_module), str(tmp_path / "mine")], capsys)
    assert code == 0, out + err
    assert out.startswith(f"wrote {tmp_path / 'mine'}/: game `mine` (")
    assert f"countermix validate {tmp_path / 'mine'}" in out
    assert run(["validate", str(tmp_path / "mine")], capsys)[0] == 0


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"not a zip", "is not a zip archive"),
        (b"PK\x03\x04" + b"\x00" * 40, "is not a zip archive"),
    ],
    ids=["text", "truncated"],
)
def test_import_module_refuses_what_is_not_a_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, says: str
) -> None:
    vmod = tmp_path / "bad.vmod"
    vmod.write_bytes(content)
    code, out, err = run(["import-module", str(vmod), str(tmp_path / "out")], capsys)
    assert code == 2 and says in err and len(err.splitlines()) == 1 and out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.vmod"]


def test_import_module_leaves_a_folder_in_use_alone(
    mini_module: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(["import-module", str(mini_module), str(tmp_path / "out")], capsys)
    assert code == 2 and "not empty" in err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["notes.txt"]


def test_diff_of_equal_games_is_zero_and_of_changed_games_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = shutil.copytree(DATA / "mini", tmp_path / "old")
    new = shutil.copytree(DATA / "mini", tmp_path / "new")
    assert run(["diff", str(old), str(new)], capsys)[:2] == (0, "no differences\n")
    replace_in(new / "units.yaml", "name: {en: 1st Infantry", "name: {en: First Infantry")
    code, out, _ = run(["diff", str(old), str(new)], capsys)
    assert code == 1
    assert "unit b-inf-1: renamed 1st Infantry / 第1歩兵 → First Infantry / 第1歩兵" in out
    code, out, _ = run(["diff", str(old), str(new), "--format", "json"], capsys)
    assert code == 1
    assert json.loads(out) == [
        {
            "kind": "renamed",
            "section": "unit",
            "id": "b-inf-1",
            "field": "name",
            "old": "1st Infantry / 第1歩兵",
            "new": "First Infantry / 第1歩兵",
            "scenario": "",
        }
    ]


def test_diff_of_a_module_with_itself_is_zero(
    mini_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", str(mini_module), str(mini_module)], capsys)[:2] == (
        0,
        "no differences\n",
    )


@pytest.mark.parametrize("name", ["missing", "notes.txt"])
def test_diff_refuses_what_is_neither_a_game_nor_a_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    code, out, err = run(["diff", str(tmp_path / name), str(DATA / "mini")], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
