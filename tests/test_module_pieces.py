"""Long files of a module (the build file, the translations' bundles) are deflated in pieces
cut by their content (vassal.module._pieces), each piece's deflated bytes kept between builds:
a build file in which one line changed deflates one piece again. The entry is the same bytes
with or without what was kept, and any zip reader inflates it to the file."""

from __future__ import annotations

import io
import random
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.backends.rendercache import RenderCache
from compiler.backends.vassal import module as vm
from compiler.backends.vassal.module import PIECE_MIN, PIECED, _pieces, zip_bytes


def _lines(count: int, seed: int = 4) -> list[bytes]:
    rng = random.Random(seed)
    return [
        b'    <VASSAL.build.widget.PieceSlot entryName="u%d" gpid="%d">%s</slot>'
        % (n, rng.randrange(10**6), b"x" * rng.randrange(5, 300))
        for n in range(count)
    ]


def _build_file(lines: list[bytes]) -> bytes:
    return b"<module>\n" + b"\n".join(lines) + b"\n</module>\n"


SHAPES: dict[str, bytes] = {
    "slots": _build_file(_lines(20_000)),
    "one long line": bytes(random.Random(2).randbytes(PIECED * 2)).replace(b"\n", b" "),
    "the same line again and again": b"<same/>\n" * (PIECED // 4),
    "just long enough": b"a\n" * (PIECED // 2),
    "short": b"<short/>\n" * 10,
}


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES)
def test_pieces_are_the_file_cut_into_long_enough_parts(data: bytes) -> None:
    pieces = _pieces(data)
    assert b"".join(pieces) == data
    if len(pieces) > 1:
        assert min(map(len, pieces)) >= PIECE_MIN
        assert all(piece.endswith(b"\n") for piece in pieces[:-1])


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES)
def test_a_long_entry_inflates_to_its_file_kept_or_not(tmp_path: Path, data: bytes) -> None:
    files = {"buildFile.xml": data, "moduledata": b"<data/>"}
    cold = zip_bytes(files)
    pack = RenderCache(tmp_path / "deflated.pack")
    assert zip_bytes(files, None, None, pack) == cold
    pack.save()
    assert zip_bytes(files, None, None, RenderCache(tmp_path / "deflated.pack")) == cold
    with zipfile.ZipFile(io.BytesIO(cold)) as archive:
        assert archive.testzip() is None
        assert archive.read("buildFile.xml") == data
        info = archive.getinfo("buildFile.xml")
    assert info.compress_type == zipfile.ZIP_DEFLATED and info.CRC == zlib.crc32(data)


@pytest.fixture
def deflated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of what is deflated from now on: files, and pieces (by their keys)."""
    names: list[str] = []
    real: Callable[[str, bytes], bytes] = vm._deflated

    def counted(name: str, data: bytes) -> bytes:
        names.append(name)
        return real(name, data)

    monkeypatch.setattr(vm, "_deflated", counted)
    return names


def test_a_line_changed_deflates_one_piece_again(tmp_path: Path, deflated: list[str]) -> None:
    lines = _lines(20_000)
    before = _build_file(lines)
    pack = tmp_path / "deflated.pack"
    kept = RenderCache(pack)
    zip_bytes({"buildFile.xml": before}, None, None, kept)
    kept.save()
    pieces = len(deflated)
    assert pieces > 10 and all(name.startswith(vm.PIECE_KEY) for name in deflated)
    deflated.clear()
    lines[9_000] += b" changed"
    now = {"buildFile.xml": _build_file(lines)}
    warm = zip_bytes(now, None, None, RenderCache(pack))
    assert len(deflated) == 1  # the piece that holds the line
    assert warm == zip_bytes(now)
    with zipfile.ZipFile(io.BytesIO(warm)) as archive:
        assert archive.read("buildFile.xml") == now["buildFile.xml"]


def test_a_damaged_pack_of_pieces_gives_the_same_module(tmp_path: Path) -> None:
    files = {"buildFile.xml": _build_file(_lines(20_000))}
    pack = tmp_path / "deflated.pack"
    kept = RenderCache(pack)
    cold = zip_bytes(files, None, None, kept)
    kept.save()
    data = bytearray(pack.read_bytes())
    data[len(data) // 3 :] = bytes(b ^ 0x5A for b in data[len(data) // 3 :])
    pack.write_bytes(bytes(data))
    assert zip_bytes(files, None, None, RenderCache(pack)) == cold


def test_a_long_file_deflated_otherwise_before_is_deflated_again() -> None:
    """The module before holds the same build file deflated whole (as zipfile does, as an
    earlier version did): not copied, since a cold build writes it in pieces."""
    files = {"buildFile.xml": _build_file(_lines(20_000)), "moduledata": b"<data/>"}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(name, files[name])
    reuse = vm.reusable_entries(buffer.getvalue())
    assert reuse["buildFile.xml"].size == len(files["buildFile.xml"])
    assert zip_bytes(files, reuse) == zip_bytes(files)
