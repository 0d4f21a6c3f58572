"""A VASSAL module (.vmod) read as data: its palette pieces with prototypes resolved, its
maps with their boards and grids, its decks and its predefined set-ups.

The build file is the one VASSAL itself would open (`buildFile` for modules last saved before
3.5 by their `moduledata`, else `buildFile.xml`, either when only one is there). Images are
looked at through their headers before anything decodes them.
"""

from __future__ import annotations

import io
import re
import struct
import warnings
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree
from PIL import Image

from compiler.importing.archive import Archive, ArchiveError
from compiler.importing.grids import BoardGrid, read_grid, tag_name
from compiler.importing.pieces import PieceError, Trait, split_traits
from compiler.sequence import TAB, split

MAX_PIXELS = 100_000_000
MAX_SIDE = 40_000
MAX_PROTOTYPE_DEPTH = 50
TRAIT_TITLES = {
    "calcProp": "Calculated Property", "label": "Text Label", "sendto": "Send To Location",
    "macro": "Trigger Action", "report": "Report Action", "restrict": "Restricted Access",
    "hide": "Invisible", "obs": "Mask", "footprint": "Movement Trail", "rotate": "Can Rotate",
    "placemark": "Place Marker", "replace": "Replace With Other", "globalkey": "Global Key Command",
    "setprop": "Set Global Property", "submenu": "Sub-Menu", "return": "Return to Deck",
    "markmoved": "Mark When Moved", "AreaOfEffect": "Area of Effect", "immob": "Does Not Stack",
    "emb": "Layer (old format)", "table": "Spreadsheet", "propertysheet": "Property Sheet",
    "translate": "Move Fixed Distance", "pivot": "Can Pivot", "nonRect2": "Non-rectangular",
    "button": "Action Button", "playSound": "Play Sound", "deselect": "Deselect",
    "setpieceprop": "Set Piece Property", "locmsg": "Location Message",
}  # fmt: skip
REPRESENTED = {"piece", "prototype", "mark", "PROP", "emb2", "delete", "clone", "obs"}
SIDE_KEYS = ("side", "nationality", "owner", "faction", "army", "player")
TYPE_KEYS = ("type", "unittype", "unit_type", "class", "kind")


@dataclass
class Slot:
    """A palette piece (or a deck's card) with its prototypes spliced in."""

    name: str
    gpid: str
    path: tuple[str, ...]
    traits: list[Trait]
    props: dict[str, str] = field(default_factory=dict)
    images: tuple[str, str] = ("", "")
    layer: str = ""

    @property
    def has_back(self) -> bool:
        return bool(self.images[1])


@dataclass
class Board:
    name: str
    image: str
    size: tuple[int, int]
    grid: BoardGrid | None
    offset: tuple[int, int] = (0, 0)


@dataclass
class Pile:
    name: str
    x: int
    y: int
    board: str
    cards: list[Slot]


@dataclass
class MapDef:
    name: str
    kind: str
    boards: list[Board]
    piles: list[Pile]
    edge: tuple[int, int] = (0, 0)
    side: str = ""
    """The side a PlayerHand belongs to."""


@dataclass
class Setup:
    name: str
    file: str


@dataclass(frozen=True, slots=True)
class Deal:
    """A starting hand a countermix module deals when a scenario starts (a Startup Global Key
    Command firing `countermix-deal-<side>` on `count` cards, filtered on the scenarios)."""

    side: str
    count: int
    scenarios: tuple[str, ...]
    deck: str
    """The name of the deck (DrawPile) the hand is dealt from."""


DEAL_KEY = "countermix-deal-"


@dataclass
class ModuleTree:
    name: str
    version: str
    description: str
    sides: list[str]
    slots: list[Slot]
    maps: list[MapDef]
    setups: list[Setup]
    unsupported: Counter[str] = field(default_factory=Counter)
    image_sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    deals: list[Deal] = field(default_factory=list)


def build_file_name(archive: Archive) -> str:
    """The build file VASSAL opens: by moduledata's VassalVersion when both are there."""
    has_new, has_old = archive.has("buildFile.xml"), archive.has("buildFile")
    if not has_new and not has_old:
        raise ArchiveError(f"{archive.path} is not a VASSAL module: it has no buildFile")
    if has_new != has_old:
        return "buildFile.xml" if has_new else "buildFile"
    version = ""
    if archive.has("moduledata"):
        version = (archive.xml("moduledata", 1024 * 1024).findtext("VassalVersion") or "").strip()
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:2]] + [3, 7]
    return "buildFile" if (parts[0], parts[1]) < (3, 5) else "buildFile.xml"


def read_module(archive: Archive) -> ModuleTree:
    root = archive.xml(build_file_name(archive))
    if tag_name(root) not in ("GameModule", "BasicModule"):
        raise ArchiveError(f"{archive.path}: the build file's root is not a VASSAL GameModule")
    tree = ModuleTree(
        (root.get("name") or "").strip(),
        root.get("version") or "",
        root.get("description") or "",
        _sides(root),
        [],
        [],
        _setups(root),
    )
    reader = _PieceReader(_prototypes(root), tree.unsupported, archive)
    for window in _all(root, "PieceWindow"):
        _palette(window, (), reader, tree.slots)
    for element in root.iter():
        if tag_name(element) in ("Map", "PrivateMap", "PlayerHand"):
            tree.maps.append(_map(element, reader, archive, tree))
    for name, size in reader.sizes.items():
        tree.image_sizes[name] = size
    tree.deals = _deals(root)
    return tree


def _deals(root: etree._Element) -> list[Deal]:
    """The starting-hand deals of a module countermix built (see Deal)."""
    deals = []
    for element in _all(root, "StartupGlobalKeyCommand"):
        _, _, side = (element.get("hotkey") or "").partition(DEAL_KEY)
        count = element.get("deckCount") or ""
        if side and count.isdigit():
            where = element.get("filter") or ""
            scenarios = tuple(re.findall(r'Scenario=="([^"]*)"', where))
            deck = next(iter(re.findall(r'DeckName=="([^"]*)"', where)), "")
            deals.append(Deal(side, int(count), scenarios, deck))
    return deals


def _all(root: etree._Element, name: str) -> list[etree._Element]:
    return [e for e in root.iter() if isinstance(e.tag, str) and tag_name(e) == name]


def _sides(root: etree._Element) -> list[str]:
    sides: list[str] = []
    for roster in _all(root, "PlayerRoster"):
        for entry in roster:
            text = (entry.text or "").strip() if entry.tag == "entry" else ""
            if text and text not in sides:
                sides.append(text)
    return sides


def _setups(root: etree._Element) -> list[Setup]:
    found = []
    for element in _all(root, "PredefinedSetup"):
        file = (element.get("file") or "").strip()
        if element.get("isMenu") != "true" and element.get("useFile") != "false" and file:
            found.append(Setup((element.get("name") or file).strip(), file))
    return found


def _prototypes(root: etree._Element) -> dict[str, str]:
    return {
        (e.get("name") or "").strip(): "".join(e.itertext()).strip()
        for e in _all(root, "PrototypeDefinition")
    }


def piece_text(text: str) -> tuple[str, str]:
    """Type and state of a slot's `+/null/type/state` text."""
    text = text.strip()
    if not text.startswith("+/"):
        raise PieceError("not an add-piece command")
    parts = split(text[2:], "/")
    if len(parts) < 2:
        raise PieceError("no piece type")
    return parts[1], "/".join(parts[2:]) if len(parts) > 2 else ""


class _PieceReader:
    def __init__(self, prototypes: dict[str, str], unsupported: Counter[str], archive: Archive):
        self.prototypes = prototypes
        self.unsupported = unsupported
        self.archive = archive
        self.sizes: dict[str, tuple[int, int]] = {}

    def expand(self, traits: list[Trait], stack: tuple[str, ...] = ()) -> list[Trait]:
        out: list[Trait] = []
        for trait in traits[:-1] if stack else traits:
            if trait.kind != "prototype":
                out.append(trait)
                continue
            name = trait.at(0)
            if name in stack or len(stack) >= MAX_PROTOTYPE_DEPTH:
                chain = " → ".join((*stack, name))
                raise ArchiveError(f"prototypes refer to each other in a cycle ({chain})")
            text = self.prototypes.get(name)
            if text is None:
                self.unsupported[f"prototype `{name}` is not in the module (an extension's?)"] += 1
                continue
            try:
                inner = split_traits(*piece_text(text))
            except PieceError:
                self.unsupported[f"prototype `{name}` cannot be read"] += 1
                continue
            out.extend(self.expand(inner, (*stack, name)))
        return out

    def slot(self, text: str, entry: str, gpid: str, path: tuple[str, ...]) -> Slot | None:
        try:
            traits = self.expand(split_traits(*piece_text(text)))
        except PieceError:
            self.unsupported[f"piece `{entry}` cannot be read"] += 1
            return None
        basic = traits[-1]
        slot = Slot(basic.at(3) or entry, gpid, path, traits)
        layers: list[Trait] = []
        for trait in traits[:-1]:
            if trait.kind == "mark":
                keys = split(trait.at(0), ",")
                values = split(trait.state, ",") if trait.state else []
                for index, key in enumerate(keys):
                    slot.props.setdefault(key, values[index] if index < len(values) else "")
            elif trait.kind == "PROP":
                slot.props.setdefault(trait.at(0), trait.state)
            elif trait.kind == "emb2":
                layers.append(trait)
            if trait.kind not in REPRESENTED:
                title = TRAIT_TITLES.get(trait.kind, trait.kind)
                self.unsupported[f"trait `{trait.kind}` ({title})"] += 1
        front, back = basic.at(2), ""
        layer = _face_layer(layers)
        if layer is not None:
            images = split(layer.at(15), ",")
            front = images[0] if images and images[0] else front
            back = images[1] if len(images) > 1 else ""
            slot.layer = layer.at(18)
            if len(layers) > 1:
                self.unsupported["more than one Layer on a piece (the first face layer kept)"] += 1
        slot.images = (self.image(front), self.image(back))
        return slot

    def image(self, name: str) -> str:
        """`name` when the archive holds a safe image of that name, else ""."""
        if not name:
            return ""
        if name not in self.sizes:
            size = image_size(self.archive, name)
            if size is None:
                self.unsupported[f"image `{name}` is not in the module (an extension's?)"] += 1
                return ""
            self.sizes[name] = size
        return name


def image_size(archive: Archive, name: str) -> tuple[int, int] | None:
    """The size an image's header declares; ArchiveError for a decompression bomb."""
    entry = f"images/{name}"
    if not archive.has(entry):
        return None
    if name.lower().endswith(".svg"):
        return (0, 0)  # drawn by VASSAL's SVG renderer; no pixels to bomb
    data = archive.read(entry)
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        _check_pixels(archive, name, *struct.unpack(">II", data[16:24]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
        except Image.DecompressionBombError as err:
            raise ArchiveError(f"{archive.path}: image `{name}` is a decompression bomb") from err
        except (OSError, ValueError, SyntaxError):
            return None
    _check_pixels(archive, name, width, height)
    return width, height


def _check_pixels(archive: Archive, name: str, width: int, height: int) -> None:
    if width * height > MAX_PIXELS or max(width, height) > MAX_SIDE:
        raise ArchiveError(
            f"{archive.path}: image `{name}` declares {width}×{height} pixels, "
            "too large for a board or piece (a decompression bomb?): refused"
        )


def _face_layer(layers: list[Trait]) -> Trait | None:
    for word in ("face", "flip", "side", "step"):
        for trait in layers:
            if word in trait.at(18).lower():
                return trait
    two = [t for t in layers if len(split(t.at(15), ",")) == 2]
    return two[0] if two else (layers[0] if layers else None)


def _palette(
    element: etree._Element, path: tuple[str, ...], reader: _PieceReader, out: list[Slot]
) -> None:
    for child in element:
        if not isinstance(child.tag, str):
            continue
        kind = tag_name(child)
        if kind in ("PieceSlot", "CardSlot"):
            entry = (child.get("entryName") or "").strip()
            slot = reader.slot("".join(child.itertext()), entry, child.get("gpid") or "", path)
            if slot is not None:
                out.append(slot)
        else:
            label = (child.get("entryName") or child.get("name") or "").strip()
            _palette(child, (*path, label) if label else path, reader, out)


def _map(
    element: etree._Element, reader: _PieceReader, archive: Archive, tree: ModuleTree
) -> MapDef:
    name = (element.get("mapName") or "").strip()
    kind = tag_name(element)
    edge = (int(_num(element.get("edgeWidth"))), int(_num(element.get("edgeHeight"))))
    boards: list[Board] = []
    setup_text = ""
    for picker in (c for c in element if tag_name(c) == "BoardPicker"):
        for child in picker:
            if child.tag == "setup":
                setup_text = (child.text or "").strip()
            elif isinstance(child.tag, str) and tag_name(child) == "Board":
                boards.append(_board(child, reader, archive))
    piles = []
    for pile in (c for c in element if isinstance(c.tag, str) and tag_name(c) == "DrawPile"):
        cards = [
            s
            for c in pile
            if isinstance(c.tag, str) and tag_name(c) in ("CardSlot", "PieceSlot")
            and (s := reader.slot("".join(c.itertext()), c.get("entryName") or "",
                                  c.get("gpid") or "", (pile.get("name") or "",))) is not None
        ]  # fmt: skip
        piles.append(
            Pile((pile.get("name") or "").strip(), int(_num(pile.get("x"))),
                 int(_num(pile.get("y"))), pile.get("owningBoard") or "", cards)
        )  # fmt: skip
    if any(tag_name(c) == "SetupStack" for c in element if isinstance(c.tag, str)):
        tree.unsupported[f"at-start stacks on map `{name}` (set-ups come from saves)"] += 1
    result = MapDef(name, kind, boards, piles, edge, (element.get("side") or "").strip())
    place_boards(result, setup_text)
    return result


def place_boards(game_map: MapDef, setup_text: str) -> None:
    """Board positions in map pixels from a `<map>BoardPicker⇥board⇥col⇥row…` line (the
    BoardPicker's <setup>, or a save's): columns as wide as their widest board."""
    chosen: list[tuple[Board, int, int]] = []
    fields = split(setup_text, TAB) if setup_text else []
    named = {b.name: b for b in game_map.boards}
    for index in range(1, len(fields) - 2, 3):
        board = named.get(fields[index].removesuffix("/rev"))
        if board is not None:
            chosen.append((board, int(_num(fields[index + 1])), int(_num(fields[index + 2]))))
    if not chosen:
        chosen = [(b, i, 0) for i, b in enumerate(game_map.boards)]
    widths: dict[int, int] = {}
    heights: dict[int, int] = {}
    for board, col, row in chosen:
        widths[col] = max(widths.get(col, 0), board.size[0])
        heights[row] = max(heights.get(row, 0), board.size[1])
    used = []
    for board, col, row in chosen:
        x = game_map.edge[0] + sum(w for c, w in widths.items() if c < col)
        y = game_map.edge[1] + sum(h for r, h in heights.items() if r < row)
        board.offset = (x, y)
        used.append(board)
    game_map.boards = used


def _board(element: etree._Element, reader: _PieceReader, archive: Archive) -> Board:
    image = reader.image((element.get("image") or "").strip())
    size = reader.sizes.get(image) if image else None
    if size is None:
        size = (int(_num(element.get("width"), 400)), int(_num(element.get("height"), 300)))
    grid = None
    for child in element:
        if isinstance(child.tag, str):
            grid = read_grid(child, size) or grid
    return Board((element.get("name") or "").strip(), image, size, grid)


def _num(text: str | None, default: float = 0) -> float:
    try:
        return float(text) if text else default
    except ValueError:
        return default
