"""A VASSAL save (.vsav) read as data: its module, and every piece with where it lies.

Reads what VASSAL 3.6 and 3.7 write (obfuscated or plain command streams, nested command
lists, expanded traits with UniqueID) and what countermix writes (flat lists, prototypes by
name). Pieces in stacks take the stack's map and position; pieces in a deck carry the deck's
name. Commands other than pieces, stacks and decks (boards, rosters, turn counters) are
counted, not interpreted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from compiler.importing.archive import Archive, ArchiveError
from compiler.importing.commands import command_text, flat_commands
from compiler.importing.pieces import Piece, PieceError, decode_piece
from compiler.sequence import TAB, split

MAX_SAVED_GAME_BYTES = 256 * 1024**2


@dataclass(frozen=True, slots=True)
class SavedPiece:
    """One piece of a save: its id in the save, the decoded piece, and where it lies."""

    id: str
    piece: Piece
    map: str
    x: int
    y: int
    deck: str = ""
    command: int = 0
    """The number of the piece's command in the flattened stream (1 = begin_save)."""
    stack: str = ""
    """The id of the stack the piece is in ("" when it lies alone)."""
    level: int = 0
    """Its place in that stack, 0 at the bottom."""


@dataclass(frozen=True, slots=True)
class SavedDeck:
    """A deck in a save: its name, where it lies and its cards, top first."""

    id: str
    name: str
    map: str
    x: int
    y: int
    members: tuple[str, ...]


@dataclass
class SaveContents:
    """What a save holds."""

    path: Path
    module_name: str = ""
    module_version: str = ""
    vassal_version: str = ""
    description: str = ""
    pieces: list[SavedPiece] = field(default_factory=list)
    decks: list[SavedDeck] = field(default_factory=list)
    other_commands: int = 0
    boards: list[str] = field(default_factory=list)
    """The `<map>BoardPicker` lines: where the save lays each map's boards."""


def read_save(path: Path) -> SaveContents:
    """The save at `path`; ArchiveError when it is not one (or is damaged)."""
    with Archive(path) as archive:
        return save_contents(archive, path, str(path))


def save_contents(archive: Archive, path: Path, where: str) -> SaveContents:
    """What the save opened as `archive` holds; its findings name `path` (a save inside a
    module names the module) and its refusals `where`."""
    if not archive.has("savedGame"):
        raise ArchiveError(f"{where} is not a VASSAL save: it has no `savedGame` entry")
    contents = SaveContents(path)
    _metadata(archive, contents)
    text = command_text(archive.read("savedGame", MAX_SAVED_GAME_BYTES), where)
    return read_commands(text, contents)


def read_commands(text: str, contents: SaveContents) -> SaveContents:
    """Pieces, stacks and decks from a save's command text."""
    where = str(contents.path)
    commands = flat_commands(text, where)
    if not commands or commands[0] != "begin_save" or commands[-1] != "end_save":
        raise ArchiveError(
            f"{where}: the command stream does not run from begin_save to end_save "
            "(a truncated or foreign save)"
        )
    pieces: dict[str, Piece] = {}
    placed: dict[str, tuple[str, int, int]] = {}
    in_deck: dict[str, str] = {}
    order: list[str] = []
    numbers: dict[str, int] = {}
    stacked: dict[str, tuple[str, int]] = {}
    for number, command in enumerate(commands[1:-1], start=2):
        if not command.startswith("+/"):
            contents.other_commands += 1
            if "BoardPicker" + TAB in command:
                contents.boards.append(command)
            continue
        parts = split(command[2:], "/")
        if len(parts) < 3:
            raise ArchiveError(f"{where}: a damaged add-piece command: {command[:80]!r}")
        ident, type_, state = parts[0], parts[1], "/".join(parts[2:])
        if type_ == "stack":
            _stack(ident, state, placed, stacked)
        elif type_.startswith("deck;"):
            deck = _deck(ident, type_, state)
            contents.decks.append(deck)
            for member in deck.members:
                in_deck[member] = deck.name
                placed[member] = (deck.map, deck.x, deck.y)
        else:
            try:
                pieces[ident] = decode_piece(type_, state)
            except PieceError as err:
                raise ArchiveError(f"{where}: piece {ident} cannot be read ({err})") from err
            order.append(ident)
            numbers[ident] = number
    for ident in order:
        piece = pieces[ident]
        map_name, x, y = placed.get(ident, (piece.map, piece.x, piece.y))
        contents.pieces.append(
            SavedPiece(
                ident,
                piece,
                map_name,
                x,
                y,
                in_deck.get(ident, ""),
                numbers[ident],
                *stacked.get(ident, ("", 0)),
            )
        )
    return contents


def _stack(
    ident: str,
    state: str,
    placed: dict[str, tuple[str, int, int]],
    stacked: dict[str, tuple[str, int]],
) -> None:
    """`map;x;y;member;...;@@layer`: the stack's place is its members' place; members are
    listed bottom first."""
    fields = split(state, ";")
    if len(fields) < 3:
        return
    where = (fields[0], _int(fields[1]), _int(fields[2]))
    members = [m for m in fields[3:] if m and not m.startswith("@@")]
    for level, member in enumerate(members):
        placed[member] = where
        stacked[member] = (ident, level)


def _deck(ident: str, type_: str, state: str) -> SavedDeck:
    """Deck type `deck;drawOutline;colour;width;height;faceDown;shuffle;multiple;select;
    reversible;reshuffleCommand;reshuffleTarget;reshuffleMessage;name;...` and state
    `map;x;y;faceDown;member,member,...` (VASSAL 3.6 and 3.7 Deck.getType/getState)."""
    type_fields = split(type_, ";")
    name = type_fields[13] if len(type_fields) > 13 and type_fields[13] else ident
    fields = split(state, ";")
    map_name = fields[0] if fields else "null"
    x = _int(fields[1]) if len(fields) > 1 else 0
    y = _int(fields[2]) if len(fields) > 2 else 0
    members = tuple(m for m in split(fields[4], ",") if m) if len(fields) > 4 else ()
    return SavedDeck(ident, name, map_name, x, y, members)


def _metadata(archive: Archive, contents: SaveContents) -> None:
    for entry in ("moduledata", "savedata"):
        if not archive.has(entry):
            continue
        root = archive.xml(entry, 1024 * 1024)
        if entry == "moduledata":
            contents.module_name = (root.findtext("name") or "").strip()
            contents.module_version = (root.findtext("version") or "").strip()
        else:
            contents.vassal_version = (root.findtext("VassalVersion") or "").strip()
            contents.description = (root.findtext("description") or "").strip()


def _int(text: str, default: int = 0) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return default
