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
from collections.abc import Callable, Iterable, Iterator
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
    return write_parts_atomically(target, (data,))


WRITE_BUFFER = 1 << 20
"""Bytes gathered before a write: thousands of small parts go out in few writes."""


def write_parts_atomically(target: Path, parts: Iterable[bytes | memoryview]) -> Path:
    """`write_atomically` of the parts one after another, without joining them first (a
    module of 100 MB is written from views into the one it replaces)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb", buffering=WRITE_BUFFER) as out:
            out.writelines(parts)
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


def _is_stage_of(name: str, target: Path) -> bool:
    """Whether `name` is a staging folder of exactly this target: `.<target>.<8 random
    characters of mkdtemp>.new` (a game `g` never takes game `g.x`'s `.g.x.abcdefgh.new`)."""
    prefix = f".{target.name}."
    if not (name.startswith(prefix) and name.endswith(STAGE_SUFFIX)):
        return False
    token = name[len(prefix) : -len(STAGE_SUFFIX)]
    return len(token) == 8 and all(c.isalnum() or c == "_" for c in token)


def recover(target: Path) -> None:
    """Undo what an interrupted swap of this target left (call it holding the target's lock):
    the previous set renamed aside comes back; its staged sets and swapped-out sets go."""
    aside = _aside(target)
    if aside.is_dir() and not target.exists():
        os.rename(aside, target)
    for leftover in target.parent.iterdir():
        if leftover.is_dir() and not leftover.is_symlink() and _is_stage_of(leftover.name, target):
            shutil.rmtree(leftover, ignore_errors=True)
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)


def _check_replaceable(target: Path, owned: Callable[[str], bool]) -> None:
    """The target may be replaced whole only when it is a folder of our outputs: anything
    else (a file, a link, a folder with files countermix did not write, such as a game's own
    sources when --out points at them) is refused and left as it is."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise NotADirectoryError(
            errno.ENOTDIR, "something that is not a folder is in the way (left as it is)", target
        )
    if not target.exists():
        return
    foreign = sorted(p.name for p in target.iterdir() if not owned(p.name))
    if foreign:
        shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
        raise FileExistsError(
            errno.EEXIST,
            f"it holds files countermix did not write ({shown}); the folder is replaced whole "
            "by every build, so move them elsewhere (or build with another --out)",
            target,
        )


def replace_folder(
    target: Path, fill: Callable[[Path], None], owned: Callable[[str], bool]
) -> Path:
    """Make a new set of outputs with `fill(folder)` in a hidden folder beside `target`, then
    put it in the target's place as one step; the previous set is kept until then. `owned`
    tells the names of files a build writes there (see _check_replaceable)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _check_replaceable(target, owned)
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
def build_lock(folder: Path, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the lock of one game's outputs (`folder/.lock`, in the game's own cache folder);
    `waiting()` is called once when another build holds it, then this one waits for it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".lock"
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
