"""The AddPiece texts of a module's pieces (tray slots, pieces of the set-up saves) and its set-up
saves, kept between builds: a warm rebuild writes again only the pieces whose records changed
and the saves that hold one. A tray panel's slots are kept whole (`PieceTexts.lines`, by the
keys of its pieces; runs of panels as one entry, `PieceTexts.lists_of`): a warm build looks up
one entry per run of panels, not one per piece.

A text's key is the identity digest of the unit or marker it is made of (compiler.backends.art
.identity: the record with its type, nationality, side and the layouts; the same digests the
faces are cached by, so they are computed once per build already), everything else its making
is given (images, gpid, face, steps lost, place, what the save carries, piece id), a digest of
the game's prototypes and a fingerprint of the code that writes the texts. A text is bytes on
disk in a RenderCache pack beside the faces; without a pack nothing is kept and every text is
made. A save is kept whole (its archive) by the keys of its pieces and its other commands and
files (`saves.save_file`).
"""

from __future__ import annotations

import hashlib
import marshal
import sys
import zlib
from collections.abc import Callable
from functools import cache
from itertools import chain
from pathlib import Path

from compiler import sequence
from compiler.backends.keptrecord import all_of_type, unmarshalled
from compiler.backends.rendercache import RenderCache, renderer_fingerprint
from compiler.model import gamedata

SOURCES = (Path(__file__).parent, Path(gamedata.__file__).parent)
"""The module writer's code and the model's (what a record's fields mean): their files are
part of every key."""
PLACING = ("rules/context.py", "rules/placed.py", "load/places.py")
"""The code that works out where a scenario's pieces go (its view; the places of the maps),
under the package: part of every key too (a save is kept whole by its scenario and the
records and maps it reads, `saves.save_file`)."""


@cache
def code_fingerprint() -> str:
    """Hash of the code a piece's text comes from: this package, the model, SequenceEncoder,
    the code that places a scenario's pieces (`PLACING`), the identity digests' code (in the
    renderer's fingerprint), the Python version and zlib's (a save is kept deflated)."""
    digest = hashlib.sha256(renderer_fingerprint().encode())
    digest.update(f"{sys.version}:{zlib.ZLIB_RUNTIME_VERSION}".encode())
    paths = [path for folder in SOURCES for path in sorted(folder.glob("*.py"))]
    package = Path(sequence.__file__).parent
    for path in [*paths, Path(sequence.__file__), *(package / name for name in PLACING)]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


class PieceTexts:
    """Piece texts by key, from the pack of the last build when there is one."""

    def __init__(self, pack: Path | None = None, game_digest: str = "") -> None:
        self.cache = RenderCache(pack) if pack is not None else None
        self.prefix = f"{code_fingerprint()}:{game_digest}:" if pack is not None else ""

    def text(self, make: Callable[[], str], *parts: object) -> str:
        """The text made by `make` from what `parts` name (with the game's prototypes and the
        code: see the module's docstring); from the pack when it holds it."""
        if self.cache is None:
            return make()
        return self.data(lambda: make().encode("utf-8"), *parts).decode("utf-8")

    def data(self, make: Callable[[], bytes], *parts: object) -> bytes:
        """`text` for bytes (a set-up save's archive)."""
        if self.cache is None:
            return make()
        key = hashlib.sha256((self.prefix + repr(parts)).encode("utf-8")).hexdigest()
        return self.cache.fetch(key, make)

    def digest(self, *parts: object) -> str:
        """The key `data(make, *parts)` keeps its bytes under ("" without a pack)."""
        if self.cache is None:
            return ""
        return hashlib.sha256((self.prefix + repr(parts)).encode("utf-8")).hexdigest()

    def text_digest(self, kind: str, text: str) -> str:
        """The key of an entry kept by `kind` and one text (a tray panel's `panel_token`),
        hashed as it is: the repr `digest` writes escapes each separator of a long text (a
        warm build of 8,000 counters spent 30 ms on the repr of 800 panels' tokens). Never
        one of `digest`'s keys: theirs hash a repr, which starts with a bracket."""
        if self.cache is None:
            return ""
        head = f"{self.prefix}{kind}\x1d"
        return hashlib.sha256((head + text).encode("utf-8")).hexdigest()

    def lines_of(self, key: str, make: Callable[[], list[str]]) -> list[str]:
        """`lines` of the entry `key` (a `digest`), made by `make` when the pack lacks it."""
        cache = self.cache
        if cache is None:
            return make()
        return _kept_lines(make, lambda remade: cache.fetch(key, remade))

    def lists_of(
        self, key: str, make: Callable[[], list[list[str]]], count: int
    ) -> list[list[str]]:
        """`count` lists of texts kept as one entry `key` (a `digest`): a run of tray panels'
        lines, read in one look-up, not one per panel. An entry that does not read back as
        `count` lists of texts, none empty, is not served (made again)."""
        cache = self.cache
        if cache is None:
            return make()
        made: list[list[str]] = []

        def remade() -> bytes:
            made.extend(make())
            return marshal.dumps(made)

        data = cache.fetch(key, remade)
        return made or _text_lists(data, count) or make()

    def kept_lines(self, key: str) -> list[str] | None:
        """The list of texts kept under `key` (a `digest` or `text_digest`), counted as used;
        None when the pack lacks it, holds no such list there, or there is no pack."""
        if self.cache is None:
            return None
        data = self.cache.get(key)
        return None if data is None else _texts(data)

    def kept_data(self, key: str) -> bytes | None:
        """The bytes kept under `key`, counted as used; None when the pack lacks them or there
        is no pack."""
        return None if self.cache is None else self.cache.get(key)

    def put_lines(self, key: str, lines: list[str]) -> None:
        """Keep a list of texts under `key` (read back by `kept_lines`); nothing without a
        pack."""
        if self.cache is not None:
            self.cache.put(key, marshal.dumps(lines))

    def keep(self, keys: list[str]) -> None:
        """The entries `keys` (digests) used by this build, though not read: they do not age
        (a set-up save kept whole keeps the runs of pieces it is made of)."""
        if self.cache is not None:
            self.cache.keep(keys)

    def lines(self, make: Callable[[], list[str]], *parts: object) -> list[str]:
        """`text` for a list of texts (a tray panel's slots): kept as one entry, read in one
        look-up. An entry that does not read back as such a list is not served (made again)."""
        if self.cache is None:
            return make()
        return _kept_lines(make, lambda remade: self.data(remade, *parts))

    def save(self) -> None:
        """Write what this build made; drop what several builds have not used."""
        if self.cache is not None:
            self.cache.save()


def _kept_lines(
    make: Callable[[], list[str]], kept: Callable[[Callable[[], bytes]], bytes]
) -> list[str]:
    """A list of texts kept as one entry: `kept(remade)` gives the entry's bytes, calling
    `remade` (which makes the list) when the pack lacks it; an entry that does not read back as
    such a list is not served (made again)."""
    made: list[str] = []

    def remade() -> bytes:
        made.extend(make())
        return marshal.dumps(made)

    data = kept(remade)
    return made or _texts(data) or make()


def _texts(data: bytes) -> list[str] | None:
    """A list of texts `PieceTexts.lines` kept; None when the bytes are not one."""
    try:
        found = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if type(found) is not list or not all(type(text) is str for text in found):
        return None
    return found


def _text_lists(data: bytes, count: int) -> list[list[str]] | None:
    """`count` non-empty lists of texts `PieceTexts.lists_of` kept; None when the bytes are
    not (checked in passes that stay in C)."""
    found = unmarshalled(data)
    if type(found) is not list or len(found) != count or not all_of_type(found, list):
        return None
    if not all(map(len, found)) or not all_of_type(chain.from_iterable(found), str):
        return None
    return found
