"""Output faults, interrupted and concurrent builds, and games that share an id: one clear
message with the right exit code, never a traceback, and build/<game>/ always one whole set."""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from compiler import interrupts
from compiler.backends import files
from compiler.backends.art import fonts
from compiler.cli import main
from scripts.killtest import GAME, Bench, command, one_round, set_version, snapshot
from tests.conftest import DATA, replace_in


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    if args[:1] == ["build"]:
        args = [*args, "--quiet"]  # no progress lines: stderr holds the one message under test
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The fixture game built once into tmp/out (the previous set of the tests below)."""
    code, out, _ = run(["build", str(DATA / "mini"), "--out", str(tmp_path / "out")], capsys)
    assert code == 0, out
    return tmp_path / "out"


# ---- output faults ----------------------------------------------------------------------------


def test_out_naming_a_file_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("mine", encoding="utf-8")
    code, _, err = run(["build", str(DATA / "mini"), "--out", str(tmp_path / "file")], capsys)
    assert code == 2
    assert err.startswith(f"countermix: cannot write {tmp_path / 'file'}")
    assert len(err.splitlines()) == 1
    assert (tmp_path / "file").read_text(encoding="utf-8") == "mine"


def test_a_file_where_the_game_folder_goes_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mini").write_text("my notes", encoding="utf-8")
    code, _, err = run(["build", str(DATA / "mini"), "--out", str(out)], capsys)
    assert code == 2 and f"cannot write {out / 'mini'}" in err
    assert (out / "mini").read_text(encoding="utf-8") == "my notes"


@pytest.mark.parametrize(
    ("where", "code"),
    [
        ("tempfile.mkstemp", errno.ENOSPC),  # the disk fills while an output is written
        ("tempfile.mkdtemp", errno.EROFS),  # the output folder is read-only
        ("files._exchange", errno.EACCES),  # the swap is refused
    ],
)
def test_a_write_fault_keeps_the_previous_set(
    built: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
    code: int,
) -> None:
    before = snapshot(built / "mini")
    module, name = where.split(".")

    def fail(*args: object, **kwargs: object) -> object:
        raise OSError(code, os.strerror(code), str(built / "mini"))

    monkeypatch.setattr(files if module == "files" else getattr(files, module), name, fail)
    exit_code, _, err = run(["build", str(DATA / "mini"), "--out", str(built), "--force"], capsys)
    assert exit_code == 2
    assert err == f"countermix: cannot write {built / 'mini'}: {os.strerror(code)}\n"
    monkeypatch.undo()
    assert snapshot(built / "mini") == before


def test_a_read_only_cache_is_one_message(
    built: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from compiler.backends import rendercache

    def refuse(path: Path, data: bytes) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(rendercache, "_replace", refuse)
    shutil.rmtree(built / ".cache")  # every face is drawn again and must go to the cache
    code, _, err = run(["build", str(DATA / "mini"), "--out", str(built)], capsys)
    assert code == 2 and "cannot write" in err and ".cache" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "option",
    [
        ["--margin", "nan"],
        ["--bleed", "nan"],
        ["--gutter", "-1"],
        ["--margin", "inf"],
        ["--back-offset", "nan,0"],
        ["--counter-size", "0mm"],
        ["--card-size", "0x88mm"],
    ],
)
def test_bad_numbers_on_the_command_line_exit_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    args = ["build", str(DATA / "mini"), "--out", str(tmp_path / "out"), *option]
    try:
        code = main(args)
    except SystemExit as done:  # argparse rejects the value
        code = int(done.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.strip()
    assert not (tmp_path / "out" / "mini").exists()


@pytest.mark.parametrize("value", [".nan", ".inf", "1e400"])
def test_a_number_that_is_not_finite_in_the_print_settings_is_a_finding(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    replace_in(
        mini / "game.yaml",
        "    max_manpower: 18\n",
        f"    max_manpower: 18\n  print: {{bleed_mm: {value}}}\n",
    )
    code, out, _ = run(["build", str(mini), "--out", str(tmp_path / "out")], capsys)
    assert code == 1 and ("error[print-settings]" in out or "error[wrong-type]" in out), out
    assert "game.yaml:32:" in out
    assert not (tmp_path / "out" / "mini").exists()


# ---- identity ---------------------------------------------------------------------------------


def test_two_games_with_one_id_are_an_error_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games"
    shutil.copytree(DATA / "mini", games / "first")
    shutil.copytree(DATA / "mini", games / "second")
    code, out, _ = run(["validate", str(games)], capsys)
    assert code == 1 and out.count("error[duplicate-id]: game id `mini`") == 2
    code, out, _ = run(["build", str(games), "--out", str(tmp_path / "out")], capsys)
    assert code == 1 and out.count("error[duplicate-id]: game id `mini`") == 2
    assert not (tmp_path / "out" / "mini").exists()


# ---- interrupted and concurrent builds --------------------------------------------------------


def test_a_ctrl_c_a_library_turns_into_its_own_error_is_still_an_interrupt(
    built: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library catches the KeyboardInterrupt and raises an error of its own (as reportlab's
    font parser did: "Corrupt TTF file")."""
    before = snapshot(built / "mini")
    monkeypatch.setattr(interrupts, "_seen", False)

    def parse_font(font: fonts.FontFile) -> object:
        interrupts.note()  # what the Ctrl-C handler does before it raises
        raise LibraryError(f"Corrupt TTF file {font.name!r} cannot read Table Directory")

    # every build finds its fonts (a warm one may parse none: their subsets are kept)
    monkeypatch.setattr(fonts, "font_path", parse_font)
    code, _, err = run(["build", str(DATA / "mini"), "--out", str(built), "--force"], capsys)
    assert (code, err) == (130, "countermix: interrupted\n")
    assert snapshot(built / "mini") == before


class LibraryError(Exception):
    """A library's own error."""


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Bench:
    return Bench.make(tmp_path_factory.mktemp("kill"))


def test_ctrl_c_during_a_build_is_one_line_and_130(bench: Bench) -> None:
    out = bench.work / "ctrl-c"
    process = subprocess.Popen(
        command(out), cwd=bench.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(bench.seconds * 0.6)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode in (0, 130), err
    if process.returncode == 130:
        assert err.decode() == "countermix: interrupted\n"


@pytest.mark.slow
def test_builds_killed_at_random_moments_leave_one_whole_set(bench: Bench) -> None:
    rng = random.Random(20261201)
    failures = [
        failure
        for number in range(40)
        if (failure := one_round(bench, rng, changed=number % 2 == 0)) is not None
    ]
    assert failures == []


@pytest.mark.slow
def test_two_builds_at_once_end_with_one_complete_set(bench: Bench) -> None:
    set_version(bench.work / GAME, True)
    out = bench.work / "together"
    first, second = (
        subprocess.Popen(
            command(out), cwd=bench.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    )
    results = [p.communicate(timeout=120) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, results
    assert snapshot(out / GAME) == bench.references[1]
    assert not [p for p in out.iterdir() if p.name.startswith(f".{GAME}.")]


def test_a_swap_cut_short_is_undone_by_the_next_build(tmp_path: Path) -> None:
    target = tmp_path / "game"
    aside = tmp_path / ".game.old"
    aside.mkdir()
    (aside / "game.vmod").write_bytes(b"previous")
    (tmp_path / ".game.x1y2z3w4.new").mkdir()
    files.recover(target)
    assert (target / "game.vmod").read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game"]


# ---- what a build may replace -----------------------------------------------------------------


def test_out_pointing_at_the_game_sources_replaces_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games"
    shutil.copytree(DATA / "mini", games / "mini")
    (games / "mini" / "NOTES.txt").write_text("mine", encoding="utf-8")
    before = snapshot(games / "mini")
    code, _, err = run(["build", str(games / "mini"), "--out", str(games)], capsys)
    assert code == 2 and "holds files countermix did not write" in err
    assert snapshot(games / "mini") == before


def test_a_file_of_the_user_in_the_output_folder_is_kept(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (built / "mini" / "my-notes.txt").write_text("mine", encoding="utf-8")
    before = snapshot(built / "mini")
    code, _, err = run(["build", str(DATA / "mini"), "--out", str(built)], capsys)
    assert code == 2 and "my-notes.txt" in err
    assert snapshot(built / "mini") == before


def test_recovery_of_one_game_leaves_another_games_staging_alone(tmp_path: Path) -> None:
    other = tmp_path / ".g.x.abcd1234.new"  # game `g.x` is being built
    other.mkdir()
    mine = tmp_path / ".g.wxyz_789.new"  # a leftover of game `g`
    mine.mkdir()
    files.recover(tmp_path / "g")
    assert other.is_dir() and not mine.exists()


def test_new_in_a_folder_that_cannot_be_written_is_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    code, _, err = run(["new", str(tmp_path / "game"), "--map", "hex"], capsys)
    assert code == 2 and err.startswith("countermix: cannot write") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_full_standard_output_is_one_message() -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [*command(Path("unused"))[:3], "list", str(DATA / "mini")],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr.decode().startswith("countermix: cannot write standard output")
