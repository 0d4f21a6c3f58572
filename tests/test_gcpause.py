"""The cyclic collector after a build: `countermix build` freezes what the build left alive
(its process ends with the command, so nothing of it need be walked again), while main()
called in a longer-lived process (a test, a bench, a watch) leaves the collector as it was."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.gcpause import no_cyclic_gc

ROOT = Path(__file__).resolve().parent.parent

# the entry point as the `countermix` script runs it, os._exit reporting the freeze count
ENTRY = """
import gc, os, sys
real_exit = os._exit
def report(code):
    sys.stdout.write(f"frozen {gc.get_freeze_count()}\\n")
    sys.stdout.flush()
    real_exit(code)
os._exit = report
sys.argv = ["countermix", *sys.argv[1:]]
from compiler.__main__ import run
run()
"""


def frozen_after(*args: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return int(done.stdout.rsplit("frozen ", 1)[1])


def test_the_build_command_freezes_what_its_build_left(mini: Path, tmp_path: Path) -> None:
    assert frozen_after("build", str(mini), "--out", str(tmp_path / "out"), "-q") > 10_000


def test_validate_freezes_nothing(mini: Path) -> None:
    assert frozen_after("validate", str(mini)) == 0


def test_main_in_process_leaves_the_collector_as_it_was(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = gc.get_freeze_count()
    assert main(["build", str(mini), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert gc.get_freeze_count() == before
    assert gc.isenabled()


@pytest.mark.parametrize("frozen", [False, True])
def test_no_cyclic_gc_pauses_and_freezes_when_asked(frozen: bool) -> None:
    before = gc.get_freeze_count()
    try:
        with no_cyclic_gc(frozen=frozen):
            assert not gc.isenabled()
            kept = [[n] for n in range(1000)]
        assert gc.isenabled()
        assert (gc.get_freeze_count() >= before + len(kept)) is frozen
    finally:
        gc.unfreeze()
