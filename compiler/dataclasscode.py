"""The compiled code of the methods dataclasses make, kept between processes.

`@dataclass` writes the source text of each method it adds (`__init__`, `__repr__`, `__eq__`,
`__hash__`, a frozen class's `__setattr__` and `__delattr__`) and compiles it with `exec`
every time the module defining the class is imported: about 920 compiles for the tool's 163
dataclasses, half of what importing the tool costs (0.22 of 0.43 s of a build's start-up,
Python 3.11, 2026-12-03). The text depends only on the class's fields and options, and
compiling a text always gives the same code, so the code can be kept like a `.pyc`: a file in
the user's cache folder maps each text to its marshalled code; a text found there is
unmarshalled (a few microseconds) instead of compiled, a new one is compiled and added.

Exactness: on the Python versions listed in SUPPORTED, dataclasses compiles with one call,
`exec(text, globals, locals)` in its own module, which has no `from __future__` imports. While
installed, a function of this module stands in for the name `exec` in the dataclasses module
(nowhere else) and runs `exec(code, globals, locals)` with the same arguments, `code` being
what `compile(text, "<string>", "exec", dont_inherit=True)` gives, as `exec(text)` compiles
it there: the same code, in the same namespaces. Texts of classes outside this package are
compiled every time, as before (the file holds the tool's own). The file's name carries the
interpreter's cache tag and bytecode magic number and the optimisation level, so only the
same interpreter ever reads it; a file that is missing, damaged or foreign, or a folder that
cannot be written, only means compiling as before. The file holds code that runs, as a .pyc
does: it is read only when it is the user's own and writable by them alone (written 0600 in a
folder made 0700), and it lives in the user's cache folder, never in a build's output folder
(whose kept records never run code).

Several processes (a test run, a watch beside a build) may share the file: a process that
compiled something new merges it into the file as it is then and replaces the file
atomically; a lost race only costs the loser's additions, compiled again next time.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

SUPPORTED = ((3, 11), (3, 12), (3, 13))
"""Python versions whose dataclasses compile with one `exec(text, globals, locals)` call in
their own module (checked against each version's dataclasses.py; tests/test_startup_code.py)."""

OWN_PACKAGE = "compiler"
"""Classes of this package's modules are the ones whose code is kept."""

FILENAME = "<string>"
"""The file name `exec(text)` compiles a text with."""

HEADER = b"countermix dataclass code 1\n"
"""What the file starts with, before its payload's CRC-32 (4 bytes, big-endian)."""

MOST_TEXTS = 4096
"""Texts kept at most: beyond it (texts left by earlier versions of the tool), a process
writes only the texts it used itself."""


class CodeCache:
    """Compiled texts, read from `path` when first needed, written back by `save` when some
    were compiled anew."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._known: dict[str, bytes] | None = None
        self._added: dict[str, bytes] = {}
        self._used: set[str] = set()

    def code(self, text: str) -> CodeType:
        """The code of `text`, as `compile(text, "<string>", "exec", dont_inherit=True)`
        gives it: unmarshalled from the file, or compiled and remembered."""
        known = self._known_texts()
        self._used.add(text)
        kept = known.get(text)
        if kept is not None:
            code = _unmarshalled_code(kept)
            if code is not None:
                return code
        code = compile(text, FILENAME, "exec", dont_inherit=True)
        known[text] = self._added[text] = marshal.dumps(code)
        return code

    def _known_texts(self) -> dict[str, bytes]:
        if self._known is None:
            self._known = read_texts(self.path) if self.path is not None else {}
        return self._known

    def has_additions(self) -> bool:
        """Whether a text was compiled that the file did not hold."""
        return bool(self._added)

    def save(self) -> None:
        """Merge what was compiled anew into the file, replacing it atomically; silently
        nothing when nothing is new or the folder cannot be written."""
        if not self._added or self.path is None:
            return
        texts = {**read_texts(self.path), **self._known_texts()}
        if len(texts) > MOST_TEXTS:
            texts = {text: texts[text] for text in self._used if text in texts}
        try:
            write_atomically(self.path, encoded(texts))
        except OSError:
            return
        self._added.clear()


def encoded(texts: Mapping[str, bytes]) -> bytes:
    """The file's bytes: HEADER, the payload's CRC-32, the marshalled {text: code bytes}."""
    payload = marshal.dumps(dict(texts))
    return HEADER + zlib.crc32(payload).to_bytes(4, "big") + payload


def decoded(data: bytes) -> dict[str, bytes]:
    """The texts of a file's bytes; empty when they are not a whole file of this format."""
    start = len(HEADER) + 4
    if not data.startswith(HEADER) or len(data) < start:
        return {}
    payload = data[start:]
    if zlib.crc32(payload).to_bytes(4, "big") != data[len(HEADER) : start]:
        return {}
    try:
        texts = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(texts, dict):
        return {}
    return {
        text: kept
        for text, kept in texts.items()
        if isinstance(text, str) and isinstance(kept, bytes)
    }


def read_texts(path: Path) -> dict[str, bytes]:
    """The texts in the file at `path`; empty when it is missing, unreadable, damaged, or
    could have been written by another user (see is_private)."""
    try:
        with open(path, "rb") as stream:
            if not is_private(os.fstat(stream.fileno())):
                return {}
            data = stream.read()
    except OSError:
        return {}
    return decoded(data)


def is_private(status: os.stat_result) -> bool:
    """Whether a file is the user's own and only theirs to write. The file holds code that
    runs, like a .pyc: it is trusted as the user's other files are (their cache folder, like
    their site-packages, is theirs alone), and not at all if another user could have put it
    there or changed it."""
    owner = getattr(os, "geteuid", None)
    if owner is not None and status.st_uid != owner():
        return False
    return not status.st_mode & 0o022


def _unmarshalled_code(kept: bytes) -> CodeType | None:
    try:
        code = marshal.loads(kept)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a new file beside `path` and rename it over `path`: a reader sees the
    old file or the new one, never a part."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def cache_folder(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The user's cache folder for the tool ($XDG_CACHE_HOME/countermix, else
    ~/.cache/countermix); None when neither is an absolute path."""
    base = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = environ.get("HOME") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "countermix"


def cache_file_name() -> str:
    """The file's name, which only this interpreter (same bytecode, same -O level) reads."""
    from importlib.util import MAGIC_NUMBER

    tag = sys.implementation.cache_tag or sys.implementation.name
    return f"dataclass-code.{tag}.{MAGIC_NUMBER.hex()}.O{sys.flags.optimize}.marshal"


def cache_path() -> Path | None:
    """Where the cache file of this interpreter lives, if there is a cache folder."""
    folder = cache_folder()
    return None if folder is None else folder / cache_file_name()


def is_own(globals_: Mapping[str, Any]) -> bool:
    """Whether the namespace a text is run in is a module of this package."""
    name = globals_.get("__name__")
    return isinstance(name, str) and (name == OWN_PACKAGE or name.startswith(OWN_PACKAGE + "."))


_cache: CodeCache | None = None
_installed_by: int | None = None
"""The process that installed the stand-in (a forked worker does not write the file)."""


def _exec(
    source: object,
    globals_: dict[str, Any] | None = None,
    locals_: Mapping[str, object] | None = None,
    /,
) -> None:
    """`exec` as the dataclasses module calls it, with the code of the tool's texts kept."""
    if globals_ is None:  # exec's own default: the caller's namespaces
        frame = sys._getframe(1)
        globals_ = frame.f_globals
        if locals_ is None:
            locals_ = frame.f_locals
    if isinstance(source, str):
        cache = _cache
        if cache is not None and is_own(globals_):
            source = cache.code(source)
        else:
            source = compile(source, FILENAME, "exec", dont_inherit=True)
    exec(source, globals_, locals_)  # type: ignore[arg-type]  # noqa: S102


def kept_code(text: str) -> CodeType:
    """`compile(text, "<string>", "exec", dont_inherit=True)` for other generated code of the
    tool's own (compiler.load.records' makers, the shipped player-aids template), kept in
    the same file when the stand-in is installed: the caller vouches that `text` is the tool's
    own, as is_own does for dataclasses."""
    cache = _cache
    if cache is None or _installed_by != os.getpid():
        return compile(text, FILENAME, "exec", dont_inherit=True)
    return cache.code(text)


def supported(version: tuple[int, ...] = tuple(sys.version_info[:2])) -> bool:
    """Whether this Python's dataclasses compile the way `_exec` stands in for."""
    return version in SUPPORTED and sys.implementation.name == "cpython"


def install(path: Path | None = None) -> bool:
    """Keep the compiled code of the tool's dataclasses in the cache file at `path` (default:
    cache_path()) from now on; whether it is installed. Idempotent; `save` at the end of the
    process writes what was new."""
    global _cache, _installed_by
    dataclasses = _dataclasses_module()
    if dataclasses is None:
        return False
    if vars(dataclasses).get("exec") is _exec:
        return True
    if "exec" in vars(dataclasses):  # someone else stands in for it: leave it alone
        return False
    _cache = CodeCache(cache_path() if path is None else path)
    _installed_by = os.getpid()
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    import atexit

    atexit.register(save)
    return True


def _dataclasses_module() -> ModuleType | None:
    if not supported():
        return None
    import dataclasses

    if not callable(getattr(dataclasses, "_create_fn", None)) and sys.version_info < (3, 13):
        return None
    return dataclasses


def uninstall() -> None:
    """Put dataclasses back as it was (the file is not written)."""
    global _cache, _installed_by
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None and vars(dataclasses).get("exec") is _exec:
        del dataclasses.exec
    _cache = None
    _installed_by = None


def save() -> None:
    """Write what this process compiled anew to the cache file (once it has ended its work:
    the command's entry point calls it before the process exits, atexit otherwise). Never
    raises: a cache that cannot be written is only a cache."""
    cache = _cache
    if cache is None or _installed_by != os.getpid():
        return
    try:
        cache.save()
    except Exception:  # noqa: BLE001, S110  # a cache must never fail the command
        pass
