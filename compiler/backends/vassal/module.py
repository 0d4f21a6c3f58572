"""Plan and write one game's module: images, board layouts, gpids, build file, scenario saves,
then a deterministic zip written next to its target and renamed over it."""

from __future__ import annotations

import hashlib
import marshal
import mmap
import os
import struct
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from itertools import chain, compress, repeat
from operator import attrgetter, ne, not_
from pathlib import Path
from typing import Literal, NamedTuple, cast

from PIL import Image

from compiler.backends.art import pieces as art
from compiler.backends.art.drawing import (
    Drawing,
    block_drawing,
    card_drawing,
    deck_back_drawing,
    marker_drawing,
    step_drawing,
    unit_drawing,
)
from compiler.backends.art.identity import (
    IDENTITIES,
    RUN_UNITS,
    card_identity,
    deck_identity,
    marker_identity,
    unit_identities,
)
from compiler.backends.art.pixels import raw_bytes
from compiler.backends.art.raster import rasterize
from compiler.backends.art.svg import drawing_svg
from compiler.backends.charts.build import ChartPng, all_charts, chart_images
from compiler.backends.files import FileRange, Part, write_parts_atomically
from compiler.backends.keptrecord import all_of_type
from compiler.backends.pergame import PerGameMemo
from compiler.backends.pieceart import ArtError as ArtError  # raised here, caught by callers
from compiler.backends.pieceart import load_picture
from compiler.backends.rendercache import RenderCache, cache_key, digest_key
from compiler.backends.vassal import pieces as pc
from compiler.backends.vassal.boardart import board_art_size, load_board_art
from compiler.backends.vassal.buildfile import (
    REINFORCEMENTS_MAP,
    ModulePlan,
    build_file_xml,
    turn_zone,
)
from compiler.backends.vassal.geometry import MapLayout, box_strip, layout_map
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.saves import ZIP_DATE, save_file
from compiler.backends.vassal.zipindex import ZipIndex, read_index, write_index
from compiler.gcpause import no_cyclic_gc
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.model.units import PieceArt, Unit

ZIP_STORED, ZIP_DEFLATED = 0, 8
"""The zip methods (zipfile's constants; zipfile itself, with bz2 and lzma, is not imported
by a build that writes no whole zip)."""

PIECE_SIZE = 64
CARD_HEIGHT = 210


Read = Callable[[], bytes]
"""How the bytes of a file not read yet are read (LazyFiles)."""


class LazyFiles(Mapping[str, bytes]):
    """Files by name, some of them read only when their bytes are asked for: a face a warm
    build takes from the render cache is known by its name, size and CRC-32 (the names table
    and the cache's index tell them), and the module's zip copies it from the module before
    while the preview links it from the last set of outputs, so most are never read (a warm
    build of 8,000 counters read 12,860 of them). Reading one that turns out damaged in the
    cache draws it again (see `FaceRenderer.finish`)."""

    def __init__(self, files: Mapping[str, bytes] | None = None) -> None:
        self._files: dict[str, bytes] = dict(files or {})
        self._later: dict[str, tuple[int, Read]] = {}
        self._read: dict[str, bytes] = {}
        """What was read of `_later` (kept apart: a name stays where it was put)."""

    @classmethod
    def of(cls, files: Mapping[str, bytes]) -> LazyFiles:
        """A copy of `files` to add to, reading what is not read yet as `files` would."""
        if not isinstance(files, LazyFiles):
            return cls(files)
        copy = cls(files._files)
        copy._later, copy._read = dict(files._later), files._read
        return copy

    def put(self, name: str, data: bytes) -> None:
        self._later.pop(name, None)
        self._files[name] = data

    def put_later(self, name: str, size: int, read: Read) -> None:
        """A file of `size` bytes, read by `read` when asked for."""
        self._files.pop(name, None)
        self._later[name] = (size, read)

    def put_all_later(self, files: dict[str, tuple[int, Read]]) -> None:
        """`put_later` of each file (name -> size and how to read it) at once (a warm build
        of 8,000 counters puts 12,860 faces)."""
        for name in self._files.keys() & files.keys():
            del self._files[name]
        self._later.update(files)

    def put_from(self, name: str, source: Mapping[str, bytes], key: str) -> None:
        """The file `key` of `source` under `name`: read as `source` would read it, when it is
        not read yet (the preview names thousands of the module's images: kept cheap)."""
        if isinstance(source, LazyFiles) and key not in source._read:
            later = source._later.get(key)
            if later is not None:
                self._files.pop(name, None)
                self._later[name] = later
                return
        self.put(name, source[key])

    def sizes(self) -> dict[str, int]:
        """Every file's length by name, none read."""
        found = {name: size for name, (size, _read) in self._later.items()}
        found.update(zip(self._files, map(len, self._files.values()), strict=True))
        return found

    def size(self, name: str) -> int:
        """A file's length, without reading it."""
        found = self._files.get(name)
        return len(found) if found is not None else self._later[name][0]

    def __getitem__(self, name: str) -> bytes:
        found = self._files.get(name)
        if found is None:
            found = self._read.get(name)
        if found is None:
            found = self._later[name][1]()
            self._read[name] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return chain(self._files, self._later)

    def __len__(self) -> int:
        return len(self._files) + len(self._later)

    def __contains__(self, name: object) -> bool:
        return name in self._files or name in self._later


def file_size(files: Mapping[str, bytes], name: str) -> int:
    """The length of a file of `files`, read only when `files` cannot tell it otherwise."""
    return files.size(name) if isinstance(files, LazyFiles) else len(files[name])


class ImageStore:
    """Images by content: the same picture is stored once, under a name made from its bytes."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.later: dict[str, tuple[int, Read]] = {}
        """Images named before and kept in a render cache: read when asked for (LazyFiles)."""
        self.crcs: dict[str, int] = {}
        """The CRC-32 of the files whose checksum is known already (`zip_bytes` takes it)."""

    def images(self) -> LazyFiles:
        """Every image as `images/<name>`; those only known by name, read when asked for."""
        files, later = self.files, self.later
        out = LazyFiles(dict(zip(map(IMAGES.__add__, files), files.values(), strict=True)))
        named = dict(zip(map(IMAGES.__add__, later), later.values(), strict=True))
        for name in later.keys() & files.keys():
            del named[IMAGES + name]
        out.put_all_later(named)
        return out

    def add(self, image: Image.Image, prefix: str) -> str:
        return self.add_png(art.png_bytes(image), prefix)

    def add_png(self, data: bytes, prefix: str) -> str:
        """Store PNG or SVG bytes (told apart by their first bytes); the file's name."""
        return self.add_file(data, "svg" if data.startswith(b"<?xml") else "png", prefix)

    def add_file(self, data: bytes, ext: str, prefix: str) -> str:
        """Store an image file's bytes as they are; the file's name."""
        name = f"{prefix}-{hashlib.sha1(data).hexdigest()[:16]}.{ext}"
        self.files[name] = data
        return name


Job = tuple[str, str, Callable[[], bytes]]  # (cache key, image name prefix, make image bytes)
PieceImages = Literal["svg", "png"]
"""How piece faces go into the module: SVG (VASSAL draws them sharp at every zoom; the
default) or PNG rasterised at the module's scale (sharp at 100%)."""


def _png(drawing: Callable[[], Drawing], height: int) -> Callable[[], bytes]:
    return lambda: art.png_bytes(rasterize(drawing(), height))


def _svg(drawing: Callable[[], Drawing], height: int) -> Callable[[], bytes]:
    def make() -> bytes:
        face = drawing()
        return drawing_svg(face, max(1, round(face.width * height)), height)

    return make


class FaceRenderer:
    """Every face the module needs, drawn once per content (cache) on every core."""

    def __init__(
        self,
        game: GameData,
        store: ImageStore,
        cache: RenderCache,
        lang: str,
        images: PieceImages = "svg",
    ) -> None:
        self.game, self.store, self.cache, self.lang = game, store, cache, lang
        self.images = images
        self.jobs: list[Job] = []
        self.pictures: dict[str, str] = {}
        self.steps: dict[int, str] = {}
        """The step-loss overlays queued, by steps lost (`step`)."""
        self.drawn = self.reused = 0
        """The cache's misses and hits once every face is rendered (`finish`)."""
        self.kept: dict[str, str] = {}
        """The names of the faces taken as the build before named them (`take_named`)."""

    def want(
        self,
        prefix: str,
        drawing: Callable[[], Drawing],
        *identity: object,
        height: int = PIECE_SIZE,
    ) -> str:
        """Queue a face; returns its cache key (resolved to a file name by `finish`)."""
        key = digest_key(prefix, self.images, str(height), self.lang, *map(str, identity))
        make = _svg(drawing, height) if self.images == "svg" else _png(drawing, height)
        self.jobs.append((key, prefix, make))
        return key

    def step(self, lost: int) -> str:
        """The overlay of `lost` steps lost, queued once: every unit shares it (a game of 8,000
        counters queued it 15,200 times)."""
        key = self.steps.get(lost)
        if key is None:
            key = self.want("step", partial(step_drawing, lost), "step", lost)
            self.steps[lost] = key
        return key

    def picture(self, art: PieceArt, key: str, owner: str) -> str:
        """A face from an image file of the data, stored as it is (never cached: the file is
        read on every build); returns its key, resolved by `finish` like a drawn face's."""
        found = f"art:{self.game.root}:{getattr(art, key)}"
        if found not in self.pictures:
            image = load_picture(self.game, art, key, owner)
            self.pictures[found] = self.store.add_file(image.data, image.ext, "art")
        return found

    def face(
        self,
        art: PieceArt | None,
        key: str,
        owner: str,
        drawn: Callable[[], str],
    ) -> str:
        """The picture `art` gives for side `key`, else the drawn face (`drawn` queues it)."""
        if art is not None and getattr(art, key):
            return self.picture(art, key, owner)
        return drawn()

    def finish(self, table: FaceNames | None = None) -> dict[str, str]:
        """Render what the cache lacks; map each key to its image file name. The names are
        noted in `table` (saved by the caller), else in a table of their own, saved here.
        A face the table named before, whose cache entry is still the one it named (the same
        length and CRC-32 in the cache's index), is not read: it is stored to be read when
        its bytes are asked for (`kept_later`)."""
        names_table = table or self.names_table()
        names = self.kept
        jobs: dict[str, tuple[str, Read]] = {}
        for key, prefix, make in self.jobs:
            if key not in names:
                jobs.setdefault(key, (prefix, make))
        for key, (prefix, make) in jobs.items():
            name = self.kept_later(names_table, key, prefix, make)
            if name is not None:
                names[key] = name
        self.cache.keep(names)  # used by this build, though not read: they do not age
        rest = [(key, make) for key, (_prefix, make) in jobs.items() if key not in names]
        made = self.cache.render_all(rest)
        self.drawn, self.reused = self.cache.misses, self.cache.hits + len(names)
        drawn = set(self.cache.new)
        for key, _make in rest:
            cached = key not in drawn
            prefix = jobs[key][0]
            names[key] = store_named(self.store, names_table, key, prefix, made[key], cached)
        self.cache.save()
        if table is None:
            names_table.save()
        return {**names, **self.pictures}

    def kept_later(self, table: FaceNames, key: str, prefix: str, make: Read) -> str | None:
        """The name of the face of `key` when the build before named it and the cache holds
        an entry under `key` (not read here), stored to be read when needed; else None."""
        found = table.before.get(key)
        cache = self.cache
        if found is None or key in cache.memory or not cache.holds(key):
            return None
        name, crc, size = found
        if not name.startswith(prefix) or name[len(prefix) : len(prefix) + 1] != "-":
            return None
        if name not in self.store.files:
            self.store.later[name] = (size, partial(_read_face, cache, key, make, crc, size))
        self.store.crcs[name] = crc
        table.now[key] = found  # `note`, the same (name, CRC-32, size)
        return name

    def names_table(self) -> FaceNames:
        """The names the build before gave, for this cache, language and kind of faces."""
        return FaceNames(self.cache.pack, self.lang, self.images)

    def key_of(self, prefix: str) -> Callable[[str], str]:
        """The cache key `want(prefix, drawing, identity)` gives, from the identity."""
        head = digest_key(prefix, self.images, str(PIECE_SIZE), self.lang, "")
        return head.__add__

    def take_named(
        self, table: FaceNames, faces: Mapping[str, list[str]], redraw: Callable[[str], bytes]
    ) -> set[str]:
        """The faces (their keys, by the name prefix they go under) the build before named
        (`table`) whose entries the cache still holds, none made by this build: each is
        stored to be read when needed, as `kept_later` does for a face queued, without
        being queued (a warm build of 8,000 counters spent 15 us a face queueing them);
        the keys of those taken. `redraw(key)` draws one again (a damaged entry)."""
        found = self.named(table, faces)
        self.take(table, found, redraw)
        return set(found)

    def named(self, table: FaceNames, faces: Mapping[str, list[str]]) -> Names:
        """The entries of `table` (the build before's) `take_named` takes of `faces`."""
        before, cache = table.before, self.cache
        index, memory = cache.index, cache.memory
        taken: set[str] = set()
        for prefix, keys in faces.items():
            start = prefix + "-"
            held = index.keys() & keys  # whole tables at once: sets
            held -= memory.keys()
            held &= before.keys()
            taken.update([key for key in held if before[key][0].startswith(start)])
        return {key: before[key] for key in taken}

    def still_named(self, table: FaceNames, keys: set[str]) -> bool:
        """Whether `take_named` would take every face of `keys` (of a run of units: `FaceRun`)
        as the build before named it: the names table has it, and the cache holds it, not
        made by this build (tested on the whole set at once). A face's name is the names
        table's entry, whichever build wrote it (its key decides its bytes)."""
        cache = self.cache
        return (
            keys <= table.before.keys()
            and keys <= cache.index.keys()
            and keys.isdisjoint(cache.memory.keys())
        )

    def take(self, table: FaceNames, found: Names, redraw: Callable[[str], bytes]) -> None:
        """Take the faces `found` (key -> name, CRC-32, size, as the build before named them)
        as `take_named` does, in passes that stay in C."""
        table.now.update(found)
        keys, values = list(found), list(found.values())
        names, crcs, sizes = (
            [list(column) for column in zip(*values, strict=True)] if values else ([], [], [])
        )
        self.kept.update(zip(keys, names, strict=True))
        self.store.crcs.update(zip(names, crcs, strict=True))
        cache = self.cache
        readers = map(
            partial, repeat(_read_taken), repeat(cache), repeat(redraw), keys, crcs, sizes
        )
        later = dict(zip(names, zip(sizes, readers, strict=True), strict=True))
        for name in later.keys() & self.store.files.keys():
            del later[name]
        self.store.later.update(later)


def _read_face(cache: RenderCache, key: str, make: Read, crc: int, size: int) -> bytes:
    """A kept face's bytes from the cache, when they are those its name was given for (their
    length and CRC-32 those the names table noted); else drawn again, which gives those bytes
    (a face's key decides its look, and drawing is deterministic: else this is a bug, said
    so rather than written into a module under another image's name)."""
    found = cache.get(key)
    if found is not None and len(found) == size and zlib.crc32(found) == crc:
        return found
    made = make()
    if len(made) != size or zlib.crc32(made) != crc:
        raise RuntimeError(f"the face of {key} drawn again is not the one named before")
    return made


def _read_taken(
    cache: RenderCache, redraw: Callable[[str], bytes], key: str, crc: int, size: int
) -> bytes:
    """`_read_face` of a face `take_named` took (drawn again by `redraw(key)`)."""
    return _read_face(cache, key, partial(redraw, key), crc, size)


def store_named(
    store: ImageStore, table: FaceNames, key: str, prefix: str, data: bytes, cached: bool
) -> str:
    """Store an image of cache key `key`; its file name. The name (a digest of the bytes) and
    the CRC-32 of an image read from its cache follow from its key as its bytes do: they are
    kept in the table of the build before (`FaceNames`), so such an image (a face, a chart) is
    not hashed again, here or in the zip. One drawn by this build is hashed."""
    kept = table.kept(key, prefix, len(data)) if cached else None
    if kept is not None:
        name, crc = kept
        store.files[name] = data
    else:
        name = store.add_png(data, prefix)
        crc = zlib.crc32(data)
    store.crcs[name] = crc
    table.note(key, name, crc, len(data))
    return name


class FaceNames:
    """The file name and CRC-32 of every face and chart PNG of a build, by its cache key, kept
    for the next build in one file beside the faces' render cache pack (`<pack>.names-<language
    and kind>`): read and written whole, once per build (a warm build of 8,000 counters looked
    12,860 of them up in the pack one by one, and hashed its 114 MB of charts again). A missing
    or damaged table is empty: every image is hashed.

    A build that changed few entries writes only what changed since the table was written
    whole (`<pack>.changes-<language and kind>`, naming the table it applies to by its
    CRC-32): a warm build of 8,000 counters wrote its 2 MB table again for the faces of one
    unit. An entry names the image of its key, whichever build wrote it: a table whose
    changes are missing or damaged is an older table, still true (every key's image is
    checked against the cache before it is used)."""

    def __init__(self, pack: Path | None, lang: str, images: str) -> None:
        kind = hashlib.sha256(f"{lang}:{images}".encode()).hexdigest()[:12]
        self.path = pack.with_name(f"{pack.name}.names-{kind}") if pack is not None else None
        self.changes = pack.with_name(f"{pack.name}.changes-{kind}") if pack is not None else None
        self.base: dict[str, tuple[str, int, int]] = {}
        self.base_crc: int | None = None
        if self.path is not None:
            self.base, self.base_crc = _read_table(self.path)
        self.before = self.base
        self.changed: Names = {}
        """The changes read with the table (`before` is `base` with them)."""
        if self.changes is not None and self.base_crc is not None:
            self.before, self.changed = _with_changes(self.base, self.base_crc, self.changes)
        self.now: dict[str, tuple[str, int, int]] = {}
        self.noted: Names = {}
        """The entries of `now` that `note` made: the others are `before`'s own."""

    def kept(self, key: str, prefix: str, size: int) -> tuple[str, int] | None:
        """(name, CRC-32) the build before gave the image of `key`, when it gave one of this
        size and prefix."""
        found = self.before.get(key)
        if found is None or found[2] != size or not found[0].startswith(f"{prefix}-"):
            return None
        return found[0], found[1]

    def note(self, key: str, name: str, crc: int, size: int) -> None:
        self.now[key] = self.noted[key] = (name, crc, size)

    def save(self) -> None:
        """Write this build's table when it is not the one read: what changed since the table
        was written whole when that is little (CHANGES_MOST), else the table whole (each
        replaced atomically)."""
        if self.path is None:
            return
        now, base, before = self.now, self.base, self.before
        noted = {key: found for key, found in self.noted.items() if now.get(key) == found}
        differ = {key for key, found in noted.items() if before.get(key) != found}
        if not differ and len(now) == len(before) and now.keys() == before.keys():
            return  # every entry before's own (the others were taken from it): the same table
        changed = {
            key: now[key]
            for key in differ.union(self.changed)
            if key in now and base.get(key) != now[key]
        }  # every other entry of `now` is before's own, which is base's
        gone = sorted(base.keys() - now.keys())
        few = len(changed) + len(gone) <= len(self.now) * CHANGES_MOST
        if self.changes is not None and self.base_crc is not None and few:
            if not _write_checked(self.changes, (self.base_crc, changed, gone)):
                self.changes.unlink(missing_ok=True)  # the table alone: older, still true
            return
        if _write_checked(self.path, self.now) and self.changes is not None:
            with suppress(OSError):  # of another table (its CRC-32): never applied to this one
                self.changes.unlink(missing_ok=True)


CHANGES_MOST = 1 / 16
"""The share of a names table's entries that changed (or went) since it was written whole
up to which only the changes are written (FaceNames.save)."""


def _write_checked(path: Path, value: Names | tuple[int, Names, list[str]]) -> bool:
    """`value` marshalled after its CRC-32, replacing `path` atomically; whether written."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    payload = marshal.dumps(value)
    try:
        temporary.write_bytes(CHECKSUM.pack(zlib.crc32(payload)) + payload)
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)  # not kept: the next build hashes its faces
        return False
    return True


CHECKSUM = struct.Struct("<I")
"""The CRC-32 of a names table, before it (a table whose bytes do not match it is not read)."""


Names = dict[str, tuple[str, int, int]]
"""A names table: (file name, CRC-32, length) by cache key."""


def _read_names(path: Path) -> Names:
    """A names table written before; empty when missing, damaged or not one (checked whole,
    in passes that stay in C: `kept` then trusts its entries' shape)."""
    return _read_table(path)[0]


def _read_table(path: Path) -> tuple[Names, int | None]:
    """`_read_names`, with the CRC-32 of the table read (None when none is)."""
    found = _read_checked(path)
    if found is None or not _is_names(found[0]):
        return {}, None
    return cast(Names, found[0]), found[1]


def _read_checked(path: Path) -> tuple[object, int] | None:
    """What `_write_checked` wrote at `path`, with its CRC-32; None when missing or damaged."""
    try:
        data = path.read_bytes()
        (crc,) = CHECKSUM.unpack_from(data)
        payload = memoryview(data)[CHECKSUM.size :]
        return (marshal.loads(payload), crc) if zlib.crc32(payload) == crc else None
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None


def _is_names(table: object) -> bool:
    """Whether `table` is a names table (checked whole, in passes that stay in C)."""
    if type(table) is not dict or not all_of_type(table, str):
        return False
    values = table.values()
    if not all_of_type(values, tuple) or not set(map(len, values)) <= {3}:
        return False
    names, crcs, sizes = zip(*values, strict=True) if values else ((), (), ())
    return all_of_type(names, str) and all_of_type(crcs, int) and all_of_type(sizes, int)


def _with_changes(table: Names, crc: int, path: Path) -> tuple[Names, Names]:
    """`table` (of CRC-32 `crc`) with the changes kept at `path` since it was written, when
    they are of this table, and those changes; else `table` as it is and none."""
    found = _read_checked(path)
    if found is None or type(found[0]) is not tuple or len(found[0]) != 3:
        return table, {}
    of, changed, gone = found[0]
    if of != crc or not _is_names(changed) or type(gone) is not list:
        return table, {}
    if not all_of_type(gone, str):
        return table, {}
    now = {**table, **cast(Names, changed)}
    for key in gone:
        now.pop(key, None)
    return now, cast(Names, changed)


UnitFaces = tuple[str, str, tuple[str, ...]]
"""The keys of a unit's faces: front, back ("" when none), the step-loss overlays."""


def _queue_units(
    game: GameData,
    faces: FaceRenderer,
    identities: dict[str, str],
    table: FaceNames | None = None,
    kept: RenderCache | None = None,
) -> dict[str, UnitFaces]:
    """Queue every unit's faces; their keys by unit. Each unit's identity goes to
    `identities` (the plan keeps them: its slots and placed pieces are keyed by them),
    worked out by runs of units kept in `kept` when it is given (`unit_identities`).
    With the names `table` of the build before, a unit whose drawn faces it named (and the
    cache holds) is taken as named, not queued (`_taken_units`)."""
    units = game.units
    ids = unit_identities(game, units, kept)
    unit_ids = list(map(_UNIT_ID, units))
    identities.update(zip(unit_ids, ids, strict=True))
    taken = _taken_units(game, faces, ids, table, kept) if table is not None else {}
    keys = cast(dict[str, UnitFaces], dict(zip(unit_ids, map(taken.get, unit_ids), strict=True)))
    lang, want = faces.lang, faces.want
    rest = map(not_, map(taken.__contains__, unit_ids))  # the units not taken, found in C
    for unit, identity in compress(zip(units, ids, strict=True), rest):
        unit_type = game.unit_type(unit.type)
        art = unit.art
        if unit_type is not None and unit_type.shape == "block":
            if art is not None and (art.front or art.back):
                keys[unit.id] = (*_block_faces(game, unit, faces, identity), ())
                continue
            label = partial(block_drawing, game, unit, "label", lang)
            shown = partial(block_drawing, game, unit, "back", lang)
            keys[unit.id] = (want("block", label, identity), want("blockback", shown, identity), ())
            continue
        if art is not None and (art.front or art.back):
            front, back = _counter_faces(game, unit, faces, identity)
        else:
            front = want("unit", partial(unit_drawing, game, unit, "front", lang), identity)
            back = ""
            if unit.has_back:
                draw_back = partial(unit_drawing, game, unit, "back", lang)
                back = want("unit", draw_back, identity, "back")
        steps = tuple(faces.step(lost) for lost in range(1, unit.steps))
        keys[unit.id] = (front, back, steps)
    return keys


_UNIT_ID = attrgetter("id")


def _taken_units(
    game: GameData,
    faces: FaceRenderer,
    ids: list[str],
    table: FaceNames,
    kept: RenderCache | None = None,
) -> dict[str, UnitFaces]:
    """The face keys of the units whose drawn faces (`_queue_units`' keys, worked out here
    from the identities) `FaceRenderer.take_named` takes, by unit. With `kept` (a cache),
    by runs of RUN_UNITS units kept there (`FaceRun`) by their identities: a run whose
    faces the build before named as the run's entry says, all of them still in the cache, is
    taken whole (tested and taken in passes that stay in C); the others face by face, and
    kept when every face of theirs is taken (a warm build of 8,000 counters worked out and
    looked up 16,000 faces one by one, for one unit's two)."""
    keys = FaceKeys.of(game, faces)
    redraw = _Redraw(game, faces.lang, faces.images)
    if kept is None:
        drawn = keys.drawn(game.units, ids)
        return _fully_taken(drawn, set(faces.named(table, keys.wanted(drawn))))
    units, taken, found = game.units, {}, {}
    held_keys: set[str] = set()
    for start in range(0, len(units), RUN_UNITS):
        run, run_ids = units[start : start + RUN_UNITS], ids[start : start + RUN_UNITS]
        key = keys.run_key(run_ids)
        record = FaceRun.read(kept.get(key), keys)
        if record is not None and faces.still_named(table, record.keys):
            taken.update(record.faces)
            held_keys |= record.keys
            continue
        drawn = keys.drawn(run, run_ids)
        named = faces.named(table, keys.wanted(drawn))
        held = _fully_taken(drawn, set(named))
        taken.update(held)
        found.update(named)
        if len(held) == len(drawn):  # every face named before: kept for the next build
            kept.put(key, FaceRun(held, set(named)).data(keys))
    before = table.before
    found.update(zip(held_keys, map(before.__getitem__, held_keys), strict=True))
    faces.take(table, found, redraw)
    return taken


def _fully_taken(drawn: dict[str, UnitFaces], taken: set[str]) -> dict[str, UnitFaces]:
    """The units of `drawn` every face of which is `taken`."""
    return {
        unit_id: found
        for unit_id, found in drawn.items()
        if found[0] in taken and (not found[1] or found[1] in taken) and taken.issuperset(found[2])
    }


class FaceKeys(NamedTuple):
    """How the keys of a unit's drawn faces are made (`FaceRenderer.want`'s, from a unit's
    identity): for counters, blocks and their backs, and the step-loss overlays by steps
    lost; and which unit types are blocks."""

    unit: Callable[[str], str]
    block: Callable[[str], str]
    blockback: Callable[[str], str]
    steps: list[str]
    blocks: frozenset[str]

    @classmethod
    def of(cls, game: GameData, faces: FaceRenderer) -> FaceKeys:
        unit, block, blockback, step = map(faces.key_of, ("unit", "block", "blockback", "step"))
        most = max((u.steps for u in game.units), default=0)
        steps = [step(f"step:{lost}") for lost in range(most)]
        blocks = frozenset(t.id for t in game.unit_types if t.shape == "block")
        return cls(unit, block, blockback, steps, blocks)

    def drawn(self, units: Sequence[Unit], ids: Sequence[str]) -> dict[str, UnitFaces]:
        """The face keys of the units of `units` (of identities `ids`) whose faces are drawn
        (not pictures of the data's art), by unit."""
        unit, block, blockback, steps = self.unit, self.block, self.blockback, self.steps
        drawn: dict[str, UnitFaces] = {}
        for member, identity in zip(units, ids, strict=True):
            art = member.art
            if art is not None and (art.front or art.back):
                continue  # a picture of the data's art: read on every build
            if member.type in self.blocks:
                drawn[member.id] = (block(identity), blockback(identity), ())
            else:
                back = unit(identity + ":back") if member.has_back else ""
                drawn[member.id] = (unit(identity), back, tuple(steps[1 : member.steps]))
        return drawn

    def wanted(self, drawn: dict[str, UnitFaces]) -> dict[str, list[str]]:
        """The keys of `drawn`'s faces by the name prefix they go under (`take_named`)."""
        unit, block, blockback = self.unit(""), self.block(""), self.blockback("")
        values = drawn.values()
        return {
            "unit": [k for f, b, _s in values if f.startswith(unit) for k in (f, b) if k],
            "block": [f for f, _b, _s in values if f.startswith(block)],
            "blockback": [b for _f, b, _s in values if b.startswith(blockback)],
            "step": sorted({key for _f, _b, steps in values for key in steps}),
        }

    def run_key(self, ids: Sequence[str]) -> str:
        """The key a run of units of identities `ids` is kept under (`FaceRun`): their
        identities, the faces' kind, size and language (in the keys' head), the block
        types."""
        head = "\x1f".join([FACE_RUN, self.unit(""), *sorted(self.blocks), *ids])
        return FACE_RUN + hashlib.sha256(head.encode("utf-8")).hexdigest()

    def step_tuples(self) -> dict[int, tuple[str, ...]]:
        """The step-loss overlays of a unit by its steps (`drawn`'s third key)."""
        return {count: tuple(self.steps[1:count]) for count in range(len(self.steps) + 1)}


FACE_RUN = "face-run-2:"
"""Before a digest, the key of a run of units' faces in the identities' pack (`FaceRun`)."""


class FaceRun(NamedTuple):
    """The faces of a run of units taken as the build before named them (`_taken_units`):
    each drawn unit's face keys, and the keys of them all. Kept as columns (unit ids, fronts,
    backs, steps lost at most), marshalled: their names are the names table's (not kept
    again here: a warm build of 8,000 counters read 16,000 entries of both, and compared
    them)."""

    faces: dict[str, UnitFaces]
    keys: set[str]

    def data(self, keys: FaceKeys) -> bytes:
        counts = {steps: count for count, steps in keys.step_tuples().items()}
        values = self.faces.values()
        fronts, backs = [f for f, _b, _s in values], [b for _f, b, _s in values]
        steps = [counts[s] for _f, _b, s in values]
        return marshal.dumps((list(self.faces), fronts, backs, steps))

    @classmethod
    def read(cls, data: bytes | None, keys: FaceKeys) -> FaceRun | None:
        """The run kept as `data`; None when there is none or it is not one (checked in
        passes that stay in C)."""
        if data is None:
            return None
        with suppress(EOFError, ValueError, TypeError):
            found = marshal.loads(data)
            if type(found) is not tuple or len(found) != 4:
                return None
            ids, fronts, backs, counts = found
            if not all_of_type(found, list) or len(set(map(len, found))) != 1:
                return None
            if not (all_of_type(ids, str) and all_of_type(fronts, str)):
                return None
            if not (all_of_type(backs, str) and all_of_type(counts, int)):
                return None
            tuples = keys.step_tuples()
            if not set(counts) <= tuples.keys():
                return None
            steps = list(map(tuples.__getitem__, counts))
            used = set(fronts).union(backs, *steps)
            used.discard("")
            if "" in fronts:
                return None
            faces = dict(zip(ids, zip(fronts, backs, steps, strict=True), strict=True))
            return cls(faces, used)
        return None


class _Redraw:
    """How a face taken as named before (`_taken_units`) is drawn again when its entry in
    the cache turns out damaged: every unit's faces queued (once), that one drawn."""

    def __init__(self, game: GameData, lang: str, images: PieceImages) -> None:
        self.game, self.lang, self.images = game, lang, images
        self.jobs: dict[str, Read] | None = None

    def __call__(self, key: str) -> bytes:
        if self.jobs is None:
            faces = FaceRenderer(self.game, ImageStore(), RenderCache(None), self.lang, self.images)
            _queue_units(self.game, faces, {})
            self.jobs = {found: make for found, _prefix, make in faces.jobs}
        return self.jobs[key]()


def _block_faces(game: GameData, unit: Unit, faces: FaceRenderer, identity: str) -> tuple[str, str]:
    """A block's label and back, either a picture of the data's art or drawn."""
    lang, owner = faces.lang, f"unit `{unit.id}`"
    label = partial(block_drawing, game, unit, "label", lang)
    shown = partial(block_drawing, game, unit, "back", lang)
    front = faces.face(unit.art, "front", owner, partial(faces.want, "block", label, identity))
    back = faces.face(unit.art, "back", owner, partial(faces.want, "blockback", shown, identity))
    return front, back


def _counter_faces(
    game: GameData, unit: Unit, faces: FaceRenderer, identity: str
) -> tuple[str, str]:
    """A counter's front and back (when it has one), either pictures of the data's art or
    drawn."""
    lang, owner = faces.lang, f"unit `{unit.id}`"
    draw_front = partial(unit_drawing, game, unit, "front", lang)
    front = faces.face(unit.art, "front", owner, partial(faces.want, "unit", draw_front, identity))
    back = ""
    if unit.has_back:
        draw_back = partial(unit_drawing, game, unit, "back", lang)
        back = faces.face(
            unit.art, "back", owner, partial(faces.want, "unit", draw_back, identity, "back")
        )
    return front, back


def _queue_markers(game: GameData, faces: FaceRenderer) -> dict[str, tuple[str, str]]:
    keys: dict[str, tuple[str, str]] = {}
    for marker in game.markers.values():
        identity = marker_identity(game, marker)
        art, owner = marker.set.art, f"marker set `{marker.set.id}`"
        draw_front = partial(marker_drawing, game, marker, "front", faces.lang)
        front = faces.face(art, "front", owner, partial(faces.want, "marker", draw_front, identity))
        back = ""
        if marker.set.back.en or (art is not None and art.back):
            draw_back = partial(marker_drawing, game, marker, "back", faces.lang)
            back = faces.face(
                art, "back", owner, partial(faces.want, "marker", draw_back, identity, "back")
            )
        keys[marker.id] = (front, back)
    return keys


def _queue_cards(game: GameData, faces: FaceRenderer) -> dict[str, str]:
    return {
        c.id: faces.face(
            c.art,
            "front",
            f"card `{c.id}`",
            partial(
                faces.want,
                "card",
                partial(card_drawing, game, c, faces.lang),
                card_identity(game, c),
                height=CARD_HEIGHT,
            ),
        )
        for c in game.cards
    }


def map_names(maps: tuple[GameMap, ...]) -> dict[str, str]:
    names: dict[str, str] = {}
    used: set[str] = {REINFORCEMENTS_MAP}
    for game_map in maps:
        name = game_map.name.en or game_map.id
        if name in used:
            name = f"{name} ({game_map.id})"
        used.add(name)
        names[game_map.id] = name
    return names


def piece_gpids(game: GameData) -> dict[str, int]:
    """The gpid of every piece slot (`unit:<id>`, `marker:<id>`, `card:<id>:<copy>`): what a
    module's pieces and saves name their slots by, and what import-save reads them back by."""
    keys = [*map("unit:".__add__, map(_UNIT_ID, game.units))]
    keys += [f"marker:{m}" for m in game.markers]
    keys += [f"card:{c.id}:{n}" for c in game.cards for n in range(c.copies)]
    return pc.assign_gpids(keys)


def reinforcement_layout(game: GameData) -> tuple[list[int], MapLayout | None]:
    """The turns reinforcements arrive on, and the Reinforcements map: one box per turn."""
    turns = sorted({r.turn for s in game.scenarios for r in s.reinforcements})
    if not turns:
        return [], None
    holding = GameMap(id=REINFORCEMENTS_MAP, name=Text(REINFORCEMENTS_MAP), kind="none")
    zones, height = box_strip([(turn_zone(t), turn_zone(t)) for t in turns], 0, 1200)
    layout = MapLayout(
        holding, 1200, height, (), (), tuple(zones), 0, {z.id: z.point for z in zones}
    )
    return turns, layout


def map_layouts(game: GameData) -> dict[str, MapLayout]:
    """Where every location of every map lies in the module (the Reinforcements map under its
    own name): what a save's piece positions are read back against."""
    layouts = {m.id: laid_out(game, m, board_art_size(game, m)) for m in game.maps}
    _, holding = reinforcement_layout(game)
    if holding is not None:
        layouts[REINFORCEMENTS_MAP] = holding
    return layouts


def laid_out(game: GameData, game_map: GameMap, art_size: tuple[int, int] | None) -> MapLayout:
    """`layout_map(game_map, art_size)` of a map of `game`, made once per game (the charts lay
    the maps out for the scenarios' pictures before the module does; a layout is frozen)."""
    key = (id(game_map), art_size)  # the game (kept by the memo) keeps its maps
    return _LAYOUTS.get(game, key, partial(layout_map, game_map, art_size))


_LAYOUTS: PerGameMemo[tuple[int, tuple[int, int] | None], MapLayout] = PerGameMemo()
"""The maps' layouts made for the last game, by map (its object) and art size."""


def _reinforcements(game: GameData, store: ImageStore) -> tuple[list[int], MapLayout | None, str]:
    turns, layout = reinforcement_layout(game)
    if layout is None:
        return [], None, ""
    from compiler.backends.vassal.boards import render_board  # see _drawn_board

    return turns, layout, store.add(render_board(game, layout), "board")


def render_plan(
    game: GameData,
    cache_pack: Path | None = None,
    lang: str = "en",
    images: PieceImages = "svg",
) -> tuple[ModulePlan, LazyFiles]:
    """The slow half: lay out and draw every board and piece; returns the plan and the images.
    Piece faces come from the render cache when their content has not changed. The same game
    asked about again with the same arguments (the module, then the preview page of one
    build) gets the same plan and images back: the game is frozen, so they would be equal."""
    return _PLANS.get(
        game, (cache_pack, lang, images), partial(_paused_plan, game, cache_pack, lang, images)
    )


def _paused_plan(
    game: GameData, cache_pack: Path | None, lang: str, images: PieceImages
) -> tuple[ModulePlan, LazyFiles]:
    """_render_plan with the cyclic collector paused (thousands of acyclic records made)."""
    with no_cyclic_gc():
        return _render_plan(game, cache_pack, lang, images)


_PLANS: PerGameMemo[tuple[Path | None, str, str], tuple[ModulePlan, LazyFiles]]
_PLANS = PerGameMemo()
"""The plans made for the last game (one per cache, language and kind of piece images)."""


def _render_plan(
    game: GameData, cache_pack: Path | None, lang: str, images: PieceImages
) -> tuple[ModulePlan, LazyFiles]:
    store = ImageStore()
    arts = {m.id: load_board_art(game, m) for m in game.maps}
    layouts = {m.id: laid_out(game, m, _size(arts[m.id])) for m in game.maps}
    cache = RenderCache(cache_pack)
    board_keys = {m.id: _board_key(game, layouts[m.id], arts[m.id]) for m in game.maps}
    boards = {
        m.id: store.add_png(
            _board_png(game, layouts[m.id], arts[m.id], cache, board_keys[m.id]), "board"
        )
        for m in game.maps
    }
    turns, holding, holding_image = _reinforcements(game, store)
    if holding is not None:
        layouts[REINFORCEMENTS_MAP] = holding
    boards_drawn, boards_reused = cache.misses, cache.hits
    faces = FaceRenderer(game, store, cache, lang, images)
    identities: dict[str, str] = {}
    table = faces.names_table()
    kept = RenderCache(cache_pack.with_name(IDENTITIES)) if cache_pack is not None else None
    unit_keys = _queue_units(game, faces, identities, table, kept)
    if kept is not None:
        kept.save()
    marker_keys = _queue_markers(game, faces)
    card_keys = _queue_cards(game, faces)
    back_keys = {
        d.id: faces.face(
            d.art,
            "back",
            f"deck `{d.id}`",
            partial(
                faces.want,
                "cardback",
                partial(deck_back_drawing, game, d, lang),
                deck_identity(game, d),
                height=CARD_HEIGHT,
            ),
        )
        for d in game.decks
    }
    names = faces.finish(table)
    drawn, reused = faces.drawn - boards_drawn, faces.reused - boards_reused
    plan = ModulePlan(
        game,
        layouts,
        map_names(game.maps),
        boards,
        _unit_images(unit_keys, names),
        {m: pc.Images(names[f], names[b] if b else "") for m, (f, b) in marker_keys.items()},
        {c: names[k] for c, k in card_keys.items()},
        {d: names[k] for d, k in back_keys.items()},
        piece_gpids(game),
        turns,
        holding_image,
    )
    plan.faces_drawn, plan.faces_reused = drawn, reused
    plan.unit_identities = identities
    plan.board_keys = board_keys
    plan.charts = [(c.title, _store_chart(c, store, table)) for c in chart_images(game, lang)]
    plan.chart_names = [chart.name for chart in all_charts(game, lang)]
    crcs = store.crcs
    plan.image_crcs = dict(zip(map(IMAGES.__add__, crcs), crcs.values(), strict=True))
    table.save()
    return plan, store.images()


def _unit_images(unit_keys: dict[str, UnitFaces], names: dict[str, str]) -> dict[str, pc.Images]:
    """Each unit's image names from its faces' keys (`names`: the file name of each key), in
    passes that stay in C (8,000 counters: 8,000 pieces' images)."""
    named = {**names, "": ""}  # a unit without a back
    faces = unit_keys.values()
    fronts = map(named.__getitem__, [front for front, _back, _steps in faces])
    backs = map(named.__getitem__, [back for _front, back, _steps in faces])
    steps = [steps for _front, _back, steps in faces]
    overlays = {found: tuple(map(named.__getitem__, found)) for found in set(steps)}
    fields = zip(fronts, backs, map(overlays.__getitem__, steps), strict=True)
    images = map(tuple.__new__, repeat(pc.Images), fields)  # Images._make, without its call
    return dict(zip(unit_keys, cast("Iterator[pc.Images]", images), strict=True))


def _store_chart(chart: ChartPng, store: ImageStore, table: FaceNames) -> str:
    """Store a chart's PNG; its file name. One the charts' render cache gave (not drawn by
    this build) is named by its key as the build before named it, and its bytes are not
    asked for (`chart.data`, read from the cache when first asked for) until they are
    needed: the module copies its entry from the module before (the charts of 8,000
    counters are 114 MB). Else `store_named`."""
    if not chart.key:
        return store.add_png(chart.data, "chart")
    found = None if chart.drawn else table.before.get(chart.key)
    if found is None or not found[0].startswith("chart-"):
        return store_named(store, table, chart.key, "chart", chart.data, not chart.drawn)
    name, crc, size = found
    if name not in store.files:
        store.later[name] = (size, partial(_chart_bytes, chart, crc, size))
    store.crcs[name] = crc
    table.note(chart.key, name, crc, size)
    return name


def _chart_bytes(chart: ChartPng, crc: int, size: int) -> bytes:
    """A kept chart's PNG, when it is the one its name was given for (its length and CRC-32
    those the names table noted: a chart's key decides its bytes, else this is a bug, said
    so rather than written into a module under another image's name)."""
    data = chart.data
    if len(data) != size or zlib.crc32(data) != crc:
        raise RuntimeError(f"the chart {chart.title!r} kept is not the one named before")
    return data


def _board_key(game: GameData, layout: MapLayout, board_art: Image.Image | None) -> str:
    """What a map's board is drawn from: the map, its layout, the terrain colours and its art."""
    art_digest = ""
    if board_art is not None:
        art_digest = f"{board_art.size}:{hashlib.sha256(raw_bytes(board_art)).hexdigest()}"
    return cache_key("board", layout, game.game.terrain, art_digest)


def _board_png(
    game: GameData,
    layout: MapLayout,
    board_art: Image.Image | None,
    cache: RenderCache,
    key: str,
) -> bytes:
    """A map's board as PNG, from the cache when it is kept under its `_board_key` (boards
    take seconds to draw)."""
    return cache.fetch(key, lambda: _drawn_board(game, layout, board_art))


def _drawn_board(game: GameData, layout: MapLayout, board_art: Image.Image | None) -> bytes:
    """A board drawn anew. The drawing code (compiler.backends.art.board and what it imports:
    some 7 ms) is imported here, not at the top: a warm build whose boards are kept draws
    none."""
    from compiler.backends.art.board import board_png

    return board_png(game, layout, board_art)


def _size(image: Image.Image | None) -> tuple[int, int] | None:
    return image.size if image is not None else None


def assemble(
    plan: ModulePlan, images: Mapping[str, bytes], pieces: Path | None = None
) -> dict[str, bytes]:
    """The module step proper: scenario saves, buildFile.xml and moduledata beside the images,
    and the translations' bundles (Module_<lang>.properties) the build file names. The texts
    of the pieces are kept in the pack `pieces` (piececache) when it is given. Every file
    read (`module_files` leaves unread the images not read yet)."""
    return dict(module_files(plan, images, pieces))


def module_files(
    plan: ModulePlan, images: Mapping[str, bytes], pieces: Path | None = None
) -> LazyFiles:
    """`assemble`'s files, the images not read yet (LazyFiles) left unread: the zip copies
    those unchanged from the module before."""
    with no_cyclic_gc():  # thousands of elements and texts made, none of them cyclic
        return _assemble(plan, images, pieces)


def _assemble(plan: ModulePlan, images: Mapping[str, bytes], pieces: Path | None) -> LazyFiles:
    prototypes = hashlib.sha256(repr(plan.prototype_table).encode("utf-8")).hexdigest()
    plan.piece_texts = PieceTexts(pieces, prototypes)
    files = LazyFiles.of(images)
    for scenario in plan.game.scenarios:
        if scenario.setup or scenario.reinforcements or scenario.decks:
            plan.scenario_files[scenario.id] = f"{_safe(scenario.id)}.vsav"
            files.put(plan.scenario_files[scenario.id], save_file(plan, scenario))
    files.put("buildFile.xml", build_file_xml(plan))
    for name, data in plan.bundles.items():
        files.put(name, data)
    files.put("moduledata", plan.module_data)
    plan.piece_texts.save()
    plan.piece_texts = PieceTexts()  # the pack's texts are not kept with the plan
    return files


def plan_module(game: GameData) -> tuple[ModulePlan, dict[str, bytes]]:
    plan, images = render_plan(game)
    return plan, assemble(plan, images)


def _safe(ident: str) -> str:
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in ident)


ALREADY_COMPRESSED = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".zip", ".vsav", ".vmod")
"""Entries written STORED: deflating them again gains nothing and costs time."""
THREADS = min(4, os.cpu_count() or 1)
PARALLEL_BYTES = 1 << 20  # below this, deflating in threads costs more than it saves


class ZipEntry(NamedTuple):
    """One entry's bytes as a zip holds them: the CRC-32 and size of its content, whether it is
    deflated, and the (compressed) bytes. (A named tuple: thousands are made per build.)

    An entry of the module before that lies there exactly as `_zip_parts` writes it (see
    `_reusable_entries`) tells where: its local header at `at`, its data ending at `end`, its
    central record at `record` up to `record_end`. Consecutive such entries are copied as one
    range of bytes and their central records as one, their offsets shifted (`_zip_parts`)."""

    crc: int
    size: int
    deflated: bool
    data: bytes | memoryview  # a view into the module mapped before, for a copied entry
    at: int = -1
    end: int = 0
    record: int = 0
    record_end: int = 0


def zip_entry(data: bytes, deflate: bool) -> ZipEntry:
    """An entry as zipfile writes it (raw deflate at the default level), byte for byte."""
    crc = zlib.crc32(data)
    if not deflate:
        return ZipEntry(crc, len(data), False, data)
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    return ZipEntry(crc, len(data), True, packer.compress(data) + packer.flush())


def is_stored(name: str) -> bool:
    return name.lower().endswith(ALREADY_COMPRESSED)


Module = bytes | mmap.mmap
"""A module written before: its bytes, or the file mapped (read where an entry is copied)."""


def reusable_entries(previous: Module) -> dict[str, ZipEntry]:
    """The deflated and stored entries of a module written before, as they lie in it: what
    `zip_bytes` copies instead of deflating a face (or the build file, when it did not change)
    again, or reading a stored image from its cache. Reads the central directory `_write_zip`
    writes (no zip64, no comment); a module it cannot read gives nothing."""
    with no_cyclic_gc():  # a record per entry, none of them cyclic
        return _reusable_entries(previous)


def _reusable_entries(previous: Module) -> dict[str, ZipEntry]:
    out: dict[str, ZipEntry] = {}
    at = len(previous) - END.size
    if at < 0 or previous[at : at + 4] != b"PK\x05\x06":
        return out
    count, size, offset = END.unpack_from(previous, at)[4:7]
    if offset + size != at:
        return out
    try:
        return _entries_listed(previous, bytes(previous[offset:at]), offset, count)
    except struct.error:  # a record cut short: a damaged module
        return {}


def _entries_listed(
    previous: Module, directory: bytes, offset: int, count: int
) -> dict[str, ZipEntry]:
    """The entries the central directory (at `offset`, read once: slices of bytes are cheaper
    than of a mapping) lists; those whose headers are as `_zip_parts` writes them with where
    they lie (`ZipEntry.at`). Raises struct.error on a record cut short."""
    out: dict[str, ZipEntry] = {}
    view = memoryview(previous)
    unpack, position = RECORD.unpack_from, 0
    for _ in range(count):
        (sign, versions, flags, method, time, date, crc, packed, size, name_length, extra,
         comment, attributes, local) = unpack(directory, position)  # fmt: skip
        record, name_at = position, position + RECORD.size
        position = name_at + name_length + extra + comment
        if sign != b"PK\x01\x02":
            return {}
        if flags & 0x1 or method not in (ZIP_DEFLATED, ZIP_STORED):
            continue
        deflated = method == ZIP_DEFLATED
        if not deflated and packed != size:
            continue
        raw = directory[name_at : name_at + name_length]
        name = _entry_name(raw, flags)
        header = previous[local : local + LOCAL.size + name_length]
        if (
            versions == VERSIONS
            and attributes == ATTRIBUTES_FIELDS
            and time == DOS_TIME
            and date == DOS_DATE
            and extra == comment == 0
            and flags == (0 if raw.isascii() else 0x800)
            and header == b"PK\x03\x04" + directory[record + 6 : record + 32] + raw
        ):
            data_at = local + len(header)
            data = view[data_at : data_at + packed]
            if len(data) == packed:
                at, end = offset + record, offset + position
                out[name] = ZipEntry(crc, size, deflated, data, local, data_at + packed, at, end)
            continue
        if header[:4] != b"PK\x03\x04":
            return {}
        data_at = local + LOCAL.size + sum(LOCAL_LENGTHS.unpack_from(previous, local + 26))
        data = view[data_at : data_at + packed]
        if len(data) == packed:
            out[name] = ZipEntry(crc, size, deflated, data)
    return out


RECORD = struct.Struct("<4s4s4H3L3H8sL")
"""A central record (`CENTRAL`) read with its versions and its disk and attributes as bytes:
those of every record `_zip_parts` writes are `VERSIONS` and `ATTRIBUTES_FIELDS`."""
VERSIONS = b"\x14\x03\x14\x00"
"""Made by version 2.0 on Unix, version 2.0 needed."""


def _entry_name(raw: bytes, flags: int) -> str:
    """An entry's name: UTF-8 when its flag says so, else CP437 (ASCII, the usual, decoded as
    such: the same text, quicker). Flagged bytes that are not UTF-8 (a damaged module) give
    a name no file has (surrogate escapes), not an error."""
    if flags & 0x800:
        return raw.decode("utf-8", "surrogateescape")
    return raw.decode("ascii") if raw.isascii() else raw.decode("cp437")


IMAGES = "images/"
"""Where the content-addressed entries lie (their names hold a digest of their bytes)."""


def zip_bytes(
    files: Mapping[str, bytes],
    reuse: dict[str, ZipEntry] | None = None,
    crcs: dict[str, int] | None = None,
    kept: RenderCache | None = None,
) -> bytes:
    """A deterministic zip: sorted names, fixed dates, what is compressed already (PNG, JPEG,
    saves) stored, text and SVG deflated, the same bytes zipfile writes.

    `reuse` (`reusable_entries` of the module written before) gives the bytes of the entries
    it holds: an image whose name, size and CRC-32 match is copied, not deflated (or read)
    again; any other deflated entry too when, besides, the bytes it holds inflate to the same
    content. The rest is deflated on every core (zlib lets go of the GIL). `crcs` gives the
    CRC-32 of files whose checksum is known (`ModulePlan.image_crcs`): they are not read to
    find it (nor at all, when copied: see LazyFiles). `kept` keeps the deflated pieces of
    long files between builds (`_deflate_all`)."""
    with no_cyclic_gc():  # an entry record per file, none of them cyclic
        return _write_zip(_zip_entries(files, reuse or {}, crcs or {}, kept))


def _zip_entries(
    files: Mapping[str, bytes],
    reuse: dict[str, ZipEntry],
    crcs: dict[str, int],
    kept: RenderCache | None = None,
) -> list[tuple[str, ZipEntry]]:
    """Every file as its zip entry, in name order (see `zip_bytes`). An image whose CRC-32
    is known and whose entry before has its size and checksum is taken as it is, in the
    loop's first test (most of a warm build's entries)."""
    names = sorted(files)
    size_of = files.size if isinstance(files, LazyFiles) else partial(_length, files)
    entries: list[tuple[str, ZipEntry]] = []
    todo: dict[str, int] = {}
    for name in names:
        old, crc = reuse.get(name), crcs.get(name)
        if old is not None and old.crc == crc and name.startswith(IMAGES):
            if old.deflated != is_stored(name) and old.size == size_of(name):
                entries.append((name, old))
                continue
        entry = _entry_of(files, name, size_of(name), crc, old)
        if entry is None:
            todo[name] = len(entries)
            entry = NOT_YET
        entries.append((name, entry))
    for name, made in _deflate_all({name: files[name] for name in todo}, kept).items():
        entries[todo[name]] = (name, made)
    return entries


def _indexed_entries(
    files: Mapping[str, bytes],
    listed: ZipIndex,
    previous: Module,
    crcs: dict[str, int],
    kept: RenderCache | None = None,
) -> list[Item] | None:
    """`_zip_entries` from the index `listed` of the module before: the images whose CRC-32
    is known and whose entry before has it and their length (those `_zip_entries` takes as
    they are in its first test; the same test, made on whole tables at once) go as runs of
    that module (`KeptRun`), without a record made per entry; the rest as `_zip_entries`
    makes them. None when the index does not list the module's entries in name order."""
    names = sorted(files)
    sizes = files.sizes() if isinstance(files, LazyFiles) else {n: len(files[n]) for n in names}
    old_crcs = dict(zip(listed.names, listed.crcs, strict=True))
    old_sizes = dict(zip(listed.names, listed.sizes, strict=True))
    differ = _differing(crcs, old_crcs)
    differ.update(_differing(sizes, old_sizes))
    differ.update(sizes.keys() - crcs.keys())
    changed = _places(names, differ)
    gone = _places(listed.names, differ.union(old_sizes.keys() - sizes.keys()))
    view = memoryview(previous)
    items: list[Item] = []
    todo: dict[str, int] = {}
    start = 0
    for stop in [*changed, len(names)]:
        if not _kept_runs(items, names[start:stop], listed, gone):
            return None
        if stop < len(names):
            name = names[stop]
            old = _listed_entry(listed, name, view)
            entry = _entry_of(files, name, sizes[name], crcs.get(name), old)
            if entry is None:
                todo[name] = len(items)
                entry = NOT_YET
            items.append((name, entry))
        start = stop + 1
    for name, made in _deflate_all({name: files[name] for name in todo}, kept).items():
        items[todo[name]] = (name, made)
    return items


def _differing(now: dict[str, int], before: dict[str, int]) -> set[str]:
    """The names of `now` whose value `before` does not hold (another value, or none), found
    in passes that stay in C: the set difference of the two tables' items made a tuple of
    every entry of both, and hashed it (13,305 entries at 8,000 counters: 20 ms)."""
    return set(compress(now, map(ne, map(before.get, now), now.values())))


def _places(names: list[str], differ: set[str]) -> list[int]:
    """Where in `names` (sorted) lie the entries that are not taken as they are from the
    module before (`_indexed_entries`): those of `differ`, and all but images (`IMAGES`:
    one block of the sorted names). In order."""
    low, high = bisect_left(names, IMAGES), bisect_left(names, IMAGES_END)
    found = {bisect_left(names, name, low, high) for name in differ}
    inside = sorted(at for at in found if at < high and names[at] in differ)
    return [*range(low), *inside, *range(high, len(names))]


IMAGES_END = IMAGES[:-1] + chr(ord(IMAGES[-1]) + 1)
"""What every name under IMAGES sorts before (and no other name after IMAGES does)."""


def _kept_runs(items: list[Item], names: list[str], listed: ZipIndex, gone: list[int]) -> bool:
    """The runs of the module before (`KeptRun`) that hold `names` (one after another in the
    zip to write, each unchanged), split where the module before holds an entry that goes
    (`gone`: the places of those in `listed`). False when `listed` does not hold them so."""
    start, every = 0, listed.names
    while start < len(names):
        first = bisect_left(every, names[start])
        if first == len(every) or every[first] != names[start]:
            return False
        following = bisect_right(gone, first)
        limit = gone[following] if following < len(gone) else len(every)
        length = min(len(names) - start, limit - first)
        if every[first + length - 1] != names[start + length - 1]:
            return False
        items.append(KeptRun(first, first + length))
        start += length
    return True


def _listed_entry(listed: ZipIndex, name: str, view: memoryview) -> ZipEntry | None:
    """The entry `name` of the module before (`view`) as its index lists it, or None."""
    at = bisect_left(listed.names, name)
    if at == len(listed.names) or listed.names[at] != name:
        return None
    local, end, base = listed.at[at], listed.end[at], listed.directory
    data_at = local + LOCAL.size + len(name.encode("utf-8"))
    record, record_end = base + listed.record[at], base + listed.record_end[at]
    crc, size, deflated = listed.crcs[at], listed.sizes[at], listed.deflated[at]
    return ZipEntry(crc, size, deflated, view[data_at:end], local, end, record, record_end)


NOT_YET = ZipEntry(0, 0, False, b"")
"""The place of an entry deflated once the others are known (`_zip_entries`)."""


def _length(files: Mapping[str, bytes], name: str) -> int:
    return len(files[name])


def _entry_of(
    files: Mapping[str, bytes], name: str, size: int, crc: int | None, old: ZipEntry | None
) -> ZipEntry | None:
    """The entry of the file `name`: the one before when it holds the same (`_same_image`,
    `_same_content`), else a stored one; None for a file to deflate. A long file that is not
    an image is always deflated (in pieces, mostly kept: `_deflate_all`), never copied: the
    module before may hold it deflated otherwise (whole, by an earlier version), which a
    cold build would not write."""
    if is_stored(name):
        if old is not None and _same_image(name, size, crc, old, False):
            return old
        data = files[name]
        return zip_entry(data, False) if crc is None else ZipEntry(crc, size, False, data)
    if size >= PIECED and not name.startswith(IMAGES):
        return None
    if old is not None and _same_content(name, files, size, old, crc):
        return old
    return None


def _same_image(name: str, size: int, crc: int | None, old: ZipEntry, deflated: bool) -> bool:
    """Whether the entry `old` of the module before is the image `name` (its name a digest of
    its bytes) of `size` bytes and CRC-32 `crc`, written the same way (`deflated` or not)."""
    return (
        crc is not None
        and old.deflated == deflated
        and old.size == size
        and old.crc == crc
        and name.startswith(IMAGES)
    )


def _same_content(
    name: str, files: Mapping[str, bytes], size: int, old: ZipEntry, crc: int | None
) -> bool:
    """Whether the deflated entry `old` of the module before holds the file `name`: the same
    size and CRC-32, and (for an entry whose name is not a digest of its bytes) the same
    bytes once inflated. An image whose CRC-32 is known is not read."""
    if not old.deflated or old.size != size:
        return False
    if crc is not None and name.startswith(IMAGES):
        return _same_image(name, size, crc, old, True)
    data = files[name]
    if (zlib.crc32(data) if crc is None else crc) != old.crc:
        return False
    return name.startswith(IMAGES) or _inflated(old.data) == data


def _inflated(packed: bytes | memoryview) -> bytes | None:
    """A raw deflate stream's content; None when it is not one, whole and alone."""
    unpacker = zlib.decompressobj(-15)
    try:
        content = unpacker.decompress(packed) + unpacker.flush()
    except zlib.error:
        return None
    return content if unpacker.eof and not unpacker.unused_data else None


def _deflate_all(files: dict[str, bytes], kept: RenderCache | None = None) -> dict[str, ZipEntry]:
    """Each file deflated as its zip entry; on every core when there is much to deflate. A
    long file (PIECED bytes or more: the build file, the translations' bundles) is deflated
    in pieces (`_pieces`), each piece's deflated bytes taken from `kept` when it holds them
    (by a digest of the piece) and kept there when they are made: a build file in which one
    unit changed deflates one piece of it again, not 5 MB (30 ms at 8,000 counters)."""
    pieced: dict[str, list[str]] = {}
    made: dict[str, bytes] = {}
    todo: dict[str, bytes] = {}
    for name, data in files.items():
        if len(data) < PIECED:
            todo[name] = data
            continue
        keys = pieced[name] = []
        for piece in _pieces(data):
            key = PIECE_KEY + hashlib.sha1(piece).hexdigest()
            keys.append(key)
            if key in made or key in todo:
                continue
            found = kept.get(key) if kept is not None else None
            if found is not None:
                made[key] = found
            else:
                todo[key] = piece
    deflated = _deflate_each(todo)
    out: dict[str, ZipEntry] = {}
    for name, packed in deflated.items():
        if name in files:
            out[name] = ZipEntry(zlib.crc32(files[name]), len(files[name]), True, packed)
        else:
            made[name] = packed
            if kept is not None:
                kept.put(name, packed)
    for name, keys in pieced.items():
        data = files[name]
        packed = b"".join([made[key] for key in keys]) + FINAL_BLOCK
        out[name] = ZipEntry(zlib.crc32(data), len(data), True, packed)
    return out


PIECED = 1 << 17
"""A file to deflate this long or longer is deflated in pieces (`_deflate_all`)."""
PIECE_MIN = 1 << 15
"""A piece's least length (the last one's too): as long as deflate's window, so that a
piece deflated alone is hardly longer."""
PIECE_MASK = 0x1F
"""A piece ends before a line whose CRC-32 has these bits clear (one line in 32)."""
PIECE_KEY = f"deflated-piece-1:{zlib.ZLIB_RUNTIME_VERSION}:"
"""Before the digest of a piece, in `kept`'s keys: the bytes are zlib's of this version."""
FINAL_BLOCK = b"\x03\x00"
"""An empty last block of fixed codes: what ends a stream of pieces each ended by a sync
flush (`_deflated`)."""


def _pieces(data: bytes) -> list[bytes]:
    """A long file cut into pieces of at least PIECE_MIN bytes, each ending before a line
    chosen by its content (PIECE_MASK), the first such line once the piece is long enough:
    a change in one piece leaves where the other pieces end as it was (their content, not
    their place, decides it), so they deflate to the bytes kept before."""
    pieces: list[bytes] = []
    size, start = len(data), 0
    while size - start >= 2 * PIECE_MIN:
        cut = -1
        at = data.find(b"\n", start + PIECE_MIN)
        while 0 <= at < size - PIECE_MIN:
            following = data.find(b"\n", at + 1)
            line_end = following if following >= 0 else size
            if not zlib.crc32(data[at + 1 : line_end]) & PIECE_MASK:
                cut = at + 1
                break
            at = following
        if cut < 0:
            break
        pieces.append(data[start:cut])
        start = cut
    pieces.append(data[start:])
    return pieces


def _deflate_each(files: dict[str, bytes]) -> dict[str, bytes]:
    """Each file's raw deflate stream (`_deflated`); on every core when there is much to
    deflate (zlib lets go of the GIL)."""
    names = list(files)
    total = sum(map(len, files.values()))
    if THREADS < 2 or total < PARALLEL_BYTES:
        return {n: _deflated(n, files[n]) for n in names}
    shares: list[list[str]] = [names[i::THREADS] for i in range(THREADS)]

    def deflate(share: list[str]) -> dict[str, bytes]:
        return {n: _deflated(n, files[n]) for n in share}

    out: dict[str, bytes] = {}
    from concurrent.futures import ThreadPoolExecutor  # here: 3 ms (logging) at every start

    with ThreadPoolExecutor(THREADS) as pool:
        for part in pool.map(deflate, shares):
            out.update(part)
    return {n: out[n] for n in names}


def _deflated(name: str, data: bytes) -> bytes:
    """A file deflated whole, as zipfile does (raw, the default level), or a piece of one
    (a name of PIECE_KEY): ended by a sync flush, not a last block."""
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    if name.startswith(PIECE_KEY):
        return packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
    return packer.compress(data) + packer.flush()


DOS_DATE = (ZIP_DATE[0] - 1980) << 9 | ZIP_DATE[1] << 5 | ZIP_DATE[2]
DOS_TIME = ZIP_DATE[3] << 11 | ZIP_DATE[4] << 5 | ZIP_DATE[5] // 2
LOCAL = struct.Struct("<4s2B4HL2L2H")
CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
END = struct.Struct("<4s4H2LH")
LOCAL_LENGTHS = struct.Struct("<2H")
"""A local header's name and extra field lengths (at its byte 26)."""
ATTRIBUTES = 0o644 << 16
ATTRIBUTES_FIELDS = struct.pack("<2HL", 0, 0, ATTRIBUTES)
"""The disk, internal and external attributes of every central record `_zip_parts` writes."""


def _write_zip(entries: list[tuple[str, ZipEntry]]) -> bytes:
    """The zip file zipfile writes for these entries, as bytes."""
    return b"".join(cast(list[Buffer], _zip_parts(entries)))


class OpenModule(NamedTuple):
    """A module written before, mapped (`mapping`), and the file descriptor it is open as:
    the ranges of it a module copies are copied by the kernel from there (files.FileRange)."""

    mapping: mmap.mmap
    fd: int


class KeptRun(NamedTuple):
    """Entries `start` to `stop` of the module before as its index lists them (`ZipIndex`),
    unchanged: copied as they lie, in one range, their central records in one."""

    start: int
    stop: int
    kept: bool = True
    """Tells a run from an entry (`Item`) at a glance."""


Item = tuple[str, ZipEntry] | KeptRun
"""An entry of the zip to write (its name and bytes), or a run of the module before."""


class Directory:
    """The central directory as it is made: its pieces, its length so far, and the index of
    the module written (`ZipIndex`), when one is kept."""

    def __init__(self, record: ZipIndex | None) -> None:
        self.pieces: list[Buffer] = []
        self.length = 0
        self.record = record


def _zip_parts(
    entries: Sequence[Item],
    source: OpenModule | None = None,
    kept: ZipIndex | None = None,
    record: ZipIndex | None = None,
) -> list[Part]:
    """The zip file zipfile writes for these entries (version 2.0, made on Unix, mode 644, no
    extra fields, UTF-8 flag on non-ASCII names), in one pass: its pieces in order (headers,
    names, the entries' bytes as they are given: a copied entry's is a view into the module
    before, written out without being copied first). Entries that lay one after another in
    the module before, as written here (`ZipEntry.at`), go as one range of it (a warm build's
    module is mostly such runs), and their central records as one, their offsets shifted; a
    range of the module `source` as a files.FileRange (copied by the kernel). A `KeptRun`
    is such a run as the index `kept` of the module `source` lists it. Where each entry
    lies in the zip written goes to `record` (its directory and end record to its `tail`)."""
    parts: list[Part] = []
    central = Directory(record)
    offset = at = count = 0
    while at < len(entries):
        item = entries[at]
        if offset > ZIP64_LIMIT:
            name = "kept entries" if isinstance(item, KeptRun) else item[0]
            raise ValueError(f"{name}: zip entries over 2 GB are not written")
        if isinstance(item, KeptRun):
            assert kept is not None and source is not None
            offset = _copy_kept(parts, central, offset, kept, item, source)
            count += item.stop - item.start
            at += 1
            continue
        name, entry = item
        stop = _run_end(entries, at)
        if stop > at:
            offset = _copy_run(
                parts, central, offset, cast(list[tuple[str, ZipEntry]], entries[at:stop]), source
            )
            count += stop - at
            at = stop
            continue
        offset = _write_entry(parts, central, offset, name, entry)
        count += 1
        at += 1
    directory = b"".join(central.pieces)
    if count > 0xFFFF or offset > ZIP64_LIMIT:
        raise ValueError("more than 65,535 entries or 2 GB: zip64 is not written")
    end = END.pack(b"PK\x05\x06", 0, 0, count, count, len(directory), offset, 0)
    if record is not None:
        record.directory, record.tail = offset, directory + end
    return [*parts, directory, end]


def _run_end(entries: Sequence[Item], start: int) -> int:
    """Where the run of entries copied as they lie from the same module that starts at
    `start` ends (`start` itself when the entry there is not one of those)."""
    first = cast(tuple[str, ZipEntry], entries[start])[1]
    data = first.data
    if first.at < 0 or not isinstance(data, memoryview):
        return start
    source, end, record_end = data.obj, first.end, first.record_end
    for stop in range(start + 1, len(entries)):
        item = entries[stop]
        if isinstance(item, KeptRun):
            return stop
        entry = item[1]
        data = entry.data
        if entry.at != end or entry.record != record_end:
            return stop
        if not isinstance(data, memoryview) or data.obj is not source:
            return stop
        end, record_end = entry.end, entry.record_end
    return len(entries)


def _copy_run(
    parts: list[Part],
    central: Directory,
    offset: int,
    named: list[tuple[str, ZipEntry]],
    opened: OpenModule | None = None,
) -> int:
    """A run of entries (`_run_end`) into `parts` as one range of the module they lie in (a
    FileRange when that is the module `opened`), their central records into `central` as
    one, each record's offset shifted to where the run lies now; the offset after the run."""
    run = [entry for _name, entry in named]
    first, last = run[0], run[-1]
    assert isinstance(first.data, memoryview)
    lying_in = first.data.obj
    source = memoryview(cast(Module, lying_in))
    data = source[first.at : last.end]
    if opened is not None and lying_in is opened.mapping:
        parts.append(FileRange(opened.fd, first.at, data))
    else:
        parts.append(data)
    records = source[first.record : last.record_end]
    shift = offset - first.at
    if last.at + shift > ZIP64_LIMIT:
        raise ValueError("more than 2 GB: zip64 is not written")
    if central.record is not None:
        moved = central.length - first.record
        for name, entry in named:
            spans = (
                entry.at + shift,
                entry.end + shift,
                entry.record + moved,
                entry.record_end + moved,
            )
            central.record.add(name, entry.crc, entry.size, entry.deflated, spans)
    central.length += last.record_end - first.record
    if not shift:
        central.pieces.append(records)
        return offset + last.end - first.at
    shifted, base, pack = bytearray(records), first.record - OFFSET_AT, OFFSET.pack_into
    for entry in run:
        pack(shifted, entry.record - base, entry.at + shift)
    central.pieces.append(shifted)
    return offset + last.end - first.at


def _copy_kept(
    parts: list[Part],
    central: Directory,
    offset: int,
    kept: ZipIndex,
    run: KeptRun,
    opened: OpenModule,
) -> int:
    """`_copy_run` of a run of the module before as its index `kept` lists it (its entries'
    places read from the index's lists, no record made per entry); the offset after it."""
    start, stop = run.start, run.stop
    last, first_at, base = stop - 1, kept.at[start], kept.directory
    source = memoryview(opened.mapping)
    parts.append(FileRange(opened.fd, first_at, source[first_at : kept.end[last]]))
    records = source[base + kept.record[start] : base + kept.record_end[last]]
    shift = offset - first_at
    if kept.at[last] + shift > ZIP64_LIMIT:
        raise ValueError("more than 2 GB: zip64 is not written")
    if central.record is not None:
        central.record.extend(kept, start, stop, shift, central.length - kept.record[start])
    central.length += len(records)
    if not shift:
        central.pieces.append(records)
        return offset + kept.end[last] - first_at
    shifted, origin, pack = bytearray(records), kept.record[start] - OFFSET_AT, OFFSET.pack_into
    for at, local in zip(kept.record[start:stop], kept.at[start:stop], strict=True):
        pack(shifted, at - origin, local + shift)
    central.pieces.append(shifted)
    return offset + kept.end[last] - first_at


def _write_entry(
    parts: list[Part],
    central: Directory,
    offset: int,
    name: str,
    entry: ZipEntry,
) -> int:
    """One entry's local header, name and bytes into `parts`, its central record into
    `central`; the offset after it."""
    encoded = name.encode("ascii") if name.isascii() else name.encode("utf-8")
    flags = 0 if name.isascii() else 0x800
    method = ZIP_DEFLATED if entry.deflated else ZIP_STORED
    size = len(entry.data)
    if size > ZIP64_LIMIT or entry.size > ZIP64_LIMIT:
        raise ValueError(f"{name}: zip entries over 2 GB are not written")
    common = (flags, method, DOS_TIME, DOS_DATE, entry.crc, size, entry.size)
    local = LOCAL.pack(b"PK\x03\x04", 20, 0, *common, len(encoded), 0)
    parts += [local, encoded, entry.data]
    central.pieces += [
        CENTRAL.pack(
            b"PK\x01\x02", 20, 3, 20, 0, *common, len(encoded), 0, 0, 0, 0, ATTRIBUTES, offset
        ),
        encoded,
    ]
    end, length = offset + len(local) + len(encoded) + size, CENTRAL.size + len(encoded)
    if central.record is not None:
        spans = (offset, end, central.length, central.length + length)
        central.record.add(name, entry.crc, entry.size, entry.deflated, spans)
    central.length += length
    return end


Buffer = bytes | bytearray | memoryview
"""A piece of the zip's central directory (joined once)."""
OFFSET = struct.Struct("<L")
OFFSET_AT = CENTRAL.size - OFFSET.size
"""Where a central record holds its local header's offset."""


ZIP64_LIMIT = (1 << 31) - 1


def build_module(
    game: GameData,
    out_dir: Path,
    lang: str = "en",
    piece_images: PieceImages = "svg",
    folder: Path | None = None,
    name: str = "",
    cache: Path | None = None,
) -> Path:
    """Write <folder>/<name>.vmod (atomically; folder defaults to out_dir/<game>, name to the
    game's id), with the faces cached in `cache` (default out_dir/.cache/<game>/); piece faces
    as SVG or PNG."""
    return write_module(game, out_dir, lang, piece_images, folder, name=name, cache=cache)


def write_module(
    game: GameData,
    out_dir: Path,
    lang: str = "en",
    piece_images: PieceImages = "svg",
    folder: Path | None = None,
    step: Callable[[str], None] = lambda name: None,
    name: str = "",
    cache: Path | None = None,
) -> Path:
    """build_module, calling `step(name)` after each of its steps (render_plan, module) for a
    bench to time them."""
    faces = (cache or out_dir / ".cache" / game.game.id) / "faces.pack"
    plan, images = render_plan(game, faces, lang, piece_images)
    step("render_plan")
    files = module_files(plan, images, faces.with_name("pieces.pack"))
    file_name = f"{name or game.game.id}.vmod"
    target = (folder or out_dir / game.game.id) / file_name
    before = out_dir / game.game.id / file_name
    kept = RenderCache(faces.with_name("deflated.pack"))
    index = faces.with_name(f"{file_name}.entries")
    write_zip_file(target, files, before, plan.image_crcs, kept, index)
    step("module")
    return target


def write_zip_file(
    target: Path,
    files: Mapping[str, bytes],
    before: Path,
    crcs: dict[str, int] | None = None,
    kept: RenderCache | None = None,
    index: Path | None = None,
) -> Path:
    """Write `zip_bytes(files, <the entries of the module at before>, crcs, kept)` to
    `target`, the same bytes, without making them in memory first: the entries copied from
    the module before (build/<game>/<name>.vmod, mapped, not read whole: most of a warm
    build's module) are written from it as they lie there. Atomic as files.write_atomically
    is: written beside the target, then renamed over it; a failed write leaves the old
    file. What `kept` (a pack) was given is saved once the module is written. With `index`
    (a file), where the entries of the module written lie is kept there (`ZipIndex`): the
    next build reads that, not the module's directory, when it is of the module before."""
    record = ZipIndex() if index is not None else None
    with _mapped(before) as previous, no_cyclic_gc():
        mapping = previous.mapping if previous is not None else None
        listed = read_index(index, mapping) if index is not None and mapping is not None else None
        parts = _module_parts(files, mapping, crcs or {}, previous, kept, listed, record)
        write_parts_atomically(target, parts, defer=True)  # see files.deferred_copies
    if kept is not None:
        kept.save()
    if index is not None and record is not None and record.tail:
        write_index(index, record, record.tail)
    return target


def _module_parts(
    files: Mapping[str, bytes],
    previous: Module | None,
    crcs: dict[str, int],
    opened: OpenModule | None = None,
    kept: RenderCache | None = None,
    listed: ZipIndex | None = None,
    record: ZipIndex | None = None,
) -> Iterator[Part]:
    """The pieces of the module's zip, in order (the ranges of the module before `opened` as
    FileRanges); the views into the module before are let go as soon as they are written (the
    mapping is closed after the last). With `listed`, the index of the module before, its
    unchanged entries are found from the index (`_indexed_entries`); `record` is given the
    index of the module written."""
    items: list[Item] | None = None
    if listed is not None and previous is not None and opened is not None:
        items = _indexed_entries(files, listed, previous, crcs, kept)
    if items is None:
        reuse = reusable_entries(previous) if previous is not None else {}
        items = list(_zip_entries(files, reuse, crcs, kept))
        del reuse
    parts = _zip_parts(items, opened, listed, record)
    del items
    parts.reverse()
    while parts:
        yield parts.pop()


@contextmanager
def _mapped(module: Path) -> Iterator[OpenModule | None]:
    """The module at `module` open and mapped for reading, or None (missing, empty,
    unreadable: a module written before is only ever a source of entries to copy). Modules
    are replaced by renaming, never rewritten in place, so a mapped one does not change under
    the build."""
    try:
        fd = os.open(module, os.O_RDONLY)
    except OSError:
        yield None
        return
    mapped = _map(fd)
    try:
        yield OpenModule(mapped, fd) if mapped is not None else None
    finally:
        os.close(fd)
        if mapped is not None:
            with suppress(BufferError):  # views still held (an exception's frames): freed later
                mapped.close()


def _map(fd: int) -> mmap.mmap | None:
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
