"""Board art given by the map data (an image plus grid calibration): checked before anything
is written — a missing, unreadable or huge image is a finding at the `image:` line. Only a
regular file inside the game folder is opened: validation reports an absolute path or one
leading out of the folder (`path-outside-game`), and this module refuses it again. The file
checks are shared with piece art (compiler.backends.pieceart)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from compiler.backends.pieceart import ArtError, image_problem, open_file
from compiler.diagnostics import Finding
from compiler.load.paths import game_path
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.rules.paths import art_outside


def art_path(game: GameData, game_map: GameMap) -> Path | None:
    """The board image of a map, when it has one inside the game folder."""
    if game_map.art is None:
        return None
    path, outside = game_path(game.root, game_map.art.image)
    return None if outside else path


def check_board_art(game: GameData) -> list[Finding]:
    findings = []
    for game_map in game.maps:
        outside = art_outside(game, game_map)
        if outside is not None:  # validation reports it; never opened here either
            findings.append(outside)
            continue
        path = art_path(game, game_map)
        if path is None or game_map.art is None:
            continue
        problem = image_problem(path)
        if problem is not None:
            findings.append(
                Finding(
                    "board-image",
                    game_map.art.locate("image"),
                    f"board image `{game_map.art.image}` of map `{game_map.id}` {problem}",
                    "give a PNG or JPEG path relative to the game folder, or drop `art:` to get a "
                    "drawn board",
                )
            )
    return findings


def load_board_art(game: GameData, game_map: GameMap) -> Image.Image | None:
    """The map's board image (checked by check_board_art before the build)."""
    path = _board_art_file(game, game_map)
    if path is None:
        return None
    with open_file(path) as handle, Image.open(handle) as image:
        return image.convert("RGB")


def board_art_size(game: GameData, game_map: GameMap) -> tuple[int, int] | None:
    """The size of the map's board image, read from its header (the pixels stay undecoded)."""
    path = _board_art_file(game, game_map)
    if path is None:
        return None
    with open_file(path) as handle, Image.open(handle) as image:
        return image.size


def _board_art_file(game: GameData, game_map: GameMap) -> Path | None:
    outside = art_outside(game, game_map)
    if outside is not None:
        raise ArtError(outside)
    return art_path(game, game_map)
