"""A save read back as a scenario: every piece on a map becomes a setup entry at its location,
every piece in a turn box of the Reinforcements map a reinforcement of that turn.

A piece is known by the properties countermix gives it (UnitId, MarkerId, CardId), else by its
gpid, else by its name. Its look gives its state: the Face layer (front or back), the Steps
lost layer (steps remaining), a block's rotation (its strength). What a placement says beyond
that (state values, entry location, notes, attachments) rides on the piece in the `countermix`
property the module's own saves carry. Whatever cannot be read back is a finding; nothing is
dropped in silence.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compiler.backends.vassal.buildfile import REINFORCEMENTS_MAP, hand_map_name, zone_turn
from compiler.backends.vassal.geometry import MapLayout
from compiler.backends.vassal.module import map_names, piece_gpids
from compiler.backends.vassal.saves import CARRIED
from compiler.diagnostics import Finding, Location, printable
from compiler.importing.saves import SaveContents, SavedPiece
from compiler.model.cards import Card
from compiler.model.common import is_number
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario
from compiler.model.units import Marker, Unit
from compiler.plain import plain

HEADER_SKIPPED = ("setup", "reinforcements")

Locate = Callable[[SavedPiece], "tuple[str, str] | None"]
"""Where a saved piece lies, as (map id, location), by some other reckoning than the game's
layouts (import-module: the module's own grids); None when it lies on no location."""


@dataclass(frozen=True, slots=True)
class Palette:
    """How pieces of a module countermix did not build (no UnitId or MarkerId properties) are
    known: by their palette gpid, else their name, each to the keys (`unit:id`, `marker:id`,
    `card:id:0`) of its copies. A set-up's pieces take a palette piece's unit copies in turn;
    a marker may lie any number of times."""

    by_gpid: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    by_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class ImportedScenario:
    """The scenario as YAML-ready data, and what could not be read back."""

    data: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)
    placed: int = 0
    arriving: int = 0


@dataclass(frozen=True, slots=True)
class _Read:
    """One piece read back: what it is, where, and its state."""

    unit: Unit | None
    marker: Marker | None
    at: str
    turn: int
    face: str
    steps: int | None
    state: Mapping[str, Any]
    extra: Mapping[str, Any]
    stack: str = ""
    level: int = 0


def scenario_from_save(
    game: GameData,
    layouts: Mapping[str, MapLayout],
    save: SaveContents,
    scenario_id: str,
    base: Scenario | None,
    title: str = "",
    *,
    palette: Palette | None = None,
    locate: Locate | None = None,
) -> ImportedScenario:
    """The scenario `scenario_id` as the save sets it up; its other fields (name, turns,
    victory ...) come from `base` when given. With a `palette`, pieces without countermix's
    properties are known through it instead of the game's own gpids and names; with
    `locate`, positions are read by it instead of by `layouts`."""
    reader = _Reader(game, layouts, save, palette, locate)
    read = [r for piece in save.pieces if (r := reader.piece(piece)) is not None]
    read = _detached(_markers_as_state(game, read))
    data = _header(game, save, scenario_id, base, title, read)
    setup = _setup_entries([r for r in read if not r.turn])
    arrivals = _arrival_entries([r for r in read if r.turn])
    if setup:
        data["setup"] = setup
    if arrivals:
        data["reinforcements"] = arrivals
    decks = reader.deck_setup(base)
    if decks:
        data["decks"] = decks
    order = [spec.name for spec in dataclasses.fields(Scenario)]
    data = {key: data[key] for key in sorted(data, key=order.index)}
    return ImportedScenario(
        data,
        reader.findings,
        placed=sum(1 for r in read if not r.turn),
        arriving=sum(1 for r in read if r.turn),
    )


class _Reader:
    def __init__(
        self,
        game: GameData,
        layouts: Mapping[str, MapLayout],
        save: SaveContents,
        palette: Palette | None = None,
        locate: Locate | None = None,
    ) -> None:
        self.game = game
        self.save = save
        self.palette = palette
        self.locate = locate
        self.taken: Counter[tuple[str, ...]] = Counter()
        self.findings: list[Finding] = []
        names = map_names(game.maps)
        self.maps = {name: map_id for map_id, name in names.items()}
        self.maps[REINFORCEMENTS_MAP] = REINFORCEMENTS_MAP
        self.layouts = layouts
        self.exact = {
            map_id: {(round(p[0]), round(p[1])): loc for loc, p in layout.positions.items()}
            for map_id, layout in layouts.items()
        }
        self.by_gpid = {str(number): key for key, number in piece_gpids(game).items()}
        self.by_name: dict[str, list[str]] = {}
        for unit in game.units:
            self.by_name.setdefault(unit.name.en, []).append(f"unit:{unit.id}")
        self.hand_maps = {hand_map_name(side.name.en): side.id for side in game.game.sides}
        self.dealt: dict[str, list[tuple[str, SavedPiece]]] = {}

    def deck_setup(self, base: Scenario | None) -> list[dict[str, Any]]:
        """The decks each side draws from. A save shows which decks lie on the table and what
        they hold, not who draws from them: that comes from the scenario it is imported over
        (or --like), else from each deck's owning side. Every card must lie in its own deck."""
        decks = {d.name.en: d for d in self.game.decks} | {d.id: d for d in self.game.decks}
        cards = {c.id: c for c in self.game.cards}
        present: list[str] = []
        pieces = {p.id: p for p in self.save.pieces}
        for saved in self.save.decks:
            deck = decks.get(saved.name)
            for member in saved.members:
                piece = pieces.get(member)
                card = cards.get(piece.piece.props.get("CardId", "")) if piece else None
                if piece is None or card is None:
                    continue
                if deck is None or card.deck != deck.id:
                    self._finding(
                        "import-card",
                        piece,
                        f"card `{card.id}` lies in `{printable(saved.name)}`, but the data "
                        f"puts it in deck `{card.deck}`",
                        "put it back in its deck in VASSAL and save again",
                    )
            if deck is not None and saved.members and deck.id not in present:
                present.append(deck.id)
        hands = self._dealt_hands(base, cards, present)
        if base is not None:
            for player in base.decks:
                for deck_id in player.decks:
                    if deck_id not in present and any(c.deck == deck_id for c in cards.values()):
                        self.findings.append(
                            Finding(
                                "import-card",
                                Location(str(self.save.path), 1, 1),
                                f"deck `{deck_id}` that side `{player.side}` draws from is "
                                "not on the table, or holds no card, in the save",
                                "save the game with every deck of the scenario on the table",
                            )
                        )
            return [plain(player) for player in base.decks]
        sides: dict[str, list[str]] = {}
        owned = {d.side for d in self.game.decks if d.id in present and d.side}
        playing = [s.id for s in self.game.game.sides if s.id in owned | set(hands)]
        for deck_id in present:
            deck = next(d for d in self.game.decks if d.id == deck_id)
            owners = [deck.side] if deck.side else playing or [s.id for s in self.game.game.sides]
            for side in owners:
                sides.setdefault(side, []).append(deck_id)
        return [
            {"side": side, "decks": ids, **({"hand": hands[side]} if hands.get(side) else {})}
            for side, ids in sides.items()
        ]

    def _dealt_hands(
        self, base: Scenario | None, cards: Mapping[str, Card], present: list[str]
    ) -> dict[str, int]:
        """The starting hand dealt to each side when the scenario started (the module deals it;
        the save shows it): its cards must come from a deck of that side that goes into hands.
        Its size is the scenario's `hand:` (kept from the scenario imported over, else counted)."""
        players = {p.side: p for p in base.decks} if base is not None else {}
        hand_decks = {d.id for d in self.game.decks if d.hand}
        sizes: dict[str, int] = {}
        for side, dealt in self.dealt.items():
            allowed = set(players[side].decks) if side in players else None
            for card_id, saved in dealt:
                deck = cards[card_id].deck if card_id in cards else ""
                if deck not in hand_decks or (allowed is not None and deck not in allowed):
                    self._finding(
                        "import-card",
                        saved,
                        f"card `{card_id}` lies in the hand of `{side}`, but its deck "
                        f"`{deck}` is not one that side draws its hand from",
                        "put it back in its deck in VASSAL and save again",
                    )
                elif deck not in present:
                    present.append(deck)
            sizes[side] = len(dealt)
        return sizes

    def where(self, piece: SavedPiece) -> Location:
        """A piece's place in the save: the number of its command in the stream."""
        return Location(str(self.save.path), piece.command, 1)

    def piece(self, saved: SavedPiece) -> _Read | None:
        key = self._identity(saved)
        if key is None:
            return None
        kind, _, ident = key.partition(":")
        if kind == "card":
            card_id = ident.rpartition(":")[0]
            hand_of = self.hand_maps.get(saved.map)
            if not saved.deck and hand_of is not None:
                self.dealt.setdefault(hand_of, []).append((card_id, saved))
            elif not saved.deck:
                self._finding(
                    "import-card",
                    saved,
                    f"card `{card_id}` lies on `{printable(saved.map)}` at "
                    f"({saved.x}, {saved.y}), outside every deck",
                    "countermix scenarios deal cards from decks: put the card back in its deck",
                )
            return None
        unit = self.game.unit(ident) if kind == "unit" else None
        marker = self.game.markers.get(ident) if kind == "marker" else None
        place = self._location(saved)
        if place is None:
            return None
        map_id, location = place
        extra = carried(saved.piece.props)
        turn = 0
        at = location
        if map_id == REINFORCEMENTS_MAP and marker is not None:
            self._finding(
                "import-off-location",
                saved,
                f"marker `{ident}` waits in a turn box; only units arrive as reinforcements",
                "set the marker up on the map, or delete it in VASSAL and save again",
            )
            return None
        if map_id == REINFORCEMENTS_MAP:
            turn = zone_turn(location) or 0
            at = str(extra.get("enters", ""))
            if not at:
                self._finding(
                    "import-no-entry",
                    saved,
                    f"`{ident}` waits in the box of turn {turn} but the save does not say "
                    "where it enters",
                    "add it to the scenario's reinforcements by hand, or set it up on the "
                    "map instead",
                )
                return None
        face = "back" if saved.piece.layers.get("Face", 1) == 2 else "front"
        state = dict(extra.get("state") or {})
        steps = extra.get("steps")
        if unit is not None:
            steps, state = self._unit_state(unit, saved, steps, state)
        return _Read(unit, marker, at, turn, face, steps, state, extra, saved.stack, saved.level)

    def _unit_state(
        self, unit: Unit, saved: SavedPiece, steps: object, state: dict[str, Any]
    ) -> tuple[int | None, dict[str, Any]]:
        carried_steps = steps if isinstance(steps, int) else None
        unit_type = self.game.unit_type(unit.type)
        if unit_type is not None and unit_type.shape == "block":
            full_value = unit.front.get("cv")
            turned = saved.piece.rotation or 0
            if not is_number(full_value):  # the block's strength is its steps
                if carried_steps is not None and (unit.steps - carried_steps) % 4 == turned:
                    return carried_steps, state
                return (unit.steps - turned if turned else None), state
            full = int(full_value)
            carried_cv = state.get("cv")
            if not (is_number(carried_cv) and (full - int(carried_cv)) % 4 == turned):
                if turned or is_number(carried_cv):
                    state["cv"] = full - turned
            return carried_steps, state
        level = saved.piece.layers.get("Steps lost")
        if level is None:
            return carried_steps, state
        lost = level - 1
        if carried_steps is not None and unit.steps - carried_steps == lost:
            return carried_steps, state
        return (unit.steps - lost if lost > 0 else None), state

    def _identity(self, saved: SavedPiece) -> str | None:
        props = saved.piece.props
        for prop, kind in (("UnitId", "unit"), ("MarkerId", "marker")):
            ident = props.get(prop, "")
            if ident:
                known = self.game.unit(ident) if kind == "unit" else self.game.markers.get(ident)
                if known is not None:
                    return f"{kind}:{ident}"
        card = props.get("CardId", "")
        if card and any(c.id == card for c in self.game.cards):
            return f"card:{card}:0"
        if self.palette is not None:
            copies = self.palette.by_gpid.get(saved.piece.gpid) or self.palette.by_name.get(
                saved.piece.name
            )
            if copies:
                self.taken[copies] += 1
                return copies[min(self.taken[copies], len(copies)) - 1]
            self._unknown(saved)
            return None
        by_gpid = self.by_gpid.get(saved.piece.gpid)
        if by_gpid is not None:
            return by_gpid
        named = self.by_name.get(saved.piece.name, [])
        if len(named) == 1:
            return named[0]
        self._unknown(saved)
        return None

    def _unknown(self, saved: SavedPiece) -> None:
        self._finding(
            "import-unknown-piece",
            saved,
            f"piece `{printable(saved.piece.name)}` (gpid {printable(saved.piece.gpid)}) is "
            f"not a unit, marker or card of `{self.game.game.id}`",
            "add it to the game's data, or delete it in VASSAL and save again",
        )

    def _location(self, saved: SavedPiece) -> tuple[str, str] | None:
        if self.locate is not None:
            place = self.locate(saved)
            if place is None:
                self._between(saved)
            return place
        map_id = self.maps.get(saved.map)
        layout = self.layouts.get(map_id) if map_id is not None else None
        if map_id is None or layout is None:
            self._finding(
                "import-off-location",
                saved,
                f"`{printable(saved.piece.name)}` lies on `{printable(saved.map)}`, which is "
                "not a map of the game",
                "move it onto a map, or delete it in VASSAL and save again",
            )
            return None
        exact = self.exact[map_id].get((saved.x, saved.y))
        if exact is not None:
            return map_id, exact
        nearest = _nearest(layout, saved.x, saved.y)
        if nearest is None:
            self._between(saved)
            return None
        return map_id, nearest

    def _between(self, saved: SavedPiece) -> None:
        self._finding(
            "import-off-location",
            saved,
            f"`{printable(saved.piece.name)}` lies at ({saved.x}, {saved.y}) on "
            f"`{printable(saved.map)}`, between locations",
            "move it onto a hex, area, town or box in VASSAL and save again",
        )

    def _finding(self, rule: str, saved: SavedPiece, message: str, hint: str) -> None:
        self.findings.append(Finding(rule, self.where(saved), message, hint))


def _markers_as_state(game: GameData, reads: list[_Read]) -> list[_Read]:
    """A marker put on a unit in VASSAL (one the scenario did not place) whose set's kind is
    a declared value — GCACW's fatigue markers and `state: {fatigue: 2}` — is that state of
    the unit beneath it in the stack; any other marker stays a marker."""
    values = {v.id for v in game.game.values}
    below: dict[tuple[str, int], int] = {
        (r.stack, r.level): index for index, r in enumerate(reads) if r.unit and r.stack
    }
    states: dict[int, dict[str, Any]] = {}
    kept: list[int] = []
    for index, read in enumerate(reads):
        marker = read.marker
        target = None
        if marker is not None and not read.extra.get("marker") and read.stack:
            if marker.set.kind in values and is_number(marker.value):
                target = next(
                    (below[(read.stack, lv)] for lv in range(read.level - 1, -1, -1)
                     if (read.stack, lv) in below),
                    None,
                )  # fmt: skip
        if target is None:
            kept.append(index)
        else:
            value = marker.value if marker is not None else None
            states.setdefault(target, {})[marker.set.kind if marker else ""] = value
    out = []
    for index in kept:
        read = reads[index]
        if index in states:
            read = dataclasses.replace(read, state={**read.state, **states[index]})
        out.append(read)
    return out


def _detached(reads: list[_Read]) -> list[_Read]:
    """An attachment holds while the two pieces share a location: one moved away in VASSAL
    is no longer attached."""
    where = {(r.unit.id if r.unit else r.marker.id if r.marker else ""): r.at for r in reads}
    out = []
    for read in reads:
        partner = read.extra.get("attached_to")
        if partner and (read.turn or where.get(str(partner)) != read.at):
            extra = {k: v for k, v in read.extra.items() if k != "attached_to"}
            read = dataclasses.replace(read, extra=extra)
        out.append(read)
    return out


def _nearest(layout: MapLayout, x: int, y: int) -> str | None:
    """The location whose point is clearly the nearest: less than half as far as the next."""
    ranked = sorted((math.hypot(p[0] - x, p[1] - y), loc) for loc, p in layout.positions.items())[
        :2
    ]
    if not ranked:
        return None
    if len(ranked) == 1 or ranked[0][0] * 2 < ranked[1][0]:
        return ranked[0][1]
    return None


def carried(props: Mapping[str, str]) -> dict[str, Any]:
    """What a piece of a countermix module carries in its `countermix` property (CARRIED);
    empty for any other piece."""
    try:
        value = json.loads(props.get(CARRIED) or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _header(
    game: GameData,
    save: SaveContents,
    scenario_id: str,
    base: Scenario | None,
    title: str,
    read: list[_Read],
) -> dict[str, Any]:
    if base is not None:
        data = {k: v for k, v in plain(base).items() if k not in HEADER_SKIPPED}
        data["id"] = scenario_id
        if title:
            data["title"] = title
        return data
    last = max(len(game.game.turns_for(title)), *(r.turn for r in read), 1)
    data = {"id": scenario_id, "name": save.description or scenario_id}
    if title:
        data["title"] = title
    data["last_turn"] = last
    return data


def _entry_key(read: _Read) -> tuple[str, str, str]:
    return (
        read.at,
        read.face,
        json.dumps(
            [read.steps, read.state, read.extra.get("note"), read.extra.get("attached_to")],
            sort_keys=True,
            default=str,
        ),
    )


def _setup_entries(reads: list[_Read]) -> list[dict[str, Any]]:
    """Units at one location in one state share an entry; markers have their own."""
    entries: list[dict[str, Any]] = []
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for read in reads:
        if read.marker is not None:
            entries.append(_with_state({"at": read.at, "marker": read.marker.id}, read))
            continue
        assert read.unit is not None
        key = _entry_key(read)
        group = groups.get(key)
        if group is None or "attached_to" in group:
            group = _with_state({"at": read.at, "units": []}, read)
            groups[key] = group
            entries.append(group)
        group["units"].append(read.unit.id)
    return [_single(entry) for entry in entries]


def _single(entry: dict[str, Any]) -> dict[str, Any]:
    units = entry.get("units")
    if units is None or len(units) != 1:
        return entry
    return {
        ("unit" if k == "units" else k): (v[0] if k == "units" else v) for k, v in entry.items()
    }


def _with_state(entry: dict[str, Any], read: _Read) -> dict[str, Any]:
    if read.face != "front":
        entry["face"] = read.face
    if read.steps is not None:
        entry["steps"] = read.steps
    if read.state:
        entry["state"] = dict(read.state)
    for key in ("attached_to", "note"):
        if read.extra.get(key):
            entry[key] = str(read.extra[key])
    return entry


def _arrival_entries(reads: list[_Read]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    groups: dict[tuple[int, tuple[str, str, str]], dict[str, Any]] = {}
    for read in sorted(reads, key=lambda r: r.turn):
        if read.unit is None:
            continue
        key = (read.turn, _entry_key(read))
        group = groups.get(key)
        if group is None:
            group = {"turn": read.turn, "units": [], "at": read.at}
            if read.face != "front":
                group["face"] = read.face
            if read.state:
                group["state"] = dict(read.state)
            if read.extra.get("note"):
                group["note"] = str(read.extra["note"])
            groups[key] = group
            entries.append(group)
        group["units"].append(read.unit.id)
    return entries
