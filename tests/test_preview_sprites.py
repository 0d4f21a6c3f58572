"""The units section's faces in sprites (compiler.backends.preview.sprites): each face's width
from its bytes, a sprite holding each face whole, and the page cutting each face out of its
run's sprite; a build's sprites are the module's faces, kept by name and made again when one is
damaged or gone."""

from __future__ import annotations

import base64
import io
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from PIL import Image

from compiler.backends.preview import kept, sections, sprites
from compiler.backends.preview.html import STYLE
from compiler.cli import main
from compiler.model.units import Unit
from tests.conftest import replace_in
from tests.test_piece_art import png
from tests.test_preview_lazy_images import face_reads

SVG = "http://www.w3.org/2000/svg"


def raster(size: tuple[int, int], kind: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(buffer, kind)
    return buffer.getvalue()


def svg(tag: str) -> bytes:
    return f'<?xml version="1.0"?>\n<!-- a comment -->\n{tag}<rect/></svg>'.encode()


@pytest.mark.parametrize(
    ("name", "data", "width"),
    [
        ("a.svg", svg('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">'), "64"),
        ("a.svg", svg("<svg width='96px' height='48px' viewBox='0 0 1 1'>"), "128"),
        ("a.svg", svg('<svg width = "10" height="40">'), "16"),
        ("a.svg", svg('<svg viewBox="0 0 300 150">'), "128"),
        ("a.svg", svg('<svg width="30mm" height="10mm" viewBox="0,0,20,40">'), "32"),
        ("a.svg", svg('<svg width="50%" height="100%">'), "64"),  # no size: a square
        ("a.svg", svg('<svg width="0" height="10">'), "64"),
        ("a.svg", svg('<svg width="1" height="100">'), "1"),  # at least a pixel
        ("a.svg", svg('<svg width="1000" height="1">'), "1024"),  # at most 16 cells
        ("a.svg", svg('<svg width="7" height="3">'), "149.33"),
        ("a.svg", b"not an svg at all", "64"),
        ("a.png", raster((48, 24), "PNG"), "128"),
        ("a.jpg", raster((24, 48), "JPEG"), "32"),
        ("a.jpeg", raster((30, 30), "JPEG"), "64"),
        ("a.gif", raster((16, 32), "GIF"), "32"),
        ("a.webp", raster((64, 16), "WEBP"), "256"),
        ("a.png", b"\x89PNG\r\n\x1a\n damaged", "64"),
        ("a.png", b"", "64"),
    ],
)
def test_a_faces_width_is_its_own_for_a_cell_of_its_height(
    name: str, data: bytes, width: str
) -> None:
    assert sprites.cells([name], {name: data}.__getitem__)[name] == sprites.Cell(0, width)


def test_the_faces_of_a_run_each_once_in_order() -> None:
    fronts = ["a.svg", "b.svg", "a.svg", "c.svg"]
    backs = ["x.svg", "", "x.svg", "a.svg"]
    assert sprites.distinct_faces(fronts, backs) == ["a.svg", "x.svg", "b.svg", "c.svg"]


def test_a_sprites_name_is_a_digest_of_its_faces_in_order() -> None:
    name = sprites.sprite_name(["a.svg", "b.png"], "preview-")
    assert re.fullmatch(r"preview-units-[0-9a-f]{16}\.svg", name)
    assert name == sprites.sprite_name(["a.svg", "b.png"], "preview-")
    assert name != sprites.sprite_name(["b.png", "a.svg"], "preview-")
    assert name != sprites.sprite_name(["a.svg", "c.png"], "preview-")
    assert name != sprites.sprite_name(["a.svg", "b.png"], "other-")


def test_a_sprite_holds_each_face_whole_in_its_cell() -> None:
    faces = {
        "f-1.svg": svg('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">'),
        "f-2.png": raster((48, 24), "PNG"),
        "f-3.jpg": raster((20, 40), "JPEG"),
    }
    names = list(faces)
    data = sprites.sprite_bytes(names, faces.__getitem__)
    root = etree.fromstring(data)
    cells = sprites.cells(names, faces.__getitem__)
    height = 3 * sprites.CELL + 2 * sprites.GAP
    assert (root.get("width"), root.get("height")) == ("128", str(height))
    assert root.get("viewBox") == f"0 0 128 {height}"
    images = root.findall(f"{{{SVG}}}image")
    assert len(images) == 3
    for name, image in zip(names, images, strict=True):
        cell = cells[name]
        assert image.get("y") == str(cell.top) and image.get("width") == cell.width
        assert image.get("height") == str(sprites.CELL)
        kind, _, encoded = image.get("href", "").removeprefix("data:").partition(";base64,")
        assert kind == sprites.MIME[name.rpartition(".")[2]]
        assert base64.b64decode(encoded) == faces[name]
    assert [cells[name].top for name in names] == [0, 66, 132]


def test_the_page_shows_faces_at_the_sprites_cell_height() -> None:
    assert f".faces img{{height:{sprites.CELL}px;" in STYLE
    assert ".faces img.sp{object-fit:none;" in STYLE


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str], *more: str) -> Path:
    code = main(["build", str(folder), "--out", str(out), *more])
    text = capsys.readouterr().out
    assert code == 0, text
    return out / "mini"


CUT = re.compile(
    r'<img class="sp" src="(?P<src>[^"]+)" alt="(?P<alt>[^"]+)" loading="lazy" '
    r'decoding="async" style="width:(?P<width>[0-9.]+)px;object-position:0 (?P<top>-?[0-9]+)px">'
)


def shown_faces(folder: Path) -> list[tuple[str, str, bytes]]:
    """Each face the page cuts from a sprite: its alt text, width and the bytes of the image
    at its place in the sprite (which must be there, at that width)."""
    page = (folder / "index.html").read_text(encoding="utf-8")
    found = []
    for cut in CUT.finditer(page):
        root = etree.fromstring((folder / cut["src"]).read_bytes())
        at = [i for i in root.iter(f"{{{SVG}}}image") if i.get("y") == str(-int(cut["top"]))]
        assert len(at) == 1, cut.group()
        assert at[0].get("width") == cut["width"]
        encoded = at[0].get("href", "").partition(";base64,")[2]
        found.append((cut["alt"], cut["width"], base64.b64decode(encoded)))
    return found


def module_images(folder: Path) -> set[bytes]:
    """The images of every module in `folder` (one a title of the series)."""
    found: set[bytes] = set()
    for path in folder.glob("*.vmod"):
        with zipfile.ZipFile(path) as module:
            found.update(module.read(n) for n in module.namelist() if n.startswith("images/"))
    return found


@pytest.mark.parametrize("kind", ["svg", "png"])
def test_each_unit_face_is_cut_from_its_runs_sprite_as_the_module_holds_it(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Drawn faces (SVG or PNG) and a unit's own art of other shapes (a wide PNG front, a
    tall JPEG back): every face the page shows is in its sprite, whole, the module's own."""
    art = mini / "art"
    png(art / "wide.png", (200, 40, 40), (48, 24))
    (art / "tall.jpg").write_bytes(raster((20, 40), "JPEG"))
    replace_in(
        mini / "units.yaml",
        "front: {strength: 1, movement: 2}, copies: 2}",
        "front: {strength: 1, movement: 2}, copies: 2,\n"
        "     art: {front: art/wide.png, back: art/tall.jpg}}",
    )
    folder = build(mini, tmp_path / "out", capsys, "--piece-images", kind)
    images = module_images(folder)
    shown = shown_faces(folder)
    assert len(shown) >= 6
    assert all(data in images for _alt, _width, data in shown)
    widths = {data: width for _alt, width, data in shown}
    assert widths[(art / "wide.png").read_bytes()] == "128"
    assert widths[(art / "tall.jpg").read_bytes()] == "32"
    assert not [p for p in folder.iterdir() if p.name.startswith("preview-unit-")]  # a face each


def test_a_sprite_gone_or_damaged_is_made_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sprite the last build wrote, deleted or edited since, is made again from the module's
    faces (its run's items are read back from the cache): the cold build's bytes."""
    out = tmp_path / "out"
    folder = build(mini, out, capsys)
    (sprite,) = folder.glob("preview-units-*.svg")
    cold = sprite.read_bytes()
    sprite.unlink()
    assert "mini: wrote" in capsys_build(mini, out, capsys)
    assert sprite.read_bytes() == cold
    sprite.write_bytes(cold.replace(b"<image", b"<IMAGE", 1))
    assert "mini: wrote" in capsys_build(mini, out, capsys)
    assert sprite.read_bytes() == cold


def capsys_build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["build", str(folder), "--out", str(out)]) == 0
    return capsys.readouterr().out


def test_a_warm_build_writes_only_the_sprite_of_the_changed_units_run(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In runs of two units: the changed unit's run's sprite is new; every other sprite is the
    file the last build wrote (kept, not written again); the folder is a cold build's."""
    monkeypatch.setattr(sections, "RUN_UNITS", 2)
    out = tmp_path / "out"
    folder = build(mini, out, capsys)
    before = {p.name: p.stat().st_ino for p in folder.glob("preview-units-*.svg")}
    assert len(before) >= 3
    replace_in(
        mini / "units.yaml",
        "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}",
        "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}",
    )
    build(mini, out, capsys)
    after = {p.name: p.stat().st_ino for p in folder.glob("preview-units-*.svg")}
    assert len(after) == len(before) and len(set(after) - set(before)) == 1
    assert all(after[name] == inode for name, inode in before.items() if name in after)
    cold = build(mini, tmp_path / "cold", capsys)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == {
        p.name: p.read_bytes() for p in cold.iterdir()
    }


@pytest.mark.parametrize(
    ("record", "faces", "kept"),
    [
        (b"64\n128\n1.5", ["a", "b", "c"], ["64", "128", "1.5"]),
        (b"64", ["a"], ["64"]),
        (b"64\n128", ["a", "b", "c"], None),  # another run's
        (b"64\n128\n64", ["a", "b"], None),
        (b"64\n\n64", ["a", "b", "c"], None),
        (b"64\n0\n64", ["a", "b", "c"], None),
        (b"64\n1.555\n64", ["a", "b", "c"], None),
        (b"64\n-5\n64", ["a", "b", "c"], None),
        (b"64\n\xff\n64", ["a", "b", "c"], None),
        (None, ["a"], None),
    ],
)
def test_cells_kept_are_read_back_only_for_the_same_faces(
    record: bytes | None, faces: list[str], kept: list[str] | None
) -> None:
    found = sprites.kept_cells(record, faces)
    if kept is None:
        assert found is None
    else:
        assert found is not None
        assert [cell.width for cell in found.values()] == kept
        assert [cell.top for cell in found.values()] == [66 * i for i in range(len(faces))]
        assert sprites.kept_cells(sprites.cells_record(found), faces) == found


def test_runs_made_again_read_no_face_for_their_cells(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run of units made again (as for another working folder or language): the cells
    of their sprites are the ones kept, no face is read (the sprites are the files the last
    build wrote), and the page is the same."""
    out = tmp_path / "out"
    folder = build(mini, out, capsys)
    page = (folder / "index.html").read_bytes()
    monkeypatch.setattr(kept, "FORMAT", "another format of the runs")
    made: list[int] = []
    real = sections._run_items

    def spy(ctx: sections.Context, units: list[Unit], *rest: list[str]) -> str:
        made.append(len(units))
        return real(ctx, units, *rest)

    monkeypatch.setattr(sections, "_run_items", spy)
    reads, _drawn = face_reads(monkeypatch)
    build(mini, out, capsys, "--lang", "en")
    assert made and not reads
    assert (folder / "index.html").read_bytes() == page
