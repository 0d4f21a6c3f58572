"""Writing outputs safely: files beside their target then renamed over it; a game's outputs as
one set, staged in a hidden folder and swapped in whole; one build of a game at a time.

After any interruption (Ctrl-C, SIGKILL, a full disk) `build/<game>/` holds either the whole
previous set of outputs or the whole new one. On Linux the staged folder and the old one are
exchanged in one step (renameat2 with RENAME_EXCHANGE); elsewhere the old folder is first
renamed aside, and a build that finds the game's folder missing and the aside one present puts
it back before it does anything else.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

AT_FDCWD = -100
RENAME_EXCHANGE = 2
STAGE_SUFFIX = ".new"
ASIDE_SUFFIX = ".old"


class OutputError(Exception):
    """An output cannot be written (a read-only folder, a full disk, a file in the way)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = str(path)


def output_error(err: OSError, fallback: Path) -> OutputError:
    """An OSError from writing outputs, as one message naming the path."""
    return OutputError(err.filename or fallback, err.strerror or str(err))


def write_atomically(target: Path, data: bytes) -> Path:
    """Write beside the target, then rename over it: a failed build leaves the old file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one step; False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    result = renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _aside(target: Path) -> Path:
    return target.with_name(f".{target.name}{ASIDE_SUFFIX}")


def recover(target: Path) -> None:
    """Undo what an interrupted swap left: the previous set renamed aside comes back; staged
    sets and sets swapped out are removed."""
    aside = _aside(target)
    if aside.is_dir() and not target.exists():
        os.rename(aside, target)
    for leftover in target.parent.glob(f".{target.name}.*{STAGE_SUFFIX}"):
        shutil.rmtree(leftover, ignore_errors=True)
    if aside.exists():
        shutil.rmtree(aside, ignore_errors=True)


def replace_folder(target: Path, fill: Callable[[Path], None]) -> Path:
    """Make a new set of outputs with `fill(folder)` in a hidden folder beside `target`, then
    put it in the target's place as one step; the previous set is kept until then."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise NotADirectoryError(
            errno.ENOTDIR, "something that is not a folder is in the way (left as it is)", target
        )
    stage = Path(
        tempfile.mkdtemp(prefix=f".{target.name}.", suffix=STAGE_SUFFIX, dir=target.parent)
    )
    try:
        fill(stage)
        os.chmod(stage, 0o755)
        if not target.exists():
            os.rename(stage, target)
        elif _exchange(stage, target):
            shutil.rmtree(stage, ignore_errors=True)  # now the previous set
        else:
            aside = _aside(target)
            os.rename(target, aside)
            os.rename(stage, target)
            shutil.rmtree(aside, ignore_errors=True)
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)
    return target


@contextmanager
def build_lock(folder: Path, name: str, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the lock of one game's outputs (`folder/<name>.lock`); `waiting()` is called once
    when another build holds it, then this one waits for it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.lock"
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
