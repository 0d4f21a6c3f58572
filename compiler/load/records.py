"""Model records kept between builds: pickled, read back only as records, under keys that hold
the fingerprint of the code that read them.

A kept record saves reading its YAML again (composing and converting it); a kept file cannot
run code (see _RecordUnpickler), and a damaged one reads as nothing kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import io
import marshal
import os
import pickle
import pkgutil
import struct
import sys
import zlib
from collections.abc import Callable, Mapping
from functools import cache, partial
from pathlib import Path
from types import CellType, CodeType, FunctionType, MappingProxyType, MemberDescriptorType
from typing import Any, ClassVar, cast

import yaml

from compiler.diagnostics import Location
from compiler.load.nodes import _Loader
from compiler.model.common import PackedLocs, Text
from compiler.model.rowruns import RowRuns

Reduction = tuple[Callable[..., object], tuple[Any, ...]]
"""What a pickler writes for an object: the function that makes it again, and its arguments."""


def pickled(record: object) -> bytes:
    """A record (or a tuple of records and plain values) as bytes."""
    kept = io.BytesIO()
    pickler = pickle.Pickler(kept, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _reductions()
    try:
        pickler.dump(record)
    finally:
        _EQUALS.clear()
    return kept.getvalue()


def unpickled(data: bytes) -> object:
    """What `data` pickles, when it is made only of records (see _RecordUnpickler); else None."""
    if not data:
        return None
    try:
        found: object = _RecordUnpickler(io.BytesIO(data)).load()
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        ImportError,
        KeyError,
        RecursionError,
        MemoryError,  # damaged bytes that ask for a huge object
        OverflowError,
    ):
        return None
    return found


def read_only(mapping: dict[str, object]) -> Mapping[str, object]:
    """A read-only view of `mapping` (how the model holds its mappings)."""
    return MappingProxyType(mapping)


def _reduce_record(made: object) -> Reduction:
    cls: type = type(made)
    names = _field_names(cls)
    return _makers()[cls], tuple(
        _packed(getattr(made, name)) if name == "locs" else _field(getattr(made, name))
        for name in names
    )


def _field(value: Any) -> Any:
    """A record's field as it is pickled: its value shared (see _shared), and so is each
    item of a tuple (a row's cells)."""
    if type(value) is RowRuns:  # a chart's rows kept in runs: pickled as the tuple they are
        value = value.rows()
    if type(value) is tuple and value:
        return tuple(map(_shared, value))
    return _shared(value)


def _packed(locs: Any) -> Any:
    """A record's positions (`locs`) as PackedLocs: read back as two objects, not a dict of
    pairs (see compiler.model.common.PackedLocs); the same names tuple for records of one
    shape, so a pickle writes it once."""
    if type(locs) is PackedLocs or not isinstance(locs, Mapping) or not locs:
        return locs
    packed = PackedLocs.pack(locs)
    if packed is None:
        return locs
    names, positions = packed
    names = _NAMES.setdefault(names, tuple(map(sys.intern, names)))
    if len(_NAMES) > NAMES_LIMIT:
        _NAMES.clear()
    return PackedLocs(names, positions)


_NAMES: dict[tuple[str, ...], tuple[str, ...]] = {}
"""The names tuples of the positions pickled so far (see _packed)."""
NAMES_LIMIT = 1 << 12


SHARED_LENGTH = 40
"""Texts up to this long are written once per pickle (see _shared)."""


def _shared(value: Any) -> Any:
    """A short text as the one object of its value (sys.intern), a Text or a read-only
    mapping of plain values as the first one of its value in this pickle (see _equal),
    anything else as it is: the pickler writes an object it has written before as a reference
    to it, so the same keys (`front.strength`), ids and names in thousands of records are
    written, and made again when read back, once per pickle (a quarter less to read back at
    8,000 counters); so are the front values most units of a run share, and the formation's
    name in the rows of an order of battle (a third fewer objects to make again)."""
    kind = type(value)
    if kind is str:
        return sys.intern(value) if len(value) <= SHARED_LENGTH else value
    if kind is Text or kind is MappingProxyType:
        return _equal(value)
    return value


_EQUALS: dict[tuple[object, ...], object] = {}
"""The Texts and mappings written so far in the pickle being written, by their value (see
_equal); emptied after each pickle."""
PLAIN = frozenset({str, int, float, bool})
"""The values a mapping shared by its value may hold (each told apart by its type and repr:
1, 1.0 and True are equal keys of a dict, and 0.0 and -0.0 are equal floats)."""


def _equal(value: Text | MappingProxyType[Any, Any]) -> object:
    """The first object written in this pickle that is the same as `value` in every way the
    model shows (the same type; the same texts; the same keys, in the same order, with values
    of the same types and reprs), else `value`: records read back may share such objects,
    which nothing changes (records and their mappings are read-only)."""
    if isinstance(value, Text):  # (exactly a Text: see _shared)
        en, ja = value.en, value.ja
        if type(en) is not str or type(ja) is not str:
            return value
        key: tuple[object, ...] = (Text, en, ja)
    else:
        items = tuple(value.items())
        if not {type(k) for k, _v in items} <= {str} or not {type(v) for _k, v in items} <= PLAIN:
            return value
        key = (MappingProxyType, *((k, type(v), repr(v)) for k, v in items))
    return _EQUALS.setdefault(key, value)


def _reduce_mapping(mapping: Mapping[Any, Any]) -> Reduction:
    return read_only, ({_shared(key): _shared(value) for key, value in mapping.items()},)


def made_location(values: tuple[str, int, int]) -> Location:
    """A record's place from its path, line and column: what a pickle names for each
    Location (see _reduce_location); the unpickler makes it with MAKE_LOCATION instead."""
    return MAKE_LOCATION(values)


MAKE_LOCATION: Callable[[tuple[str, int, int]], Location] = partial(tuple.__new__, Location)
"""A Location made from a tuple of its values without a Python call (tuple.__new__ of the
class, which a C partial calls): a NamedTuple's own __new__ is Python code, one call per
record read back (some 22,000 at a warm build of 8,000 counters). It runs no other code:
the values are what the pickle holds, as they were when it was written."""


def _reduce_location(location: Location) -> Reduction:
    return made_location, ((location.path, location.line, location.column),)


MAKER_PREFIX = "made_"
"""The names of the makers of records (see _makers) in this module."""


@cache
def _makers() -> dict[type, Callable[..., object]]:
    """Per model record class with slots: a function that makes a record of it from its
    fields' values, setting each slot with the slot's own setter (which a frozen dataclass's
    __setattr__ does not stop) in straight-line code, without a loop. A kept run of items
    makes thousands of records: one call each, made at unpickling, is most of what reading
    them back costs. Each maker is a global of this module (`made_<module>_<class>`), so a
    pickle names it, and only the unpickler's find_class hands it out; it takes exactly one
    value per field (the setters are keyword-only: a pickle cannot replace them)."""
    found: dict[type, Callable[..., object]] = {}
    for cls, setters in _setters().items():
        name = _maker_name(cls)
        made = _twin_maker(cls, name) or _maker(cls, setters, name)
        maker = globals().setdefault(name, made)
        if getattr(maker, "made_class", None) is cls:
            found[cls] = maker
    return found


def _maker_name(cls: type) -> str:
    return f"{MAKER_PREFIX}{cls.__module__.rsplit('.', 1)[-1]}_{cls.__name__}"


def record_maker(cls: type) -> Callable[..., object] | None:
    """The maker of records of `cls` (see _makers: one value per field, in the fields'
    order), made alone when the others are not made yet (a load that reads no kept record
    needs none of them); None when `cls` has no twin (see _twin). The loader makes the
    thousands of hexes of a large map with it: a frozen dataclass's __init__ cost four
    times as much."""
    name = _maker_name(cls)
    found = globals().get(name)
    if getattr(found, "made_class", None) is cls:
        return cast(Callable[..., object], found)
    made = _twin_maker(cls, name)
    if made is None:
        return None
    maker = globals().setdefault(name, made)
    return maker if getattr(maker, "made_class", None) is cls else None


def _twin_maker(cls: type, name: str) -> Callable[..., object] | None:
    """The maker of records of `cls` (see _makers), named `name`, that makes the record as
    one of its twin (see _twin), sets each field as an attribute (which Python does in the
    bytecode, without a call: a setter's call cost three times as much) and then makes it a
    record of `cls`; None when `cls` has no twin or the maker does not make its records
    (then _maker's is used)."""
    twin = _twin(cls)
    if twin is None:
        return None
    fields = _field_names(cls)
    values = ", ".join(f"v{index}" for index in range(len(fields)))
    body = "".join(f"        made.{field} = v{index}\n" for index, field in enumerate(fields))
    source = (
        f"def outer(_new, _twin, _cls):\n    def maker({values}):\n"
        f"        made = _new(_twin)\n{body}        made.__class__ = _cls\n"
        "        return made\n    return maker\n"
    )
    bound = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    maker = _bound_maker(_inner_code(source), name, bound, cls)
    try:
        made = maker(*fields)
    except TypeError:  # "__class__ assignment: ... object layout differs"
        return None
    if type(made) is not cls or [getattr(made, field) for field in fields] != list(fields):
        return None
    return maker


def _twin(cls: type) -> type | None:
    """A class of the same layout as `cls` (the same base, the same slots added) whose
    attributes can be set (a frozen dataclass's __setattr__ refuses): an object made as one
    and given its fields can be made one of `cls` by setting its __class__. None for a class
    without one base and its own slots."""
    own = cls.__dict__.get("__slots__")
    if len(cls.__bases__) != 1 or type(own) is not tuple or "__dict__" in own:
        return None
    namespace = {
        "__slots__": own,
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__module__": __name__,
    }
    return type(f"_Twin{cls.__name__}", cls.__bases__, namespace)


def _maker(
    cls: type, setters: tuple[Callable[[object, object], None], ...], name: str
) -> Callable[..., object]:
    """The maker of records of `cls` (see _makers), named `name`: the code of makers of as
    many fields (see _maker_code), with this class and its setters in its closure (a
    keyword-only default was looked up in a dict on every call: a tenth of what reading a
    kept run back cost; a pickle can no more replace a closure's value than a default)."""
    bound: dict[str, object] = {f"_s{index}": setter for index, setter in enumerate(setters)}
    bound.update(_new=object.__new__, _cls=cls)
    return _bound_maker(_maker_code(len(setters)), name, bound, cls)


def _bound_maker(
    code: CodeType, name: str, bound: Mapping[str, object], cls: type
) -> Callable[..., object]:
    """A maker of records of `cls` named `name`: `code` (see _inner_code) with each of its
    free variables bound to its value in `bound`."""
    code = code.replace(co_name=name, co_qualname=name)
    closure = tuple(CellType(bound[free]) for free in code.co_freevars)
    maker = FunctionType(code, {"__name__": __name__}, name, None, closure)
    maker.__module__ = __name__
    maker.made_class = cls  # type: ignore[attr-defined]  # which class it makes (see _makers)
    return maker


def _inner_code(source: str) -> CodeType:
    """The code of the function that the function `outer` of `source` defines (its free
    variables are what `outer` takes), compiled once and kept between processes like a
    .pyc (compiler.dataclasscode.kept_code)."""
    from compiler.dataclasscode import kept_code

    module = kept_code(source)
    outer = next(const for const in module.co_consts if isinstance(const, CodeType))
    return next(const for const in outer.co_consts if isinstance(const, CodeType))


@cache
def _maker_code(count: int) -> CodeType:
    """The code of a maker of records of `count` fields: it makes the record (`_new(_cls)`)
    and sets each slot (`_s0(made, v0)` ...) in straight-line code, `_new`, `_cls` and the
    setters being free variables (see _maker). It is the same for every class of as many
    fields, so it is compiled once per count (19 for the model's 68 classes: compiling each
    class's own cost 0.04-0.06 s of every process's start)."""
    values = ", ".join(f"v{index}" for index in range(count))
    bound = "".join(f", _s{index}" for index in range(count))
    body = "".join(f"        _s{index}(made, v{index})\n" for index in range(count))
    source = (
        f"def outer(_new, _cls{bound}):\n    def maker({values}):\n"
        f"        made = _new(_cls)\n{body}        return made\n    return maker\n"
    )
    return _inner_code(source)


def _maker_named(name: str) -> Callable[..., object] | None:
    """The maker of records called `name` in a pickle (see _makers), if there is one."""
    if not name.startswith(MAKER_PREFIX):
        return None
    makers = _makers()
    found = globals().get(name)
    made = getattr(found, "made_class", None)
    return found if isinstance(made, type) and makers.get(made) is found else None


@cache
def _model_classes() -> tuple[type, ...]:
    """Every dataclass defined in compiler.model (the records the loader makes)."""
    import compiler.model

    found: list[type] = []
    for module_info in pkgutil.iter_modules(compiler.model.__path__):
        module = importlib.import_module(f"compiler.model.{module_info.name}")
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and dataclasses.is_dataclass(value)
            and value.__module__ == module.__name__
        )
    return tuple(found)


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@cache
def _setters() -> dict[type, tuple[Callable[[object, object], None], ...]]:
    """Per model record class with slots: how to set each field (its slot's own setter,
    which a frozen dataclass's __setattr__ does not stop)."""
    found: dict[type, tuple[Callable[[object, object], None], ...]] = {}
    for cls in _model_classes():
        slots = [_own_attribute(cls, name) for name in _field_names(cls)]
        if all(isinstance(slot, MemberDescriptorType) for slot in slots):
            found[cls] = tuple(slot.__set__ for slot in slots)
    return found


def _own_attribute(cls: type, name: str) -> Any:
    """`name` as the first class of `cls`'s MRO to define it holds it (a slot's descriptor),
    or None: what inspect.getattr_static gives for a slot, without its checks of the
    metaclass and of shadowing dicts (a tenth of the time, over some 640 fields per process)."""
    for klass in cls.__mro__:
        namespace = vars(klass)
        if name in namespace:
            return namespace[name]
    return None


@cache
def _reductions() -> dict[type, Callable[[Any], Reduction]]:
    """How the pickler writes the model's read-only mappings and its records with slots."""
    table: dict[type, Callable[[Any], Reduction]] = {
        MappingProxyType: _reduce_mapping,
        Location: _reduce_location,
    }
    table.update(dict.fromkeys(_makers(), _reduce_record))
    return table


class _RecordUnpickler(pickle.Unpickler):
    """Reads back only the model's records and plain values: a planted file cannot name any
    other class or function, so it cannot run code."""

    found: ClassVar[dict[tuple[str, str], object]] = {}

    def find_class(self, module: str, name: str) -> object:
        known = self.found.get((module, name))
        if known is None:
            known = self.found[(module, name)] = self._allowed(module, name)
        return known

    def _allowed(self, module: str, name: str) -> object:
        if "." not in name and not name.startswith("_"):
            if (
                module.startswith("compiler.model.")
                or (module == "compiler.diagnostics" and name == "Location")
                or (module == "builtins" and name in ("tuple", "frozenset", "set", "list", "dict"))
            ):
                found: object = super().find_class(module, name)
                if isinstance(found, type):
                    return found
            if module == __name__ and name == "read_only":
                # the type itself, not the function: the same mapping made without a
                # Python call (a warm load reads back some 14,000 at 8,000 counters)
                return MappingProxyType
        if module == __name__ and name == made_location.__name__:
            return MAKE_LOCATION
        maker = _maker_named(name) if module == __name__ else None
        if maker is not None:
            return maker
        raise pickle.UnpicklingError(f"{module}.{name} is not a model record")


@cache
def loader_fingerprint() -> bytes:
    """The code that reads data files into records: the loader, the model it builds, the
    positions it gives (compiler.diagnostics), the YAML parser (and whether it is the C one)
    and the Python that runs them."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}\0{yaml.__version__}\0{_Loader.__name__}\0".encode())
    package = Path(__file__).parent.parent
    sources = [package / "diagnostics.py"]
    for folder in (package / "load", package / "model"):
        sources.extend(sorted(folder.glob("*.py")))
    for source in sources:
        digest.update(f"{source.parent.name}/{source.name}".encode() + b"\0")
        digest.update(source.read_bytes())
    return digest.digest()


@cache
def _seed() -> hashlib._Hash:
    return hashlib.sha256(loader_fingerprint())


def record_key(*parts: str | int | bytes) -> bytes:
    """The key of a record read from text: the loader's fingerprint and the parts (the kind of
    record, the file, the first line ... and the text last), NUL-separated (only the last part
    may hold a NUL: a path or a name cannot)."""
    digest = _seed().copy()
    digest.update(
        b"\0".join(part if isinstance(part, bytes) else str(part).encode() for part in parts)
    )
    return digest.digest()


CHUNK_HEAD = struct.Struct("<4sQI")
"""A kept chunk's head: the mark, the length of its marshalled entries and their CRC-32 (a
chunk's bytes changed on disk, a flipped bit that still unmarshals, must not be read back as
a record: the build would show what the data does not say)."""
CHUNK_MARK = b"cmk1"


def read_kept(stored: Path) -> dict[bytes, bytes]:
    """What the last builds kept in `stored` (key → bytes): the file's chunks one after the
    other, a later chunk's entry over an earlier one's (see write_kept); nothing when the file
    is missing, or a chunk is cut short, damaged (its CRC) or not of this format."""
    try:
        data = stored.read_bytes()
    except OSError:
        return {}
    found: dict[object, object] = {}
    view, at = memoryview(data), 0
    try:
        while at < len(data):
            mark, length, crc = CHUNK_HEAD.unpack_from(data, at)
            start = at + CHUNK_HEAD.size
            body = view[start : start + length]
            if mark != CHUNK_MARK or len(body) != length or zlib.crc32(body) != crc:
                return {}
            chunk = marshal.loads(body)
            if not isinstance(chunk, dict):
                return {}
            found.update(chunk)
            at = start + length
    except (EOFError, ValueError, TypeError, struct.error):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, bytes) and isinstance(v, bytes)}


def kept_chunk(entries: dict[Any, Any]) -> bytes:
    """Entries as one chunk of a kept file: its head (see CHUNK_HEAD), then them marshalled."""
    body = marshal.dumps(entries)
    return CHUNK_HEAD.pack(CHUNK_MARK, len(body), zlib.crc32(body)) + body


ENTRY_SIZE = 48
"""About what a kept entry costs in the file besides its bytes (its key, marshal's framing)."""
MIN_COMPACT = 1 << 16
"""A file this small is never too large: written again whole costs next to nothing."""


def write_kept(
    stored: Path, kept: dict[bytes, bytes], known: Mapping[bytes, bytes] | None = None
) -> None:
    """Keep `kept` in `stored` when its folder exists (a build made it); a failure to write
    is not an error (the output folder's own error is reported when the build writes there).
    With `known` (what read_kept gave of the file this build started from), only the entries
    that are new or changed go at the end of the file, as one more chunk: a warm build that
    changed one unit writes a few runs, not the megabytes of all of them again. Entries no
    build uses any more stay behind until the file would hold more than twice what `kept`
    holds; then (and without `known`, or when nothing was known) it is written again whole,
    with `kept` alone, so it does not grow."""
    if not stored.parent.is_dir():
        return
    if known:
        added = {key: value for key, value in kept.items() if known.get(key) != value}
        if _append(stored, added, kept):
            return
    try:
        part = stored.with_name(stored.name + f".{os.getpid()}.part")
        part.write_bytes(kept_chunk(kept))
        os.replace(part, stored)
    except OSError:
        pass


def _append(stored: Path, added: dict[bytes, bytes], kept: dict[bytes, bytes]) -> bool:
    """Add `added` at the end of `stored` as one chunk (nothing when it is empty); False when
    the file is gone or would be too large, so that it is written again whole."""
    try:
        size = stored.stat().st_size
    except OSError:
        return False
    chunk = kept_chunk(added) if added else b""
    live = sum(map(len, kept.values())) + ENTRY_SIZE * len(kept)
    if size + len(chunk) > max(2 * live, MIN_COMPACT):
        return False
    if not chunk:
        return True
    try:
        with stored.open("ab") as file:  # one write, at the end whatever another build did
            file.write(chunk)
    except OSError:
        return False
    return True
