"""Faces a warm build takes from the render cache are not read (vassal.module.LazyFiles): the
names table and the cache tell their name, size and CRC-32, the zip copies them from the module
before and the preview links them. What is read late and turns out damaged is drawn again; a
missing module before makes every face read; the module is a cold build's either way."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from compiler.backends.rendercache import RenderCache
from compiler.backends.vassal.module import (
    IMAGES,
    FaceRenderer,
    LazyFiles,
    assemble,
    build_module,
    file_size,
    module_files,
    render_plan,
)
from tests.conftest import cold_module, game_with_aids, replace_in

RENAME = ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")


_game = game_with_aids
_cold = cold_module


def _pack(out: Path) -> Path:
    return out / ".cache" / "mini" / "faces.pack"


def _face_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys of the faces read back from a faces' cache from now on (the real `get`)."""
    reads: list[str] = []
    real = RenderCache.get

    def get(cache: RenderCache, key: str) -> bytes | None:
        found = real(cache, key)
        if found is not None and cache.pack is not None and cache.pack.name == "faces.pack":
            reads.append(key)
        return found

    monkeypatch.setattr(RenderCache, "get", get)
    return reads


def test_a_warm_module_reads_no_face_it_copies(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    build_module(_game(mini), out)
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    reads = _face_reads(monkeypatch)
    game = _game(mini)
    warm = build_module(game, out).read_bytes()
    plan, _images = render_plan(game, _pack(out))
    assert plan.faces_drawn > 0 and plan.faces_reused > 0  # the renamed unit's faces drawn
    assert [key for key in reads if ":unit:" in key or ":marker:" in key] == []
    assert warm == _cold(mini, tmp_path)


def test_kept_faces_are_read_when_there_is_no_module_before(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    first = build_module(_game(mini), out)
    first.unlink()
    reads = _face_reads(monkeypatch)
    assert build_module(_game(mini), out).read_bytes() == _cold(mini, tmp_path)
    assert any(":unit:" in key for key in reads)  # deflated again: read from the cache


def test_a_damaged_entry_read_late_is_drawn_again(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every face's bytes in the pack spoilt (their index intact): the plan still names them
    from the names table without reading them; read late (no module before to copy them
    from), none reads back, each is drawn again, the same bytes."""
    out = tmp_path / "out"
    build_module(_game(mini), out).unlink()
    pack = _pack(out)
    data = bytearray(pack.read_bytes())
    data[64:] = bytes(b ^ 0xFF for b in data[64:])  # every entry but the first few bytes
    pack.write_bytes(bytes(data))
    reads = _face_reads(monkeypatch)
    plan, images = render_plan(_game(mini), pack)
    assert plan.faces_drawn == 0  # named as the build before named them, none drawn yet
    files = module_files(plan, images)
    names = [name for name in files if name.startswith(IMAGES)]
    assert {name: files[name] for name in names} == dict(render_plan(_game(mini))[1])
    assert not [key for key in reads if ":unit:" in key]  # none read back: all drawn again
    for name in names:
        crc = plan.image_crcs.get(name)
        assert crc is None or crc == zlib.crc32(files[name])
    assert build_module(_game(mini), out).read_bytes() == _cold(mini, tmp_path)


def test_lazy_files_read_once_and_only_when_asked() -> None:
    reads: list[str] = []

    def read(data: bytes) -> bytes:
        reads.append(data.decode())
        return data

    files = LazyFiles({"a": b"1"})
    files.put_later("b", 2, lambda: read(b"22"))
    files.put_later("c", 3, lambda: read(b"333"))
    copy = LazyFiles.of(files)
    copy.put("c", b"new")
    other = LazyFiles()
    other.put_from("x", copy, "b")
    assert sorted(files) == ["a", "b", "c"] and len(files) == 3 and "b" in files
    assert file_size(files, "c") == 3 and other.size("x") == 2 and reads == []
    assert copy["b"] == b"22" and files["b"] == b"22"
    assert reads == ["22"]  # read once, for every copy of the mapping it was put in
    assert other["x"] == b"22" and other["x"] == b"22" and reads == ["22", "22"]
    later = LazyFiles()
    later.put_from("y", files, "b")  # read in `files` already: its bytes taken
    assert later["y"] == b"22" and reads == ["22", "22"]
    assert dict(copy) == {"a": b"1", "b": b"22", "c": b"new"}
    assert files == {"a": b"1", "b": b"22", "c": b"333"} and reads == ["22", "22", "333"]
    with pytest.raises(KeyError):
        files["d"]


def test_assemble_gives_every_file_read(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build_module(_game(mini), out)
    plan, images = render_plan(_game(mini), _pack(out))
    files = assemble(plan, images)
    assert type(files) is dict and files == dict(module_files(plan, images))


def test_png_faces_are_copied_stored_from_the_module_before(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PNG faces are stored, not deflated: copied from the module before all the same."""
    out = tmp_path / "out"
    build_module(_game(mini), out, piece_images="png")
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    reads = _face_reads(monkeypatch)
    warm = build_module(_game(mini), out, piece_images="png").read_bytes()
    assert [key for key in reads if ":unit:" in key] == []
    monkeypatch.undo()
    assert warm == build_module(_game(mini), tmp_path / "cold", piece_images="png").read_bytes()
    with zipfile.ZipFile(out / "mini" / "mini.vmod") as module:
        faces = [i for i in module.infolist() if i.filename.startswith("images/unit-")]
    assert faces and all(i.compress_type == zipfile.ZIP_STORED for i in faces)


def _wanted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The prefixes of the faces queued from now on (the real `want`)."""
    prefixes: list[str] = []
    real = FaceRenderer.want

    def want(faces: FaceRenderer, prefix: str, *args: Any, **kwargs: Any) -> str:
        prefixes.append(prefix)
        return real(faces, prefix, *args, **kwargs)

    monkeypatch.setattr(FaceRenderer, "want", want)
    return prefixes


def test_units_named_before_are_not_queued(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm plan takes each unchanged unit's faces as the names table named them, without
    queueing them; the unit that changed is queued (and its faces drawn again)."""
    out = tmp_path / "out"
    wanted = _wanted(monkeypatch)
    build_module(_game(mini), out)
    assert wanted.count("unit") > 2
    wanted.clear()
    plan, _images = render_plan(_game(mini), _pack(out))
    assert wanted.count("unit") == 0 and plan.faces_drawn == 0
    replace_in(mini / RENAME[0], RENAME[1], RENAME[2])
    warm = build_module(_game(mini), out).read_bytes()
    assert wanted.count("unit") == 2  # the renamed unit's front and back
    monkeypatch.undo()
    assert warm == _cold(mini, tmp_path)
