"""A few jobs run in one forked child while the build goes on: a warm build draws the PNGs of
the one or two charts that changed (some 0.03 s each) beside putting charts.pdf together,
instead of before it. Forking a build's process takes a millisecond or two, a pool of workers
(rendercache.parallel_map) more than the jobs it would share out."""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Sequence

from compiler.backends.rendercache import leave_ctrl_c


def in_background(jobs: Sequence[Callable[[], bytes]]) -> Callable[[], list[bytes]]:
    """Start `jobs` (zero-argument, each giving bytes) in a forked child; what gives their
    results, in order, waiting for the child. Without a second core or fork, or when the child
    does not give them all (it failed), the jobs are run here when the results are asked for:
    the same bytes, or the job's own exception."""
    if not jobs:
        return list
    if (os.cpu_count() or 1) < 2 or not hasattr(os, "fork"):
        return lambda: [job() for job in jobs]
    read, write = os.pipe()
    parent = os.getpid()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status and bytes are what is checked
        os.close(read)
        _in_child(jobs, write, parent)
    os.close(write)
    return lambda: _joined(jobs, read, child)


def _in_child(jobs: Sequence[Callable[[], bytes]], write: int, parent: int) -> None:
    """Run the jobs, write their results to `write` and end (no clean-up of the build's:
    os._exit). Ctrl-C is the parent's to handle, and the child ends with its parent (a build
    killed meanwhile leaves no child drawing on)."""
    status = 1
    try:
        leave_ctrl_c(parent)
        data = memoryview(marshal.dumps([job() for job in jobs]))
        while data:
            data = data[os.write(write, data) :]
        status = 0
    except BaseException:  # noqa: BLE001, S110 - the parent runs the jobs again
        pass
    finally:
        os._exit(status)


def _joined(jobs: Sequence[Callable[[], bytes]], read: int, child: int) -> list[bytes]:
    """The child's results once it has ended; the jobs run here when it gave no whole list of
    bytes."""
    chunks = []
    with os.fdopen(read, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    _pid, status = os.waitpid(child, 0)
    if status == 0:
        try:
            made = marshal.loads(b"".join(chunks))
        except (EOFError, ValueError, TypeError):
            made = None
        if (
            isinstance(made, list)
            and len(made) == len(jobs)
            and all(isinstance(item, bytes) for item in made)
        ):
            return made
    return [job() for job in jobs]
