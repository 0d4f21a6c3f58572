"""Paths the data names stay where they belong: board art and piece art inside the game folder,
the game id one plain folder name under the build folder. Checked at validate, so no back end
ever opens or writes an outside path."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from compiler.diagnostics import Finding
from compiler.load.paths import game_path
from compiler.model.common import Node
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.model.units import PieceArt


def outside_finding(game: GameData, node: Node, key: str, name: str, what: str) -> Finding | None:
    """A finding at `node`'s `key` when the image `name` lies outside the game folder (or is
    absolute); `what` names the image in the message ("board image `x.png` of map `m`")."""
    _path, reason = game_path(game.root, name)
    if reason is None:
        return None
    example = "art/board.png" if key == "image" else "art/counter.png"
    return Finding(
        "path-outside-game",
        node.locate(key),
        f"{what} {reason}",
        "put the image inside the game folder and give its path relative to the folder, "
        f"e.g. {example}",
    )


def art_outside(game: GameData, game_map: GameMap) -> Finding | None:
    """A finding when the map's board image lies outside the game folder (or is absolute)."""
    if game_map.art is None:
        return None
    what = f"board image `{game_map.art.image}` of map `{game_map.id}`"
    return outside_finding(game, game_map.art, "image", game_map.art.image, what)


PieceArtPath = tuple[str, PieceArt, str, str]
"""(owner, e.g. "unit `ge-1-inf`", the art record, its field, the path)."""


def piece_art_paths(game: GameData) -> list[PieceArtPath]:
    """Every image path of piece art the data gives, in source order. (An owner's name is
    spelt only for a record with art: most of a large game's thousands of units have none,
    and this runs at every build.)"""
    found: list[PieceArtPath] = []
    records: tuple[tuple[str, Sequence[_WithArt]], ...] = (
        ("unit", game.units),
        ("marker set", game.marker_sets),
        ("card", game.cards),
        ("deck", game.decks),
    )
    for kind, owners in records:
        for record in [r for r in owners if r.art is not None]:
            art = record.art
            assert art is not None
            found.extend((f"{kind} `{record.id}`", art, key, path) for key, path in art.paths())
    return found


class _WithArt(Protocol):
    """A record that may have piece art (a unit, marker set, card, deck)."""

    @property
    def id(self) -> str: ...

    @property
    def art(self) -> PieceArt | None: ...


def piece_art_outside(game: GameData, art: PieceArt, key: str, owner: str) -> Finding | None:
    """A finding when one image of a piece's art lies outside the game folder."""
    name = getattr(art, key)
    return outside_finding(game, art, key, name, f"{key} image `{name}` of {owner}")


def _id_problem(game_id: str) -> str | None:
    if not game_id.strip():
        return "is empty"
    if game_id.startswith("."):
        return "starts with a dot"
    if "/" in game_id or "\\" in game_id:
        return "holds a path separator"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in game_id):
        return "holds a control character"
    return None


def check_paths(game: GameData) -> Iterator[Finding]:
    for game_map in game.maps:
        finding = art_outside(game, game_map)
        if finding is not None:
            yield finding
    for owner, art, key, _path in piece_art_paths(game):
        finding = piece_art_outside(game, art, key, owner)
        if finding is not None:
            yield finding
    problem = _id_problem(game.game.id)
    if problem is not None:
        yield Finding(
            "path-outside-game",
            game.game.locate("id"),
            f"game id `{game.game.id}` {problem}: the id names the game's build folder, "
            "build/<id>/, which must lie inside the build folder",
            "use letters, digits, hyphens and underscores, e.g. my-game",
        )
