"""A warm module copies the unchanged entries of the module before as runs of bytes (their
local headers and data in one range, their central records in one, offsets shifted): the
module written is byte for byte the cold one, whatever changed, was added or went."""

from __future__ import annotations

import io
import random
import zipfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from compiler.backends.files import FileRange, Part
from compiler.backends.vassal.module import (
    _module_parts,
    _zip_entries,
    _zip_parts,
    reusable_entries,
    write_zip_file,
    zip_bytes,
)

Files = dict[str, bytes]


def _files(count: int = 40, seed: int = 7) -> Files:
    """A module's files: SVG faces (deflated), PNG faces (stored), a save, the build file."""
    rng = random.Random(seed)
    files: Files = {"buildFile.xml": b"<module>" + b"<slot/>" * 200 + b"</module>\n"}
    for n in range(count):
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(50, 400)))
        if n % 3:
            files[f"images/unit-{n:016x}.svg"] = b'<?xml version="1.0"?><svg>' + body.hex().encode()
        else:
            files[f"images/chart-{n:016x}.png"] = b"\x89PNG\r\n\x1a\n" + body
    files["moduledata"] = b"<data/>"
    files["sc\u00e9nario.vsav"] = b"PK" + bytes(range(200))
    return files


def _crcs(files: Files) -> dict[str, int]:
    return {name: zlib.crc32(data) for name, data in files.items() if name.startswith("images/")}


def _changed_face(files: Files) -> Files:
    """A face drawn again: its old name gone, a new one (sorting elsewhere) in its place."""
    out = dict(files)
    old = sorted(n for n in files if n.startswith("images/unit-"))[3]
    del out[old]
    out["images/unit-ffff000000000000.svg"] = b'<?xml version="1.0"?><svg>new</svg>'
    return out


def _changed_build_file(files: Files) -> Files:
    return {**files, "buildFile.xml": files["buildFile.xml"] + b"<!-- more -->\n"}


def _first_gone(files: Files) -> Files:
    return {name: data for name, data in files.items() if name != "buildFile.xml"}


def _one_added_first(files: Files) -> Files:
    return {**files, "aaa.txt": b"a new first entry" * 30}


def _many_changed(files: Files) -> Files:
    out = dict(files)
    for index, name in enumerate(sorted(files)):
        if index % 4 == 1 and name.startswith("images/unit-"):
            out[name.replace("unit-", "unit-0")] = out.pop(name) + b"<!-- x -->"
    return out


def _same(files: Files) -> Files:
    return dict(files)


CHANGES: list[Callable[[Files], Files]] = [
    _same,
    _changed_face,
    _changed_build_file,
    _first_gone,
    _one_added_first,
    _many_changed,
]


@pytest.mark.parametrize("change", CHANGES)
def test_a_warm_module_is_the_cold_one(tmp_path: Path, change: Callable[[Files], Files]) -> None:
    before_files = _files()
    files = change(before_files)
    crcs = _crcs(files)
    cold = zip_bytes(files, None, crcs)
    before = tmp_path / "before.vmod"
    before.write_bytes(zip_bytes(before_files, None, _crcs(before_files)))
    assert zip_bytes(files, reusable_entries(before.read_bytes()), crcs) == cold
    assert write_zip_file(tmp_path / "new.vmod", files, before, crcs).read_bytes() == cold
    with zipfile.ZipFile(tmp_path / "new.vmod") as archive:
        assert archive.testzip() is None
        assert {n: archive.read(n) for n in archive.namelist()} == files


@pytest.mark.parametrize("change", CHANGES)
def test_unchanged_entries_go_as_runs(change: Callable[[Files], Files]) -> None:
    """Each run of entries that lay one after another before is one piece of the file (not
    a header, a name and the data per entry): far fewer pieces than entries."""
    before_files = _files()
    previous = zip_bytes(before_files, None, _crcs(before_files))
    files = change(before_files)
    parts = _zip_parts(_zip_entries(files, reusable_entries(previous), _crcs(files)))
    assert len(parts) < len(files)
    assert _joined(parts) == zip_bytes(files, None, _crcs(files))


def test_a_module_nothing_changed_in_is_one_range_of_the_one_before() -> None:
    files = {name: data for name, data in _files().items() if not name.endswith(".vsav")}
    previous = zip_bytes(files, None, _crcs(files))
    parts = list(_module_parts(files, previous, _crcs(files)))
    assert len(parts) == 3  # the entries, the central directory, its end
    assert _joined(parts) == previous


def _joined(parts: Iterable[Part]) -> bytes:
    """The parts' bytes, joined (none of them a range of an open file: none was given)."""
    buffers: list[bytes | memoryview] = []
    for part in parts:
        assert not isinstance(part, FileRange)
        buffers.append(part)
    return b"".join(buffers)


def _zipfile_written(files: Files) -> bytes:
    """The same entries written by zipfile (other attributes, another deflate level): copied
    entry by entry, never as runs (their headers are not those a build writes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(files):
            archive.writestr(name, files[name])
    return buffer.getvalue()


def test_a_module_written_by_another_tool_is_copied_entry_by_entry(tmp_path: Path) -> None:
    files = _files()
    crcs = _crcs(files)
    reuse = reusable_entries(_zipfile_written(files))
    assert all(entry.at == -1 for entry in reuse.values())
    written = zip_bytes(files, reuse, crcs)
    with zipfile.ZipFile(io.BytesIO(written)) as archive:
        assert {n: archive.read(n) for n in archive.namelist()} == files


def test_a_central_record_changed_in_place_breaks_the_run(tmp_path: Path) -> None:
    """A record whose attributes differ from a build's is not copied as it lies."""
    files = _files()
    crcs = _crcs(files)
    previous = bytearray(zip_bytes(files, None, crcs))
    record = previous.index(b"PK\x01\x02", previous.index(b"PK\x01\x02") + 1)
    previous[record + 38 : record + 42] = (0o600 << 16).to_bytes(4, "little")
    reuse = reusable_entries(bytes(previous))
    assert sum(entry.at == -1 for entry in reuse.values()) == 1
    assert zip_bytes(files, reuse, crcs) == zip_bytes(files, None, crcs)


def test_a_panel_is_kept_by_the_keys_of_its_slots(mini: Path) -> None:
    """A tray panel's keys, worked out without making its pieces, are its slots' own (a warm
    build finds the panels the build before kept)."""
    from compiler.backends.vassal.buildfile import (
        _unit_slots,
        panel_token,
        slot_tokens,
        unit_slot,
    )
    from compiler.backends.vassal.module import render_plan
    from tests.conftest import game_with_aids

    game = game_with_aids(mini)
    plan, _images = render_plan(game)
    units = list(game.units)
    pieces = [unit_slot(plan, unit) for unit in units]
    expected = panel_token([(piece.key, piece.name) for piece in pieces])
    found = _unit_slots(plan, units, slot_tokens(plan, units))
    assert found.keys == expected
    assert [piece.key for piece in found.make()] == [piece.key for piece in pieces]
    plan.unit_identities.clear()  # identities not worked out by the plan: one by one, the same
    assert _unit_slots(plan, units, slot_tokens(plan, units)).keys == expected


EDITS = [
    ("scenarios/first.yaml", "state: {manpower: 2}", "state: {manpower: 2.0}"),
    ("scenarios/first.yaml", "state: {manpower: 7}", "state: {manpower: '7'}"),
    ("scenarios/first.yaml", "face: back}", "face: front}"),
    ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,"),
]


@pytest.mark.parametrize(("file", "old", "new"), EDITS)
def test_a_warm_module_after_an_edit_is_the_cold_one(
    mini: Path, tmp_path: Path, file: str, old: str, new: str
) -> None:
    """What a placed piece carries is in its save's key as its values (2 and 2.0 and "2"
    tell apart, as their JSON does): a warm build after any edit writes the cold module."""
    from compiler.backends.vassal.module import build_module
    from tests.conftest import cold_module, game_with_aids, replace_in

    out = tmp_path / "out"
    first = build_module(game_with_aids(mini), out).read_bytes()
    replace_in(mini / file, old, new)
    warm = build_module(game_with_aids(mini), out).read_bytes()
    assert warm != first
    assert warm == cold_module(mini, tmp_path)


TEXTS = [
    "plain",
    "two words",
    " leading space",
    "a=b:c#d!e",
    "日本語の名前",
    "tab\tnew\nline\rform\f",
    "",
    "back\\slash",
    "nul\x00char",
    "\\u0000 looks escaped",
]


@pytest.mark.parametrize("count", [0, 1, 3, len(TEXTS)])
@pytest.mark.parametrize("is_key", [True, False])
def test_texts_escaped_at_once_are_escaped_as_one_by_one(count: int, is_key: bool) -> None:
    """A bundle's texts escaped in one pass read as each escaped on its own, whatever they
    hold (a backslash or a NUL in one: each on its own)."""
    from compiler.backends.vassal.translation import _escape, _escaped_all

    for start in range(len(TEXTS)):
        texts = (TEXTS[start:] + TEXTS[:start])[:count]
        assert _escaped_all(texts, is_key) == [_escape(text, is_key) for text in texts]
    plain = [text for text in TEXTS if "\\" not in text and "\x00" not in text]
    assert _escaped_all(plain, is_key) == [_escape(text, is_key) for text in plain]


@pytest.mark.parametrize("damage", ["bytes", "entries"])
def test_a_damaged_identities_pack_gives_the_cold_module(
    mini: Path, tmp_path: Path, damage: str
) -> None:
    """The units' identities kept by runs (art.identity.unit_identities) that do not read
    back (their bytes damaged, or entries that are not identities) are worked out again."""
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.vassal.module import build_module
    from tests.conftest import cold_module, game_with_aids, replace_in

    out = tmp_path / "out"
    build_module(game_with_aids(mini), out)
    (pack,) = (out / ".cache").glob("*/identities.pack")
    if damage == "bytes":
        data = bytearray(pack.read_bytes())
        data[-64:] = b"g" * 64  # its CRC-32 no longer the one indexed
        pack.write_bytes(bytes(data))
    else:
        kept = RenderCache(pack)
        for key in list(kept.index):
            kept.put(key, b"not identities")
        kept.save()
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    warm = build_module(game_with_aids(mini), out).read_bytes()
    assert warm == cold_module(mini, tmp_path)
