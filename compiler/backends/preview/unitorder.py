"""The order of the units section (by side, then formation: preview.sections) and the keys of
its runs, kept from the last build in the edition's runs cache (preview.kept), so that a warm
build works out again only the runs a changed unit is in.

The order is the last build's while what decides it is the same: what every run shares (the
language, its words, the sides' and formations' names, the files' links, the code: the runs'
seed), the number of units, their lines and files, and each unit's side and formation. A unit
that did not change is known by the sheets' runs of units (compiler.backends.sheets.runs,
whose keys digest their units) and a digest of their images; the units of a run whose key
changed are compared one by one (ids, sides, formations). Then the runs of the section that
hold no unit of a changed run of the sheets are read back under the keys the last build kept;
the others are keyed again from their units' rows. Any other difference, a run of the sheets
without a key (piece art), or a record of another shape: the order is worked out again from
every unit.
"""

from __future__ import annotations

import hashlib
import marshal
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, chain
from operator import attrgetter

from compiler.backends.keptrecord import all_of_type, unmarshalled
from compiler.backends.rendercache import RenderCache, digest_key
from compiler.backends.sheets.runs import unit_runs
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

FORMAT = "countermix-preview-unit-order-1"
INDEX = "i"
"""The array type of the kept positions (a game has fewer than 2**31 units)."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What decides the section's order and runs besides the units' contents: the runs'
    seed, the number of units, the keys of the sheets' runs of units (None: one has none),
    the units' lines (an array's bytes), a digest of their files and one of the images of
    each run of the sheets' units."""

    seed: str
    count: int
    sources: tuple[str, ...] | None
    lines: bytes
    paths: str
    images: tuple[str, ...]
    """A digest of the images of each run of the sheets' units."""


@dataclass(slots=True)
class Order:
    """The units in the section's order (each an index in the game's units), the HTML before
    each (by position, where there is some), the key of each run of the section (None: to
    be worked out), the facts it holds for and each sheets' run's digest of its units' ids,
    sides and formations."""

    order: array[int]
    before: dict[int, str]
    keys: list[str | None]
    facts: Facts
    groups: list[str]
    positions: array[int]
    """Each unit's position in the section, by its index in the game's units."""
    size: int
    """Units per run of the section."""


def heading_words(game: GameData, lang: str, other: str) -> list[str]:
    """What the section's headings are written with: the sides' and formations' ids and
    names in the language, and the heading of the units of no formation."""
    sides = [(side.id, side.name.get(lang)) for side in game.game.sides]
    formations = [(formation.id, formation.name.get(lang)) for formation in game.formations]
    return [repr(sides), repr(formations), other]


def facts(
    game: GameData, paths: list[str], fronts: list[str], backs: list[str], seed: str
) -> Facts:
    """The facts of the game's units (see Facts), each in passes that stay in C."""
    keys = tuple(run.key for run in unit_runs(game))
    sources = None if None in keys else tuple(key for key in keys if key is not None)
    lines = array("q", map(attrgetter("loc.line"), game.units)).tobytes()
    files = hashlib.sha256("\0".join(paths).encode("utf-8", "surrogatepass")).hexdigest()
    starts = list(accumulate((len(run.units) for run in unit_runs(game)), initial=0))
    images = tuple(
        _images(fronts[start:end], backs[start:end])
        for start, end in zip(starts, starts[1:], strict=False)
    )
    return Facts(seed, len(game.units), sources, lines, files, images)


def _images(fronts: list[str], backs: list[str]) -> str:
    """A digest of some units' images."""
    looks = "\0".join(fronts) + "\1" + "\0".join(backs)
    return hashlib.sha256(looks.encode("utf-8", "surrogatepass")).hexdigest()


def _group(units: Sequence[Unit]) -> str:
    """A digest of some units' ids, sides and formations (what their place in the section
    depends on)."""
    fields = chain.from_iterable(map(attrgetter("id", "side", "formation"), units))
    return hashlib.sha256("\0".join(fields).encode("utf-8", "surrogatepass")).hexdigest()


def _order_key(anchor: str) -> str:
    return digest_key("preview-unit-order", FORMAT, anchor)


def made_order(
    game: GameData, listed: list[Unit], before: list[str], found: Facts, size: int
) -> Order:
    """The order of the units `listed` (the section's order, with the HTML `before` each),
    in runs of `size` units, every run to be keyed."""
    index = dict(zip(map(id, game.units), range(len(game.units)), strict=True))
    order = array(INDEX, map(index.__getitem__, map(id, listed)))
    positions = array(INDEX, bytes(order.itemsize * len(order)))
    for position, unit in enumerate(order):
        positions[unit] = position
    groups = [_group(run.units) for run in unit_runs(game)] if found.sources else []
    heads = {position: text for position, text in enumerate(before) if text}
    runs = -(-len(order) // size)
    return Order(order, heads, [None] * runs, found, groups, positions, size)


def read_order(
    cache: RenderCache, anchor: str, found: Facts, game: GameData, size: int
) -> Order | None:
    """The order the last build kept, when it holds for the units now (see the module's
    docstring) and is in runs of `size` units, with the runs that hold a unit of a changed
    run of the sheets to be keyed again; None for any other record, or none."""
    if found.sources is None:
        return None
    kept = _read(cache.get(_order_key(anchor)), found, size)
    if kept is None:
        return None
    sources, images, order = kept
    runs = unit_runs(game)
    starts = list(accumulate((len(run.units) for run in runs), initial=0))
    if starts[-1] != found.count:
        return None
    changed = zip(sources, found.sources, images, found.images, strict=True)
    for number, (old, new, old_images, new_images) in enumerate(changed):
        if old == new and old_images == new_images:
            continue
        if old != new and _group(runs[number].units) != order.groups[number]:
            return None  # a unit moved to another side or formation: another order
        for unit in range(starts[number], starts[number + 1]):
            order.keys[order.positions[unit] // size] = None
    return order


def _read(
    data: bytes | None, found: Facts, size: int
) -> tuple[tuple[str, ...], tuple[str, ...], Order] | None:
    """A kept order read back, when it has the shape `keep_order` writes and holds for the
    facts `found` (but the keys of the sheets' runs and their images' digests: returned
    apart); else None."""
    record = unmarshalled(data)
    if type(record) is not tuple or len(record) != 11 or record[:2] != (FORMAT, size):
        return None
    _format, _size, count, sources, groups, lines, paths, images, order, positions, rest = record
    heads, keys, seed = rest if type(rest) is tuple and len(rest) == 3 else ((), (), None)
    if (seed, count, lines, paths) != (found.seed, found.count, found.lines, found.paths):
        return None
    assert found.sources is not None
    runs = -(-count // size) if type(count) is int else -1
    runs_now = len(found.sources)
    if not (_strings(sources, runs_now) and _strings(groups, runs_now)):
        return None
    if not _strings(images, runs_now) or len(found.images) != runs_now:
        return None
    if not (_strings(keys, runs) and _heads(heads, count)):
        return None
    listed, placed = _indices(order, count), _indices(positions, count)
    if listed is None or placed is None:
        return None
    made = Order(listed, dict(heads), list(keys), found, list(groups), placed, size)
    return sources, images, made


def _strings(values: object, count: int) -> bool:
    return type(values) is tuple and len(values) == count and all_of_type(values, str)


def _heads(heads: object, count: int) -> bool:
    """Whether `heads` are (position, HTML) pairs of positions among `count`."""
    if type(heads) is not tuple or not all_of_type(heads, tuple):
        return False
    if not set(map(len, heads)) <= {2}:
        return False
    positions = [head[0] for head in heads]
    if not all_of_type(positions, int) or not all_of_type((h[1] for h in heads), str):
        return False
    return not positions or (min(positions) >= 0 and max(positions) < count)


def _indices(data: object, count: int) -> array[int] | None:
    """`count` indices among `count` read back from an array's bytes; else None."""
    if type(data) is not bytes:
        return None
    values = array(INDEX)
    if len(data) != count * values.itemsize:
        return None
    values.frombytes(data)
    if count and (min(values) < 0 or max(values) >= count):
        return None
    return values


def keep_order(cache: RenderCache, anchor: str, order: Order) -> None:
    """Keep the order (every run keyed) for the next build, when it changed (an order of
    units of which a run of the sheets has no key is not kept)."""
    found = order.facts
    if found.sources is None or None in order.keys:
        return
    record = (
        FORMAT,
        order.size,
        found.count,
        found.sources,
        tuple(order.groups),
        found.lines,
        found.paths,
        found.images,
        order.order.tobytes(),
        order.positions.tobytes(),
        (tuple(sorted(order.before.items())), tuple(order.keys), found.seed),
    )
    data = marshal.dumps(record)
    key = _order_key(anchor)
    if cache.get(key) != data:
        cache.put(key, data)
