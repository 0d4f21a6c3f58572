"""A few jobs run in one forked child beside the build (charts.forked.in_background): their
results are those the jobs give here, in order; a job that fails in the child is run here."""

from __future__ import annotations

import os
from functools import partial

import pytest

from compiler.backends.charts.forked import in_background
from tests.conftest import DIES_WITH_PARENT, stderr_of_a_killed_build


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
from tests.conftest import DIES_WITH_PARENT, stderr_of_a_killed_build

def job() -> bytes:
    os.write(1, b"job\\n")
    time.sleep(300)
    return b"drawn"

print("drawing", flush=True)
in_background([job])()
"""


@DIES_WITH_PARENT
def test_the_child_of_a_killed_build_ends_with_it() -> None:
    """A build killed (SIGKILL) while its child draws: the child ends with it (one still
    drawing would hold the build's stderr open, and the wait would time out)."""
    assert stderr_of_a_killed_build(CHILD_OF_A_KILLED_BUILD, drawing=1) == b""
