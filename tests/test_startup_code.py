"""The kept code of the tool's dataclasses (compiler.dataclasscode): classes made with it are
the classes dataclasses makes without it; the file is read only when whole and of this
interpreter, written atomically, and only when something new was compiled."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from compiler import dataclasscode
from tests.conftest import DATA, REPO

CLASSES = textwrap.dedent(
    """
    import dataclasses
    from dataclasses import InitVar, dataclass, field
    from typing import ClassVar

    @dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = ()

    @dataclass(frozen=True, slots=True, kw_only=True)
    class Named:
        name: str
        point: Point = field(default_factory=lambda: Point(1))
        seen: ClassVar[int] = 0

    @dataclass(order=True, frozen=True)
    class Ordered:
        rank: int
        label: str = field(default="", compare=False)

    @dataclass
    class Plain:
        values: list[int] = field(default_factory=list)
        scale: InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.values = [value * scale for value in self.values]

    @dataclass(eq=False, slots=True)
    class Identity:
        ref: object = None

    @dataclass(unsafe_hash=True)
    class Hashed:
        a: int
        b: str = "b"
    """
)

POSTPONED = "from __future__ import annotations\n" + CLASSES
"""The same classes with their annotations kept as strings (as the tool's modules have them)."""

NAMES = ("Point", "Named", "Ordered", "Plain", "Identity", "Hashed")


@contextmanager
def plain_dataclasses() -> Iterator[None]:
    """dataclasses as Python has it (the stand-in taken out, put back after, as an earlier
    test's main() may have installed it)."""
    was = dataclasscode._cache, dataclasscode._installed_by
    dataclasses_module: Any = dataclasses
    stand_in = vars(dataclasses).get("exec")
    dataclasscode.uninstall()
    try:
        yield
    finally:
        dataclasscode.uninstall()
        if stand_in is not None:
            dataclasses_module.exec = stand_in
        dataclasscode._cache, dataclasscode._installed_by = was


@contextmanager
def kept_in(path: Path) -> Iterator[None]:
    """The stand-in installed with its file at `path` (and nothing else installed)."""
    with plain_dataclasses():
        assert dataclasscode.install(path)
        try:
            yield
        finally:
            dataclasscode.uninstall()


def make_module(name: str, source: str = CLASSES) -> types.ModuleType:
    """A module called `name` (importable by pickle) defining the classes of `source`."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102
    return module


def behaviour(module: types.ModuleType) -> dict[str, object]:
    """What the classes of CLASSES do, in comparable form (no identities)."""
    point = module.Point(1, 2, ("a",))
    named = module.Named(name="n")
    ordered = [module.Ordered(2, "x"), module.Ordered(1, "y")]
    plain = module.Plain([1, 2], scale=3)
    hashed = module.Hashed(1)
    found: dict[str, object] = {
        "repr": [repr(point), repr(named), repr(ordered), repr(plain), repr(hashed)],
        "eq": [point == module.Point(1, 2, ("a",)), point == module.Point(1, 3), plain == plain],
        "hash": [hash(point), hash(hashed), hash(module.Ordered(3))],
        "sorted": repr(sorted(ordered)),
        "replace": repr(dataclasses.replace(point, y=5)),
        "astuple": dataclasses.astuple(point),
        "asdict": dataclasses.asdict(named),
        "pickle": [
            pickle.loads(pickle.dumps(value)) == value for value in (point, named, hashed, plain)
        ],
        "copy": [copy.deepcopy(point) == point, copy.copy(named) == named],
        "identity": module.Identity() == module.Identity(),
        "frozen": _refused(lambda: setattr(point, "x", 3)) + _refused(lambda: delattr(point, "x")),
        "no_field": _refused(lambda: module.Point()),
        "kw_only": _refused(lambda: module.Named("n")),
    }
    for name in NAMES:
        cls = getattr(module, name)
        found[name] = _class_shape(cls)
    return found


def _class_shape(cls: type) -> dict[str, object]:
    """A class's fields, options, slots, and its generated methods' code and annotations."""
    methods = {
        name: vars(cls)[name]
        for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
        if callable(vars(cls).get(name))
    }
    return {
        "fields": [
            (f.name, f.type, f.init, f.repr, f.compare, f.hash, f.kw_only)
            for f in dataclasses.fields(cls)
        ],
        "params": repr(vars(cls)["__dataclass_params__"]),
        "slots": vars(cls).get("__slots__"),
        "match_args": vars(cls).get("__match_args__"),
        "doc": cls.__doc__,
        "hash_none": vars(cls).get("__hash__", "absent") is None,
        "methods": {
            name: (
                getattr(method, "__qualname__", None),
                getattr(method, "__annotations__", None),
                getattr(method, "__defaults__", None),
                repr(getattr(method, "__kwdefaults__", None)),
                _code_shape(getattr(method, "__wrapped__", method).__code__),
            )
            for name, method in methods.items()
        },
    }


def _code_shape(code: types.CodeType) -> tuple[object, ...]:
    """A code object, comparable by repr: what `==` compares of it, and its file name."""
    return (
        code.co_filename,
        code.co_name,
        code.co_qualname,
        code.co_firstlineno,
        code.co_flags,
        code.co_code,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_argcount,
        code.co_kwonlyargcount,
        code.co_linetable,
        code.co_exceptiontable,
        tuple(_code_shape(c) if isinstance(c, types.CodeType) else c for c in code.co_consts),
    )


def _refused(action: Any) -> list[str]:
    try:
        action()
    except Exception as err:  # noqa: BLE001  # the exception is what is compared
        return [type(err).__name__, str(err)]
    return ["done"]


@pytest.mark.parametrize("source", [CLASSES, POSTPONED], ids=["evaluated", "postponed"])
def test_classes_made_with_kept_code_are_the_plain_ones(tmp_path: Path, source: str) -> None:
    path = tmp_path / "code.marshal"
    with plain_dataclasses():
        plain = behaviour(make_module("compiler._startup_case_plain", source))
    with kept_in(path):
        compiled = behaviour(make_module("compiler._startup_case_compiled", source))
        dataclasscode.save()
    assert path.is_file()
    with kept_in(path):
        unmarshalled = behaviour(make_module("compiler._startup_case_kept", source))
        assert dataclasscode._cache is not None
        assert not dataclasscode._cache.has_additions()
    assert _renamed(compiled, "compiled") == _renamed(plain, "plain")
    assert _renamed(unmarshalled, "kept") == _renamed(plain, "plain")


def _renamed(found: dict[str, object], case: str) -> str:
    """The behaviour with its module's name taken out (the cases live in modules of their
    own, whose names a repr or a qualname may not show but a pickle does)."""
    return repr(found).replace(f"compiler._startup_case_{case}", "MODULE")


def test_kept_code_is_unmarshalled_not_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        make_module("compiler._startup_case_first")
        dataclasscode.save()

    def no_compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled a text that was kept")

    with kept_in(path):
        monkeypatch.setattr(dataclasscode, "compile", no_compiling, raising=False)
        make_module("compiler._startup_case_second")
        assert dataclasscode._cache is not None
        assert not dataclasscode._cache.has_additions()


def test_other_packages_classes_are_compiled_as_before(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        other = behaviour(make_module("elsewhere_startup_case"))
        assert dataclasscode._cache is not None
        assert not dataclasscode._cache.has_additions()
        dataclasscode.save()
    assert not path.exists()
    with plain_dataclasses():
        plain = behaviour(make_module("elsewhere_startup_case"))
    assert repr(other) == repr(plain)


def test_nothing_new_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        make_module("compiler._startup_case_a")
        dataclasscode.save()
    before = path.stat()
    with kept_in(path):
        make_module("compiler._startup_case_b")
        dataclasscode.save()
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),
        lambda data: b"not a cache at all",
        lambda data: data.replace(dataclasscode.HEADER, b"countermix dataclass code 0\n"),
        lambda data: dataclasscode.encoded({}) + b"trailing",
    ],
    ids=["empty", "truncated", "flipped", "foreign", "other-format", "trailing"],
)
def test_a_damaged_file_is_ignored_and_written_again(tmp_path: Path, damage: Any) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        make_module("compiler._startup_case_good")
        dataclasscode.save()
    good = dataclasscode.read_texts(path)
    assert good
    path.write_bytes(damage(path.read_bytes()))
    assert dataclasscode.read_texts(path) == {}
    with plain_dataclasses():
        plain = behaviour(make_module("compiler._startup_case_plain"))
    with kept_in(path):
        again = behaviour(make_module("compiler._startup_case_kept"))
        dataclasscode.save()
    assert _renamed(again, "kept") == _renamed(plain, "plain")
    assert dataclasscode.read_texts(path) == good


def test_an_entry_that_is_not_code_is_compiled_again(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        make_module("compiler._startup_case_good")
        dataclasscode.save()
    texts = dataclasscode.read_texts(path)
    path.write_bytes(dataclasscode.encoded(dict.fromkeys(texts, b"\x00broken")))
    with plain_dataclasses():
        plain = behaviour(make_module("compiler._startup_case_plain"))
    with kept_in(path):
        again = behaviour(make_module("compiler._startup_case_kept"))
    assert _renamed(again, "kept") == _renamed(plain, "plain")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(dataclasscode.encoded({"old": b"x"}))

    def failing(source: object, target: object) -> None:
        raise OSError("disk full")

    with kept_in(path):
        make_module("compiler._startup_case_a")
        monkeypatch.setattr(os, "replace", failing)
        dataclasscode.save()  # says nothing
        monkeypatch.undo()
    assert dataclasscode.read_texts(path) == {"old": b"x"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["code.marshal"]


def test_a_folder_that_cannot_be_made_is_only_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    path = blocker / "countermix" / "code.marshal"
    with plain_dataclasses():
        plain = behaviour(make_module("compiler._startup_case_plain"))
    with kept_in(path):
        kept = behaviour(make_module("compiler._startup_case_kept"))
        dataclasscode.save()
    assert _renamed(kept, "kept") == _renamed(plain, "plain")


def test_two_processes_additions_are_merged(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    first = dataclasscode.CodeCache(path)
    second = dataclasscode.CodeCache(path)
    first.code("a = 1\n")
    second.code("b = 2\n")  # read before the first wrote
    first.save()
    second.save()
    assert set(dataclasscode.read_texts(path)) == {"a = 1\n", "b = 2\n"}


def test_too_many_texts_keeps_those_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "code.marshal"
    monkeypatch.setattr(dataclasscode, "MOST_TEXTS", 3)
    old = dataclasscode.CodeCache(path)
    for index in range(3):
        old.code(f"old = {index}\n")
    old.save()
    new = dataclasscode.CodeCache(path)
    new.code("old = 0\n")
    new.code("new = 1\n")
    new.save()
    assert set(dataclasscode.read_texts(path)) == {"old = 0\n", "new = 1\n"}


def test_the_file_belongs_to_one_interpreter() -> None:
    from importlib.util import MAGIC_NUMBER

    name = dataclasscode.cache_file_name()
    assert sys.implementation.cache_tag in name
    assert MAGIC_NUMBER.hex() in name
    assert f".O{sys.flags.optimize}." in name


def test_the_cache_folder_is_the_users() -> None:
    assert dataclasscode.cache_folder({"XDG_CACHE_HOME": "/x/cache", "HOME": "/h"}) == Path(
        "/x/cache/countermix"
    )
    assert dataclasscode.cache_folder({"XDG_CACHE_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.cache/countermix"
    )
    assert dataclasscode.cache_folder({"HOME": "/h"}) == Path("/h/.cache/countermix")


def test_only_known_pythons_are_served() -> None:
    assert dataclasscode.supported((3, 11))
    assert dataclasscode.supported((3, 13))
    assert not dataclasscode.supported((3, 10))
    assert not dataclasscode.supported((3, 14))


def test_another_stand_in_is_left_alone(tmp_path: Path) -> None:
    def theirs(*args: object) -> None:
        raise AssertionError("not called")

    dataclasses_module: Any = dataclasses
    with plain_dataclasses():
        dataclasses_module.exec = theirs
        try:
            assert not dataclasscode.install(tmp_path / "code.marshal")
            assert vars(dataclasses)["exec"] is theirs
        finally:
            del dataclasses_module.exec


def test_the_command_writes_the_file_once_and_says_the_same(tmp_path: Path) -> None:
    """Whole processes: the first run writes the cache, the next reads it and writes
    nothing; the output is the same; a cache folder that cannot be made changes nothing."""
    folder = tmp_path / "cache" / "countermix"
    first = validate_mini(tmp_path / "cache")
    (written,) = folder.iterdir()
    assert written.name == dataclasscode.cache_file_name()
    assert len(dataclasscode.read_texts(written)) > 100
    first_written = written.stat().st_mtime_ns
    second = validate_mini(tmp_path / "cache")
    assert [p.name for p in folder.iterdir()] == [written.name]
    assert written.stat().st_mtime_ns == first_written
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    third = validate_mini(blocker)
    assert first == second == third
    assert first[0] == 0


def validate_mini(cache_home: Path) -> tuple[int, str, str]:
    """`countermix validate` of tests/data/mini, run as a process with the cache folder."""
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "validate", str(DATA / "mini")],
        cwd=REPO,
        env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_file_others_could_write_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "code.marshal"
    with kept_in(path):
        make_module("compiler._startup_case_a")
        dataclasscode.save()
    assert path.stat().st_mode & 0o777 == 0o600
    assert dataclasscode.read_texts(path)
    path.chmod(0o620)
    assert dataclasscode.read_texts(path) == {}
    path.chmod(0o602)
    assert dataclasscode.read_texts(path) == {}
    path.chmod(0o644)
    assert dataclasscode.read_texts(path)


def test_a_file_of_another_owner_is_not_read(tmp_path: Path) -> None:
    status = os.stat_result((0o100600, 0, 0, 1, os.geteuid() + 1, 0, 0, 0, 0, 0))
    assert not dataclasscode.is_private(status)
    mine = os.stat_result((0o100600, 0, 0, 1, os.geteuid(), 0, 0, 0, 0, 0))
    assert dataclasscode.is_private(mine)
