"""Small helpers over lxml for VASSAL's build file: element per component, attributes in order."""

from __future__ import annotations

from lxml import etree

V = "VASSAL."
MODULE = V + "build.module."
MAP = MODULE + "map."
BOARD = MAP + "boardPicker."
GRID = BOARD + "board."
WIDGET = V + "build.widget."


def node(
    parent: etree._Element | None, tag: str, text: str | None = None, **attrs: str
) -> etree._Element:
    element = etree.Element(tag) if parent is None else etree.SubElement(parent, tag)
    for name, value in attrs.items():
        element.set(name.rstrip("_"), value)
    if text is not None:
        element.text = text
    return element


def serialise(root: etree._Element) -> bytes:
    etree.indent(root, space="  ")
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


MAP_CHILDREN: tuple[tuple[str, dict[str, str]], ...] = (
    ("ForwardToKeyBuffer", {}),
    ("Scroller", {"useArrows": "always"}),
    ("ForwardToChatter", {}),
    ("MenuDisplayer", {}),
    ("MapCenterer", {}),
    ("StackExpander", {}),
    ("PieceMover", {}),
    ("KeyBufferer", {}),
    ("ImageSaver", {}),
    (
        "CounterDetailViewer",
        {
            "version": "4",
            "delay": "700",
            "showgraph": "true",
            "showtext": "true",
            "showNoStack": "false",
            "showDeck": "false",
            "summaryReportFormat": "$LocationName$",
            "minDisplayPieces": "2",
            "zoomlevel": "1.0",
        },
    ),
    ("SelectionHighlighters", {}),
    ("HighlightLastMoved", {"color": "255,0,0", "enabled": "true", "thickness": "2"}),
    ("Zoomer", {"zoomLevels": "0.25,0.375,0.5,0.75,1.0,1.5,2.0", "zoomStart": "5"}),
    (
        "StackMetrics",
        {
            "exSepX": "8",
            "exSepY": "16",
            "unexSepX": "3",
            "unexSepY": "5",
            "disabled": "false",
            "color": "",
            "top": "38,0",
            "bottom": "40,0",
            "up": "39,0",
            "down": "37,0",
        },
    ),
)


def map_element(parent: etree._Element, tag: str, name: str, **extra: str) -> etree._Element:
    """A Map (or PrivateMap/PlayerHand) with the mouse and key components a generated map needs:
    VASSAL adds none of them when the map comes from XML."""
    element = node(
        parent,
        tag,
        mapName=name,
        markMoved="Always",
        edgeWidth="0",
        edgeHeight="0",
        backgroundcolor="255,255,255",
        allowMultiple="false",
        color="0,0,0",
        thickness="3",
        moveWithinFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
        moveToFormat="$pieceName$ moves $previousLocation$ -> $location$ *",
        createFormat="$pieceName$ created in $location$ *",
        changeFormat="$message$",
        **extra,
    )
    for child, attrs in MAP_CHILDREN:
        node(element, MAP + child, **attrs)
    return element
