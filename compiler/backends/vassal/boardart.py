"""Board art given by the map data (an image plus grid calibration): checked before anything
is written — a missing, unreadable or huge image is a finding at the `image:` line. Only a
regular file inside the game folder is opened: validation reports an absolute path or one
leading out of the folder (`path-outside-game`), and this module refuses it again."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path
from typing import BinaryIO

from PIL import Image

from compiler.diagnostics import Finding
from compiler.load.paths import game_path
from compiler.load.yamlread import file_kind
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap
from compiler.regularfile import open_regular
from compiler.rules.paths import art_outside

MAX_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 80_000_000


def art_path(game: GameData, game_map: GameMap) -> Path | None:
    """The board image of a map, when it has one inside the game folder."""
    if game_map.art is None:
        return None
    path, outside = game_path(game.root, game_map.art.image)
    return None if outside else path


def _open_regular(path: Path) -> BinaryIO:
    """The file, opened without waiting (a pipe swapped in is refused, never waited on)."""
    return os.fdopen(open_regular(path)[0], "rb")


def _problem(path: Path) -> str | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return "is missing"
    if not stat.S_ISREG(info.st_mode):  # a pipe or a device is never opened
        return f"is {file_kind(info.st_mode)}, not an image file"
    if info.st_size > MAX_BYTES:
        return f"is {info.st_size / 1048576:.0f} MiB (at most {MAX_BYTES // 1048576} MiB)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with _open_regular(path) as handle, Image.open(handle) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    return f"is {width}×{height} pixels (at most {MAX_PIXELS:,} pixels)"
                image.verify()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        return f"is too large to open safely ({err})"
    except (OSError, SyntaxError, ValueError) as err:
        return f"is not a readable image ({err})"
    return None


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
        problem = _problem(path)
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
    outside = art_outside(game, game_map)
    if outside is not None:
        from compiler.backends.vassal.module import ArtError

        raise ArtError(outside)
    path = art_path(game, game_map)
    if path is None:
        return None
    with _open_regular(path) as handle, Image.open(handle) as image:
        return image.convert("RGB")
