"""Piece art: units, marker sets, cards and decks drawn from image files in the module and on
the print sheets, checked like board art."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from lxml import etree
from PIL import Image
from pypdf import PdfReader

from compiler.cli import main
from tests.conftest import replace_in

DECKS = """maps:
  - {id: table, name: Card Table, kind: none}
decks:
  - {id: tactics, name: Tactics, side: blue, kind: tactics, art: {back: art/tactics-back.png}}
  - {id: events, name: Events, kind: event}
cards:
  - {id: ambush, deck: tactics, name: Ambush, art: {front: art/ambush.png}}
  - {id: rally, deck: tactics, name: Rally, text: Drawn as usual.}
  - {id: storm, deck: events, name: Storm, art: {front: art/storm.png}}
"""


def png(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (24, 24)) -> bytes:
    """A small PNG written to `path`; its bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def image_name(data: bytes, ext: str = "png") -> str:
    return f"art-{hashlib.sha1(data).hexdigest()[:16]}.{ext}"


def with_art(mini: Path) -> dict[str, bytes]:
    """The fixture game with art on a unit without back values (set up on its back), on the
    strength markers, on two cards and on a deck's back; the pictures by name."""
    art = mini / "art"
    pictures = {
        "unit": png(art / "b-art-1.png", (200, 40, 40)),
        "unit-back": png(art / "b-art-1-back.png", (40, 200, 40)),
        "marker": png(art / "strength.png", (250, 250, 0)),
        "marker-back": png(art / "strength-back.png", (0, 250, 250)),
        "card": png(art / "ambush.png", (90, 20, 160), (50, 70)),
        "card-2": png(art / "storm.png", (20, 90, 160), (50, 70)),
        "deck-back": png(art / "tactics-back.png", (10, 10, 10), (50, 70)),
    }
    units = mini / "units.yaml"
    replace_in(
        units,
        "front: {strength: 1, movement: 2}, copies: 2}",
        "front: {strength: 1, movement: 2}, copies: 2,\n"
        "     art: {front: art/b-art-1.png, back: art/b-art-1-back.png}}",
    )
    replace_in(
        units,
        "     copies: 2}",
        "     copies: 2, art: {front: art/strength.png, back: art/strength-back.png}}",
    )
    scenario = mini / "scenarios" / "first.yaml"
    replace_in(scenario, "unit: b-art-1, state: {manpower: 2}}", "unit: b-art-1, face: back}")
    (mini / "cards.yaml").write_text(DECKS, encoding="utf-8")
    return pictures


def build(mini: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return run(["build", str(mini), "--out", str(out), "--combined"], capsys)


def module_files(out: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(out / "mini" / "mini.vmod") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def piece_slots(files: dict[str, bytes]) -> dict[str, str]:
    """Piece (and card) slot name → its trait text, from the build file."""
    root = etree.fromstring(files["buildFile.xml"])
    return {
        slot.get("entryName") or "": slot.text or ""
        for slot in root.iter()
        if isinstance(slot.tag, str) and slot.tag.endswith(("PieceSlot", "CardSlot"))
    }


def slot_of(slots: dict[str, str], needle: str) -> str:
    found = [text for text in slots.values() if needle in text]
    assert len(found) >= 1, needle
    return found[0]


@pytest.fixture
def built(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    pictures = with_art(mini)
    code, out = build(mini, tmp_path / "out", capsys)
    assert code == 0, out
    return tmp_path / "out", pictures, module_files(tmp_path / "out")


def test_unit_art_is_the_piece_image_with_a_face_layer(
    built: tuple[Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    _out, pictures, files = built
    front, back = image_name(pictures["unit"]), image_name(pictures["unit-back"])
    assert files[f"images/{front}"] == pictures["unit"]
    assert files[f"images/{back}"] == pictures["unit-back"]
    slot = slot_of(piece_slots(files), front)
    assert ";Face;" in slot
    assert f"{front},{back}" in slot and "b-art-1" in slot


def test_marker_set_art_serves_every_marker(
    built: tuple[Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    _out, pictures, files = built
    front, back = image_name(pictures["marker"]), image_name(pictures["marker-back"])
    assert files[f"images/{front}"] == pictures["marker"]
    markers = [t for name, t in piece_slots(files).items() if name.startswith("strength-")]
    assert len(markers) == 18
    assert all(f"{front},{back}" in text for text in markers)


def test_card_art_and_deck_back_art(
    built: tuple[Path, dict[str, bytes], dict[str, bytes]],
) -> None:
    _out, pictures, files = built
    card, deck_back = image_name(pictures["card"]), image_name(pictures["deck-back"])
    slots = piece_slots(files)
    ambush = slots["Ambush"]
    assert card in ambush and deck_back in ambush
    rally = slots["Rally"]  # drawn face, the deck's picture back
    assert "images/art-" not in rally and deck_back in rally
    storm = slots["Storm"]  # picture face, the drawn back of its deck
    assert image_name(pictures["card-2"]) in storm
    assert "cardback-" in storm


def image_xobjects(pdf: Path) -> int:
    reader = PdfReader(pdf)
    names = set()
    for page in reader.pages:
        resources: Any = page["/Resources"]
        xobjects: Any = resources.get("/XObject", {})
        for key, ref in xobjects.items():
            if ref.get_object()["/Subtype"] == "/Image":
                names.add(key)
    return len(names)


def test_art_is_printed_on_the_sheets_as_images(
    built: tuple[Path, dict[str, bytes], dict[str, bytes]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _pictures, _files = built
    plain = tmp_path / "plain"
    from tests.conftest import DATA

    code, _ = build(DATA / "mini", plain, capsys)
    assert code == 0
    counters, before = out / "mini" / "counters.pdf", plain / "mini" / "counters.pdf"
    assert image_xobjects(counters) == 4  # unit front and back, marker front and back
    assert image_xobjects(before) == 0
    assert len(PdfReader(counters).pages) == len(PdfReader(before).pages)
    assert image_xobjects(out / "mini" / "cards.pdf") == 3


def test_rebuilds_are_byte_identical_and_follow_changed_art(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_art(mini)
    outputs = ("mini.vmod", "counters.pdf", "cards.pdf")
    assert build(mini, tmp_path / "one", capsys)[0] == 0
    assert build(mini, tmp_path / "two", capsys)[0] == 0
    for name in outputs:
        one = (tmp_path / "one" / "mini" / name).read_bytes()
        assert one == (tmp_path / "two" / "mini" / name).read_bytes(), name
    changed = png(mini / "art" / "b-art-1.png", (1, 2, 3))
    before = (tmp_path / "one" / "mini" / "counters.pdf").read_bytes()
    assert build(mini, tmp_path / "one", capsys)[0] == 0  # warm caches
    assert module_files(tmp_path / "one")[f"images/{image_name(changed)}"] == changed
    assert (tmp_path / "one" / "mini" / "counters.pdf").read_bytes() != before


@pytest.mark.parametrize(
    ("art", "rule", "says"),
    [
        ("{front: ../outside.png}", "path-outside-game", "leads outside the game folder"),
        ("{front: /tmp/outside.png}", "path-outside-game", "absolute path"),
        ("{front: art/missing.png}", "art-error", "is missing"),
        ("{front: units.yaml}", "art-error", "is not a readable image"),
        ("{back: art/missing.png}", "art-error", "back image `art/missing.png`"),
    ],
)
def test_bad_art_paths_are_findings(
    mini: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    art: str,
    rule: str,
    says: str,
) -> None:
    png(tmp_path / "outside.png", (0, 0, 0))
    replace_in(
        mini / "units.yaml",
        "front: {strength: 1, movement: 2}, copies: 2}",
        f"front: {{strength: 1, movement: 2}}, copies: 2, art: {art}}}",
    )
    code, out = run(["validate", str(mini)], capsys)
    assert code == 1 and f"error[{rule}]" in out and says in out, out
    assert " at 0x" not in out  # no object's address: the same finding on every run
    code, out = build(mini, tmp_path / "out", capsys)
    assert code == 1 and f"error[{rule}]" in out
    assert not (tmp_path / "out" / "mini").exists()


def test_svg_art_goes_into_the_module_and_is_not_printed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect/></svg>'
    (mini / "b.svg").write_bytes(svg)
    replace_in(
        mini / "units.yaml",
        "front: {strength: 1, movement: 2}, copies: 2}",
        "front: {strength: 1, movement: 2}, copies: 2, art: {front: b.svg}}",
    )
    code, out = build(mini, tmp_path / "out", capsys)
    assert code == 0 and "warning[art-error]" in out and "is SVG" in out
    assert module_files(tmp_path / "out")[f"images/{image_name(svg, 'svg')}"] == svg
    assert image_xobjects(tmp_path / "out" / "mini" / "counters.pdf") == 0


@pytest.mark.slow
def test_art_pieces_load_in_vassal(mini: Path, tmp_path: Path) -> None:
    """VASSAL's own engine loads a module with piece art (units, markers, cards, a deck back):
    every image decodes, nothing warns, and the setup still places every piece."""
    from compiler.backends.vassal.module import build_module
    from compiler.load.aids import with_aids
    from compiler.load.game import load_game
    from tests.vassal_harness.run import run_harness, vassal_available

    if not vassal_available():
        pytest.fail("VASSAL's engine is not installed: run scripts/install-vassal.sh")
    pictures = with_art(mini)
    game = load_game(mini).game
    assert game is not None
    vmod = build_module(with_aids(game)[0], tmp_path)
    report: dict[str, Any] = run_harness(vmod, props=("UnitId", "MarkerId", "CardId"))
    assert report["decodeErrors"] == [] and report["imageErrors"] == []
    assert report["warnings"] == [], report["warnings"][:5]
    assert [d for d in report["dialogs"] if not d["ignored"]] == []
    assert report["ok"] is True
    assert {f"images/{image_name(p)}" for p in pictures.values()} <= {
        n if n.startswith("images/") else f"images/{n}" for n in report["images"]
    }


def test_jpeg_and_transparent_gif_art(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Other formats go into the module as they are; a transparent picture is printed with a
    soft mask."""
    jpeg, gif = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (30, 30), (200, 10, 10)).save(jpeg, "JPEG")
    Image.new("P", (30, 30), 0).save(gif, "GIF", transparency=0)
    (mini / "front.jpg").write_bytes(jpeg.getvalue())
    (mini / "back.gif").write_bytes(gif.getvalue())
    replace_in(
        mini / "units.yaml",
        "front: {strength: 1, movement: 2}, copies: 2}",
        "front: {strength: 1, movement: 2}, copies: 2, art: {front: front.jpg, back: back.gif}}",
    )
    code, out = build(mini, tmp_path / "out", capsys)
    assert code == 0, out
    files = module_files(tmp_path / "out")
    assert files[f"images/{image_name(jpeg.getvalue(), 'jpg')}"] == jpeg.getvalue()
    assert files[f"images/{image_name(gif.getvalue(), 'gif')}"] == gif.getvalue()
    counters = (tmp_path / "out" / "mini" / "counters.pdf").read_bytes()
    assert image_xobjects(tmp_path / "out" / "mini" / "counters.pdf") == 2
    assert b"/SMask" in counters
