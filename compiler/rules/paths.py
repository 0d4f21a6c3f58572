"""Paths the data names stay where they belong: board art inside the game folder, the game id
one plain folder name under the build folder. Checked at validate, so no back end ever opens
or writes an outside path."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.diagnostics import Finding
from compiler.load.paths import game_path
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap


def art_outside(game: GameData, game_map: GameMap) -> Finding | None:
    """A finding when the map's board image lies outside the game folder (or is absolute)."""
    if game_map.art is None:
        return None
    _path, reason = game_path(game.root, game_map.art.image)
    if reason is None:
        return None
    return Finding(
        "path-outside-game",
        game_map.art.locate("image"),
        f"board image `{game_map.art.image}` of map `{game_map.id}` {reason}",
        "put the image inside the game folder and give its path relative to the folder, "
        "e.g. art/board.png",
    )


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
    problem = _id_problem(game.game.id)
    if problem is not None:
        yield Finding(
            "path-outside-game",
            game.game.locate("id"),
            f"game id `{game.game.id}` {problem}: the id names the game's build folder, "
            "build/<id>/, which must lie inside the build folder",
            "use letters, digits, hyphens and underscores, e.g. my-game",
        )
