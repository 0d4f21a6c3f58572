"""Fixture modules for `countermix import-module`, written at test time (no binary fixtures).

Each function writes one .vmod into a folder and returns its path. The structures reproduce
what modules made with VASSAL's editor hold, each in its own way:

* `old_hex`: a 3.2-era module: `buildFile` (moduledata VassalVersion 3.2.17, root
  BasicModule) beside a stale `buildFile.xml`, a PieceWindow > TabWidget > ListWidget /
  PanelWidget palette, a classic CCRR hex grid, a plain flat save.
* `layered`: 3.7 `buildFile.xml`, prototypes nested three deep, two Layers on a piece (a Layer
  and a Face layer), two boards on one map (a staggered hex board and a square board, chosen
  by the BoardPicker's <setup>), set-ups in a nested menu, a `!VCSK` save with nested commands.
* `zoned`: a ZonedGrid with a hex zone and box zones, DynamicProperty and Calculated Property.
* `points`: a RegionGrid point map plus a PlayerHand, sides from the roster and tray names.
* `cards`: a card table: a DrawPile of CardSlots with a Mask back, a save holding the deck
  (VASSAL's Deck type and state, `map;x;y;faceDown;id,id,...`).
* `extension`: prototypes and images that only an (absent) extension would supply.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from compiler.backends.vassal import encode as enc
from compiler.sequence import ESC, TAB, join

M = "VASSAL.build.module."
B = M + "map.boardPicker.board."
W = "VASSAL.build.widget."
MAP_CHILDREN = "".join(
    f"<{M}map.{c}/>"
    for c in ("ForwardToKeyBuffer", "Scroller", "ForwardToChatter", "MenuDisplayer",
              "MapCenterer", "StackExpander", "PieceMover", "KeyBufferer",
              "SelectionHighlighters", "StackMetrics")
)  # fmt: skip


def png(size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def _esc(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def slot(name: str, gpid: int, traits: Sequence[enc.Trait], tag: str = "PieceSlot") -> str:
    text = _esc(enc.add_piece(traits))
    return (
        f'<{W}{tag} entryName="{_esc(name)}" gpid="{gpid}" height="60" width="60">{text}</{W}{tag}>'
    )


def counter(
    name: str, side: str, front: str, back: str = "", gpid: int = 0, extra: Sequence[enc.Trait] = ()
) -> list[enc.Trait]:
    traits = list(extra)
    if back:
        traits.append(enc.layer("Face", [front, back], ["", ""], "Flip", "70,130"))
    traits.append(enc.marker([("Side", side)]) if side else enc.marker([("Kind", "marker")]))
    traits.append(enc.basic_piece(name, "" if back else front, gpid=str(gpid)))
    return traits


def placed(
    traits: Sequence[enc.Trait], map_name: str, x: int, y: int, gpid: int
) -> list[enc.Trait]:
    """The traits of a piece in a save: the BasicPiece's state carries map, position, gpid."""
    basic = traits[-1]
    fields = basic.type.split(";")
    return [*traits[:-1], enc.basic_piece(fields[4], fields[3], map_name, x, y, str(gpid))]


def save_bytes(
    pieces: Sequence[tuple[list[enc.Trait], str, int, int]],
    extra: Sequence[str] = (),
    obfuscate: bool = False,
    nested: bool = False,
    decks: Sequence[str] = (),
) -> bytes:
    """A .vsav: every piece in its own stack, `extra` commands (board pickers), decks."""
    commands: list[str] = []
    for number, (traits, map_name, x, y) in enumerate(pieces, start=1):
        ident = str(1000 + number)
        piece = enc.add_piece(traits, ident)
        stack = f"+/{2000 + number}/stack/{join([map_name, str(x), str(y), ident, '@@-1'], ';')}"
        commands.append(join([piece, stack], ESC) if nested else piece + ESC + stack)
    commands += list(decks) + list(extra) + ["SETUP_STACK" + TAB]
    body = (
        join(["begin_save", "", *commands, "end_save"], ESC)
        if nested
        else ESC.join(["begin_save", *commands, "end_save"])
    )
    data = body.encode("utf-8")
    if obfuscate:
        key = 0x5A
        data = b"!VCSK" + f"{key:02x}".encode() + "".join(f"{b ^ key:02x}" for b in data).encode()
    return _zip({"savedGame": data, "savedata": b'<?xml version="1.0"?><data version="1"/>'})


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def moduledata(name: str, vassal: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><data version="1"><version>1.0</version>'
        f"<VassalVersion>{vassal}</VassalVersion><name>{_esc(name)}</name></data>"
    ).encode()


def module_xml(
    name: str, body: str, root: str = "VASSAL.build.GameModule", vassal: str = "3.7.26"
) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} name="{_esc(name)}" version="1.0" '
        f'VassalVersion="{vassal}" nextPieceSlotId="500" description="fixture">'
        f"<{M}BasicCommandEncoder/><{M}Chatter/>{body}</{root}>"
    ).encode()


def write(folder: Path, name: str, files: dict[str, bytes]) -> Path:
    path = folder / f"{name}.vmod"
    path.write_bytes(_zip(files))
    return path


def roster(*sides: str) -> str:
    entries = "".join(f"<entry>{_esc(s)}</entry>" for s in sides)
    return f"<{M}PlayerRoster>{entries}</{M}PlayerRoster>"


def game_map(name: str, boards: str, extra: str = "", setup: str = "", tag: str = "Map") -> str:
    setup_el = f"<setup>{_esc(setup)}</setup>" if setup else ""
    return (
        f'<{M}{tag} mapName="{_esc(name)}" edgeWidth="0" edgeHeight="0">{MAP_CHILDREN}'
        f"<{M}map.BoardPicker>{setup_el}{boards}</{M}map.BoardPicker>{extra}</{M}{tag}>"
    )


def hex_numbering(stagger: bool = False, fmt: str = "$gridLocation$") -> str:
    return (
        f'<{B}mapgrid.HexGridNumbering first="H" sep="" hType="N" hLeading="1" hOff="1" '
        f'hDescend="false" vType="N" vLeading="1" vOff="1" vDescend="false" '
        f'stagger="{str(stagger).lower()}" locationFormat="{fmt}"/>'
    )


def hex_grid(x0: int = 40, y0: int = 40, dy: float = 64.0, numbering: str = "") -> str:
    dx = dy * 3**0.5 / 2
    return (
        f'<{B}HexGrid sideways="false" x0="{x0}" y0="{y0}" dy="{dy!r}" dx="{dx!r}" '
        f'snapTo="true">{numbering or hex_numbering()}</{B}HexGrid>'
    )


def setup_el(name: str, file: str) -> str:
    return f'<{M}PredefinedSetup name="{_esc(name)}" isMenu="false" useFile="true" file="{file}"/>'


# -- the fixtures ------------------------------------------------------------------------------
def old_hex(folder: Path) -> Path:
    allies = counter("1st Infantry", "Allies", "inf1.png", "inf1b.png", 1)
    axis = counter("2nd Panzer", "Axis", "pz2.png", "", 2)
    flag = counter("Control", "", "flag.png", "", 3)
    palette = (
        f'<{M}PieceWindow name="Counters"><{W}TabWidget entryName="Counters">'
        f'<{W}ListWidget entryName="Allies"><{W}PanelWidget entryName="Infantry">'
        f"{slot('1st Infantry', 1, allies)}</{W}PanelWidget></{W}ListWidget>"
        f'<{W}ListWidget entryName="Axis">{slot("2nd Panzer", 2, axis)}</{W}ListWidget>'
        f'<{W}ListWidget entryName="Markers">{slot("Control", 3, flag)}</{W}ListWidget>'
        f"</{W}TabWidget></{M}PieceWindow>"
    )
    board = f'<{M}map.boardPicker.Board name="Main" image="map.png">{hex_grid()}</{M}map.boardPicker.Board>'
    body = (
        roster("Allies", "Axis")
        + palette
        + game_map("Main Map", board)
        + setup_el("Scenario 1", "s1.vsav")
    )
    flipped = list(allies)
    flipped[0] = enc.Trait(allies[0].type, "2")
    save = save_bytes([
        (placed(flipped, "Main Map", 150, 104, 1), "Main Map", 150, 104),  # 0302, back up
        (placed(axis, "Main Map", 261, 168, 2), "Main Map", 261, 168),  # 0503
        (placed(flag, "Main Map", 40, 40, 3), "Main Map", 40, 40),  # 0101
    ])  # fmt: skip
    return write(folder, "old_hex", {
        "moduledata": moduledata("Old Hex", "3.2.17"),
        "buildFile": module_xml("Old Hex", body, "VASSAL.launch.BasicModule", "3.2.17"),
        "buildFile.xml": module_xml("Stale Copy", ""),
        "images/map.png": png((600, 500), (230, 220, 190)),
        "images/inf1.png": png((60, 60), (200, 40, 40)),
        "images/inf1b.png": png((60, 60), (120, 20, 20)),
        "images/pz2.png": png((60, 60), (40, 40, 200)),
        "images/flag.png": png((40, 40), (250, 250, 0)),
        "s1.vsav": save,
    })  # fmt: skip


def _prototype(name: str, traits: Sequence[enc.Trait]) -> str:
    text = _esc(enc.add_piece([*traits, enc.basic_piece("")]))
    return f'<{M}PrototypeDefinition name="{name}">{text}</{M}PrototypeDefinition>'


def layered(folder: Path) -> Path:
    protos = (
        f"<{M}PrototypesContainer>"
        + _prototype("Base", [enc.delete()])
        + _prototype("Combat", [enc.prototype("Base"), enc.marker([("Type", "Infantry")])])
        + _prototype("Red", [enc.prototype("Combat"), enc.marker([("Side", "Red")])])
        + f"</{M}PrototypesContainer>"
    )
    glow = enc.layer("Glow", ["glow.png"], [""], "Glow", "71,130")
    traits = [enc.prototype("Red"), glow,
              enc.layer("Face", ["r1.png", "r1b.png"], ["", ""], "Flip", "70,130"),
              enc.marker([("Strength", "5")]), enc.basic_piece("Red Guard", gpid="11")]  # fmt: skip
    blue = [
        enc.marker([("Side", "Blue"), ("Strength", "3")]),
        enc.basic_piece("Blue Line", "b1.png", gpid="12"),
    ]
    palette = f'<{M}PieceWindow name="Units"><{W}ListWidget entryName="All">{slot("Red Guard", 11, traits)}{slot("Blue Line", 12, blue)}</{W}ListWidget></{M}PieceWindow>'
    west = f'<{M}map.boardPicker.Board name="West" image="west.png">{hex_grid(40, 40, 64.0, hex_numbering(stagger=True))}</{M}map.boardPicker.Board>'
    square = (f'<{B}SquareGrid dx="50.0" dy="50.0" x0="25" y0="25">'
              f'<{B}mapgrid.SquareGridNumbering first="V" sep="-" hType="N" vType="A" hLeading="0" vLeading="0" hOff="1" vOff="0"/></{B}SquareGrid>')  # fmt: skip
    east = f'<{M}map.boardPicker.Board name="East" image="east.png">{square}</{M}map.boardPicker.Board>'
    picker = "Theatre" + "BoardPicker" + TAB + join(["West", "0", "0", "East", "1", "0"], TAB)
    menu = (f'<{M}PredefinedSetup name="Campaigns" isMenu="true">'
            f'<{M}PredefinedSetup name="Spring" isMenu="true">{setup_el("Spring offensive", "saves/spring.vsav")}</{M}PredefinedSetup>'
            f"</{M}PredefinedSetup>")  # fmt: skip
    body = (
        roster("Red", "Blue")
        + protos
        + palette
        + game_map("Theatre", west + east, setup=picker)
        + menu
    )
    expanded = [
        enc.delete(),
        enc.marker([("Type", "Infantry")]),
        enc.marker([("Side", "Red")]),
        *traits[1:],
    ]
    flipped = list(expanded)
    flipped[4] = enc.Trait(expanded[4].type, "2")
    save = save_bytes([
        (placed(flipped, "Theatre", 95, 104, 11), "Theatre", 95, 104),  # raw (1,1) staggered
        (placed(blue, "Theatre", 600 + 75, 125, 12), "Theatre", 675, 125),  # east board cell
    ], extra=[picker], obfuscate=True, nested=True)  # fmt: skip
    return write(folder, "layered", {
        "moduledata": moduledata("Layered", "3.7.26"),
        "buildFile.xml": module_xml("Layered", body),
        "images/west.png": png((600, 400), (210, 230, 200)),
        "images/east.png": png((400, 400), (200, 210, 230)),
        "images/glow.png": png((60, 60), (255, 255, 200)),
        "images/r1.png": png((60, 60), (220, 30, 30)),
        "images/r1b.png": png((60, 60), (150, 30, 30)),
        "images/b1.png": png((60, 60), (30, 30, 220)),
        "saves/spring.vsav": save,
    })  # fmt: skip


def zoned(folder: Path) -> Path:
    prop = enc.Trait(join(["PROP", "Morale", "true", "0", "10", "false", ""], ";"), "4")
    calc = enc.Trait(join(["calcProp", "Total", "{Morale+1}", ""], ";"), "")
    unit = [
        prop,
        calc,
        enc.marker([("Side", "North")]),
        enc.basic_piece("Rifles", "rifles.png", gpid="21"),
    ]
    palette = f'<{M}PieceWindow name="Units"><{W}ListWidget entryName="North">{slot("Rifles", 21, unit)}</{W}ListWidget></{M}PieceWindow>'
    hex_zone = (f'<{B}mapgrid.Zone name="Field" path="0,0;500,0;500,400;0,400" locationFormat="$gridLocation$" useParentGrid="false">'
                f"{hex_grid(40, 40)}</{B}mapgrid.Zone>")  # fmt: skip
    boxes = "".join(
        f'<{B}mapgrid.Zone name="{n}" path="{x},420;{x + 150},420;{x + 150},540;{x},540" useParentGrid="false"/>'
        for n, x in (("Reserve", 20), ("Dead Pile", 200))
    )
    board = f'<{M}map.boardPicker.Board name="Field" image="field.png"><{B}ZonedGrid>{hex_zone}{boxes}</{B}ZonedGrid></{M}map.boardPicker.Board>'
    body = (
        roster("North", "South")
        + palette
        + game_map("Battle", board)
        + setup_el("Start", "start.vsav")
    )
    save = save_bytes([
        (placed(unit, "Battle", 150, 104, 21), "Battle", 150, 104),  # 0302
        (placed(unit, "Battle", 95, 480, 21), "Battle", 95, 480),  # Reserve
        (placed(unit, "Battle", 95, 480, 21), "Battle", 95, 480),
    ])  # fmt: skip
    return write(folder, "zoned", {
        "moduledata": moduledata("Zoned", "3.7.26"),
        "buildFile.xml": module_xml("Zoned", body),
        "images/field.png": png((500, 560), (220, 220, 220)),
        "images/rifles.png": png((50, 50), (90, 90, 160)),
        "start.vsav": save,
    })  # fmt: skip


def points(folder: Path) -> Path:
    french = counter("Ney", "", "ney.png", "", 31)
    prussian = counter("Blucher", "", "blucher.png", "", 32)
    palette = (f'<{M}PieceWindow name="Armies"><{W}TabWidget entryName="Armies">'
               f'<{W}PanelWidget entryName="French">{slot("Ney", 31, french)}</{W}PanelWidget>'
               f'<{W}PanelWidget entryName="Allied">{slot("Blucher", 32, prussian)}</{W}PanelWidget>'
               f"</{W}TabWidget></{M}PieceWindow>")  # fmt: skip
    regions = "".join(
        f'<{B}Region name="{n}" originx="{x}" originy="{y}"/>'
        for n, x, y in (("Paris", 100, 300), ("Brussels", 300, 80), ("Ligny", 350, 160))
    )
    board = f'<{M}map.boardPicker.Board name="Europe" image="europe.png"><{B}RegionGrid snapto="true">{regions}</{B}RegionGrid></{M}map.boardPicker.Board>'
    hand = f'<{M}map.boardPicker.Board name="Hand" width="300" height="100" color="230,230,230"/>'
    body = (roster("French", "Allied") + palette + game_map("Europe", board)
            + game_map("French hand", hand, tag="PlayerHand") + setup_el("1815", "1815.vsav"))  # fmt: skip
    save = save_bytes([
        (placed(french, "Europe", 100, 300, 31), "Europe", 100, 300),
        (placed(prussian, "Europe", 350, 160, 32), "Europe", 350, 160),
    ])  # fmt: skip
    return write(folder, "points", {
        "moduledata": moduledata("Points", "3.7.26"),
        "buildFile.xml": module_xml("Points", body),
        "images/europe.png": png((500, 400), (240, 235, 210)),
        "images/ney.png": png((40, 40), (30, 30, 180)),
        "images/blucher.png": png((40, 40), (20, 20, 20)),
        "1815.vsav": save,
    })  # fmt: skip


def _card(name: str, image: str, gpid: int) -> list[enc.Trait]:
    return [enc.mask("back.png", "Flip", "70,130"), enc.basic_piece(name, image, gpid=str(gpid))]


def deck_type(name: str) -> str:
    """A Deck's type as VASSAL's Deck.getType writes it: `deck;` then drawOutline, colour,
    width, height, faceDown, shuffle, allowMultiple, allowSelect, reversible, reshuffle
    command, target and message, the deck's name (field 13: a save's deck finds its DrawPile
    by it), then the messages and keys VASSAL's defaults fill in."""
    fields = ["true", "0,0,0", "150", "210", "Always", "Never", "false", "false", "false",
              "", "", "", name]  # fmt: skip
    return "deck;" + join(fields, ";")


def cards(folder: Path) -> Path:
    names = [("Ambush", "ambush.png", 41), ("Rally", "rally.png", 42), ("Storm", "storm.png", 43)]
    slots = "".join(slot(n, g, _card(n, i, g), "CardSlot") for n, i, g in names)
    pile = f'<{M}map.DrawPile name="Draw" owningBoard="Table" x="200" y="200" width="150" height="210" faceDown="Always" shuffle="Never">{slots}</{M}map.DrawPile>'
    board = f'<{M}map.boardPicker.Board name="Table" image="table.png"/>'
    body = (
        roster("Alice", "Bob")
        + game_map("Table", board, extra=pile)
        + setup_el("Deal", "deal.vsav")
    )
    pieces = [
        (placed(_card(n, i, g), "Table", 200, 200, g), "Table", 200, 200) for n, i, g in names
    ]
    deck = "+/3001/" + join([deck_type("Draw"), "Table;200;200;true;1001,1002,1003"], "/")
    save = save_bytes(
        [], decks=[enc.add_piece(t, str(1001 + k)) for k, (t, *_r) in enumerate(pieces)] + [deck]
    )
    return write(folder, "cards", {
        "moduledata": moduledata("Cards", "3.7.26"),
        "buildFile.xml": module_xml("Cards", body),
        "images/table.png": png((600, 450), (30, 110, 60)),
        "images/back.png": png((150, 210), (60, 60, 60)),
        **{f"images/{i}": png((150, 210), (200, 200 - 40 * k, 150)) for k, (_n, i, _g) in enumerate(names)},
        "deal.vsav": save,
    })  # fmt: skip


def extension(folder: Path) -> Path:
    unit = [
        enc.prototype("FromExtension"),
        enc.marker([("Side", "Green")]),
        enc.basic_piece("Ranger", "ranger.png", gpid="51"),
    ]
    missing = [enc.marker([("Side", "Green")]), enc.basic_piece("Scout", "scout.png", gpid="52")]
    palette = f'<{M}PieceWindow name="Units"><{W}ListWidget entryName="Green">{slot("Ranger", 51, unit)}{slot("Scout", 52, missing)}</{W}ListWidget></{M}PieceWindow>'
    board = f'<{M}map.boardPicker.Board name="Main" image="main.png">{hex_grid()}</{M}map.boardPicker.Board>'
    body = roster("Green") + palette + game_map("Main", board) + setup_el("Start", "start.vsav")
    foreign = [enc.basic_piece("Extension Tank", "tank.png", gpid="ext1:5")]
    save = save_bytes([
        (placed(unit, "Main", 150, 104, 51), "Main", 150, 104),
        (placed(foreign, "Main", 40, 40, 0), "Main", 40, 40),
    ])  # fmt: skip
    return write(folder, "extension", {
        "moduledata": moduledata("Extension", "3.7.26"),
        "buildFile.xml": module_xml("Extension", body),
        "images/main.png": png((600, 500), (230, 230, 230)),
        "images/ranger.png": png((50, 50), (20, 140, 20)),
        "start.vsav": save,
    })  # fmt: skip


FIXTURES = {f.__name__: f for f in (old_hex, layered, zoned, points, cards, extension)}


# -- hostile archives -----------------------------------------------------------------------
def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))  # fmt: skip


def hostile(folder: Path, kind: str) -> Path:
    board = f'<{M}map.boardPicker.Board name="Main" image="map.png">{hex_grid()}</{M}map.boardPicker.Board>'
    good = module_xml("Hostile", game_map("Main", board))
    files: dict[str, bytes] = {"moduledata": moduledata("Hostile", "3.7.26"), "buildFile.xml": good,
                               "images/map.png": png((100, 100), (0, 0, 0))}  # fmt: skip
    path = folder / f"{kind}.vmod"
    if kind == "zip-slip":
        files["../../evil.txt"] = b"x"
    elif kind == "absolute":
        files["/tmp/evil.txt"] = b"x"
    elif kind == "xxe":
        files["buildFile.xml"] = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                                  b'<VASSAL.build.GameModule name="&e;"/>')  # fmt: skip
    elif kind == "laughs":
        ents = "".join(
            f'<!ENTITY l{i} "&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};">' for i in range(1, 10)
        )
        files["buildFile.xml"] = (f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY l0 "ha">{ents}]>'
                                  f'<VASSAL.build.GameModule name="&l9;"/>').encode()  # fmt: skip
    elif kind == "image-bomb":
        files["images/map.png"] = _png_header(100_000, 100_000)
    elif kind == "zip-bomb":
        files["images/huge.png"] = b"\0" * (64 * 1024 * 1024)
    elif kind == "no-buildfile":
        del files["buildFile.xml"]
    elif kind == "not-zip":
        path.write_bytes(b"this is not a module\n" * 10)
        return path
    data = _zip(files)
    if kind == "truncated":
        data = data[: len(data) // 2]
    path.write_bytes(data)
    return path


HOSTILE = ("zip-slip", "absolute", "xxe", "laughs", "image-bomb", "zip-bomb", "no-buildfile",
           "not-zip", "truncated")  # fmt: skip
