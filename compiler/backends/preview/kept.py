"""The preview page's items kept from the last build: each unit's HTML under a key of what
decides it, in one record of the edition's cache folder (an 8,000-counter page made every
unit's item again on every build, though one unit had changed).

A key holds the unit's identity (the digest of its records: compiler.backends.art.identity),
its place in the sources as its link shows it and the names of its images; the record holds,
besides the items, what every item shares: the code that writes them, the renderer's
fingerprint (how values are shown), the language and its words, the anchor and the folders
links are made relative to. A record whose shared part differs, or that is damaged, is no
record: every item is made again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

from compiler.backends.keptrecord import all_of_type, read_record, write_record
from compiler.backends.rendercache import renderer_fingerprint

RECORD = "preview-units.marshal"
"""The record in an edition's cache folder."""
FORMAT = "countermix-preview-units-1"
CODE = ("sections.py", "html.py", "kept.py")
"""The preview code an item is written by (its bytes are in every record's shared part)."""


@cache
def code_digest() -> str:
    """A digest of the preview code that writes the items."""
    digest = hashlib.sha256()
    for name in CODE:
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()


def shared_part(*parts: str) -> str:
    """What every item of a record depends on besides its key: `parts` (the language, its
    words, the anchor, the folders ...), the code and the working folder (a data file's name
    may be relative to it)."""
    return "\0".join((FORMAT, code_digest(), renderer_fingerprint(), _working_folder(), *parts))


def _working_folder() -> str:
    """The working folder; "?" when it is gone (the page's links then fail as they did)."""
    try:
        return os.getcwd()
    except OSError:
        return "?"


class KeptItems:
    """Items by key, read from the last build's record and written back when they changed."""

    def __init__(self, record: Path | None, shared: str) -> None:
        self.record = record
        self.shared = shared
        self.old = read_items(record, shared)
        self.items: dict[str, str] = {}
        """The items of this build, by key."""
        self.made = 0

    def item(self, key: str, make: Callable[[], str]) -> str:
        """The item under `key`: the last build's, else made now."""
        found = self.old.get(key)
        if found is None:
            found = make()
            self.made += 1
        self.items[key] = found
        return found

    def save(self) -> None:
        """The record written again when this build made an item or left one out (only this
        build's items are kept); else left as it is. A cache folder that cannot be written is
        left too: the build reports its output folder's own error."""
        if self.record is None or (not self.made and self.items.keys() == self.old.keys()):
            return
        write_record(self.record, (FORMAT, self.shared), self.items)


def read_items(record: Path | None, shared: str) -> dict[str, str]:
    """The items of a record written with the same shared part; empty when there is none, or
    it is damaged or of another shape."""
    items = read_record(record, (FORMAT, shared))
    if type(items) is not dict:
        return {}
    if not all_of_type(items, str) or not all_of_type(items.values(), str):
        return {}  # checked in passes that stay in C: thousands of items
    return items
