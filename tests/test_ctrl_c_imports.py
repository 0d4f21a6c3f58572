"""A Ctrl-C that comes while Python runs its import system's own code (a lazy import of a
back end, the callback that drops a module's lock) is delivered again a few milliseconds
later: raised there, it was printed as an "Exception ignored in" traceback and lost."""

from __future__ import annotations

import importlib
import signal
import time
from collections.abc import Iterator
from types import FrameType, ModuleType

import pytest

from compiler import interrupts


def _entry_point() -> ModuleType:
    """compiler.__main__, imported with this process's Ctrl-C handler put back after (the
    module takes SIGINT over at its first line, for the command: here, a Ctrl-C a later test
    sends itself would have ended the whole test run with code 130)."""
    handler = signal.getsignal(signal.SIGINT)
    try:
        return importlib.import_module("compiler.__main__")
    finally:
        signal.signal(signal.SIGINT, handler)


entry = _entry_point()


def frame_of(filename: str) -> FrameType:
    """A frame of code that says it comes from `filename`."""
    found: list[FrameType] = []
    code = compile("import sys\nfound.append(sys._getframe())", filename, "exec")
    exec(code, {"found": found})  # noqa: S102 - our own two lines
    return found[0]


@pytest.fixture
def running(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(entry, "_phase", "running")
    monkeypatch.setattr(interrupts, "_seen", False)
    before = signal.getsignal(signal.SIGALRM)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, before)


@pytest.mark.parametrize(
    ("filename", "at_once"),
    [("<frozen importlib._bootstrap>", False), ("compiler/pipeline.py", True)],
)
def test_a_ctrl_c_in_the_import_system_comes_again_outside_it(
    running: None, filename: str, at_once: bool
) -> None:
    frame = frame_of(filename)
    with pytest.raises(KeyboardInterrupt):
        try:
            entry._on_ctrl_c(signal.SIGINT, frame)
        except KeyboardInterrupt:
            assert at_once
            raise
        assert not at_once
        time.sleep(1)  # the SIGALRM delivers it here
        pytest.fail("the Ctrl-C was lost")
    assert interrupts._seen
