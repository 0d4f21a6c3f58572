"""Builds with nothing changed do nothing (compiler.buildstamp): the second build of a game
loads nothing and prints the same lines; any change of an input, an option or an output, and a
stamp that cannot be trusted, means a full build; outputs are those of a cold build."""

from __future__ import annotations

import json
import marshal
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from compiler import buildstamp, cli, newgame, pipeline
from compiler.cli import main
from compiler.load import aids, game
from compiler.resources import templates_dir
from tests.conftest import DATA, replace_in

LONG = "Extraordinarily Overlong Provisional Division of the Line " * 3


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders the loader reads from here on."""
    seen: list[Path] = []
    real = game.load_game

    def spy(folder: Path, kept: Path | None = None) -> game.LoadResult:
        seen.append(folder)
        return real(folder, kept)

    monkeypatch.setattr(game, "load_game", spy)
    return seen


@pytest.fixture
def warned(mini: Path) -> Path:
    """The fixture game with a board picture and a name the faces must shorten (a warning)."""
    replace_in(mini / "units.yaml", "2nd Infantry,", f"{LONG.strip()},")
    replace_in(mini / "map.yaml", "    kind: hex\n", "    kind: hex\n    art: {image: board.png}\n")
    Image.new("RGB", (40, 30), "#e8e0c8").save(mini / "board.png")
    return mini


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code, text = run(["build", str(folder), "--out", str(out), *extra], capsys)
    assert code == 0, text
    return text


def test_a_second_build_loads_nothing_and_says_the_same(
    warned: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], loads: list[Path]
) -> None:
    out = tmp_path / "out"
    first = build(warned, out, capsys)
    assert (
        "warning[text-overflow]" in first
        and f"mini: wrote {out}/mini/{{mini-aaa,mini-bbb}}.vmod" in first
    )
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "mini").iterdir()}
    loads.clear()
    second = build(warned, out, capsys)
    assert loads == []
    assert second == first.replace("mini: wrote ", "mini: up to date ")
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "mini").iterdir()}
    assert after == before


def test_a_touched_input_with_the_same_content_is_still_up_to_date(
    warned: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], loads: list[Path]
) -> None:
    build(warned, tmp_path / "out", capsys)
    for path in (warned / "units.yaml", warned / "board.png"):
        path.write_bytes(path.read_bytes())
    loads.clear()
    assert "mini: up to date" in build(warned, tmp_path / "out", capsys)
    assert loads == []


def test_a_build_hashes_only_the_inputs_that_changed(
    warned: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An input the last stamp recorded with its size and mtime as they are is not hashed
    again (the tool's code, its libraries, the fonts); the game's files, written just now,
    are (an mtime within RACY_SECONDS cannot tell two versions apart)."""
    out = tmp_path / "out"
    build(warned, out, capsys)
    _edit_data(warned, out)
    hashed: list[str] = []
    real = buildstamp._hash

    def spy(path: str) -> tuple[object, str]:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(buildstamp, "_hash", spy)
    monkeypatch.setattr(buildstamp, "_known", {})  # as in a new process
    assert "mini: wrote" in build(warned, out, capsys)
    assert hashed and all(Path(path).is_relative_to(warned) for path in hashed), hashed


def _edit_data(folder: Path, out: Path) -> None:
    replace_in(folder / "units.yaml", "1st Infantry", "1st Grenadiers")


def _same_size_edit(folder: Path, out: Path) -> None:
    replace_in(folder / "units.yaml", "1st Infantry", "1st Infantrx")


def _new_data_file(folder: Path, out: Path) -> None:
    (folder / "scenarios" / "notes.yaml").write_text("units: []\n", encoding="utf-8")


def _edit_art(folder: Path, out: Path) -> None:
    Image.new("RGB", (40, 30), "#5a8a4a").save(folder / "board.png")


def _own_template(folder: Path, out: Path) -> None:
    shutil.copy(templates_dir() / aids.TEMPLATE_NAME, folder)


def _delete_output(folder: Path, out: Path) -> None:
    (out / "mini" / "mini-bbb-charts.pdf").unlink()


def _edit_output(folder: Path, out: Path) -> None:
    with (out / "mini" / "mini-aaa.vmod").open("ab") as module:
        module.write(b"\0")


def _corrupt_stamp(folder: Path, out: Path) -> None:
    (stamp,) = (out / ".cache" / buildstamp.STAMPS).iterdir()
    stamp.write_bytes(stamp.read_bytes()[:100])


def _forged_stamp(folder: Path, out: Path) -> None:
    """A stamp whose recorded digest of an input does not add up."""
    (stamp,) = (out / ".cache" / buildstamp.STAMPS).iterdir()
    data = json.loads(stamp.read_text(encoding="utf-8"))
    entry = data["inputs"][str(folder / "units.yaml")]
    entry[2] = "0" * 64
    stamp.write_text(json.dumps(data), encoding="utf-8")


def _deleted_stamp(folder: Path, out: Path) -> None:
    shutil.rmtree(out / ".cache")


def _deleted_outputs_record(folder: Path, out: Path) -> None:
    buildstamp.outputs_path(out, folder).unlink()


def _damaged_outputs_record(folder: Path, out: Path) -> None:
    record = buildstamp.outputs_path(out, folder)
    record.write_bytes(record.read_bytes()[:-3])


def _outputs_record_of_another_build(folder: Path, out: Path) -> None:
    """A record true of the folder as it is (each file's size, mtime and inode, in another
    order and spelling), but not the one the stamp names."""
    record = buildstamp.outputs_path(out, folder)
    files = sorted((out / "mini").iterdir(), reverse=True)
    now = {p.name: (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_ino) for p in files}
    assert marshal.dumps(now) != record.read_bytes()
    record.write_bytes(marshal.dumps(now))


@pytest.mark.parametrize(
    "change",
    [
        _edit_data,
        _same_size_edit,
        _new_data_file,
        _edit_art,
        _own_template,
        _delete_output,
        _edit_output,
        _corrupt_stamp,
        _forged_stamp,
        _deleted_stamp,
        _deleted_outputs_record,
        _damaged_outputs_record,
        _outputs_record_of_another_build,
    ],
)
def test_any_change_means_a_full_build(
    warned: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    loads: list[Path],
    change: Callable[[Path, Path], None],
) -> None:
    out = tmp_path / "out"
    build(warned, out, capsys)
    change(warned, out)
    loads.clear()
    code, text = run(["build", str(warned), "--out", str(out)], capsys)
    assert loads == [warned], text
    assert "up to date" not in text
    if code == 0:  # built again, and then up to date
        loads.clear()
        assert "mini: up to date" in build(warned, out, capsys)
        assert loads == []


@pytest.mark.parametrize(
    "options",
    [["--lang", "ja"], ["--piece-images", "png"], ["--paper", "Letter"], ["--no-cut-marks"]],
)
def test_another_option_means_a_full_build(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    loads: list[Path],
    options: list[str],
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    loads.clear()
    assert "mini: wrote" in build(mini, out, capsys, *options)
    assert loads == [mini]
    assert "mini: up to date" in build(mini, out, capsys, *options)
    assert "mini: wrote" in build(mini, out, capsys)


def test_force_builds_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], loads: list[Path]
) -> None:
    build(mini, tmp_path / "out", capsys)
    loads.clear()
    assert "mini: wrote" in build(mini, tmp_path / "out", capsys, "--force")
    assert loads == [mini]


def test_the_outputs_are_those_of_a_cold_build(
    warned: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warm = tmp_path / "warm"
    build(warned, warm, capsys)
    _edit_data(warned, warm)
    build(warned, warm, capsys)
    replace_in(warned / "units.yaml", "1st Grenadiers", "1st Infantry")
    assert "mini: wrote" in build(warned, warm, capsys)
    assert "mini: up to date" in build(warned, warm, capsys)
    cold = tmp_path / "cold"
    build(warned, cold, capsys)
    assert snapshot(warm / "mini") == snapshot(cold / "mini")


def test_a_game_with_errors_is_never_up_to_date(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], loads: list[Path]
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    replace_in(mini / "scenarios" / "first.yaml", "fatigue: 0", "fatigue: 7")
    for _ in range(2):
        loads.clear()
        code, text = run(["build", str(mini), "--out", str(out)], capsys)
        assert code == 1 and "mini: not built" in text and loads == [mini]


def test_an_up_to_date_game_still_clashes_with_a_new_one_of_its_id(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    build(mini, out, capsys)
    before = snapshot(out / "mini")
    other = tmp_path / "other"
    shutil.copytree(mini, other)
    code, text = run(["build", str(mini), str(other), "--out", str(out)], capsys)
    assert code == 1 and text.count("error[duplicate-id]") == 2
    assert snapshot(out / "mini") == before


def test_the_copies_of_shared_names_agree() -> None:
    assert pipeline.YAML_SUFFIXES == game.YAML_SUFFIXES
    assert cli.MAP_KINDS == newgame.MAP_KINDS


def test_the_command_line_starts_without_the_back_ends() -> None:
    """`--version`, and the check of a stamp, import no back end, loader or library (nor
    the package metadata machinery, which only `--version` needs)."""
    code = (
        "import sys; from pathlib import Path; import compiler.cli, compiler.pipeline;"
        "from compiler import buildstamp;"
        "buildstamp.fresh(Path('sources/napoleon'), Path('build'), buildstamp.settings({}, 'svg'));"
        "heavy = ('PIL', 'reportlab', 'lxml', 'jinja2', 'yaml');"
        "print([m for m in sys.modules if m.split('.')[0] in heavy"
        " or m.startswith(('compiler.load', 'compiler.rules', 'compiler.model',"
        " 'compiler.backends', 'compiler.importing', 'compiler.semdiff', 'importlib.metadata'))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=DATA.parent
    )
    assert done.stdout.strip() == "[]", done.stdout
