"""The preview page's units section kept from the last build in runs of RUN_UNITS units: each
run's HTML (its items, with the headings and list tags that fall among them) in a render cache
of the edition's cache folder, under a key of what decides it. A warm build looks a run up
with one key worked out in passes that stay in C, and makes again only the runs a changed unit
is in (an 8,000-counter page made, or looked up, every unit's item on every build).

A run's key holds, for each of its units, a row of its content digest (compiler.model.digests,
which the loader tells for every unit it read back), its place in the sources (file and line),
the names of its images and the HTML that comes before its item (the rows made for every
unit at once, in passes that stay in C); and what every run shares:
the code that writes them, the renderer's fingerprint (how values are shown: in every
digest_key), the language and its words, the anchor, the folders links are made relative to
and how each data file's link is shown. A run whose bytes are damaged is no run (the cache
checks each entry's CRC): it is made again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from compiler.backends.rendercache import RenderCache, digest_key

RUNS = "preview-units.pack"
"""The render cache of the runs in an edition's cache folder."""
OLD_RECORD = "preview-units.marshal"
"""Where the items were kept one by one before: removed when the runs are saved."""
FORMAT = "countermix-preview-units-4"
RUN_UNITS = 32
"""Units whose items are kept together: an unchanged run costs one look-up."""
CODE = ("sections.py", "html.py", "kept.py", "unitorder.py", "sprites.py")
"""The preview code an item is written by (its bytes are in every key)."""


@cache
def code_digest() -> str:
    """A digest of the preview code that writes the items."""
    digest = hashlib.sha256()
    for name in CODE:
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()


def shared_part(*parts: str) -> str:
    """What every run depends on besides its units: `parts` (the language, its words, the
    anchor, the folders ...), the code and the working folder (a data file's name may be
    relative to it)."""
    return "\0".join((FORMAT, code_digest(), _working_folder(), *parts))


def _working_folder() -> str:
    """The working folder; "?" when it is gone (the page's links then fail as they did)."""
    try:
        return os.getcwd()
    except OSError:
        return "?"


class KeptRuns:
    """Runs of the units section by key, read from the last build's cache and kept there."""

    def __init__(self, pack: Path | None, shared: str) -> None:
        self.cache = RenderCache(pack)
        self.seed = hashlib.sha256(shared.encode("utf-8", "surrogatepass"))
        self.made = 0
        """Runs made by this build (not found)."""

    def share(self, parts: Sequence[str]) -> None:
        """Add `parts` to what every run shares (before any run is looked up)."""
        data = repr(list(parts)).encode("utf-8", "surrogatepass")
        self.seed.update(len(data).to_bytes(8, "big"))
        self.seed.update(data)

    def key(self, rows: Sequence[str]) -> str:
        """The key of a run of units, each described by its row (see `run_key`)."""
        return run_key(self.seed, rows)

    def found(self, key: str) -> bytes | None:
        """The HTML (UTF-8) of the run kept under `key` by the last build; None when there
        is none (or its bytes are not text). Kept as bytes: the page is written as bytes, and
        the units section of a large game is megabytes (decoded, joined and encoded again
        it cost more than reading it)."""
        found = self.cache.get(key)
        if found is None or found.isascii():
            return found
        try:
            found.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None
        return found

    def run(self, key: str, make: Callable[[], str]) -> bytes:
        """The HTML (UTF-8) of the run of `key`: the last build's when it kept the same run,
        else made now and kept."""
        found = self.found(key)
        if found is not None:
            return found
        made = make().encode("utf-8", "surrogatepass")
        self.cache.put(key, made)
        self.made += 1
        return made

    def section(self, name: str, shape: str, make: Callable[[], str]) -> bytes:
        """The HTML of (part of) a section, `name`, kept under what every run shares and
        `shape` (the repr of everything else it is made of): a section of one item per
        chart of a large game (hundreds) is looked up instead of escaped item by item."""
        digest = self.seed.copy()
        digest.update(b"\1" + name.encode("ascii") + b"\1")
        digest.update(shape.encode("utf-8", "surrogatepass"))
        return self.run(digest_key("preview-section", digest.hexdigest()), make)

    def save(self) -> None:
        """The cache written where it changed (nothing written when every run was found);
        the record the items were kept in one by one before is removed."""
        self.cache.save()
        if self.cache.pack is not None:
            try:
                (self.cache.pack.parent / OLD_RECORD).unlink(missing_ok=True)
            except OSError:
                pass


def run_key(seed: hashlib._Hash, rows: Sequence[str]) -> str:
    """The cache key of a run: `seed` (what every run shares), then the rows of its units,
    each a line (a row is its unit's fields joined by NULs: no field holds a NUL or, but the
    last, a line break; the last is a repr)."""
    digest = seed.copy()
    digest.update("\n".join(rows).encode("utf-8", "surrogatepass"))
    return digest_key("preview-units", digest.hexdigest())
