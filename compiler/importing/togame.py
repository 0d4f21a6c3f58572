"""A read module (compiler.importing.module) turned into countermix game data: YAML-ready
records for the game, units, markers, maps, decks and cards, and the art files (convert);
then, once that game is written and loaded, one scenario per predefined set-up, read by
import-save's reader (scenario_files). What the format cannot hold is counted in
`unsupported`."""

from __future__ import annotations

import hashlib
import io
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from compiler.backends.vassal.buildfile import REINFORCEMENTS_MAP, zone_turn
from compiler.backends.vassal.geometry import (
    BOX_GAP,
    MARGIN,
    GeometryError,
    box_strip,
    layout_map,
)
from compiler.importing.archive import Archive
from compiler.importing.grids import (
    MAX_CELLS,
    BoardGrid,
    HexGrid,
    Numbering,
    RegionGrid,
    Zone,
    ZonedGrid,
)
from compiler.importing.module import (
    SIDE_KEYS,
    TYPE_KEYS,
    Board,
    Deal,
    MapDef,
    ModuleTree,
    Pile,
    Slot,
    place_boards,
)
from compiler.importing.saves import (
    MAX_SAVED_GAME_BYTES,
    SaveContents,
    SavedPiece,
    save_contents,
)
from compiler.importing.scenario import Locate, Palette, carried, scenario_from_save
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.maps import Art, GameMap, Sheet
from compiler.model.maps import HexGrid as ModelHexGrid
from compiler.sequence import TAB

Point = tuple[int, int]

_SLUG = re.compile(r"[^a-z0-9]+")
PLAIN_ID = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
OWN_PROPS = ("UnitId", "MarkerId", "CardId")
OWN_KEYS = ("unitid", "markerid", "cardid", "countermix")
"""Properties countermix's own modules carry for import-save; ids, not values."""
DERIVED = ("formation", "category", "size", "steps", "title", "nationality", "leader")
"""Properties a countermix-built module derives from a unit's fields, not its values."""
NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]+)?\Z")
CONTENT_NAME = re.compile(r"[a-z]+-([0-9a-f]{16})\.(png|svg)\Z")
"""An image name countermix's module writer makes from the image's bytes (ImageStore)."""


def art_file_name(image: str, data: bytes) -> str:
    """The art file name of a module image: a name countermix made from the image's bytes
    (`unit-<sha1>.svg`) loses its prefix, which says only what drew the image, and becomes
    `art-<sha1>.svg`, the name a rebuilt module gives the same bytes from the data's art."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", image.rsplit("/", 1)[-1]).lstrip(".") or "x"
    made = CONTENT_NAME.match(base)
    if made is not None and hashlib.sha1(data).hexdigest().startswith(made.group(1)):
        return f"art-{made.group(1)}.{made.group(2)}"
    return base


def slug(text: str, fallback: str = "x") -> str:
    return _SLUG.sub("-", text.lower()).strip("-") or fallback


def id_of(text: str, fallback: str = "x") -> str:
    """`text` when it is already an id (countermix's own, read back), else its slug."""
    return text if PLAIN_ID.match(text) else slug(text, fallback)


class Ids:
    """Unique ids from names."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, text: str, fallback: str = "x") -> str:
        base = id_of(text, fallback)
        ident, n = base, 2
        while ident in self.used:
            ident, n = f"{base}-{n}", n + 1
        self.used.add(ident)
        return ident


@dataclass
class MapOut:
    """A countermix map and how the module's names of its points became its locations."""

    source: MapDef
    data: dict[str, Any]
    locations: set[str] = field(default_factory=set)


@dataclass
class GameOut:
    files: dict[str, Any] = field(default_factory=dict)
    art: dict[str, bytes] = field(default_factory=dict)
    unsupported: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)
    setups: list[SetupIn] = field(default_factory=list)
    """The set-ups, made scenarios of the written game by scenario_files."""
    deals: list[Deal] = field(default_factory=list)
    palette: Palette | None = None
    locator: Callable[[SetupIn], Locate] | None = None


class Converter:
    def __init__(self, tree: ModuleTree, archive: Archive, game_id: str) -> None:
        self.tree, self.archive, self.game_id = tree, archive, game_id
        self.out = GameOut(unsupported=Counter(tree.unsupported), deals=list(tree.deals))
        self.side_ids: dict[str, str] = {}
        self.values: dict[str, dict[str, Any]] = {}
        self.types: dict[str, str] = {}
        self.art_names: dict[str, str] = {}
        self.slot_ids: dict[int, str] = {}
        self.unit_copies: dict[str, list[str]] = {}
        self.card_ids: dict[str, str] = {}
        self.blocks: set[str] = set()
        """Unit types of countermix's blocks (turned a quarter a step)."""
        cards = [c for m in tree.maps for p in m.piles for c in p.cards]
        self.built = any(k in s.props for s in [*tree.slots, *cards] for k in OWN_PROPS)
        """Built by countermix: its boards are laid out by compiler.backends.vassal.geometry."""
        self.holding: MapDef | None = None
        self.card_gpids = {c.gpid for c in cards if c.gpid}
        self.locations: set[str] = set()
        """countermix's Reinforcements map, read for the scenarios' reinforcements."""

    # -- sides, units, markers ------------------------------------------------------------
    def side_of(self, slot: Slot) -> str:
        for key, value in slot.props.items():
            if key.lower() in SIDE_KEYS and value.strip():
                return self.side(value.strip())
        for label in reversed(slot.path):
            for name in self.tree.sides:
                if label.strip().lower() == name.lower():
                    return self.side(name)
        return ""

    def side(self, name: str) -> str:
        if name not in self.side_ids:
            self.side_ids[name] = slug(name, "side")
        return self.side_ids[name]

    def art(self, image: str) -> str:
        """The art file of a module image (written once however often it is used)."""
        if not image:
            return ""
        if image not in self.art_names:
            data = self.archive.read(f"images/{image}")
            self.art_names[image] = self.add_art(art_file_name(image, data), data)
        return self.art_names[image]

    def add_art(self, base: str, data: bytes) -> str:
        name, n = f"art/{base}", 2
        while name in self.out.art and self.out.art[name] != data:
            name, n = f"art/{n}-{base}", n + 1
        self.out.art[name] = data
        return name

    def piece_art(self, slot: Slot) -> dict[str, str]:
        art = {"front": self.art(slot.images[0])}
        if slot.images[1]:
            art["back"] = self.art(slot.images[1])
        return {k: v for k, v in art.items() if v}

    def values_of(self, slot: Slot) -> dict[str, Any]:
        front: dict[str, Any] = {}
        ours = "UnitId" in slot.props or "MarkerId" in slot.props
        for key, raw in slot.props.items():
            low = key.lower()
            if ours and low in DERIVED:
                continue
            if low in SIDE_KEYS or low in TYPE_KEYS or low in OWN_KEYS or not raw.strip():
                continue
            ident = slug(key, "value")
            value: Any = raw.strip()
            if NUMBER.match(value):
                value = float(value) if "." in value else int(value)
            definition = self.values.setdefault(ident, {"id": ident, "name": key, "kind": "number"})
            if isinstance(value, str):
                definition["kind"] = "text"
            front[ident] = value
        return front

    def own_shape(self, slot: Slot, unit: dict[str, Any]) -> dict[str, Any]:
        """What a piece of countermix's own module says of its unit beyond values: its full
        steps (the `Steps` property) and that it is a block (a Can Rotate trait), whose
        strength is `cv` when the set-ups carry that state (pieces.block_traits)."""
        if "UnitId" not in slot.props:
            return {}
        extra: dict[str, Any] = {}
        steps = slot.props.get("Steps", "")
        if steps.isdigit() and int(steps) > 1:
            extra["steps"] = int(steps)
        if any(t.kind == "rotate" for t in slot.traits):
            self.blocks.add(unit["type"])
            front = dict(unit.get("front") or {})
            if "strength" in front and "cv" in self.values:
                front["cv"] = front.pop("strength")
                extra["front"] = front
        return extra

    def type_of(self, slot: Slot) -> str:
        for key, value in slot.props.items():
            if key.lower() in TYPE_KEYS and value.strip():
                ident = id_of(value.strip(), "unit")
                self.types.setdefault(ident, value.strip())
                return ident
        self.types.setdefault("unit", "Unit")
        return "unit"

    def pieces(self, copies: Counter[int]) -> None:
        ids = Ids()
        units: list[dict[str, Any]] = []
        markers: list[dict[str, Any]] = []
        for index, slot in enumerate(self.tree.slots):
            side = self.side_of(slot)
            own = slot.props.get("UnitId") or slot.props.get("MarkerId") or ""
            base = ids.make(own or slot.name, "piece")
            self.slot_ids[index] = base
            if not side:
                marker: dict[str, Any] = {"id": base, "name": slot.name}
                if art := self.piece_art(slot):
                    marker["art"] = art
                markers.append(marker)
                continue
            # countermix's own units keep their ids: copies of one lie under its UnitId
            ours = "UnitId" in slot.props
            for copy in range(1 if ours else max(1, copies[index])):
                unit: dict[str, Any] = {
                    "id": base if copy == 0 else f"{base}--{copy + 1}",
                    "name": slot.name,
                    "side": side,
                    "type": self.type_of(slot),
                }
                if copy:
                    ids.used.add(unit["id"])
                self.unit_copies.setdefault(base, []).append(unit["id"])
                if front := self.values_of(slot):
                    unit["front"] = front
                unit.update(self.own_shape(slot, unit))
                if ours and copies[index] > 1:
                    unit["copies"] = copies[index]
                if art := self.piece_art(slot):
                    unit["art"] = art
                units.append(unit)
        self.out.counts.update(units=len(units), markers=len(markers))
        self.out.files["units.yaml"] = {
            "unit_types": [
                {"id": k, "name": v, **({"shape": "block"} if k in self.blocks else {})}
                for k, v in self.types.items()
            ]
            or None,
            "units": units or None,
            "markers": markers or None,
        }

    # -- maps --------------------------------------------------------------------------------
    def maps(self) -> list[MapOut]:
        """Every map of the module but the turn boxes of countermix's own Reinforcements map,
        which become the scenarios' reinforcements."""
        ids = Ids()
        outs = []
        hands: list[MapDef] = []
        for source in self.tree.maps:
            if self.built and is_turn_boxes(source):
                self.holding = source
            elif self.built and source.kind == "PlayerHand" and source.side:
                hands.append(source)
            else:
                if source.kind != "Map":
                    self.out.unsupported[f"{source.kind} `{source.name}` (an ordinary map)"] += 1
                outs.append(self.game_map(source, ids.make(source.name, "map")))
        for hand in hands:
            self.hand_box(hand, outs)
        self.out.counts.update(maps=len(outs))
        return outs

    def hand_box(self, hand: MapDef, maps: list[MapOut]) -> None:
        """countermix makes a side's hand (a PlayerHand) from a `hand` box of its card table:
        the box named like the hand becomes that box again."""
        name = id_of(hand.name)
        boxes = [b for m in maps if m.data["kind"] == "none" for b in m.data.get("boxes") or []]
        box = next((b for b in boxes if b["id"] == name), None)
        if box is None:
            self.out.unsupported[f"PlayerHand `{hand.name}` (no box of its card table)"] += 1
            return
        box["kind"], box["side"] = "hand", self.side(hand.side)

    def game_map(self, source: MapDef, ident: str) -> MapOut:
        data: dict[str, Any] = {"id": ident, "name": source.name or ident}
        strip = built_strip(source) if self.built else None
        places = Places()
        for board in source.boards:
            offset = (board.offset[0] - source.edge[0], board.offset[1] - source.edge[1])
            self.board_places(board, offset, places, strip)
        data.update(places.data())
        width, height = self.board_art(source, data, places.origin, strip)
        if data["kind"] in ("area", "point"):
            data["width"], data["height"] = width, height
        elif data["kind"] == "none" and "art" not in data:
            data["width"] = width
        return MapOut(source, data, places.names())

    def board_places(
        self,
        board: Board,
        offset: Point,
        places: Places,
        strip: Strip | None,
    ) -> None:
        """The locations one board adds to its map."""
        grid = board.grid
        if grid is None:
            self.out.unsupported[f"board `{board.name}` has no grid (no locations)"] += 1
            return
        if places.grid is None:
            blocks = hex_blocks(grid, strip, self.out.unsupported if not self.built else None)
            hexes = hex_grid_data(blocks, offset) if blocks else None
            if hexes is not None:
                places.grid, places.origin, cells = hexes
                places.hexes.update(cells)
                if not isinstance(grid, ZonedGrid):
                    return
                used = [b.zone for b in blocks]
                grid = ZonedGrid([z for z in grid.zones if all(z is not u for u in used)],
                                 grid.background)  # fmt: skip
        if isinstance(grid, ZonedGrid):
            self.zone_places(grid, offset, places, strip)
        else:
            if not isinstance(grid, RegionGrid):
                kind = type(grid).__name__
                self.out.unsupported[
                    f"{kind} numbering on board `{board.name}` (kept as named points)"
                ] += 1
            for name, point in grid.cells():
                places.add_town(name, point, offset)

    @staticmethod
    def zone_places(grid: ZonedGrid, offset: Point, places: Places, strip: Strip | None) -> None:
        """A ZonedGrid's zones: the boxes of countermix's strip, outlines as areas, the points
        of grids inside zones (and of the grid around them) as towns."""
        for zone in grid.zones:
            inner = grid.background if zone.use_parent else zone.grid
            if strip is not None and zone.name in strip.boxes:
                places.boxes.append({"id": zone.name, "name": zone.name})
            elif inner is None:
                polygon = [[x + offset[0], y + offset[1]] for x, y in zone.polygon]
                places.areas.append({"id": zone.label(None), "name": zone.name, "polygon": polygon})
            else:
                for name, point in inner.cells():
                    if zone.contains(*point):
                        places.add_town(zone.label(name), point, offset)
        if grid.background is not None:
            for name, point in grid.background.cells():
                if not any(z.contains(*point) for z in grid.zones):
                    places.add_town(name, point, offset)

    def board_art(
        self, source: MapDef, data: dict[str, Any], origin: list[int], strip: Strip | None
    ) -> tuple[int, int]:
        """The map's art (its boards joined, above countermix's box strip) and its size."""
        boards = source.boards
        if not boards:
            return 600, 400
        right = max(b.offset[0] + b.size[0] for b in boards) - source.edge[0]
        bottom = max(b.offset[1] + b.size[1] for b in boards) - source.edge[1]
        if strip is not None:
            bottom = strip.top
        with_image = [b for b in boards if b.image]
        if not with_image or bottom <= 0:
            return right, bottom
        if len(boards) == 1 and boards[0].offset == source.edge and strip is None:
            name = self.art(boards[0].image)
        else:
            canvas = Image.new("RGB", (right, bottom), (255, 255, 255))
            for board in with_image:
                data_bytes = self.archive.read(f"images/{board.image}")
                with Image.open(io.BytesIO(data_bytes)) as picture:
                    canvas.paste(
                        picture.convert("RGB"),
                        (board.offset[0] - source.edge[0], board.offset[1] - source.edge[1]),
                    )
            buffer = io.BytesIO()
            canvas.save(buffer, "PNG")
            name = self.add_art(f"board-{data['id']}.png", buffer.getvalue())
            if len(boards) > 1:
                joined = f"map `{source.name}`: {len(boards)} boards joined into one"
                self.out.unsupported[joined] += 1
        data["art"] = {"image": name, "origin": origin, "scale": 1.0}
        return right, bottom

    # -- decks -------------------------------------------------------------------------------
    def decks(self, maps: list[MapOut]) -> None:
        deck_ids = Ids()
        card_ids = Ids()
        decks: list[dict[str, Any]] = []
        cards: list[dict[str, Any]] = []
        for out in maps:
            for pile in out.source.piles:
                box = self.pile_box(out, pile)
                if not pile.cards:
                    continue
                ident = deck_ids.make(box["id"] if box else pile.name, "deck")
                deck: dict[str, Any] = {"id": ident, "name": pile.name}
                if any(deal.deck == pile.name for deal in self.tree.deals):
                    deck["hand"] = True  # the module deals starting hands from it
                backs = [t.at(1) for c in pile.cards for t in c.traits if t.kind == "obs"]
                if backs and backs[0] and (back := self.art(self._image(backs[0]))):
                    deck["art"] = {"back": back}
                decks.append(deck)
                for card in pile.cards:
                    record: dict[str, Any] = {"id": card_ids.make(card.name, "card"),
                                              "deck": ident, "name": card.name}  # fmt: skip
                    if card.gpid:
                        self.card_ids.setdefault(card.gpid, record["id"])
                    if front := self.art(card.images[0]):
                        record["art"] = {"front": front}
                    cards.append(record)
                if out.data["kind"] != "none":
                    self.out.unsupported[
                        f"deck `{pile.name}` on map `{out.source.name}` with a grid "
                        "(countermix puts decks on card tables)"
                    ] += 1
                if box is None:
                    boxes = out.data.get("boxes") or []
                    out.data["boxes"] = [*boxes, {"id": ident, "name": pile.name, "kind": "pile"}]
        self.out.counts.update(decks=len(decks), cards=len(cards))
        if decks:
            self.out.files["cards.yaml"] = {"decks": decks, "cards": cards}

    def pile_box(self, out: MapOut, pile: Pile) -> dict[str, Any] | None:
        """The box of countermix's strip a deck lies in (made a pile box), if any."""
        board = next((b for b in out.source.boards if b.name == pile.board), None)
        dx, dy = board.offset if board is not None else (0, 0)
        where = self.locate(out, pile.x + dx, pile.y + dy)
        box = next((b for b in out.data.get("boxes") or [] if b["id"] == where), None)
        if box is not None:
            box["kind"] = "pile"
        return box

    def _image(self, name: str) -> str:
        return name if self.archive.has(f"images/{name}") else ""

    # -- scenarios ---------------------------------------------------------------------------
    def read_setups(self) -> list[SetupIn]:
        """Every predefined set-up's save, read; its scenario is made once the game stands
        (scenario_files)."""
        read = []
        ids = Ids()
        for setup in self.tree.setups:
            if not self.archive.has(setup.file):
                self.out.unsupported[f"set-up `{setup.name}`: file `{setup.file}` is missing"] += 1
                continue
            where = f"{self.archive.path}: `{setup.file}`"
            data = self.archive.read(setup.file, MAX_SAVED_GAME_BYTES)
            with Archive.from_bytes(data, where) as save:
                contents = save_contents(save, self.archive.path, where)
            stem = setup.file.rsplit("/", 1)[-1].removesuffix(".vsav")
            ident = ids.make(stem if self.built and PLAIN_ID.match(stem) else setup.name,
                             "scenario")  # fmt: skip
            read.append(SetupIn(setup.name, ident, contents))
        return read

    def slot_for(self, gpid: str, name: str) -> int | None:
        slots = self.tree.slots
        for index, slot in enumerate(slots):
            if gpid and slot.gpid == gpid:
                return index
        for index, slot in enumerate(slots):
            if slot.name == name:
                return index
        return None

    def survey(self, setups: list[SetupIn]) -> Counter[int]:
        """How many copies of each palette piece the busiest set-up uses (each copy becomes
        a unit of its own), and the values the set-ups' pieces carry as state (declared)."""
        copies: Counter[int] = Counter()
        for setup in setups:
            used: Counter[int] = Counter()
            for saved in setup.save.pieces:
                if saved.deck or saved.piece.gpid in self.card_gpids:
                    continue
                for key, value in (carried(saved.piece.props).get("state") or {}).items():
                    self.declare(str(key), value)
                index = self.slot_for(saved.piece.gpid, saved.piece.name)
                if index is not None:
                    used[index] += 1
                if saved.piece.rotation and not self.built:
                    self.out.unsupported["rotated pieces in set-ups (rotation dropped)"] += 1
            for index, count in used.items():
                copies[index] = max(copies[index], count)
        return copies

    def declare(self, key: str, value: Any) -> None:
        """The state value `key` declared in the game (a number unless some value is not)."""
        definition = self.values.setdefault(key, {"id": key, "name": key, "kind": "number"})
        if isinstance(value, str | bool):
            definition["kind"] = "text"

    def palette(self) -> Palette:
        """The pieces of the palette by gpid and name, each to its copies' keys (scenario.Palette);
        cards by gpid, so that a card off its deck is said to be one."""
        by_gpid: dict[str, tuple[str, ...]] = {}
        by_name: dict[str, tuple[str, ...]] = {}
        for index, slot in enumerate(self.tree.slots):
            base = self.slot_ids[index]
            if self.side_of(slot):
                keys = tuple(f"unit:{u}" for u in self.unit_copies[base])
            else:
                keys = (f"marker:{base}",)
            if slot.gpid:
                by_gpid.setdefault(slot.gpid, keys)
            by_name.setdefault(slot.name, keys)
        for gpid, card in self.card_ids.items():
            by_gpid.setdefault(gpid, (f"card:{card}:0",))
        return Palette(by_gpid, by_name)

    def locator(self, maps: list[MapOut]) -> Callable[[SetupIn], Locate]:
        """Where a set-up's pieces lie, by the module's own grids and the boards as the set-up
        places them: a location of an imported map, or a turn box of countermix's
        Reinforcements map (its reinforcements)."""
        by_name = {m.source.name: m for m in maps}

        def for_setup(setup: SetupIn) -> Locate:
            place_saved_boards(setup.save.boards, by_name)
            return lambda saved: self.where(saved, by_name)

        return for_setup

    def where(self, saved: SavedPiece, by_name: dict[str, MapOut]) -> tuple[str, str] | None:
        if self.holding is not None and saved.map == self.holding.name:
            board = self.holding.boards[0]
            x, y = saved.x - board.offset[0], saved.y - board.offset[1]
            box = board.grid.name(x, y) if board.grid else None
            return (REINFORCEMENTS_MAP, box) if box and zone_turn(box) is not None else None
        out = by_name.get(saved.map)
        where = self.locate(out, saved.x, saved.y)
        return (str(out.data["id"]), where) if out is not None and where is not None else None

    def locate(self, out: MapOut | None, x: int, y: int) -> str | None:
        if out is None:
            return None
        for board in out.source.boards:
            bx, by = x - board.offset[0], y - board.offset[1]
            if 0 <= bx < board.size[0] and 0 <= by < board.size[1] and board.grid is not None:
                name = board.grid.name(bx, by)
                if name is not None and name in out.locations:
                    return name
                return None
        if out.data["kind"] == "none" and out.data.get("boxes"):
            return str(out.data["boxes"][0]["id"])
        return None


FINDING_LINES = {
    "import-unknown-piece": "piece not in the palette",
    "import-off-location": "piece on no location",
    "import-no-entry": "a piece on the Reinforcements map with no entry location",
    "import-card": "a card outside its deck",
}


def scenario_files(out: GameOut, game: GameData) -> None:
    """Each set-up read back into a scenario of the imported `game` by import-save's reader
    (compiler.importing.scenario): the same rules decide location, face, steps, a block's
    strength, carried state, reinforcements and markers as state. What it cannot read back
    is counted in `unsupported` and left out of the scenario."""
    for setup in out.setups:
        assert out.palette is not None and out.locator is not None
        imported = scenario_from_save(
            game,
            {},
            setup.save,
            setup.ident,
            None,
            palette=out.palette,
            locate=out.locator(setup),
        )
        for finding in imported.findings:
            what = FINDING_LINES.get(finding.rule, finding.message)
            out.unsupported[f"set-up `{setup.name}`: {what}"] += 1
        data = {k: (setup.name if k == "name" else v) for k, v in imported.data.items()}
        _dealt_hands(data, out.deals, setup.ident)
        out.files[f"scenarios/{setup.ident}.yaml"] = {"scenarios": [data]}
        out.counts["scenarios"] += 1
        out.counts["placed"] += imported.placed
        out.counts["arriving"] += imported.arriving


def _dealt_hands(data: dict[str, Any], deals: list[Deal], scenario_id: str) -> None:
    """A countermix module deals the starting hands when the scenario starts, so its save has
    none: each side's `hand:` comes from the module's deal for that scenario."""
    dealt = {d.side: d.count for d in deals if scenario_id in d.scenarios}
    if not dealt or "decks" not in data:
        return
    # the sides dealt a hand are the sides that play the scenario
    data["decks"] = [p for p in data["decks"] if p.get("side") in dealt]
    for player in data["decks"]:
        player["hand"] = dealt[player["side"]]


def place_saved_boards(board_lines: list[str], by_name: dict[str, MapOut]) -> None:
    """Board positions from a save's BoardPicker lines (they may differ from the module's)."""
    for line in board_lines:
        target = by_name.get(line.split(TAB, 1)[0].removesuffix("BoardPicker"))
        if target is not None:
            place_boards(target.source, line)


@dataclass(frozen=True, slots=True)
class SetupIn:
    """A predefined set-up: its name, the id of its scenario and its save."""

    name: str
    ident: str
    save: SaveContents


@dataclass
class Places:
    """The locations a map's boards name, in map pixels: a hex grid, areas, towns, boxes."""

    grid: dict[str, Any] | None = None
    origin: list[int] = field(default_factory=lambda: [0, 0])
    hexes: set[str] = field(default_factory=set)
    towns: dict[str, Point] = field(default_factory=dict)
    areas: list[dict[str, Any]] = field(default_factory=list)
    boxes: list[dict[str, Any]] = field(default_factory=list)

    def add_town(self, name: str, point: Point, offset: Point) -> None:
        if name not in self.towns and name not in self.hexes:
            self.towns[name] = (point[0] + offset[0], point[1] + offset[1])

    def names(self) -> set[str]:
        return (
            self.hexes
            | set(self.towns)
            | {str(a["id"]) for a in self.areas}
            | {str(b["id"]) for b in self.boxes}
        )

    def data(self) -> dict[str, Any]:
        """The map record's fields for these places (None: left out)."""
        kind = "hex" if self.grid else "area" if self.areas else "point" if self.towns else "none"
        towns = [{"id": t, "name": t, "pos": list(p)} for t, p in self.towns.items()]
        return {
            "kind": kind,
            "grid": self.grid,
            "areas": self.areas or None,
            "towns": towns or None,
            "boxes": self.boxes or None,
        }


@dataclass(frozen=True, slots=True)
class Strip:
    """countermix's strip of boxes below a board's content (geometry.box_strip): where the
    content ends and the names of the box zones."""

    top: int
    boxes: frozenset[str]


def built_strip(source: MapDef) -> Strip | None:
    """The box strip of a board countermix laid out, when the board's last zones are exactly
    the boxes `box_strip` lays out below some height of the board (none: the bare margin).
    Its art is cropped there and the boxes stay boxes, so that the rebuilt board, which adds
    the strip again, has the same size and the boxes the same places."""
    grid = source.boards[0].grid if len(source.boards) == 1 else None
    if not isinstance(grid, ZonedGrid):
        return None
    width, height = source.boards[0].size
    zones = grid.zones
    tail = 0
    while tail < len(zones) and zones[-1 - tail].grid is None and not zones[-1 - tail].use_parent:
        tail += 1
    for count in range(tail, -1, -1):
        boxes = zones[len(zones) - count :]
        top = min(z.polygon[0][1] for z in boxes) - BOX_GAP if boxes else height - MARGIN
        laid, bottom = box_strip([(z.name, z.name) for z in boxes], top, width)
        if bottom == height and all(
            z.polygon == _rectangle(b.rect) for z, b in zip(boxes, laid, strict=True)
        ):
            return Strip(top, frozenset(z.name for z in boxes))
    return None


def _rectangle(rect: tuple[int, int, int, int]) -> tuple[Point, ...]:
    x0, y0, x1, y1 = rect
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def is_turn_boxes(source: MapDef) -> bool:
    """countermix's Reinforcements map: one board of nothing but `Turn N` boxes."""
    if source.name != REINFORCEMENTS_MAP or len(source.boards) != 1:
        return False
    grid = source.boards[0].grid
    return isinstance(grid, ZonedGrid) and all(
        zone_turn(z.name) is not None and z.grid is None for z in grid.zones
    )


@dataclass(frozen=True, slots=True)
class HexBlockIn:
    """A rectangle of hexes of a module's hex grid: raw columns and rows, the text around
    VASSAL's column-and-row name, and every hex's name and centre (board pixels)."""

    grid: HexGrid
    numbering: Numbering
    cols: range
    rows: range
    prefix: str
    suffix: str
    cells: dict[str, Point]
    zone: Zone | None = None


def hex_blocks(
    grid: BoardGrid, strip: Strip | None, unsupported: Counter[str] | None
) -> list[HexBlockIn]:
    """The hex blocks of a board a countermix hex grid can hold: the board's own grid, or
    every zone with a hex grid of its own (countermix writes a zone per sheet); [] when
    one of them cannot be held (a ragged zone's edge hexes are counted in `unsupported`)."""
    if isinstance(grid, HexGrid):
        block = _board_block(grid)
        return [block] if block is not None else []
    if not isinstance(grid, ZonedGrid):
        return []
    blocks = []
    for zone in grid.zones:
        if zone.use_parent or zone.grid is None or (strip and zone.name in strip.boxes):
            continue
        block = _zone_block(zone, unsupported) if isinstance(zone.grid, HexGrid) else None
        if block is None:
            return []
        blocks.append(block)
    return blocks


def _format_parts(text: str) -> tuple[str, str] | None:
    """The literal text before and after `$gridLocation$` in a location format."""
    before, found, after = text.partition("$gridLocation$")
    if not found or any(ch in before + after for ch in "${}"):
        return None
    return before, after


def _board_block(grid: HexGrid) -> HexBlockIn | None:
    n = grid.numbering
    if n is None or not grid.native():
        return None
    parts = _format_parts(n.location_format)
    cols, rows = grid.raw_range()
    if parts is None or not len(rows) or len(cols) * len(rows) > MAX_CELLS:
        return None
    cmin = cols.start - cols.start % 2
    while cmin + n.h_off < 0:
        cmin += 2
    rmin = max(rows.start, -n.v_off)
    if cmin >= cols.stop or rmin >= rows.stop:
        return None
    cols, rows = range(cmin, cols.stop), range(rmin, rows.stop)
    cells = {grid.name_raw(c, r): grid.centre(c, r) for c in cols for r in rows}
    return HexBlockIn(grid, n, cols, rows, *parts, cells)


def _zone_block(zone: Zone, unsupported: Counter[str] | None) -> HexBlockIn | None:
    """The largest rectangle of whole rows and columns of a zone's hex grid inside it."""
    grid = zone.grid
    assert isinstance(grid, HexGrid)
    n = grid.numbering
    outer = _format_parts(zone.location_format)
    if n is None or not grid.native() or outer is None or "$name$" in zone.location_format:
        return None
    inner = _format_parts(n.location_format)
    cols, rows = grid.raw_range()
    if inner is None or len(cols) * len(rows) > MAX_CELLS:
        return None
    inside = {(c, r) for c in cols for r in rows if zone.contains(*grid.centre(c, r))}
    if not inside:
        return None
    per_row = Counter(r for _c, r in inside)
    full = [r for r, k in per_row.items() if k == max(per_row.values())]
    per_col = Counter(c for c, r in inside if r in full)
    whole = [c for c, k in per_col.items() if k == len(full)]
    cols, rows = range(min(whole), max(whole) + 1), range(min(full), max(full) + 1)
    if len(cols) != len(whole) or len(rows) != len(full) or cols.start % 2:
        return None
    cells = {zone.label(grid.name_raw(c, r)): grid.centre(c, r) for c in cols for r in rows}
    if unsupported is not None and len(inside) > len(cells):
        left = len(inside) - len(cells)
        unsupported[f"zone `{zone.name}`: {left} hexes of its ragged edge left out"] += 1
    prefix, suffix = outer[0] + inner[0], inner[1] + outer[1]
    return HexBlockIn(grid, n, cols, rows, prefix, suffix, cells, zone)


def hex_grid_data(
    blocks: list[HexBlockIn], offset: Point
) -> tuple[dict[str, Any], list[int], dict[str, Point]] | None:
    """A countermix hex grid (YAML-ready), its art origin and its hexes' centres in map
    pixels, when countermix lays the grid out with every hex where the module has it: one
    block is one sheet; several blocks are sheets whose ids are the text before their hex
    names. None otherwise (the hexes then stay named points)."""
    first = blocks[0]
    n, grid = first.numbering, first.grid
    if abs(grid.dx - grid.dy * math.sqrt(3) / 2) * max(len(first.cols), 1) >= 1:
        return None
    body = "{col:0" + str(max(n.h_leading, 0) + 1) + "d}" + n.sep
    body += "{row:0" + str(max(n.v_leading, 0) + 1) + "d}"
    if len(blocks) == 1:
        id_format, ids = first.prefix + body + first.suffix, ["A"]
    else:
        ids = [b.prefix for b in blocks]
        if any(b.suffix for b in blocks) or not all(ids) or len(set(ids)) != len(ids):
            return None
        id_format = "{sheet}" + body
    sheets = [
        {"id": ident, "columns": [b.cols.start + n.h_off, b.cols.stop - 1 + n.h_off],
         "rows": [b.rows.start + n.v_off, b.rows.stop - 1 + n.v_off]}
        for ident, b in zip(ids, blocks, strict=True)
    ]  # fmt: skip
    cx, cy = grid.centre(first.cols.start, first.rows.start)
    origin = [cx + offset[0], cy + offset[1]]
    data = {"id_format": id_format, "size": grid.dy, "sheets": sheets}
    cells = {
        name: (x + offset[0], y + offset[1]) for b in blocks for name, (x, y) in b.cells.items()
    }
    return (data, origin, cells) if _lays_out_as(data, origin, cells) else None


def _lays_out_as(grid: dict[str, Any], origin: list[int], cells: dict[str, Point]) -> bool:
    """countermix's own layout of the grid puts every hex where `cells` has it."""
    sheets = tuple(
        Sheet(id=s["id"], columns=tuple(s["columns"]), rows=tuple(s["rows"]))
        for s in grid["sheets"]
    )
    game_map = GameMap(
        id="map",
        name=Text("map"),
        kind="hex",
        grid=ModelHexGrid(id_format=grid["id_format"], size=grid["size"], sheets=sheets),
        art=Art(image="board.png", origin=(float(origin[0]), float(origin[1]))),
    )
    try:
        positions = layout_map(game_map, (1, 1)).positions
    except GeometryError:
        return False
    return positions == cells


def convert(tree: ModuleTree, archive: Archive, game_id: str) -> GameOut:
    """Every file of the game (YAML-ready data by path, art bytes by path)."""
    conv = Converter(tree, archive, game_id)
    maps = conv.maps()
    conv.decks(maps)
    setups = conv.read_setups()
    conv.pieces(conv.survey(setups))
    conv.out.setups = setups
    conv.out.palette = conv.palette()
    conv.out.locator = conv.locator(maps)
    sides = list(conv.side_ids.items()) or [("Players", "players")]
    for name in tree.sides:
        if name not in conv.side_ids:
            sides.append((name, slug(name, "side")))
    game: dict[str, Any] = {
        "id": game_id,
        "title": tree.name or game_id,
        "version": tree.version or "0.1",
        "notes": "Imported from a VASSAL module by countermix import-module.",
        "sides": [{"id": ident, "name": name} for name, ident in sides],
    }
    if tree.description:
        game["description"] = tree.description
    if conv.values:
        game["values"] = list(conv.values.values())
    if any(m.data["kind"] == "hex" for m in maps):
        game["terrain"] = [{"id": "clear", "name": "Clear"}]
    conv.out.files["game.yaml"] = {"game": game}
    conv.out.files["map.yaml"] = {"maps": [m.data for m in maps] or None}
    conv.out.files["rules.yaml"] = {"constraints": []}
    return conv.out
