"""A few jobs run in one forked child beside the build (charts.forked.in_background): their
results are those the jobs give here, in order; a job that fails in the child is run here."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from compiler.backends.charts.forked import in_background


def _pid() -> bytes:
    return str(os.getpid()).encode()


def _only_here(parent: int) -> bytes:
    """Fails anywhere but in process `parent`."""
    if os.getpid() != parent:
        raise RuntimeError("not here")
    return b"here"


def _fails() -> bytes:
    raise ValueError("always")


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_results_are_the_jobs_in_order(count: int) -> None:
    jobs = [partial(bytes, [number] * 300_000) for number in range(count)]
    assert in_background(jobs)() == [job() for job in jobs]


def test_the_jobs_run_in_another_process() -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: run here")
    assert in_background([_pid])() != [_pid()]


def test_a_job_failing_in_the_child_is_run_here() -> None:
    parent = os.getpid()
    assert in_background([_pid, lambda: _only_here(parent)])()[1] == b"here"


def test_a_job_failing_here_too_raises() -> None:
    results = in_background([_fails])
    with pytest.raises(ValueError, match="always"):
        results()


CHILD_OF_A_KILLED_BUILD = """
import os, time
from compiler.backends.charts.forked import in_background

def job() -> bytes:
    os.write(1, b"job\\n")
    time.sleep(300)
    return b"drawn"

print("drawing", flush=True)
in_background([job])()
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
    reason="the child ends with its parent on Linux; one core runs the jobs in process",
)
def test_the_child_of_a_killed_build_ends_with_it() -> None:
    """A build killed (SIGKILL) while its child draws: the child ends with it. The child holds
    the parent's stderr pipe; one still drawing (300 s) would keep it open and the wait would
    time out."""
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD_OF_A_KILLED_BUILD],
        cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    children: list[str] = []
    try:
        assert process.stdout is not None and process.stdout.readline() == b"drawing\n"
        assert process.stdout.readline() == b"job\n"
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        process.kill()
        _, err = process.communicate(timeout=60)
        assert err == b""
    finally:
        process.kill()
        for pid in children:
            try:
                os.kill(int(pid), 9)
            except ProcessLookupError:
                pass
