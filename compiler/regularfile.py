"""Opening a file named by the data or holding it, safely: a regular file only, and never
waiting on one (a FIFO or a device named `*.yaml` or `board.png` is refused by its type).

The loader, the findings' source lines and the board art all open files through here.
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest data file read (a finding's source line is never looked for beyond it)."""
# Non-blocking: should a pipe take the file's place between the check and the open, the open
# returns at once instead of waiting for a writer (the descriptor's type is checked again).
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotRegular(OSError):
    """The path is not a regular file (a FIFO, a device, a socket, a folder)."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(f"{os.fspath(path)} is not a regular file")
        self.mode = mode


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at `path` and its fstat; NotRegular for
    anything else, checked before opening (a pipe would block) and again after."""
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise NotRegular(path, before.st_mode)
    fd = os.open(path, _OPEN_FLAGS)
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        raise NotRegular(path, opened.st_mode)
    return fd, opened
