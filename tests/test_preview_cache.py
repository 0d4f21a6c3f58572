"""What a warm rebuild of the preview page takes from the previous build: an image file whose
name (a digest of its bytes) is in the previous set of outputs is linked from there, not
written again, and the new set is still what a cold build writes; a previous file that is not
as the last build's stamp recorded it (another size, mode, mtime or inode: edited since) is
written again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.cli import main
from tests.conftest import replace_in, spy_on_thumbnail_rasterize

OLD = "front: {strength: 2, movement: 3}, back: {strength: 1, movement: 3}"
NEW = "front: {strength: 2, movement: 4}, back: {strength: 1, movement: 3}"
"""b-inf-2 of the fixture game: set up in its scenario, on the preview page of title AAA."""


def build(folder: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """`countermix build`; the game's folder of outputs."""
    code = main(["build", str(folder), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    return next(p for p in out.iterdir() if not p.name.startswith("."))


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def preview_files(folder: Path) -> dict[str, int]:
    """Each preview image of a set of outputs by name, with its inode."""
    return {p.name: p.stat().st_ino for p in folder.iterdir() if p.name.startswith("preview-")}


def test_a_warm_rebuild_links_the_unchanged_images_and_writes_the_cold_bytes(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "warm"
    before = preview_files(build(mini, out, capsys))
    replace_in(mini / "units.yaml", OLD, NEW)
    warm = build(mini, out, capsys)
    after = preview_files(warm)
    assert contents(warm) == contents(build(mini, tmp_path / "cold", capsys))
    kept = set(after) & set(before)
    assert kept and set(after) - set(before)  # the changed unit's faces are new files
    assert {name for name in kept if after[name] != before[name]} == set()  # linked, not copied
    assert all((warm / name).stat().st_nlink == 1 for name in after)  # the old set is gone


def test_a_previous_image_not_as_its_name_says_is_written_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    folder = build(mini, out, capsys)
    cold = contents(folder)
    names = sorted(preview_files(folder))
    (folder / names[0]).write_bytes(b"not the image")
    os.chmod(folder / names[1], 0o600)
    (folder / names[2]).unlink()
    same_size = folder / names[3]
    same_size.write_bytes(bytes(len(same_size.read_bytes())))  # edited in place, same size
    rebuilt = build(mini, out, capsys)
    assert contents(rebuilt) == cold
    assert all((rebuilt / name).stat().st_mode & 0o777 == 0o644 for name in names)


def test_a_forced_build_writes_every_image_again(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`build --force` trusts nothing of the previous set: no image is linked from it."""
    out = tmp_path / "out"
    before = preview_files(build(mini, out, capsys))
    assert main(["build", str(mini), "--out", str(out), "--force"]) == 0
    capsys.readouterr()
    after = preview_files(out / "mini")
    assert set(after) == set(before)
    assert all(after[name] != before[name] for name in after)


def test_a_thumbnail_drawn_again_takes_its_faces_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sheet page's thumbnail is the same bytes with or without the faces' pixels in the
    cache; a page drawn again (its own entry gone) rasterises none of its faces when they
    are there, and every face when they are not."""
    from compiler.backends.preview import thumbs
    from compiler.backends.rendercache import RenderCache
    from compiler.backends.sheets.build import sheet_docs
    from compiler.backends.sheets.options import SheetOptions
    from compiler.load.game import load_game
    from tests.conftest import SOURCES

    game = load_game(SOURCES / "asia_engulfed").game
    assert game is not None
    doc, options = sheet_docs(game, SheetOptions())["counters.pdf"]
    pages = thumbs.sheet_faces(doc, options)
    pdf = b"".join(b"/MediaBox [0 0 595 842]" for _ in pages)
    pack = tmp_path / "preview.pack"
    cold = RenderCache(pack)
    first = thumbs.sheet_thumbs(pdf, doc, options, cold)
    cold.save()
    plan_key, layout, _plan = thumbs._known_layout(doc, options, RenderCache(None))
    looks = thumbs.Looks(doc.runs)
    page_keys = thumbs._page_keys(options.page_pt, plan_key, looks, layout.ranges)
    rasterised = spy_on_thumbnail_rasterize(monkeypatch)
    warm = RenderCache(pack)
    for key in page_keys:  # every page as if its faces had moved: drawn again
        warm.index.pop(key, None)
    for number in range(len(pages)):  # and drawn whole: not patched over its kept pixels
        warm.index.pop(thumbs._pixels_key(doc.kind, number), None)
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, warm)] == [t.png for t in first]
    assert len(rasterised) == len(pages)  # the paper of each page, no face
    rasterised.clear()
    nothing = RenderCache(None)
    assert [t.png for t in thumbs.sheet_thumbs(pdf, doc, options, nothing)] == [
        t.png for t in first
    ]
    faces = {ref.identity for faces in pages for ref, _slot in faces if ref.picture is None}
    assert len(rasterised) >= len(pages) + len(faces)
