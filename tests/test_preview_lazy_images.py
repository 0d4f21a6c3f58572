"""A warm build's preview names the module's unchanged faces without reading them: it links
them from the previous set of outputs by their name and length (vassal.module.LazyFiles), and
writes, reading it then, only what it cannot link; a sprite of units' faces is made again, from
the faces of its run of units, only for a run a changed unit is in; the page and its images are
a cold build's."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.preview import sections
from compiler.backends.rendercache import RenderCache
from compiler.cli import main
from tests.conftest import replace_in

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *more: str) -> Path:
    code = main(["build", str(folder), "--out", str(out), *more])
    text = capsys.readouterr().out
    assert code == 0, text
    return next(p for p in out.iterdir() if not p.name.startswith("."))


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def face_reads(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], set[str]]:
    """The unit faces read back from a faces' cache from now on (the real `get`), and those
    drawn (put) in one."""
    reads: list[str] = []
    drawn: set[str] = set()
    get, put = RenderCache.get, RenderCache.put

    def is_face(cache: RenderCache, key: str) -> bool:
        return cache.pack is not None and cache.pack.name == "faces.pack" and ":unit:" in key

    def spied_get(cache: RenderCache, key: str) -> bytes | None:
        found = get(cache, key)
        if found is not None and is_face(cache, key):
            reads.append(key)
        return found

    def spied_put(cache: RenderCache, key: str, data: bytes) -> None:
        if is_face(cache, key):
            drawn.add(key)
        put(cache, key, data)

    monkeypatch.setattr(RenderCache, "get", spied_get)
    monkeypatch.setattr(RenderCache, "put", spied_put)
    return reads, drawn


def test_a_warm_build_reads_no_unchanged_face(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In runs of one unit: the changed unit's faces drawn again, and read (its run's sprite is
    made again from them), no other face."""
    monkeypatch.setattr(sections, "RUN_UNITS", 1)
    out = tmp_path / "out"
    build(mini, out, capsys)
    replace_in(mini / "units.yaml", OLD, NEW)
    reads, drawn = face_reads(monkeypatch)
    warm = build(mini, out, capsys)
    assert drawn  # the changed unit's faces
    assert set(reads) <= drawn  # only those read, to write them (a title's plan made again)
    monkeypatch.undo()
    monkeypatch.setattr(sections, "RUN_UNITS", 1)
    assert contents(warm) == contents(build(mini, tmp_path / "cold", capsys))


def test_faces_not_linked_are_read_and_written(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the previous module and preview images gone, every face is read (to deflate it,
    to write it): the same outputs."""
    out = tmp_path / "out"
    folder = build(mini, out, capsys)
    for path in folder.iterdir():
        if path.name.startswith("preview-") or path.suffix == ".vmod":
            path.unlink()
    reads, drawn = face_reads(monkeypatch)
    again = build(mini, out, capsys, "--force")
    assert reads and not drawn
    monkeypatch.undo()
    assert contents(again) == contents(build(mini, tmp_path / "cold", capsys))
