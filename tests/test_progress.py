"""Progress of a build (compiler.progress), on standard error: one line per game and stage
where stderr is not a terminal, live bars where it is, nothing with --quiet, each stage's time
with -v; standard output holds what it always has (the findings and `<game>: wrote …`)."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import Progress

from compiler.cli import main
from compiler.progress import STAGES, Reporter
from tests.conftest import REPO, replace_in

LINE = re.compile(
    r"mini: (?P<stage>[a-z]+)(?P<counts> [0-9,]+ [a-z]+| \d+/\d+)?(?P<time> \(\d+\.\d\d s\))"
)


def build(
    folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str, str]:
    code = main(["build", str(folder), "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_one_line_per_stage_on_a_non_terminal_and_stdout_as_before(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = build(mini, out, capsys)
    assert code == 0
    assert stdout == f"mini: wrote {out}/mini/{{mini-aaa,mini-bbb}}.vmod\n"
    lines = stderr.splitlines()
    assert [line.split()[1] for line in lines] == list(STAGES), stderr
    assert lines[:2] == ["mini: load 5 files", "mini: validate 10 rules"]
    assert re.fullmatch(r"mini: faces \d+ faces", lines[2])
    assert lines[3:] == [
        "mini: module 2/2",
        "mini: sheets 2/2",
        "mini: charts 2/2",
        "mini: preview 2/2",  # a section per title, then the page
    ]
    code, stdout, stderr = build(mini, out, capsys)  # up to date: nothing loaded, no stage
    assert (code, stdout, stderr) == (
        0,
        f"mini: up to date {out}/mini/{{mini-aaa,mini-bbb}}.vmod\n",
        "",
    )


def test_findings_stay_on_stdout_and_the_stages_done_are_said(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_in(mini / "units.yaml", "2nd Infantry,", "2nd Infantry, strenght: 3,")
    code, stdout, stderr = build(mini, tmp_path / "out", capsys)
    assert code == 1
    assert "error[unknown-key]: unknown key `strenght`" in stdout
    assert stdout.endswith("\nmini: not built (1 error(s), 0 warning(s)); previous outputs kept\n")
    assert "mini:" not in stderr.replace("mini: load", "").replace("mini: validate", "")
    assert stderr.startswith("mini: load")


def test_quiet_prints_the_findings_only(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert build(mini, out, capsys, "--quiet") == (0, "", "")
    replace_in(mini / "units.yaml", "2nd Infantry,", "2nd Infantry, strenght: 3,")
    code, stdout, stderr = build(mini, out, capsys, "-q")
    assert code == 1 and stderr == ""
    assert stdout.startswith(f"{mini}/units.yaml:") and "error[unknown-key]" in stdout
    assert stdout.endswith("mini: not built (1 error(s), 0 warning(s)); previous outputs kept\n")


def test_verbose_gives_each_stage_its_time(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = build(mini, out, capsys, "-v")
    assert code == 0 and stdout == f"mini: wrote {out}/mini/{{mini-aaa,mini-bbb}}.vmod\n"
    matches = [LINE.fullmatch(line) for line in stderr.splitlines()]
    assert all(match and match["time"] for match in matches), stderr
    assert [match["stage"] for match in matches if match] == list(STAGES)


def test_quiet_and_verbose_do_not_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["build", "--quiet", "-v"])
    assert done.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_a_stage_reported_again_adds_to_its_time_and_ends_when_all_is_done() -> None:
    stream = io.StringIO()
    reporter = Reporter(stream, verbose=False)
    reporter.update("g", "faces", 0, 0)
    reporter.update("g", "faces", 256, 0)
    reporter.update("g", "charts", 0, 2)  # the faces (count not known) are over
    reporter.update("g", "module", 0, 2)  # the charts wait
    reporter.update("g", "module", 1, 2)
    reporter.update("g", "charts", 1, 2)
    assert stream.getvalue() == "g: faces 256 faces\n"
    reporter.update("g", "charts", 2, 2)
    assert stream.getvalue() == "g: faces 256 faces\ng: charts 2/2\n"
    reporter.finish("g")  # the module, never done: said as far as it went
    assert stream.getvalue().splitlines()[-1] == "g: module 1/2"


def test_bars_on_a_terminal_show_game_stage_and_counts() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    with Progress(console=console, transient=False, auto_refresh=False) as bars:
        reporter = Reporter(io.StringIO(), verbose=True, bars=bars)
        reporter.update("napoleon", "faces", 0, 0)
        reporter.update("napoleon", "faces", 512, 0)
        bars.refresh()
        assert "napoleon: faces" in screen.getvalue()
        reporter.update("napoleon", "module", 1, 1)
        reporter.finish("napoleon")
        assert bars.task_ids == []  # a game done leaves the display
    shown = screen.getvalue()
    assert re.search(r"napoleon: faces 512 faces \(\d+\.\d\d s\)", shown)


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_on_a_terminal_stdout_is_still_only_what_it_was(mini: Path, tmp_path: Path) -> None:
    """stderr a terminal (the bars), stdout a pipe: stdout holds exactly the build's lines."""
    out = tmp_path / "out"
    leader, follower = pty.openpty()
    shown: list[bytes] = []

    def read() -> None:  # as a terminal does, or the build would wait on a full one
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # no writer left
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "compiler", "build", str(mini), "--out", str(out)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=follower,
            env={**os.environ, "TERM": "xterm"},
            check=False,
            timeout=300,
        )
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    assert done.returncode == 0
    assert done.stdout.decode() == f"mini: wrote {out}/mini/{{mini-aaa,mini-bbb}}.vmod\n"
    screen = b"".join(shown)
    assert b"mini: " in screen and b"\x1b[" in screen  # the bars, drawn with escape codes
