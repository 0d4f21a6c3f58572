"""Scenario saves (.vsav): every setup entry on its location, reinforcements by turn of arrival,
and for a card game only the decks the scenario names.

The command stream is a flat ESC-joined list: begin_save, every piece, one stack per location
(members before the stack), the scenario's decks (cards before their deck) and empty discard
piles, the `Scenario` global property that starts the deal of the hands, SETUP_STACK (so that no
other DrawPile lays out its deck), end_save. VASSAL reads it as plain text.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from functools import partial
from itertools import chain
from typing import NamedTuple

from lxml import etree

from compiler.backends.art.identity import marker_identity
from compiler.backends.vassal import encode as enc
from compiler.backends.vassal import pieces as pc
from compiler.backends.vassal.buildfile import (
    REINFORCEMENTS_MAP,
    SCENARIO_PROPERTY,
    VASSAL_VERSION,
    ModulePlan,
    board_name,
    card_traits,
    deals,
    deck_cards,
    deck_piles,
    deck_type,
    discard_piles,
    image_names,
    record_token,
    turn_zone,
)
from compiler.backends.vassal.geometry import setup_point
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.xml import node
from compiler.model.common import is_number
from compiler.model.digests import content_digest
from compiler.model.scenarios import Scenario
from compiler.model.units import Marker
from compiler.rules.context import scenario_view
from compiler.rules.placed import Placement

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
CARRIED = "countermix"
"""The persistent property (BasicPiece state) holding what a placement says that the piece does
not show: state values, the reinforcement's entry location, notes, attachments, steps, and that
a marker is one the scenario places. VASSAL keeps it through moves, saves and loads, so
`countermix import-save` reads it back."""


def _number(value: object) -> int | None:
    if is_number(value):
        return int(value)
    return None


def piece_traits(
    plan: ModulePlan, placement: Placement, at: tuple[str, int, int]
) -> list[enc.Trait]:
    """The full definition of one placed piece, in its starting state."""
    if placement.marker is not None:
        marker = placement.marker
        return pc.marker_traits(
            marker,
            plan.marker_images[marker.id],
            face=placement.face,
            at=at,
            gpid=plan.gpids[f"marker:{marker.id}"],
        )
    unit = placement.unit
    assert unit is not None
    gpid = plan.gpids[f"unit:{unit.id}"]
    images = plan.unit_images[unit.id]
    if plan.is_block(unit):
        strength = _number(placement.state.get("cv"))
        if strength is None and not _number(unit.front.get("cv")):
            strength = placement.steps  # a block whose strength is its steps (Asia Engulfed)
        return pc.block_traits(plan.game, unit, images, strength=strength, at=at, gpid=gpid)
    lost = unit.steps - placement.steps if placement.steps is not None else 0
    return pc.counter_traits(
        plan.game, unit, images, face=placement.face, lost=max(lost, 0), at=at, gpid=gpid
    )


def carried(placement: Placement) -> dict[str, object]:
    """What a placement says beyond the piece's place and look (see CARRIED)."""
    entry = placement.entry
    out: dict[str, object] = {}
    if placement.state:
        out["state"] = dict(placement.state)
    if placement.steps is not None:
        out["steps"] = placement.steps
    if placement.turn:
        out["enters"] = placement.at
    if getattr(entry, "attached_to", ""):
        out["attached_to"] = getattr(entry, "attached_to", "")
    if entry.note:
        out["note"] = entry.note
    if placement.marker is not None:
        out["marker"] = True  # a marker the scenario places: it stays a marker when read back
    return out


def carried_text(placement: Placement) -> str:
    """`carried` as the piece holds it (JSON); empty when the placement says nothing more."""
    values = carried(placement)
    if not values:
        return ""
    return _JSON.encode(values)


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""`json.dumps(values, ensure_ascii=False, separators=(",", ":"))`, its encoder made once."""


def _with_carried(basic: enc.Trait, text: str) -> enc.Trait:
    if not text:
        return basic
    fields = enc.split(basic.state, ";")
    return enc.Trait(basic.type, enc.join([*fields[:4], "1", CARRIED, text], ";"))


def _where(plan: ModulePlan, placement: Placement) -> tuple[str, int, int] | None:
    if placement.turn:
        x, y = plan.layouts[REINFORCEMENTS_MAP].positions[turn_zone(placement.turn)]
        return REINFORCEMENTS_MAP, x, y
    found = setup_point(plan.layouts, placement)
    if found is None:
        return None
    map_id, (x, y) = found
    return plan.map_names[map_id], x, y


class SavedPiece(NamedTuple):
    """One placed piece of a save: what decides its AddPiece command (the key of its text in
    `plan.piece_texts`) and how to make that command. (A named tuple: one per placed piece.)"""

    key: tuple[object, ...]
    make: Callable[[], str]


Command = str | SavedPiece


def saved_game(plan: ModulePlan, scenario: Scenario) -> str:
    """The savedGame text: the ESC-joined command stream (see the module's docstring)."""
    return _joined(plan, _commands(plan, scenario))


def _joined(plan: ModulePlan, commands: list[Command]) -> str:
    """The commands ESC-joined, each piece's made (or taken from `plan.piece_texts`)."""
    texts = plan.piece_texts
    made = [c if isinstance(c, str) else texts.text(c.make, *c.key) for c in commands]
    return enc.join(made, enc.ESC)


def _commands(plan: ModulePlan, scenario: Scenario) -> list[Command]:
    """The save's commands, its pieces not made yet."""
    view = scenario_view(plan.game, scenario)
    commands: list[Command] = ["begin_save"]
    stacks: dict[tuple[str, int, int], list[str]] = {}
    records = plan.record_tokens
    for index, placement in enumerate([*view.setup, *view.arrivals], start=1):
        unit = placement.unit
        if unit is None and placement.marker is None:
            continue
        at = _where(plan, placement)
        if at is None:
            continue
        piece_id = str(1_000_000 + index)
        record = records[unit.id] if unit is not None else _record_key(plan, placement)
        commands.append(_saved_piece(plan, placement, at, piece_id, record))
        stacks.setdefault(at, []).append(piece_id)
    commands += _stack_commands(stacks)
    commands += _deck_commands(plan, scenario)
    commands += _board_lines(plan)
    if any(scenario.id in deal.scenarios for deal in deals(plan.game)):
        commands.append(enc.join([f"GlobalProperty{enc.TAB}", SCENARIO_PROPERTY, scenario.id], ";"))
    commands += ["SETUP_STACK\t", "end_save"]
    return commands


def _stack_commands(stacks: dict[tuple[str, int, int], list[str]]) -> list[str]:
    """The save's stacks (`+/id/stack/map;x;y;members;@@-1`), one per place, in the order of
    their first piece."""
    out = []
    plain: dict[str, bool] = {}
    for number, ((map_name, x, y), members) in enumerate(stacks.items(), start=1):
        is_plain = plain.get(map_name)
        if is_plain is None:
            is_plain = plain[map_name] = _PLAIN.isdisjoint(map_name)
        if is_plain:  # nothing to escape
            out.append(f"+/{2_000_000 + number}/stack/{map_name};{x};{y};{';'.join(members)};@@-1")
            continue
        fields = [map_name, str(x), str(y), *members, "@@-1"]
        out.append("+/" + enc.join([str(2_000_000 + number), "stack", enc.join(fields, ";")], "/"))
    return out


_PLAIN = frozenset(";/\\'")
"""What a map's name must not hold for a stack's fields to need no escaping (its other
fields are numbers and piece ids): the stack is then written as one text (1,600 stacks at
8,000 counters, each joined twice)."""


def _saved_piece(
    plan: ModulePlan,
    placement: Placement,
    at: tuple[str, int, int],
    piece_id: str,
    record: str,
) -> SavedPiece:
    """The AddPiece command of one placed piece, prototypes expanded, keyed by the piece's
    `record` (its `_record_key`), images, gpid, face, what it carries, place and id. What it
    carries is in the key as the values (their repr tells apart what their JSON does: the
    same insertion order, the types shown), made into its text only when the piece is made
    (`_made_piece`)."""
    values = carried(placement)
    make = partial(_made_piece, plan, placement, at, piece_id, values)
    return SavedPiece(("saved-1", record, placement.face, values, at, piece_id), make)


def _made_piece(
    plan: ModulePlan,
    placement: Placement,
    at: tuple[str, int, int],
    piece_id: str,
    values: dict[str, object],
) -> str:
    """A placed piece's AddPiece command (`_saved_piece`)."""
    traits = pc.expand_prototypes(
        plan.game, piece_traits(plan, placement, at), plan.prototype_table
    )
    traits[-1] = _with_carried(traits[-1], _JSON.encode(values) if values else "")
    return enc.add_piece(traits, piece_id)


def _record_key(plan: ModulePlan, placement: Placement) -> str:
    """What decides a placed piece beyond the placement: its kind, the identity of its record
    (unit or marker), its images and its gpid, as one text (`ModulePlan.record_tokens`: a
    unit's worked out for every unit at once, a marker's once per build)."""
    if placement.marker is not None:
        return _marker_token(plan, placement.marker)
    unit = placement.unit
    assert unit is not None
    return plan.record_tokens[unit.id]


def _marker_token(plan: ModulePlan, marker: Marker) -> str:
    """A marker's record in a placed piece's key, as `record_tokens` writes a unit's."""
    found = plan.marker_tokens.get(marker.id)
    if found is None:
        images, gpid = plan.marker_images[marker.id], plan.gpids[f"marker:{marker.id}"]
        identity = marker_identity(plan.game, marker)
        found = record_token("marker", identity, *image_names(images), gpid)
        plan.marker_tokens[marker.id] = found
    return found


def _deck_commands(plan: ModulePlan, scenario: Scenario) -> list[str]:
    """The decks the scenario's sides draw from, every card in them (in data order: VASSAL
    draws at random from an always-shuffled deck), and the empty discard piles of the table
    that belong to no side or to a side of the scenario."""
    if not scenario.decks:
        return []
    used = {deck_id for player in scenario.decks for deck_id in player.decks}
    sides = {player.side for player in scenario.decks}
    commands: list[str] = []
    number = decks = 0
    for game_map in plan.game.maps:
        if game_map.kind != "none":
            continue
        layout = plan.layouts[game_map.id]
        map_name = plan.map_names[game_map.id]
        for deck, _box, x, y in deck_piles(plan, layout):
            if deck.id not in used:
                continue
            members = []
            for card, _copy, gpid in deck_cards(plan, deck):
                number += 1
                piece_id = str(3_000_000 + number)
                traits = card_traits(plan, card, gpid)
                fields = enc.split(traits[-1].state, ";")
                # in a deck, as VASSAL saves it: no map of its own, the deck's point
                where = enc.join(["null", str(x), str(y), *fields[3:]], ";")
                traits[-1] = enc.Trait(traits[-1].type, where)
                commands.append(enc.add_piece(traits, piece_id))
                members.append(piece_id)
            decks += 1
            commands.append(_deck(decks, deck.name.en, True, (map_name, x, y), members))
        boxes = {b.id: b for b in game_map.boxes}
        for box_id, name, x, y in discard_piles(plan, layout):
            if boxes[box_id].side in ("", *sides):
                decks += 1
                commands.append(_deck(decks, name, False, (map_name, x, y), []))
    return commands


def _deck(
    number: int, name: str, hidden: bool, at: tuple[str, int, int], members: list[str]
) -> str:
    """A saved Deck (`+/id/deck;type/map;x;y;faceDown;members`), as VASSAL writes it."""
    map_name, x, y = at
    state = [map_name, str(x), str(y), enc.boolean(hidden)]
    if members:
        state.append(enc.join(members, ","))
    return "+/" + enc.join(
        [str(4_000_000 + number), deck_type(name, hidden), enc.join(state, ";")], "/"
    )


def _board_lines(plan: ModulePlan) -> list[str]:
    """Every map's board, so that no map of another scenario asks the player to pick one."""
    lines = []
    for game_map in plan.game.maps:
        board = board_name(game_map)
        lines.append(
            enc.join([f"{plan.map_names[game_map.id]}BoardPicker", board, "0", "0"], enc.TAB)
        )
    if plan.reinforcement_turns:
        lines.append(
            enc.join([f"{REINFORCEMENTS_MAP}BoardPicker", REINFORCEMENTS_MAP, "0", "0"], enc.TAB)
        )
    return lines


def _savedata(plan: ModulePlan, scenario: Scenario) -> bytes:
    root = node(None, "data", version="1")
    node(root, "version", plan.game.game.version)
    node(root, "extra1", "")
    node(root, "extra2", "")
    node(root, "VassalVersion", VASSAL_VERSION)
    node(root, "dateSaved", "0")
    node(root, "description", scenario.name.en)
    etree.indent(root, space="  ")
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def save_file(plan: ModulePlan, scenario: Scenario) -> bytes:
    """The .vsav archive: savedGame, savedata and moduledata, with fixed timestamps. Kept
    between builds whole (`plan.piece_texts`) by its commands, each piece by its key, and the
    two other files: a scenario none of whose pieces changed is not written again. Its
    commands' texts are kept by runs of SAVE_RUN (by their keys), and each run's part of the
    savedGame deflated (`_saved_stream`), used by every build that uses the save (they do
    not age out of the pack while the save is kept whole): a save in which one piece changed
    makes that piece's run again and deflates it, and reads the other runs. A save whose
    scenario, pieces' records and maps are those of a build before (`_scenario_token`) is
    read by the keys of its runs that build kept for them, its commands not worked out."""
    savedata, data = _savedata(plan, scenario), plan.module_data
    texts = plan.piece_texts
    token = _scenario_token(plan, scenario)
    whole = texts.text_digest(SAVE_WHOLE_KIND, token) if token else ""
    if whole:
        kept = _kept_whole(texts, whole, savedata, data)
        if kept is not None:
            return kept
    commands = _commands(plan, scenario)
    runs = [commands[at : at + SAVE_RUN] for at in range(0, len(commands), SAVE_RUN)]
    keys = [texts.text_digest(SAVE_RUN_KIND, _run_token(run)) for run in runs]

    def make() -> bytes:
        made = [
            texts.lines_of(key, partial(_made, texts, run))
            for key, run in zip(keys, runs, strict=True)
        ]
        return _archive(_saved_stream(texts, keys, made), savedata, data)

    found = texts.data(make, *_save_parts(keys, savedata, data))
    texts.keep(keys + _part_keys(texts, keys))  # kept whole, it keeps its runs and parts
    if whole:
        texts.put_lines(whole, keys)
    return found


def _save_parts(keys: list[str], savedata: bytes, data: bytes) -> tuple[object, ...]:
    """What a save's archive is kept by (`PieceTexts.data`): the keys of its runs and its two
    other files."""
    return ("save", keys, savedata, data)


def _part_keys(texts: PieceTexts, keys: list[str]) -> list[str]:
    """The keys of the deflated parts of a save's runs (`_saved_stream`), by the runs' keys."""
    last = len(keys) - 1
    return [texts.digest(SAVE_PART_KIND, key, at == last) for at, key in enumerate(keys)]


def _kept_whole(texts: PieceTexts, whole: str, savedata: bytes, data: bytes) -> bytes | None:
    """The save kept by a build before under the keys of its runs kept under `whole` (its
    `_scenario_token`'s key), with the same other files; its runs and their parts kept too.
    None when either entry is missing or damaged."""
    keys = texts.kept_lines(whole)
    if not keys:
        return None
    found = texts.kept_data(texts.digest(*_save_parts(keys, savedata, data)))
    if found is not None:
        texts.keep(keys + _part_keys(texts, keys))
    return found


SAVE_WHOLE_KIND = "save whole-1"
"""What the keys of a save's runs are kept by, before its `_scenario_token`."""


def _scenario_token(plan: ModulePlan, scenario: Scenario) -> str:
    """Everything a save's commands are made from, as one text, without making them: the
    scenario (its digest); the record token of each piece it places, in order (what each
    piece's key holds besides the placement: `_record_key`; "" for an entry that places
    nothing); every map's board key (the map and its layout whole: which map each location
    is on, where it lies) and name; the turns reinforcements arrive on (the Reinforcements
    map's layout); the boards' lines and whether a deal starts. The code that places the
    pieces is in every key (`piececache.PLACING`). Empty (not kept so) for a scenario with
    decks (its cards read more) or a plan without board keys."""
    if scenario.decks or not plan.board_keys:
        return ""
    view = scenario_view(plan.game, scenario)
    records = plan.record_tokens
    pieces = [
        records[p.unit.id]
        if p.unit is not None
        else _marker_token(plan, p.marker)
        if p.marker is not None
        else ""
        for p in chain(view.setup, view.arrivals)
    ]
    dealt = any(scenario.id in deal.scenarios for deal in deals(plan.game))
    head = [
        content_digest(scenario),
        *plan.board_keys.values(),
        repr(plan.map_names),
        repr(plan.reinforcement_turns),
        repr(_board_lines(plan)),
        str(dealt),
    ]
    return "\x1d".join(["\x1e".join(head), "\x1e".join(pieces)])


SAVE_RUN = 32
"""The commands of a save kept together (their texts, by their keys: `save_file`)."""


SAVE_RUN_KIND = "save run-2"
"""What a run of a save's commands is kept by, before its `_run_token`."""


def _run_token(run: list[Command]) -> str:
    """The keys of a run of a save's commands as one text (what the run's texts are kept by,
    `PieceTexts.text_digest`): a piece's kind and record token (`_record_key`: six fields
    joined by \\x1f, digests, image names and numbers, none holding a separator) as they are,
    the rest of its key and each other command as their repr (which escapes every
    separator): different runs give different texts. The repr of a whole key escaped each
    separator of the long record token (2,645 placed pieces at 8,000 counters)."""
    return "\x1e".join([_command_token(command) for command in run])


def _command_token(command: Command) -> str:
    if isinstance(command, str):
        return repr(command)
    kind, record, *rest = command.key
    return f"{kind}\x1f{record}\x1f{rest!r}"


def _made(texts: PieceTexts, run: list[Command]) -> list[str]:
    """The texts of a run of a save's commands, each piece's made (or taken from `texts`,
    by its own key, when a build that made the run again before kept it)."""
    return [c if isinstance(c, str) else texts.text(c.make, *c.key) for c in run]


class Deflated(NamedTuple):
    """A file as a zip entry holds it deflated: its content's CRC-32 and length, the raw
    deflate stream."""

    crc: int
    size: int
    data: bytes


def _saved_stream(texts: PieceTexts, keys: list[str], made: list[list[str]]) -> Deflated:
    """The savedGame text (every run's commands ESC-joined: `enc.join` escapes field by field,
    so the runs joined one by one and then together give the same text), deflated run by run:
    each run's part (with the ESC after it, but for the last) deflated alone and ended by a
    sync flush, kept in `texts` by the run's key (`save_file`), the stream ended by an empty
    last block. A save in which one piece changed deflates that run again, not the whole
    save (a megabyte at 8,000 counters, 15 ms). Made the same way with or without a pack:
    a cold build writes the same bytes."""
    crc = size = 0
    pieces: list[bytes] = []
    last = len(made) - 1
    for at, (key, run) in enumerate(zip(keys, made, strict=True)):
        text = enc.join(run, enc.ESC) + (enc.ESC if at < last else "")
        part = text.encode("utf-8")
        crc, size = zlib.crc32(part, crc), size + len(part)
        pieces.append(texts.data(partial(_deflated_part, part), SAVE_PART_KIND, key, at == last))
    return Deflated(crc, size, b"".join(pieces) + FINAL_BLOCK)


SAVE_PART_KIND = "save part-1"
"""What a run's part of a savedGame is kept deflated by, with the run's key (`_saved_stream`)."""
FINAL_BLOCK = b"\x03\x00"
"""An empty last block of fixed codes: what ends a stream of parts each ended by a sync
flush."""


def _deflated_part(part: bytes) -> bytes:
    """A part of a stream deflated alone (raw, zipfile's level), ended by a sync flush."""
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    return packer.compress(part) + packer.flush(zlib.Z_SYNC_FLUSH)


def _deflated_whole(data: bytes) -> Deflated:
    """A file deflated as zipfile deflates it (raw, the default level)."""
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    return Deflated(zlib.crc32(data), len(data), packer.compress(data) + packer.flush())


def _archive(saved: Deflated, savedata: bytes, module: bytes) -> bytes:
    """The .vsav zip of its three files (deflated, fixed timestamps), laid out as zipfile
    writes a ZipInfo of these names and date (`zip_of`); savedGame deflated already."""
    return zip_of(
        [
            ("savedGame", saved),
            ("savedata", _deflated_whole(savedata)),
            ("moduledata", _deflated_whole(module)),
        ]
    )


def zip_of(entries: list[tuple[str, Deflated]]) -> bytes:
    """The zip zipfile writes of these deflated entries (ASCII names), each given as a
    `zipfile.ZipInfo(name, date_time=ZIP_DATE)` deflated to the stream given: version 2.0,
    made on Unix, mode 600, no extra fields, no data descriptor."""
    out: list[bytes] = []
    directory: list[bytes] = []
    offset = 0
    for name, entry in entries:
        encoded = name.encode("ascii")
        common = (0, 8, DOS_TIME, DOS_DATE, entry.crc, len(entry.data), entry.size)
        local = _LOCAL.pack(b"PK\x03\x04", 20, 0, *common, len(encoded), 0)
        central = _CENTRAL.pack(
            b"PK\x01\x02", 20, 3, 20, 0, *common, len(encoded), 0, 0, 0, 0, ATTRIBUTES
        )
        directory += [central, struct.pack("<L", offset), encoded]
        out += [local, encoded, entry.data]
        offset += len(local) + len(encoded) + len(entry.data)
    listed = b"".join(directory)
    count = len(entries)
    end = _END.pack(b"PK\x05\x06", 0, 0, count, count, len(listed), offset, 0)
    return b"".join([*out, listed, end])


DOS_DATE = (ZIP_DATE[0] - 1980) << 9 | ZIP_DATE[1] << 5 | ZIP_DATE[2]
DOS_TIME = ZIP_DATE[3] << 11 | ZIP_DATE[4] << 5 | ZIP_DATE[5] // 2
ATTRIBUTES = 0o600 << 16
"""The external attributes zipfile gives an entry written from bytes (mode 600)."""
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5HL")
"""A central record but for its last field (the local header's offset)."""
_END = struct.Struct("<4s4H2LH")
