"""Writing outputs safely: files beside their target then renamed over it; a game's outputs as
one set, made in a hidden stage folder beside `build/<game>/` and committed from there; one
build of a game at a time.

A warm build changes few of a large game's 13,000 files (a module, a PDF or two, the page and
the images of the units that changed), so the stage holds only what is new: the previous set's
files the build's stamp vouches for stay where they are (see OutputFolder). The commit writes
a journal into the stage (what to rename, what to delete), renames each new file over the old
one (images first, the page that shows them last: the page never names an image that is not
there), deletes the files the new set no longer has, then removes the journal. A build
interrupted before the journal exists leaves the previous set untouched; one stopped during the
commit (a kill, a power cut; a Ctrl-C waits for the commit's end) leaves the journal, and the
next build rolls it forward before anything else (`recover`). A folder holding something that
is not a regular file, or no folder yet, gets the whole stage as one step instead: on Linux
the two folders are exchanged (renameat2 with RENAME_EXCHANGE); elsewhere the old folder is
first renamed aside, and a build that finds the game's folder missing and the aside one present
puts it back before it does anything else.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import marshal
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from itertools import repeat
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO, NamedTuple, cast

AT_FDCWD = -100
RENAME_EXCHANGE = 2
STAGE_SUFFIX = ".new"
ASIDE_SUFFIX = ".old"
TRASH_MARK = "~"
TRASH_SUFFIX = ".gone"
"""A committed stage holding the files it replaced is renamed `.<target>~<token>.gone`, to be
removed by the next build's look at the folder (see _discard)."""
JOURNAL = ".commit"
"""The commit's journal in the stage folder (a hidden name: never one of the outputs)."""
JOURNAL_FORMAT = "countermix-commit-1"
FILE_MODE = 0o644
"""The mode of every file a build writes."""

Recorded = Sequence[int]
"""A file as a build stamp records it: size, mtime (ns), inode."""


class FileStat(NamedTuple):
    """What a build asks of an output folder's file's lstat."""

    st_mode: int
    st_ino: int
    st_size: int
    st_mtime_ns: int


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


class FileRange(NamedTuple):
    """A part of a file written by `write_parts_atomically` that is a range of another file:
    `len(data)` bytes at `offset` of the file open as `fd`, whose bytes `data` are (the file
    mapped). Copied by the kernel (copy_file_range, else sendfile), never through Python,
    where the system can; else written from `data` (a module of 117 MB is mostly ranges of
    the one it replaces: written through Python, they took 0.16-0.3 s)."""

    fd: int
    offset: int
    data: memoryview


Part = bytes | memoryview | FileRange
"""A piece of a file written by `write_parts_atomically`."""
KERNEL_COPY_MIN = 1 << 16
"""A range shorter than this is written from its bytes (a system call and a flush cost
more)."""
CANNOT_COPY = frozenset(
    code
    for code in (
        errno.EXDEV,  # another file system (Linux before 5.3, or of another kind since 5.19)
        errno.ENOSYS,
        errno.EINVAL,  # a file system, or a kind of file, the call does not handle
        errno.EOPNOTSUPP,
        errno.ENOTSUP,
        errno.EBADF,
        errno.EPERM,
        errno.ETXTBSY,
        errno.EOVERFLOW,
    )
)
"""What the kernel says when it cannot copy between these files: the bytes are written from
the mapping instead. Any other error (a full disk, an I/O error) fails the write."""


def write_parts_atomically(target: Path, parts: Iterable[Part], defer: bool = False) -> Path:
    """`write_atomically` of the parts one after another, without joining them first (a
    module of 100 MB is written from ranges of the one it replaces: see FileRange). With
    `defer`, inside `deferred_copies`, the long ranges are copied by a thread while the build
    goes on, and the file is renamed over its target when the block ends."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        if defer and _DEFERRING and hasattr(os, "copy_file_range"):
            if _deferred(handle, temporary, target, parts):
                return target
        else:
            with os.fdopen(handle, "wb", buffering=WRITE_BUFFER) as out:
                _write_parts(out, parts)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


_DEFERRING: list[list[_DeferredWrite]] = []
"""The writes of each `deferred_copies` block entered, innermost last."""


@contextmanager
def deferred_copies() -> Iterator[None]:
    """A block in which `write_parts_atomically(..., defer=True)` writes a file's own bytes at
    once and leaves its long ranges of another file to a thread, which copies them in the
    kernel (copy_file_range, the interpreter's lock let go) while the block goes on; each such
    file is renamed over its target when the block ends, once its copies are done. A copy
    that fails raises there (the file is not renamed); a block that raises leaves no such
    file. A warm build of 8,000 counters copies 120 MB of the module before into the new one
    (some 50 ms of the kernel's time), beside the sheets, the charts and the preview."""
    pending: list[_DeferredWrite] = []
    _DEFERRING.append(pending)
    try:
        yield
    except BaseException:
        for write in pending:
            write.abandon()
        raise
    finally:
        _DEFERRING.remove(pending)
    for number, write in enumerate(pending):
        try:
            write.finish()
        except BaseException:
            for rest in pending[number + 1 :]:
                rest.abandon()
            raise


def _deferred(handle: int, temporary: str, target: Path, parts: Iterable[Part]) -> bool:
    """The parts written to the file open as `handle` but its long ranges, which a thread
    copies (a _DeferredWrite of the innermost block, which then owns the handle): True; False
    when there were none (the file is whole). The handle is closed unless a thread owns it."""
    try:
        copies = _write_around_ranges(handle, parts)
        if copies:
            _DEFERRING[-1].append(_DeferredWrite(temporary, target, handle, copies))
            return True
    except BaseException:
        os.close(handle)
        raise
    os.close(handle)
    return False


class _Copy(NamedTuple):
    """A range of another file to copy into a file being written: `length` bytes at
    `offset` of `source` (a file descriptor of its own, closed once copied) to `at`."""

    source: int
    offset: int
    at: int
    length: int


def _write_around_ranges(handle: int, parts: Iterable[Part]) -> list[_Copy]:
    """The parts' own bytes written to the file open as `handle` where they go, the long
    ranges (FileRange, KERNEL_COPY_MIN bytes or more) left as holes, to copy (returned)."""
    copies: list[_Copy] = []
    position = 0
    try:
        with os.fdopen(os.dup(handle), "wb", buffering=WRITE_BUFFER) as out:
            for part in parts:
                if isinstance(part, FileRange) and len(part.data) >= KERNEL_COPY_MIN:
                    length = len(part.data)
                    copies.append(_Copy(os.dup(part.fd), part.offset, position, length))
                    out.seek(length, os.SEEK_CUR)
                    position += length
                    continue
                data = part.data if isinstance(part, FileRange) else part
                out.write(data)
                position += len(data)
        os.ftruncate(handle, position)  # a range at the end: the file is its full length
    except BaseException:
        for copy in copies:
            os.close(copy.source)
        raise
    return copies


class _DeferredWrite:
    """A file of write_parts_atomically(defer=True): its own bytes written, its ranges copied
    by a thread (started here), renamed over its target by `finish`."""

    def __init__(self, temporary: str, target: Path, handle: int, copies: list[_Copy]) -> None:
        self.temporary, self.target, self.handle = temporary, target, handle
        self.error: BaseException | None = None
        try:
            self._thread = background(partial(self._copy_all, copies), "countermix-copy")
        except BaseException:  # no thread to be had: the copies' files closed here
            for copy in copies:
                os.close(copy.source)
            raise

    def _copy_all(self, copies: list[_Copy]) -> None:
        try:
            for copy in copies:
                _copy_at(copy, self.handle)
        except BaseException as err:  # noqa: BLE001 - raised by finish
            self.error = err
        finally:
            for copy in copies:
                os.close(copy.source)

    def finish(self) -> None:
        """Once its copies are done, the file renamed over its target; a copy that failed
        raises (the file removed)."""
        self._thread.join()
        os.close(self.handle)
        try:
            if self.error is not None:
                raise self.error
            os.chmod(self.temporary, FILE_MODE)
            os.replace(self.temporary, self.target)
        except BaseException:
            Path(self.temporary).unlink(missing_ok=True)
            raise

    def abandon(self) -> None:
        """Once its copies are done, the file removed."""
        self._thread.join()
        os.close(self.handle)
        Path(self.temporary).unlink(missing_ok=True)


def _copy_file_range_at(source: int, target: int, count: int, offset: int, at: int) -> int:
    """copy_file_range from `offset` of `source` to `at` of `target` (neither file's position
    moves): how many bytes it copied."""
    return os.copy_file_range(source, target, count, offset, at)


def _copy_at(copy: _Copy, target: int) -> None:
    """A range copied into the file open as `target` at its place: by the kernel, else (a
    system that cannot copy between these files: CANNOT_COPY) read and written a megabyte at
    a time."""

    def at_its_place(source: int, into: int, offset: int, count: int) -> int:
        return _copy_file_range_at(source, into, count, offset, copy.at + offset - copy.offset)

    done = _copied(copy.source, copy.offset, copy.length, target, [at_its_place])
    while done < copy.length:
        data = os.pread(copy.source, min(1 << 20, copy.length - done), copy.offset + done)
        if not data:  # the file ends before the range (it was rewritten in place)
            raise OSError(errno.EIO, "the file copied from is shorter than it was")
        written = os.pwrite(target, data, copy.at + done)
        done += written


def _write_parts(out: BinaryIO, parts: Iterable[Part]) -> None:
    """The parts written to `out` in order: bytes gathered in its buffer, each long range of
    another file copied by the kernel at the file's position once the buffer is flushed. A
    way of copying the system refuses (CANNOT_COPY) is not tried again in this file; what it
    did not copy of the range is written from the range's bytes."""
    copiers = list(COPIERS)
    pending: list[bytes | memoryview] = []
    for part in parts:
        if not isinstance(part, FileRange):
            pending.append(part)
            continue
        data = part.data
        if copiers and len(data) >= KERNEL_COPY_MIN:
            out.writelines(pending)
            pending.clear()
            out.flush()
            data = data[_copied(part.fd, part.offset, len(data), out.fileno(), copiers) :]
        pending.append(data)
    out.writelines(pending)


Copier = Callable[[int, int, int, int], int]
"""(source fd, target fd, offset in the source, count) -> bytes copied to the target at its
position (which moves on), as os.copy_file_range and os.sendfile do."""


def _copy_file_range(source: int, target: int, offset: int, count: int) -> int:
    return os.copy_file_range(source, target, count, offset)


def _sendfile(source: int, target: int, offset: int, count: int) -> int:
    return os.sendfile(target, source, offset, count)


COPIERS: tuple[Copier, ...] = tuple(
    copier
    for copier, call in ((_copy_file_range, "copy_file_range"), (_sendfile, "sendfile"))
    if hasattr(os, call)
)
"""The ways of copying between files in the kernel this system has, in the order tried."""


def _copied(source: int, offset: int, length: int, target: int, copiers: list[Copier]) -> int:
    """How many of the `length` bytes at `offset` of `source` the kernel copied to `target`
    (all of them, unless every copier in `copiers` cannot: those are taken out of the list)."""
    done = 0
    while copiers and done < length:
        try:
            count = copiers[0](source, target, offset + done, length - done)
        except OSError as err:
            if err.errno not in CANNOT_COPY:
                raise
            del copiers[0]
            continue
        if count <= 0:  # the source ends before the range (changed since it was mapped)
            break
        done += count
    return done


@cache
def _renameat2() -> Callable[..., int] | None:
    try:
        found: Callable[..., int] = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    return found


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders, or two files, in one step; False where the system cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
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
    return _token(name, f".{target.name}.", STAGE_SUFFIX) is not None


def _is_trash_of(name: str, target: Path) -> bool:
    """Whether `name` is a committed stage of exactly this target set aside to be removed:
    `.<target>~<8 random characters>.gone` (see _discard)."""
    return _token(name, f".{target.name}{TRASH_MARK}", TRASH_SUFFIX) is not None


def _token(name: str, prefix: str, suffix: str) -> str | None:
    """The 8 random characters of mkdtemp between `prefix` and `suffix` in `name`, if it is
    such a name."""
    if not (name.startswith(prefix) and name.endswith(suffix)):
        return None
    token = name[len(prefix) : -len(suffix)]
    return token if len(token) == 8 and all(c.isalnum() or c == "_" for c in token) else None


_REMOVING: set[str] = set()
"""Set-aside stages a thread of this process is removing (recover leaves them to it)."""


def remove_trash(target: Path, skip: Collection[str] = ()) -> None:
    """Remove the committed stages of this target set aside by earlier builds (see
    _discard): they hold only files the outputs no longer have, never needed again."""
    try:
        with os.scandir(target.parent) as listing:
            found = [
                entry.path
                for entry in listing
                if _is_trash_of(entry.name, target)
                and entry.path not in skip
                and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return
    for path in found:
        _REMOVING.add(path)
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            _REMOVING.discard(path)


def recover(target: Path, owned: Callable[[str], bool] = lambda name: True) -> None:
    """Finish or undo what an interrupted build of this target left (call it holding the
    target's lock): a commit whose journal is in its stage is rolled forward (see
    _roll_forward; `owned` tells the names it may delete); the previous set renamed aside
    comes back; other staged sets and swapped-out sets go."""
    aside = _aside(target)
    if aside.is_dir() and not target.exists():
        os.rename(aside, target)
    for leftover in target.parent.iterdir():
        if leftover.is_dir() and not leftover.is_symlink() and _is_stage_of(leftover.name, target):
            journal = _read_journal(leftover, target, owned)
            if journal is not None and target.is_dir() and not target.is_symlink():
                _roll_forward(leftover, target, *journal)
            shutil.rmtree(leftover, ignore_errors=True)
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)
    remove_trash(target, skip=set(_REMOVING))


def _check_replaceable(target: Path, look: FolderLook | None = None) -> dict[str, FileStat]:
    """The target may be replaced only when it is a folder (or nothing yet): a file or a link
    in its place is refused and left as it is. Its files (name → lstat; none when there is
    no folder yet), from one listing: a build's only look at all of them (each stat taken
    relative to the folder, not by its path: 13,000 of them in a large game's folder). With
    `look` (the same taken while the build did other work), those, when the folder still
    holds the same names for the same files (see _same_files)."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise NotADirectoryError(
            errno.ENOTDIR, "something that is not a folder is in the way (left as it is)", target
        )
    if not target.exists():
        return {}
    fd = _open_folder(target)
    try:
        looked = None if look is None else look.files()
        if looked is not None and _same_files(fd, looked):
            return looked
        return _stats(fd)
    finally:
        os.close(fd)


def _open_folder(target: Path) -> int:
    return os.open(target, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))


def _stats(fd: int) -> dict[str, FileStat]:
    """The files of an open folder: name → lstat (one system call each)."""
    with os.scandir(fd) as listing:
        return {entry.name: _file_stat(entry.stat(follow_symlinks=False)) for entry in listing}


def _file_stat(info: os.stat_result) -> FileStat:
    return FileStat(info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns)


def _same_files(fd: int, looked: Mapping[str, FileStat]) -> bool:
    """Whether an open folder holds the files `looked` names and no other: each name the same
    file (inode) as then, from one listing without a stat (a file added, deleted, renamed or
    written again beside and renamed over since is another inode, or none)."""
    with os.scandir(fd) as listing:
        now = {entry.name: entry.inode() for entry in listing}
    return len(now) == len(looked) and all(
        now.get(name) == info.st_ino for name, info in looked.items()
    )


def background(work: Callable[[], None], name: str) -> threading.Thread:
    """A daemon thread running `work`, started with Ctrl-C (SIGINT) blocked, which it
    inherits: the kernel gives a process's SIGINT to a thread that does not block it, and
    Python then runs its handler in the main thread at once, even inside a commit that holds
    Ctrl-C back (_ctrl_c_waits). A thread that blocks it leaves it to the main thread."""
    thread = threading.Thread(target=work, name=name, daemon=True)
    if not hasattr(signal, "pthread_sigmask"):
        thread.start()
        return thread
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread


class FolderLook:
    """An output folder's files (name → lstat) taken while the build loads, checks and lays
    out: a stat costs some 4-7 µs, 0.05-0.1 s for a large game's 13,000 files, which the build
    then need not wait for. The look is taken by a small Python process of its own (see
    _LOOK_SCRIPT) on the other core: a thread of this process got the interpreter's lock only
    when the build let it go (at 8,000 counters the look took 0.37 s beside a busy build
    instead of 0.06 s, most of it waited for at the opening). Where no process can be started
    so, a thread takes it. OutputFolder.open takes the files only when the folder holds the
    same files under the same names when it opens it, under the game's lock (see
    _check_replaceable); else it looks again. A file written in place between the look and
    the opening keeps its inode and is taken as the look saw it, as one written between the
    opening and the commit is today: the stamp records the look's size and time, so the next
    build finds it changed and writes it again."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self._found: dict[str, FileStat] | None = None
        self._thread: threading.Thread | None = None
        self._child: _LookingChild | None = None
        if target.is_dir():  # else no folder yet (a first build): nothing to look at
            self._child = _looking_child(target)
            if self._child is None:
                self._thread = background(self._look, "countermix-look")
        # the files the last build replaced (see _discard), removed while this one loads: the
        # kernel frees a large module's blocks on the other core (a process that ends first
        # leaves the rest to the next build)
        self._removal = background(partial(remove_trash, target), "countermix-trash")

    def _look(self) -> None:
        try:
            fd = _open_folder(self.target)
        except OSError:  # no folder yet, or not a folder: the opening looks (and refuses)
            return
        try:
            self._found = _stats(fd)
        except OSError:
            self._found = None
        finally:
            os.close(fd)

    def files(self) -> dict[str, FileStat] | None:
        """What the look found (once it is done); None when it found no folder, or failed."""
        if self._child is not None:
            self._found = self._child.found()
            self._child = None
        elif self._thread is not None:
            self._thread.join()
        return self._found


_LOOK_SCRIPT = """\
import marshal, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
names, modes, inodes, sizes, times = [], [], [], [], []
with os.scandir(fd) as listing:
    for entry in listing:
        s = entry.stat(follow_symlinks=False)
        names.append(entry.name)
        modes.append(s.st_mode)
        inodes.append(s.st_ino)
        sizes.append(s.st_size)
        times.append(s.st_mtime_ns)
sys.stdout.buffer.write(marshal.dumps((names, modes, inodes, sizes, times)))
"""
"""What the look's own process runs (`python -I -S -c`, no site: it imports nothing but the
interpreter's own modules): the names of the folder's files (argv[1], not followed if a
link), then of each one's lstat (as FileStat) the modes, the inodes, the sizes and the mtimes,
in lists marshalled on its standard output (a list of each is the least for it to write and
for the build to read: at 8,000 counters a stat object a file, sent whole, was 2.1 MB and
25 ms to read back, these 0.9 MB and 6 ms)."""


class _LookingChild:
    """The process taking a folder's look, and the pipe it answers on."""

    def __init__(self, pid: int, answer: int) -> None:
        self.pid, self.answer = pid, answer
        self._done = weakref.finalize(self, _abandon, pid, answer)
        self._done.atexit = False  # a build ending: the child ends on its closed pipe

    def found(self) -> dict[str, FileStat] | None:
        """The files it found, once it ended; None when it failed or answered something else
        (the opening then looks itself)."""
        self._done.detach()
        chunks = []
        try:
            with os.fdopen(self.answer, "rb") as pipe:
                while chunk := pipe.read(1 << 20):
                    chunks.append(chunk)
        finally:
            _pid, status = os.waitpid(self.pid, 0)
        if status != 0:
            return None
        try:
            return _looked(marshal.loads(b"".join(chunks)))
        except (EOFError, ValueError, TypeError):
            return None


def _abandon(pid: int, answer: int) -> None:
    """A look never asked for: its pipe closed (the child, writing, ends) and the child
    waited for."""
    os.close(answer)
    os.waitpid(pid, 0)


def _looking_child(target: Path) -> _LookingChild | None:
    """A process started to look at the folder `target` (see _LOOK_SCRIPT); None when no such
    process can be started (no posix_spawn, no Python to start: an embedded interpreter, or a
    frozen program, whose executable is not one). Its environment is this one's (the same
    locale, so the same names: Python's own variables are ignored, -I)."""
    python = sys.executable
    if not hasattr(os, "posix_spawn") or not python or getattr(sys, "frozen", False):
        return None
    answer, into = os.pipe()
    actions = [
        (os.POSIX_SPAWN_DUP2, into, 1),
        (os.POSIX_SPAWN_CLOSE, answer),
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    argv = [python, "-I", "-S", "-c", _LOOK_SCRIPT, str(target)]
    try:
        pid = os.posix_spawn(
            python, argv, os.environ, file_actions=actions, setsigmask=(), setsigdef={signal.SIGINT}
        )
    except OSError:
        os.close(answer)
        return None
    finally:
        os.close(into)
    return _LookingChild(pid, answer)


def _looked(found: object) -> dict[str, FileStat] | None:
    """The look's answer (see _LOOK_SCRIPT) as name → stat; None when it is not one."""
    if type(found) is not tuple or len(found) != 5 or not all(type(c) is list for c in found):
        return None
    names, *fields = found
    if any(len(column) != len(names) for column in fields):
        return None
    if not all(map(str.__instancecheck__, names)) or not all(
        all(map(int.__instancecheck__, column)) for column in fields
    ):
        return None
    stats = map(tuple.__new__, repeat(FileStat), zip(*fields, strict=True))
    return dict(zip(names, cast(Iterator[FileStat], stats), strict=True))


def _refuse_foreign(
    target: Path, found: Iterable[str], owned: Callable[[str], bool], ours: Collection[str]
) -> None:
    """Refuse a folder with files countermix did not write (such as a game's own sources
    when --out points at them): the folder is left as it is. The files in `ours` (the last
    build's, untouched since: see OutputFolder.unchanged) are not asked about: the names of
    a large game's 13,000 files matched one by one were a pass for nothing."""
    foreign = sorted(name for name in set(found).difference(ours) if not owned(name))
    if foreign:
        shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
        raise FileExistsError(
            errno.EEXIST,
            f"it holds files countermix did not write ({shown}); the folder is replaced whole "
            "by every build, so move them elsewhere (or build with another --out)",
            target,
        )


@dataclass
class OutputFolder:
    """One game's output folder as a build found it (under the game's lock, after `recover`),
    and the build's new set committed into it. The previous set's files the last build's
    stamp vouches for (`unchanged`) may be kept where they are: a back end that would write
    one of them again names it as `reused` instead (a warm build of a large game keeps
    thousands of preview images; linking each into a new folder, then deleting the old
    folder's, was most of the file system's work)."""

    target: Path
    owned: Callable[[str], bool]
    last: Sequence[str] = ()
    """Names committed after every other file, in this order (the page, then what tells a
    browser showing it to load it again)."""
    before: dict[str, FileStat] = field(default_factory=dict)
    """The target's files as found."""
    in_place: bool = False
    """Whether the new set is committed file by file (the target is a folder of regular
    files), else swapped in whole."""
    vouched: dict[str, Recorded] = field(default_factory=dict)
    """What `unchanged` found."""
    _vouched_from: object = field(default=None, repr=False)
    """The record `vouched` was found from (asked again, it is not compared again)."""
    defer_removal: bool = False
    """Whether the files a commit replaces are set aside for the next build's look to remove
    (see _discard) rather than removed at once: true when the folder was opened with a look
    (a build that looks at its folder while it loads)."""

    @classmethod
    def open(
        cls,
        target: Path,
        owned: Callable[[str], bool],
        last: Sequence[str] = (),
        recorded: Mapping[str, Recorded] | None = None,
        look: FolderLook | None = None,
    ) -> OutputFolder:
        """The target as it is; refused (OSError) when it may not be replaced. With the last
        build's stamp's record of its files (`recorded`), those still as recorded are found
        at once (`unchanged`): they are ours, not asked about by `owned`. With `look` (of
        this target, started earlier in the build), its stats when they still hold."""
        target.parent.mkdir(parents=True, exist_ok=True)
        before = _check_replaceable(target, look)
        in_place = target.is_dir() and all(stat.S_ISREG(s.st_mode) for s in before.values())
        folder = cls(target, owned, last, before, in_place, defer_removal=look is not None)
        ours = folder.unchanged(recorded) if recorded is not None else {}
        _refuse_foreign(target, before, owned, ours)
        return folder

    def unchanged(self, recorded: Mapping[str, Recorded]) -> dict[str, Recorded]:
        """The files of the target that are still as `recorded` (the last build's stamp:
        size, mtime, inode once written) with the mode a build gives its files: each is the
        file that build wrote, untouched since. Empty when the folder holds more than files
        (then the new set is made whole and swapped in)."""
        if not self.in_place:
            return {}
        if recorded is self._vouched_from:
            return self.vouched
        self.vouched = _still_as_recorded(self.before, recorded)
        self._vouched_from = recorded
        return self.vouched

    def replace(
        self, fill: Callable[[Path], None], reused: Collection[str] = ()
    ) -> dict[str, Recorded] | None:
        """Make the new set with `fill(stage)` in a hidden folder beside the target, then
        commit it: the stage's files, and the previous set's `reused` ones (which must be
        among `unchanged`'s) are the new set. The previous set is whole until then. Returns
        the new set's files as a stamp records them (size, mtime, inode), None when not
        known (the set swapped in whole: list the folder)."""
        stage = Path(
            tempfile.mkdtemp(
                prefix=f".{self.target.name}.", suffix=STAGE_SUFFIX, dir=self.target.parent
            )
        )
        try:
            fill(stage)
            if self.in_place and self.target.is_dir():
                return self._commit(stage, reused)
            _swap(stage, self.target)
            return None
        finally:
            if stage.exists() and not (stage / JOURNAL).exists():
                shutil.rmtree(stage, ignore_errors=True)

    def _commit(self, stage: Path, reused: Collection[str]) -> dict[str, Recorded] | None:
        """The stage's files renamed into the target, the files the new set lacks deleted,
        journalled (see the module's docstring). Ctrl-C waits for the end of it. When more
        changes than stays (a build in another language, `--force`), the files that stay
        are linked into the stage instead and the folders swapped: fewer steps."""
        new = {entry.name: entry.stat(follow_symlinks=False) for entry in _visible(stage)}
        kept = set(reused).difference(new)
        if not kept.issubset(self.vouched):
            raise ValueError(f"outputs kept that are not the last build's: {sorted(kept)[:3]}")
        stale = sorted(self.before.keys() - new.keys() - kept)
        if len(new) + len(stale) > len(kept) and _linked(self.target, stage, kept):
            _swap(stage, self.target)
            return None
        renames = [(name, new[name].st_ino) for name in _commit_order(new, self.last)]
        with _ctrl_c_waits():
            _write_journal(stage, self.target, renames, stale)
            _roll_forward(stage, self.target, renames, stale, first_undoes=True)
        _discard(stage, self.target, self.defer_removal)  # the replaced files (no journal)
        # the new set as its stamp records it: the kept files as vouched for (most of them:
        # dropped in one step those that are not), then the new ones
        outputs = dict(self.vouched)
        for name in self.vouched.keys() - kept:
            del outputs[name]
        outputs.update((name, _recorded(info)) for name, info in new.items())
        return outputs


def _discard(stage: Path, target: Path, defer: bool) -> None:
    """A committed stage (no journal: it holds the files the commit replaced, and nothing the
    outputs need) removed; or, with `defer`, renamed aside for the next build's look to remove
    while that build loads (see remove_trash): unlinking a large game's replaced module (120
    MB) cost the build that replaced it 50-70 ms of the kernel freeing its blocks. The files
    set aside take their room on disk until then."""
    token = _token(stage.name, f".{target.name}.", STAGE_SUFFIX)
    if defer and token is not None:
        try:
            os.rename(stage, target.with_name(f".{target.name}{TRASH_MARK}{token}{TRASH_SUFFIX}"))
            return
        except OSError:
            pass
    shutil.rmtree(stage, ignore_errors=True)


def _still_as_recorded(
    before: Mapping[str, FileStat], recorded: Mapping[str, Recorded]
) -> dict[str, Recorded]:
    """The files of `before` (name → lstat) still as `recorded` (size, mtime, inode) with
    a build's mode; none for a record of another shape."""
    try:
        return {
            name: expected
            for name, expected in recorded.items()
            if (now := before.get(name)) is not None
            and now.st_ino == expected[2]
            and now.st_mtime_ns == expected[1]
            and now.st_size == expected[0]
            and now.st_mode & 0o7777 == FILE_MODE
        }
    except (TypeError, IndexError, KeyError):  # a record of another shape vouches for none
        return {}


def _linked(source: Path, stage: Path, names: Iterable[str]) -> bool:
    """Whether each file is now in the stage too, as a hard link (False where the file
    system has none: the stage's links go with it)."""
    try:
        for name in names:
            os.link(source / name, stage / name, follow_symlinks=False)
    except OSError:
        return False
    return True


def _visible(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as listing:
        return [entry for entry in listing if not entry.name.startswith(".")]


def _recorded(info: os.stat_result) -> Recorded:
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _commit_order(names: Iterable[str], last: Sequence[str]) -> list[str]:
    """The order the new files go in: sorted, the `last` ones at the end in their order."""
    ordered = sorted(name for name in names if name not in last)
    return ordered + [name for name in last if name in names]


SigintHandler = Callable[[int, FrameType | None], Any] | int
"""What signal.getsignal gives for SIGINT when Python set it."""


@contextmanager
def _ctrl_c_waits() -> Iterator[None]:
    """Ctrl-C (SIGINT) held back until the block is done: a commit is short, and one cut
    short would leave the folder half old, half new until the next build. The signal is
    blocked for this thread, and in the main thread Python's handler is also swapped for one
    that only notes it: the kernel gives a process's SIGINT to any thread that does not block
    it (a library's, a test's), and Python then runs the handler in the main thread at once,
    inside the block. A Ctrl-C noted or still pending is handed to the handler afterwards."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    noted: list[FrameType | None] = []
    handler = _noting_handler(noted)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if handler is not None and signal.SIGINT in signal.sigpending():
            signal.sigtimedwait({signal.SIGINT}, 0)  # taken here, handed over once below
            noted.append(None)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
            if noted:
                _hand_over(handler, noted[0])


def _hand_over(handler: SigintHandler, frame: FrameType | None) -> None:
    """A Ctrl-C held back, given to the handler that was in place (the default one ends the
    process as it would have; an ignored one stays ignored)."""
    if callable(handler):
        handler(signal.SIGINT, frame)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signal.SIGINT)


def _noting_handler(noted: list[FrameType | None]) -> SigintHandler | None:
    """In the main thread, the SIGINT handler in place, replaced by one that notes each
    Ctrl-C in `noted` (None elsewhere: only the main thread may set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGINT)
    if handler is None:  # set outside Python: left as it is
        return None
    signal.signal(signal.SIGINT, lambda signum, frame: noted.append(frame))
    return handler


Renames = list[tuple[str, int]]
"""A commit's new files: name, and inode (which tells whether it is in its place yet)."""


def _write_journal(stage: Path, target: Path, renames: Renames, stale: list[str]) -> None:
    """The commit's journal, on disk before the first rename (so that even a power cut
    leaves either no journal or all of it)."""
    text = json.dumps(
        {"format": JOURNAL_FORMAT, "target": target.name, "rename": renames, "delete": stale}
    )
    handle, temporary = tempfile.mkstemp(prefix=f"{JOURNAL}.", dir=stage)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.rename(temporary, stage / JOURNAL)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _read_journal(
    stage: Path, target: Path, owned: Callable[[str], bool]
) -> tuple[Renames, list[str]] | None:
    """The renames and deletions of a stage's journal; None when there is none, or it is
    not whole, not for this target, or names anything but a file of the folder that a build
    writes (such a journal is no commit: its stage is removed)."""
    try:
        journal = json.loads((stage / JOURNAL).read_bytes())
        if journal["format"] != JOURNAL_FORMAT or journal["target"] != target.name:
            return None
        renames, stale = journal["rename"], journal["delete"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(renames, list) or not isinstance(stale, list):
        return None
    if not all(isinstance(r, list) and len(r) == 2 and type(r[1]) is int for r in renames):
        return None
    names = [name for name, _ in renames] + stale
    if not all(_is_file_name(name) and owned(name) for name in names):
        return None
    return [(name, inode) for name, inode in renames], stale


def _is_file_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name


def _roll_forward(
    stage: Path, target: Path, renames: Renames, stale: list[str], first_undoes: bool = False
) -> None:
    """Do a journal's commit, or what is left of it: each new file put in its place (one
    whose inode is there already is done; one no longer in the stage is skipped, so that a
    damaged stage cannot stop every later build), then the stale files deleted, then the
    journal. With `first_undoes`, a first rename that fails removes the journal: nothing was
    committed, the previous set is whole (a later failure leaves it, for the next build)."""
    for number, (name, inode) in enumerate(renames):
        try:
            if _inode(target / name) != inode and _inode(stage / name) == inode:
                _rename(stage / name, target / name)
        except OSError:
            if first_undoes and number == 0:
                (stage / JOURNAL).unlink(missing_ok=True)
            raise
    for name in stale:
        (target / name).unlink(missing_ok=True)
    (stage / JOURNAL).unlink(missing_ok=True)


def _inode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except FileNotFoundError:
        return None


def _rename(source: Path, target: Path) -> None:
    """One new file of a commit in its place, in one step: a file that replaces another is
    exchanged with it (the old one is then in the stage, removed with it), as renaming a
    file over another made the file system write out the new one's data at once (ext4's
    auto_da_alloc: 50-100 ms for a module of 117 MB)."""
    if not (os.path.lexists(target) and _exchange(source, target)):
        os.rename(source, target)


def _swap(stage: Path, target: Path) -> None:
    """The stage put in the target's place as one step (the previous set, if any, goes)."""
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


def replace_folder(
    target: Path, fill: Callable[[Path], None], owned: Callable[[str], bool]
) -> Path:
    """Make a new set of outputs with `fill(folder)` in a hidden folder beside `target`, then
    put it in the target's place (see OutputFolder: here nothing of the previous set is
    reused); the previous set is kept until then. `owned` tells the names of files a build
    writes there (see _check_replaceable)."""
    OutputFolder.open(target, owned).replace(fill)
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
