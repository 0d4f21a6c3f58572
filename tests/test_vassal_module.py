"""The VASSAL back end: deterministic modules, golden build files, atomic writes, bad input."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from compiler.backends.files import write_atomically
from compiler.backends.vassal.module import build_module, plan_module
from compiler.load.aids import with_aids
from compiler.load.game import load_game
from compiler.model.gamedata import GameData
from tests.conftest import DATA, SOURCES

GOLDEN = Path(__file__).parent / "golden"
GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def _game(folder: Path) -> GameData:
    game = load_game(folder).game
    assert game is not None
    return with_aids(game)[0]


def canonical(xml: bytes) -> bytes:
    """C14N of a build file, so goldens compare structure and text, not serialisation; image
    names (content hashes) are masked, since the art has golden images of its own."""
    parser = etree.XMLParser(remove_blank_text=True)
    c14n = bytes(etree.tostring(etree.fromstring(xml, parser), method="c14n2"))
    return re.sub(rb"-[0-9a-f]{16}\.(png|svg)", rb"-#.\1", c14n)


def test_same_sources_give_byte_identical_modules(tmp_path: Path) -> None:
    game = _game(DATA / "mini")
    first = build_module(game, tmp_path / "one").read_bytes()
    second = build_module(_game(DATA / "mini"), tmp_path / "two").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "one" / "mini" / "mini.vmod") as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert "buildFile.xml" in names and "moduledata" in names


@pytest.mark.parametrize("game_id", GAMES)
def test_build_file_matches_golden(game_id: str) -> None:
    _plan, files = plan_module(_game(SOURCES / game_id))
    got = canonical(files["buildFile.xml"])
    golden = GOLDEN / f"{game_id}.buildFile.xml"
    if os.environ.get("UPDATE_GOLDENS"):
        golden.write_bytes(got)
    assert golden.exists(), f"no golden for {game_id}: run UPDATE_GOLDENS=1 pytest {__file__}"
    assert got == golden.read_bytes(), (
        f"buildFile.xml of {game_id} changed; review, then UPDATE_GOLDENS=1 to accept"
    )


def test_failed_write_keeps_the_previous_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "game.vmod"
    target.write_bytes(b"previous")

    def disk_full(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError):
        write_atomically(target, b"new module")
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["game.vmod"]


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims a size (no pixel data needed to be refused)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    signature = b"\x89PNG\r\n\x1a\n"
    return (
        signature + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    )


def _with_art(mini: Path, content: bytes | None) -> None:
    text = (mini / "map.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "    kind: hex\n",
        "    kind: hex\n    art: {image: art/board.png, origin: [60, 60], scale: 1.0}\n",
    )
    (mini / "map.yaml").write_text(text, encoding="utf-8")
    if content is not None:
        (mini / "art").mkdir()
        (mini / "art" / "board.png").write_bytes(content)


@pytest.mark.parametrize(
    ("case", "content", "says"),
    [
        ("missing", None, "is missing"),
        ("corrupt", b"this is not a PNG at all", "not a readable image"),
        ("huge", _png_header(30000, 30000), "pixels"),
    ],
)
def test_bad_board_art_is_a_finding_and_keeps_the_old_module(
    mini: Path, tmp_path: Path, case: str, content: bytes | None, says: str
) -> None:
    from compiler.pipeline import build_game

    out = tmp_path / "out"
    old = out / "mini" / "mini.vmod"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"the previous module")
    _with_art(mini, content)
    report, written = build_game(mini, out)
    assert written == []
    (finding,) = report.findings
    assert finding.rule == "board-image" and says in finding.message
    line = next(
        n for n, t in enumerate((mini / "map.yaml").read_text().splitlines(), 1) if "art:" in t
    )
    assert (Path(finding.location.path).name, finding.location.line) == ("map.yaml", line)
    assert old.read_bytes() == b"the previous module"


def test_given_board_art_is_used(mini: Path, tmp_path: Path) -> None:
    import io

    from PIL import Image

    from compiler.pipeline import build_game

    art = io.BytesIO()
    Image.new("RGB", (900, 700), (10, 120, 30)).save(art, "PNG")
    _with_art(mini, art.getvalue())
    report, written = build_game(mini, tmp_path / "out")
    assert report.findings == [] and len(written) == 2  # mini is a series of two titles
    with zipfile.ZipFile(written[0]) as archive:  # the map has no title: in both modules
        build = etree.fromstring(archive.read("buildFile.xml"))
        board = build.find(".//VASSAL.build.module.map.boardPicker.Board")
        assert board is not None
        image = Image.open(io.BytesIO(archive.read("images/" + board.get("image", ""))))
        assert image.width == 900 and image.getpixel((5, 5)) == (10, 120, 30)
        grid = build.find(".//VASSAL.build.module.map.boardPicker.board.HexGrid")
        assert grid is not None and (grid.get("x0"), grid.get("y0")) == ("60", "60")


def test_data_errors_block_the_build(mini: Path, tmp_path: Path) -> None:
    """A location not on the map is a validation finding; nothing is written."""
    from compiler.pipeline import build_game
    from tests.conftest import replace_in

    replace_in(mini / "scenarios" / "first.yaml", "at: N1008", "at: N9999")
    out = tmp_path / "out"
    report, written = build_game(mini, out)
    assert written == [] and not out.exists()
    assert [f.rule for f in report.findings] == ["unknown-location"]


def test_missing_japanese_font_is_a_finding(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Japanese text needs IPAex Gothic: without it the build stops with a clear finding."""
    import dataclasses

    from compiler.backends.art import fonts
    from compiler.backends.sheets.options import SheetOptions
    from compiler.pipeline import build_game

    missing = dataclasses.replace(fonts.JAPANESE, file="no-such-font.ttf")
    monkeypatch.setattr(fonts, "JAPANESE", missing)
    monkeypatch.setenv("COUNTERMIX_FONTS", str(tmp_path))
    report, written = build_game(mini, tmp_path / "out", SheetOptions(lang="ja"))
    assert written == [] and not (tmp_path / "out").exists()
    (finding,) = report.findings
    assert finding.rule == "missing-font" and "fonts-ipaexfont-gothic" in finding.message


def test_rebuilds_draw_only_what_changed(mini: Path, tmp_path: Path) -> None:
    """Faces come from the content-addressed cache under build/; outputs stay identical."""
    from compiler.backends.vassal.module import render_plan
    from tests.conftest import replace_in

    cache = tmp_path / "cache"
    first, images = render_plan(_game(mini), cache)
    assert first.faces_drawn > 0 and first.faces_reused == 0
    again, images_again = render_plan(_game(mini), cache)
    assert (again.faces_drawn, again.faces_reused) == (0, first.faces_drawn)
    assert images_again == images
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,")
    changed, _ = render_plan(_game(mini), cache)
    assert changed.faces_drawn == 2  # front and back of the renamed unit


def test_bad_print_settings_are_a_finding(mini: Path, tmp_path: Path) -> None:
    from compiler.pipeline import build_game
    from tests.conftest import replace_in

    replace_in(mini / "game.yaml", "  params:\n", "  print: {counter_size: 7/8in}\n  params:\n")
    out = tmp_path / "out"
    report, written = build_game(mini, out)
    assert written == [] and not out.exists()
    (finding,) = report.findings
    assert finding.rule == "print-settings" and "7/8in" in finding.message
    assert Path(finding.location.path).name == "game.yaml"


def test_command_line_changes_override_the_print_settings(mini: Path, tmp_path: Path) -> None:
    from compiler.pipeline import UsageError, build_game

    report, written = build_game(mini, tmp_path / "out", changes={"paper": "Letter"})
    assert written and report.errors == 0
    with pytest.raises(UsageError):
        build_game(mini, tmp_path / "out", changes={"paper": "A0"})


def test_a_damaged_cache_entry_is_not_served(tmp_path: Path) -> None:
    """An entry whose bytes no longer match its index (the pack rewritten by another build)
    is a miss, never another face's picture."""
    from compiler.backends.rendercache import RenderCache

    pack = tmp_path / "faces.pack"
    cache = RenderCache(pack)
    cache.put("a", b"first face")
    cache.put("b", b"second face")
    cache.save()
    data = bytearray(pack.read_bytes())
    at = data.index(b"first face")  # entry "a", wherever the pack keeps it
    data[at : at + 5] = b"XXXXX"  # its start overwritten
    pack.write_bytes(bytes(data))
    again = RenderCache(pack)
    assert again.get("a") is None
    assert again.get("b") == b"second face"


@pytest.mark.parametrize(
    "edit",
    [
        ("units.yaml", "name: 2nd Infantry,", "name: 2nd Infantry Regiment,"),  # a placed unit
        ("units.yaml", "formation: blue-i-2,", "formation: blue-i-1,"),  # its face the same
        ("scenarios/first.yaml", "state: {manpower: 3, fatigue: 1}", "state: {manpower: 4}"),
        ("game.yaml", "{id: blue, name: Blue,", "{id: blue, name: Azure,"),  # every blue piece
    ],
    ids=["unit", "unit-property", "placement", "side"],
)
def test_kept_piece_texts_never_outlive_what_they_were_made_of(
    mini: Path, tmp_path: Path, edit: tuple[str, str, str]
) -> None:
    """The module step with the piece texts and saves of the build before (piececache) writes
    the files a fresh build writes, after an edit to a unit, a placement or a side too."""
    from compiler.backends.vassal.module import assemble, render_plan
    from tests.conftest import replace_in

    pieces = tmp_path / "cache" / "pieces.pack"
    plan, images = render_plan(_game(mini))
    before, faces = assemble(plan, images), plan.unit_images["b-inf-2"]
    assert assemble(plan, images, pieces) == before  # the pack made
    assert assemble(plan, images, pieces) == before  # and read back
    file, old, new = edit
    replace_in(mini / file, old, new)
    plan, images = render_plan(_game(mini))
    fresh = assemble(plan, images)
    assert fresh["first.vsav"] != before["first.vsav"]  # the edit shows in the set-up save
    if "formation" in old:  # the unit's faces are those of before: only its texts changed
        assert plan.unit_images["b-inf-2"] == faces
    assert assemble(plan, images, pieces) == fresh


def test_render_plan_is_made_once_per_game_and_arguments(mini: Path) -> None:
    """The module and the preview page of one build ask for the same plan: the second gets the
    first's; another game object or other arguments get a plan of their own."""
    from compiler.backends.vassal.module import render_plan

    game = _game(mini)
    plan = render_plan(game)
    assert render_plan(game) is plan
    assert render_plan(game, lang="ja") is not plan
    assert render_plan(game, images="png") is not plan
    again = render_plan(_game(mini))
    assert again is not plan and again[1] == plan[1]


def test_face_names_and_checksums_kept_in_the_cache_are_those_of_the_bytes(
    mini: Path, tmp_path: Path
) -> None:
    """A face drawn before is not hashed again: its name and CRC-32 come from the render
    cache; they must be the digest and checksum of the bytes, and the module a sound zip."""
    import hashlib
    import zlib

    from compiler.backends.vassal.module import render_plan

    cache = tmp_path / "cache" / "faces.pack"
    first, images = render_plan(_game(mini), cache)
    again, images_again = render_plan(_game(mini), cache)
    assert again.faces_drawn == 0 and images_again == images
    assert again.image_crcs == first.image_crcs and again.image_crcs
    for name, crc in again.image_crcs.items():
        data = images_again[name]
        assert crc == zlib.crc32(data)
        assert name.endswith(f"-{hashlib.sha1(data).hexdigest()[:16]}.{name.rsplit('.', 1)[1]}")
    for _ in range(2):  # cold, then warm (the module before copied from)
        module = build_module(_game(mini), tmp_path / "out")
        with zipfile.ZipFile(module) as archive:
            assert archive.testzip() is None


@pytest.mark.parametrize("game_id", GAMES)
def test_build_file_written_as_text_is_what_lxml_writes(game_id: str) -> None:
    """The tray slots spliced into the serialised build file as text (build_file_xml) give the
    bytes of the whole tree serialised by lxml, and the same translation bundles."""
    from compiler.backends.vassal.buildfile import build_file, build_file_xml
    from compiler.backends.vassal.module import render_plan
    from compiler.backends.vassal.xml import serialise

    plan, _images = render_plan(_game(SOURCES / game_id))
    spliced = build_file_xml(plan)
    bundles = plan.bundles
    assert spliced == serialise(build_file(plan))
    assert plan.bundles == bundles
    assert b"PieceSlot>slots " not in spliced


def test_build_file_written_as_text_escapes_as_lxml_does(mini: Path) -> None:
    """A unit name holding XML's special characters, a tab, a line break and Japanese: in the
    slot's name (an attribute) and its piece's text, escaped as lxml escapes them."""
    from compiler.backends.vassal.buildfile import build_file, build_file_xml
    from compiler.backends.vassal.module import render_plan
    from compiler.backends.vassal.xml import serialise
    from tests.conftest import replace_in

    awkward = 'name: "2nd & <Inf> \\"a\\" \'b\'\\t\\r\\n歩兵 ]]>",'
    replace_in(mini / "units.yaml", "name: 2nd Infantry,", awkward)
    plan, _images = render_plan(_game(mini))
    spliced = build_file_xml(plan)
    assert spliced == serialise(build_file(plan))
    assert "2nd &amp; &lt;Inf&gt; &quot;a&quot; 'b'&#9;&#13;&#10;歩兵" in spliced.decode()


def test_a_previous_entry_is_copied_only_when_it_holds_the_same_content() -> None:
    """An entry of the module before whose name is no digest of its bytes (the build file) is
    copied when it inflates to the same bytes; with the same size and CRC-32 but other bytes
    (a planted collision), it is deflated again."""
    import zlib

    from compiler.backends.vassal.module import ZipEntry, reusable_entries, zip_bytes

    files = {"buildFile.xml": b"<module>the build file</module>\n" * 50, "moduledata": b"<m/>"}
    cold = zip_bytes(files)
    reuse = reusable_entries(cold)
    assert set(reuse) == set(files)
    assert zip_bytes(files, reuse) == cold
    changed = {**files, "buildFile.xml": files["buildFile.xml"].replace(b"the", b"one")}
    assert zip_bytes(changed, reuse) == zip_bytes(changed)
    data = files["buildFile.xml"]
    other = zlib.compressobj(9, zlib.DEFLATED, -15)
    planted = other.compress(data.upper()) + other.flush()
    collision = ZipEntry(zlib.crc32(data), len(data), True, planted)
    assert zip_bytes(files, {"buildFile.xml": collision}) == cold
