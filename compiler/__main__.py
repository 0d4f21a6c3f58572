"""The entry point of the `countermix` command and of ``python -m compiler``.

Ctrl-C is handled from the first line: while the tool's modules load (nothing is written
then) it prints one line and exits 130 at once; from then on it is a KeyboardInterrupt that
the command line turns into the same line and code after the build has cleaned up; once the
command is done it is ignored, so a late Ctrl-C cannot turn a finished build into a failure.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

INTERRUPTED = 130


def _interrupted_while_loading(signum: int, frame: FrameType | None) -> None:
    os.write(2, b"countermix: interrupted\n")
    os._exit(INTERRUPTED)


def run() -> int:
    """Run the command line with Ctrl-C handled at every moment."""
    signal.signal(signal.SIGINT, _interrupted_while_loading)
    from compiler.cli import main

    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return main()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(run())
