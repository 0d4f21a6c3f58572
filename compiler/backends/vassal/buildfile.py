"""buildFile.xml and moduledata from the model and the module plan (images, layouts, gpids)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import NamedTuple

from lxml import etree

from compiler.backends.art.identity import marker_identity, unit_identity
from compiler.backends.pergame import PerGameMemo
from compiler.backends.vassal import encode as enc
from compiler.backends.vassal import pieces as pc
from compiler.backends.vassal.encode import add_piece, join
from compiler.backends.vassal.geometry import HexBlock, MapLayout
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.translation import (
    LANGUAGES,
    Localized,
    Translations,
    add_translations,
    data_text,
    tool_text,
)
from compiler.backends.vassal.turns import add_turn_trackers
from compiler.backends.vassal.xml import (
    BOARD,
    GRID,
    MAP,
    MODULE,
    WIDGET,
    map_element,
    node,
    serialise,
)
from compiler.i18n import N_, tr
from compiler.model.cards import Card, Deck
from compiler.model.common import Text
from compiler.model.game import Die
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.model.scenarios import PlayerDecks
from compiler.model.units import Marker, Unit

VASSAL_VERSION = "3.6.0"
PIECE_SIZE = 64
TRAYS_LABEL = N_("Counters")
"""The counter trays' toolbar button (PieceWindow)."""
CHARTS_LABEL = N_("Charts")
"""The charts window's toolbar button (ChartWindow)."""
OTHER_UNITS = N_("Other units")
"""The trays' panel of a side's units that belong to no formation."""


@dataclass
class ModulePlan:
    """Everything the XML and the saves need, decided once: names, images, layouts, gpids."""

    game: GameData
    layouts: dict[str, MapLayout]
    map_names: dict[str, str]
    board_images: dict[str, str]
    unit_images: dict[str, pc.Images]
    marker_images: dict[str, pc.Images]
    card_images: dict[str, str]
    deck_backs: dict[str, str]
    gpids: dict[str, int]
    reinforcement_turns: list[int] = field(default_factory=list)
    reinforcement_image: str = ""
    scenario_files: dict[str, str] = field(default_factory=dict)
    charts: list[tuple[str, str]] = field(default_factory=list)  # (chart title, image file)
    chart_names: list[Text] = field(default_factory=list)  # each chart's title, all languages
    bundles: dict[str, bytes] = field(default_factory=dict)  # translation bundles build_file made
    faces_drawn: int = 0  # faces rendered this build (the rest came from the render cache)
    faces_reused: int = 0
    image_crcs: dict[str, int] = field(default_factory=dict)
    """The CRC-32 of the images (`images/<name>`) whose checksum render_plan knows already."""
    piece_texts: PieceTexts = field(default_factory=PieceTexts)
    """Piece texts of the builds before (assemble gives the pack); none kept by default."""
    unit_identities: dict[str, str] = field(default_factory=dict)
    """Each unit's identity digest by its id, as render_plan worked them out (`identity`)."""
    board_keys: dict[str, str] = field(default_factory=dict)
    """Each map's board key by map id, as render_plan worked them out: a digest of the map's
    layout whole (the map, every location's point on the board), its terrain colours and its
    art. A set-up save is kept whole by them (`saves.save_file`); none without them."""

    def identity(self, unit: Unit) -> str:
        """`unit_identity` of a unit of the plan's game, looked up (once worked out, a
        digest is looked up for every face, slot and placed piece of the unit)."""
        found = self.unit_identities.get(unit.id)
        return found if found is not None else unit_identity(self.game, unit)

    @property
    def next_gpid(self) -> int:
        return max(self.gpids.values(), default=0) + 1

    @cached_property
    def record_tokens(self) -> dict[str, str]:
        """Each unit's record as a placed piece's key holds it (`record_token` of its kind,
        identity, images and gpid), by unit id, worked out for every unit at once in passes
        that stay in C: the set-up saves key each of their pieces by it (8,000 counters:
        thousands of placed pieces, each looked up in four tables one by one before)."""
        units = self.game.units
        ids = list(map(_UNIT_ID, units))
        identities = list(map(self.unit_identities.get, ids))
        if None in identities:  # not worked out by render_plan: one by one
            identities = [self.identity(unit) for unit in units]
        images = list(map(self.unit_images.__getitem__, ids))
        fronts, backs, steps = (map(itemgetter(at), images) for at in range(3))
        gpids = map(str, map(self.gpids.__getitem__, map("unit:".__add__, ids)))
        fields = zip(repeat("unit"), identities, fronts, backs, map("|".join, steps), gpids)
        return dict(zip(ids, map("\x1f".join, fields), strict=True))

    marker_tokens: dict[str, str] = field(default_factory=dict)
    """Each marker's `record_token`, by marker id, as the saves worked them out."""

    @cached_property
    def module_data(self) -> bytes:
        """`moduledata` of the plan's game, made once: every set-up save holds it, and the
        module."""
        return moduledata(self.game)

    @cached_property
    def prototype_table(self) -> pc.PrototypeTable:
        """The game's prototypes, built once for every placed piece the saves expand."""
        return pc.prototype_table(self.game)

    def is_block(self, unit: Unit) -> bool:
        unit_type = self.game.unit_type(unit.type)
        return unit_type is not None and unit_type.shape == "block"


def record_token(
    kind: str, identity: str, front: str, back: str, steps: tuple[str, ...], gpid: int
) -> str:
    """A piece's record in a key: its kind, its record's identity digest, its image names
    (of a digest) and its gpid, none of which holds the separators, as one text
    (`ModulePlan.record_tokens` writes a unit's the same way, for all units at once)."""
    return "\x1f".join([kind, identity, front, back, "|".join(steps), str(gpid)])


REINFORCEMENTS_MAP = N_("Reinforcements")


def turn_zone(turn: int) -> str:
    return f"Turn {turn}"


_TURN_ZONE = re.compile(r"Turn ([0-9]+)\Z")


def zone_turn(name: str) -> int | None:
    """The turn of a Reinforcements box named by turn_zone; None for any other name."""
    match = _TURN_ZONE.match(name)
    return int(match.group(1)) if match else None


def module_name(game: GameData) -> str:
    return game.game.title.en


def moduledata(game: GameData) -> bytes:
    root = node(None, "data", version="1")
    node(root, "version", game.game.version)
    node(root, "extra1", "")
    node(root, "extra2", "")
    node(root, "VassalVersion", VASSAL_VERSION)
    node(root, "dateSaved", "0")
    node(root, "description", _description(game))
    node(root, "name", module_name(game))
    etree.indent(root, space="  ")
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def _description(game: GameData) -> str:
    text = game.game.description.en or f"{game.game.title.en}, generated by countermix"
    return " ".join(text.split())


def build_file(plan: ModulePlan) -> etree._Element:
    """The build file; the translations' bundles it names go to `plan.bundles`."""
    return _build_tree(plan, None)


def build_file_xml(plan: ModulePlan) -> bytes:
    """`serialise(build_file(plan))`, byte for byte, made quicker: the tray slots (the bulk of
    the file, their texts mostly read from `plan.piece_texts`) are not made into the tree's
    nodes but written as text, as lxml writes them, and spliced into the serialised file."""
    slots = SlotTexts()
    return slots.splice(serialise(_build_tree(plan, slots)))


class SlotTexts:
    """The tray slots of a build file written as text: a panel's slots are held here while
    the panel holds one placeholder slot (`slots <n>`, with no attributes: every real slot has
    some), replaced by `splice` once the tree is serialised."""

    def __init__(self) -> None:
        self.panels: list[list[str]] = []
        """Each panel's slots, as lxml writes them."""
        self.texts: list[str] = []
        """Each panel's menu commands (those of PIECE_WORDS its slots' piece texts hold, one a
        line: what `_piece_texts` looks for)."""

    def open(self, panel: etree._Element) -> list[str]:
        """The list `panel`'s slots are written into; its placeholder put in it."""
        etree.SubElement(panel, SLOT).text = f"slots {len(self.panels)}"
        self.panels.append([])
        return self.panels[-1]

    def splice(self, serialised: bytes) -> bytes:
        """The serialised build file with each placeholder replaced by its panel's slots, one
        a line at the placeholder's indentation (where etree.indent puts them: the spaces
        right before it, replaced with it). The placeholders are found by their tag, which
        the search finds quickly; a pattern that starts with the spaces before them tried a
        match at every space of the file (5 ms of 11 at 8,000 counters)."""
        parts: list[bytes] = []
        start = 0
        for match in _PLACEHOLDER.finditer(serialised):
            at = match.start()
            before = serialised[start:at]
            kept = before.rstrip(b" ")
            indent = before[len(kept) :]
            held = self.panels[int(match.group(1))]
            parts += [kept, indent, ("\n" + indent.decode("ascii")).join(held).encode("utf-8")]
            start = match.end()
        parts.append(serialised[start:])
        return b"".join(parts)


SLOT = WIDGET + "PieceSlot"
_TAG = re.escape(SLOT.encode("ascii"))
_PLACEHOLDER = re.compile(rb"<" + _TAG + rb">slots ([0-9]+)</" + _TAG + rb">")
"""A panel's placeholder slot as lxml writes it (`<` and `>` in a text or an attribute are
escaped: only markup matches)."""
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot carry (lxml refuses a text holding one)."""


def slot_xml(text: str, name: str, gpid: int) -> str:
    """A tray's PieceSlot as lxml writes it (attributes in their order, escaped as lxml
    escapes them); a text or name XML cannot carry is refused as lxml refuses it."""
    if _NOT_XML.search(text) or _NOT_XML.search(name):
        node(None, SLOT, text, entryName=name)  # raises lxml's error
    size = PIECE_SIZE
    opening = f'<{SLOT} entryName="{_attribute(name)}" gpid="{gpid}" height="{size}" width="{size}"'
    if not text:
        return opening + "/>"
    return f"{opening}>{_text(text)}</{SLOT}>"


def _text(text: str) -> str:
    """A text as lxml escapes it: `&`, `<`, `>` and carriage returns."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    return text


def _attribute(value: str) -> str:
    """An attribute's value as lxml escapes it: a text's escapes, quotes, tabs and newlines."""
    value = _text(value)
    if '"' in value:
        value = value.replace('"', "&quot;")
    if "\n" in value:
        value = value.replace("\n", "&#10;")
    if "\t" in value:
        value = value.replace("\t", "&#9;")
    return value


def _build_tree(plan: ModulePlan, slots: SlotTexts | None) -> etree._Element:
    """The build file's tree, the tray slots' texts held by `slots` when it is given."""
    game = plan.game
    texts = Translations()
    root = node(
        None,
        "VASSAL.build.GameModule",
        name=module_name(game),
        version=game.game.version,
        VassalVersion=VASSAL_VERSION,
        description=_description(game),
        nextPieceSlotId=str(plan.next_gpid),
        ModuleOther1="",
        ModuleOther2="",
    )
    texts.attribute(root, "name", data_text(game.game.title))
    texts.attribute(root, "description", _description_in(game))
    node(root, MODULE + "BasicCommandEncoder")
    node(root, MODULE + "Documentation")
    roster = node(root, MODULE + "PlayerRoster", buttonText="Retire", buttonToolTip="Switch sides")
    texts.attribute(roster, "buttonText", tool_text(N_("Retire")))
    texts.attribute(roster, "buttonToolTip", tool_text(N_("Switch sides")))
    for side in game.game.sides:
        node(roster, "entry", side.name.en)
    node(
        root,
        MODULE + "GlobalOptions",
        autoReport="Always",
        centerOnMove="Use Preferences Setting",
        nonOwnerUnmaskable="Use Preferences Setting",
        playerIdFormat="$PlayerName$",
    )
    for simple in ("Chatter", "KeyNamer"):
        node(root, MODULE + simple)
    node(root, "VASSAL.i18n.Language")
    properties = node(root, MODULE + "properties.GlobalProperties")
    if deals(game):
        node(
            properties,
            MODULE + "properties.GlobalProperty",
            name=SCENARIO_PROPERTY,
            initialValue="",
            description="The scenario being played: set by its save, it starts the deal",
            isNumeric="false",
        )
    node(root, MODULE + "properties.GlobalTranslatableMessages")
    _prototypes(root, plan)
    _trays(root, plan, texts, slots)
    for game_map in game.maps:
        _map(root, plan, plan.layouts[game_map.id], texts)
    if plan.reinforcement_turns:
        _reinforcement_map(root, plan, texts)
    _deal_commands(root, plan)
    _dice(root, plan, texts)
    add_turn_trackers(root, game.game, texts)
    _charts(root, plan, texts)
    for scenario in game.scenarios:
        file = plan.scenario_files.get(scenario.id, "")
        setup = node(
            root,
            MODULE + "PredefinedSetup",
            name=scenario.name.en,
            isMenu="false",
            useFile="true" if file else "false",
            file=file,
        )
        texts.attribute(setup, "name", data_text(scenario.name))
    _piece_texts(root, plan, texts, slots)
    plan.bundles = add_translations(root, texts, plan.piece_texts)
    return root


PIECE_WORDS = (
    N_("Flip"),
    N_("Peek"),
    N_("Lose step"),
    N_("Restore step"),
    N_("Reduce one step"),
    N_("Restore one step"),
    N_("Hide from opponent"),
    N_("Delete"),
)
"""The menu commands of the module's pieces (compiler/backends/vassal/pieces.py): VASSAL
translates them under `Piece.<command>`, for every piece at once."""


PIECE_TAGS = (WIDGET + "PieceSlot", WIDGET + "CardSlot", MODULE + "PrototypeDefinition")


def _piece_texts(
    root: etree._Element, plan: ModulePlan, texts: Translations, slots: SlotTexts | None
) -> None:
    """The names of the pieces (their BasicPiece names) and their menu commands (in the
    pieces' texts, the tray slots' held by `slots` among them)."""
    game = plan.game
    texts.pieces_of(list(map(_NAME, game.units)))
    for marker in game.markers.values():
        suffix = "" if marker.value is None else f" {marker.value:g}"
        texts.piece(marker.set.name.en + suffix, _joined(marker.set.name, suffix))
    for card in game.cards:
        texts.piece(card.name.en, data_text(card.name))
    said = "\n".join([*(e.text or "" for e in root.iter(*PIECE_TAGS)), *_held(slots)])
    for word in PIECE_WORDS:
        if word in said:  # a menu command some piece of this module has
            texts.piece(word, tool_text(word))


def _held(slots: SlotTexts | None) -> list[str]:
    return slots.texts if slots is not None else []


class SlotPiece(NamedTuple):
    """A tray slot to write: what decides its piece's text (its key in `plan.piece_texts`),
    how to make the text, the slot's name and gpid. (A named tuple: one per piece.)"""

    key: tuple[object, ...]
    make: Callable[[], str]
    name: str
    gpid: int


class PanelPieces(NamedTuple):
    """A tray panel's pieces: the keys (with names) their slots' texts are kept by, as one
    text (`panel_token`), worked out without making the pieces (a panel kept whole needs
    only these), and how to make the pieces."""

    keys: str
    make: Callable[[], list[SlotPiece]]


def panel_token(keys: list[tuple[tuple[object, ...], str]]) -> str:
    """The keys of a panel's slots (with their names) as one text, what the panel's lines are
    kept by: quicker to make and to digest than the keys' repr. Each key's fields are digests,
    image names (of a digest) and numbers, none holding the separators; a name is written as
    its repr (no separator in it either): different keys give different texts."""
    return "\x1e".join([slot_token(key, name) for key, name in keys])


def slot_token(key: tuple[object, ...], name: str) -> str:
    """A slot's key and name in `panel_token`."""
    return "\x1f".join([*map(_field, key), repr(name)])


def _field(value: object) -> str:
    return "|".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _unit_slots(plan: ModulePlan, units: list[Unit], tokens: dict[str, str]) -> PanelPieces:
    """`unit_slot` of each unit, the panel's token (`panel_token` of their keys) joined from
    the units' own (`slot_tokens`: the same text)."""
    found = "\x1e".join(map(tokens.__getitem__, map(_UNIT_ID, units)))
    return PanelPieces(found, lambda: [unit_slot(plan, unit) for unit in units])


def slot_tokens(plan: ModulePlan, units: list[Unit]) -> dict[str, str]:
    """Each unit's slot in `panel_token` (`slot_token` of `unit_slot`'s key and name), by
    unit, made from its `ModulePlan.record_tokens` (the same fields, which the set-up saves
    worked out already: kind, identity, images, gpid) and its name's repr, in passes that
    stay in C (8,000 counters: 8,000 slots)."""
    ids = list(map(_UNIT_ID, units))
    records = map(plan.record_tokens.__getitem__, ids)
    tails = map(itemgetter(slice(_UNIT_KIND, None)), records)
    names = map("\x1f".__add__, map(repr, map(_ENGLISH_NAME, units)))
    return dict(zip(ids, map("slot".__add__, map(str.__add__, tails, names)), strict=True))


_UNIT_KIND = len("unit")
"""Where the fields after the kind start in a unit's record token (`record_token`)."""


_UNIT_ID = attrgetter("id")
_ENGLISH_NAME = attrgetter("name.en")
_NAME = attrgetter("name")


def _marker_slots(plan: ModulePlan, markers: list[Marker]) -> PanelPieces:
    pieces = [marker_slot(plan, marker) for marker in markers]
    return PanelPieces(panel_token([(piece.key, piece.name) for piece in pieces]), lambda: pieces)


def _panel_slots(
    plan: ModulePlan, panel: etree._Element, panel_pieces: Callable[[], PanelPieces]
) -> None:
    """A tray panel's PieceSlots as nodes of the panel, each text made (or taken from
    `plan.piece_texts`). (A build file written as text has its panels' slots kept between
    builds whole, by runs of panels: `_panel_run`.)"""
    size = str(PIECE_SIZE)
    for piece in panel_pieces().make():
        text = plan.piece_texts.text(piece.make, *piece.key)
        node(
            panel,
            SLOT,
            text,
            entryName=piece.name,
            gpid=str(piece.gpid),
            height=size,
            width=size,
        )


Panel = tuple[etree._Element, Callable[[], PanelPieces]]
"""A tray panel and how to work out its pieces (`_fill_panels`)."""
PANEL_RUN = 32
"""Tray panels whose lines are kept together as one entry (`_panel_run`)."""


def _fill_panels(plan: ModulePlan, panels: list[Panel], slots: SlotTexts | None) -> None:
    """Every tray panel's PieceSlots (`_panel_slots`); written as text into `slots`, by runs
    of PANEL_RUN panels (`_panel_run`)."""
    if slots is None:
        for panel, pieces in panels:
            _panel_slots(plan, panel, pieces)
        return
    for start in range(0, len(panels), PANEL_RUN):
        _panel_run(plan, panels[start : start + PANEL_RUN], slots)


def _panel_run(plan: ModulePlan, run: list[Panel], slots: SlotTexts) -> None:
    """A run of panels' slots as `_panel_slots` writes them into `slots`, kept between builds
    as one entry by the keys of its panels' entries: a warm build reads one entry per run (a
    warm build of 8,000 counters read 800 panels one by one, 0.1 s); a run one of whose
    panels changed reads its other panels' own entries and makes that one again. A run kept
    whole keeps its panels' entries (they do not age: the run made again finds them)."""
    texts = plan.piece_texts
    found = [pieces() for _panel, pieces in run]
    keys = [texts.text_digest(PANEL_KIND, pieces.keys) for pieces in found]

    def made() -> list[list[str]]:
        return [
            texts.lines_of(key, partial(_panel_lines, pieces.make))
            for key, pieces in zip(keys, found, strict=True)
        ]

    kept = texts.lists_of(texts.digest("panel run-1", keys), made, len(run))
    texts.keep(keys)
    for (panel, _pieces), (words, *lines) in zip(run, kept, strict=True):
        slots.open(panel).extend(lines)
        slots.texts.append(words)


PANEL_KIND = "panel-2"
"""What a tray panel's lines are kept by, before its `panel_token` (`PieceTexts.text_digest`)."""


def _panel_lines(make: Callable[[], list[SlotPiece]]) -> list[str]:
    """A panel's menu commands (one a line), then its slots as lxml writes them."""
    pieces = make()
    texts = [piece.make() for piece in pieces]
    words = [word for word in PIECE_WORDS if any(word in text for text in texts)]
    lines = [slot_xml(text, p.name, p.gpid) for text, p in zip(texts, pieces, strict=True)]
    return ["\n".join(words), *lines]


def _joined(text: Text, suffix: str = "", prefix: str = "") -> Localized:
    """`prefix + text + suffix` in a language: the text's own there, else its base text (a
    label put together of parts; none of its own in the language is then the base label)."""
    own = data_text(text)
    return lambda lang: prefix + (own(lang) or text.en) + suffix


def _description_in(game: GameData) -> Localized:
    own = data_text(game.game.description)
    return lambda lang: " ".join(own(lang).split())


def _charts(root: etree._Element, plan: ModulePlan, texts: Translations) -> None:
    """The charts window: one tab per chart of the game."""
    window = node(
        root,
        MODULE + "ChartWindow",
        name=CHARTS_LABEL,
        text_=CHARTS_LABEL,  # the button's text: without it VASSAL shows "Chart Window Menu"
        tooltip="Charts and tables",
        icon="",
        hotkey="",
        description="Charts and tables",
    )
    texts.attribute(window, "text", tool_text(CHARTS_LABEL))
    texts.attribute(window, "tooltip", tool_text(N_("Charts and tables")))
    if plan.charts:
        tabs = node(window, WIDGET + "TabWidget", entryName="Charts")
        texts.attribute(tabs, "entryName", tool_text(N_("Charts")))
        names = plan.chart_names if len(plan.chart_names) == len(plan.charts) else []
        for index, (title, image) in enumerate(plan.charts):
            chart = node(tabs, WIDGET + "Chart", chartName=title, fileName=image)
            if names:
                texts.attribute(chart, "chartName", data_text(names[index]))


def _prototypes(root: etree._Element, plan: ModulePlan) -> None:
    container = node(root, MODULE + "PrototypesContainer")
    for name, traits in pc.prototypes(plan.game):
        node(
            container, MODULE + "PrototypeDefinition", add_piece(traits), name=name, description=""
        )


def unit_slot(plan: ModulePlan, unit: Unit) -> SlotPiece:
    """A unit's PieceSlot (its text keyed by the unit's identity, images and gpid)."""
    images, gpid = plan.unit_images[unit.id], plan.gpids[f"unit:{unit.id}"]

    def make() -> str:
        if plan.is_block(unit):
            return add_piece(pc.block_traits(plan.game, unit, images, gpid=gpid))
        return add_piece(pc.counter_traits(plan.game, unit, images, gpid=gpid))

    identity = plan.identity(unit)
    return SlotPiece(("slot", identity, *image_names(images), gpid), make, unit.name.en, gpid)


def marker_slot(plan: ModulePlan, marker: Marker) -> SlotPiece:
    """A marker's PieceSlot (keyed like a unit's)."""
    images, gpid = plan.marker_images[marker.id], plan.gpids[f"marker:{marker.id}"]

    def make() -> str:
        return add_piece(pc.marker_traits(marker, images, gpid=gpid))

    identity = marker_identity(plan.game, marker)
    key = ("marker slot", identity, *image_names(images), gpid)
    return SlotPiece(key, make, marker.id, gpid)


def image_names(images: pc.Images) -> tuple[str, str, tuple[str, ...]]:
    """A piece's image names, for a key (a tuple's repr is quicker than the dataclass's)."""
    return images.front, images.back, images.steps


def _trays(
    root: etree._Element, plan: ModulePlan, texts: Translations, slots: SlotTexts | None
) -> None:
    game = plan.game
    window = node(
        root,
        MODULE + "PieceWindow",
        name=TRAYS_LABEL,
        text_=TRAYS_LABEL,  # the button's text (`text=` would be the element's text)
        tooltip="Counter trays",
        hotkey="67,520",
        icon="",
        hidden="false",
        scale="1.0",
    )
    texts.attribute(window, "text", tool_text(TRAYS_LABEL))
    texts.attribute(window, "tooltip", tool_text(N_("Counter trays")))
    tabs = node(window, WIDGET + "TabWidget", entryName="Counters")
    texts.attribute(tabs, "entryName", tool_text(N_("Counters")))
    formations = {f.id: f for f in game.formations}
    tokens = slot_tokens(plan, list(game.units))
    panels: list[Panel] = []
    by_side = _formations_by_side(game.units)
    for side in game.game.sides:
        groups = by_side.get(side.id)
        if not groups:
            continue
        side_tab = node(
            tabs,
            WIDGET + "ListWidget",
            entryName=side.name.en,
            scale="1.0",
            width="0",
            height="0",
            divider="200",
        )
        texts.attribute(side_tab, "entryName", data_text(side.name))
        for formation_id, members in groups.items():
            formation = formations.get(formation_id)
            title = (formation.title if formation else "") or members[0].title
            prefix = f"[{title}] " if title else ""
            panel = node(
                side_tab,
                WIDGET + "PanelWidget",
                entryName=prefix + (formation.name.en if formation else OTHER_UNITS),
                fixed="false",
                nColumns="8",
                vert="false",
                scale="1.0",
            )
            texts.attribute(
                panel,
                "entryName",
                _joined(formation.name, prefix=prefix)
                if formation
                else _tool_joined(OTHER_UNITS, prefix),
            )
            panels.append((panel, partial(_unit_slots, plan, members, tokens)))
    if game.markers:
        _marker_tray(tabs, plan, texts, panels)
    _fill_panels(plan, panels, slots)


def _formations_by_side(units: Sequence[Unit]) -> dict[str, dict[str, list[Unit]]]:
    """The units of each side by formation, each in data order, the formations in the order
    of their first unit: one pass over the units (not one per side)."""
    found: dict[str, dict[str, list[Unit]]] = {}
    for unit in units:
        found.setdefault(unit.side, {}).setdefault(unit.formation, []).append(unit)
    return found


def _tool_joined(english: str, prefix: str) -> Localized:
    word = tool_text(english)
    return lambda lang: prefix + word(lang)


def _marker_tray(
    tabs: etree._Element, plan: ModulePlan, texts: Translations, panels: list[Panel]
) -> None:
    tab = node(
        tabs,
        WIDGET + "ListWidget",
        entryName="Markers",
        scale="1.0",
        width="0",
        height="0",
        divider="200",
    )
    texts.attribute(tab, "entryName", tool_text(N_("Markers")))
    sets: dict[str, list[Marker]] = {}
    for marker in plan.game.markers.values():
        sets.setdefault(marker.set.id, []).append(marker)
    for members in sets.values():
        set_ = members[0].set
        prefix = f"[{set_.title}] " if set_.title else ""
        panel = node(
            tab,
            WIDGET + "PanelWidget",
            entryName=prefix + set_.name.en,
            fixed="false",
            nColumns="10",
            vert="false",
            scale="1.0",
        )
        texts.attribute(panel, "entryName", _joined(set_.name, prefix=prefix))
        panels.append((panel, partial(_marker_slots, plan, members)))


def _map(root: etree._Element, plan: ModulePlan, layout: MapLayout, texts: Translations) -> None:
    game_map = layout.game_map
    name = plan.map_names[game_map.id]
    first = game_map is plan.game.maps[0]
    extra = {} if first else {"buttonName": name, "icon": "", "hotkey": ""}
    # Only the first map docks in the main window; the others open from the toolbar (a map
    # window popping up for every title of a series at game start would bury the one in play).
    element = map_element(root, MODULE + "Map", name, launch="false" if first else "true", **extra)
    _map_reports(element, texts)
    shown = _map_name_in(name, game_map.name)
    texts.attribute(element, "mapName", shown)
    if not first:
        texts.attribute(element, "buttonName", shown)
    picker = node(
        element,
        MAP + "BoardPicker",
        title="Choose Boards",
        addRowText="Add Row",
        addColumnText="Add Column",
        boardPrompt="Select board",
        slotHeight="125",
        slotWidth="350",
        slotScale="0.2",
    )
    board = node(
        picker,
        BOARD + "Board",
        name=board_name(game_map),
        image=plan.board_images[game_map.id],
        reversible="false",
    )
    texts.attribute(board, "name", data_text(game_map.name))
    zoned = node(board, GRID + "ZonedGrid")
    for block in layout.hex_blocks:
        _hex_zone(zoned, block)
    for area in layout.areas:
        _zone(zoned, area.id, area.path())
    for box in layout.boxes:
        _zone(zoned, box.id, box.path())
    if game_map.towns:
        regions = node(zoned, GRID + "RegionGrid", snapto="true", visible="false", fontsize="9")
        for town in game_map.towns:
            x, y = layout.positions[town.id]
            node(regions, GRID + "Region", name=town.id, originx=str(x), originy=str(y))
    if plan.game.decks and game_map.kind == "none":
        _decks(element, plan, layout, texts)


MAP_REPORTS = {
    "moveWithinFormat": N_("$pieceName$ moves $previousLocation$ -> $location$ *"),
    "moveToFormat": N_("$pieceName$ moves $previousLocation$ -> $location$ *"),
    "createFormat": N_("$pieceName$ created in $location$ *"),
}
"""The chat reports of a map (xml.map_element) and their words, translated per language."""


def _map_reports(element: etree._Element, texts: Translations) -> None:
    for attribute, report in MAP_REPORTS.items():
        if element.get(attribute) == report:
            texts.attribute(element, attribute, tool_text(report))


def _map_name_in(base: str, name: Text) -> Localized:
    """A map's name in a language: its own name there, with what map_names added to the base
    name to tell two maps apart (` (id)`)."""
    own = data_text(name)
    suffix = base[len(name.en) :] if name.en and base.startswith(name.en) else ""
    return lambda lang: own(lang) + suffix if own(lang) else ""


def board_name(game_map: GameMap) -> str:
    return game_map.name.en or game_map.id


def _zone(
    zoned: etree._Element, name: str, path: str, location_format: str = "$name$"
) -> etree._Element:
    """A named polygon of a ZonedGrid; points inside it are named by `location_format`."""
    return node(
        zoned,
        GRID + "mapgrid.Zone",
        name=name,
        path=path,
        locationFormat=location_format,
        useParentGrid="false",
        useHighlight="false",
    )


def _hex_zone(zoned: etree._Element, block: HexBlock) -> None:
    zone = _zone(zoned, f"sheet {block.name}", block.path(), block.location_format())
    grid = node(
        zone,
        GRID + "HexGrid",
        sideways="false",
        x0=str(block.x0),
        y0=str(block.y0),
        dy=repr(block.dy),
        dx=repr(block.dx),
        snapTo="true",
        edgesLegal="false",
        cornersLegal="false",
        visible="false",
        dotsVisible="false",
        color="0,0,0",
    )
    scheme = block.numbering
    node(
        grid,
        GRID + "mapgrid.HexGridNumbering",
        first="H",
        sep=scheme.separator,
        hType="N",
        hLeading=str(scheme.col_digits - 1),
        hOff=str(block.first_col),
        hDescend="false",
        vType="N",
        vLeading=str(scheme.row_digits - 1),
        vOff=str(block.first_row),
        vDescend="false",
        stagger="false",
        locationFormat="$gridLocation$",
        visible="false",
        fontSize="9",
        color="0,0,0",
        rotateText="0",
        hDrawOff="0",
        vDrawOff="0",
    )


def deck_box(plan: ModulePlan, deck_id: str, layout: MapLayout) -> str:
    for box in layout.game_map.boxes:
        if box.id == deck_id or (box.id.startswith(deck_id) and box.kind == "pile"):
            return box.id
    piles = [b.id for b in layout.game_map.boxes if b.kind == "pile"]
    return piles[0] if piles else ""


# ---------------------------------------------------------------- decks, hands and the deal
#
# Every deck is a DrawPile of the card table (so File > New Game lays out all of them). A
# scenario's save holds only the decks it names, as saved Decks (which VASSAL links to their
# DrawPile by name), and SETUP_STACK, so that no other DrawPile adds its deck. The starting hands
# are dealt by Startup Global Key Commands: one per side and hand size, filtered on the
# `Scenario` global property the save sets. Its deck count N makes VASSAL pick N random cards of
# the "always shuffled" deck (Deck.drawCards), and the key sends each to the side's hand (a
# SendToLocation trait of the card); a second one turns the dealt cards face up in that private
# hand, which only its side can open.

SCENARIO_PROPERTY = "Scenario"
HAND_POINT = (90, 125)
"""Where dealt cards land on a hand's board; the hand's stack metrics lay them side by side."""
CARD_SEPARATION = "160"  # a card's width and a gap: a hand's cards lie side by side


@dataclass(frozen=True)
class Deal:
    """Dealing `count` cards from deck `deck` into the hand of `side` at the start of the
    scenarios `scenarios`."""

    side: str
    deck: Deck
    count: int
    scenarios: tuple[str, ...]


def hand_deck(game: GameData, player: PlayerDecks) -> Deck | None:
    """The deck a side's starting hand is dealt from: the first of its decks that goes into
    hands."""
    decks = {d.id: d for d in game.decks}
    return next((decks[d] for d in player.decks if d in decks and decks[d].hand), None)


def hand_sides(game: GameData) -> list[tuple[str, str]]:
    """(side id, side name) of every side with a hand on a card table."""
    if not game.decks:
        return []
    tables = [m for m in game.maps if m.kind == "none"]
    return [
        (side.id, side.name.en)
        for side in game.game.sides
        if any(b.kind == "hand" and b.side == side.id for m in tables for b in m.boxes)
    ]


def hand_map_name(side_name: str) -> str:
    return f"{side_name} hand"


def deals(game: GameData) -> tuple[Deal, ...]:
    """Every starting-hand deal of the game's scenarios, scenarios with the same deal grouped
    (worked out once per game: the build file and every set-up save ask)."""
    return _DEALS.get(game, "deals", partial(_deals, game))


_DEALS: PerGameMemo[str, tuple[Deal, ...]] = PerGameMemo()


def _deals(game: GameData) -> tuple[Deal, ...]:
    with_hand = dict(hand_sides(game))
    grouped: dict[tuple[str, str, int], list[str]] = {}
    decks: dict[str, Deck] = {}
    for scenario in game.scenarios:
        for player in scenario.decks:
            deck = hand_deck(game, player)
            if deck is None or player.hand <= 0 or player.side not in with_hand:
                continue
            decks[deck.id] = deck
            grouped.setdefault((player.side, deck.id, player.hand), []).append(scenario.id)
    return tuple(
        Deal(side, decks[deck_id], count, tuple(ids))
        for (side, deck_id, count), ids in grouped.items()
    )


def deal_key(side_id: str) -> str:
    """The named key that sends a card of a hand deck to that side's hand."""
    name = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in side_id)
    return enc.key(0, 0, f"countermix-deal-{name}")


def card_traits(plan: ModulePlan, card: Card, gpid: int) -> list[enc.Trait]:
    """A card's definition: the face, back and values, and for a card of a hand deck one
    SendToLocation per hand (no menu entry: the deal at game start presses its key)."""
    traits = pc.card_traits(card, plan.card_images[card.id], plan.deck_backs[card.deck], gpid)
    deck = next((d for d in plan.game.decks if d.id == card.deck), None)
    if deck is None or not deck.hand:
        return traits
    sends = [_send_to_hand(side_id, side_name) for side_id, side_name in hand_sides(plan.game)]
    return [traits[0], *sends, *traits[1:]]


def _send_to_hand(side_id: str, side_name: str) -> enc.Trait:
    hand = hand_map_name(side_name)
    x, y = HAND_POINT
    fields = [
        "sendto",
        "",  # no menu entry
        deal_key(side_id),
        hand,
        hand,
        str(x),
        str(y),
        "",
        "",
        "0",
        "0",
        "1",
        "1",
        f"Deal to {enc.clean(hand)}",
        "L",
        "",
        "",
        "",
        "",
    ]
    return enc.Trait(join([enc.clean(f) for f in fields], ";"), "")


def _decks(
    element: etree._Element, plan: ModulePlan, layout: MapLayout, texts: Translations
) -> None:
    boxes = {box.id: box for box in layout.game_map.boxes}
    for deck, _box_id, x, y in deck_piles(plan, layout):
        pile = _draw_pile(element, layout, deck.name.en, (x, y), hidden=True)
        texts.attribute(pile, "name", data_text(deck.name))
        for card, _copy, gpid in deck_cards(plan, deck):
            node(
                pile,
                WIDGET + "CardSlot",
                add_piece(card_traits(plan, card, gpid)),
                entryName=card.name.en,
                gpid=str(gpid),
                height="210",
                width="150",
            )
    for box_id, name, x, y in discard_piles(plan, layout):
        pile = _draw_pile(element, layout, name, (x, y), hidden=False)
        texts.attribute(pile, "name", data_text(boxes[box_id].name))
    for side_id, side_name in hand_sides(plan.game):
        if any(b.kind == "hand" and b.side == side_id for b in layout.game_map.boxes):
            _hand(element.getparent(), plan, side_id, side_name, texts)


def deck_piles(plan: ModulePlan, layout: MapLayout) -> list[tuple[Deck, str, int, int]]:
    """Every deck of the game with the box it lies in on this card table and its point."""
    out = []
    for deck in plan.game.decks:
        box_id = deck_box(plan, deck.id, layout)
        x, y = layout.positions.get(box_id, (100, 100))
        out.append((deck, box_id, x, y))
    return out


def discard_piles(plan: ModulePlan, layout: MapLayout) -> list[tuple[str, str, int, int]]:
    """(box id, name, x, y) of every pile box of this card table that holds no deck: an empty,
    face-up pile to discard onto."""
    used = {box_id for _, box_id, _, _ in deck_piles(plan, layout)}
    return [
        (box.id, box.name.en, *layout.positions[box.id])
        for box in layout.game_map.boxes
        if box.kind == "pile" and box.id not in used
    ]


def deck_cards(plan: ModulePlan, deck: Deck) -> list[tuple[Card, int, int]]:
    """(card, copy, gpid) of every card copy of a deck, in data order."""
    return [
        (card, copy, plan.gpids[f"card:{card.id}:{copy}"])
        for card in plan.game.cards
        if card.deck == deck.id
        for copy in range(card.copies)
    ]


def _draw_pile(
    element: etree._Element, layout: MapLayout, name: str, at: tuple[int, int], hidden: bool
) -> etree._Element:
    """A deck on the table: face down and shuffled (a draw pile), or face up (a discard pile)."""
    return node(
        element,
        MAP + "DrawPile",
        name=name,
        x=str(at[0]),
        y=str(at[1]),
        width="150",
        height="210",
        owningBoard=board_name(layout.game_map),
        faceDown="Always" if hidden else "Never",
        shuffle="Always" if hidden else "Never",
        allowMultiple="true",
        allowSelect="false" if hidden else "true",
        reversible="false",
        draw="true",
        color="0,0,0",
        reshufflable="false",
        drawFaceUp="false" if hidden else "true",
    )


def deck_type(name: str, hidden: bool) -> str:
    """The saved Deck's type (VASSAL 3.6 Deck.getType) of the DrawPile `_draw_pile` makes, as
    VASSAL itself saves it: the deck finds its DrawPile by this name."""
    option = "Always" if hidden else "Never"
    fields = [
        "deck",
        "true",  # draw an outline when empty
        "0,0,0",
        "150",
        "210",
        option,  # face down
        option,  # shuffle
        "true",  # allow multiple
        enc.boolean(not hidden),  # allow select
        "false",  # reversible
        "",
        "",
        "",
        enc.clean(name),
        "",
        "",
        "",
        enc.boolean(not hidden),  # draw face up
        "false",  # persistable
        "",
        "",
        "10",
        "",
        "false",
        "",
        "false",
        "",
        "$BasicName$",
        "",
        "false",
        "",
        "Shuffle",
        "Reverse",
        "",
        "Draw multiple cards",
        "Draw specific cards",
        "Face up",
        "Face down",
    ]
    return join(fields, ";")


def hand_name_in(side: Text) -> Localized:
    """A side's hand (`hand_map_name`) in a language: the tool's words around the side's name."""
    own = data_text(side)
    return lambda lang: tr("{side} hand", lang, side=own(lang) or side.en)


def _hand(
    root: etree._Element | None,
    plan: ModulePlan,
    side_id: str,
    side_label: str,
    texts: Translations,
) -> None:
    if root is None:
        return
    hand = map_element(
        root,
        MODULE + "PlayerHand",
        hand_map_name(side_label),
        side=side_label,
        visible="false",
        launch="true",
        buttonName=hand_map_name(side_label),
        icon="",
        hotkey="",
    )
    _map_reports(hand, texts)
    side = next((s.name for s in plan.game.game.sides if s.id == side_id), Text(side_label))
    shown = hand_name_in(side)
    texts.attribute(hand, "mapName", shown)
    texts.attribute(hand, "buttonName", shown)
    metrics = hand.find(MAP + "StackMetrics")
    if metrics is not None:  # a stack of cards in a hand is spread out, card beside card
        metrics.set("unexSepX", CARD_SEPARATION)
        metrics.set("exSepX", CARD_SEPARATION)
        metrics.set("unexSepY", "0")
        metrics.set("exSepY", "0")
    picker = node(hand, MAP + "BoardPicker")
    node(
        picker,
        BOARD + "Board",
        name=hand_map_name(side_label),
        image="",
        reversible="false",
        width="900",
        height="260",
        color="230,230,230",
    )
    texts.attribute(picker[-1], "name", shown)


def _deal_commands(root: etree._Element, plan: ModulePlan) -> None:
    """Per deal, two Startup Global Key Commands (run in this order when a game starts): the
    deal, then the dealt cards turned face up in their private hand."""
    names = dict(hand_sides(plan.game))
    for deal in deals(plan.game):
        hand = hand_map_name(names[deal.side])
        scenario = " || ".join(f"{SCENARIO_PROPERTY}=={_quoted(s)}" for s in deal.scenarios)
        _startup_command(
            root,
            f"Deal {deal.count} from {deal.deck.name.en} to {hand}",
            deal_key(deal.side),
            f"{{DeckName=={_quoted(deal.deck.name.en)} && ({scenario})}}",
            str(deal.count),
        )
        _startup_command(
            root,
            f"Show the dealt cards in {hand}",
            pc.FLIP_KEY,
            f"{{CurrentMap=={_quoted(hand)} && ObscuredToOthers==true && ({scenario})}}",
            "-1",
        )


def _startup_command(
    root: etree._Element, name: str, key: str, expression: str, deck_count: str
) -> None:
    node(
        root,
        MODULE + "StartupGlobalKeyCommand",
        name=name,
        buttonText="",
        tooltip="",
        icon="",
        buttonHotkey="",
        hotkey=key,
        filter=expression,
        deckCount=deck_count,
        reportSingle="true",  # no chat line per card: it would name the dealt cards
        reportFormat="",
        whenToApply="startOfGameOnly",  # VASSAL >= 3.6.0: not again when a saved game loads
    )


def _quoted(text: str) -> str:
    """A BeanShell string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _reinforcement_map(root: etree._Element, plan: ModulePlan, texts: Translations) -> None:
    element = map_element(
        root,
        MODULE + "Map",
        REINFORCEMENTS_MAP,
        launch="true",
        buttonName=REINFORCEMENTS_MAP,
        icon="",
        hotkey="",
    )
    _map_reports(element, texts)
    for attribute in ("mapName", "buttonName"):
        texts.attribute(element, attribute, tool_text(REINFORCEMENTS_MAP))
    picker = node(element, MAP + "BoardPicker")
    board = node(
        picker,
        BOARD + "Board",
        name=REINFORCEMENTS_MAP,
        image=plan.reinforcement_image,
        reversible="false",
    )
    texts.attribute(board, "name", tool_text(REINFORCEMENTS_MAP))
    zoned = node(board, GRID + "ZonedGrid")
    layout = plan.layouts[REINFORCEMENTS_MAP]
    for box in layout.boxes:
        _zone(zoned, box.id, box.path())


def dice_notation(die: Die) -> str:
    """What a dice button rolls, e.g. `4d6`."""
    return f"{die.count}d{die.faces}"


def dice_labels(dice: Sequence[Die], lang: str = "en") -> list[str]:
    """Each dice button's text, in order: the die's name (in `lang`, else English), else what
    it rolls (`2d6`); a label two buttons would share gets what it rolls added, then the
    die's id."""
    labels = [die.name.get(lang) or dice_notation(die) for die in dice]
    for widen in (dice_notation, lambda die: die.id):
        counts = Counter(labels)
        labels = [
            f"{label} ({widen(die)})" if counts[label] > 1 and widen(die) not in label else label
            for label, die in zip(labels, dice, strict=True)
        ]
    return labels


def _dice_tooltip(label: str, rolls: str, lang: str) -> str:
    if label == rolls:
        return tr("Roll {dice}", lang, dice=rolls)
    return tr("{name}: roll {dice}", lang, name=label, dice=rolls)


def _dice_label_in(shown: dict[str, list[str]], index: int, lang: str) -> str:
    return shown[lang][index] if lang in shown else ""


def _dice_tooltip_in(shown: dict[str, list[str]], index: int, rolls: str, lang: str) -> str:
    return _dice_tooltip(shown[lang][index], rolls, lang) if lang in shown else ""


def _dice(root: etree._Element, plan: ModulePlan, texts: Translations) -> None:
    dice = plan.game.game.dice
    shown = {lang: dice_labels(dice, lang) for lang in LANGUAGES}
    for index, (die, label) in enumerate(zip(dice, dice_labels(dice), strict=True)):
        rolls = dice_notation(die)
        button = node(
            root,
            MODULE + "DiceButton",
            name=label,
            text_=label,  # the button's text: without it VASSAL shows "2d6" whatever it rolls
            tooltip=_dice_tooltip(label, rolls, "en"),
            icon="",
            hotkey="",
            nDice=str(die.count),
            nSides=str(die.faces),
            plus="0",
            addToTotal="0",
            reportTotal="true" if die.count > 1 else "false",
            prompt="false",
            sortDice="false",
            reportFormat="** $name$ = $result$ *** $PlayerName$",
        )

        # the report names the die by its translated name ($name$: the localized configure
        # name, DiceButton.DR), so the report needs no key of its own
        for attribute in ("name", "text"):
            texts.attribute(button, attribute, partial(_dice_label_in, shown, index))
        texts.attribute(button, "tooltip", partial(_dice_tooltip_in, shown, index, rolls))
