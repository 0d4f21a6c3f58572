"""Write a small hand-made VASSAL 3.6 module (.vmod) for the harness to load.

The module follows the project's VASSAL format notes (shared/vassal/format.md, kept beside the
repository; sections 1, 2, 5, 6 and the example in 9): one map "Main Map" with one board
"Main" (a 600x500 PNG) and a hex grid numbered CCRR, a prototype "Unit", one counter
"1st Infantry" in a tray, and a predefined setup "Scenario 1" whose embedded save puts that
counter in hex 0503.

``--broken KIND`` writes a deliberately broken variant instead:

* ``trait``: the tray counter carries a trait with an unknown type prefix;
* ``image``: the counter names an image that is not in the archive;
* ``prototype``: the counter uses a prototype that does not exist;
* ``unexpanded``: the scenario save keeps the ``prototype;Unit`` trait instead of writing the
  prototype's traits inline (VASSAL then does not see the prototype's properties).

Usage: python -m tests.vassal_harness.make_sample OUT.vmod [--broken trait|image|prototype]
"""

from __future__ import annotations

import argparse
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from PIL import Image, ImageDraw

MODULE_NAME = "Harness Sample"
MODULE_VERSION = "1.0"
VASSAL_VERSION = "3.6.0"
MAP_NAME = "Main Map"
BOARD_NAME = "Main"
PIECE_NAME = "1st Infantry"
PIECE_GPID = "1"
UNIT_ID = "inf-1"
SCENARIO_NAME = "Scenario 1"
SCENARIO_FILE = "Scenario1.vsav"
# Hex 0503 = raw column 4, row 2 of the grid below: (int(55.4256*4 + 40), 64*2 + 40).
EXPECTED_LOCATION = "0503"
EXPECTED_XY = (261, 168)
ESC = "\x1b"
TAB = "\t"
BROKEN_KINDS = ("trait", "image", "prototype", "unexpanded")


def se_field(value: str, delim: str) -> str:
    """Escape one field the way VASSAL's SequenceEncoder does."""
    if not value:
        return ""
    out = value.replace(delim, "\\" + delim)
    if value[0] == "\\" or (value[0] == "'" and value[-1] == "'"):
        out = "'" + out + "'"
    return out


def se_join(fields: Sequence[str], delim: str) -> str:
    return delim.join(se_field(f, delim) for f in fields)


def piece_text(traits: Sequence[tuple[str, str]], piece_id: str = "null") -> str:
    """AddPiece text for a trait list (outermost first, BasicPiece last) of (type, state)."""
    full_type, full_state = traits[-1]
    for trait_type, trait_state in reversed(traits[:-1]):
        full_type = se_join([trait_type, full_type], TAB)
        full_state = se_join([trait_state, full_state], TAB)
    return "+/" + se_join([piece_id, full_type, full_state], "/")


PROTOTYPE_TRAITS = [("mark;Type", "Unit")]


def counter_traits(broken: str | None, where: str, expand: bool = False) -> list[tuple[str, str]]:
    """Traits of the counter; ``where`` is the BasicPiece state prefix (map;x;y).

    ``expand`` writes the prototype's traits in place of the ``prototype;`` trait, as VASSAL
    does for a piece that enters play (and as a save must do, see the module doc).
    """
    proto = "NoSuchPrototype" if broken == "prototype" else "Unit"
    image = "missing.png" if broken == "image" else "inf.png"
    traits: list[tuple[str, str]] = []
    if expand and proto == "Unit":
        traits.extend(PROTOTYPE_TRAITS)
    else:
        traits.append((f"prototype;{proto}", ""))
    traits.append(("mark;UnitId", UNIT_ID))
    if broken == "trait":
        traits.append(("bogus;1;2;3", "x"))
    traits.append((f"piece;;;{image};{PIECE_NAME}", f"{where};{PIECE_GPID};0"))
    return traits


def prototype_text() -> str:
    return piece_text([*PROTOTYPE_TRAITS, ("piece;;;;", "null;0;0;;0")])


def build_file(broken: str | None) -> str:
    slot = escape(piece_text(counter_traits(broken, "null;0;0")))
    proto = escape(prototype_text())
    a = quoteattr
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<VASSAL.build.GameModule name={a(MODULE_NAME)} version={a(MODULE_VERSION)} \
VassalVersion={a(VASSAL_VERSION)} description="Harness sample" nextPieceSlotId="2" \
ModuleOther1="" ModuleOther2="">
  <VASSAL.build.module.BasicCommandEncoder/>
  <VASSAL.build.module.Documentation/>
  <VASSAL.build.module.PlayerRoster buttonText="Retire" buttonToolTip="Switch sides"/>
  <VASSAL.build.module.GlobalOptions autoReport="Always" centerOnMove="Use Preferences Setting" \
nonOwnerUnmaskable="Use Preferences Setting" playerIdFormat="$PlayerName$"/>
  <VASSAL.build.module.Chatter/>
  <VASSAL.build.module.KeyNamer/>
  <VASSAL.i18n.Language/>
  <VASSAL.build.module.properties.GlobalProperties/>
  <VASSAL.build.module.properties.GlobalTranslatableMessages/>
  <VASSAL.build.module.PrototypesContainer>
    <VASSAL.build.module.PrototypeDefinition name="Unit" description="">{proto}\
</VASSAL.build.module.PrototypeDefinition>
  </VASSAL.build.module.PrototypesContainer>
  <VASSAL.build.module.PieceWindow name="Counters" text="Counters" tooltip="Counters" \
hotkey="67,520" icon="" hidden="false" scale="1.0">
    <VASSAL.build.widget.ListWidget entryName="All" scale="1.0" width="0" height="0" divider="150">
      <VASSAL.build.widget.PieceSlot entryName={a(PIECE_NAME)} gpid={a(PIECE_GPID)} \
height="60" width="60">{slot}</VASSAL.build.widget.PieceSlot>
    </VASSAL.build.widget.ListWidget>
  </VASSAL.build.module.PieceWindow>
  <VASSAL.build.module.Map mapName={a(MAP_NAME)} markMoved="Always" edgeWidth="0" \
edgeHeight="0" backgroundcolor="255,255,255" allowMultiple="false" color="0,0,0" thickness="3" \
launch="false" buttonName="" icon="/images/map.gif" hotkey="" \
moveWithinFormat="$pieceName$ moves $previousLocation$ -&gt; $location$ *" \
moveToFormat="$pieceName$ moves $previousLocation$ -&gt; $location$ *" \
createFormat="$pieceName$ created in $location$ *" changeFormat="$message$">
    <VASSAL.build.module.map.ForwardToKeyBuffer/>
    <VASSAL.build.module.map.Scroller useArrows="always"/>
    <VASSAL.build.module.map.ForwardToChatter/>
    <VASSAL.build.module.map.MenuDisplayer/>
    <VASSAL.build.module.map.MapCenterer/>
    <VASSAL.build.module.map.StackExpander/>
    <VASSAL.build.module.map.PieceMover/>
    <VASSAL.build.module.map.KeyBufferer/>
    <VASSAL.build.module.map.SelectionHighlighters/>
    <VASSAL.build.module.map.HighlightLastMoved color="255,0,0" enabled="true" thickness="2"/>
    <VASSAL.build.module.map.CounterDetailViewer version="4" delay="700" showgraph="true" \
showtext="true" showNoStack="false" showDeck="false" summaryReportFormat="$LocationName$" \
minDisplayPieces="2" zoomlevel="1.0"/>
    <VASSAL.build.module.map.Zoomer zoomLevels="0.25,0.5,0.75,1.0,1.5,2.0" zoomStart="3"/>
    <VASSAL.build.module.map.StackMetrics exSepX="6" exSepY="18" unexSepX="2" unexSepY="4" \
disabled="false" color="0,0,0" top="38,0" bottom="40,0" up="39,0" down="37,0"/>
    <VASSAL.build.module.map.BoardPicker title="Choose Boards" addRowText="Add Row" \
addColumnText="Add Column" boardPrompt="Select board" slotHeight="125" slotWidth="350" \
slotScale="0.2">
      <VASSAL.build.module.map.boardPicker.Board name={a(BOARD_NAME)} image="map.png" \
reversible="false">
        <VASSAL.build.module.map.boardPicker.board.HexGrid sideways="false" x0="40" y0="40" \
dy="64.0" dx="55.42562584220407" snapTo="true" edgesLegal="false" cornersLegal="false" \
visible="true" dotsVisible="false" color="0,0,0">
          <VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering first="H" sep="" \
hType="N" hLeading="1" hOff="1" hDescend="false" vType="N" vLeading="1" vOff="1" \
vDescend="false" stagger="false" locationFormat="$gridLocation$" visible="true" fontSize="9" \
color="0,0,0" rotateText="0" hDrawOff="0" vDrawOff="-20"/>
        </VASSAL.build.module.map.boardPicker.board.HexGrid>
      </VASSAL.build.module.map.boardPicker.Board>
    </VASSAL.build.module.map.BoardPicker>
  </VASSAL.build.module.Map>
  <VASSAL.build.module.PredefinedSetup name={a(SCENARIO_NAME)} isMenu="false" useFile="true" \
file={a(SCENARIO_FILE)}/>
</VASSAL.build.GameModule>
"""


def module_data() -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<data version="1">
  <version>{escape(MODULE_VERSION)}</version>
  <extra1/>
  <extra2/>
  <VassalVersion>{VASSAL_VERSION}</VassalVersion>
  <dateSaved>1764500000000</dateSaved>
  <description>Harness sample</description>
  <name>{escape(MODULE_NAME)}</name>
</data>
"""


def save_data() -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<data version="1">
  <version>{escape(MODULE_VERSION)}</version>
  <extra1/>
  <extra2/>
  <VassalVersion>{VASSAL_VERSION}</VassalVersion>
  <dateSaved>1764500000000</dateSaved>
</data>
"""


def saved_game(broken: str | None) -> str:
    x, y = EXPECTED_XY
    where = f"{MAP_NAME};{x};{y}"
    commands = [
        "begin_save",
        piece_text(
            counter_traits(broken, where, expand=broken != "unexpanded"), piece_id="1000001"
        ),
        "+/1000002/stack/" + se_join([MAP_NAME, str(x), str(y), "1000001", "@@-1"], ";"),
        se_join([MAP_NAME + "BoardPicker", BOARD_NAME, "0", "0"], TAB),
        "SETUP_STACK" + TAB,
        "end_save",
    ]
    return se_join(commands, ESC)


def png(width: int, height: int, counter: bool) -> bytes:
    img = Image.new("RGB", (width, height), (235, 225, 190))
    pen = ImageDraw.Draw(img)
    pen.rectangle((0, 0, width - 1, height - 1), outline=(0, 0, 0), width=2 if counter else 1)
    if counter:  # NATO infantry symbol
        pen.line((8, 8, width - 8, height - 8), fill=(0, 0, 0), width=2)
        pen.line((8, height - 8, width - 8, 8), fill=(0, 0, 0), width=2)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def vsav(broken: str | None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("savedGame", saved_game(broken).encode("utf-8"))
        z.writestr("savedata", save_data())
        z.writestr("moduledata", module_data())
    return buf.getvalue()


def write_sample(out: Path, broken: str | None = None) -> Path:
    """Write the sample module (or a broken variant, see the module doc) to ``out``."""
    if broken is not None and broken not in BROKEN_KINDS:
        raise ValueError(f"broken must be one of {BROKEN_KINDS}, not {broken!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("moduledata", module_data())
        z.writestr("buildFile.xml", build_file(broken))
        z.writestr("images/map.png", png(600, 500, counter=False))
        z.writestr("images/inf.png", png(60, 60, counter=True))
        z.writestr(SCENARIO_FILE, vsav(broken))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path)
    parser.add_argument("--broken", choices=BROKEN_KINDS)
    args = parser.parse_args(argv)
    write_sample(args.out, args.broken)


if __name__ == "__main__":
    main()
