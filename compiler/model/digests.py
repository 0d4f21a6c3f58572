"""Content digests of model records: the sha256 of a record's repr, which leaves out where in
the sources it was written (a `Node`'s positions are not in its repr). Back ends key their
caches on these digests (compiler.backends.art.identity), so a unit moved to another line of
its file keeps its cached faces.

The loader keeps each list item it read with its digest (compiler.load.keptread) and tells
it here when it reads the item back, so a warm build does not spell out again, record by
record, the thousands of units that did not change (at 8,000 counters the reprs were most of
what working out the faces' identities cost). A digest told here is only ever the one worked
out from the same record's repr by the same code: the loader's kept items are keyed by the
loader's and the model's code (compiler.load.records.loader_fingerprint).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from operator import is_, itemgetter
from typing import cast

_KNOWN: dict[int, tuple[object, str]] = {}
"""id(record) → (the record, its digest); the record is held, so that its id stays its own."""

LIMIT = 1 << 18
"""Records remembered at most: past it the memo starts again (a long `build --watch` loads
the same games again and again)."""


def content_digest(record: object) -> str:
    """The sha256 (hex) of `repr(record)`, remembered for the record."""
    found = _KNOWN.get(id(record))
    if found is not None and found[0] is record:
        return found[1]
    value = digest_of(record)
    remember(record, value)
    return value


def content_digests(records: Sequence[object]) -> list[str]:
    """`content_digest` of each record; when every one is remembered (a warm build's units,
    told by the loader), looked up in passes that stay in C (8,000 units: no call each)."""
    found = list(map(_KNOWN.get, map(id, records)))
    if None not in found:
        known = cast(list[tuple[object, str]], found)
        if all(map(is_, map(_RECORD, known), records)):
            return list(map(_DIGEST, known))
    # some not remembered (a warm build's changed rows): only those worked out, the others
    # taken as found without a call each (an order of battle of 4,000 rows, one changed)
    return [
        pair[1] if pair is not None and pair[0] is record else content_digest(record)
        for pair, record in zip(found, records, strict=True)
    ]


_RECORD, _DIGEST = itemgetter(0), itemgetter(1)


def digest_of(record: object) -> str:
    """The digest worked out (not remembered): what the loader keeps with an item."""
    return hashlib.sha256(repr(record).encode("utf-8")).hexdigest()


def are_digests(values: Sequence[object]) -> bool:
    """Whether every value is a digest as `digest_of` writes it (64 lowercase hexadecimal
    digits): what a kept item or row read back must carry to be told (checked in passes that
    stay in C: a large game's charts keep thousands of rows)."""
    if not (
        set(map(type, values)) <= {str}
        and set(map(len, cast(Sequence[str], values))) <= {DIGEST_LENGTH}
    ):
        return False
    try:
        joined = "".join(cast(Sequence[str], values)).encode("ascii")
    except UnicodeEncodeError:
        return False
    # bytes.translate deleting the digits is one pass over a table (str.strip with 16
    # characters to strip looked each character up among them: some 60 µs for a run of 32
    # digests, 0.05 s for a warm load's and aids' 900 runs at 8,000 counters)
    return not joined.translate(None, _HEX_BYTES)


DIGEST_LENGTH = 64
HEX_DIGITS = "0123456789abcdef"
_HEX_BYTES = HEX_DIGITS.encode("ascii")


def remember(record: object, digest: str) -> None:
    """Note the digest of a record read back with it (see the module's docstring)."""
    if len(_KNOWN) >= LIMIT:
        _KNOWN.clear()
    _KNOWN[id(record)] = (record, digest)


def remember_all(records: Sequence[object], digests: Sequence[str]) -> None:
    """`remember` for each record and its digest, in one pass that stays in C (a warm load
    tells the digests of thousands of units read back)."""
    if len(_KNOWN) + len(records) > LIMIT:
        _KNOWN.clear()
    _KNOWN.update(zip(map(id, records), zip(records, digests, strict=True), strict=True))
