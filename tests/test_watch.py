"""`countermix build --watch` (compiler.watch): a change to a game's files builds it again, a
file the build does not read does not, a broken edit prints its findings and the watch goes
on with the previous outputs kept, and Ctrl-C ends it with one line and exit 130."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from compiler import buildstamp
from compiler.cli import main
from compiler.pipeline import build_games, is_output_name
from compiler.watch import WATCH_NAME, Sources, watch_script
from tests.conftest import REPO, replace_in

BUILD_SECONDS = 180.0
"""The longest a build of the fixture game may take on a loaded machine."""
QUIET_SECONDS = 2.0
"""Longer than a change takes to be acted on (compiler.watch.QUIET_MS, GATHER_MS)."""


class Lines:
    """A child's output, line by line, as it comes."""

    def __init__(self, stream: IO[str]) -> None:
        self.seen: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stream = stream
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def close(self) -> None:
        """Once the child has ended: the reader done, the pipe closed."""
        self._reader.join(timeout=30)
        self._stream.close()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def wait_for(self, needle: str, timeout: float = BUILD_SECONDS) -> str:
        ends = time.monotonic() + timeout
        while (left := ends - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no line with {needle!r}; seen:\n{''.join(self.seen)}")

    def drain(self, quiet: float = 0.5) -> None:
        """Take in the lines already written (until none comes for `quiet` seconds)."""
        while True:
            try:
                line = self._lines.get(timeout=quiet)
            except queue.Empty:
                return
            if line is None:
                return
            self.seen.append(line)

    def rest(self, timeout: float = 30.0) -> list[str]:
        """The lines until the stream ends."""
        ends = time.monotonic() + timeout
        found: list[str] = []
        while (left := ends - time.monotonic()) > 0:
            line = self._lines.get(timeout=left)
            if line is None:
                return found
            found.append(line)
        raise AssertionError(f"the stream did not end; seen:\n{''.join(found)}")


class Watching:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.process = process
        self.out = Lines(process.stdout)
        self.err = Lines(process.stderr)

    def interrupt(self) -> tuple[int, list[str]]:
        """Ctrl-C: the exit code and what stderr said after it."""
        self.err.drain()  # what the last build said, before the Ctrl-C
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=60), self.err.rest()


@pytest.fixture
def watching(mini: Path, tmp_path: Path) -> Iterator[Watching]:
    """`countermix build MINI --out OUT --watch`, once its first build is done."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "compiler",
            "build",
            str(mini),
            "--out",
            str(tmp_path / "out"),
            "--watch",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watched = Watching(process)
    try:
        watched.out.wait_for("mini: wrote ")
        watched.err.wait_for("countermix: watching 1 game for changes")
        yield watched
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=60)
        watched.err.drain()
        watched.out.close()
        watched.err.close()
        sys.stderr.write("".join(watched.err.seen))  # shown when the test fails


def generation(out: Path) -> int:
    found = re.search(r"\}\)\((\d+)\);", (out / "mini" / WATCH_NAME).read_text(encoding="ascii"))
    assert found is not None
    return int(found.group(1))


def test_an_edit_builds_again_and_a_file_the_build_does_not_read_does_not(
    watching: Watching, mini: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = generation(out)
    (mini / "NOTES.txt").write_text("my notes", encoding="utf-8")
    (mini / ".units.yaml.swp").write_bytes(b"an editor's")
    time.sleep(QUIET_SECONDS)
    replace_in(mini / "units.yaml", "2nd Infantry,", "3rd Infantry,")
    watching.out.wait_for("mini: wrote ")
    assert generation(out) > first
    assert (out / "mini" / WATCH_NAME).read_bytes() == watch_script(generation(out))
    code, after = watching.interrupt()
    assert (code, after) == (130, ["countermix: interrupted\n"])
    # one build for the edit: the notes and the editor's file were no change
    assert [line for line in watching.err.seen if "changed:" in line] == [
        "countermix: changed: mini; building\n"
    ]
    assert [line for line in watching.out.seen if ": wrote " in line] == [
        f"mini: wrote {out}/mini/{{mini-aaa,mini-bbb}}.vmod\n"
    ] * 2


def test_a_broken_edit_prints_its_findings_and_the_watch_goes_on(
    watching: Watching, mini: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    before = {p.name: p.read_bytes() for p in (out / "mini").iterdir()}
    replace_in(mini / "units.yaml", "2nd Infantry,", "2nd Infantry, strenght: 3,")
    line = watching.out.wait_for("mini: not built (")
    assert line.endswith("; previous outputs kept\n")
    assert any("units.yaml:" in seen and "error[" in seen for seen in watching.out.seen)
    assert {p.name: p.read_bytes() for p in (out / "mini").iterdir()} == before
    replace_in(mini / "units.yaml", "2nd Infantry, strenght: 3,", "3rd Infantry,")
    watching.out.wait_for("mini: wrote ")
    assert generation(out) > int(re.findall(rb"\((\d+)\);", before[WATCH_NAME])[-1])
    code, after = watching.interrupt()
    assert (code, after) == (130, ["countermix: interrupted\n"])


# ---- which changes touch a game -------------------------------------------------------------


def test_the_changes_that_touch_a_game(mini: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    out = mini / "out"  # an output folder inside the game folder is never a change
    sources = Sources([mini, other], out)
    stamp = buildstamp.stamp_path(out, mini)
    stamp.parent.mkdir(parents=True)
    stamp.write_text(json.dumps({"inputs": {str(mini / "art" / "board.png"): None}}))
    sources.built([mini], failed=set())

    def touched(*names: str) -> list[str]:
        return [folder.name for folder in sources.touched(str(mini / name) for name in names)]

    assert touched("units.yaml") == ["mini"]
    assert touched("scenarios/new.yml") == ["mini"]
    assert touched("player_aids.yaml.j2") == ["mini"]
    assert touched("art/board.png") == ["mini"]  # named by the data: in the stamp
    assert touched("art") == ["mini"]  # not there: a folder that held inputs went away
    assert touched("drafts") == []  # never there, held nothing the build reads
    (mini / "drafts").mkdir()
    assert touched("drafts") == ["mini"]  # a new folder: the loader lists it
    assert touched("NOTES.txt", "art/sketch.png", "units.yaml~") == []
    assert touched(".units.yaml.swp", ".git/index", ".hidden/units.yaml") == []
    assert touched("out/mini/mini.vmod", "out/.cache/x.yaml") == []
    assert sources.touched([str(other / "a.yaml"), str(mini / "game.yaml")]) == [mini, other]
    sources.built([mini], failed={mini})  # a failed build: any visible file may be the fix
    assert touched("art/sketch.png") == ["mini"]
    assert touched(".notes") == []


def test_no_stamp_means_any_visible_file(mini: Path, tmp_path: Path) -> None:
    sources = Sources([mini], tmp_path / "out")
    sources.built([mini], failed=set())
    assert sources.touched([str(mini / "art.png")]) == [mini]


def test_watch_js_is_an_output_and_one_per_build_number() -> None:
    assert is_output_name("mini", "watch.js") and is_output_name("mini", ".watch.js.a1b2c3")
    assert not is_output_name("mini", "watch.json")
    assert watch_script(7) == watch_script(7) != watch_script(8)
    assert b"})(7);" in watch_script(7) and b'"watch.js?"' in watch_script(7)


def test_a_plain_build_writes_no_watch_js(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", str(mini), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr()
    assert not (tmp_path / "out" / "mini" / WATCH_NAME).exists()


def test_a_plain_build_after_a_watch_builds_again_without_watch_js(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A watched build's set holds watch.js: it is never `up to date` for a plain build."""
    out = tmp_path / "out"
    watched = list(build_games([mini], out, {}, watch=41))
    assert watched[0].written is not None and not watched[0].up_to_date
    assert (out / "mini" / WATCH_NAME).read_bytes() == watch_script(41)
    again = list(build_games([mini], out, {}, watch=42))  # the same watch goes on: up to date
    assert again[0].up_to_date and (out / "mini" / WATCH_NAME).read_bytes() == watch_script(41)
    assert main(["build", str(mini), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("mini: wrote ")
    assert not (out / "mini" / WATCH_NAME).exists()
