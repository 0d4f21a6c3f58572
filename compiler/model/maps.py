"""Maps: hex grids with sheets, area maps, point-to-point maps, card tables; boxes and zones."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Text, doc


@dataclass(frozen=True, slots=True, kw_only=True)
class Zone(Node):
    """A named zone under a map's `zones:` (e.g. inside France, west of the line); hexes, areas and
    towns list the zones they lie in, and constraints select locations by zone."""

    id: str = field(metadata=doc("Zone id, e.g. inside-france, west-of-line."))
    name: Text = field(metadata=doc("Zone name."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Box(Node):
    """An off-map holding box or display box under a map's `boxes:` (reinforcements, army display,
    piles); pieces are set up in it by its id."""

    id: str = field(metadata=doc("Box id."))
    name: Text = field(metadata=doc("Box name."))
    side: str = field(default="", metadata=doc("Owning side, if any."))
    kind: Literal["holding", "display", "pile", "hand", "track", "other"] = field(
        default="holding", metadata=doc("Box kind.")
    )
    tags: tuple[str, ...] = field(
        default=(), metadata=doc("Tags for selectors.", example="[reinforcements, french]")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Sheet(Node):
    """One map sheet of a hex grid, under `grid: sheets:`: its letter and the columns and rows it
    covers. Every hex of every sheet exists; `hexes:` lists only those that differ."""

    id: str = field(metadata=doc("Sheet id; the map letter in GCACW-style ids."))
    name: Text = field(default=NO_TEXT, metadata=doc("Sheet name."))
    columns: tuple[int, int] = field(metadata=doc("First and last column number."))
    rows: tuple[int, int] = field(metadata=doc("First and last row number."))
    terrain: str = field(default="clear", metadata=doc("Default terrain of the sheet's hexes."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Hex(Node):
    """A hex that differs from its sheet's default, under `grid: hexes:`: its terrain, printed name,
    features or zones."""

    id: str = field(metadata=doc("Hex id as numbered on the map."))
    terrain: str = field(default="", metadata=doc("Terrain id (else the sheet default)."))
    name: Text = field(default=NO_TEXT, metadata=doc("Place name printed in the hex."))
    features: tuple[str, ...] = field(default=(), metadata=doc("In-hex features: town, station."))
    zones: tuple[str, ...] = field(default=(), metadata=doc("Zones the hex lies in."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Hexside(Node):
    """A feature on the side between two adjacent hexes, under `grid: hexsides:` (a river, creek,
    bridge ...)."""

    between: tuple[str, str] = field(metadata=doc("The two adjacent hexes."))
    feature: str = field(metadata=doc("Hexside terrain id: river, creek, bridge ..."))


@dataclass(frozen=True, slots=True, kw_only=True)
class HexGrid(Node):
    """The hex grid of a hex map, under a map's `grid:`: how hex ids are numbered, the sheets, and
    the hexes and hexsides that differ from the default."""

    id_format: str = field(
        metadata=doc("Python format of hex ids from sheet, col, row: '{sheet}{col:02d}{row:02d}'.")
    )
    orientation: Literal["flat", "pointy"] = field(default="flat", metadata=doc("Hex top."))
    size: float = field(
        default=64.0, metadata=doc("Hex height in pixels (flat) for boards.", example="80")
    )
    sheets: tuple[Sheet, ...] = field(metadata=doc("Map sheets."))
    hexes: tuple[Hex, ...] = field(default=(), metadata=doc("Hexes that differ from the default."))
    hexsides: tuple[Hexside, ...] = field(default=(), metadata=doc("Hexside features."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Area(Node):
    """An area of an area map, under a map's `areas:` (land, sea, port or island box), with its
    outline on the board."""

    id: str = field(metadata=doc("Area id."))
    name: Text = field(metadata=doc("Area name."))
    kind: Literal["land", "sea", "port_box", "island_box", "home", "other"] = field(
        default="land", metadata=doc("Area kind.")
    )
    terrain: str = field(default="", metadata=doc("Terrain id."))
    port: Literal["", "small", "medium", "large", "home"] = field(
        default="", metadata=doc("Port size.")
    )
    polygon: tuple[tuple[float, float], ...] = field(
        default=(), metadata=doc("Outline in board pixels, [[x, y], ...].")
    )
    zones: tuple[str, ...] = field(default=(), metadata=doc("Zones the area lies in."))
    owner: str = field(default="", metadata=doc("Nationality that owns the area."))
    tags: tuple[str, ...] = field(default=(), metadata=doc("Tags: resource, oil, jungle ..."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Town(Node):
    """A town of a point-to-point map, under a map's `towns:`, at a position on the board; roads
    join towns through the map's `links:`."""

    id: str = field(metadata=doc("Town id."))
    name: Text = field(metadata=doc("Town name."))
    pos: tuple[float, float] = field(metadata=doc("Position on the board in pixels, [x, y]."))
    zones: tuple[str, ...] = field(default=(), metadata=doc("Zones the town lies in."))
    tags: tuple[str, ...] = field(default=(), metadata=doc("Tags: city, supply-base ..."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Link(Node):
    """A road between towns, or an adjacency between areas, under a map's `links:`."""

    ends: tuple[str, str] = field(metadata=doc("The two places linked."))
    kind: str = field(default="", metadata=doc("Road class (major, minor) or link kind."))
    river: bool = field(default=False, metadata=doc("The link crosses a river."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Art(Node):
    """Board art for a map, under a map's `art:`: the image and where the grid sits on it."""

    image: str = field(
        metadata=doc("Board image path, relative to the game folder.", example="art/board.png")
    )
    origin: tuple[float, float] = field(
        default=(0.0, 0.0), metadata=doc("Grid origin, pixels.", example="[40, 32]")
    )
    scale: float = field(default=1.0, metadata=doc("Pixels per board unit.", example="1.5"))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameMap(Node):
    """One map under `maps:`: a hex grid with sheets, an area map, a point-to-point map, or `none`
    (a card table), with its zones and off-map boxes."""

    id: str = field(metadata=doc("Map id."))
    name: Text = field(metadata=doc("Map name."))
    kind: Literal["hex", "area", "point", "none"] = field(metadata=doc("Map kind."))
    title: str = field(default="", metadata=doc("Series title the map belongs to."))
    width: int = field(default=0, metadata=doc("Board width in pixels (area/point maps)."))
    height: int = field(default=0, metadata=doc("Board height in pixels (area/point maps)."))
    grid: HexGrid | None = field(default=None, metadata=doc("Hex grid (hex maps)."))
    areas: tuple[Area, ...] = field(default=(), metadata=doc("Areas (area maps)."))
    towns: tuple[Town, ...] = field(default=(), metadata=doc("Towns (point-to-point maps)."))
    links: tuple[Link, ...] = field(default=(), metadata=doc("Roads or adjacencies."))
    zones: tuple[Zone, ...] = field(default=(), metadata=doc("Named zones."))
    boxes: tuple[Box, ...] = field(default=(), metadata=doc("Off-map boxes."))
    art: Art | None = field(
        default=None,
        metadata=doc(
            "Board art with grid calibration.",
            example="{image: art/board.png, origin: [40, 32], scale: 1.5}",
        ),
    )
