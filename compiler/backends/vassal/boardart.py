"""Board art given by the map data (an image plus grid calibration): checked before anything
is written — a missing, unreadable or huge image is a finding at the `image:` line."""

from __future__ import annotations

import warnings
from pathlib import Path

from PIL import Image

from compiler.diagnostics import Finding
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap

MAX_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 80_000_000


def art_path(game: GameData, game_map: GameMap) -> Path | None:
    return Path(game.root) / game_map.art.image if game_map.art is not None else None


def _problem(path: Path) -> str | None:
    if not path.is_file():
        return "is missing"
    if path.stat().st_size > MAX_BYTES:
        return f"is {path.stat().st_size / 1048576:.0f} MiB (at most {MAX_BYTES // 1048576} MiB)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as image:
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
    path = art_path(game, game_map)
    if path is None:
        return None
    with Image.open(path) as image:
        return image.convert("RGB")
