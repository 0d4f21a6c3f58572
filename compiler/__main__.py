"""The entry point of the `countermix` command and of ``python -m compiler``.

Ctrl-C is handled at every moment by one handler that knows the phase: while the tool's
modules load (nothing is written then) it prints one line and exits 130 at once; while the
command runs it is a KeyboardInterrupt, which the command line turns into the same line and
code after the build has cleaned up; once the command is done it is ignored, so a late Ctrl-C
cannot turn a finished command into a failure or a traceback. The process then ends with
the command's exit code at once (`os._exit`, after flushing the output), so neither a late
Ctrl-C nor the interpreter's own shutdown (which puts back the default handler and re-raises
a Ctrl-C it saw) can change the code to "killed by SIGINT".
"""

from __future__ import annotations

import os
import signal

INTERRUPTED = 130
MESSAGE = b"countermix: interrupted\n"


def _while_loading(signum: int, frame: object) -> None:
    os.write(2, MESSAGE)
    os._exit(INTERRUPTED)


# first of all, before any other import: from the tool's first line on, a Ctrl-C is one line
signal.signal(signal.SIGINT, _while_loading)

import sys  # noqa: E402
from types import FrameType  # noqa: E402
from typing import NoReturn  # noqa: E402

from compiler import interrupts  # noqa: E402

_phase = "loading"


def _on_ctrl_c(signum: int, frame: FrameType | None) -> None:
    if _phase == "loading":
        os.write(2, MESSAGE)
        os._exit(INTERRUPTED)
    if _phase == "running":
        interrupts.note()
        if _in_import_machinery(frame):
            _again_soon()  # raised there it is "ignored" with a traceback printed
            return
        raise KeyboardInterrupt


RETRY_SECONDS = 0.005


def _in_import_machinery(frame: FrameType | None) -> bool:
    """Whether Python is running its import system's own code (such as the callback that
    drops a module's lock, where an exception cannot be raised: it is printed and dropped)."""
    return frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")


def _again_soon() -> None:
    """Deliver the Ctrl-C again a few milliseconds later, outside the import system."""
    signal.signal(signal.SIGALRM, lambda signum, frame: _on_ctrl_c(signal.SIGINT, frame))
    signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)


def run() -> NoReturn:
    """Run the command line with Ctrl-C handled at every moment, then end the process."""
    global _phase
    signal.signal(signal.SIGINT, _on_ctrl_c)
    from compiler.cli import main
    from compiler.gcpause import process_ends_after_command

    process_ends_after_command()
    _phase = "running"
    try:
        code = main()
        _phase = "done"
    except KeyboardInterrupt:  # one that came before or after the command line's own handling
        _phase = "done"
        os.write(2, MESSAGE)
        code = INTERRUPTED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end(code)


def _end(code: int) -> NoReturn:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    _save_dataclass_code()
    os._exit(code)


def _save_dataclass_code() -> None:
    """Write the dataclass code compiled anew (os._exit skips the atexit that would), after
    the output is flushed: only the first runs after an upgrade write anything."""
    dataclasscode = sys.modules.get("compiler.dataclasscode")
    if dataclasscode is not None:
        dataclasscode.save()


if __name__ == "__main__":
    run()
